/*
 * op_attr.h — an op call's attributes and arguments by parameter name,
 * read by slot. The names are the constants P_name of op_params.h,
 * generated from ops.def at build time (compiler/gen_params.c), so a
 * misspelled name does not compile and no stage re-reads a signature's
 * text to find a slot.
 *
 *   AttrVal axis = *op_attr(e, P_axis);   // the op must have it
 *   const AttrVal *kd = op_attr_opt(e, P_keepdims);  // NULL when not
 */
#ifndef RLX_OP_ATTR_H
#define RLX_OP_ATTR_H

#include "ir.h"
#include "op_params.h"

/* Does op have the parameter p (an attribute or an expression argument)? */
bool op_has_param(OpKind op, ParamName p);
/* The attribute p of call e; ir_bug when e's op has no attribute p. */
const AttrVal *op_attr(const Expr *e, ParamName p);
/* The attribute p of call e, or NULL when e's op has none. */
const AttrVal *op_attr_opt(const Expr *e, ParamName p);
/* The expression argument p of call e, or NULL when the op has none or
 * the call leaves it out (an optional `name?`). */
Expr *op_arg(const Expr *e, ParamName p);

#endif
