/*
 * build_tir.c — a @T.prim_func's syntax tree to TIR (tir.h), in both of
 * TVM's spellings: releases (T.block, T.alloc_buffer, T.block_attr) and
 * main (T.sblock, T.sblock_alloc_buffer, T.sblock_attr, s_tir=True).
 * Names are resolved here (scalar vars and buffers, innermost first);
 * literals are typed as TVM's parser types them (a Python int is int32, a
 * float float32, and a literal meeting a typed operand takes its type);
 * every node keeps its span. Errors are reported at their node and
 * building goes on where it can.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

typedef struct {
	const char *name;
	TVar *var;
	TBuf *buf;
	TVar **tup; /* `for ij in T.grid(m, n)`: ij names the loop variables */
	int ntup;
} TName;

typedef struct {
	B *b;
	Module *m;
	Diags *d;
	PrimFunc *f;
	Vec names; /* TName*, innermost last */
	Vec loops; /* TStmt* of the enclosing for loops */
	int blocks; /* enclosing blocks */
	bool any_block;
} TB;

static TStmt *tstmts(TB *t, Stm *s);
static TExpr *texpr(TB *t, Syn *x);

/* ------------------------------------------------------------- names */

static void
def_var(TB *t, const char *name, TVar *v)
{
	TName *n = ARENA_NEW(&t->b->ps->ast, TName);
	n->name = name;
	n->var = v;
	vec_push(&t->names, n);
}

static void
def_buf(TB *t, const char *name, TBuf *buf)
{
	TName *n = ARENA_NEW(&t->b->ps->ast, TName);
	n->name = name;
	n->buf = buf;
	vec_push(&t->names, n);
}

static TName *
find(TB *t, const char *name)
{
	for (int i = t->names.n - 1; i >= 0; i--) {
		TName *n = t->names.items[i];
		if (!strcmp(n->name, name))
			return n;
	}
	return NULL;
}

/* ij[k] of a name for a grid's loop variables, else NULL. */
static TVar *
tuple_item(TB *t, const Syn *x)
{
	if (x->kind != X_INDEX || x->a->kind != X_NAME || x->b->kind != X_INT)
		return NULL;
	TName *n = find(t, x->a->s);
	if (!n || !n->tup)
		return NULL;
	if (x->b->i < 0 || x->b->i >= n->ntup) {
		diag_error(t->d, x->b->span, "'%s' has %d loop variables", x->a->s, n->ntup);
		return NULL;
	}
	return n->tup[x->b->i];
}

static TBuf *
find_buf(TB *t, Syn *x)
{
	if (x->kind != X_NAME) {
		diag_error(t->d, x->span, "expected a buffer name");
		return NULL;
	}
	TName *n = find(t, x->s);
	if (!n) {
		diag_error(t->d, x->span, "undefined buffer '%s'", x->s);
		return NULL;
	}
	if (!n->buf) {
		diag_error(t->d, x->span, "'%s' is a scalar, not a buffer", x->s);
		return NULL;
	}
	return n->buf;
}

/* `T.xxx`: the name after "T.", or NULL. */
static const char *
tname(const Syn *x)
{
	if (x->kind == X_CALL)
		x = x->a;
	if (x->kind == X_ATTR && x->a->kind == X_NAME && !strcmp(x->a->s, "T"))
		return x->s;
	return NULL;
}

static bool
is_t(const Syn *x, const char *name)
{
	const char *n = tname(x);
	return n && !strcmp(n, name);
}

/* T.int32, T.float32, ... as a type (also the string "int32"). */
static bool
type_of_syn(const Syn *x, TType *out)
{
	if (x->kind == X_STR)
		return tir_type_parse(x->s, out);
	const char *n = x->kind == X_ATTR ? tname(x) : NULL;
	return n && tir_type_parse(n, out);
}

static bool
conv_type(TB *t, Syn *x, TType *out)
{
	if (type_of_syn(x, out))
		return true;
	const char *s = x->kind == X_STR ? x->s : NULL;
	const char *hint = s ? bld_suggest_dtype(s) : NULL;
	if (hint)
		diag_error(t->d, x->span, "unknown dtype '%s'; did you mean '%s'?", s, hint);
	else
		diag_error(t->d, x->span,
			   "expected a TIR type (a dtype string or T.int32, T.float32, T.handle, ...)");
	return false;
}

/* --------------------------------------------------------- expressions */

static bool
is_int(TType ty)
{
	return ty != TT_HANDLE && dtype_is_int((DType)ty);
}

static bool
is_float(TType ty)
{
	return ty != TT_HANDLE && dtype_is_float((DType)ty);
}

static bool
is_lit(const TExpr *e)
{
	return e->kind == TE_INT || e->kind == TE_FLOAT;
}

/* A literal e retyped to ty (TVM's parser: a Python literal meeting a
 * typed operand takes its type). */
/* `not c` and T.Not(c): c must be a bool (else an error at err). */
static TExpr *
negation(TB *t, TExpr *c, Span err, Span sp, const char *what)
{
	if (c->ty != DT_BOOL) {
		diag_error(t->d, err, "%s of a %s value", what, tir_type_name(c->ty));
		return NULL;
	}
	TExpr *e = tir_expr(t->m, TE_NOT, DT_BOOL, sp);
	e->a = c;
	return e;
}

static TExpr *
retype(TB *t, TExpr *e, TType ty)
{
	if (e->ty == ty || !is_lit(e) || ty == TT_HANDLE)
		return e;
	TExpr *r = tir_expr(t->m, is_float(ty) ? TE_FLOAT : TE_INT, ty, e->span);
	double v = e->kind == TE_FLOAT ? e->f : (double)e->i;
	if (is_float(ty)) {
		r->f = v;
	} else {
		if (e->kind == TE_FLOAT)
			return NULL; /* a float literal does not become an int */
		r->i = ty == DT_BOOL ? e->i != 0 : e->i;
	}
	return r;
}

static TExpr *
cast(TB *t, TExpr *e, TType ty, Span sp)
{
	TExpr *c = tir_expr(t->m, TE_CAST, ty, sp);
	c->a = e;
	return c;
}

/* The operands of a binary op brought to one type, as TVM's
 * BinaryOpMatchTypes: a literal takes the other side's type; of two ints
 * the narrower is cast up; an int meeting a float is cast to it. */
static bool
unify(TB *t, TExpr **a, TExpr **b, Span sp, const char *op)
{
	TExpr *x = *a, *y = *b;
	if (x->ty == y->ty)
		return true;
	if (x->ty == TT_HANDLE || y->ty == TT_HANDLE) {
		diag_error(t->d, sp, "operands of '%s' are %s and %s", op,
			   tir_type_name(x->ty), tir_type_name(y->ty));
		return false;
	}
	TExpr *r;
	if (is_lit(y) && !is_lit(x) && (r = retype(t, y, x->ty))) {
		*b = r;
		return true;
	}
	if (is_lit(x) && !is_lit(y) && (r = retype(t, x, y->ty))) {
		*a = r;
		return true;
	}
	bool fx = is_float(x->ty), fy = is_float(y->ty);
	if (fx != fy) {
		if (fx)
			*b = cast(t, y, x->ty, y->span);
		else
			*a = cast(t, x, y->ty, x->span);
		return true;
	}
	if (is_lit(x) && is_lit(y) && !fx) {
		/* two int literals: the wider type */
		TType ty = dtype_bits((DType)x->ty) >= dtype_bits((DType)y->ty) ? x->ty : y->ty;
		*a = retype(t, x, ty);
		*b = retype(t, y, ty);
		return true;
	}
	if (dtype_bits((DType)x->ty) < dtype_bits((DType)y->ty))
		*a = cast(t, x, y->ty, x->span);
	else if (dtype_bits((DType)x->ty) > dtype_bits((DType)y->ty))
		*b = cast(t, y, x->ty, y->span);
	else {
		diag_error(t->d, sp, "operands of '%s' are %s and %s: cast one with T.Cast",
			   op, tir_type_name(x->ty), tir_type_name(y->ty));
		return false;
	}
	return true;
}

static TExpr *
bin(TB *t, TExprKind k, TExpr *a, TExpr *b, Span sp)
{
	if (!a || !b)
		return NULL;
	bool infix;
	const char *op = tir_op_text(k, &infix);
	if (!unify(t, &a, &b, sp, op))
		return NULL;
	TType ty = a->ty;
	if (k == TE_AND || k == TE_OR) {
		if (a->ty != DT_BOOL) {
			diag_error(t->d, sp, "operands of '%s' must be bool, not %s", op,
				   tir_type_name(a->ty));
			return NULL;
		}
	} else if (TE_IS_CMP(k)) {
		ty = DT_BOOL;
	} else if ((k == TE_FLOORDIV || k == TE_FLOORMOD || k == TE_TRUNCDIV ||
		    k == TE_TRUNCMOD) && !is_int(a->ty) && !is_float(a->ty)) {
		diag_error(t->d, sp, "'%s' of %s values", op, tir_type_name(a->ty));
		return NULL;
	}
	TExpr *e = tir_expr(t->m, k, ty, sp);
	e->a = a;
	e->b = b;
	return e;
}

/* Names TVM's T module has that are not intrinsics calls (for the
 * did-you-mean of an unknown name). */
static const char *const t_forms[] = {
	"Cast", "cast", "Select", "Not", "max", "min", "floordiv", "floormod",
	"truncdiv", "truncmod", "Div", "FloorDiv", "FloorMod", "Mod",
	"max_value", "min_value", "int8", "int16", "int32", "int64", "uint8",
	"float16", "bfloat16", "float32", "float64", "bool", "evaluate",
	"Buffer", "match_buffer", "alloc_buffer", "sblock_alloc_buffer",
	"grid", "serial", "parallel", "vectorized", "unroll", "thread_binding",
	"sblock", "block", "init", "reads", "writes", "where", "axis",
	"func_attr", "sblock_attr", "block_attr", "attr", "let", "handle",
	"prim_func", "FloatImm", "IntImm",
};


