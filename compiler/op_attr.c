/*
 * op_attr.c — attributes and arguments of an op call by parameter name,
 * through the slot table generated from ops.def (op_params.c).
 */
#include "op_attr.h"

/* slot + 1 of an attribute, -(slot + 1) of an argument, 0: none */
static int
slot_code(OpKind op, ParamName p)
{
	if (op <= OP_NONE || op >= OP_COUNT || p <= P_NONE || p >= P_COUNT)
		ir_bug("bad op %d or parameter %d", (int)op, (int)p);
	return op_param_slots[op][p];
}

bool
op_has_param(OpKind op, ParamName p)
{
	return slot_code(op, p) != 0;
}

const AttrVal *
op_attr_opt(const Expr *e, ParamName p)
{
	if (e->kind != E_CALL)
		ir_bug("op_attr of a non-call");
	int s = slot_code(e->call.op, p);
	if (s <= 0)
		return NULL;
	/* the verifier holds every call to its signature's attribute count */
	if (s - 1 >= e->call.nattrs)
		ir_bug("R.%s has %d attributes", op_info(e->call.op)->name,
		       e->call.nattrs);
	return &e->call.attrs[s - 1];
}

const AttrVal *
op_attr(const Expr *e, ParamName p)
{
	const AttrVal *v = op_attr_opt(e, p);
	if (!v)
		ir_bug("R.%s has no attribute number %d", op_info(e->call.op)->name,
		       (int)p);
	return v;
}

Expr *
op_arg(const Expr *e, ParamName p)
{
	if (e->kind != E_CALL)
		ir_bug("op_arg of a non-call");
	int s = slot_code(e->call.op, p);
	if (s >= 0 || -s - 1 >= e->call.nargs)
		return NULL;
	return e->call.args[-s - 1];
}