static void
unknown_t(TB *t, Span sp, const char *n)
{
	const char *hint = NULL;
	int best = 99;
	int ni = 0;
	while (tir_intrinsic_at(ni))
		ni++;
	for (int i = 0; i < ni + (int)ARRAY_LEN(t_forms); i++) {
		const char *c = i < ni ? tir_intrinsic_at(i)->name : t_forms[i - ni];
		int d = str_edit_distance(n, c);
		if (d < best && str_close_enough(c, d)) {
			best = d;
			hint = c;
		}
	}
	if (hint)
		diag_error(t->d, sp, "unknown TIR intrinsic 'T.%s'; did you mean 'T.%s'?",
			   n, hint);
	else
		diag_error(t->d, sp,
			   "unknown TIR intrinsic 'T.%s' (the TIR rlx reads is listed in docs/language.md)",
			   n);
}

/* The positional arguments of a call as an array (keywords refused). */
static int
pos_args(TB *t, Syn *x, Syn **out, int cap, const char *what)
{
	int n = 0;
	for (Syn *a = x->items; a; a = a->next) {
		if (a->kind == X_KWARG) {
			diag_error(t->d, a->span, "%s takes no keyword argument '%s'", what, a->s);
			return -1;
		}
		if (n < cap)
			out[n] = a;
		n++;
	}
	return n;
}

static TExpr *
call_intrinsic(TB *t, Syn *x, const char *n, const TIntrinsic *k)
{
	TExpr *e = tir_expr(t->m, TE_CALL, DT_I32, x->span);
	e->s = arena_strdup(&t->m->arena, n);
	int nargs = 0;
	Syn *dt = NULL;
	for (Syn *a = x->items; a; a = a->next) {
		if (a->kind == X_KWARG) {
			if (strcmp(a->s, "dtype")) {
				diag_error(t->d, a->span, "T.%s takes no keyword argument '%s'",
					   n, a->s);
				return NULL;
			}
			/* TVM's parser drops dtype= on the math intrinsics
			 * (their type is their argument's), forwards it as the
			 * first argument of call_extern and its kind */
			dt = a->a;
			continue;
		}
		nargs++;
	}
	if (dt && k->rule == TR_DTYPE) {
		if (dt->kind != X_STR) {
			diag_error(t->d, dt->span, "expected a dtype string");
			return NULL;
		}
		nargs++;
	}
	if (k->nargs >= 0 && nargs != k->nargs) {
		diag_error(t->d, x->span, "T.%s takes %d argument%s, not %d", n,
			   k->nargs, k->nargs == 1 ? "" : "s", nargs);
		return NULL;
	}
	e->n = nargs;
	e->args = ARENA_ARRAY(&t->m->arena, TExpr *, nargs ? nargs : 1);
	int i = 0;
	if (dt && k->rule == TR_DTYPE) {
		e->args[i] = tir_expr(t->m, TE_STR, TT_HANDLE, dt->span);
		e->args[i++]->s = arena_strdup(&t->m->arena, dt->s);
	}
	for (Syn *a = x->items; a; a = a->next) {
		if (a->kind == X_KWARG)
			continue;
		if (a->kind == X_STR) {
			e->args[i] = tir_expr(t->m, TE_STR, TT_HANDLE, a->span);
			e->args[i]->s = arena_strdup(&t->m->arena, a->s);
		} else if (!(e->args[i] = texpr(t, a))) {
			return NULL;
		}
		i++;
	}
	switch (k->rule) {
	case TR_FLOAT:
	case TR_SAME:
		if (k->rule == TR_FLOAT && !is_float(e->args[0]->ty)) {
			if (is_lit(e->args[0])) {
				e->args[0] = retype(t, e->args[0], DT_F32);
			} else {
				diag_error(t->d, x->span, "T.%s of a %s value (cast it to a float with T.Cast)",
					   n, tir_type_name(e->args[0]->ty));
				return NULL;
			}
		}
		e->ty = e->args[0]->ty;
		for (int j = 1; j < nargs; j++)
			if (e->args[j]->ty != e->ty &&
			    !(e->args[j] = retype(t, e->args[j], e->ty))) {
				diag_error(t->d, x->span, "the arguments of T.%s differ in type", n);
				return NULL;
			}
		break;
	case TR_BOOL:
		e->ty = DT_BOOL;
		break;
	case TR_ARG1:
		if (e->args[0]->ty != DT_BOOL) {
			diag_error(t->d, e->args[0]->span, "the condition of T.%s must be bool, not %s",
				   n, tir_type_name(e->args[0]->ty));
			return NULL;
		}
		if (!unify(t, &e->args[1], &e->args[2], x->span, n))
			return NULL;
		e->ty = e->args[1]->ty;
		break;
	case TR_DTYPE:
		if (nargs < 1 || e->args[0]->kind != TE_STR ||
		    !tir_type_parse(e->args[0]->s, &e->ty)) {
			diag_error(t->d, x->span, "T.%s takes the result's dtype first", n);
			return NULL;
		}
		break;
	case TR_OPAQUE:
		if (dt && !conv_type(t, dt, &e->ty))
			return NULL;
		break;
	}
	return e;
}

/* A typed literal or cast: T.float32(1), T.int64(n), T.float32("inf"). */
static TExpr *
typed(TB *t, Syn *x, TType ty)
{
	Syn *a[1];
	if (pos_args(t, x, a, 1, "a typed literal") != 1) {
		diag_error(t->d, x->span, "T.%s takes one value here", tir_type_name(ty));
		return NULL;
	}
	if (a[0]->kind == X_STR && is_float(ty)) {
		const char *s = a[0]->s;
		double v = !strcmp(s, "inf") ? INFINITY : !strcmp(s, "-inf") ? -INFINITY
			 : !strcmp(s, "nan") ? NAN : 0;
		if (v == 0) {
			diag_error(t->d, a[0]->span, "expected \"inf\", \"-inf\" or \"nan\"");
			return NULL;
		}
		TExpr *e = tir_expr(t->m, TE_FLOAT, ty, x->span);
		e->f = v;
		return e;
	}
	TExpr *v = texpr(t, a[0]);
	if (!v)
		return NULL;
	if (is_lit(v)) {
		TExpr *r = retype(t, v, ty);
		if (r) {
			r->span = x->span;
			if (r == v) {
				/* the same type: still a node of its own span */
				TExpr *c = tir_expr(t->m, v->kind, ty, x->span);
				c->i = v->i;
				c->f = v->f;
				r = c;
			}
			return r;
		}
	}
	return v->ty == ty ? v : cast(t, v, ty, x->span);
}

/* T.max_value("float32") and T.min_value: the literal. */
static TExpr *
limit(TB *t, Syn *x, bool max)
{
	Syn *a[1];
	TType ty;
	if (pos_args(t, x, a, 1, "T.max_value") != 1 || !conv_type(t, a[0], &ty))
		return NULL;
	if (ty == TT_HANDLE || ty == DT_BOOL) {
		diag_error(t->d, a[0]->span, "no limit of %s", tir_type_name(ty));
		return NULL;
	}
	if (is_float(ty)) {
		double v = ty == DT_F16 ? 65504.0 : ty == DT_F32 ? 3.4028234663852886e38
			 : ty == DT_BF16 ? 3.3895313892515355e38 : 1.7976931348623157e308;
		TExpr *e = tir_expr(t->m, TE_FLOAT, ty, x->span);
		e->f = max ? v : -v;
		return e;
	}
	int bits = dtype_bits((DType)ty);
	int64_t v;
	if (ty == DT_U8)
		v = max ? 255 : 0;
	else
		v = max ? (int64_t)(((uint64_t)1 << (bits - 1)) - 1)
			: (int64_t)(-((uint64_t)1 << (bits - 1)));
	return tir_int(t->m, ty, v, x->span);
}

static TExpr *
tcall(TB *t, Syn *x)
{
	const char *n = tname(x);
	if (!n) {
		const char *c = bld_callee_name(t->b, x);
		diag_error(t->d, x->a->span, "unsupported call '%s' in TIR", c ? c : "...");
		return NULL;
	}
	TType ty;
	if (tir_type_parse(n, &ty) && ty != TT_HANDLE)
		return typed(t, x, ty);
	if (!strcmp(n, "FloatImm") || !strcmp(n, "IntImm")) {
		Syn *a[2];
		if (pos_args(t, x, a, 2, n) != 2 || !conv_type(t, a[0], &ty))
			return NULL;
		Syn y = *x;
		y.items = a[1];
		a[1]->next = NULL;
		y.n = 1;
		return typed(t, &y, ty);
	}
	Syn *a[3];
	if (!strcmp(n, "Cast") || !strcmp(n, "cast")) {
		if (pos_args(t, x, a, 2, "T.Cast") != 2)
			return NULL;
		bool first = !strcmp(n, "Cast"); /* T.Cast(dtype, x), T.cast(x, dtype) */
		if (!conv_type(t, first ? a[0] : a[1], &ty))
			return NULL;
		TExpr *v = texpr(t, first ? a[1] : a[0]);
		return v ? cast(t, v, ty, x->span) : NULL;
	}
	if (!strcmp(n, "Select")) {
		if (pos_args(t, x, a, 3, "T.Select") != 3) {
			diag_error(t->d, x->span, "T.Select takes a condition and two values");
			return NULL;
		}
		TExpr *c = texpr(t, a[0]), *l = texpr(t, a[1]), *r = texpr(t, a[2]);
		if (!c || !l || !r)
			return NULL;
		if (c->ty != DT_BOOL) {
			diag_error(t->d, c->span, "the condition of T.Select must be bool, not %s",
				   tir_type_name(c->ty));
			return NULL;
		}
		if (!unify(t, &l, &r, x->span, "T.Select"))
			return NULL;
		TExpr *e = tir_expr(t->m, TE_SELECT, l->ty, x->span);
		e->c = c;
		e->a = l;
		e->b = r;
		return e;
	}
	if (!strcmp(n, "Not")) { /* T.Not(c): not c */
		if (pos_args(t, x, a, 1, "T.Not") != 1) {
			diag_error(t->d, x->span, "T.Not takes one condition");
			return NULL;
		}
		TExpr *c = texpr(t, a[0]);
		return c ? negation(t, c, c->span, x->span, "T.Not") : NULL;
	}
	if (!strcmp(n, "max_value") || !strcmp(n, "min_value"))
		return limit(t, x, n[1] == 'a');
	static const struct {
		const char *name;
		TExprKind k;
	} bins[] = {
		{"max", TE_MAX}, {"min", TE_MIN}, {"floordiv", TE_FLOORDIV},
		{"floormod", TE_FLOORMOD}, {"truncdiv", TE_TRUNCDIV},
		{"truncmod", TE_TRUNCMOD}, {"Div", TE_DIV}, {"FloorDiv", TE_FLOORDIV},
		{"FloorMod", TE_FLOORMOD}, {"Mod", TE_TRUNCMOD}, {"Max", TE_MAX},
		{"Min", TE_MIN}, {"EQ", TE_EQ}, {"NE", TE_NE}, {"LT", TE_LT},
		{"LE", TE_LE}, {"GT", TE_GT}, {"GE", TE_GE}, {"And", TE_AND},
		{"Or", TE_OR},
	};
	for (size_t i = 0; i < ARRAY_LEN(bins); i++)
		if (!strcmp(n, bins[i].name)) {
			if (pos_args(t, x, a, 2, n) != 2) {
				diag_error(t->d, x->span, "T.%s takes two values", n);
				return NULL;
			}
			return bin(t, bins[i].k, texpr(t, a[0]), texpr(t, a[1]), x->span);
		}
	const TIntrinsic *k = tir_intrinsic(n);
	if (!k) {
		unknown_t(t, x->a->span, n);
		return NULL;
	}
	return call_intrinsic(t, x, n, k);
}

/* The indices of A[...] (A[()] has none). */
static TExpr **
indices(TB *t, Syn *ix, TBuf *buf, int *n, Span sp)
{
	Syn *items = ix;
	int k = 1;
	if (ix->kind == X_TUPLE) {
		items = ix->items;
		k = ix->n;
	}
	TExpr **out = ARENA_ARRAY(&t->m->arena, TExpr *, k ? k : 1);
	int i = 0;
	for (Syn *y = items; y && i < k; y = y->next, i++) {
		if (y->kind == X_SLICE) {
			diag_error(t->d, y->span,
				   "a slice is a region (in T.reads/T.writes), not an index");
			return NULL;
		}
		if (!(out[i] = texpr(t, y)))
			return NULL;
		if (!is_int(out[i]->ty)) {
			diag_error(t->d, y->span, "an index of '%s' must be an integer, not %s",
				   buf->name, tir_type_name(out[i]->ty));
			return NULL;
		}
	}
	if (k != buf->ndim) {
		diag_error(t->d, sp, "'%s' has %d dimension%s, indexed with %d", buf->name,
			   buf->ndim, buf->ndim == 1 ? "" : "s", k);
		return NULL;
	}
	*n = k;
	return out;
}

static TExpr *
texpr(TB *t, Syn *x)
{
	switch (x->kind) {
	case X_INT:
		return tir_int(t->m, x->i > INT32_MAX || x->i < INT32_MIN ? DT_I64 : DT_I32,
			       x->i, x->span);
	case X_FLOAT: {
		TExpr *e = tir_expr(t->m, TE_FLOAT, DT_F32, x->span);
		e->f = x->f;
		return e;
	}
	case X_TRUE:
	case X_FALSE:
		return tir_int(t->m, DT_BOOL, x->kind == X_TRUE, x->span);
	case X_NAME: {
		TName *n = find(t, x->s);
		if (!n) {
			diag_error(t->d, x->span, "undefined name '%s'", x->s);
			return NULL;
		}
		if (n->buf) {
			diag_error(t->d, x->span,
				   "buffer '%s' used as a value (index it: %s[...])", x->s, x->s);
			return NULL;
		}
		if (n->tup) {
			diag_error(t->d, x->span, "'%s' is %d loop variables: index it (%s[0])",
				   x->s, n->ntup, x->s);
			return NULL;
		}
		TExpr *e = tir_expr(t->m, TE_VAR, n->var->ty, x->span);
		e->var = n->var;
		return e;
	}
	case X_INDEX: {
		TVar *tv = tuple_item(t, x);
		if (tv) {
			TExpr *e = tir_expr(t->m, TE_VAR, tv->ty, x->span);
			e->var = tv;
			return e;
		}
		if (x->a->kind == X_ATTR && !strcmp(x->a->s, "shape")) {
			/* A.shape[i]: the buffer's dimension i (shared, as B's
			 * shape is in T.match_buffer(b, A.shape)) */
			TBuf *sb = find_buf(t, x->a->a);
			if (!sb)
				return NULL;
			if (x->b->kind != X_INT || x->b->i < 0 || x->b->i >= sb->ndim) {
				diag_error(t->d, x->b->span,
					   "'%s' has %d dimensions: its shape takes an "
					   "integer index below %d", sb->name, sb->ndim,
					   sb->ndim);
				return NULL;
			}
			return sb->shape[x->b->i];
		}
		TBuf *buf = find_buf(t, x->a);
		if (!buf)
			return NULL;
		TExpr *e = tir_expr(t->m, TE_LOAD, buf->dtype, x->span);
		e->buf = buf;
		e->args = indices(t, x->b, buf, &e->n, x->span);
		return e->args ? e : NULL;
	}
	case X_NEG: {
		TExpr *a = texpr(t, x->a);
		if (!a)
			return NULL;
		if (a->kind == TE_INT || a->kind == TE_FLOAT) {
			TExpr *e = tir_expr(t->m, a->kind, a->ty, x->span);
			e->i = -a->i;
			e->f = -a->f;
			return e;
		}
		TExpr *e = tir_expr(t->m, TE_NEG, a->ty, x->span);
		e->a = a;
		return e;
	}
	case X_NOT: {
		TExpr *a = texpr(t, x->a);
		return a ? negation(t, a, x->span, x->span, "'not'") : NULL;
	}
	case X_INVERT: {
		TExpr *a = texpr(t, x->a);
		if (!a)
			return NULL;
		TExpr *e = tir_expr(t->m, TE_CALL, a->ty, x->span);
		e->s = "bitwise_not";
		e->n = 1;
		e->args = ARENA_ARRAY(&t->m->arena, TExpr *, 1);
		e->args[0] = a;
		return e;
	}
	case X_BIN: {
		TExprKind k;
		const char *call = NULL;
		switch (x->op) {
		case PE_ADD: k = TE_ADD; break;
		case PE_SUB: k = TE_SUB; break;
		case PE_MUL: k = TE_MUL; break;
		case PE_FLOORDIV: k = TE_FLOORDIV; break;
		case PE_FLOORMOD: k = TE_FLOORMOD; break;
		case SYN_TRUEDIV: k = TE_DIV; break;
		case PE_EQ: k = TE_EQ; break;
		case PE_NE: k = TE_NE; break;
		case PE_LT: k = TE_LT; break;
		case PE_LE: k = TE_LE; break;
		case PE_GT: k = TE_GT; break;
		case PE_GE: k = TE_GE; break;
		case SYN_AND: k = TE_AND; break;
		case SYN_OR: k = TE_OR; break;
		case SYN_POW: k = TE_CALL; call = "pow"; break;
		case SYN_BITAND: k = TE_CALL; call = "bitwise_and"; break;
		case SYN_BITOR: k = TE_CALL; call = "bitwise_or"; break;
		case SYN_BITXOR: k = TE_CALL; call = "bitwise_xor"; break;
		case SYN_SHL: k = TE_CALL; call = "shift_left"; break;
		case SYN_SHR: k = TE_CALL; call = "shift_right"; break;
		default:
			diag_error(t->d, x->span, "operator '%s' is not TIR", syn_op_text(x->op));
			return NULL;
		}
		TExpr *a = texpr(t, x->a), *b = texpr(t, x->b);
		if (!a || !b)
			return NULL;
		if (k != TE_CALL)
			return bin(t, k, a, b, x->span);
		if (!unify(t, &a, &b, x->span, syn_op_text(x->op)))
			return NULL;
		TExpr *e = tir_expr(t->m, TE_CALL, a->ty, x->span);
		e->s = call;
		e->n = 2;
		e->args = ARENA_ARRAY(&t->m->arena, TExpr *, 2);
		e->args[0] = a;
		e->args[1] = b;
		return e;
	}
	case X_CALL:
		return tcall(t, x);
	case X_ATTR:
		if (tname(x)) {
			unknown_t(t, x->span, tname(x));
			return NULL;
		}
		break;
	default:
		break;
	}
	diag_error(t->d, x->span, "not a TIR expression");
	return NULL;
}

/* An integer expression (a loop bound, a shape, an index). */
static TExpr *
tint(TB *t, Syn *x, const char *what)
{
	TExpr *e = texpr(t, x);
	if (e && !is_int(e->ty)) {
		diag_error(t->d, x->span, "%s must be an integer, not %s", what,
			   tir_type_name(e->ty));
		return NULL;
	}
	return e;
}

static TExpr *
tbool(TB *t, Syn *x, const char *what)
{
	TExpr *e = texpr(t, x);
	if (e && e->ty != DT_BOOL) {
		if (is_lit(e) && e->kind == TE_INT)
			return retype(t, e, DT_BOOL);
		diag_error(t->d, x->span, "%s must be bool, not %s", what, tir_type_name(e->ty));
		return NULL;
	}
	return e;
}

/* ------------------------------------------------------------- buffers */

/* A buffer declaration: T.Buffer(shape, dtype, ...), T.match_buffer(param,
 * shape, dtype, ...), T.sblock_alloc_buffer / T.alloc_buffer(shape, ...).
 * skip: leading positional arguments that are not the buffer's (the
 * matched param). */
static TBuf *
conv_buffer(TB *t, Syn *x, const char *name, const char *fname, int skip, Syn **lead)
{
	static const char *const names[] = {
		"param", "shape", "dtype", "data", "strides", "elem_offset", "scope",
		"align", "offset_factor", "buffer_type", "axis_separators",
	};
	Syn *a[ARRAY_LEN(names)];
	if (x->kind != X_CALL) {
		diag_error(t->d, x->span, "expected %s(shape, dtype)", fname);
		return NULL;
	}
	if (!bld_match_args(t->b, x, fname, names + 1 - skip, (int)ARRAY_LEN(names) - 1 + skip,
			    a + 1 - skip))
		return NULL;
	if (skip) {
		*lead = a[0];
		if (!a[0]) {
			diag_error(t->d, x->span, "%s needs the parameter it matches", fname);
			return NULL;
		}
	}
	if (!a[1]) {
		diag_error(t->d, x->span, "%s needs a shape", fname);
		return NULL;
	}
	TBuf *buf = ARENA_NEW(&t->m->arena, TBuf);
	buf->name = arena_strdup(&t->m->arena, name);
	buf->id = t->m->next_id++;
	buf->span = x->span;
	buf->dtype = DT_F32;
	Syn *sh = a[1];
	Syn *items = sh;
	int k = 1;
	int i = 0;
	if (sh->kind == X_ATTR && !strcmp(sh->s, "shape")) {
		/* B.shape: another buffer's shape */
		TBuf *o = find_buf(t, sh->a);
		if (!o)
			return NULL;
		k = o->ndim;
		buf->ndim = k;
		buf->shape = ARENA_ARRAY(&t->m->arena, TExpr *, k ? k : 1);
		for (i = 0; i < k; i++)
			buf->shape[i] = o->shape[i];
		goto dtype;
	}
	if (sh->kind == X_TUPLE || sh->kind == X_LIST) {
		items = sh->items;
		k = sh->n;
	}
	buf->ndim = k;
	buf->shape = ARENA_ARRAY(&t->m->arena, TExpr *, k ? k : 1);
	for (Syn *y = items; y && i < k; y = y->next, i++)
		if (!(buf->shape[i] = tint(t, y, "a buffer's dimension")))
			return NULL;
dtype:
	if (a[2]) {
		TType ty;
		if (!conv_type(t, a[2], &ty))
			return NULL;
		if (ty == TT_HANDLE) {
			diag_error(t->d, a[2]->span, "a buffer of handles is not supported");
			return NULL;
		}
		buf->dtype = (DType)ty;
	}
	if (a[3] && a[3]->kind != X_NONE) {
		TName *n = a[3]->kind == X_NAME ? find(t, a[3]->s) : NULL;
		if (!n || !n->var || n->var->ty != TT_HANDLE) {
			diag_error(t->d, a[3]->span, "data= must name a T.handle variable");
			return NULL;
		}
		buf->data = n->var;
	}
	if (a[4] && a[4]->kind != X_NONE) {
		Syn *s = a[4];
		Syn *its = s->kind == X_TUPLE || s->kind == X_LIST ? s->items : s;
		int ns = s->kind == X_TUPLE || s->kind == X_LIST ? s->n : 1;
		if (ns && ns != k) {
			diag_error(t->d, s->span, "%d strides for %d dimensions", ns, k);
			return NULL;
		}
		buf->nstrides = ns;
		buf->strides = ARENA_ARRAY(&t->m->arena, TExpr *, ns ? ns : 1);
		i = 0;
		for (Syn *y = its; y && i < ns; y = y->next, i++) {
			/* a stride named for the first time is defined here, as
			 * TVM's match_buffer defines it */
			if (y->kind == X_NAME && !find(t, y->s)) {
				TVar *v = tir_var(t->m, y->s, DT_I32, y->span);
				def_var(t, y->s, v);
			}
			if (!(buf->strides[i] = tint(t, y, "a stride")))
				return NULL;
		}
	}
	if (a[5] && a[5]->kind != X_NONE) {
		if (a[5]->kind == X_NAME && !find(t, a[5]->s))
			def_var(t, a[5]->s, tir_var(t->m, a[5]->s, DT_I32, a[5]->span));
		if (!(buf->elem_offset = tint(t, a[5], "elem_offset")))
			return NULL;
	}
	if (a[6]) {
		if (a[6]->kind != X_STR) {
			diag_error(t->d, a[6]->span, "scope= must be a string");
			return NULL;
		}
		if (strcmp(a[6]->s, "global"))
			buf->scope = arena_strdup(&t->m->arena, a[6]->s);
	}
	int64_t v;
	if (a[7]) {
		if (!bld_int_lit(a[7], &v) || v < -1 || v > 1 << 20) {
			diag_error(t->d, a[7]->span, "align= must be a small integer");
			return NULL;
		}
		buf->align = v > 0 ? (int)v : 0;
	}
	if (a[8]) {
		if (!bld_int_lit(a[8], &v) || v < 0 || v > 1 << 20) {
			diag_error(t->d, a[8]->span, "offset_factor= must be a small integer");
			return NULL;
		}
		buf->offset_factor = (int)v;
	}
	if (a[9]) {
		if (a[9]->kind != X_STR || (strcmp(a[9]->s, "default") && strcmp(a[9]->s, "auto") &&
					    *a[9]->s)) {
			diag_error(t->d, a[9]->span, "buffer_type= must be \"default\" or \"auto\"");
			return NULL;
		}
		if (!strcmp(a[9]->s, "auto"))
			buf->buffer_type = "auto";
	}
	if (a[10] && a[10]->kind != X_NONE &&
	    !((a[10]->kind == X_LIST || a[10]->kind == X_TUPLE) && a[10]->n == 0)) {
		diag_error(t->d, a[10]->span, "axis_separators are not supported by rlx");
		return NULL;
	}
	return buf;
}

static bool
is_alloc(const Syn *x)
{
	return x->kind == X_CALL && (is_t(x, "alloc_buffer") || is_t(x, "sblock_alloc_buffer") ||
				     is_t(x, "decl_buffer"));
}

/* ----------------------------------------------------------- statements */

static TStmt *
seq(TB *t, Vec *v, Span sp)
{
	if (v->n == 1) {
		TStmt *s = v->items[0];
		vec_free(v);
		return s;
	}
	TStmt *s = tir_stmt(t->m, TS_SEQ, sp);
	s->n = v->n;
	s->body = (TStmt **)vec_to_arena(v, &t->m->arena);
	return s;
}

/* A region of T.reads/T.writes: A[i, 0:16], A (the whole buffer). */
static bool
region(TB *t, Syn *x, TRegion *r)
{
	r->span = x->span;
	if (x->kind == X_NAME) {
		if (!(r->buf = find_buf(t, x)))
			return false;
		r->n = r->buf->ndim;
		r->ranges = ARENA_ARRAY(&t->m->arena, TRange, r->n ? r->n : 1);
		for (int i = 0; i < r->n; i++) {
			r->ranges[i].min = tir_int(t->m, r->buf->shape[i]->ty, 0, x->span);
			r->ranges[i].extent = r->buf->shape[i];
		}
		return true;
	}
	if (x->kind != X_INDEX) {
		diag_error(t->d, x->span, "expected a buffer region (A[i, 0:16])");
		return false;
	}
	if (!(r->buf = find_buf(t, x->a)))
		return false;
	Syn *ix = x->b;
	Syn *items = ix->kind == X_TUPLE ? ix->items : ix;
	int k = ix->kind == X_TUPLE ? ix->n : 1;
	if (k != r->buf->ndim) {
		diag_error(t->d, x->span, "'%s' has %d dimension%s, a region of %d", r->buf->name,
			   r->buf->ndim, r->buf->ndim == 1 ? "" : "s", k);
		return false;
	}
	r->n = k;
	r->ranges = ARENA_ARRAY(&t->m->arena, TRange, k ? k : 1);
	int i = 0;
	for (Syn *y = items; y && i < k; y = y->next, i++) {
		if (y->kind != X_SLICE) {
			if (!(r->ranges[i].min = tint(t, y, "an index")))
				return false;
			continue;
		}
		TExpr *lo = y->a ? tint(t, y->a, "a region's start")
				 : tir_int(t->m, r->buf->shape[i]->ty, 0, y->span);
		TExpr *hi = y->b ? tint(t, y->b, "a region's end") : r->buf->shape[i];
		if (!lo || !hi)
			return false;
		r->ranges[i].min = lo;
		/* extent = hi - lo, folded when both are literals */
		if (lo->kind == TE_INT && hi->kind == TE_INT) {
			r->ranges[i].extent = tir_int(t->m, hi->ty, hi->i - lo->i, y->span);
		} else if (hi->kind == TE_ADD && tir_expr_same(hi->a, lo)) {
			r->ranges[i].extent = hi->b; /* A[i:i + n] */
		} else if (lo->kind == TE_INT && lo->i == 0) {
			r->ranges[i].extent = hi;
		} else if (!(r->ranges[i].extent = bin(t, TE_SUB, hi, lo, y->span))) {
			return false;
		}
	}
	return true;
}

static bool
regions(TB *t, Syn *call, TRegion **out, int *n)
{
	Vec v = {0};
	for (Syn *a = call->items; a; a = a->next) {
		if (a->kind == X_KWARG) {
			diag_error(t->d, a->span, "unexpected keyword argument '%s'", a->s);
			vec_free(&v);
			return false;
		}
		Syn *its = a->kind == X_LIST || a->kind == X_TUPLE ? a->items : a;
		bool many = a->kind == X_LIST || a->kind == X_TUPLE;
		for (Syn *y = its; y; y = many ? y->next : NULL)
			vec_push(&v, y);
	}
	*n = v.n;
	*out = ARENA_ARRAY(&t->m->arena, TRegion, v.n ? v.n : 1);
	bool ok = true;
	for (int i = 0; i < v.n && ok; i++)
		ok = region(t, v.items[i], &(*out)[i]);
	vec_free(&v);
	return ok;
}

/* The annotations dict of T.sblock_attr / a for's annotations=. */
static bool
annotations(TB *t, Syn *x, TAnn **out, int *n)
{
	if (x->kind != X_DICT) {
		diag_error(t->d, x->span, "expected a dict of annotations");
		return false;
	}
	int k = x->n / 2;
	*out = ARENA_ARRAY(&t->m->arena, TAnn, k ? k : 1);
	*n = k;
	int i = 0;
	for (Syn *y = x->items; y && y->next; y = y->next->next, i++) {
		StrBuf s = {0};
		if (y->kind != X_STR || !bld_syn_text(&s, y->next)) {
			diag_error(t->d, y->span, "an annotation is a string key and a Python literal");
			sb_free(&s);
			return false;
		}
		(*out)[i].key = arena_strdup(&t->m->arena, y->s);
		(*out)[i].text = arena_strdup(&t->m->arena, s.p);
		sb_free(&s);
	}
	return true;
}

/* A for loop: for i in range(..) / T.grid(..) / T.serial(..) ... */
static TStmt *
tfor(TB *t, Stm *s)
{
	Syn *it = s->value;
	const char *kind = it->kind == X_CALL ? tname(it) : NULL;
	bool range = it->kind == X_CALL && bld_is_named(it, "range");
	if (!kind && !range) {
		diag_error(t->d, it->span,
			   "a TIR loop runs over range(...), T.grid(...), T.serial, T.parallel, T.vectorized, T.unroll or T.thread_binding");
		return NULL;
	}
	Vec names = {0};
	Syn *tg = s->target;
	for (Syn *y = tg->kind == X_TUPLE ? tg->items : tg; y; y = tg->kind == X_TUPLE ? y->next : NULL)
		vec_push(&names, y);
	TForKind fk = TF_SERIAL;
	const char *thread = NULL;
	Syn *ann = NULL;
	Vec mins = {0}, exts = {0}, pre = {0}; /* pre: an extent built already */
	bool ok = true;
	Syn *tup = NULL;
	if (kind && !strcmp(kind, "grid")) {
		for (Syn *a = it->items; a; a = a->next) {
			if (a->kind == X_KWARG) {
				diag_error(t->d, a->span, "T.grid takes no keyword argument '%s'", a->s);
				ok = false;
				break;
			}
			if (a->kind == X_STAR) {
				/* T.grid(*A.shape): A's extents */
				Syn *sh = a->a;
				TBuf *b = sh->kind == X_ATTR && !strcmp(sh->s, "shape")
					  ? find_buf(t, sh->a) : NULL;
				if (!b) {
					if (!(sh->kind == X_ATTR && !strcmp(sh->s, "shape")))
						diag_error(t->d, a->span,
							   "T.grid unpacks only a buffer's shape (*A.shape)");
					ok = false;
					break;
				}
				for (int k = 0; k < b->ndim; k++) {
					vec_push(&mins, NULL);
					vec_push(&exts, a);
					vec_push(&pre, b->shape[k]);
				}
				continue;
			}
			vec_push(&mins, NULL);
			vec_push(&exts, a);
			vec_push(&pre, NULL);
		}
		if (ok && names.n == 1 && exts.n > 1 && tg->kind == X_NAME) {
			/* for ij in T.grid(m, n): ij the tuple of loop vars */
			tup = tg;
			names.n = 0;
			for (int i = 0; i < exts.n; i++) {
				Syn *y = syn_new(t->b->ps, X_NAME, tg->span);
				char nb[32];
				snprintf(nb, sizeof nb, "_%d", i);
				size_t ln = strlen(tg->s);
				char *nm = arena_alloc(&t->b->ps->ast, ln + strlen(nb) + 1);
				memcpy(nm, tg->s, ln);
				strcpy(nm + ln, nb);
				y->s = nm;
				vec_push(&names, y);
			}
		}
		if (ok && exts.n != names.n) {
			diag_error(t->d, s->target->span, "%d loop variables for T.grid of %d extents",
				   names.n, exts.n);
			ok = false;
		}
	} else {
		static const char *const kinds[] = {"serial", "parallel", "vectorized",
						    "unroll", "thread_binding"};
		if (kind) {
			size_t i = 0;
			while (i < ARRAY_LEN(kinds) && strcmp(kinds[i], kind))
				i++;
			if (i == ARRAY_LEN(kinds)) {
				unknown_t(t, it->a->span, kind);
				ok = false;
			}
			fk = (TForKind)i;
		}
		static const char *const names3[] = {"start", "stop", "thread", "annotations"};
		Syn *a[4] = {NULL, NULL, NULL, NULL};
		if (ok && !bld_match_args(t->b, it, range ? "range" : "the loop", names3,
					   fk == TF_THREAD ? 4 : range ? 2 : 4, a))
			ok = false;
		if (ok && fk != TF_THREAD && a[2]) {
			/* T.serial(a, b, annotations) positionally is rare: the
			 * third is not a thread here */
			diag_error(t->d, a[2]->span, "only T.thread_binding takes thread=");
			ok = false;
		}
		if (ok && !a[0]) {
			diag_error(t->d, it->span, "the loop needs an extent");
			ok = false;
		}
		if (ok && fk == TF_THREAD) {
			Syn *th = a[2];
			if (!th && a[1] && a[1]->kind == X_STR) {
				th = a[1];
				a[1] = NULL;
			}
			if (!th || th->kind != X_STR) {
				diag_error(t->d, it->span, "T.thread_binding needs thread=\"threadIdx.x\" (a string)");
				ok = false;
			} else {
				thread = arena_strdup(&t->m->arena, th->s);
			}
		}
		if (ok) {
			vec_push(&mins, a[1] ? a[0] : NULL);
			vec_push(&exts, a[1] ? a[1] : a[0]);
			ann = a[3];
			if (names.n != 1) {
				diag_error(t->d, s->target->span, "one loop variable for %s",
					   range ? "range" : "this loop");
				ok = false;
			}
		}
	}
	TStmt *outer = NULL, **slot = &outer;
	int nloops = 0;
	for (int i = 0; ok && i < names.n; i++) {
		Syn *nm = names.items[i];
		TExpr *mn = mins.items[i] ? tint(t, mins.items[i], "a loop's start") : NULL;
		Syn *hi = exts.items[i];
		TExpr *ex = i < pre.n && pre.items[i] ? (TExpr *)pre.items[i]
						       : tint(t, hi, "a loop's extent");
		if ((mins.items[i] && !mn) || !ex) {
			ok = false;
			break;
		}
		if (mn) { /* range(a, b): extent b - a */
			if (!unify(t, &mn, &ex, hi->span, "range"))
				return NULL;
			if (mn->kind == TE_INT && ex->kind == TE_INT)
				ex = tir_int(t->m, ex->ty, ex->i - mn->i, hi->span);
			else if (ex->kind == TE_ADD && tir_expr_same(ex->a, mn))
				ex = ex->b; /* range(a, a + n), as rlx prints it */
			else if (!(mn->kind == TE_INT && mn->i == 0))
				ex = bin(t, TE_SUB, ex, mn, hi->span);
		} else {
			mn = tir_int(t->m, ex->ty, 0, hi->span);
		}
		TStmt *f = tir_stmt(t->m, TS_FOR, i == 0 ? s->span : nm->span);
		f->var = tir_var(t->m, nm->s, ex->ty, nm->span);
		f->min = mn;
		f->extent = ex;
		f->for_kind = fk;
		f->thread = thread;
		if (ann && !annotations(t, ann, &f->anns, &f->nanns)) {
			ok = false;
			break;
		}
		def_var(t, nm->s, f->var);
		vec_push(&t->loops, f);
		nloops++;
		*slot = f;
		slot = &f->inner;
	}
	int ndef = nloops;
	if (ok && tup) {
		TName *n = ARENA_NEW(&t->b->ps->ast, TName);
		n->name = tup->s;
		n->ntup = nloops;
		n->tup = ARENA_ARRAY(&t->b->ps->ast, TVar *, nloops);
		for (int i = 0; i < nloops; i++)
			n->tup[i] = ((TStmt *)t->loops.items[t->loops.n - nloops + i])->var;
		vec_push(&t->names, n);
		ndef++;
	}
	if (ok)
		*slot = tstmts(t, s->body);
	t->names.n -= ndef;
	t->loops.n -= nloops;
	vec_free(&names);
	vec_free(&mins);
	vec_free(&exts);
	vec_free(&pre);
	return ok && *slot ? outer : NULL;
}

/* The loop of loop variable x (for T.axis.remap's domain), or NULL. */
static TStmt *
loop_of(TB *t, const TExpr *x)
{
	if (x->kind != TE_VAR)
		return NULL;
	for (int i = t->loops.n - 1; i >= 0; i--) {
		TStmt *f = t->loops.items[i];
		if (f->var == x->var)
			return f;
	}
	return NULL;
}

static bool
iter_kind(char c, TIterKind *k)
{
	switch (c) {
	case 'S': *k = TI_SPATIAL; return true;
	case 'R': *k = TI_REDUCE; return true;
	default: return false;
	}
}

/* vi = T.axis.spatial(dom, value) / reduce / scan / opaque / S / R, and
 * vi, vj = T.axis.remap("SR", [i, j]): appended to iters. */
static bool
axis(TB *t, Stm *s, Vec *iters)
{
	Syn *x = s->value;
	const char *fn = bld_callee_name(t->b, x);
	if (!strcmp(fn, "T.axis.remap")) {
		Syn *a[2];
		static const char *const nm[] = {"kinds", "bindings"};
		if (!bld_match_args(t->b, x, "T.axis.remap", nm, 2, a))
			return false;
		TName *tn = a[1] && a[1]->kind == X_NAME ? find(t, a[1]->s) : NULL;
		if (tn && tn->tup) {
			/* T.axis.remap("SS", ij), ij a grid's loop variables */
			Syn *l = syn_new(t->b->ps, X_LIST, a[1]->span);
			for (int i = 0; i < tn->ntup; i++) {
				Syn *y = syn_new(t->b->ps, X_NAME, a[1]->span);
				y->s = tn->tup[i]->name;
				l->items = syn_list(l->items, y);
			}
			l->n = tn->ntup;
			a[1] = l;
		}
		if (!a[0] || a[0]->kind != X_STR || !a[1] ||
		    (a[1]->kind != X_LIST && a[1]->kind != X_TUPLE)) {
			diag_error(t->d, x->span, "T.axis.remap takes a kinds string (\"SSR\") and a list of loop variables");
			return false;
		}
		int n = (int)strlen(a[0]->s);
		int nt = s->target->kind == X_TUPLE ? s->target->n : 1;
		if (n != a[1]->n || n != nt) {
			diag_error(t->d, x->span, "T.axis.remap: %d kinds, %d variables and %d bindings",
				   n, nt, a[1]->n);
			return false;
		}
		Syn *tv = s->target->kind == X_TUPLE ? s->target->items : s->target;
		Syn *bv = a[1]->items;
		for (int i = 0; i < n; i++, tv = tv->next, bv = bv->next) {
			TIter *it = ARENA_NEW(&t->m->arena, TIter);
			if (!iter_kind(a[0]->s[i], &it->kind)) {
				diag_error(t->d, a[0]->span, "T.axis.remap's kinds are S and R, not '%c'",
					   a[0]->s[i]);
				return false;
			}
			if (tv->kind != X_NAME) {
				diag_error(t->d, tv->span, "expected a name");
				return false;
			}
			if (!(it->value = texpr(t, bv)))
				return false;
			TStmt *f = loop_of(t, it->value);
			if (!f) {
				diag_error(t->d, bv->span,
					   "T.axis.remap binds loop variables; use T.axis.spatial(extent, value) for an expression");
				return false;
			}
			it->min = f->min;
			it->extent = f->extent;
			it->var = tir_var(t->m, tv->s, it->value->ty, tv->span);
			it->span = tv->span;
			vec_push(iters, it);
		}
		return true;
	}
	static const struct {
		const char *name;
		TIterKind k;
	} kinds[] = {
		{"T.axis.spatial", TI_SPATIAL}, {"T.axis.S", TI_SPATIAL},
		{"T.axis.reduce", TI_REDUCE}, {"T.axis.R", TI_REDUCE},
		{"T.axis.scan", TI_SCAN}, {"T.axis.opaque", TI_OPAQUE},
	};
	size_t k = 0;
	while (k < ARRAY_LEN(kinds) && strcmp(kinds[k].name, fn))
		k++;
	if (k == ARRAY_LEN(kinds)) {
		diag_error(t->d, x->a->span, "unknown '%s' (T.axis.spatial, reduce, scan, opaque, S, R, remap)", fn);
		return false;
	}
	Syn *a[3];
	static const char *const nm[] = {"dom", "binding", "dtype"};
	if (!bld_match_args(t->b, x, fn, nm, 3, a))
		return false;
	if (!a[0] || !a[1] || s->target->kind != X_NAME) {
		diag_error(t->d, x->span, "%s takes a domain and a binding: v = %s(extent, value)", fn, fn);
		return false;
	}
	TIter *it = ARENA_NEW(&t->m->arena, TIter);
	it->kind = kinds[k].k;
	it->span = s->target->span;
	if (!(it->value = tint(t, a[1], "a block's binding")))
		return false;
	if (a[0]->kind == X_TUPLE || a[0]->kind == X_LIST) {
		if (a[0]->n != 2) {
			diag_error(t->d, a[0]->span, "a domain is an extent or (min, max)");
			return false;
		}
		TExpr *lo = tint(t, a[0]->items, "a domain"), *hi = tint(t, a[0]->items->next, "a domain");
		if (!lo || !hi || !unify(t, &lo, &hi, a[0]->span, "a domain"))
			return false;
		it->min = lo;
		it->extent = lo->kind == TE_INT && hi->kind == TE_INT
			     ? tir_int(t->m, hi->ty, hi->i - lo->i, a[0]->span)
			     : hi->kind == TE_ADD && tir_expr_same(hi->a, lo) ? hi->b
			     : bin(t, TE_SUB, hi, lo, a[0]->span);
	} else {
		if (!(it->extent = tint(t, a[0], "a domain")))
			return false;
		it->min = tir_int(t->m, it->extent->ty, 0, a[0]->span);
	}
	TType ty = it->value->ty;
	if (a[2] && !conv_type(t, a[2], &ty))
		return false;
	/* the domain takes the binding's type when it is a literal */
	TExpr *r;
	if (it->extent->ty != ty && (r = retype(t, it->extent, ty)))
		it->extent = r;
	if (it->min->ty != ty && (r = retype(t, it->min, ty)))
		it->min = r;
	it->var = tir_var(t->m, s->target->s, ty, s->target->span);
	vec_push(iters, it);
	return true;
}

static bool
is_axis(const Stm *s)
{
	if (s->kind != S_ASSIGN || s->ann || !s->value || s->value->kind != X_CALL)
		return false;
	Syn *c = s->value->a;
	return c->kind == X_ATTR && c->a->kind == X_ATTR && !strcmp(c->a->s, "axis") &&
	       c->a->a->kind == X_NAME && !strcmp(c->a->a->s, "T");
}

/* with T.sblock("name"): / T.block: the block's header statements, then
 * its body. */
static TStmt *
tblock(TB *t, Stm *w)
{
	Syn *x = w->value;
	TStmt *s = tir_stmt(t->m, TS_BLOCK, w->span);
	Syn *a[2];
	static const char *const nm[] = {"name_hint", "no_realize"};
	if (!bld_match_args(t->b, x, "T.sblock", nm, 2, a))
		return NULL;
	if (a[0] && a[0]->kind != X_STR) {
		diag_error(t->d, a[0]->span, "a block's name is a string");
		return NULL;
	}
	s->name = a[0] ? arena_strdup(&t->m->arena, a[0]->s) : "";
	t->any_block = true;
	int mark = t->names.n;
	Vec iters = {0}, allocs = {0};
	Stm *b = w->body;
	bool ok = true;
	/* the header, in any order before the body proper */
	for (; b && ok; b = b->next) {
		if (is_axis(b)) {
			int n0 = iters.n;
			ok = axis(t, b, &iters);
			for (int i = n0; ok && i < iters.n; i++)
				def_var(t, ((TIter *)iters.items[i])->var->name,
					((TIter *)iters.items[i])->var);
			continue;
		}
		if (b->kind == S_ASSIGN && !b->ann && b->target->kind == X_NAME &&
		    b->value && is_alloc(b->value)) {
			TBuf *buf = conv_buffer(t, b->value, b->target->s,
						bld_callee_name(t->b, b->value), 0, NULL);
			if (!(ok = buf != NULL))
				break;
			vec_push(&allocs, buf);
			def_buf(t, b->target->s, buf);
			continue;
		}
		if (b->kind == S_EXPR && b->value->kind == X_CALL) {
			Syn *c = b->value;
			if (is_t(c, "reads") || is_t(c, "writes")) {
				bool r = is_t(c, "reads");
				ok = r ? regions(t, c, &s->reads, &s->nreads)
				       : regions(t, c, &s->writes, &s->nwrites);
				if (r)
					s->reads_given = true;
				else
					s->writes_given = true;
				continue;
			}
			if (is_t(c, "where")) {
				Syn *p[1];
				if (pos_args(t, c, p, 1, "T.where") != 1) {
					diag_error(t->d, c->span, "T.where takes a condition");
					ok = false;
				} else {
					ok = (s->pred = tbool(t, p[0], "T.where's condition")) != NULL;
				}
				continue;
			}
			if (is_t(c, "sblock_attr") || is_t(c, "block_attr")) {
				if (c->n != 1 || c->items->kind == X_KWARG) {
					diag_error(t->d, c->span, "T.sblock_attr takes a dict");
					ok = false;
				} else {
					ok = annotations(t, c->items, &s->anns, &s->nanns);
				}
				continue;
			}
		}
		if (b->kind == S_WITH && b->value->kind == X_CALL && is_t(b->value, "init")) {
			if (s->init) {
				diag_error(t->d, b->span, "a second T.init() in this block");
				ok = false;
			} else {
				t->blocks++;
				s->init = tstmts(t, b->body);
				t->blocks--;
				ok = s->init != NULL;
			}
			continue;
		}
		break;
	}
	s->niters = iters.n;
	s->iters = ARENA_ARRAY(&t->m->arena, TIter, iters.n ? iters.n : 1);
	for (int i = 0; i < iters.n; i++)
		s->iters[i] = *(TIter *)iters.items[i];
	vec_free(&iters);
	s->nallocs = allocs.n;
	s->allocs = (TBuf **)vec_to_arena(&allocs, &t->m->arena);
	if (ok) {
		t->blocks++;
		if (b) {
			s->inner = tstmts(t, b);
		} else {
			s->inner = tir_stmt(t->m, TS_EVAL, w->span);
			s->inner->value = tir_int(t->m, DT_I32, 0, w->span);
		}
		t->blocks--;
		ok = s->inner != NULL;
	}
	t->names.n = mark;
	return ok ? s : NULL;
}

/* with T.attr(node, "key", value): body, or T.attr(...) standing alone
 * over the rest of its sequence (as TVM's parser reads it). */
static TStmt *
tattr(TB *t, Stm *w, Stm *body)
{
	Syn *a[3];
	if (pos_args(t, w->value, a, 3, "T.attr") != 3 || a[1]->kind != X_STR) {
		diag_error(t->d, w->value->span, "T.attr takes a node, a key string and a value");
		return NULL;
	}
	TStmt *s = tir_stmt(t->m, TS_ATTR, w->span);
	s->key = arena_strdup(&t->m->arena, a[1]->s);
	if (a[0]->kind == X_STR) {
		s->cond = tir_expr(t->m, TE_STR, TT_HANDLE, a[0]->span);
		s->cond->s = arena_strdup(&t->m->arena, a[0]->s);
	} else if (!(s->cond = texpr(t, a[0]))) {
		return NULL;
	}
	if (a[2]->kind == X_STR) {
		s->value = tir_expr(t->m, TE_STR, TT_HANDLE, a[2]->span);
		s->value->s = arena_strdup(&t->m->arena, a[2]->s);
	} else if (!(s->value = texpr(t, a[2]))) {
		return NULL;
	}
	if (!body) {
		s->inner = tir_stmt(t->m, TS_EVAL, w->span);
		s->inner->value = tir_int(t->m, DT_I32, 0, w->span);
		return s;
	}
	return (s->inner = tstmts(t, body)) ? s : NULL;
}

/* The value stored into buf: a literal takes the buffer's type, an int
 * meets a float buffer by a cast (TVM's buffer_store does both). */
static TExpr *
store_value(TB *t, TBuf *buf, TExpr *v, Span sp)
{
	if (v->ty == (TType)buf->dtype)
		return v;
	TExpr *r = retype(t, v, buf->dtype);
	if (r && r != v)
		return r;
	diag_error(t->d, sp, "a %s value stored into '%s' of %s (convert it with T.Cast(\"%s\", ...))",
		   tir_type_name(v->ty), buf->name, dtype_name(buf->dtype), dtype_name(buf->dtype));
	return NULL;
}

static TStmt *
tstore(TB *t, Stm *s, Syn *target, TExpr *v)
{
	TBuf *buf = find_buf(t, target->a);
	if (!buf || !v)
		return NULL;
	TStmt *st = tir_stmt(t->m, TS_STORE, s->span);
	st->buf = buf;
	if (!(st->idx = indices(t, target->b, buf, &st->nidx, target->span)))
		return NULL;
	return (st->value = store_value(t, buf, v, s->value->span)) ? st : NULL;
}

/* x: T.let[T.int32] = v, x: T.int32 = v, x = v: a let over the rest. */
static TStmt *
tlet(TB *t, Stm *s, Stm *rest)
{
	if (s->target->kind != X_NAME) {
		diag_error(t->d, s->target->span, "expected a name, a buffer element or T.int64()");
		return NULL;
	}
	TExpr *v = texpr(t, s->value);
	if (!v)
		return NULL;
	TType ty = v->ty;
	if (s->ann) {
		Syn *an = s->ann;
		if (an->kind == X_INDEX && is_t(an->a, "let"))
			an = an->b;
		if (!conv_type(t, an, &ty))
			return NULL;
		TExpr *r = v->ty == ty ? v : retype(t, v, ty);
		if (!r) {
			diag_error(t->d, s->value->span, "a %s value bound to '%s' of %s",
				   tir_type_name(v->ty), s->target->s, tir_type_name(ty));
			return NULL;
		}
		v = r;
	}
	TStmt *l = tir_stmt(t->m, TS_LET, s->span);
	l->var = tir_var(t->m, s->target->s, ty, s->target->span);
	l->value = v;
	int mark = t->names.n;
	def_var(t, s->target->s, l->var);
	if (rest) {
		l->inner = tstmts(t, rest);
	} else {
		l->inner = tir_stmt(t->m, TS_EVAL, s->span);
		l->inner->value = tir_int(t->m, DT_I32, 0, s->span);
	}
	t->names.n = mark;
	return l->inner ? l : NULL;
}

/* A statement sequence. A let or an allocation takes the rest of the
 * sequence as its body. */
static TStmt *
tstmts(TB *t, Stm *s)
{
	Vec v = {0};
	Span sp = s ? s->span : (Span){0, 0, 0};
	bool ok = true;
	for (; s; s = s->next) {
		TStmt *r = NULL;
		switch (s->kind) {
		case S_PASS:
			continue;
		case S_FOR:
			r = tfor(t, s);
			break;
		case S_WITH: {
			Syn *c = s->value;
			if (s->target) {
				diag_error(t->d, s->target->span, "'with ... as' is not supported in TIR");
			} else if (c->kind == X_CALL && (is_t(c, "sblock") || is_t(c, "block"))) {
				r = tblock(t, s);
			} else if (c->kind == X_CALL && is_t(c, "attr")) {
				r = tattr(t, s, s->body);
			} else if (c->kind == X_CALL && is_t(c, "init")) {
				diag_error(t->d, s->span, "T.init() must come first in a block, after its axes and regions");
			} else {
				const char *n = bld_callee_name(t->b, c);
				diag_error(t->d, c->span, "unsupported 'with %s' in TIR", n ? n : "...");
			}
			break;
		}
		case S_IF: {
			TExpr *c = tbool(t, s->value, "an if's condition");
			if (!c)
				break;
			r = tir_stmt(t->m, TS_IF, s->span);
			r->cond = c;
			r->inner = tstmts(t, s->body);
			if (s->orelse)
				r->else_ = tstmts(t, s->orelse);
			if (!r->inner || (s->orelse && !r->else_))
				r = NULL;
			break;
		}
		case S_AUG: {
			if (s->target->kind != X_INDEX) {
				diag_error(t->d, s->target->span, "'%s=' updates a buffer element in TIR",
					   syn_op_text(s->op));
				break;
			}
			Syn bx = {.kind = X_BIN, .span = s->span, .op = s->op, .a = s->target,
				  .b = s->value};
			r = tstore(t, s, s->target, texpr(t, &bx));
			break;
		}
		case S_ASSIGN:
			if (!s->value) {
				diag_error(t->d, s->span, "a declaration without a value");
				break;
			}
			if (s->target->kind == X_INDEX) {
				r = tstore(t, s, s->target, texpr(t, s->value));
				break;
			}
			if (s->target->kind == X_NAME && !s->ann && is_alloc(s->value)) {
				TBuf *buf = conv_buffer(t, s->value, s->target->s,
							bld_callee_name(t->b, s->value), 0, NULL);
				if (!buf)
					break;
				r = tir_stmt(t->m, TS_ALLOC, s->span);
				r->allocs = ARENA_ARRAY(&t->m->arena, TBuf *, 1);
				r->allocs[0] = buf;
				r->nallocs = 1;
				int mark = t->names.n;
				def_buf(t, s->target->s, buf);
				if (s->next) {
					r->inner = tstmts(t, s->next);
				} else {
					r->inner = tir_stmt(t->m, TS_EVAL, s->span);
					r->inner->value = tir_int(t->m, DT_I32, 0, s->span);
				}
				t->names.n = mark;
				if (!r->inner)
					r = NULL;
				if (r)
					vec_push(&v, r);
				else
					ok = false;
				goto done;
			}
			if (is_axis(s)) {
				diag_error(t->d, s->span, "T.axis is for the header of a block");
				break;
			}
			r = tlet(t, s, s->next);
			if (r)
				vec_push(&v, r);
			else
				ok = false;
			goto done;
		case S_EXPR: {
			Syn *c = s->value;
			if (c->kind == X_CALL && (is_t(c, "reads") || is_t(c, "writes") ||
						  is_t(c, "where") || is_t(c, "sblock_attr") ||
						  is_t(c, "block_attr"))) {
				diag_error(t->d, s->span, t->blocks
					   ? "%s must come before the block's body"
					   : "%s outside a block",
					   bld_callee_name(t->b, c));
				break;
			}
			if (c->kind == X_CALL && is_t(c, "func_attr")) {
				diag_error(t->d, s->span, "T.func_attr must be at the top of the function");
				break;
			}
			if (c->kind == X_CALL && is_t(c, "attr")) {
				r = tattr(t, s, s->next);
				if (r)
					vec_push(&v, r);
				else
					ok = false;
				goto done;
			}
			if (c->kind == X_CALL && is_t(c, "evaluate")) {
				Syn *a[1];
				if (pos_args(t, c, a, 1, "T.evaluate") != 1) {
					diag_error(t->d, c->span, "T.evaluate takes one value");
					break;
				}
				TExpr *e = texpr(t, a[0]);
				if (!e)
					break;
				r = tir_stmt(t->m, TS_EVAL, s->span);
				r->value = e;
				break;
			}
			if (c->kind == X_CALL && tname(c)) {
				TExpr *e = texpr(t, c);
				if (!e)
					break;
				if (e->kind != TE_CALL) {
					diag_error(t->d, s->span,
						   "an expression statement has no effect (T.evaluate(...) it if you mean it)");
					break;
				}
				r = tir_stmt(t->m, TS_EVAL, s->span);
				r->value = e;
				break;
			}
			if (c->kind == X_STR)
				continue; /* a docstring */
			diag_error(t->d, s->span, "unsupported statement in TIR");
			break;
		}
		case S_RETURN: {
			/* TVM's parser: `return v` is T.evaluate(T.ret(v)) */
			if (!s->value) {
				diag_error(t->d, s->span, "a prim_func's return needs a value");
				break;
			}
			TExpr *e = texpr(t, s->value);
			if (!e)
				break;
			TExpr *rt;
			if (t->f->ret != DT_UNKNOWN && (rt = retype(t, e, t->f->ret)))
				e = rt; /* a literal takes the declared type */
			TExpr *c = tir_expr(t->m, TE_CALL, e->ty, s->span);
			c->s = "ret";
			c->n = 1;
			c->args = ARENA_ARRAY(&t->m->arena, TExpr *, 1);
			c->args[0] = e;
			r = tir_stmt(t->m, TS_EVAL, s->span);
			r->value = c;
			break;
		}
		default:
			diag_error(t->d, s->span, "unsupported statement in TIR");
			break;
		}
		if (r)
			vec_push(&v, r);
		else
			ok = false;
	}
done:
	if (!ok) {
		vec_free(&v);
		return NULL;
	}
	if (v.n == 0) {
		TStmt *e = tir_stmt(t->m, TS_EVAL, sp);
		e->value = tir_int(t->m, DT_I32, 0, sp);
		return e;
	}
	return seq(t, &v, sp);
}

/* ------------------------------------------------------------ function */

/* `n, m = T.int64(), T.int32()`: names declared symbolic, as many as
 * values. */
static bool
is_sym_tuple(const Stm *st)
{
	const Syn *tg = st->target, *v = st->value;
	if (tg->kind != X_TUPLE || v->kind != X_TUPLE || tg->n != v->n || tg->n == 0)
		return false;
	for (const Syn *a = tg->items, *c = v->items; a; a = a->next, c = c->next)
		if (a->kind != X_NAME || c->kind != X_CALL || c->n != 0 ||
		    !(is_t(c, "int64") || is_t(c, "int32")))
			return false;
	return true;
}

static bool
decorators(TB *t, Stm *s, PrimFunc *f)
{
	for (Syn *x = s->decorators; x; x = x->next) {
		if (!bld_is_named(x, "T.prim_func")) {
			const char *n = bld_callee_name(t->b, x);
			diag_error(t->d, x->span, "unsupported decorator '@%s' on a prim_func",
				   n ? n : "...");
			return false;
		}
		if (x->kind != X_CALL)
			continue;
		for (Syn *a = x->items; a; a = a->next) {
			bool is_bool = a->kind == X_KWARG &&
				       (a->a->kind == X_TRUE || a->a->kind == X_FALSE);
			if (is_bool && !strcmp(a->s, "private"))
				f->is_private = a->a->kind == X_TRUE;
			else if (is_bool && !strcmp(a->s, "s_tir"))
				f->s_tir = a->a->kind == X_TRUE;
			else if (is_bool && !strcmp(a->s, "check_well_formed"))
				;
			else {
				diag_error(t->d, a->span,
					   "expected private=, s_tir= or check_well_formed= True/False");
				return false;
			}
		}
	}
	return true;
}

/* T.func_attr({"key": value, ...}): kept as text, in order. */
static bool
func_attrs(TB *t, Syn *c, Vec *attrs)
{
	if (c->n != 1 || c->items->kind != X_DICT) {
		diag_error(t->d, c->span, "T.func_attr takes a dict");
		return false;
	}
	for (Syn *k = c->items->items; k && k->next; k = k->next->next) {
		StrBuf s = {0};
		if (k->kind != X_STR || !bld_syn_text(&s, k->next)) {
			diag_error(t->d, k->span, "a function attribute is a string key and a Python literal");
			sb_free(&s);
			return false;
		}
		FuncAttr *fa = ARENA_NEW(&t->b->ps->ast, FuncAttr);
		fa->key = arena_strdup(&t->m->arena, k->s);
		fa->val.kind = AV_RAW;
		fa->val.s = arena_strdup(&t->m->arena, s.p);
		sb_free(&s);
		vec_push(attrs, fa);
	}
	return true;
}

static bool
is_buffer_ann(const Syn *a)
{
	return a && a->kind == X_CALL && (is_t(a, "Buffer") || is_t(a, "buffer"));
}

PrimFunc *
bld_prim_func(B *b, Stm *s)
{
	TB t = {.b = b, .m = b->m, .d = b->d};
	PrimFunc *f = ARENA_NEW(&b->m->arena, PrimFunc);
	f->name = arena_strdup(&b->m->arena, s->name);
	f->span = s->span;
	t.f = f;
	int errors = b->d->nerrors;
	if (!decorators(&t, s, f))
		goto fail;
	/* `-> None` (TVM's printer writes it for void prim_funcs) is no
	 * return type, as when the annotation is absent */
	if (s->ann && s->ann->kind != X_NONE && !conv_type(&t, s->ann, &f->ret))
		goto fail;
	int np = syn_len(s->params);
	f->nparams = np;
	f->params = ARENA_ARRAY(&b->m->arena, TParam, np ? np : 1);
	/* scalars first: a buffer's shape may name a later scalar parameter */
	int i = 0;
	for (Syn *p = s->params; p; p = p->next, i++) {
		if (!p->a) {
			diag_error(b->d, p->span, "parameter '%s' of a prim_func needs a type", p->s);
			goto fail;
		}
		if (is_buffer_ann(p->a))
			continue;
		TType ty;
		if (!conv_type(&t, p->a, &ty))
			goto fail;
		f->params[i].var = tir_var(b->m, p->s, ty, p->span);
		f->params[i].handle = ty == TT_HANDLE;
		def_var(&t, p->s, f->params[i].var);
	}
	i = 0;
	for (Syn *p = s->params; p; p = p->next, i++) {
		if (!is_buffer_ann(p->a))
			continue;
		TBuf *buf = conv_buffer(&t, p->a, p->s, "T.Buffer", 0, NULL);
		if (!buf)
			goto fail;
		buf->span = p->span;
		f->params[i].buf = buf;
		f->params[i].var = tir_var(b->m, p->s, TT_HANDLE, p->span);
		def_buf(&t, p->s, buf);
	}
	/* the header: T.func_attr, n = T.int64(), A = T.match_buffer(a, ...),
	 * root allocations */
	Vec attrs = {0}, syms = {0}, roots = {0};
	Stm *st = s->body;
	bool ok = true;
	for (; st && ok; st = st->next) {
		if (st->kind == S_EXPR && st->value->kind == X_CALL && is_t(st->value, "func_attr")) {
			ok = func_attrs(&t, st->value, &attrs);
			continue;
		}
		if (st->kind == S_EXPR && st->value->kind == X_STR)
			continue;
		if (st->kind == S_ASSIGN && !st->ann && st->value && st->value->kind == X_CALL &&
		    st->value->n == 0 && (is_t(st->value, "int64") || is_t(st->value, "int32"))) {
			Syn *tg = st->target;
			if (tg->kind != X_NAME) {
				diag_error(b->d, tg->span, "expected a name");
				ok = false;
				break;
			}
			TVar *v = tir_var(b->m, tg->s, is_t(st->value, "int64") ? DT_I64 : DT_I32,
					  tg->span);
			vec_push(&syms, v);
			def_var(&t, tg->s, v);
			continue;
		}
		if (st->kind == S_ASSIGN && !st->ann && st->value && is_sym_tuple(st)) {
			/* n, m = T.int64(), T.int64() */
			Syn *v = st->value->items;
			for (Syn *tg = st->target->items; tg; tg = tg->next, v = v->next) {
				TVar *x = tir_var(b->m, tg->s, is_t(v, "int64") ? DT_I64 : DT_I32,
						  tg->span);
				vec_push(&syms, x);
				def_var(&t, tg->s, x);
			}
			continue;
		}
		if (st->kind == S_ASSIGN && !st->ann && st->target->kind == X_NAME && st->value &&
		    st->value->kind == X_CALL && is_t(st->value, "match_buffer")) {
			Syn *lead = NULL;
			TBuf *buf = conv_buffer(&t, st->value, st->target->s, "T.match_buffer", 1, &lead);
			if (!buf) {
				ok = false;
				break;
			}
			int k = -1;
			for (int j = 0; j < np && lead->kind == X_NAME; j++)
				if (f->params[j].var && !f->params[j].buf &&
				    !strcmp(f->params[j].var->name, lead->s))
					k = j;
			if (k < 0 || !f->params[k].handle) {
				diag_error(b->d, lead->span,
					   "T.match_buffer matches a T.handle parameter that no buffer matched yet");
				ok = false;
				break;
			}
			f->params[k].buf = buf;
			def_buf(&t, st->target->s, buf);
			continue;
		}
		if (st->kind == S_ASSIGN && !st->ann && st->target->kind == X_NAME && st->value &&
		    is_alloc(st->value) && !is_t(st->value, "decl_buffer")) {
			TBuf *buf = conv_buffer(&t, st->value, st->target->s,
						bld_callee_name(b, st->value), 0, NULL);
			if (!buf) {
				ok = false;
				break;
			}
			vec_push(&roots, buf);
			def_buf(&t, st->target->s, buf);
			continue;
		}
		/* an explicit root block holding the whole body */
		if (st->kind == S_WITH && !st->next && st->value->kind == X_CALL &&
		    (is_t(st->value, "sblock") || is_t(st->value, "block")) &&
		    st->value->n == 1 && st->value->items->kind == X_STR &&
		    !strcmp(st->value->items->s, "root")) {
			f->root = true;
			Stm *bs = st->body;
			for (; bs; bs = bs->next) {
				if (bs->kind == S_ASSIGN && !bs->ann && bs->target->kind == X_NAME &&
				    bs->value && is_alloc(bs->value)) {
					TBuf *buf = conv_buffer(&t, bs->value, bs->target->s,
								bld_callee_name(b, bs->value), 0, NULL);
					if (!buf) {
						ok = false;
						break;
					}
					vec_push(&roots, buf);
					def_buf(&t, bs->target->s, buf);
					continue;
				}
				if (bs->kind == S_EXPR && bs->value->kind == X_CALL &&
				    (is_t(bs->value, "reads") || is_t(bs->value, "writes")))
					continue; /* a root block's regions are empty */
				break;
			}
			st = bs;
			if (ok)
				f->body = st ? tstmts(&t, st) : NULL;
			ok = ok && (f->body || !st);
			st = NULL;
			break;
		}
		break;
	}
	if (ok && st)
		f->body = tstmts(&t, st);
	if (ok && !f->body) {
		if (st) {
			ok = false;
		} else {
			f->body = tir_stmt(b->m, TS_EVAL, s->span);
			f->body->value = tir_int(b->m, DT_I32, 0, s->span);
		}
	}
	f->nattrs = attrs.n;
	f->attrs = ARENA_ARRAY(&b->m->arena, FuncAttr, attrs.n ? attrs.n : 1);
	for (int j = 0; j < attrs.n; j++)
		f->attrs[j] = *(FuncAttr *)attrs.items[j];
	vec_free(&attrs);
	f->nsymvars = syms.n;
	f->symvars = (TVar **)vec_to_arena(&syms, &b->m->arena);
	f->nroot_allocs = roots.n;
	f->root_allocs = (TBuf **)vec_to_arena(&roots, &b->m->arena);
	f->root = f->root || t.any_block || f->nroot_allocs > 0;
	vec_free(&t.names);
	vec_free(&t.loops);
	if (!ok || b->d->nerrors != errors)
		return NULL;
	tir_detect_access(b->m, f);
	return f;
fail:
	vec_free(&t.names);
	vec_free(&t.loops);
	return NULL;
}
