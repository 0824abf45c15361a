/*
 * infer_ops.c — the struct-info rule of each op of ops.def, as TVM Relax
 * infers it. A rule reads the (already inferred) struct infos of the call's
 * arguments and its attributes, and returns the result's struct info in the
 * module arena, or reports a located error naming the op and returns NULL.
 *
 * Every rule accepts unknown inputs: an unknown ndim gives an unknown result
 * ndim, unknown dims give a result of known ndim and unknown dims, never an
 * error. Dims are compared with infer_dim_rel: only provably different dims
 * are errors; dims that cannot be proven equal give unknown result dims.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "op_attr.h"

/* One rule's view of its call. */
typedef struct {
	Module *m;
	Diags *d;
	Expr *call;
	const char *op; /* "R.add", for messages */
	OpSig sig;
} Ctx;

/* Reads call into c. */
static void
ctx_init(Ctx *c, Module *m, Expr *call, Diags *d)
{
	c->m = m;
	c->d = d;
	c->call = call;
	c->op = arena_printf(&m->arena, "R.%s", op_info(call->call.op)->name);
	op_sig(call->call.op, &c->sig);
}

/* The name of expression parameter i. */
static const char *
arg_name(const Ctx *c, int i)
{
	for (int k = 0; k < c->sig.nparams; k++)
		if (!c->sig.params[k].is_attr && c->sig.params[k].slot == i)
			return c->sig.params[k].name;
	return "?";
}

/* The struct info of argument i (R.Object when missing). */
static const SInfo *
arg_si(Ctx *c, int i)
{
	Expr *e = c->call->call.args[i];
	if (!e->sinfo)
		e->sinfo = si_object(&c->m->arena);
	return e->sinfo;
}

/* Span of argument i. */
static Span
arg_span(const Ctx *c, int i)
{
	Span sp = c->call->call.args[i]->span;
	return sp.line > 0 ? sp : c->call->span;
}

/* Attribute p of the call, by its name in the op's signature (P_name,
 * op_params.h, generated from ops.def): a signature that changes cannot
 * silently shift what a rule reads. */
static const AttrVal *
attr(const Ctx *c, ParamName p)
{
	return op_attr(c->call, p);
}

/* The attribute in slot j, for the rules that scan all of them. */
static const AttrVal *
attr_slot(const Ctx *c, int j)
{
	return &c->call->call.attrs[j];
}

/* Attribute p as an int list: AV_INTS, or one AV_INT; false for None. */
static bool
attr_ints(const Ctx *c, ParamName p, const int64_t **v, int *n)
{
	const AttrVal *a = attr(c, p);
	if (a->kind == AV_INTS) {
		*v = a->ints;
		*n = a->n;
		return true;
	}
	if (a->kind == AV_INT) {
		*v = &a->i;
		*n = 1;
		return true;
	}
	*v = NULL;
	*n = 0;
	return false;
}

/* Attribute p as dims (AV_DIMS, or AV_INTS / AV_INT as constants); false
 * for None. */
static bool
attr_dims(const Ctx *c, ParamName p, PExpr ***v, int *n)
{
	const AttrVal *a = attr(c, p);
	*v = NULL;
	*n = 0;
	if (a->kind == AV_DIMS) {
		*v = a->dims;
		*n = a->n;
		return true;
	}
	const int64_t *xs;
	if (!attr_ints(c, p, &xs, n))
		return false;
	*v = ARENA_ARRAY(&c->m->arena, PExpr *, *n ? *n : 1);
	for (int i = 0; i < *n; i++)
		(*v)[i] = pe_int(&c->m->arena, xs[i]);
	return true;
}

/* Argument i, which must be a tensor; NULL after an error. */
static const SInfo *
want_tensor(Ctx *c, int i)
{
	const SInfo *si = arg_si(c, i);
	if (si->kind == SI_TENSOR)
		return si;
	if (c->sig.nargs == 1)
		diag_error(c->d, arg_span(c, i), "%s: expects a tensor, got %s",
			   c->op, infer_sinfo_str(c->m, si));
	else
		diag_error(c->d, arg_span(c, i),
			   "%s: expects a tensor for %s, got %s", c->op,
			   arg_name(c, i), infer_sinfo_str(c->m, si));
	return NULL;
}

/* The start of the rules of one tensor operand: reads call into c and
 * returns argument 0, which must be a tensor (NULL after an error). */
static const SInfo *
ctx_tensor(Ctx *c, Module *m, Expr *call, Diags *d)
{
	ctx_init(c, m, call, d);
	return want_tensor(c, 0);
}

/* Argument i, which must be a shape; NULL after an error. */
static const SInfo *
want_shape(Ctx *c, int i)
{
	const SInfo *si = arg_si(c, i);
	if (si->kind == SI_SHAPE)
		return si;
	diag_error(c->d, arg_span(c, i), "%s: expects a shape for %s, got %s",
		   c->op, arg_name(c, i), infer_sinfo_str(c->m, si));
	return NULL;
}

/* Argument i, which must be a prim value; NULL after an error. */
static const SInfo *
want_prim(Ctx *c, int i)
{
	const SInfo *si = arg_si(c, i);
	if (si->kind == SI_PRIM)
		return si;
	diag_error(c->d, arg_span(c, i),
		   "%s: expects a prim value for %s, got %s", c->op,
		   arg_name(c, i), infer_sinfo_str(c->m, si));
	return NULL;
}

/* ------------------------------------------------------------ dims */

/* True when si (tensor or shape) has known dims. */
static bool
known(const SInfo *si)
{
	return si->ndim == 0 || (si->ndim > 0 && si->shape);
}

/* x as a constant. */
static bool
dconst(PExpr *x, int64_t *v)
{
	return x && pe_is_const(x, v);
}

/* Python's floor division and modulo. */
static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/*
 * a OP b, folded when both are constants and the result fits in int64 (as
 * prim.c does, an overflowing fold stays an unfolded node), else simplified.
 */
static PExpr *
dop(Module *m, PExprKind k, PExpr *a, PExpr *b)
{
	int64_t x, y, r;
	bool ca = dconst(a, &x), cb = dconst(b, &y);
	if (ca && cb) {
		switch (k) {
		case PE_ADD:
			if (!__builtin_add_overflow(x, y, &r))
				return pe_int(&m->arena, r);
			break;
		case PE_SUB:
			if (!__builtin_sub_overflow(x, y, &r))
				return pe_int(&m->arena, r);
			break;
		case PE_MUL:
			if (!__builtin_mul_overflow(x, y, &r))
				return pe_int(&m->arena, r);
			break;
		case PE_FLOORDIV:
			if (y && !(x == INT64_MIN && y == -1))
				return pe_int(&m->arena, floordiv(x, y));
			break;
		case PE_FLOORMOD:
			if (y && y != -1)
				return pe_int(&m->arena, x - floordiv(x, y) * y);
			if (y == -1)
				return pe_int(&m->arena, 0);
			break;
		case PE_MIN:
			return pe_int(&m->arena, x < y ? x : y);
		case PE_MAX:
			return pe_int(&m->arena, x > y ? x : y);
		default:
			break;
		}
	}
	if (cb && y == 0 && (k == PE_ADD || k == PE_SUB))
		return a;
	if (ca && x == 0 && k == PE_ADD)
		return b;
	if (cb && y == 1 && (k == PE_MUL || k == PE_FLOORDIV))
		return a;
	if (ca && x == 1 && k == PE_MUL)
		return b;
	return pe_simplify(&m->arena, pe_bin(&m->arena, k, a, b));
}

/* A new array of n dims. */
static PExpr **
dims_new(Ctx *c, int n)
{
	return ARENA_ARRAY(&c->m->arena, PExpr *, n > 0 ? n : 1);
}

/* A copy of n dims. */
static PExpr **
dims_copy(Ctx *c, PExpr *const *s, int n)
{
	PExpr **o = dims_new(c, n);
	if (n > 0)
		memcpy(o, s, sizeof *o * (size_t)n);
	return o;
}

static const char *shape_str(Ctx *c, int ndim, PExpr **shape);

/* A tensor result; shape NULL means unknown dims (known for ndim 0). A
 * constant dim below 0 is an error at the call (R.builtin.alloc_tensor of
 * R.shape([-1]), say): no annotation could say the result's shape. */
static SInfo *
tensor(Ctx *c, DType t, int ndim, PExpr **shape)
{
	if (ndim == 0 && !shape)
		shape = dims_new(c, 1);
	for (int i = 0; shape && i < ndim; i++) {
		int64_t v;
		if (shape[i] && dconst(shape[i], &v) && v < 0) {
			diag_error(c->d, c->call->span,
				   "%s: the result's shape %s has a negative "
				   "dimension", c->op, shape_str(c, ndim, shape));
			return NULL;
		}
	}
	return si_tensor(&c->m->arena, t, ndim, ndim < 0 ? NULL : shape);
}

/* "(2, 3)", "(4,)", "()" */
static const char *
shape_str(Ctx *c, int ndim, PExpr **shape)
{
	StrBuf b = {0};
	sb_putc(&b, '(');
	for (int i = 0; i < ndim; i++) {
		if (i)
			sb_puts(&b, ", ");
		pe_print(&b, shape[i]);
	}
	if (ndim == 1)
		sb_putc(&b, ',');
	sb_putc(&b, ')');
	char *s = sb_take(&b);
	const char *r = arena_strdup(&c->m->arena, s);
	free(s);
	return r;
}

/* One dim as text: "4", "n * 2". */
static const char *
dim_str(Ctx *c, const PExpr *x)
{
	StrBuf b = {0};
	pe_print(&b, x);
	char *s = sb_take(&b);
	const char *r = arena_strdup(&c->m->arena, s);
	free(s);
	return r;
}

/* ------------------------------------------------------ assumptions */

/* Argument i as messages name it: its variable's name ("x"), else the
 * op's parameter name. */
static const char *
arg_label(const Ctx *c, int i)
{
	const Expr *e = c->call->call.args[i];
	return e->kind == E_VAR ? e->var->name : arg_name(c, i);
}

/* "x's dimension 1" (field f of a tuple argument: "x[f]'s ...", f >= 0). */
static const char *
arg_dim(Ctx *c, int i, int f, int k)
{
	if (f >= 0)
		return arena_printf(&c->m->arena, "%s[%d]'s dimension %d",
				    arg_label(c, i), f, k);
	return arena_printf(&c->m->arena, "%s's dimension %d", arg_label(c, i), k);
}

/* "x[f]'s dimension k" for field f of tuple argument i, named by its own
 * variable when the tuple is written out ("b's dimension k"). */
static const char *
field_dim(Ctx *c, int i, int f, int k)
{
	const Expr *e = c->call->call.args[i];
	if (e->kind == E_TUPLE && f < e->tuple.n && e->tuple.items[f]->kind == E_VAR)
		return arena_printf(&c->m->arena, "%s's dimension %d",
				    e->tuple.items[f]->var->name, k);
	return arg_dim(c, i, f, k);
}

/* Whether `a kind b` holds: 1 provably, 0 provably not, -1 not known. */
static int
assume_holds(Ctx *c, AssumeKind kind, PExpr *a, PExpr *b)
{
	int64_t x, y;
	if (kind == AS_EQ) {
		DimRel r = infer_dim_rel(c->m, a, b);
		return r == DIM_EQUAL ? 1 : r == DIM_DIFFER ? 0 : -1;
	}
	if (kind == AS_DIV) {
		if (dconst(b, &y) && y == 1)
			return 1;
		if (dconst(a, &x) && dconst(b, &y))
			return y > 0 && x % y == 0;
		if (dconst(dop(c->m, PE_FLOORMOD, a, b), &x))
			return x == 0;
		return -1;
	}
	if (kind == AS_POS)
		return dconst(a, &x) ? x >= 1 : -1;
	if (kind == AS_BCAST) {
		if (dconst(a, &x) && x == 1)
			return 1;
		DimRel r = infer_dim_rel(c->m, a, b);
		return r == DIM_EQUAL ? 1 : r == DIM_DIFFER && dconst(a, &x) ? 0 : -1;
	}
	/* a <= b: b - a >= 0; a < b: b - a > 0 */
	if (!dconst(dop(c->m, PE_SUB, b, a), &x))
		return -1;
	return kind == AS_LE ? x >= 0 : x > 0;
}

/* Appends as to the call's assumptions. */
static void
record(Ctx *c, const Assume *as)
{
	int n = c->call->call.nassume;
	Assume *v = ARENA_ARRAY(&c->m->arena, Assume, n + 1);
	if (n)
		memcpy(v, c->call->call.assume, sizeof *v * (size_t)n);
	v[n] = *as;
	c->call->call.assume = v;
	c->call->call.nassume = n + 1;
}

/*
 * The call needs `a kind b` (ir.h's Assume): nothing when it provably
 * holds, an error at the call (false) when it provably does not, else the
 * condition recorded on the call for the executor to check before the
 * kernel runs. wa / wb name a and b in messages.
 */
static bool
assume(Ctx *c, AssumeKind kind, PExpr *a, PExpr *b, const char *wa,
       const char *wb)
{
	if (!a || !b)
		return true;
	int h = assume_holds(c, kind, a, b);
	if (h == 1)
		return true;
	Assume as = {kind, a, b, wa, wb, 0, 0, 0, 0};
	if (h == 0) {
		StrBuf t = {0};
		assume_message(&t, c->op, &as, dim_str(c, a), dim_str(c, b));
		diag_error(c->d, c->call->span, "%s", t.p);
		sb_free(&t);
		return false;
	}
	record(c, &as);
	return true;
}

/*
 * The call reads argument `data` at the values of argument `arg` (column
 * col of its last dim, -1 all of them) along its dimension dim (-1: its
 * flattened size): every index must lie in [-n, n). Data the compiler
 * cannot see, so always checked at run time (AS_INDEX).
 */
static void
assume_index(Ctx *c, int arg, int col, int data, int dim)
{
	Arena *a = &c->m->arena;
	Assume as = {AS_INDEX, NULL, NULL, arg_label(c, arg),
		     dim < 0 ? arena_printf(a, "the size of %s", arg_label(c, data))
			     : arg_dim(c, data, -1, dim),
		     arg, col, data, dim};
	record(c, &as);
}

/* "[0, 0]" */
static const char *
ints_str(Ctx *c, const int64_t *v, int n)
{
	StrBuf b = {0};
	sb_putc(&b, '[');
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%lld", i ? ", " : "", (long long)v[i]);
	sb_putc(&b, ']');
	char *s = sb_take(&b);
	const char *r = arena_strdup(&c->m->arena, s);
	free(s);
	return r;
}

/* Normalizes axis into [0, ndim); false after an error. */
static bool
norm_axis(Ctx *c, int64_t axis, int ndim, int *out)
{
	if (axis < -ndim || axis >= ndim) {
		diag_error(c->d, c->call->span,
			   "%s: axis %lld is out of range for a tensor of %d "
			   "dimension%s",
			   c->op, (long long)axis, ndim, ndim == 1 ? "" : "s");
		return false;
	}
	*out = (int)(axis < 0 ? axis + ndim : axis);
	return true;
}

/*
 * Normalizes a list of axes into out (sorted ascending when `sort`);
 * duplicates are an error. Returns false after an error.
 */
static bool
norm_axes(Ctx *c, const int64_t *axes, int n, int ndim, int *out)
{
	bool seen[64] = {0};
	if (ndim > 64) {
		diag_error(c->d, c->call->span, "%s: too many dimensions",
			   c->op);
		return false;
	}
	for (int i = 0; i < n; i++) {
		if (!norm_axis(c, axes[i], ndim, &out[i]))
			return false;
		if (seen[out[i]]) {
			diag_error(c->d, c->call->span,
				   "%s: axis %lld appears twice in %s", c->op,
				   (long long)axes[i], ints_str(c, axes, n));
			return false;
		}
		seen[out[i]] = true;
	}
	return true;
}

/* The product of n dims. */
static PExpr *
dims_prod(Ctx *c, PExpr **shape, int n)
{
	PExpr *p = pe_int(&c->m->arena, 1);
	for (int i = 0; i < n; i++)
		p = dop(c->m, PE_MUL, p, shape[i]);
	return p;
}

/* --------------------------------------------------------- dtypes */

/*
 * The common dtype of a and b for a binary op: unknown when either is
 * unknown; different known dtypes are an error (TVM does not promote).
 */
static bool
binary_dtype(Ctx *c, DType a, DType b, DType *out)
{
	if (a == DT_UNKNOWN || b == DT_UNKNOWN) {
		*out = DT_UNKNOWN;
		return true;
	}
	if (a != b) {
		diag_error(c->d, c->call->span,
			   "%s: dtypes %s and %s differ", c->op,
			   dtype_name(a), dtype_name(b));
		return false;
	}
	*out = a;
	return true;
}

/* The tensor must have a float dtype (or an unknown one). */
static bool
want_float(Ctx *c, const SInfo *t, int i)
{
	if (t->dtype == DT_UNKNOWN || dtype_is_float(t->dtype))
		return true;
	diag_error(c->d, arg_span(c, i),
		   "%s: expects a float tensor, got %s", c->op,
		   infer_sinfo_str(c->m, t));
	return false;
}

/* --------------------------------------------------------- broadcasting */

/*
 * Argument i as a tensor for broadcasting: a prim value counts as a 0-d
 * tensor of its dtype (TVM accepts R.Prim operands). NULL after an error.
 */
static const SInfo *
operand(Ctx *c, int i)
{
	const SInfo *si = arg_si(c, i);
	if (si->kind == SI_PRIM)
		return tensor(c, si->dtype, 0, NULL);
	return want_tensor(c, i);
}

/*
 * Numpy broadcasting of a and b into *ndim / *shape (NULL: unknown dims).
 * Two dims broadcast when equal or when one is 1; two different constants
 * are an error; symbolic dims that cannot be proven equal or 1 give unknown
 * dims of known ndim, as TVM does.
 */
static bool
broadcast(Ctx *c, const SInfo *a, const SInfo *b, int *ndim, PExpr ***shape)
{
	*shape = NULL;
	if (a->ndim < 0 || b->ndim < 0) {
		*ndim = -1;
		return true;
	}
	int n = a->ndim > b->ndim ? a->ndim : b->ndim;
	*ndim = n;
	if (!known(a) || !known(b))
		return true;
	PExpr **out = dims_new(c, n);
	bool unknown = false;
	for (int i = 1; i <= n; i++) {
		PExpr *x = i <= a->ndim ? a->shape[a->ndim - i] : NULL;
		PExpr *y = i <= b->ndim ? b->shape[b->ndim - i] : NULL;
		int64_t vx = 0, vy = 0;
		bool cx = dconst(x, &vx), cy = dconst(y, &vy);
		PExpr *r;
		if (!x)
			r = y;
		else if (!y)
			r = x;
		else if (infer_dim_rel(c->m, x, y) == DIM_EQUAL)
			r = x;
		else if (cx && vx == 1)
			r = y;
		else if (cy && vy == 1)
			r = x;
		else if (cx && cy) {
			diag_error(c->d, c->call->span,
				   "%s: cannot broadcast shapes %s and %s",
				   c->op, shape_str(c, a->ndim, a->shape),
				   shape_str(c, b->ndim, b->shape));
			return false;
		} else {
			r = NULL;
			unknown = true;
		}
		out[n - i] = r;
	}
	*shape = unknown ? NULL : out;
	return true;
}

/* Shared body of the binary ops; `kind` 0 arith, 1 compare, 2 logical. */
static SInfo *
binary(Module *m, Expr *call, Diags *d, int kind)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *s1 = arg_si(&c, 0), *s2 = arg_si(&c, 1);
	const SInfo *a = operand(&c, 0), *b = operand(&c, 1);
	if (!a || !b)
		return NULL;
	DType dt;
	if (kind == 2) {
		for (int i = 0; i < 2; i++) {
			const SInfo *t = i ? b : a;
			if (t->dtype != DT_UNKNOWN && t->dtype != DT_BOOL) {
				diag_error(d, arg_span(&c, i),
					   "%s: expects bool tensors, got %s",
					   c.op, infer_sinfo_str(m, arg_si(&c, i)));
				return NULL;
			}
		}
	}
	/* TVM's InferBinaryArithOpOutDtype: a bool operand may meet another
	 * dtype, the result then has the left one's */
	if ((a->dtype == DT_BOOL) != (b->dtype == DT_BOOL) && a->dtype != DT_UNKNOWN &&
	    b->dtype != DT_UNKNOWN)
		dt = a->dtype;
	else if (!binary_dtype(&c, a->dtype, b->dtype, &dt))
		return NULL;
	if (kind != 0)
		dt = DT_BOOL;
	int ndim;
	PExpr **shape;
	if (!broadcast(&c, a, b, &ndim, &shape))
		return NULL;
	if (s1->kind == SI_PRIM && s2->kind == SI_PRIM)
		return si_prim(&m->arena, dt, NULL);
	return tensor(&c, dt, ndim, shape);
}

SInfo *
infer_binary_arith(Module *m, Expr *call, Diags *d)
{
	return binary(m, call, d, 0);
}

SInfo *
infer_compare(Module *m, Expr *call, Diags *d)
{
	return binary(m, call, d, 1);
}

SInfo *
infer_logical(Module *m, Expr *call, Diags *d)
{
	return binary(m, call, d, 2);
}

SInfo *
infer_logical_not(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	if (x->dtype != DT_UNKNOWN && x->dtype != DT_BOOL) {
		diag_error(d, arg_span(&c, 0), "%s: expects a bool tensor, got %s",
			   c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	return tensor(&c, DT_BOOL, x->ndim, x->shape);
}

SInfo *
infer_where(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *cond = operand(&c, 0), *a = operand(&c, 1),
		    *b = operand(&c, 2);
	if (!cond || !a || !b)
		return NULL;
	if (cond->dtype != DT_UNKNOWN && cond->dtype != DT_BOOL) {
		diag_error(d, arg_span(&c, 0),
			   "%s: the condition must be a bool tensor, got %s",
			   c.op, infer_sinfo_str(m, arg_si(&c, 0)));
		return NULL;
	}
	DType dt;
	if (!binary_dtype(&c, a->dtype, b->dtype, &dt))
		return NULL;
	int n1, n2;
	PExpr **s1, **s2;
	if (!broadcast(&c, a, b, &n1, &s1))
		return NULL;
	SInfo ab = {.kind = SI_TENSOR, .dtype = dt, .ndim = n1, .shape = s1};
	if (!broadcast(&c, cond, &ab, &n2, &s2))
		return NULL;
	/* a and b broadcast but their dims are unknown: cond still counts. */
	if (n1 >= 0 && !s1 && n2 >= 0)
		s2 = NULL;
	return tensor(&c, dt, n2, s2);
}

/* ---------------------------------------------------------------- unary */

SInfo *
infer_unary(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	return x ? ir_copy_sinfo(m, x) : NULL;
}

/*
 * exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, erf and nn.silu / gelu /
 * gelu_tanh: TVM registers these with require_float_dtype, so an int or
 * bool tensor is an error ("R.exp: expects a float tensor, got ..."); an
 * unknown dtype passes. negative, abs, round, floor, ceil, sign and
 * nn.relu accept any dtype, as in TVM.
 */
SInfo *
infer_unary_float(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	return ir_copy_sinfo(m, x);
}

SInfo *
infer_identity(Module *m, Expr *call, Diags *d)
{
	(void)d;
	return ir_copy_sinfo(m, call->call.args[0]->sinfo
					? call->call.args[0]->sinfo
					: si_object(&m->arena));
}

/* ------------------------------------------------ outside the op set */

/* The struct info of a call with no value: R.Tuple(), as TVM's void. */
SInfo *
infer_void(Module *m, Expr *call, Diags *d)
{
	(void)call;
	(void)d;
	return si_tuple(&m->arena, NULL, 0);
}

/* An opaque object (R.null_value, storages). */
SInfo *
infer_object(Module *m, Expr *call, Diags *d)
{
	(void)call;
	(void)d;
	return si_object(&m->arena);
}

/*
 * R.assert_op: the condition is a bool scalar (a 0-d tensor or a prim
 * value); the result is void.
 */
SInfo *
infer_assert(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = arg_si(&c, 0);
	bool ok = (x->kind == SI_TENSOR && (x->ndim == 0 || x->ndim < 0) &&
		   (x->dtype == DT_BOOL || x->dtype == DT_UNKNOWN)) ||
		  (x->kind == SI_PRIM &&
		   (x->dtype == DT_BOOL || x->dtype == DT_UNKNOWN)) ||
		  x->kind == SI_OBJECT;
	if (!ok) {
		diag_error(d, arg_span(&c, 0),
			   "%s: the condition must be a bool scalar, got %s",
			   c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	return si_tuple(&m->arena, NULL, 0);
}

/*
 * Packed calls (call_packed, call_pure_packed, call_inplace_packed,
 * call_builtin_with_ctx) and call_dps_packed: the result is what the
 * call says it is — its ty_args / out_ty: one struct info is the result,
 * several a tuple of them, none an opaque object. The arguments are not
 * checked (the callee is not known).
 */
SInfo *
infer_packed(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	for (int j = 0; j < call->call.nattrs; j++) {
		const AttrVal *v = attr_slot(&c, j);
		if (v->kind != AV_SINFO)
			continue;
		if (v->n == 1)
			return ir_copy_sinfo(m, v->sis[0]);
		if (v->n == 0)
			break;
		SInfo **f = ARENA_ARRAY(&m->arena, SInfo *, v->n);
		for (int i = 0; i < v->n; i++)
			f[i] = ir_copy_sinfo(m, v->sis[i]);
		return si_tuple(&m->arena, f, v->n);
	}
	if (call->call.op == OP_CALL_DPS_PACKED) {
		diag_error(d, call->span, "%s: out_ty must give the result's struct info", c.op);
		return NULL;
	}
	return si_object(&m->arena);
}

/* call_tir's unification of a prim_func's buffer dims (TVars) with Relax
 * dims (PExprs), as TVM infers the symbolic variables of a call. */
typedef struct {
	const TVar *v[64];
	PExpr *e[64];
	int n;
} TirBind;

/* A TIR dim as a Relax dim under the binding (NULL when it cannot be). */
static PExpr *
tir_dim(Module *m, const TExpr *x, const TirBind *tb)
{
	if (x->kind == TE_INT)
		return pe_int(&m->arena, x->i);
	if (x->kind == TE_VAR) {
		for (int i = 0; i < tb->n; i++)
			if (tb->v[i] == x->var)
				return tb->e[i];
		return NULL;
	}
	PExprKind k;
	switch (x->kind) {
	case TE_ADD: k = PE_ADD; break;
	case TE_SUB: k = PE_SUB; break;
	case TE_MUL: k = PE_MUL; break;
	case TE_FLOORDIV: k = PE_FLOORDIV; break;
	case TE_FLOORMOD: k = PE_FLOORMOD; break;
	case TE_MIN: k = PE_MIN; break;
	case TE_MAX: k = PE_MAX; break;
	default: return NULL;
	}
	PExpr *a = tir_dim(m, x->a, tb), *b = tir_dim(m, x->b, tb);
	return a && b ? pe_simplify(&m->arena, pe_bin(&m->arena, k, a, b)) : NULL;
}

/* Matches a tensor struct info against buffer parameter q of f: binds the
 * buffer's bare variables, checks the rest; false after an error. */
static bool
tir_match(Ctx *c, const PrimFunc *f, const TParam *q, const SInfo *si, Span sp,
	  const char *what, TirBind *tb)
{
	const TBuf *buf = q->buf;
	if (si->kind != SI_TENSOR) {
		if (si->kind == SI_OBJECT)
			return true;
		diag_error(c->d, sp, "%s: %s for buffer '%s' of %s is %s, not a tensor", c->op,
			   what, buf->name, f->name, infer_sinfo_str(c->m, si));
		return false;
	}
	if (si->dtype != DT_UNKNOWN && si->dtype != buf->dtype) {
		diag_error(c->d, sp, "%s: %s for buffer '%s' of %s is %s, the buffer is %s",
			   c->op, what, buf->name, f->name, dtype_name(si->dtype),
			   dtype_name(buf->dtype));
		return false;
	}
	if (si->ndim >= 0 && si->ndim != buf->ndim) {
		diag_error(c->d, sp, "%s: %s for buffer '%s' of %s has %d dimensions, the buffer %d",
			   c->op, what, buf->name, f->name, si->ndim, buf->ndim);
		return false;
	}
	if (!si->shape)
		return true;
	for (int i = 0; i < buf->ndim; i++) {
		const TExpr *x = buf->shape[i];
		PExpr *want = tir_dim(c->m, x, tb);
		if (!want && x->kind == TE_VAR && tb->n < 64) {
			tb->v[tb->n] = x->var;
			tb->e[tb->n++] = si->shape[i];
			continue;
		}
		if (want && infer_dim_rel(c->m, want, si->shape[i]) == DIM_DIFFER) {
			StrBuf w = {0}, g = {0};
			pe_print(&w, want);
			pe_print(&g, si->shape[i]);
			diag_error(c->d, sp,
				   "%s: dimension %d of %s is %s, but buffer '%s' of %s has %s there",
				   c->op, i, what, g.p, buf->name, f->name, w.p);
			sb_free(&w);
			sb_free(&g);
			return false;
		}
	}
	(void)q;
	return true;
}

/*
 * call_tir, call_tir_inplace, call_tir_with_grad (TVM's
 * InferStructInfoCallTIR): the result is what out_ty says (one struct
 * info, or a tuple of several). The callee is a prim_func of the module
 * whose parameters are the arguments (a tuple, tensors and prim values),
 * then the outputs (call_tir_inplace: the outputs not written in place),
 * then the tir_vars; each tensor is checked against its buffer (dtype,
 * rank, dims, the buffer's symbolic variables bound by the inputs first,
 * as TVM infers them).
 */
SInfo *
infer_call_tir(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const AttrVal *out = NULL;
	for (int j = 0; j < call->call.nattrs; j++)
		if (attr_slot(&c, j)->kind == AV_SINFO)
			out = attr_slot(&c, j);
	if (!out || out->n == 0) {
		diag_error(d, call->span, "%s: out_ty must give the result's struct info", c.op);
		return NULL;
	}
	for (int i = 0; i < out->n; i++)
		if (out->sis[i]->kind != SI_TENSOR) {
			diag_error(d, out->sis[i]->span.line ? out->sis[i]->span : call->span,
				   "%s: out_ty must be tensors, not %s", c.op,
				   infer_sinfo_str(m, out->sis[i]));
			return NULL;
		}
	SInfo *res;
	if (out->n == 1) {
		res = ir_copy_sinfo(m, out->sis[0]);
	} else {
		SInfo **f = ARENA_ARRAY(&m->arena, SInfo *, out->n);
		for (int i = 0; i < out->n; i++)
			f[i] = ir_copy_sinfo(m, out->sis[i]);
		res = si_tuple(&m->arena, f, out->n);
	}
	const Expr *g = call->call.args[0];
	if (g->kind != E_GLOBAL) {
		diag_error(d, g->span, "%s calls a prim_func of the module (cls.f), not %s", c.op,
			   ir_expr_kind_name(g->kind));
		return NULL;
	}
	const PrimFunc *f = tir_find(m, g->str);
	if (!f) {
		diag_error(d, g->span, "%s: cls.%s is a Relax function, not a prim_func", c.op,
			   g->str);
		return NULL;
	}
	/* the arguments: a tuple (or one value) */
	const SInfo *as = arg_si(&c, 1);
	const SInfo *const *ins = (const SInfo *const *)&as;
	int nin = 1;
	if (as->kind == SI_TUPLE) {
		ins = (const SInfo *const *)as->fields;
		nin = as->nfields;
	}
	/* call_tir_inplace: inplace_indices gives, for each output, the
	 * input it is written into, or -1 for a new buffer */
	int ninplace = 0;
	const AttrVal *ip = NULL;
	if (call->call.op == OP_CALL_TIR_INPLACE)
		for (int j = 0; j < call->call.nattrs; j++) {
			const AttrVal *v = attr_slot(&c, j);
			if (v->kind == AV_INT || v->kind == AV_INTS)
				ip = v;
		}
	if (ip) {
		int n = ip->kind == AV_INT ? 1 : ip->n;
		if (n != out->n) {
			diag_error(d, call->span, "%s: %d inplace_indices for %d outputs", c.op, n,
				   out->n);
			return NULL;
		}
		for (int k = 0; k < n; k++)
			ninplace += (ip->kind == AV_INT ? ip->i : ip->ints[k]) >= 0;
	}
	const SInfo *tv = call->call.nargs > 2 ? arg_si(&c, 2) : NULL;
	int ntv = tv && tv->kind == SI_SHAPE && tv->ndim > 0 ? tv->ndim : 0;
	int want = nin + out->n - ninplace + ntv;
	if (as->kind != SI_TUPLE && as->kind != SI_TENSOR && as->kind != SI_PRIM)
		return res; /* not known statically */
	if (f->nparams != want) {
		diag_error(d, call->span,
			   "%s: %s takes %d parameters, the call gives %d inputs, %d outputs%s",
			   c.op, f->name, f->nparams, nin, out->n - ninplace,
			   ntv ? " and tir_vars" : "");
		diag_note(d, f->span, "%s is defined here", f->name);
		return NULL;
	}
	TirBind tb = {.n = 0};
	for (int i = 0; i < nin; i++) {
		const TParam *q = &f->params[i];
		const SInfo *si = ins[i];
		if (q->buf) {
			char what[32];
			snprintf(what, sizeof what, "input %d", i);
			if (!tir_match(&c, f, q, si, arg_span(&c, 1), what, &tb))
				return NULL;
		} else if (si->kind == SI_PRIM && si->value && tb.n < 64 &&
			   q->var->ty != TT_HANDLE && dtype_is_int((DType)q->var->ty)) {
			tb.v[tb.n] = q->var;
			tb.e[tb.n++] = si->value;
		}
	}
	for (int i = 0; i < ntv && tv->shape && tb.n < 64; i++)
		if (!f->params[nin + out->n - ninplace + i].buf) {
			tb.v[tb.n] = f->params[nin + out->n - ninplace + i].var;
			tb.e[tb.n++] = tv->shape[i];
		}
	for (int i = 0, k = 0; i < out->n; i++) {
		if (ip && (ip->kind == AV_INT ? ip->i : ip->ints[i]) >= 0)
			continue;
		const TParam *q = &f->params[nin + k++];
		if (!q->buf && q->var->ty == TT_HANDLE)
			continue; /* a T.handle no buffer matches: R.Any to TVM */
		if (!q->buf) {
			diag_error(d, call->span, "%s: parameter '%s' of %s, where output %d goes, is not a buffer",
				   c.op, q->var->name, f->name, i);
			return NULL;
		}
		char what[32];
		snprintf(what, sizeof what, "output %d", i);
		Span sp = out->sis[i]->span.line ? out->sis[i]->span : call->span;
		if (!tir_match(&c, f, q, out->sis[i], sp, what, &tb))
			return NULL;
	}
	return res;
}

/* The dims of shape argument i (NULL when unknown) and its ndim. */
static PExpr **
shape_dims(Ctx *c, int i, int *ndim)
{
	const SInfo *s = arg_si(c, i);
	*ndim = -1;
	if (s->kind != SI_SHAPE)
		return NULL;
	*ndim = s->ndim;
	return known(s) ? s->shape : NULL;
}

/*
 * builtin.alloc_tensor(shape, dtype, ...), vm.alloc_tensor and
 * memory.alloc_tensor(storage, offset, shape, dtype, ...): a tensor of the
 * shape and dtype given.
 */
SInfo *
infer_alloc_tensor(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	int si = -1;
	for (int k = 0; k < c.sig.nparams; k++)
		if (!strcmp(c.sig.params[k].name, "shape"))
			si = c.sig.params[k].slot;
	if (si < 0 || !want_shape(&c, si))
		return NULL;
	int ndim;
	PExpr **dims = shape_dims(&c, si, &ndim);
	DType dt = DT_UNKNOWN;
	for (int j = 0; j < call->call.nattrs; j++)
		if (attr_slot(&c, j)->kind == AV_DTYPE)
			dt = attr_slot(&c, j)->dtype;
	return tensor(&c, dt, ndim, dims);
}

/*
 * memory.view(data, shape, dtype, relative_byte_offset): data's elements
 * seen with another shape and/or dtype; a missing shape or dtype is
 * data's own.
 */
SInfo *
infer_mem_view(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const SInfo *s = arg_si(&c, 1);
	DType dt = attr(&c, P_dtype)->kind == AV_DTYPE ? attr(&c, P_dtype)->dtype : x->dtype;
	if (s->kind == SI_TUPLE && !s->nfields)
		return tensor(&c, dt, x->ndim, known(x) ? x->shape : NULL);
	if (!want_shape(&c, 1))
		return NULL;
	int ndim;
	PExpr **dims = shape_dims(&c, 1, &ndim);
	return tensor(&c, dt, ndim, dims);
}

SInfo *
infer_clip(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_prim(&c, 1) || !want_prim(&c, 2))
		return NULL;
	return ir_copy_sinfo(m, x);
}

/* -------------------------------------------------------------- nn */

SInfo *
infer_softmax(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	int ax;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	return ir_copy_sinfo(m, x);
}

/*
 * Checks a norm's scale/offset tensor `w` (argument i) against the dims of
 * data at the normalized axes ax[0..n).
 */
static bool
norm_param(Ctx *c, const SInfo *x, const int *ax, int n, int i)
{
	const SInfo *w = want_tensor(c, i);
	if (!w)
		return false;
	if (w->dtype != DT_UNKNOWN && x->dtype != DT_UNKNOWN &&
	    w->dtype != x->dtype) {
		diag_error(c->d, arg_span(c, i),
			   "%s: %s has dtype %s but data has %s", c->op,
			   arg_name(c, i), dtype_name(w->dtype),
			   dtype_name(x->dtype));
		return false;
	}
	if (w->ndim < 0 || x->ndim < 0)
		return true;
	if (w->ndim != n) {
		diag_error(c->d, arg_span(c, i),
			   "%s: %s must have %d dimension%s (one per "
			   "normalized axis), got %s",
			   c->op, arg_name(c, i), n, n == 1 ? "" : "s",
			   infer_sinfo_str(c->m, w));
		return false;
	}
	if (!known(w) || !known(x))
		return true;
	for (int k = 0; k < n; k++)
		if (infer_dim_rel(c->m, w->shape[k], x->shape[ax[k]]) ==
		    DIM_DIFFER) {
			diag_error(c->d, arg_span(c, i),
				   "%s: %s shape %s does not match the "
				   "normalized dims of data %s",
				   c->op, arg_name(c, i),
				   shape_str(c, w->ndim, w->shape),
				   shape_str(c, x->ndim, x->shape));
			return false;
		} else {
			assume(c, AS_EQ, w->shape[k], x->shape[ax[k]], arg_dim(c, i, -1, k),
			       arg_dim(c, 0, -1, ax[k]));
		}
	return true;
}

/* Sorts n ints ascending (n is small). */
static void
sort_ints(int *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Shared body of rms_norm (nparams 1) and layer_norm (2). */
static SInfo *
norm(Module *m, Expr *call, Diags *d, int nparams)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	const int64_t *axes;
	int n;
	attr_ints(&c, P_axes, &axes, &n);
	int ax[64];
	if (n > 64) {
		diag_error(d, call->span, "%s: too many axes", c.op);
		return NULL;
	}
	if (x->ndim >= 0) {
		if (!norm_axes(&c, axes, n, x->ndim, ax))
			return NULL;
		sort_ints(ax, n);
	}
	for (int i = 1; i <= nparams; i++)
		if (!norm_param(&c, x, ax, n, i))
			return NULL;
	return ir_copy_sinfo(m, x);
}

SInfo *
infer_rms_norm(Module *m, Expr *call, Diags *d)
{
	return norm(m, call, d, 1);
}

SInfo *
infer_layer_norm(Module *m, Expr *call, Diags *d)
{
	return norm(m, call, d, 2);
}

static SInfo *conv(Module *m, Expr *call, Diags *d, int nsp, bool transpose);

/* One output dim of a convolution: (in + pads - dil*(k-1) - 1) // s + 1. */
static PExpr *
conv_dim(Ctx *c, PExpr *in, PExpr *k, int64_t pads, int64_t dil,
	 int64_t stride)
{
	Module *m = c->m;
	Arena *a = &m->arena;
	PExpr *eff = dop(m, PE_MUL, pe_int(a, dil),
			 dop(m, PE_SUB, k, pe_int(a, 1)));
	PExpr *x = dop(m, PE_ADD, in, pe_int(a, pads));
	x = dop(m, PE_SUB, x, eff);
	x = dop(m, PE_SUB, x, pe_int(a, 1));
	x = dop(m, PE_FLOORDIV, x, pe_int(a, stride));
	return dop(m, PE_ADD, x, pe_int(a, 1));
}

/* nn.conv2d: see conv() below (any layout of NCHW / OIHW). */
SInfo *
infer_conv2d(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 2, false);
}

/* ------------------------------------------------------------- matmul */

SInfo *
infer_matmul(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *a = ctx_tensor(&c, m, call, d), *b = want_tensor(&c, 1);
	if (!a || !b)
		return NULL;
	DType dt = attr(&c, P_out_dtype)->kind == AV_DTYPE ? attr(&c, P_out_dtype)->dtype
						 : DT_UNKNOWN;
	if (dt == DT_UNKNOWN && !binary_dtype(&c, a->dtype, b->dtype, &dt))
		return NULL;
	if (a->ndim < 0 || b->ndim < 0)
		return tensor(&c, dt, -1, NULL);
	if (a->ndim == 0 || b->ndim == 0) {
		diag_error(d, call->span,
			   "%s: expects tensors of at least one dimension, got "
			   "%s and %s",
			   c.op, infer_sinfo_str(m, a), infer_sinfo_str(m, b));
		return NULL;
	}
	bool prep = a->ndim == 1, app = b->ndim == 1;
	int an = prep ? 2 : a->ndim, bn = app ? 2 : b->ndim;
	int outn = (an > bn ? an : bn) - prep - app;
	if (!known(a) || !known(b))
		return tensor(&c, dt, outn, NULL);
	/* The operands' dims with the 1-D rules applied. */
	PExpr *one = pe_int(&m->arena, 1);
	PExpr *as[2] = {one, a->shape[0]}, *bs[2] = {b->shape[0], one};
	PExpr **ad = prep ? as : a->shape, **bd = app ? bs : b->shape;
	PExpr *k1 = ad[an - 1], *k2 = bd[bn - 2];
	if (infer_dim_rel(m, k1, k2) == DIM_DIFFER) {
		diag_error(d, call->span,
			   "%s: inner dimensions differ: %s vs %s", c.op,
			   dim_str(&c, k1), dim_str(&c, k2));
		return NULL;
	}
	assume(&c, AS_EQ, k1, k2, arg_dim(&c, 0, -1, a->ndim - 1),
	       arg_dim(&c, 1, -1, app ? 0 : b->ndim - 2));
	SInfo ba = {.kind = SI_TENSOR, .ndim = an - 2, .shape = ad};
	SInfo bb = {.kind = SI_TENSOR, .ndim = bn - 2, .shape = bd};
	int bnd;
	PExpr **bsh;
	if (!broadcast(&c, &ba, &bb, &bnd, &bsh))
		return NULL;
	if (!bsh && bnd > 0)
		return tensor(&c, dt, outn, NULL);
	PExpr **out = dims_new(&c, outn);
	int k = 0;
	for (int i = 0; i < bnd; i++)
		out[k++] = bsh[i];
	if (!prep)
		out[k++] = ad[an - 2];
	if (!app)
		out[k++] = bd[bn - 1];
	return tensor(&c, dt, outn, out);
}

/* ------------------------------------------------------- manipulation */

SInfo *
infer_permute_dims(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	int n;
	bool given = attr_ints(&c, P_axes, &axes, &n);
	if (x->ndim < 0)
		return tensor(&c, x->dtype, given ? n : -1, NULL);
	int nd = x->ndim;
	if (!given) {
		if (!known(x))
			return tensor(&c, x->dtype, nd, NULL);
		PExpr **o = dims_new(&c, nd);
		for (int i = 0; i < nd; i++)
			o[i] = x->shape[nd - 1 - i];
		return tensor(&c, x->dtype, nd, o);
	}
	bool ok = n == nd && nd <= 64;
	bool seen[64] = {0};
	int ax[64];
	for (int i = 0; ok && i < n; i++) {
		int64_t v = axes[i] < 0 ? axes[i] + nd : axes[i];
		ok = v >= 0 && v < nd && !seen[v];
		if (ok) {
			seen[v] = true;
			ax[i] = (int)v;
		}
	}
	if (!ok) {
		diag_error(d, call->span,
			   "%s: axes %s is not a permutation of %d dimension%s",
			   c.op, ints_str(&c, axes, n), nd, nd == 1 ? "" : "s");
		return NULL;
	}
	if (!known(x))
		return tensor(&c, x->dtype, nd, NULL);
	PExpr **o = dims_new(&c, nd);
	for (int i = 0; i < nd; i++)
		o[i] = x->shape[ax[i]];
	return tensor(&c, x->dtype, nd, o);
}

/*
 * The start of the rules of the ops whose result takes its shape from
 * argument 1 (reshape, broadcast_to): reads call into c, *x the data
 * tensor (argument 0), *s the new shape. False when the rule is decided
 * here: *res NULL after an error, or the tensor of unknown rank that a
 * shape of unknown rank gives.
 */
static bool
ctx_reshape(Ctx *c, Module *m, Expr *call, Diags *d, const SInfo **x,
	    const SInfo **s, SInfo **res)
{
	*x = ctx_tensor(c, m, call, d);
	*s = want_shape(c, 1);
	*res = NULL;
	if (!*x || !*s)
		return false;
	if ((*s)->ndim < 0) {
		*res = tensor(c, (*x)->dtype, -1, NULL);
		return false;
	}
	return true;
}

/*
 * reshape: the new shape comes from argument 1 (R.shape([...]) or a var of
 * R.Shape struct info). One -1 is inferred from the element count; the
 * element counts must agree when that is provable.
 */
SInfo *
infer_reshape(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x, *s;
	SInfo *res;
	if (!ctx_reshape(&c, m, call, d, &x, &s, &res))
		return res;
	if (!known(s))
		return tensor(&c, x->dtype, s->ndim, NULL);
	int n = s->ndim, infer_at = -1;
	PExpr **out = dims_new(&c, n);
	for (int i = 0; i < n; i++) {
		int64_t v;
		out[i] = s->shape[i];
		if (!dconst(out[i], &v) || v >= 0)
			continue;
		if (v != -1 || infer_at >= 0) {
			diag_error(d, arg_span(&c, 1),
				   "%s: bad new shape %s: only one -1 is "
				   "allowed and no other negative dim",
				   c.op, shape_str(&c, n, s->shape));
			return NULL;
		}
		infer_at = i;
	}
	if (!known(x) || x->ndim < 0) {
		if (infer_at >= 0)
			return tensor(&c, x->dtype, n, NULL);
		return tensor(&c, x->dtype, n, out);
	}
	PExpr *total = dims_prod(&c, x->shape, x->ndim);
	PExpr *rest = pe_int(&m->arena, 1);
	for (int i = 0; i < n; i++)
		if (i != infer_at)
			rest = dop(m, PE_MUL, rest, out[i]);
	if (infer_at >= 0) {
		int64_t t, r;
		if (dconst(total, &t) && dconst(rest, &r) && (r == 0 || t % r)) {
			diag_error(d, call->span,
				   "%s: cannot reshape %s of %lld elements into "
				   "%s",
				   c.op, shape_str(&c, x->ndim, x->shape),
				   (long long)t, shape_str(&c, n, s->shape));
			return NULL;
		}
		if (!assume(&c, AS_DIV, total, rest,
			    arena_printf(&m->arena, "the element count of %s",
					 arg_label(&c, 0)),
			    "the product of the other new dimensions"))
			return NULL;
		out[infer_at] = dop(m, PE_FLOORDIV, total, rest);
		return tensor(&c, x->dtype, n, out);
	}
	if (infer_dim_rel(m, total, rest) == DIM_DIFFER) {
		diag_error(d, call->span,
			   "%s: cannot reshape %s of %s elements into %s of %s "
			   "elements",
			   c.op, shape_str(&c, x->ndim, x->shape),
			   dim_str(&c, total), shape_str(&c, n, out),
			   dim_str(&c, rest));
		return NULL;
	}
	assume(&c, AS_EQ, total, rest,
	       arena_printf(&m->arena, "the element count of %s", arg_label(&c, 0)),
	       "the new shape's");
	return tensor(&c, x->dtype, n, out);
}

SInfo *
infer_astype(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	return tensor(&c, attr(&c, P_dtype)->dtype, x->ndim, x->shape);
}

/* Checks concat's operand t, argument 0: a non-empty tuple of tensors of
 * one dtype (*dt; unknown when any field's is) and, with an axis, one rank
 * (*ndim, -1 unknown); *all_known when every field's shape is. False after
 * an error. */
static bool
concat_fields(Ctx *c, const SInfo *t, DType *dt, int *ndim, bool *all_known)
{
	if (t->kind != SI_TUPLE) {
		diag_error(c->d, arg_span(c, 0),
			   "%s: expects a tuple of tensors, got %s", c->op,
			   infer_sinfo_str(c->m, t));
		return false;
	}
	if (t->nfields == 0) {
		diag_error(c->d, arg_span(c, 0),
			   "%s: expects at least one tensor", c->op);
		return false;
	}
	*dt = DT_UNKNOWN;
	*ndim = -1;
	*all_known = true;
	for (int i = 0; i < t->nfields; i++) {
		const SInfo *f = t->fields[i];
		if (f->kind != SI_TENSOR) {
			diag_error(c->d, arg_span(c, 0),
				   "%s: field %d of the tuple is not a tensor: "
				   "%s",
				   c->op, i, infer_sinfo_str(c->m, f));
			return false;
		}
		if (f->dtype != DT_UNKNOWN) {
			if (*dt != DT_UNKNOWN && f->dtype != *dt) {
				diag_error(c->d, arg_span(c, 0),
					   "%s: dtypes %s and %s differ", c->op,
					   dtype_name(*dt), dtype_name(f->dtype));
				return false;
			}
			*dt = f->dtype;
		}
		if (f->ndim >= 0 && *ndim >= 0 && f->ndim != *ndim &&
		    attr(c, P_axis)->kind != AV_NONE) {
			diag_error(c->d, arg_span(c, 0),
				   "%s: tensors have %d and %d dimensions",
				   c->op, *ndim, f->ndim);
			return false;
		}
		if (f->ndim >= 0)
			*ndim = f->ndim;
		*all_known &= f->ndim >= 0 && known(f);
	}
	/* An unknown dtype in any field makes the result's unknown. */
	for (int i = 0; i < t->nfields; i++)
		if (t->fields[i]->dtype == DT_UNKNOWN)
			*dt = DT_UNKNOWN;
	return true;
}

/*
 * concat: argument 0 is a tuple of tensors of one dtype and rank; dims
 * other than axis must agree; axis None concatenates the flattened tensors.
 */
SInfo *
infer_concat(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t = arg_si(&c, 0);
	DType dt;
	int ndim;
	bool all_known;
	if (!concat_fields(&c, t, &dt, &ndim, &all_known))
		return NULL;
	const AttrVal *av = attr(&c, P_axis);
	if (av->kind == AV_NONE) {
		if (!all_known)
			return tensor(&c, dt, 1, NULL);
		PExpr *sum = pe_int(&m->arena, 0);
		for (int i = 0; i < t->nfields; i++)
			sum = dop(m, PE_ADD, sum,
				  dims_prod(&c, t->fields[i]->shape,
					    t->fields[i]->ndim));
		PExpr **o = dims_new(&c, 1);
		o[0] = sum;
		return tensor(&c, dt, 1, o);
	}
	if (ndim < 0)
		return tensor(&c, dt, -1, NULL);
	if (ndim == 0) {
		diag_error(d, arg_span(&c, 0),
			   "%s: cannot concatenate 0-d tensors", c.op);
		return NULL;
	}
	int ax;
	if (!norm_axis(&c, av->i, ndim, &ax))
		return NULL;
	if (!all_known)
		return tensor(&c, dt, ndim, NULL);
	const SInfo *f0 = t->fields[0];
	PExpr **o = dims_new(&c, ndim);
	bool unknown = false;
	for (int k = 0; k < ndim; k++) {
		o[k] = k == ax ? pe_int(&m->arena, 0) : f0->shape[k];
		for (int i = 0; i < t->nfields; i++) {
			PExpr *x = t->fields[i]->shape[k];
			if (k == ax) {
				o[k] = dop(m, PE_ADD, o[k], x);
				continue;
			}
			DimRel r = infer_dim_rel(m, f0->shape[k], x);
			if (r == DIM_DIFFER) {
				diag_error(d, arg_span(&c, 0),
					   "%s: shapes %s and %s differ outside "
					   "axis %d",
					   c.op,
					   shape_str(&c, ndim, f0->shape),
					   shape_str(&c, ndim,
						     t->fields[i]->shape),
					   ax);
				return NULL;
			}
			unknown |= r == DIM_UNKNOWN;
			assume(&c, AS_EQ, x, f0->shape[k], field_dim(&c, 0, i, k),
			       field_dim(&c, 0, 0, k));
		}
	}
	return tensor(&c, dt, ndim, unknown ? NULL : o);
}

/*
 * split: an int n splits axis into n parts of ceildiv(length, n), the last
 * taking what is left (TVM's rule: 10 into 3 is 4, 4, 2; an error when
 * nothing is left, as 5 into 4); a list of indices splits at them. The
 * result is a tuple.
 */
SInfo *
infer_split(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const AttrVal *ios = attr(&c, P_indices_or_sections);
	bool sections = ios->kind == AV_INT;
	int64_t nsec = sections ? ios->i : 0;
	const int64_t *idx = NULL;
	int nidx = 0;
	if (!sections)
		attr_ints(&c, P_indices_or_sections, &idx, &nidx);
	if (sections && nsec <= 0) {
		diag_error(d, call->span,
			   "%s: the number of sections must be positive, got "
			   "%lld",
			   c.op, (long long)nsec);
		return NULL;
	}
	for (int i = 1; i < nidx; i++)
		if (idx[i] < idx[i - 1]) {
			diag_error(d, call->span,
				   "%s: indices %s are not ascending", c.op,
				   ints_str(&c, idx, nidx));
			return NULL;
		}
	int n = sections ? (int)nsec : nidx + 1;
	if (sections && nsec > 4096) {
		diag_error(d, call->span, "%s: too many sections", c.op);
		return NULL;
	}
	int ax = 0;
	if (x->ndim >= 0) {
		if (x->ndim == 0) {
			diag_error(d, call->span, "%s: cannot split a 0-d tensor",
				   c.op);
			return NULL;
		}
		if (!norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
			return NULL;
	}
	SInfo **f = ARENA_ARRAY(&m->arena, SInfo *, n);
	if (x->ndim < 0 || !known(x)) {
		for (int i = 0; i < n; i++)
			f[i] = tensor(&c, x->dtype, x->ndim, NULL);
		return si_tuple(&m->arena, f, n);
	}
	PExpr *len = x->shape[ax];
	int64_t lv;
	bool lconst = dconst(len, &lv);
	PExpr *each = NULL, *rest = NULL;
	if (sections) {
		each = dop(m, PE_FLOORDIV,
			   dop(m, PE_ADD, len, pe_int(&m->arena, nsec - 1)),
			   pe_int(&m->arena, nsec));
		rest = dop(m, PE_SUB, len,
			   dop(m, PE_MUL, each, pe_int(&m->arena, nsec - 1)));
		int64_t ev = lconst ? (lv + nsec - 1) / nsec : 0;
		if (lconst && lv - ev * (nsec - 1) < 0) {
			diag_error(d, call->span,
				   "%s: axis %d of length %lld does not split "
				   "into %lld sections (ceildiv(%lld, %lld) = "
				   "%lld each would leave %lld for the last)",
				   c.op, ax, (long long)lv, (long long)nsec,
				   (long long)lv, (long long)nsec, (long long)ev,
				   (long long)(lv - ev * (nsec - 1)));
			return NULL;
		}
		assume(&c, AS_LE, dop(m, PE_MUL, each, pe_int(&m->arena, nsec - 1)), len,
		       arena_printf(&m->arena, "the length of the first %lld sections",
				    (long long)(nsec - 1)),
		       arg_dim(&c, 0, -1, ax));
	}
	if (!sections && !lconst && nidx > 0)
		/* the pieces between indices have their constant lengths
		 * only when the last index is within the symbolic axis */
		assume(&c, AS_LE, pe_int(&m->arena, idx[nidx - 1]), len,
		       "the last index", arg_dim(&c, 0, -1, ax));
	for (int i = 0; i < n; i++) {
		PExpr *piece;
		if (sections) {
			piece = i < n - 1 ? each : rest;
		} else if (lconst) {
			int64_t l = i == 0 ? 0 : idx[i - 1];
			int64_t r = i == nidx ? lv : idx[i];
			l = l < 0 ? 0 : l > lv ? lv : l;
			r = r < 0 ? 0 : r > lv ? lv : r;
			piece = pe_int(&m->arena, r > l ? r - l : 0);
		} else {
			PExpr *l = pe_int(&m->arena, i == 0 ? 0 : idx[i - 1]);
			PExpr *r = i == nidx ? len : pe_int(&m->arena, idx[i]);
			piece = dop(m, PE_MAX, dop(m, PE_SUB, r, l),
				    pe_int(&m->arena, 0));
		}
		PExpr **o = dims_copy(&c, x->shape, x->ndim);
		o[ax] = piece;
		f[i] = tensor(&c, x->dtype, x->ndim, o);
	}
	return si_tuple(&m->arena, f, n);
}

/* Python slice length of [b:e:s] over a dim of constant length n. */
static int64_t
slice_len(int64_t n, int64_t b, int64_t e, int64_t s)
{
	if (s > 0) {
		b = b < 0 ? b + n : b;
		e = e < 0 ? e + n : e;
		b = b < 0 ? 0 : b > n ? n : b;
		e = e < 0 ? 0 : e > n ? n : e;
		return e > b ? (e - b + s - 1) / s : 0;
	}
	b = b < 0 ? b + n : b;
	e = e < 0 ? e + n : e;
	b = b < -1 ? -1 : b > n - 1 ? n - 1 : b;
	e = e < -1 ? -1 : e > n - 1 ? n - 1 : e;
	return b > e ? (b - e + (-s) - 1) / (-s) : 0;
}

/*
 * strided_slice: axes, begin, end (and strides) have one entry per sliced
 * axis. Constant dims get the Python slice length (negative indices count
 * from the end, out-of-range ones are clamped); a symbolic dim keeps its
 * length when sliced whole ([0:big:1]), gets end - begin with
 * assume_inbound and non-negative indices, and is unknown otherwise (the
 * result then has a known ndim and unknown dims).
 */
SInfo *
infer_strided_slice(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	PExpr **beg, **end, **str = NULL;
	int na, nb, ne, ns = 0;
	attr_ints(&c, P_axes, &axes, &na);
	attr_dims(&c, P_begin, &beg, &nb);
	attr_dims(&c, P_end, &end, &ne);
	bool has_str = attr_dims(&c, P_strides, &str, &ns);
	bool inbound = attr(&c, P_assume_inbound)->kind == AV_BOOL && attr(&c, P_assume_inbound)->i;
	if (nb != na || ne != na || (has_str && ns != na)) {
		diag_error(d, call->span,
			   "%s: axes, begin, end%s must have the same length, "
			   "got %d, %d, %d%s",
			   c.op, has_str ? " and strides" : "", na, nb, ne,
			   has_str ? arena_printf(&m->arena, " and %d", ns) : "");
		return NULL;
	}
	for (int i = 0; i < ns; i++) {
		int64_t z;
		if (dconst(str[i], &z) && z == 0) {
			diag_error(d, call->span,
				   "%s: strides must not be 0", c.op);
			return NULL;
		}
	}
	if (x->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	int ax[64];
	if (na > 64 || !norm_axes(&c, axes, na, x->ndim, ax))
		return NULL;
	if (!known(x))
		return tensor(&c, x->dtype, x->ndim, NULL);
	PExpr **o = dims_copy(&c, x->shape, x->ndim);
	bool unknown = false;
	for (int i = 0; i < na; i++) {
		int64_t s = 1, n, bi, ei;
		if (has_str && !dconst(str[i], &s)) {
			unknown = true; /* a symbolic stride */
			continue;
		}
		PExpr *dim = x->shape[ax[i]];
		bool cb = dconst(beg[i], &bi), ce = dconst(end[i], &ei);
		if (cb && ce && dconst(dim, &n)) {
			o[ax[i]] = pe_int(&m->arena, slice_len(n, bi, ei, s));
		} else if (cb && ce && s == 1 && bi == 0 && ei >= INT32_MAX) {
			o[ax[i]] = dim;
		} else if (cb && ce && inbound && s > 0 && bi >= 0 && ei >= bi) {
			/* the kernel reads up to end - 1 of a symbolic dim */
			assume(&c, AS_LE, end[i], dim, "end", arg_dim(&c, 0, -1, ax[i]));
			o[ax[i]] = pe_int(&m->arena, (ei - bi + s - 1) / s);
		} else if (inbound && s > 0) {
			/* TVM: ceildiv(end - begin, stride), in bounds */
			PExpr *len = dop(m, PE_SUB, end[i], beg[i]);
			o[ax[i]] = s == 1 ? len
				 : dop(m, PE_FLOORDIV,
				       dop(m, PE_ADD, len, pe_int(&m->arena, s - 1)),
				       pe_int(&m->arena, s));
		} else if (!cb && ce && s == 1 && ei >= INT32_MAX &&
			   pe_equal(&m->arena, beg[i], dim)) {
			o[ax[i]] = pe_int(&m->arena, 0);
		} else if (!ce && cb && bi == 0 && s == 1 &&
			   pe_equal(&m->arena, end[i], dim)) {
			o[ax[i]] = dim; /* x[0:n] of a dim n */
		} else {
			unknown = true;
		}
	}
	return tensor(&c, x->dtype, x->ndim, unknown ? NULL : o);
}

/*
 * take: indices (an int tensor or a prim value) pick along axis; the
 * result is x's dims with axis replaced by the indices' dims. Axis None
 * takes from the flattened x: the result has the indices' dims.
 */
SInfo *
infer_take(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *ix = operand(&c, 1);
	if (!x || !ix)
		return NULL;
	if (ix->dtype != DT_UNKNOWN && !dtype_is_int(ix->dtype)) {
		diag_error(d, arg_span(&c, 1),
			   "%s: indices must be integers, got %s", c.op,
			   infer_sinfo_str(m, arg_si(&c, 1)));
		return NULL;
	}
	const AttrVal *mode = attr(&c, P_mode);
	if (mode->kind != AV_STR || (strcmp(mode->s, "fast") && strcmp(mode->s, "clip") &&
				     strcmp(mode->s, "wrap"))) {
		diag_error(d, call->span,
			   "%s: mode must be one of \"fast\", \"clip\", \"wrap\", got \"%s\"",
			   c.op, mode->kind == AV_STR ? mode->s : "");
		return NULL;
	}
	const AttrVal *av = attr(&c, P_axis);
	bool fast = !strcmp(mode->s, "fast");
	if (av->kind == AV_NONE) {
		if (fast)
			assume_index(&c, 1, -1, 0, -1);
		return tensor(&c, x->dtype, ix->ndim, known(ix) ? ix->shape : NULL);
	}
	if (x->ndim < 0 || ix->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	if (x->ndim == 0) {
		diag_error(d, call->span, "%s: cannot take from a 0-d tensor",
			   c.op);
		return NULL;
	}
	int ax;
	if (!norm_axis(&c, av->i, x->ndim, &ax))
		return NULL;
	if (fast)
		assume_index(&c, 1, -1, 0, ax);
	int n = x->ndim - 1 + ix->ndim;
	if (!known(x) || !known(ix))
		return tensor(&c, x->dtype, n, NULL);
	PExpr **o = dims_new(&c, n);
	int k = 0;
	for (int i = 0; i < ax; i++)
		o[k++] = x->shape[i];
	for (int i = 0; i < ix->ndim; i++)
		o[k++] = ix->shape[i];
	for (int i = ax + 1; i < x->ndim; i++)
		o[k++] = x->shape[i];
	return tensor(&c, x->dtype, n, o);
}

SInfo *
infer_expand_dims(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	attr_ints(&c, P_axis, &axes, &na);
	if (x->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	int n = x->ndim + na, ax[64];
	if (n > 64 || !norm_axes(&c, axes, na, n, ax))
		return NULL;
	if (!known(x))
		return tensor(&c, x->dtype, n, NULL);
	bool isnew[64] = {0};
	for (int i = 0; i < na; i++)
		isnew[ax[i]] = true;
	PExpr **o = dims_new(&c, n);
	for (int i = 0, k = 0; i < n; i++)
		o[i] = isnew[i] ? pe_int(&m->arena, 1) : x->shape[k++];
	return tensor(&c, x->dtype, n, o);
}

/*
 * squeeze: removes the given axes of length 1 (a symbolic length is
 * assumed to be 1; a known length other than 1 is skipped, as in TVM and
 * PyTorch); None removes every dim known to be 1.
 */
SInfo *
infer_squeeze(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	bool given = attr_ints(&c, P_axis, &axes, &na);
	if (x->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	if (x->ndim > 64) {
		diag_error(d, call->span, "%s: too many dimensions", c.op);
		return NULL;
	}
	bool drop[64] = {0};
	if (!given) {
		if (!known(x))
			return tensor(&c, x->dtype, -1, NULL);
		for (int i = 0; i < x->ndim; i++) {
			int64_t v;
			drop[i] = dconst(x->shape[i], &v) && v == 1;
		}
	} else {
		int ax[64];
		if (na > 64 || !norm_axes(&c, axes, na, x->ndim, ax))
			return NULL;
		for (int i = 0; i < na; i++) {
			int64_t v;
			/* TVM (and PyTorch) skip an axis whose length is not 1 */
			if (known(x) && dconst(x->shape[ax[i]], &v) && v != 1)
				continue;
			drop[ax[i]] = true;
			/* a symbolic length squeezed away must be 1 */
			if (known(x))
				assume(&c, AS_EQ, x->shape[ax[i]], pe_int(&m->arena, 1),
				       arg_dim(&c, 0, -1, ax[i]), "the length of a squeezed axis");
		}
	}
	int n = 0;
	for (int i = 0; i < x->ndim; i++)
		n += !drop[i];
	if (!known(x))
		return tensor(&c, x->dtype, n, NULL);
	PExpr **o = dims_new(&c, n);
	for (int i = 0, k = 0; i < x->ndim; i++)
		if (!drop[i])
			o[k++] = x->shape[i];
	return tensor(&c, x->dtype, n, o);
}

SInfo *
infer_broadcast_to(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x, *s;
	SInfo *res;
	if (!ctx_reshape(&c, m, call, d, &x, &s, &res))
		return res;
	if (x->ndim > s->ndim) {
		diag_error(d, call->span,
			   "%s: cannot broadcast a tensor of %d dimensions to "
			   "%d dimensions",
			   c.op, x->ndim, s->ndim);
		return NULL;
	}
	if (!known(s))
		return tensor(&c, x->dtype, s->ndim, NULL);
	if (x->ndim >= 0 && known(x))
		for (int i = 1; i <= x->ndim; i++) {
			PExpr *a = x->shape[x->ndim - i];
			PExpr *b = s->shape[s->ndim - i];
			int64_t va;
			if (dconst(a, &va) && va == 1)
				continue;
			if (infer_dim_rel(m, a, b) == DIM_DIFFER) {
				diag_error(d, call->span,
					   "%s: cannot broadcast shape %s to %s",
					   c.op,
					   shape_str(&c, x->ndim, x->shape),
					   shape_str(&c, s->ndim, s->shape));
				return NULL;
			}
			assume(&c, AS_BCAST, a, b, arg_dim(&c, 0, -1, x->ndim - i),
			       arena_printf(&m->arena, "the new shape's dimension %d",
					    s->ndim - i));
		}
	return tensor(&c, x->dtype, s->ndim, dims_copy(&c, s->shape, s->ndim));
}

SInfo *
infer_flatten(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, 1, NULL);
	PExpr **o = dims_new(&c, 1);
	o[0] = dims_prod(&c, x->shape, x->ndim);
	return tensor(&c, x->dtype, 1, o);
}

/* ---------------------------------------------------------- reductions */

/* Shared body of the reductions; `axes` NULL means all. */
static SInfo *
reduce(Ctx *c, const SInfo *x, const int64_t *axes, int na, bool keep,
       DType dt)
{
	if (x->ndim < 0) {
		if (!axes && !keep)
			return tensor(c, dt, 0, NULL);
		return tensor(c, dt, -1, NULL);
	}
	bool red[64] = {0};
	int ax[64];
	if (x->ndim > 64 || na > 64) {
		diag_error(c->d, c->call->span, "%s: too many dimensions",
			   c->op);
		return NULL;
	}
	if (axes) {
		if (!norm_axes(c, axes, na, x->ndim, ax))
			return NULL;
		for (int i = 0; i < na; i++)
			red[ax[i]] = true;
	} else {
		for (int i = 0; i < x->ndim; i++)
			red[i] = true;
	}
	int n = 0;
	for (int i = 0; i < x->ndim; i++)
		n += keep || !red[i];
	if (!known(x))
		return tensor(c, dt, n, NULL);
	PExpr **o = dims_new(c, n);
	for (int i = 0, k = 0; i < x->ndim; i++)
		if (!red[i])
			o[k++] = x->shape[i];
		else if (keep)
			o[k++] = pe_int(&c->m->arena, 1);
	return tensor(c, dt, n, o);
}

SInfo *
infer_reduce(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	bool given = attr_ints(&c, P_axis, &axes, &na);
	return reduce(&c, x, given ? axes : NULL, na, attr(&c, P_keepdims)->i != 0,
		      x->dtype);
}

SInfo *
infer_argreduce(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const AttrVal *av = attr(&c, P_axis);
	return reduce(&c, x, av->kind == AV_NONE ? NULL : &av->i, 1,
		      attr(&c, P_keepdims)->i != 0, DT_I64);
}

/* ------------------------------------------------------------ creation */

/* A tensor of dtype dt and the dims of shape argument i. */
static SInfo *
from_shape(Ctx *c, int i, DType dt)
{
	const SInfo *s = want_shape(c, i);
	if (!s)
		return NULL;
	for (int k = 0; known(s) && k < s->ndim; k++) {
		int64_t v;
		if (dconst(s->shape[k], &v) && v < 0) {
			diag_error(c->d, arg_span(c, i),
				   "%s: negative dimension in shape %s", c->op,
				   shape_str(c, s->ndim, s->shape));
			return NULL;
		}
	}
	return tensor(c, dt, s->ndim, known(s) ? s->shape : NULL);
}

SInfo *
infer_fill_shape(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	return from_shape(&c, 0, attr(&c, P_dtype)->dtype);
}

/* The fill value (argument i) must be a 0-d tensor (or a prim value). */
static const SInfo *
fill_value(Ctx *c, int i)
{
	const SInfo *v = operand(c, i);
	if (!v)
		return NULL;
	if (v->ndim > 0) {
		diag_error(c->d, arg_span(c, i),
			   "%s: fill_value must be a scalar tensor, got %s",
			   c->op, infer_sinfo_str(c->m, v));
		return NULL;
	}
	return v;
}

SInfo *
infer_full(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *v = fill_value(&c, 1);
	if (!v)
		return NULL;
	const AttrVal *av = attr(&c, P_dtype);
	return from_shape(&c, 0, av->kind == AV_DTYPE ? av->dtype : v->dtype);
}

SInfo *
infer_fill_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const AttrVal *av = attr(&c, P_dtype);
	DType dt = av->kind == AV_DTYPE && av->dtype != DT_UNKNOWN ? av->dtype
								  : x->dtype;
	return tensor(&c, dt, x->ndim, x->shape);
}

SInfo *
infer_full_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !fill_value(&c, 1))
		return NULL;
	const AttrVal *av = attr(&c, P_dtype);
	DType dt = av->kind == AV_DTYPE && av->dtype != DT_UNKNOWN ? av->dtype
								  : x->dtype;
	return tensor(&c, dt, x->ndim, x->shape);
}

/* The value of prim argument i as a double, when it is a known constant. */
static bool
prim_num(const Ctx *c, int i, double *out)
{
	const Expr *e = c->call->call.args[i];
	int64_t v;
	if (e->kind == E_PRIM && dtype_is_float(e->prim.dtype)) {
		*out = e->prim.f;
		return true;
	}
	if (e->sinfo && e->sinfo->value && dconst(e->sinfo->value, &v)) {
		*out = (double)v;
		return true;
	}
	return false;
}

/*
 * arange: length ceil((end - start) / step) (at least 0) when the three
 * values are constants; (end - start + step - 1) // step for symbolic ints
 * with a constant positive step; unknown otherwise.
 */
SInfo *
infer_arange(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *s[3];
	for (int i = 0; i < 3; i++)
		if (!(s[i] = want_prim(&c, i)))
			return NULL;
	DType dt = attr(&c, P_dtype)->dtype;
	if (attr(&c, P_dtype)->kind == AV_NONE) /* as the parser: from the args */
		dt = dtype_is_float(s[0]->dtype) || dtype_is_float(s[1]->dtype) ||
		     dtype_is_float(s[2]->dtype) ? DT_F32 : DT_I64;
	double v[3];
	bool cst = true;
	for (int i = 0; i < 3; i++)
		cst &= prim_num(&c, i, &v[i]);
	if (cst && v[2] == 0) {
		diag_error(d, arg_span(&c, 2), "%s: step must not be 0", c.op);
		return NULL;
	}
	PExpr **o = dims_new(&c, 1);
	if (cst) {
		double len = ceil((v[1] - v[0]) / v[2]);
		if (len >= 0x1p63) { /* (int64_t)len would be undefined */
			diag_error(d, call->span,
				   "%s: the length %g does not fit in int64",
				   c.op, len);
			return NULL;
		}
		o[0] = pe_int(&m->arena, len > 0 ? (int64_t)len : 0);
		return tensor(&c, dt, 1, o);
	}
	int64_t st;
	if (s[0]->value && s[1]->value && dconst(s[2]->value, &st) && st > 0) {
		PExpr *span = dop(m, PE_SUB, s[1]->value, s[0]->value);
		o[0] = dop(m, PE_FLOORDIV,
			   dop(m, PE_ADD, span, pe_int(&m->arena, st - 1)),
			   pe_int(&m->arena, st));
		return tensor(&c, dt, 1, o);
	}
	return tensor(&c, dt, 1, NULL);
}

/* =================================================================
 * The operators of issue 11 (masks, elementwise, scans, sorting, data
 * movement, convolutions and pooling, norms, attention, quantization).
 * ================================================================= */

/* String attribute `name` is one of the NULL-terminated `ok`; else an
 * error listing them. */
static bool
str_choice(Ctx *c, ParamName p, const char *const *ok)
{
	const AttrVal *v = attr(c, p);
	const char *name = op_param_names[p];
	const char *s = v->kind == AV_STR && v->s ? v->s : "";
	StrBuf b = {0};
	for (int i = 0; ok[i]; i++) {
		if (!strcmp(s, ok[i])) {
			sb_free(&b);
			return true;
		}
		sb_printf(&b, "%s\"%s\"", i ? ", " : "", ok[i]);
	}
	diag_error(c->d, c->call->span, "%s: %s must be one of %s, got \"%s\"",
		   c->op, name, b.p, s);
	sb_free(&b);
	return false;
}

/* The tensor must have an integer (or unknown) dtype; bool too if `b`. */
static bool
want_int(Ctx *c, const SInfo *t, int i, const char *what, bool b)
{
	if (t->dtype == DT_UNKNOWN || dtype_is_int(t->dtype) ||
	    (b && t->dtype == DT_BOOL))
		return true;
	diag_error(c->d, arg_span(c, i), "%s: %s must be %s, got %s", c->op,
		   what, b ? "an integer or bool tensor" : "integers",
		   infer_sinfo_str(c->m, arg_si(c, i)));
	return false;
}

/* A tuple of the n struct infos f (copied into the arena). */
static SInfo *
tuple_of(Ctx *c, SInfo **f, int n)
{
	return si_tuple(&c->m->arena, arena_memdup(&c->m->arena, f, sizeof *f * (size_t)n), n);
}

/* ---------------------------------------------------------- elementwise */

/*
 * bitwise_and / or / xor (broadcasting) and bitwise_not: integer or bool
 * operands. TVM's rule leaves the dtype unchecked and fails when the
 * kernel is built; rlx says so at the call.
 */
SInfo *
infer_bitwise(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	for (int i = 0; i < call->call.nargs; i++) {
		const SInfo *t = operand(&c, i);
		if (!t || !want_int(&c, t, i, c.sig.nargs == 1 ? "x" : arg_name(&c, i), true))
			return NULL;
	}
	if (c.sig.nargs == 1)
		return infer_unary(m, call, d);
	return binary(m, call, d, 0);
}

/* isnan, isinf, isfinite: a bool tensor of x's shape. */
SInfo *
infer_unary_check(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	return x ? tensor(&c, DT_BOOL, x->ndim, x->shape) : NULL;
}

/*
 * ewise_fma(x1, x2, x3) = x1 * x2 + x3: three tensors of one dtype and one
 * rank whose dims must be provably equal (TVM does not broadcast here).
 */
SInfo *
infer_ewise_fma(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t[3];
	int ndim = -1;
	DType dt = DT_UNKNOWN;
	bool dt_unknown = false;
	for (int i = 0; i < 3; i++) {
		if (!(t[i] = want_tensor(&c, i)))
			return NULL;
		if (t[i]->ndim >= 0) {
			if (ndim >= 0 && t[i]->ndim != ndim) {
				diag_error(d, call->span,
					   "%s: the operands must have the same number of "
					   "dimensions, got %d and %d", c.op, ndim, t[i]->ndim);
				return NULL;
			}
			ndim = t[i]->ndim;
		}
		if (t[i]->dtype == DT_UNKNOWN)
			dt_unknown = true;
		else if (dt != DT_UNKNOWN && t[i]->dtype != dt) {
			diag_error(d, call->span, "%s: dtypes %s and %s differ", c.op,
				   dtype_name(dt), dtype_name(t[i]->dtype));
			return NULL;
		} else
			dt = t[i]->dtype;
	}
	if (dt_unknown)
		dt = DT_UNKNOWN;
	if (ndim < 0 || !known(t[0]) || !known(t[1]) || !known(t[2]))
		return tensor(&c, dt, ndim, NULL);
	for (int i = 0; i < ndim; i++)
		for (int j = 1; j < 3; j++)
			if (infer_dim_rel(m, t[0]->shape[i], t[j]->shape[i]) != DIM_EQUAL) {
				diag_error(d, call->span,
					   "%s: the operands must have the same shape, got "
					   "%s and %s", c.op, shape_str(&c, ndim, t[0]->shape),
					   shape_str(&c, ndim, t[j]->shape));
				return NULL;
			}
	return tensor(&c, dt, ndim, dims_copy(&c, t[0]->shape, ndim));
}

/* nn.prelu(data, alpha, axis): data's struct info; float data, alpha a
 * 1-D tensor of data's dtype along axis (1 or the channel count). */
SInfo *
infer_prelu(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *a = want_tensor(&c, 1);
	if (!x || !a || !want_float(&c, x, 0))
		return NULL;
	if (a->dtype != DT_UNKNOWN && x->dtype != DT_UNKNOWN && a->dtype != x->dtype) {
		diag_error(d, arg_span(&c, 1), "%s: alpha has dtype %s but data has %s",
			   c.op, dtype_name(a->dtype), dtype_name(x->dtype));
		return NULL;
	}
	int ax = 0;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	if (a->ndim >= 0 && a->ndim != 1) {
		diag_error(d, arg_span(&c, 1), "%s: alpha must be 1-D, got %s", c.op,
			   infer_sinfo_str(m, a));
		return NULL;
	}
	int64_t v;
	if (x->ndim >= 0 && known(x) && a->ndim == 1 && known(a) &&
	    !(dconst(a->shape[0], &v) && v == 1) &&
	    infer_dim_rel(m, a->shape[0], x->shape[ax]) == DIM_DIFFER) {
		diag_error(d, arg_span(&c, 1),
			   "%s: alpha has %s values but data has %s channels on axis %d",
			   c.op, dim_str(&c, a->shape[0]), dim_str(&c, x->shape[ax]), ax);
		return NULL;
	}
	if (x->ndim >= 0 && known(x) && a->ndim == 1 && known(a))
		assume(&c, AS_BCAST, a->shape[0], x->shape[ax], arg_dim(&c, 1, -1, 0),
		       arg_dim(&c, 0, -1, ax));
	return ir_copy_sinfo(m, x);
}

/* ------------------------------------------------------ masks, creation */

/* tril / triu(x, k): x's struct info; x has at least two dims. */
SInfo *
infer_tril(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *k = want_prim(&c, 1);
	if (!x || !k)
		return NULL;
	if (k->dtype != DT_UNKNOWN && !dtype_is_int(k->dtype)) {
		diag_error(d, arg_span(&c, 1), "%s: k must be an integer, got %s",
			   c.op, infer_sinfo_str(m, k));
		return NULL;
	}
	if (x->ndim >= 0 && x->ndim < 2) {
		diag_error(d, call->span,
			   "%s: expects a tensor of at least two dimensions, got %s",
			   c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	return ir_copy_sinfo(m, x);
}

/* eye(n, m, k, dtype): a 2-D tensor (n, m). */
SInfo *
infer_eye(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	PExpr **o = dims_new(&c, 2);
	bool all = true;
	for (int i = 0; i < 3; i++) {
		const SInfo *s = want_prim(&c, i);
		if (!s)
			return NULL;
		if (s->dtype != DT_UNKNOWN && !dtype_is_int(s->dtype)) {
			diag_error(d, arg_span(&c, i), "%s: %s must be an integer, got %s",
				   c.op, arg_name(&c, i), infer_sinfo_str(m, s));
			return NULL;
		}
		int64_t v;
		if (i < 2 && s->value && dconst(s->value, &v) && v < 0) {
			diag_error(d, arg_span(&c, i), "%s: %s must not be negative, got %lld",
				   c.op, arg_name(&c, i), (long long)v);
			return NULL;
		}
		if (i < 2) {
			o[i] = s->value;
			all &= s->value != NULL;
		}
	}
	return tensor(&c, attr(&c, P_dtype)->dtype, 2, all ? o : NULL);
}

/*
 * one_hot(indices, on_value, off_value, depth, axis): indices' dims with
 * depth inserted at axis (-1: last), the dtype of on_value.
 */
SInfo *
infer_one_hot(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *ix = ctx_tensor(&c, m, call, d), *on = want_prim(&c, 1),
		    *off = want_prim(&c, 2);
	if (!ix || !on || !off || !want_int(&c, ix, 0, "indices", false))
		return NULL;
	if (on->dtype != off->dtype) {
		diag_error(d, call->span,
			   "%s: on_value and off_value must have one dtype, got %s and %s",
			   c.op, dtype_name(on->dtype), dtype_name(off->dtype));
		return NULL;
	}
	int64_t depth = attr(&c, P_depth)->i;
	if (depth <= 0) {
		diag_error(d, call->span, "%s: depth must be positive, got %lld",
			   c.op, (long long)depth);
		return NULL;
	}
	if (ix->ndim < 0)
		return tensor(&c, on->dtype, -1, NULL);
	int n = ix->ndim + 1, ax;
	if (!norm_axis(&c, attr(&c, P_axis)->i, n, &ax))
		return NULL;
	if (!known(ix))
		return tensor(&c, on->dtype, n, NULL);
	PExpr **o = dims_new(&c, n);
	for (int i = 0, k = 0; i < n; i++)
		o[i] = i == ax ? pe_int(&m->arena, depth) : ix->shape[k++];
	return tensor(&c, on->dtype, n, o);
}

/* shape_of(x): the shape of tensor x, R.Shape([dims]) when known. */
SInfo *
infer_shape_of(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	return si_shape(&m->arena, x->ndim,
			known(x) && x->ndim > 0 ? dims_copy(&c, x->shape, x->ndim)
			: x->ndim == 0 ? dims_new(&c, 1) : NULL);
}

/* shape_to_tensor(s): the shape's values as an int64 tensor (ndim,). */
SInfo *
infer_shape_to_tensor(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *s = want_shape(&c, 0);
	if (!s)
		return NULL;
	if (s->ndim < 0)
		return tensor(&c, DT_I64, 1, NULL);
	PExpr **o = dims_new(&c, 1);
	o[0] = pe_int(&m->arena, s->ndim);
	return tensor(&c, DT_I64, 1, o);
}

/* ------------------------------------------------------- scans, sorting */

/* cumsum / cumprod: x's dims (axis None: flattened to 1-D) in dtype. */
SInfo *
infer_scan(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const AttrVal *dv = attr(&c, P_dtype);
	DType dt = dv->kind == AV_DTYPE && dv->dtype != DT_UNKNOWN ? dv->dtype : x->dtype;
	if (attr(&c, P_axis)->kind == AV_NONE) {
		if (!known(x) || x->ndim < 0)
			return tensor(&c, dt, 1, NULL);
		PExpr **o = dims_new(&c, 1);
		o[0] = dims_prod(&c, x->shape, x->ndim);
		return tensor(&c, dt, 1, o);
	}
	int ax;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	return tensor(&c, dt, x->ndim, known(x) ? x->shape : NULL);
}

/* sort: x's struct info; argsort: x's dims in the index dtype. */
SInfo *
infer_sort(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	int ax;
	if (x->ndim >= 0 && x->ndim > 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	if (call->call.op == OP_SORT)
		return ir_copy_sinfo(m, x);
	const AttrVal *dv = attr(&c, P_dtype);
	if (dv->dtype != DT_UNKNOWN && !dtype_is_int(dv->dtype)) {
		diag_error(d, call->span, "%s: dtype must be an integer type, got %s",
			   c.op, dtype_name(dv->dtype));
		return NULL;
	}
	return tensor(&c, dv->dtype != DT_UNKNOWN ? dv->dtype : x->dtype, x->ndim,
		      known(x) ? x->shape : NULL);
}

/*
 * topk(data, k, axis, ret_type, largest, dtype): values and indices of
 * data's dims with axis cut to k (when k > 0 and not known to be at least
 * the dim); ret_type "both" gives the tuple (values, indices), "values"
 * or "indices" one of them.
 */
SInfo *
infer_topk(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	static const char *const rets[] = {"both", "values", "indices", NULL};
	if (!x || !str_choice(&c, P_ret_type, rets))
		return NULL;
	int64_t k = attr(&c, P_k)->i;
	const AttrVal *dv = attr(&c, P_dtype);
	if (dv->dtype != DT_UNKNOWN && !dtype_is_int(dv->dtype)) {
		diag_error(d, call->span, "%s: dtype must be an integer type, got %s",
			   c.op, dtype_name(dv->dtype));
		return NULL;
	}
	DType it = dv->dtype != DT_UNKNOWN ? dv->dtype : x->dtype;
	int ax = 0;
	if (x->ndim == 0) {
		diag_error(d, call->span, "%s: cannot take the top k of a 0-d tensor", c.op);
		return NULL;
	}
	if (x->ndim > 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	PExpr **o = NULL;
	if (x->ndim > 0 && known(x)) {
		o = dims_copy(&c, x->shape, x->ndim);
		int64_t v;
		if (k > 0 && (!dconst(o[ax], &v) || k < v)) {
			/* a symbolic axis must be at least k: the kernel
			 * writes k values */
			assume(&c, AS_LE, pe_int(&m->arena, k), o[ax],
			       "k", arg_dim(&c, 0, -1, ax));
			o[ax] = pe_int(&m->arena, k);
		}
	}
	SInfo *f[2] = {tensor(&c, x->dtype, x->ndim, o), tensor(&c, it, x->ndim, o)};
	const char *rt = attr(&c, P_ret_type)->s;
	if (!strcmp(rt, "values"))
		return f[0];
	if (!strcmp(rt, "indices"))
		return f[1];
	return tuple_of(&c, f, 2);
}

/* ------------------------------------------------------- data movement */

/* tile(data, repeats): TVM's rule (repeats prepended with 1s or data
 * promoted with leading 1-dims to max(len, ndim) dims). */
SInfo *
infer_tile(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *r;
	int l;
	attr_ints(&c, P_repeats, &r, &l);
	for (int i = 0; i < l; i++)
		if (r[i] < 0) {
			diag_error(d, call->span, "%s: repeats must not be negative, got %s",
				   c.op, ints_str(&c, r, l));
			return NULL;
		}
	if (x->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	int n = l > x->ndim ? l : x->ndim;
	if (n > 64) {
		diag_error(d, call->span, "%s: too many dimensions", c.op);
		return NULL;
	}
	if (!known(x))
		return tensor(&c, x->dtype, n, NULL);
	PExpr **o = dims_new(&c, n);
	for (int i = 0; i < n; i++) {
		int xi = i - (n - x->ndim), ri = i - (n - l);
		PExpr *dim = xi >= 0 ? x->shape[xi] : pe_int(&m->arena, 1);
		o[i] = ri >= 0 ? dop(m, PE_MUL, dim, pe_int(&m->arena, r[ri])) : dim;
	}
	return tensor(&c, x->dtype, n, o);
}

/* repeat(data, repeats, axis): axis None flattens. */
SInfo *
infer_repeat(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	int64_t r = attr(&c, P_repeats)->i;
	if (r < 0) {
		diag_error(d, call->span, "%s: repeats must not be negative, got %lld",
			   c.op, (long long)r);
		return NULL;
	}
	PExpr *rp = pe_int(&m->arena, r);
	if (attr(&c, P_axis)->kind == AV_NONE) {
		if (!known(x) || x->ndim < 0)
			return tensor(&c, x->dtype, 1, NULL);
		PExpr **o = dims_new(&c, 1);
		o[0] = dop(m, PE_MUL, dims_prod(&c, x->shape, x->ndim), rp);
		return tensor(&c, x->dtype, 1, o);
	}
	if (x->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	int ax;
	if (x->ndim == 0 || !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax)) {
		if (x->ndim == 0)
			diag_error(d, call->span, "%s: a 0-d tensor has no axis", c.op);
		return NULL;
	}
	if (!known(x))
		return tensor(&c, x->dtype, x->ndim, NULL);
	PExpr **o = dims_copy(&c, x->shape, x->ndim);
	o[ax] = dop(m, PE_MUL, o[ax], rp);
	return tensor(&c, x->dtype, x->ndim, o);
}

/* flip(data, axis): data's struct info. */
SInfo *
infer_flip(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	int ax;
	if (!x || (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax)))
		return NULL;
	return ir_copy_sinfo(m, x);
}

/* stack(tensors, axis): tensors of one dtype and shape; a new dim of
 * their count at axis (in [-ndim-1, ndim]). */
SInfo *
infer_stack(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t = arg_si(&c, 0);
	if (t->kind != SI_TUPLE || t->nfields == 0) {
		diag_error(d, arg_span(&c, 0), "%s: expects a non-empty tuple of tensors, got %s",
			   c.op, infer_sinfo_str(m, t));
		return NULL;
	}
	DType dt = DT_UNKNOWN;
	int ndim = -1;
	bool shape = true, dt_unknown = false;
	for (int i = 0; i < t->nfields; i++) {
		const SInfo *f = t->fields[i];
		if (f->kind != SI_TENSOR) {
			diag_error(d, arg_span(&c, 0), "%s: field %d is not a tensor: %s",
				   c.op, i, infer_sinfo_str(m, f));
			return NULL;
		}
		if (f->dtype == DT_UNKNOWN)
			dt_unknown = true;
		else if (dt != DT_UNKNOWN && f->dtype != dt) {
			diag_error(d, call->span, "%s: dtypes %s and %s differ", c.op,
				   dtype_name(dt), dtype_name(f->dtype));
			return NULL;
		} else
			dt = f->dtype;
		if (f->ndim >= 0) {
			if (ndim >= 0 && f->ndim != ndim) {
				diag_error(d, call->span,
					   "%s: the tensors must have the same number of "
					   "dimensions, got %d and %d", c.op, ndim, f->ndim);
				return NULL;
			}
			ndim = f->ndim;
		}
		shape &= f->ndim >= 0 && known(f);
	}
	if (dt_unknown)
		dt = DT_UNKNOWN;
	if (ndim < 0)
		return tensor(&c, dt, -1, NULL);
	int n = ndim + 1, ax;
	if (!norm_axis(&c, attr(&c, P_axis)->i, n, &ax))
		return NULL;
	if (!shape)
		return tensor(&c, dt, n, NULL);
	const SInfo *f0 = t->fields[0];
	bool unknown = false;
	for (int i = 1; i < t->nfields; i++)
		for (int j = 0; j < ndim; j++) {
			DimRel r = infer_dim_rel(m, f0->shape[j], t->fields[i]->shape[j]);
			if (r == DIM_DIFFER) {
				diag_error(d, call->span,
					   "%s: the tensors must have the same shape, got "
					   "%s and %s", c.op, shape_str(&c, ndim, f0->shape),
					   shape_str(&c, ndim, t->fields[i]->shape));
				return NULL;
			}
			unknown |= r != DIM_EQUAL;
			assume(&c, AS_EQ, t->fields[i]->shape[j], f0->shape[j],
			       field_dim(&c, 0, i, j), field_dim(&c, 0, 0, j));
		}
	if (unknown)
		return tensor(&c, dt, n, NULL);
	PExpr **o = dims_new(&c, n);
	for (int i = 0, k = 0; i < n; i++)
		o[i] = i == ax ? pe_int(&m->arena, t->nfields) : f0->shape[k++];
	return tensor(&c, dt, n, o);
}

/* gather_elements(data, indices, axis): indices' dims, data's dtype;
 * the same rank. */
SInfo *
infer_gather_elements(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *ix = want_tensor(&c, 1);
	if (!x || !ix || !want_int(&c, ix, 1, "indices", false))
		return NULL;
	if (x->ndim < 0 || ix->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	int ax;
	if (!norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	if (x->ndim != ix->ndim) {
		diag_error(d, call->span,
			   "%s: data and indices must have the same rank, got %d and %d",
			   c.op, x->ndim, ix->ndim);
		return NULL;
	}
	for (int i = 0; known(x) && known(ix) && i < x->ndim; i++)
		if (i != ax && !assume(&c, AS_LE, ix->shape[i], x->shape[i],
				       arg_dim(&c, 1, -1, i), arg_dim(&c, 0, -1, i)))
			return NULL;
	assume_index(&c, 1, -1, 0, ax);
	return tensor(&c, x->dtype, ix->ndim, known(ix) ? ix->shape : NULL);
}

/*
 * gather_nd(data, indices, batch_dims): indices (..., l) pick slices of
 * data: the result is indices' leading dims then data's dims after
 * batch_dims + l.
 */
SInfo *
infer_gather_nd(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *ix = want_tensor(&c, 1);
	if (!x || !ix || !want_int(&c, ix, 1, "indices", false))
		return NULL;
	int64_t bd = attr(&c, P_batch_dims)->i;
	if (x->ndim < 0 || ix->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
	if (bd < 0 || bd > x->ndim || bd > ix->ndim - 1) {
		diag_error(d, call->span,
			   "%s: batch_dims must be in [0, min(data.ndim, indices.ndim - 1)], "
			   "got %lld for ranks %d and %d", c.op, (long long)bd, x->ndim, ix->ndim);
		return NULL;
	}
	int64_t l;
	if (!known(ix) || !dconst(ix->shape[ix->ndim - 1], &l))
		return tensor(&c, x->dtype, -1, NULL);
	if (l > x->ndim - bd || l < 0) {
		diag_error(d, call->span,
			   "%s: the last dim of indices (%lld) must be at most data.ndim - "
			   "batch_dims (%lld)", c.op, (long long)l, (long long)(x->ndim - bd));
		return NULL;
	}
	int n = ix->ndim - 1 + x->ndim - (int)l - (int)bd;
	for (int k = 0; k < l; k++)
		assume_index(&c, 1, k, 0, (int)bd + k);
	if (!known(x))
		return tensor(&c, x->dtype, n, NULL);
	for (int i = 0; i < bd; i++)
		if (!assume(&c, AS_EQ, ix->shape[i], x->shape[i], arg_dim(&c, 1, -1, i),
			    arg_dim(&c, 0, -1, i)))
			return NULL;
	PExpr **o = dims_new(&c, n);
	int k = 0;
	for (int i = 0; i < ix->ndim - 1; i++)
		o[k++] = ix->shape[i];
	for (int i = (int)(bd + l); i < x->ndim; i++)
		o[k++] = x->shape[i];
	return tensor(&c, x->dtype, n, o);
}

static const char *const scatter_reductions[] = {"update", "add", "mul", "mean",
						 "max", "min", NULL};

/* data and updates of one dtype, integer indices (scatter_*). */
static bool
scatter_common(Ctx *c, const SInfo **x, const SInfo **ix, const SInfo **u)
{
	*x = want_tensor(c, 0);
	*ix = want_tensor(c, 1);
	*u = want_tensor(c, 2);
	if (!*x || !*ix || !*u || !want_int(c, *ix, 1, "indices", false))
		return false;
	if ((*x)->dtype != DT_UNKNOWN && (*u)->dtype != DT_UNKNOWN &&
	    (*x)->dtype != (*u)->dtype) {
		diag_error(c->d, c->call->span, "%s: data has dtype %s but updates %s",
			   c->op, dtype_name((*x)->dtype), dtype_name((*u)->dtype));
		return false;
	}
	return str_choice(c, P_reduction, scatter_reductions);
}

/* scatter_elements(data, indices, updates, axis, reduction): data's
 * struct info; indices and updates of data's rank and one shape. */
SInfo *
infer_scatter_elements(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x, *ix, *u;
	if (!scatter_common(&c, &x, &ix, &u))
		return NULL;
	if (x->ndim < 0)
		return ir_copy_sinfo(m, x);
	int ax;
	if (!norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	if ((ix->ndim >= 0 && ix->ndim != x->ndim) || (u->ndim >= 0 && u->ndim != x->ndim)) {
		diag_error(d, call->span,
			   "%s: data, indices and updates must have the same rank, got "
			   "%d, %d and %d", c.op, x->ndim, ix->ndim, u->ndim);
		return NULL;
	}
	if (known(ix) && known(u) && ix->ndim >= 0 && u->ndim >= 0) {
		for (int i = 0; i < ix->ndim; i++)
			if (infer_dim_rel(m, ix->shape[i], u->shape[i]) == DIM_DIFFER) {
				diag_error(d, call->span,
					   "%s: indices %s and updates %s must have the "
					   "same shape", c.op, shape_str(&c, ix->ndim, ix->shape),
					   shape_str(&c, u->ndim, u->shape));
				return NULL;
			} else {
				assume(&c, AS_EQ, u->shape[i], ix->shape[i],
				       arg_dim(&c, 2, -1, i), arg_dim(&c, 1, -1, i));
			}
	}
	for (int i = 0; known(x) && known(ix) && ix->ndim == x->ndim && i < x->ndim; i++)
		if (i != ax && !assume(&c, AS_LE, ix->shape[i], x->shape[i],
				       arg_dim(&c, 1, -1, i), arg_dim(&c, 0, -1, i)))
			return NULL;
	assume_index(&c, 1, -1, 0, ax);
	return ir_copy_sinfo(m, x);
}

/* scatter_nd(data, indices, updates, reduction): data's struct info;
 * updates has the shape indices[:-1] + data[indices[-1]:]. */
SInfo *
infer_scatter_nd(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x, *ix, *u;
	if (!scatter_common(&c, &x, &ix, &u))
		return NULL;
	int64_t l;
	if (x->ndim < 0 || ix->ndim < 1 || u->ndim < 0 || !known(x) || !known(ix) ||
	    !known(u) || !dconst(ix->shape[ix->ndim - 1], &l))
		return ir_copy_sinfo(m, x);
	if (l < 0 || l > x->ndim || x->ndim + ix->ndim - l - 1 != u->ndim) {
		diag_error(d, call->span,
			   "%s: updates %s do not fit indices %s into data %s (updates must "
			   "have the shape indices[:-1] + data[indices[-1]:])", c.op,
			   shape_str(&c, u->ndim, u->shape), shape_str(&c, ix->ndim, ix->shape),
			   shape_str(&c, x->ndim, x->shape));
		return NULL;
	}
	for (int i = 0; i < u->ndim; i++) {
		PExpr *want = i < ix->ndim - 1 ? ix->shape[i] : x->shape[l + i - (ix->ndim - 1)];
		if (infer_dim_rel(m, want, u->shape[i]) == DIM_DIFFER) {
			diag_error(d, call->span,
				   "%s: updates %s do not fit indices %s into data %s "
				   "(updates must have the shape indices[:-1] + "
				   "data[indices[-1]:])", c.op,
				   shape_str(&c, u->ndim, u->shape),
				   shape_str(&c, ix->ndim, ix->shape),
				   shape_str(&c, x->ndim, x->shape));
			return NULL;
		}
		assume(&c, AS_EQ, u->shape[i], want, arg_dim(&c, 2, -1, i),
		       i < ix->ndim - 1 ? arg_dim(&c, 1, -1, i)
					: arg_dim(&c, 0, -1, (int)l + i - (ix->ndim - 1)));
	}
	for (int k = 0; k < l; k++)
		assume_index(&c, 1, k, 0, k);
	return ir_copy_sinfo(m, x);
}

/* dynamic_strided_slice(x, begin, end, strides): int64 1-D tensors of
 * x.ndim entries each; the result's dims are known only at run time. */
SInfo *
infer_dynamic_strided_slice(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	for (int i = 1; i < 4; i++) {
		const SInfo *t = want_tensor(&c, i);
		if (!t || !want_int(&c, t, i, arg_name(&c, i), false))
			return NULL;
		int64_t v;
		if (t->ndim >= 0 && (t->ndim != 1 || (x->ndim >= 0 && known(t) &&
			      dconst(t->shape[0], &v) && v != x->ndim))) {
			diag_error(d, arg_span(&c, i),
				   "%s: %s must be a 1-D tensor of %d values (one per "
				   "dimension of x), got %s", c.op, arg_name(&c, i),
				   x->ndim, infer_sinfo_str(m, t));
			return NULL;
		}
	}
	return tensor(&c, x->dtype, x->ndim, NULL);
}

/* nn.pad(data, pad_width, pad_mode, pad_value): pad_width has a (before,
 * after) pair per dim. */
SInfo *
infer_pad(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	static const char *const modes[] = {"constant", "edge", "reflect", "replicate",
					    "circular", NULL};
	if (!x || !str_choice(&c, P_pad_mode, modes))
		return NULL;
	const int64_t *p;
	int n;
	attr_ints(&c, P_pad_width, &p, &n);
	for (int i = 0; i < n; i++)
		if (p[i] < 0) {
			diag_error(d, call->span, "%s: pad_width must not be negative, got %s",
				   c.op, ints_str(&c, p, n));
			return NULL;
		}
	if (x->ndim < 0)
		return tensor(&c, x->dtype, n / 2, NULL);
	if (n != 2 * x->ndim) {
		diag_error(d, call->span,
			   "%s: pad_width must have 2 values per dimension (%d), got %d",
			   c.op, 2 * x->ndim, n);
		return NULL;
	}
	if (!known(x))
		return tensor(&c, x->dtype, x->ndim, NULL);
	/* the modes but "constant" copy the padding from the data: an axis
	 * they pad must not be empty (NumPy refuses it too); "reflect"
	 * mirrors once, so each side's padding is less than the axis */
	const char *mode = attr(&c, P_pad_mode)->s;
	bool reflect = mode && !strcmp(mode, "reflect");
	for (int i = 0; mode && strcmp(mode, "constant") && i < x->ndim; i++) {
		if (!reflect && p[2 * i] + p[2 * i + 1] > 0 &&
		    !assume(&c, AS_POS, x->shape[i], pe_int(&m->arena, 1),
			    arena_printf(&m->arena, "%s's dimension %d, padded in mode \"%s\",",
					 arg_label(&c, 0), i, mode), ""))
			return NULL;
		for (int k = 0; reflect && k < 2; k++)
			if (p[2 * i + k] > 0 &&
			    !assume(&c, AS_LT, pe_int(&m->arena, p[2 * i + k]), x->shape[i],
				    arena_printf(&m->arena, "the reflected padding %s axis %d",
						 k ? "after" : "before", i),
				    arg_dim(&c, 0, -1, i)))
				return NULL;
	}
	PExpr **o = dims_new(&c, x->ndim);
	for (int i = 0; i < x->ndim; i++)
		o[i] = dop(m, PE_ADD, x->shape[i], pe_int(&m->arena, p[2 * i] + p[2 * i + 1]));
	return tensor(&c, x->dtype, x->ndim, o);
}

/* ------------------------------------------------ convolution, pooling */

/*
 * A layout attribute as TVM's tir::Layout: primal axes (upper case) and
 * packed sub-axes (a factor and the lower case letter of their primal axis:
 * "NCHW4c" is N, C/4, H, W, C%4). The primal axes must be those of the
 * canonical layout `canon` ("NCHW", "OIHW", "NCW"), each once; a sub-axis
 * at most once, after nothing in particular. ax[i] is the letter at
 * position i, fac[i] its factor (0 for a primal axis).
 */
typedef struct {
	int nd;
	char ax[16];
	int64_t fac[16];
	const char *s;
} Layout;

static bool
layout_get(Ctx *c, ParamName pn, const char *canon, Layout *l)
{
	const AttrVal *v = attr(c, pn);
	const char *name = op_param_names[pn];
	if (v->kind == AV_NONE && pn == P_out_layout) { /* the data's */
		const AttrVal *dl = op_attr_opt(c->call, P_data_layout);
		v = dl ? dl : attr(c, P_layout);
	}
	const char *s = v->kind == AV_STR && v->s ? v->s : "";
	l->s = s;
	l->nd = 0;
	bool ok = true, packed = false;
	for (const char *p = s; *p && ok; ) {
		int64_t f = 0;
		while (*p >= '0' && *p <= '9' && f < 1000000)
			f = f * 10 + (*p++ - '0');
		char ch = *p ? *p++ : 0;
		bool up = ch >= 'A' && ch <= 'Z', lo = ch >= 'a' && ch <= 'z';
		ok = l->nd < 16 && ((up && !f) || (lo && f > 0)) &&
		     strchr(canon, up ? ch : ch - 'a' + 'A');
		for (int i = 0; ok && i < l->nd; i++)
			ok = l->ax[i] != ch;
		if (ok) {
			packed |= lo;
			l->ax[l->nd] = ch;
			l->fac[l->nd++] = f;
		}
	}
	for (const char *q = canon; ok && *q; q++)
		ok = memchr(l->ax, *q, (size_t)l->nd) != NULL;
	for (const char *p = s; *p; p++)
		packed |= *p >= 'a' && *p <= 'z';
	if (!ok && packed)
		diag_error(c->d, c->call->span,
			   "%s: %s must be a layout of \"%s\" (a permutation, or packed "
			   "as \"%s4%c\"), got \"%s\"", c->op, name, canon, canon,
			   canon[1] + 32, s);
	else if (!ok)
		diag_error(c->d, c->call->span,
			   "%s: %s must be a permutation of \"%s\" (as \"%s\"), got \"%s\"",
			   c->op, name, canon, canon, s);
	return ok;
}

/* Position of letter ch in l, -1 when absent. */
static int
layout_pos(const Layout *l, char ch)
{
	for (int i = 0; i < l->nd; i++)
		if (l->ax[i] == ch)
			return i;
	return -1;
}

/* The dims of t (of l's rank, known dims) in canonical axis order, each
 * primal dim times its sub-axis (TVM's ForwardShape); NULLs when unknown. */
static void
layout_fwd(Ctx *c, const Layout *l, const char *canon, const SInfo *t, PExpr **out)
{
	int n = (int)strlen(canon);
	for (int i = 0; i < n; i++) {
		out[i] = NULL;
		if (!known(t) || t->ndim != l->nd)
			continue;
		out[i] = t->shape[layout_pos(l, canon[i])];
		int q = layout_pos(l, (char)(canon[i] - 'A' + 'a'));
		if (q >= 0)
			out[i] = dop(c->m, PE_MUL, out[i], t->shape[q]);
	}
}

/* Canonical dims cd back into layout l (TVM's BackwardShape). */
static PExpr **
layout_bwd(Ctx *c, const Layout *l, const char *canon, PExpr **cd)
{
	PExpr **o = dims_new(c, l->nd);
	for (int i = 0; i < l->nd; i++) {
		char ch = l->ax[i];
		if (l->fac[i]) {
			o[i] = pe_int(&c->m->arena, l->fac[i]);
			continue;
		}
		PExpr *x = cd[strchr(canon, ch) - canon];
		int q = layout_pos(l, (char)(ch - 'A' + 'a'));
		if (x && q >= 0)
			x = dop(c->m, PE_FLOORDIV, x, pe_int(&c->m->arena, l->fac[q]));
		o[i] = x;
	}
	for (int i = 0; i < l->nd; i++)
		if (!o[i])
			return NULL;
	return o;
}

/* An int-list attribute of exactly n values > 0 (>= 0 when zero_ok). */
static bool
int_list(Ctx *c, ParamName p, int n, bool zero_ok, int64_t *out)
{
	const AttrVal *v = attr(c, p);
	const char *name = op_param_names[p];
	/* fewer values repeat (as the parser widens them) */
	if (v->kind != AV_INTS || v->n < 1 || v->n > n || n % v->n) {
		diag_error(c->d, c->call->span, "%s: %s must have %s values, got %d",
			   c->op, name, n == 4 ? "1, 2 or 4" : n == 2 ? "1 or 2" :
			   n == 6 ? "1, 2, 3 or 6" : n == 3 ? "1 or 3" : "1",
			   v->kind == AV_INTS ? v->n : 0);
		return false;
	}
	for (int i = 0; i < v->n; i++)
		if (v->ints[i] < (zero_ok ? 0 : 1)) {
			diag_error(c->d, c->call->span, "%s: %s must be %s, got %s",
				   c->op, name, zero_ok ? "non-negative" : "positive",
				   ints_str(c, v->ints, v->n));
			return false;
		}
	for (int i = 0; i < n; i++)
		out[i] = v->ints[i % v->n];
	return true;
}

/* The tensor must have the rank of layout l. */
static bool
layout_rank(Ctx *c, const Layout *l, const SInfo *t, int i)
{
	if (t->ndim < 0 || t->ndim == l->nd)
		return true;
	diag_error(c->d, arg_span(c, i), "%s: %s must be %d-D (%s), got %s",
		   c->op, arg_name(c, i), l->nd, l->s, infer_sinfo_str(c->m, t));
	return false;
}

static const char *const data_canon[] = {"NCW", "NCHW", "NCDHW"};

/* The channels of a convolution: the data's cin against the weight's
 * input channels wi (times groups, regular) and the channels that groups
 * divide (the output channels wo, regular; wi, transposed); false after
 * an error. */
static bool
conv_channels(Ctx *c, PExpr *cin, PExpr *wi, PExpr *wo, int64_t groups, bool transpose)
{
	Module *m = c->m;
	PExpr *want_c = transpose ? wi : dop(m, PE_MUL, wi, pe_int(&m->arena, groups));
	if (infer_dim_rel(m, cin, want_c) == DIM_DIFFER) {
		if (transpose)
			diag_error(c->d, c->call->span,
				   "%s: data has %s input channels but the weight "
				   "expects %s", c->op, dim_str(c, cin), dim_str(c, want_c));
		else
			diag_error(c->d, c->call->span,
				   "%s: data has %s input channels but the weight "
				   "expects %s (%s per group, %lld groups)",
				   c->op, dim_str(c, cin), dim_str(c, want_c),
				   dim_str(c, wi), (long long)groups);
		return false;
	}
	int64_t v;
	if (transpose && dconst(wi, &v) && v % groups) {
		diag_error(c->d, c->call->span, "%s: %lld input channels are not divisible by "
			   "%lld groups", c->op, (long long)v, (long long)groups);
		return false;
	}
	if (!transpose && dconst(wo, &v) && v % groups) {
		diag_error(c->d, c->call->span, "%s: %lld output channels are not divisible by "
			   "%lld groups", c->op, (long long)v, (long long)groups);
		return false;
	}
	/* what the kernel needs and symbolic channels leave unproven */
	Arena *a = &m->arena;
	const char *xn = arg_label(c, 0), *wn = arg_label(c, 1);
	if (transpose)
		return assume(c, AS_EQ, cin, wi, arena_printf(a, "%s's channels", xn),
			      arena_printf(a, "%s's input channels", wn)) &&
		       assume(c, AS_DIV, wi, pe_int(a, groups),
			      arena_printf(a, "%s's input channels", wn), "groups");
	return assume(c, AS_EQ, cin, want_c, arena_printf(a, "%s's channels", xn),
		      arena_printf(a, "%s's input channels times groups (%lld)", wn,
				   (long long)groups)) &&
	       assume(c, AS_DIV, wo, pe_int(a, groups),
		      arena_printf(a, "%s's output channels", wn), "groups");
}

/*
 * nn.conv1d/2d/3d and nn.conv1d/2d/3d_transpose in any layout of the
 * canonical one (NCW/OIW, NCHW/OIHW, NCDHW/OIDHW; IO.. for the transposed),
 * packed ones included, as TVM. nsp spatial dims; padding is (before...,
 * after...).
 */
static SInfo *
conv(Module *m, Expr *call, Diags *d, int nsp, bool transpose)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *w = want_tensor(&c, 1);
	if (!x || !w)
		return NULL;
	static const char *const kcs[2][3] = {{"OIW", "OIHW", "OIDHW"},
					      {"IOW", "IOHW", "IODHW"}};
	const char *dc = data_canon[nsp - 1], *kc = kcs[transpose][nsp - 1];
	Layout dl, kl, ol;
	if (!layout_get(&c, P_data_layout, dc, &dl) ||
	    !layout_get(&c, P_kernel_layout, kc, &kl) ||
	    !layout_get(&c, P_out_layout, dc, &ol))
		return NULL;
	int64_t st[3], dil[3], pad[6], opad[3] = {0, 0, 0};
	if (!int_list(&c, P_strides, nsp, false, st) ||
	    !int_list(&c, P_dilation, nsp, false, dil) ||
	    !int_list(&c, P_padding, 2 * nsp, true, pad) ||
	    (transpose && !int_list(&c, P_output_padding, nsp, true, opad)))
		return NULL;
	int64_t groups = attr(&c, P_groups)->i;
	if (groups <= 0) {
		diag_error(d, call->span, "%s: groups must be positive, got %lld",
			   c.op, (long long)groups);
		return NULL;
	}
	for (int i = 0; i < nsp; i++)
		if (transpose && opad[i] >= st[i] && opad[i] >= dil[i]) {
			diag_error(d, call->span, "%s: output_padding must be smaller than "
				   "strides or dilation", c.op);
			return NULL;
		}
	const AttrVal *od = attr(&c, P_out_dtype);
	DType dt = od->kind == AV_DTYPE ? od->dtype : DT_UNKNOWN;
	if (dt == DT_UNKNOWN && !binary_dtype(&c, x->dtype, w->dtype, &dt))
		return NULL;
	if (!layout_rank(&c, &dl, x, 0) || !layout_rank(&c, &kl, w, 1))
		return NULL;
	if (!known(x) || !known(w) || x->ndim < 0 || w->ndim < 0)
		return tensor(&c, dt, ol.nd, NULL);
	PExpr *xc[5], *wc[5], *oc[5];
	layout_fwd(&c, &dl, dc, x, xc);
	layout_fwd(&c, &kl, kc, w, wc);
	Arena *a = &m->arena;
	PExpr *cin = xc[1];
	/* weight dims 0 and 1: O and I (regular), I and O (transposed) */
	PExpr *wi = transpose ? wc[0] : wc[1], *wo = transpose ? wc[1] : wc[0];
	if (!conv_channels(&c, cin, wi, wo, groups, transpose))
		return NULL;
	int64_t v;
	oc[0] = xc[0];
	oc[1] = transpose ? dop(m, PE_MUL, wo, pe_int(a, groups)) : wo;
	for (int i = 0; i < nsp; i++) {
		int64_t pads;
		if (__builtin_add_overflow(pad[i], pad[i + nsp], &pads)) {
			diag_error(d, call->span, "%s: padding is too large", c.op);
			return NULL;
		}
		if (transpose) {
			/* (in - 1) * s - pads + dil * (k - 1) + output_padding + 1 */
			PExpr *y = dop(m, PE_MUL, dop(m, PE_SUB, xc[2 + i], pe_int(a, 1)),
				       pe_int(a, st[i]));
			y = dop(m, PE_SUB, y, pe_int(a, pads));
			y = dop(m, PE_ADD, y, dop(m, PE_MUL, pe_int(a, dil[i]),
						  dop(m, PE_SUB, wc[2 + i], pe_int(a, 1))));
			oc[2 + i] = dop(m, PE_ADD, y, pe_int(a, opad[i] + 1));
		} else {
			oc[2 + i] = conv_dim(&c, xc[2 + i], wc[2 + i], pads, dil[i], st[i]);
		}
		const char *ext = i == nsp - 1 ? "width" : i == nsp - 2 ? "height" : "depth";
		if (dconst(oc[2 + i], &v) && v <= 0) {
			diag_error(d, call->span,
				   "%s: the output %s would be %lld: the kernel is "
				   "larger than the padded input", c.op, ext,
				   (long long)v);
			return NULL;
		}
		assume(&c, AS_POS, oc[2 + i], pe_int(a, 1),
		       arena_printf(a, "the output %s", ext), "");
	}
	return tensor(&c, dt, ol.nd, layout_bwd(&c, &ol, dc, oc));
}

SInfo *
infer_conv1d(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 1, false);
}

SInfo *
infer_conv3d(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 3, false);
}

SInfo *
infer_conv1d_transpose(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 1, true);
}

SInfo *
infer_conv2d_transpose(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 2, true);
}

SInfo *
infer_conv3d_transpose(Module *m, Expr *call, Diags *d)
{
	return conv(m, call, d, 3, true);
}

/* The number of spatial dims of a pool or resize op, from its name. */
static int
op_nsp(const Ctx *c)
{
	size_t n = strlen(c->op);
	return c->op[n - 2] == '1' ? 1 : c->op[n - 2] == '3' ? 3 : 2;
}

/*
 * max_pool1d/2d/3d, avg_pool1d/2d/3d: layout a layout of NCW / NCHW /
 * NCDHW; the output dims as TVM computes them: (in + pads - dil * (k - 1)
 * - 1 [+ s - 1 with ceil_mode]) // s + 1, less one when ceil_mode's last
 * window would start past the input and its front padding.
 */
SInfo *
infer_pool(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	int nsp = op_nsp(&c);
	const char *canon = data_canon[nsp - 1];
	const SInfo *x = want_tensor(&c, 0);
	Layout ll, ol;
	int64_t ks[3], st[3], dil[3], pad[6];
	if (!x || !layout_get(&c, P_layout, canon, &ll) ||
	    !layout_get(&c, P_out_layout, canon, &ol) ||
	    !int_list(&c, P_pool_size, nsp, false, ks) || !int_list(&c, P_strides, nsp, false, st) ||
	    !int_list(&c, P_dilation, nsp, false, dil) || !int_list(&c, P_padding, 2 * nsp, true, pad))
		return NULL;
	bool ceil_mode = attr(&c, P_ceil_mode)->i;
	if (x->ndim >= 0 && x->ndim != ll.nd) {
		diag_error(d, arg_span(&c, 0), "%s: data must be %d-D, got %s", c.op,
			   ll.nd, infer_sinfo_str(m, x));
		return NULL;
	}
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, ol.nd, NULL);
	PExpr *xc[5];
	layout_fwd(&c, &ll, canon, x, xc);
	Arena *a = &m->arena;
	for (int i = 0; i < nsp; i++) {
		int64_t pads = pad[i] + pad[i + nsp], in;
		int64_t eff = dil[i] * (ks[i] - 1) + 1;
		if (dconst(xc[2 + i], &in)) {
			int64_t num = in + pads - eff;
			if (num < 0) {
				diag_error(d, call->span,
					   "%s: the pool window (%lld) is larger than the "
					   "padded input (%lld)", c.op, (long long)eff,
					   (long long)(in + pads));
				return NULL;
			}
			if (ceil_mode)
				num += st[i] - 1;
			int64_t out = num / st[i] + 1;
			if (ceil_mode && (out - 1) * st[i] >= in + pad[i])
				out--;
			xc[2 + i] = pe_int(a, out);
		} else {
			const char *ext = i == nsp - 1 ? "width" : i == nsp - 2 ? "height" : "depth";
			assume(&c, AS_LE, pe_int(a, eff), dop(m, PE_ADD, xc[2 + i], pe_int(a, pads)),
			       "the pool window",
			       arena_printf(a, "%s's padded %s", arg_label(&c, 0), ext));
			if (ceil_mode)
				return tensor(&c, x->dtype, ol.nd, NULL);
			xc[2 + i] = conv_dim(&c, xc[2 + i], pe_int(a, ks[i]), pads, dil[i], st[i]);
		}
	}
	return tensor(&c, x->dtype, ol.nd, layout_bwd(&c, &ol, canon, xc));
}

/* adaptive_avg_pool1d/2d/3d(data, output_size, layout, out_layout). */
SInfo *
infer_adaptive_pool(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	int nsp = op_nsp(&c);
	const char *canon = data_canon[nsp - 1];
	const SInfo *x = want_tensor(&c, 0);
	Layout ll, ol;
	if (!x || !layout_get(&c, P_layout, canon, &ll) ||
	    !layout_get(&c, P_out_layout, canon, &ol))
		return NULL;
	const AttrVal *os = attr(&c, P_output_size);
	int64_t sz[3];
	if (os->kind != AV_NONE && !int_list(&c, P_output_size, nsp, false, sz))
		return NULL;
	if (x->ndim >= 0 && x->ndim != ll.nd) {
		diag_error(d, arg_span(&c, 0), "%s: data must be %d-D, got %s", c.op,
			   ll.nd, infer_sinfo_str(m, x));
		return NULL;
	}
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, ol.nd, NULL);
	PExpr *xc[5];
	layout_fwd(&c, &ll, canon, x, xc);
	if (os->kind != AV_NONE)
		for (int i = 0; i < nsp; i++)
			xc[2 + i] = pe_int(&m->arena, sz[i]);
	return tensor(&c, x->dtype, ol.nd, layout_bwd(&c, &ol, canon, xc));
}

/*
 * image.resize2d / resize3d(data, size, ...): data in a layout of NCHW /
 * NCDHW; the spatial dims become size's (a shape of 2 / 3 values), the
 * dtype out_dtype or data's, as TVM.
 */
SInfo *
infer_resize(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	int nsp = op_nsp(&c);
	const char *canon = data_canon[nsp - 1];
	const SInfo *x = want_tensor(&c, 0), *sz = want_shape(&c, 1);
	Layout ll;
	if (!x || !sz || !layout_get(&c, P_layout, canon, &ll))
		return NULL;
	if (sz->ndim >= 0 && sz->ndim != nsp) {
		diag_error(d, arg_span(&c, 1), "%s: size must have %d values, got %s",
			   c.op, nsp, infer_sinfo_str(m, sz));
		return NULL;
	}
	const AttrVal *od = attr(&c, P_out_dtype);
	DType dt = od->kind == AV_DTYPE ? od->dtype : x->dtype;
	if (!layout_rank(&c, &ll, x, 0))
		return NULL;
	if (x->ndim < 0 || !known(x) || !known(sz))
		return tensor(&c, dt, ll.nd, NULL);
	PExpr *xc[5];
	layout_fwd(&c, &ll, canon, x, xc);
	for (int i = 0; i < nsp; i++)
		xc[2 + i] = sz->shape[i];
	return tensor(&c, dt, ll.nd, layout_bwd(&c, &ll, canon, xc));
}

/* ------------------------------------------------------------- norms */

/*
 * nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis, ...):
 * the tuple (result of data's struct info, new moving_mean, new
 * moving_var) as TVM defines it; the four parameters are 1-D of the
 * channel count, of data's (float) dtype.
 */
SInfo *
infer_batch_norm(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	int ax = 0;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	for (int i = 1; i <= 4; i++)
		if (!norm_param(&c, x, &ax, 1, i))
			return NULL;
	SInfo *f[3] = {ir_copy_sinfo(m, x), ir_copy_sinfo(m, arg_si(&c, 3)),
		       ir_copy_sinfo(m, arg_si(&c, 4))};
	return tuple_of(&c, f, 3);
}

/* group_norm / instance_norm: channel_axis not among axes; gamma and beta
 * 1-D of the channel count; group_norm's channels divisible by groups. */
static SInfo *
channel_norm(Module *m, Expr *call, Diags *d, bool groups)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	int64_t ng = groups ? attr(&c, P_num_groups)->i : 1;
	if (ng <= 0) {
		diag_error(d, call->span, "%s: num_groups must be positive, got %lld",
			   c.op, (long long)ng);
		return NULL;
	}
	int ca = 0, ax[64];
	if (x->ndim >= 0) {
		const AttrVal *av = attr(&c, P_axes);
		const int64_t *axes = av->kind == AV_INTS ? av->ints : &av->i;
		int na = av->kind == AV_INTS ? av->n : 1;
		if (!norm_axis(&c, attr(&c, P_channel_axis)->i, x->ndim, &ca) ||
		    na > 64 || !norm_axes(&c, axes, na, x->ndim, ax))
			return NULL;
		for (int i = 0; i < na; i++)
			if (ax[i] == ca) {
				diag_error(d, call->span,
					   "%s: channel_axis %d must not be one of the "
					   "normalized axes", c.op, ca);
				return NULL;
			}
		int64_t v;
		if (known(x) && dconst(x->shape[ca], &v) && v % ng) {
			diag_error(d, call->span,
				   "%s: %lld channels are not divisible into %lld groups",
				   c.op, (long long)v, (long long)ng);
			return NULL;
		}
		if (known(x))
			assume(&c, AS_DIV, x->shape[ca], pe_int(&m->arena, ng),
			       arg_dim(&c, 0, -1, ca),
			       "num_groups");
	}
	for (int i = 1; i <= 2; i++)
		if (!norm_param(&c, x, &ca, 1, i))
			return NULL;
	return ir_copy_sinfo(m, x);
}

SInfo *
infer_group_norm(Module *m, Expr *call, Diags *d)
{
	return channel_norm(m, call, d, true);
}

SInfo *
infer_instance_norm(Module *m, Expr *call, Diags *d)
{
	return channel_norm(m, call, d, false);
}

/* nn.dropout(data, rate): the tuple (result, mask), both data's. */
SInfo *
infer_dropout(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	double r = attr(&c, P_rate)->f;
	if (!(r >= 0 && r < 1)) {
		diag_error(d, call->span, "%s: rate must be in [0, 1), got %g", c.op, r);
		return NULL;
	}
	SInfo *f[2] = {ir_copy_sinfo(m, x), ir_copy_sinfo(m, x)};
	return tuple_of(&c, f, 2);
}

/*
 * nn.attention(query, key, value[, bias]): (batch, seq, heads, head_dim)
 * tensors; the result (batch, seq_q, heads, head_dim_v) in query's dtype.
 * Heads of query a multiple of key's and value's (grouped queries).
 */
SInfo *
infer_attention(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t[4] = {0};
	static const char *const masks[] = {"TopLeft", "BottomRight", NULL};
	for (int i = 0; i < call->call.nargs; i++) {
		Expr *a = call->call.args[i];
		if (i == 3 && a->kind == E_TUPLE && a->tuple.n == 0)
			break; /* bias left out */
		if (!(t[i] = want_tensor(&c, i)))
			return NULL;
		if (t[i]->ndim >= 0 && t[i]->ndim != 4) {
			diag_error(d, arg_span(&c, i),
				   "%s: %s must be 4-D (batch, sequence, heads, head dim), "
				   "got %s", c.op, arg_name(&c, i), infer_sinfo_str(m, t[i]));
			return NULL;
		}
		if (i > 0 && t[i]->dtype != DT_UNKNOWN && t[0]->dtype != DT_UNKNOWN &&
		    t[i]->dtype != t[0]->dtype) {
			diag_error(d, arg_span(&c, i), "%s: %s has dtype %s but query has %s",
				   c.op, arg_name(&c, i), dtype_name(t[i]->dtype),
				   dtype_name(t[0]->dtype));
			return NULL;
		}
	}
	if (!want_float(&c, t[0], 0))
		return NULL;
	if (attr(&c, P_causal_mask)->kind != AV_NONE && !str_choice(&c, P_causal_mask, masks))
		return NULL;
	for (int i = 0; i < 3; i++)
		if (t[i]->ndim < 0 || !known(t[i]))
			return tensor(&c, t[0]->dtype, 4, NULL);
	PExpr **q = t[0]->shape, **k = t[1]->shape, **v = t[2]->shape;
	struct { PExpr *a, *b; const char *what; int ia, da, ib, db; } eq[] = {
		{k[0], q[0], "the batch size of query and key", 1, 0, 0, 0},
		{v[0], q[0], "the batch size of query and value", 2, 0, 0, 0},
		{v[1], k[1], "the sequence length of key and value", 2, 1, 1, 1},
		{k[3], q[3], "the head dim of query and key", 1, 3, 0, 3},
		{v[2], k[2], "the heads of key and value", 2, 2, 1, 2},
	};
	for (size_t i = 0; i < ARRAY_LEN(eq); i++) {
		if (infer_dim_rel(m, eq[i].a, eq[i].b) == DIM_DIFFER) {
			diag_error(d, call->span, "%s: %s differ: %s and %s", c.op,
				   eq[i].what, dim_str(&c, eq[i].b), dim_str(&c, eq[i].a));
			return NULL;
		}
		assume(&c, AS_EQ, eq[i].a, eq[i].b, arg_dim(&c, eq[i].ia, -1, eq[i].da),
		       arg_dim(&c, eq[i].ib, -1, eq[i].db));
	}
	int64_t hq, hk;
	if (dconst(q[2], &hq) && dconst(k[2], &hk) && (hk <= 0 || hq % hk)) {
		diag_error(d, call->span,
			   "%s: query's %lld heads are not a multiple of key's %lld",
			   c.op, (long long)hq, (long long)hk);
		return NULL;
	}
	assume(&c, AS_DIV, q[2], k[2], arg_dim(&c, 0, -1, 2), arg_dim(&c, 1, -1, 2));
	if (t[3] && known(t[3]) && t[3]->ndim == 4) {
		PExpr *want[4] = {q[0], q[2], q[1], k[1]};
		for (int i = 0; i < 4; i++) {
			int64_t one;
			if (i < 3 && dconst(t[3]->shape[i], &one) && one == 1)
				continue;
			if (infer_dim_rel(m, t[3]->shape[i], want[i]) == DIM_DIFFER) {
				diag_error(d, arg_span(&c, 3),
					   "%s: bias %s does not broadcast to (batch, heads, "
					   "seq_q, seq_k) = %s", c.op,
					   shape_str(&c, 4, t[3]->shape), shape_str(&c, 4, want));
				return NULL;
			}
			static const int wa[4] = {0, 0, 0, 1}, wd[4] = {0, 2, 1, 1};
			assume(&c, i < 3 ? AS_BCAST : AS_EQ, t[3]->shape[i], want[i],
			       arg_dim(&c, 3, -1, i), arg_dim(&c, wa[i], -1, wd[i]));
		}
	}
	PExpr **o = dims_new(&c, 4);
	o[0] = q[0];
	o[1] = q[1];
	o[2] = q[2];
	o[3] = v[3];
	return tensor(&c, t[0]->dtype, 4, o);
}

/* --------------------------------------------------------------- einsum */

bool
einsum_expand(const char *s, const int *ndims, int n, char *out, size_t cap,
	      const char **why)
{
	if (!strstr(s, "...")) {
		if (strlen(s) >= cap) {
			*why = "the subscripts are too long";
			return false;
		}
		strcpy(out, s);
		return true;
	}
	const char *arrow = strstr(s, "->");
	bool used[128] = {0};
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q < 128)
			used[(unsigned char)*q] = true;
	/* the letters the ellipsis dims take, the last dim's last */
	char fresh[64];
	int nfresh = 0;
	for (int ch = 'A'; ch <= 'z' && nfresh < 63; ch++)
		if ((ch <= 'Z' || ch >= 'a') && !used[ch])
			fresh[nfresh++] = (char)ch;
	StrBuf b = {0};
	const char *p = s;
	int most = 0, count[128] = {0};
	for (int k = 0; k < n; k++) {
		const char *end = p;
		while (*end && *end != ',' && (!arrow || end < arrow))
			end++;
		int letters = 0;
		bool ell = false;
		for (const char *q = p; q < end; q++) {
			if (end - q >= 3 && q[1] == '.' && q[0] == '.' && q[2] == '.' && !ell) {
				ell = true;
				q += 2;
			} else if (*q != ' ') {
				letters++;
			}
		}
		int ne = ell ? ndims[k] - letters : 0;
		if (ell && (ndims[k] < 0 || ne < 0 || ne > nfresh)) {
			*why = ndims[k] < 0 ? "an ellipsis needs operands of known rank"
					    : "an operand has fewer dims than the letters beside its ellipsis";
			sb_free(&b);
			return false;
		}
		if (ne > most)
			most = ne;
		for (const char *q = p; q < end; q++) {
			if (end - q >= 3 && q[0] == '.' && q[1] == '.' && q[2] == '.') {
				for (int i = 0; i < ne; i++)
					sb_putc(&b, fresh[nfresh - ne + i]);
				q += 2;
			} else if (*q != ' ') {
				sb_putc(&b, *q);
				if ((unsigned char)*q < 128)
					count[(unsigned char)*q]++;
			}
		}
		p = end;
		if (k + 1 < n) {
			if (*p != ',') {
				*why = "the subscripts do not name every operand";
				sb_free(&b);
				return false;
			}
			sb_putc(&b, ',');
			p++;
		}
	}
	sb_puts(&b, "->");
	if (arrow) {
		for (const char *q = arrow + 2; *q; q++) {
			if (q[0] == '.' && q[1] == '.' && q[2] == '.') {
				for (int i = 0; i < most; i++)
					sb_putc(&b, fresh[nfresh - most + i]);
				q += 2;
			} else if (*q != ' ') {
				sb_putc(&b, *q);
			}
		}
	} else {
		for (int i = 0; i < most; i++)
			sb_putc(&b, fresh[nfresh - most + i]);
		for (int ch = 'A'; ch <= 'z'; ch++)
			if (count[ch] == 1)
				sb_putc(&b, (char)ch);
	}
	bool ok = b.len < cap;
	if (ok)
		memcpy(out, b.p, b.len + 1);
	else
		*why = "the subscripts are too long";
	sb_free(&b);
	return ok;
}

/* Checks einsum's operands, argument 0 (t): a non-empty tuple of tensors
 * of one dtype, *dt; false after an error. */
static bool
einsum_dtype(Ctx *c, const SInfo *t, DType *dt)
{
	if (t->kind != SI_TUPLE || t->nfields == 0) {
		diag_error(c->d, arg_span(c, 0), "%s: expects a non-empty tuple of tensors, got %s",
			   c->op, infer_sinfo_str(c->m, t));
		return false;
	}
	for (int i = 0; i < t->nfields; i++) {
		const SInfo *f = t->fields[i];
		if (f->kind != SI_TENSOR) {
			diag_error(c->d, arg_span(c, 0), "%s: operand %d is not a tensor: %s",
				   c->op, i, infer_sinfo_str(c->m, f));
			return false;
		}
		if (i && f->dtype != *dt) {
			diag_error(c->d, c->call->span, "%s: dtypes %s and %s differ", c->op,
				   dtype_name(*dt), dtype_name(f->dtype));
			return false;
		}
		*dt = f->dtype;
	}
	return true;
}

/* The output letters of einsum subscripts s (s0 as written; arrow where
 * "->" is, or NULL; count[ch] how often each input letter appears) into
 * out: those after the arrow, each an input letter once, or without an
 * arrow the letters seen once in alphabetical order. How many; -1 after
 * an error. */
static int
einsum_out(Ctx *c, const char *s0, const char *arrow, const int *count, char *out)
{
	int n = 0;
	if (!arrow) {
		for (int ch = 'A'; ch <= 'z' && n < 63; ch++)
			if (count[ch] == 1)
				out[n++] = (char)ch;
		return n;
	}
	for (const char *q = arrow + 2; *q && n < 63; q++) {
		unsigned char ch = (unsigned char)*q;
		if (ch == ' ')
			continue;
		if (ch >= 128 || !count[ch] || strchr(arrow + 2, ch) != q) {
			diag_error(c->d, c->call->span,
				   "%s: output subscript '%c' of \"%s\" is not an input "
				   "subscript or repeats", c->op, ch, s0);
			return -1;
		}
		out[n++] = (char)ch;
	}
	return n;
}

/*
 * einsum(operands, subscripts): "ij,jk->ik" (or implicit, "ij,jk": the
 * letters seen once, in alphabetical order). Each operand has one letter
 * per dim; a letter's dims must agree (or be 1: broadcast). An ellipsis
 * stands for the dims no letter names (einsum_expand).
 */
SInfo *
infer_einsum(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t = arg_si(&c, 0);
	DType dt = DT_UNKNOWN;
	if (!einsum_dtype(&c, t, &dt))
		return NULL;
	const char *s0 = attr(&c, P_subscripts)->s ? attr(&c, P_subscripts)->s : "";
	int ndims[64];
	char sx[256];
	const char *why = NULL;
	for (int i = 0; i < t->nfields && i < 64; i++)
		ndims[i] = t->fields[i]->ndim;
	for (int i = 0; strstr(s0, "...") && i < t->nfields; i++)
		if (t->fields[i]->ndim < 0) /* the rank is unknown: so is the result's */
			return tensor(&c, dt, -1, NULL);
	if (t->nfields > 64 || !einsum_expand(s0, ndims, t->nfields, sx, sizeof sx, &why)) {
		diag_error(d, call->span, "%s: bad subscripts \"%s\" (%s)", c.op, s0,
			   why ? why : "too many operands");
		return NULL;
	}
	const char *s = sx;
	const char *arrow = strstr(s, "->");
	PExpr *dim[128] = {0};
	const char *wdim[128] = {0};
	int count[128] = {0};
	bool shapes = true;
	const char *p = s;
	int k = 0;
	for (; k < t->nfields; k++) {
		const SInfo *f = t->fields[k];
		int n = 0;
		while (*p && *p != ',' && (!arrow || p < arrow)) {
			unsigned char ch = (unsigned char)*p++;
			if (ch == ' ')
				continue;
			if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z')) {
				diag_error(d, call->span, "%s: bad subscripts \"%s\"", c.op, s0);
				return NULL;
			}
			count[ch]++;
			if (f->ndim >= 0 && n < f->ndim && known(f)) {
				PExpr *x = f->shape[n];
				int64_t one;
				if (!dim[ch] || (dconst(dim[ch], &one) && one == 1)) {
					dim[ch] = x;
					wdim[ch] = field_dim(&c, 0, k, n);
				} else if (!(dconst(x, &one) && one == 1) &&
					 infer_dim_rel(m, dim[ch], x) == DIM_DIFFER) {
					diag_error(d, call->span,
						   "%s: subscript '%c' stands for dims %s and %s",
						   c.op, ch, dim_str(&c, dim[ch]), dim_str(&c, x));
					return NULL;
				} else {
					/* symbolic: equal to the letter's first dim
					 * (the result's), or 1 */
					assume(&c, AS_BCAST, x, dim[ch], field_dim(&c, 0, k, n),
					       wdim[ch]);
				}
			} else {
				shapes = false;
			}
			n++;
		}
		if (f->ndim >= 0 && n != f->ndim) {
			diag_error(d, call->span,
				   "%s: operand %d has %d dimensions but %d subscripts in \"%s\"",
				   c.op, k, f->ndim, n, s0);
			return NULL;
		}
		if (*p == ',')
			p++;
		else
			break;
	}
	if (k + 1 != t->nfields || (*p && *p != '-' && (!arrow || p < arrow))) {
		diag_error(d, call->span, "%s: subscripts \"%s\" do not name %d operand%s",
			   c.op, s0, t->nfields, t->nfields == 1 ? "" : "s");
		return NULL;
	}
	char out[64];
	int n = einsum_out(&c, s0, arrow, count, out);
	if (n < 0)
		return NULL;
	if (!shapes)
		return tensor(&c, dt, n, NULL);
	PExpr **o = dims_new(&c, n);
	for (int i = 0; i < n; i++)
		o[i] = dim[(unsigned char)out[i]];
	return tensor(&c, dt, n, o);
}

/* --------------------------------------------------------- quantization */

/*
 * quantize(data, scale, zero_point, axis, out_dtype) and dequantize: the
 * data's dims in out_dtype; scale and zero_point scalars or 1-D along axis.
 */
SInfo *
infer_qdq(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	bool q = call->call.op == OP_QUANTIZE;
	const SInfo *x = want_tensor(&c, 0), *s = want_tensor(&c, 1),
		    *z = want_tensor(&c, 2);
	if (!x || !s || !z)
		return NULL;
	DType od = attr(&c, P_out_dtype)->dtype;
	bool ok = q ? (od == DT_I8 || od == DT_U8 || od == DT_I16)
		    : (od == DT_F16 || od == DT_F32);
	if (!ok) {
		diag_error(d, call->span, "%s: out_dtype must be %s, got %s", c.op,
			   q ? "int8, uint8 or int16" : "float16 or float32",
			   dtype_name(od));
		return NULL;
	}
	DType xd = x->dtype, sd = s->dtype, zd = z->dtype;
	if (xd != DT_UNKNOWN && (q ? !(xd == DT_F16 || xd == DT_F32)
				   : !(xd == DT_I8 || xd == DT_U8 || xd == DT_I16 ||
				       xd == DT_I32 || xd == DT_F16 || xd == DT_F32))) {
		diag_error(d, arg_span(&c, 0), "%s: unsupported data dtype %s", c.op,
			   dtype_name(xd));
		return NULL;
	}
	if (sd != DT_UNKNOWN && sd != DT_F32 && sd != DT_F16) {
		diag_error(d, arg_span(&c, 1), "%s: scale must be float32 or float16, got %s",
			   c.op, dtype_name(sd));
		return NULL;
	}
	if (zd != DT_UNKNOWN && !(zd == DT_I8 || zd == DT_U8 || zd == DT_I16 ||
				  zd == DT_I32 || zd == DT_F16)) {
		diag_error(d, arg_span(&c, 2), "%s: unsupported zero_point dtype %s", c.op,
			   dtype_name(zd));
		return NULL;
	}
	int ax = 0;
	if (x->ndim > 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	for (int i = 1; i <= 2; i++) {
		const SInfo *p = i == 1 ? s : z;
		int64_t v;
		if (p->ndim == 0)
			continue;
		bool single = p->ndim > 0 && known(p);
		for (int j = 0; single && j < p->ndim; j++)
			single &= dconst(p->shape[j], &v) && v == 1;
		if (single)
			continue;
		/* the kernel reads one value per index of data's axis: a
		 * length it cannot see is refused, as TVM's rule refuses it
		 * (no run-time check could name it) */
		if (p->ndim < 0 || !known(p) || x->ndim < 0 || !known(x)) {
			diag_error(d, arg_span(&c, i),
				   "%s: %s must be a scalar or a 1-D tensor of known "
				   "length (and data's shape known), got %s", c.op,
				   arg_name(&c, i), infer_sinfo_str(m, p));
			return NULL;
		}
		if (p->ndim != 1 || x->ndim == 0 ||
		    infer_dim_rel(m, p->shape[0], x->shape[ax]) != DIM_EQUAL) {
			diag_error(d, arg_span(&c, i),
				   "%s: %s must be a scalar or have the %s values of data's "
				   "axis %d, got %s", c.op, arg_name(&c, i),
				   x->ndim ? dim_str(&c, x->shape[ax]) : "1", ax,
				   infer_sinfo_str(m, p));
			return NULL;
		}
	}
	return tensor(&c, od, x->ndim, known(x) ? x->shape : NULL);
}

/* ---------------------------------------------------------- collectives */

/*
 * R.ccl.* and R.dist.* (TVM's src/relax/op/ccl/ccl.cc and
 * op/distributed/distributed.cc). num_workers must be positive; allreduce's
 * op_type is one of TVM's reductions (TVM checks it only when lowering).
 */
static bool
want_workers(Ctx *c)
{
	int64_t n = attr(c, P_num_workers)->i;
	if (n > 0)
		return true;
	diag_error(c->d, c->call->span,
		   "%s: num_workers must be positive, got %lld", c->op,
		   (long long)n);
	return false;
}

/* allreduce, broadcast_from_worker0: the input's struct info. */
SInfo *
infer_ccl_same(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	if (call->call.op == OP_CCL_ALLREDUCE) {
		static const char *const kinds[] = {"sum", "prod", "min",
						    "max", "avg"};
		const char *k = attr(&c, P_op_type)->s ? attr(&c, P_op_type)->s : "";
		bool ok = false;
		for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
			ok |= !strcmp(k, kinds[i]);
		if (!ok) {
			diag_error(d, call->span,
				   "%s: op_type \"%s\" is none of \"sum\", "
				   "\"prod\", \"min\", \"max\", \"avg\"",
				   c.op, k);
			return NULL;
		}
	}
	return ir_copy_sinfo(m, x);
}

/* allgather: the workers' tensors concatenated along axis 0, so dim 0 is
 * num_workers times the input's. */
SInfo *
infer_ccl_allgather(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_workers(&c))
		return NULL;
	if (x->ndim == 0) {
		diag_error(d, call->span, "%s: cannot gather 0-d tensors",
			   c.op);
		return NULL;
	}
	if (!known(x))
		return tensor(&c, x->dtype, x->ndim, NULL);
	PExpr **s = dims_new(&c, x->ndim);
	memcpy(s, x->shape, sizeof *s * (size_t)x->ndim);
	s[0] = pe_simplify(&m->arena,
			   pe_bin(&m->arena, PE_MUL, x->shape[0],
				  pe_int(&m->arena, attr(&c, P_num_workers)->i)));
	return tensor(&c, x->dtype, x->ndim, s);
}

/* scatter_from_worker0, redistribute_replica_to_shard: axis split into
 * num_workers equal parts, one per worker. The shape must be known (TVM
 * requires it); a length provably not divisible is an error. */
SInfo *
infer_ccl_scatter(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x || !want_workers(&c))
		return NULL;
	if (!known(x)) {
		diag_error(d, call->span, "%s: the input's shape must be known, "
			   "got %s", c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	int ax;
	if (!norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	int64_t n = attr(&c, P_num_workers)->i, len;
	if (dconst(x->shape[ax], &len) && len % n) {
		diag_error(d, call->span,
			   "%s: axis %d of length %lld is not divisible by "
			   "num_workers %lld", c.op, ax, (long long)len,
			   (long long)n);
		return NULL;
	}
	/* a symbolic length: each worker's part must be whole, or the
	 * remainder would be dropped without a word */
	assume(&c, AS_DIV, x->shape[ax], pe_int(&m->arena, n), arg_dim(&c, 0, -1, ax),
	       "num_workers");
	PExpr **s = dims_new(&c, x->ndim);
	memcpy(s, x->shape, sizeof *s * (size_t)x->ndim);
	s[ax] = pe_simplify(&m->arena,
			    pe_bin(&m->arena, PE_FLOORDIV, x->shape[ax],
				   pe_int(&m->arena, n)));
	return tensor(&c, x->dtype, x->ndim, s);
}

/* ------------------------------------------- ops rlx reads but does not run */

/* image.grid_sample(data, grid): data in NCHW (NCDHW when layout says so);
 * the spatial dims become grid's dims 2.. (grid is (N, 2, H, W)). */
SInfo *
infer_grid_sample(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *g = want_tensor(&c, 1);
	if (!x || !g)
		return NULL;
	const AttrVal *lv = attr(&c, P_layout);
	const char *canon = lv->s && !strcmp(lv->s, "NCDHW") ? "NCDHW" : "NCHW";
	int nsp = (int)strlen(canon) - 2;
	Layout ll;
	if (!layout_get(&c, P_layout, canon, &ll) || !layout_rank(&c, &ll, x, 0))
		return NULL;
	if (x->ndim < 0 || !known(x) || !known(g) || g->ndim < 2 + nsp)
		return tensor(&c, x->dtype, ll.nd, NULL);
	PExpr *xc[5];
	layout_fwd(&c, &ll, canon, x, xc);
	for (int i = 0; i < nsp; i++)
		xc[2 + i] = g->shape[2 + i];
	return tensor(&c, x->dtype, ll.nd, layout_bwd(&c, &ll, canon, xc));
}

/* image.affine_grid(data, size): data (N, s, s + 1) for s = 2 or 3 spatial
 * dims (size's length); the result (N, s, *size). */
SInfo *
infer_affine_grid(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *sz = want_shape(&c, 1);
	if (!x || !sz)
		return NULL;
	int s = sz->ndim;
	if (s != 2 && s != 3) {
		diag_error(d, arg_span(&c, 1), "%s: size must have 2 or 3 values, got %s",
			   c.op, infer_sinfo_str(m, sz));
		return NULL;
	}
	if (x->ndim >= 0 && x->ndim != 3) {
		diag_error(d, arg_span(&c, 0), "%s: data must be 3-D (batch, %d, %d), got %s",
			   c.op, s, s + 1, infer_sinfo_str(m, x));
		return NULL;
	}
	int64_t v;
	if (known(x) && x->ndim == 3 &&
	    ((dconst(x->shape[1], &v) && v != s) || (dconst(x->shape[2], &v) && v != s + 1))) {
		diag_error(d, arg_span(&c, 0), "%s: data must be (batch, %d, %d) for a size "
			   "of %d values, got %s", c.op, s, s + 1, s, infer_sinfo_str(m, x));
		return NULL;
	}
	if (!known(x) || x->ndim != 3 || !known(sz))
		return tensor(&c, x->dtype, s + 2, NULL);
	PExpr **o = dims_new(&c, s + 2);
	o[0] = x->shape[0];
	o[1] = pe_int(&m->arena, s);
	for (int i = 0; i < s; i++)
		o[2 + i] = sz->shape[i];
	return tensor(&c, x->dtype, s + 2, o);
}

/* The struct info of argument i, when a tensor: a copy (data-shaped ops). */
static SInfo *
same_as(Ctx *c, int i)
{
	const SInfo *x = want_tensor(c, i);
	return x ? ir_copy_sinfo(c->m, x) : NULL;
}

/* Tensors i and j must have equal known dtypes. */
static bool
same_dtype(Ctx *c, const SInfo *a, const SInfo *b, int j)
{
	if (a->dtype == DT_UNKNOWN || b->dtype == DT_UNKNOWN || a->dtype == b->dtype)
		return true;
	diag_error(c->d, arg_span(c, j), "%s: %s has dtype %s but %s has %s", c->op,
		   arg_name(c, j), dtype_name(b->dtype), arg_name(c, 0), dtype_name(a->dtype));
	return false;
}

/* A tensor argument that is data-shaped in TVM's rule, checked as one. */
SInfo *
infer_data_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	return same_as(&c, 0);
}

/* index_put(data, indices, values): data's struct info; indices a tensor
 * or a tuple of one integer tensor per dim of data, values data's dtype. */
SInfo *
infer_index_put(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *v = want_tensor(&c, 2);
	if (!x || !v || !same_dtype(&c, x, v, 2))
		return NULL;
	const SInfo *ix = arg_si(&c, 1);
	int n = ix->kind == SI_TUPLE ? ix->nfields : 1;
	for (int i = 0; i < n; i++) {
		const SInfo *t = ix->kind == SI_TUPLE ? ix->fields[i] : ix;
		if (t->kind != SI_TENSOR || (t->dtype != DT_UNKNOWN && !dtype_is_int(t->dtype))) {
			diag_error(d, arg_span(&c, 1), "%s: indices must be integer tensors, got %s",
				   c.op, infer_sinfo_str(m, ix));
			return NULL;
		}
	}
	if (x->ndim >= 0 && n != x->ndim) {
		diag_error(d, arg_span(&c, 1), "%s: %d index tensors for data of %d dimensions",
			   c.op, n, x->ndim);
		return NULL;
	}
	return ir_copy_sinfo(m, x);
}

/* slice_scatter(input, src, start, end, step, axis): input's struct info;
 * src of input's rank and dtype. */
SInfo *
infer_slice_scatter(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *s = want_tensor(&c, 1);
	if (!x || !s || !same_dtype(&c, x, s, 1))
		return NULL;
	for (int i = 2; i < 5; i++)
		if (!want_prim(&c, i))
			return NULL;
	int ax;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, P_axis)->i, x->ndim, &ax))
		return NULL;
	if (x->ndim >= 0 && s->ndim >= 0 && x->ndim != s->ndim) {
		diag_error(d, arg_span(&c, 1), "%s: src has %d dimensions but input has %d",
			   c.op, s->ndim, x->ndim);
		return NULL;
	}
	return ir_copy_sinfo(m, x);
}

/* nonzero(x): the int64 indices of x's nonzero elements, (ndim, count). */
SInfo *
infer_nonzero(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	if (!ctx_tensor(&c, m, call, d))
		return NULL;
	return tensor(&c, DT_I64, 2, NULL);
}

/* tensor_to_shape(t): a 1-D integer tensor's values as a shape; its
 * length is the shape's ndim when constant. */
SInfo *
infer_tensor_to_shape(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *t = ctx_tensor(&c, m, call, d);
	if (!t)
		return NULL;
	if (t->ndim >= 0 && t->ndim != 1) {
		diag_error(d, arg_span(&c, 0), "%s: expects a 1-D tensor, got %s", c.op,
			   infer_sinfo_str(m, t));
		return NULL;
	}
	int64_t n;
	if (known(t) && t->ndim == 1 && dconst(t->shape[0], &n))
		return si_shape(&m->arena, (int)n, NULL);
	return si_shape(&m->arena, -1, NULL);
}

/* size(x): the element count of tensor x, an int64 scalar tensor. */
SInfo *
infer_size(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	if (!ctx_tensor(&c, m, call, d))
		return NULL;
	return tensor(&c, DT_I64, 0, NULL);
}

/* median(x, axis, keepdims): a reduction; over one axis the tuple
 * (values, int64 indices), as TVM. */
SInfo *
infer_median(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	bool given = attr_ints(&c, P_axis, &axes, &na);
	bool keep = attr(&c, P_keepdims)->i != 0;
	SInfo *r = reduce(&c, x, given ? axes : NULL, na, keep, x->dtype);
	if (!r || !given || na > 1)
		return r;
	SInfo *f[2] = {r, reduce(&c, x, axes, na, keep, DT_I64)};
	return tuple_of(&c, f, 2);
}

/* nn.nll_loss(predictions, targets, weights?): predictions (N, C, d...) or
 * (C,), targets (N, d...) integers, weights (C,); reduction "none" gives
 * (N, d...), else a scalar. */
SInfo *
infer_nll_loss(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *p = ctx_tensor(&c, m, call, d), *t = want_tensor(&c, 1), *w = NULL;
	if (!p || !t || !want_int(&c, t, 1, "targets", false))
		return NULL;
	Expr *wa = call->call.args[2];
	if (!(wa->kind == E_TUPLE && wa->tuple.n == 0)) {
		if (!(w = want_tensor(&c, 2)) || !same_dtype(&c, p, w, 2))
			return NULL;
		if (w->ndim >= 0 && w->ndim != 1) {
			diag_error(d, arg_span(&c, 2), "%s: weights must be 1-D, got %s",
				   c.op, infer_sinfo_str(m, w));
			return NULL;
		}
	}
	static const char *const red[] = {"none", "mean", "sum", NULL};
	if (!str_choice(&c, P_reduction, red))
		return NULL;
	if (p->ndim == 0) {
		diag_error(d, arg_span(&c, 0), "%s: predictions must have at least 1 "
			   "dimension, got %s", c.op, infer_sinfo_str(m, p));
		return NULL;
	}
	int k = p->ndim < 0 ? -1 : p->ndim <= 2 ? 0 : p->ndim - 2;
	int kt = t->ndim < 0 ? -1 : t->ndim <= 1 ? 0 : t->ndim - 1;
	if (k >= 0 && kt >= 0 && k != kt) {
		diag_error(d, call->span, "%s: predictions %s and targets %s do not "
			   "agree ((N, C, d...) and (N, d...))", c.op,
			   infer_sinfo_str(m, p), infer_sinfo_str(m, t));
		return NULL;
	}
	if (strcmp(attr(&c, P_reduction)->s, "none"))
		return tensor(&c, p->dtype, 0, NULL);
	if (p->ndim < 0)
		return tensor(&c, p->dtype, -1, NULL);
	int n = p->ndim - 1;
	if (!known(p))
		return tensor(&c, p->dtype, n, NULL);
	PExpr **o = dims_new(&c, n);
	if (n > 0)
		o[0] = p->shape[0];
	for (int i = 2; i < p->ndim; i++)
		o[i - 1] = p->shape[i];
	return tensor(&c, p->dtype, n, o);
}

/* nn.cross_entropy_with_logits(predictions, labels): a scalar of
 * predictions' dtype; both of the same shape. */
SInfo *
infer_cross_entropy(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *p = ctx_tensor(&c, m, call, d), *l = want_tensor(&c, 1);
	if (!p || !l || !same_dtype(&c, p, l, 1))
		return NULL;
	if (p->ndim >= 0 && l->ndim >= 0 && p->ndim != l->ndim) {
		diag_error(d, call->span, "%s: predictions %s and labels %s differ in rank",
			   c.op, infer_sinfo_str(m, p), infer_sinfo_str(m, l));
		return NULL;
	}
	return tensor(&c, p->dtype, 0, NULL);
}

/* nn.batch_flatten(data): (N, product of the other dims). */
SInfo *
infer_batch_flatten(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	if (x->ndim == 0) {
		diag_error(d, arg_span(&c, 0), "%s: data must have a batch dimension, got %s",
			   c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, 2, NULL);
	PExpr **o = dims_new(&c, 2);
	o[0] = x->shape[0];
	o[1] = dims_prod(&c, x->shape + 1, x->ndim - 1);
	return tensor(&c, x->dtype, 2, o);
}

/* nn.pixel_shuffle(data, upscale_factor r): (..., C, H, W) to
 * (..., C / r^2, H * r, W * r). */
SInfo *
infer_pixel_shuffle(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	int64_t r = attr(&c, P_upscale_factor)->i;
	if (r <= 0) {
		diag_error(d, call->span, "%s: upscale_factor must be positive, got %lld",
			   c.op, (long long)r);
		return NULL;
	}
	if (x->ndim >= 0 && x->ndim < 3) {
		diag_error(d, arg_span(&c, 0), "%s: data must have at least 3 dimensions, got %s",
			   c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, x->ndim, NULL);
	int n = x->ndim;
	int64_t ch;
	if (dconst(x->shape[n - 3], &ch) && ch % (r * r)) {
		diag_error(d, call->span, "%s: %lld channels are not divisible by "
			   "upscale_factor^2 = %lld", c.op, (long long)ch, (long long)(r * r));
		return NULL;
	}
	PExpr **o = dims_copy(&c, x->shape, n);
	Arena *a = &m->arena;
	o[n - 3] = dop(m, PE_FLOORDIV, o[n - 3], pe_int(a, r * r));
	o[n - 2] = dop(m, PE_MUL, o[n - 2], pe_int(a, r));
	o[n - 1] = dop(m, PE_MUL, o[n - 1], pe_int(a, r));
	return tensor(&c, x->dtype, n, o);
}

/* bucketize(input, boundaries): input's shape, int32 or int64. */
SInfo *
infer_bucketize(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *b = want_tensor(&c, 1);
	if (!x || !b)
		return NULL;
	if (b->ndim >= 0 && b->ndim != 1) {
		diag_error(d, arg_span(&c, 1), "%s: boundaries must be 1-D, got %s", c.op,
			   infer_sinfo_str(m, b));
		return NULL;
	}
	DType dt = attr(&c, P_out_int32)->i ? DT_I32 : DT_I64;
	return tensor(&c, dt, x->ndim, known(x) ? dims_copy(&c, x->shape, x->ndim) : NULL);
}

/* outer(x1, x2): 1-D x1 (n,) and x2 (m,) give (n, m). */
SInfo *
infer_outer(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *a = ctx_tensor(&c, m, call, d), *b = want_tensor(&c, 1);
	DType dt;
	if (!a || !b || !binary_dtype(&c, a->dtype, b->dtype, &dt))
		return NULL;
	for (int i = 0; i < 2; i++) {
		const SInfo *t = i ? b : a;
		if (t->ndim >= 0 && t->ndim != 1) {
			diag_error(d, arg_span(&c, i), "%s: expects 1-D tensors, got %s", c.op,
				   infer_sinfo_str(m, t));
			return NULL;
		}
	}
	if (!known(a) || !known(b) || a->ndim < 0 || b->ndim < 0)
		return tensor(&c, dt, 2, NULL);
	PExpr **o = dims_new(&c, 2);
	o[0] = a->shape[0];
	o[1] = b->shape[0];
	return tensor(&c, dt, 2, o);
}

/* meshgrid(tensors, indexing): n 1-D tensors give n tensors of the n
 * lengths (the first two swapped for "xy"). */
SInfo *
infer_meshgrid(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *t = arg_si(&c, 0);
	if (t->kind != SI_TUPLE) {
		diag_error(d, arg_span(&c, 0), "%s: expects a tuple of tensors, got %s",
			   c.op, infer_sinfo_str(m, t));
		return NULL;
	}
	static const char *const ix[] = {"ij", "xy", NULL};
	if (attr(&c, P_indexing)->kind != AV_NONE && !str_choice(&c, P_indexing, ix))
		return NULL;
	bool xy = attr(&c, P_indexing)->kind == AV_STR && !strcmp(attr(&c, P_indexing)->s, "xy");
	int n = t->nfields;
	PExpr **o = dims_new(&c, n);
	bool all = true;
	for (int i = 0; i < n; i++) {
		const SInfo *f = t->fields[i];
		if (f->kind != SI_TENSOR || (f->ndim >= 0 && f->ndim > 1)) {
			diag_error(d, arg_span(&c, 0), "%s: expects 1-D tensors, got %s",
				   c.op, infer_sinfo_str(m, f));
			return NULL;
		}
		o[i] = known(f) && f->ndim == 1 ? f->shape[0] : f->ndim == 0 ? pe_int(&m->arena, 1) : NULL;
		all &= o[i] != NULL;
	}
	if (xy && n >= 2) {
		PExpr *s = o[0];
		o[0] = o[1];
		o[1] = s;
	}
	SInfo **f = ARENA_ARRAY(&m->arena, SInfo *, n ? n : 1);
	for (int i = 0; i < n; i++)
		f[i] = tensor(&c, t->fields[0]->dtype, n, all ? dims_copy(&c, o, n) : NULL);
	return si_tuple(&m->arena, f, n);
}

/* multinomial_from_uniform(prob (batch, n), uniform (k, 1), indices (k, 1)):
 * (k, 1) of dtype. */
SInfo *
infer_multinomial(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *p = ctx_tensor(&c, m, call, d), *u = want_tensor(&c, 1), *ix = want_tensor(&c, 2);
	if (!p || !u || !ix || !want_float(&c, p, 0) || !want_int(&c, ix, 2, "sample_indices", false))
		return NULL;
	DType dt = attr(&c, P_dtype)->dtype;
	if (!known(u) || u->ndim != 2)
		return tensor(&c, dt, 2, NULL);
	PExpr **o = dims_new(&c, 2);
	o[0] = u->shape[0];
	o[1] = pe_int(&m->arena, 1);
	return tensor(&c, dt, 2, o);
}

/* collapse_sum_to(data, shape) / collapse_sum_like(data, target): the
 * target's shape, data's dtype. */
SInfo *
infer_collapse_sum(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const SInfo *t = arg_si(&c, 1);
	if (t->kind == SI_SHAPE)
		return tensor(&c, x->dtype, t->ndim, known(t) ? dims_copy(&c, t->shape, t->ndim) : NULL);
	if (!(t = want_tensor(&c, 1)))
		return NULL;
	return tensor(&c, x->dtype, t->ndim, known(t) ? dims_copy(&c, t->shape, t->ndim) : NULL);
}

/* grad.*_backward(output_grad, x, ...): the gradient of x, x's struct info. */
SInfo *
infer_grad_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	if (!ctx_tensor(&c, m, call, d))
		return NULL;
	return same_as(&c, 1);
}

/* hamming_window(window_size, periodic, alpha, beta, dtype): 1-D of
 * window_size values. */
SInfo *
infer_hamming_window(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *n = want_prim(&c, 0);
	if (!n)
		return NULL;
	for (int i = 1; i < 4; i++)
		if (!want_prim(&c, i))
			return NULL;
	DType dt = attr(&c, P_dtype)->dtype;
	if (!n->value)
		return tensor(&c, dt, 1, NULL);
	PExpr **o = dims_new(&c, 1);
	o[0] = n->value;
	return tensor(&c, dt, 1, o);
}

/* -------------------------------------------------------- layout_transform */

/* The range [*lo, *hi] of x over the index map's variables iv (iv[k] in
 * [0, dims[k] - 1]); false when rlx cannot bound x (not affine). */
static bool
imap_range(Ctx *c, const PExpr *x, SymVar **iv, PExpr **dims, int n,
	   PExpr **lo, PExpr **hi)
{
	Module *m = c->m;
	Arena *a = &m->arena;
	PExpr *l1, *h1, *l2, *h2;
	int64_t k, vl, vh;
	switch (x->kind) {
	case PE_INT:
		*lo = *hi = pe_int(a, x->value);
		return true;
	case PE_VAR:
		for (int i = 0; i < n; i++)
			if (x->var == iv[i]) {
				*lo = pe_int(a, 0);
				*hi = dop(m, PE_SUB, dims[i], pe_int(a, 1));
				return true;
			}
		return false;
	case PE_ADD:
	case PE_SUB:
		if (!imap_range(c, x->a, iv, dims, n, &l1, &h1) ||
		    !imap_range(c, x->b, iv, dims, n, &l2, &h2))
			return false;
		*lo = dop(m, x->kind, l1, x->kind == PE_ADD ? l2 : h2);
		*hi = dop(m, x->kind, h1, x->kind == PE_ADD ? h2 : l2);
		return true;
	case PE_MUL: {
		const PExpr *e = x->a;
		if (!pe_is_const((PExpr *)x->b, &k)) {
			if (!pe_is_const((PExpr *)x->a, &k))
				return false;
			e = x->b;
		}
		if (!imap_range(c, e, iv, dims, n, &l1, &h1))
			return false;
		*lo = dop(m, PE_MUL, k >= 0 ? l1 : h1, pe_int(a, k));
		*hi = dop(m, PE_MUL, k >= 0 ? h1 : l1, pe_int(a, k));
		return true;
	}
	case PE_FLOORDIV:
	case PE_FLOORMOD:
		if (!pe_is_const(x->b, &k) || k <= 0 ||
		    !imap_range(c, x->a, iv, dims, n, &l1, &h1))
			return false;
		if (x->kind == PE_FLOORDIV) {
			*lo = dop(m, PE_FLOORDIV, l1, pe_int(a, k));
			*hi = dop(m, PE_FLOORDIV, h1, pe_int(a, k));
		} else if (dconst(l1, &vl) && dconst(h1, &vh) && vl >= 0 && vh < k) {
			*lo = l1;
			*hi = h1;
		} else {
			*lo = pe_int(a, 0);
			*hi = pe_int(a, k - 1);
		}
		return true;
	default:
		return false;
	}
}

/*
 * layout_transform(x, index_map, pad_value): the index map's input rank is
 * x's; each output dim is the extent of the range of its final index over
 * x's index space (TVM's IndexMap::MapShape), so a split i -> (i // 4,
 * i % 4) of 6 gives (2, 4), padded. pad_value takes x's dtype.
 */
SInfo *
infer_layout_transform(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const AttrVal *im = attr(&c, P_index_map);
	if (x->ndim >= 0 && x->ndim != im->nin) {
		diag_error(d, call->span, "%s: the index map takes %d indices but x has %d "
			   "dimensions", c.op, im->nin, x->ndim);
		return NULL;
	}
	if (x->ndim < 0 || !known(x))
		return tensor(&c, x->dtype, im->n, NULL);
	PExpr **o = dims_new(&c, im->n);
	for (int i = 0; i < im->n; i++) {
		PExpr *lo, *hi;
		if (!imap_range(&c, im->dims[i], im->ivars, x->shape, x->ndim, &lo, &hi)) {
			diag_error(d, call->span, "%s: final index %d of the index map is not "
				   "affine in its variables (sums, products by constants, // and "
				   "%% by positive constants)", c.op, i);
			return NULL;
		}
		o[i] = dop(m, PE_ADD, dop(m, PE_SUB, hi, lo), pe_int(&m->arena, 1));
	}
	return tensor(&c, x->dtype, im->n, o);
}

/* vision.roi_align(data, rois, pooled_size, ...): data 4-D (NCHW or
 * NHWC), rois (num_rois, 5); the result (num_rois, C, ph, pw) (NCHW). */
SInfo *
infer_roi_align(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d), *r = want_tensor(&c, 1);
	if (!x || !r)
		return NULL;
	if ((x->ndim >= 0 && x->ndim != 4) || (r->ndim >= 0 && r->ndim != 2)) {
		diag_error(d, call->span, "%s: expects 4-D data and 2-D rois, got %s and %s",
			   c.op, infer_sinfo_str(m, x), infer_sinfo_str(m, r));
		return NULL;
	}
	static const char *const lays[] = {"NCHW", "NHWC", NULL};
	static const char *const modes[] = {"avg", "max", NULL};
	const AttrVal *mode = attr(&c, P_mode);
	if (!str_choice(&c, P_layout, lays) || (mode->kind == AV_STR && !str_choice(&c, P_mode, modes)))
		return NULL;
	int64_t v, ps[2];
	if (known(r) && r->ndim == 2 && dconst(r->shape[1], &v) && v != 5) {
		diag_error(d, arg_span(&c, 1), "%s: rois must be (num_rois, 5), got %s", c.op,
			   infer_sinfo_str(m, r));
		return NULL;
	}
	if (!int_list(&c, P_pooled_size, 2, false, ps))
		return NULL;
	if (!known(x) || !known(r) || x->ndim != 4 || r->ndim != 2)
		return tensor(&c, x->dtype, 4, NULL);
	bool nchw = !strcmp(attr(&c, P_layout)->s, "NCHW");
	PExpr **o = dims_new(&c, 4);
	o[0] = r->shape[0];
	o[nchw ? 1 : 3] = x->shape[nchw ? 1 : 3];
	o[nchw ? 2 : 1] = pe_int(&m->arena, ps[0]);
	o[nchw ? 3 : 2] = pe_int(&m->arena, ps[1]);
	return tensor(&c, x->dtype, 4, o);
}

/* vision.all_class_non_max_suppression(boxes (B, N, 4), scores (B, C, N),
 * ...): "onnx": (B * C * N, 3) int64 indices and a (1,) count; else
 * (B, C * N, 2) indices, (B, C * N) float32 scores, (B,) counts. */
SInfo *
infer_all_class_nms(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *bx = ctx_tensor(&c, m, call, d), *sc = want_tensor(&c, 1);
	if (!bx || !sc)
		return NULL;
	if (bx->ndim != 3 || sc->ndim != 3) {
		diag_error(d, call->span, "%s: boxes and scores must be 3-D, got %s and %s",
			   c.op, infer_sinfo_str(m, bx), infer_sinfo_str(m, sc));
		return NULL;
	}
	static const char *const fmts[] = {"onnx", "tensorflow", NULL};
	if (!str_choice(&c, P_output_format, fmts))
		return NULL;
	bool onnx = !strcmp(attr(&c, P_output_format)->s, "onnx");
	Arena *a = &m->arena;
	PExpr *b = known(bx) ? bx->shape[0] : NULL, *nb = known(bx) ? bx->shape[1] : NULL;
	PExpr *nc = known(sc) ? sc->shape[1] : NULL;
	PExpr **o1, **o2, **o3;
	if (onnx) {
		SInfo *f[2];
		o1 = dims_new(&c, 2);
		o2 = dims_new(&c, 1);
		o2[0] = pe_int(a, 1);
		o1[0] = b && nb && nc ? dop(m, PE_MUL, dop(m, PE_MUL, b, nc), nb) : NULL;
		o1[1] = pe_int(a, 3);
		f[0] = tensor(&c, DT_I64, 2, o1[0] ? o1 : NULL);
		f[1] = tensor(&c, DT_I64, 1, o2);
		return tuple_of(&c, f, 2);
	}
	PExpr *per = nb && nc ? dop(m, PE_MUL, nc, nb) : NULL;
	SInfo *f[3];
	o1 = dims_new(&c, 3);
	o2 = dims_new(&c, 2);
	o3 = dims_new(&c, 1);
	o1[0] = o2[0] = o3[0] = b;
	o1[1] = o2[1] = per;
	o1[2] = pe_int(a, 2);
	f[0] = tensor(&c, DT_I64, 3, b && per ? o1 : NULL);
	f[1] = tensor(&c, DT_F32, 2, b && per ? o2 : NULL);
	f[2] = tensor(&c, DT_I64, 1, b ? o3 : NULL);
	return tuple_of(&c, f, 3);
}

/* to_vdevice(data, dst_vdevice): data's struct info on that vdevice. */
SInfo *
infer_to_vdevice(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	const SInfo *x = ctx_tensor(&c, m, call, d);
	if (!x)
		return NULL;
	const char *v = ir_vdevice_canon(&m->arena, attr(&c, P_dst_vdevice)->s ? attr(&c, P_dst_vdevice)->s : "");
	if (!v) {
		diag_error(d, call->span, "%s: dst_vdevice must be \"KIND\", \"KIND:INDEX\" "
			   "or \"KIND:INDEX:SCOPE\", got \"%s\"", c.op, attr(&c, P_dst_vdevice)->s);
		return NULL;
	}
	SInfo *r = ir_copy_sinfo(m, x);
	r->vdevice = v;
	return r;
}

/* =================================================================
 * Vision and set operators (TVM's src/relax/op/vision and
 * src/relax/op/tensor/set.cc): read, checked and printed; no kernel.
 * ================================================================= */

/* Argument i must be a tensor of rank nd (or unknown rank). */
static const SInfo *
want_rank(Ctx *c, int i, int nd)
{
	const SInfo *t = want_tensor(c, i);
	if (t && t->ndim >= 0 && t->ndim != nd) {
		diag_error(c->d, arg_span(c, i), "%s: %s must be %d-D, got %s", c->op,
			   arg_name(c, i), nd, infer_sinfo_str(c->m, t));
		return NULL;
	}
	return t;
}

/* Dim k of t, or NULL when not known. */
static PExpr *
dim_of(const SInfo *t, int k)
{
	return known(t) && t->ndim > k ? t->shape[k] : NULL;
}

/* The tensor (dims d0.., NULL for unknown) of rank nd; dims unknown when
 * any is. */
static SInfo *
tensor_dims(Ctx *c, DType dt, int nd, PExpr **d)
{
	for (int i = 0; i < nd; i++)
		if (!d[i])
			return tensor(c, dt, nd, NULL);
	return tensor(c, dt, nd, dims_copy(c, d, nd));
}

/* An int attribute in [lo, n) when dim n is a known constant. */
static bool
index_in(Ctx *c, ParamName p, int64_t lo, PExpr *dim)
{
	const char *name = op_param_names[p];
	int64_t n, v = attr(c, p)->i;
	if (!dconst(dim, &n) || (v >= lo && v < n))
		return true;
	diag_error(c->d, c->call->span, "%s: %s must be in [%lld, %lld), got %lld", c->op,
		   name, (long long)lo, (long long)n, (long long)v);
	return false;
}

/* vision.roi_pool(data (N, C, H, W), rois (R, 5)): (R, C, ph, pw). */
SInfo *
infer_roi_pool(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_rank(&c, 0, 4), *r = want_rank(&c, 1, 2);
	if (!x || !r)
		return NULL;
	static const char *const lays[] = {"NCHW", NULL};
	int64_t v, ps[2];
	if (!str_choice(&c, P_layout, lays) || !int_list(&c, P_pooled_size, 2, false, ps))
		return NULL;
	if (dconst(dim_of(r, 1), &v) && v != 5) {
		diag_error(d, arg_span(&c, 1), "%s: rois must be (num_rois, 5), got %s", c.op,
			   infer_sinfo_str(m, r));
		return NULL;
	}
	if (!known(x) || !known(r) || x->ndim < 0 || r->ndim < 0)
		return tensor(&c, x->dtype, 4, NULL);
	PExpr *o[4] = {r->shape[0], x->shape[1], pe_int(&m->arena, ps[0]),
		       pe_int(&m->arena, ps[1])};
	return tensor_dims(&c, x->dtype, 4, o);
}

/* vision.get_valid_counts(data (B, N, L)): (B,) int32 counts, the data,
 * (B, N) int32 indices. */
SInfo *
infer_get_valid_counts(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_rank(&c, 0, 3);
	if (!x)
		return NULL;
	PExpr *b = dim_of(x, 0), *n = dim_of(x, 1), *l = dim_of(x, 2);
	if (!index_in(&c, P_score_index, 0, l) || !index_in(&c, P_id_index, -1, l))
		return NULL;
	SInfo *f[3];
	PExpr *o0[1] = {b}, *o1[3] = {b, n, l}, *o2[2] = {b, n};
	f[0] = known(x) ? tensor_dims(&c, DT_I32, 1, o0) : tensor(&c, DT_I32, 1, NULL);
	f[1] = known(x) ? tensor_dims(&c, x->dtype, 3, o1) : tensor(&c, x->dtype, 3, NULL);
	f[2] = known(x) ? tensor_dims(&c, DT_I32, 2, o2) : tensor(&c, DT_I32, 2, NULL);
	return tuple_of(&c, f, 3);
}

/* The dims of a and b that must be equal, by infer_dim_rel. */
static bool
dims_agree(Ctx *c, PExpr *a, PExpr *b, const char *what)
{
	if (!a || !b || infer_dim_rel(c->m, a, b) != DIM_DIFFER)
		return true;
	diag_error(c->d, c->call->span, "%s: %s", c->op, what);
	return false;
}

/* vision.non_max_suppression(data (B, N, L), valid_count (B,) int32,
 * indices (B, N) int32): return_indices gives (B, N) int32 box indices and
 * (B, 1) int32 counts (soft NMS, soft_nms_sigma > 0, the boxes first);
 * otherwise the data's struct info. */
SInfo *
infer_nms(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_rank(&c, 0, 3), *vc = want_rank(&c, 1, 1),
		    *ix = want_rank(&c, 2, 2);
	if (!x || !vc || !ix)
		return NULL;
	for (int i = 1; i < 3; i++) {
		const SInfo *t = i == 1 ? vc : ix;
		if (t->dtype != DT_UNKNOWN && t->dtype != DT_I32) {
			diag_error(d, arg_span(&c, i), "%s: %s must be int32, got %s", c.op,
				   arg_name(&c, i), infer_sinfo_str(m, t));
			return NULL;
		}
	}
	PExpr *b = dim_of(x, 0), *n = dim_of(x, 1), *l = dim_of(x, 2);
	if (!dims_agree(&c, dim_of(vc, 0), b, "valid_count must have shape (batch_size,)") ||
	    !dims_agree(&c, dim_of(ix, 0), b, "indices must have shape (batch_size, num_anchors)") ||
	    !dims_agree(&c, dim_of(ix, 1), n, "indices must have shape (batch_size, num_anchors)"))
		return NULL;
	if (!index_in(&c, P_score_index, 0, l) || !index_in(&c, P_id_index, -1, l))
		return NULL;
	int64_t cs = attr(&c, P_coord_start)->i, lv;
	if (dconst(l, &lv) && (cs < 0 || cs + 3 >= lv)) {
		diag_error(d, call->span, "%s: coord_start %lld does not leave four box "
			   "coordinates in elements of length %lld", c.op, (long long)cs,
			   (long long)lv);
		return NULL;
	}
	if (!attr(&c, P_return_indices)->i)
		return ir_copy_sinfo(m, x);
	bool soft = attr(&c, P_soft_nms_sigma)->f > 0.0;
	SInfo *f[3];
	int k = 0;
	PExpr *o1[2] = {b, n}, *o2[2] = {b, pe_int(&m->arena, 1)};
	if (soft)
		f[k++] = known(x) ? ir_copy_sinfo(m, x) : tensor(&c, x->dtype, 3, NULL);
	f[k++] = known(x) ? tensor_dims(&c, DT_I32, 2, o1) : tensor(&c, DT_I32, 2, NULL);
	f[k++] = known(x) ? tensor_dims(&c, DT_I32, 2, o2) : tensor(&c, DT_I32, 2, NULL);
	return tuple_of(&c, f, k);
}

/* vision.multibox_transform_loc(cls_pred (B, C, N), loc_pred (B, 4 N),
 * anchor (1, N, 4)): boxes (B, N, 4) and scores (B, C, N). */
SInfo *
infer_multibox_transform_loc(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *cl = want_rank(&c, 0, 3), *lo = want_rank(&c, 1, 2),
		    *an = want_rank(&c, 2, 3);
	if (!cl || !lo || !an)
		return NULL;
	for (int i = 1; i < 3; i++) {
		const SInfo *t = i == 1 ? lo : an;
		if (cl->dtype != DT_UNKNOWN && t->dtype != DT_UNKNOWN && t->dtype != cl->dtype) {
			diag_error(d, arg_span(&c, i), "%s: %s must have cls_pred's dtype %s, got %s",
				   c.op, arg_name(&c, i), dtype_name(cl->dtype),
				   infer_sinfo_str(m, t));
			return NULL;
		}
	}
	int64_t v, w;
	if (dconst(dim_of(lo, 1), &v) && v % 4) {
		diag_error(d, arg_span(&c, 1), "%s: loc_pred.shape[1] must be divisible by 4, "
			   "got %lld", c.op, (long long)v);
		return NULL;
	}
	if (dconst(dim_of(cl, 0), &v) && dconst(dim_of(lo, 0), &w) && v != w) {
		diag_error(d, call->span, "%s: cls_pred and loc_pred have batches %lld and %lld",
			   c.op, (long long)v, (long long)w);
		return NULL;
	}
	if ((dconst(dim_of(an, 0), &v) && v != 1) || (dconst(dim_of(an, 2), &w) && w != 4)) {
		diag_error(d, arg_span(&c, 2), "%s: anchor must be (1, N, 4), got %s", c.op,
			   infer_sinfo_str(m, an));
		return NULL;
	}
	if (!known(cl)) {
		SInfo *f[2] = {tensor(&c, cl->dtype, 3, NULL), tensor(&c, cl->dtype, 3, NULL)};
		return tuple_of(&c, f, 2);
	}
	PExpr *b = cl->shape[0], *nc = cl->shape[1], *n = cl->shape[2];
	int64_t nv;
	if (dconst(n, &nv) && dconst(dim_of(lo, 1), &v) && v != 4 * nv) {
		diag_error(d, arg_span(&c, 1), "%s: loc_pred.shape[1] must be 4 * %lld, got %lld",
			   c.op, (long long)nv, (long long)v);
		return NULL;
	}
	if (dconst(n, &nv) && dconst(dim_of(an, 1), &v) && v != nv) {
		diag_error(d, arg_span(&c, 2), "%s: anchor.shape[1] must be %lld, got %lld",
			   c.op, (long long)nv, (long long)v);
		return NULL;
	}
	PExpr *o1[3] = {b, n, pe_int(&m->arena, 4)}, *o2[3] = {b, nc, n};
	SInfo *f[2] = {tensor_dims(&c, cl->dtype, 3, o1), tensor_dims(&c, cl->dtype, 3, o2)};
	return tuple_of(&c, f, 2);
}

/* Prim argument i as a known integer or bool constant. */
static bool
prim_flag(Ctx *c, int i, int64_t *v)
{
	const Expr *e = c->call->call.args[i];
	const SInfo *si = ir_expr_sinfo(e);
	if (e->kind == E_PRIM && !dtype_is_float(e->prim.dtype) && dconst(e->prim.value, v))
		return true;
	if (si && si->kind == SI_PRIM && dconst(si->value, v))
		return true;
	diag_error(c->d, arg_span(c, i), "%s: %s must be a constant (R.prim_value(True))",
		   c->op, arg_name(c, i));
	return false;
}

/* unique(x, sorted, return_index, return_inverse, return_counts, axis):
 * the unique values (1-D; x's rank along an axis; (1,) of a 0-d x), then
 * one int64 1-D tensor for each flag set; a tuple when there is more than
 * the values. */
SInfo *
infer_unique(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	int64_t fl[4], ax = 0;
	for (int i = 0; i < 4; i++)
		if (!prim_flag(&c, 1 + i, &fl[i]))
			return NULL;
	bool has_axis = call->call.nargs > 5 && !(call->call.args[5]->kind == E_TUPLE &&
						   call->call.args[5]->tuple.n == 0);
	if (has_axis) {
		int a;
		if (!prim_flag(&c, 5, &ax) || (x->ndim >= 0 && !norm_axis(&c, ax, x->ndim, &a)))
			return NULL;
	}
	PExpr *one[1] = {pe_int(&m->arena, 1)};
	SInfo *f[4];
	int k = 0;
	f[k++] = x->ndim == 0 ? tensor_dims(&c, x->dtype, 1, one)
		 : tensor(&c, x->dtype, has_axis ? x->ndim : 1, NULL);
	for (int i = 1; i < 4; i++)
		if (fl[i])
			f[k++] = x->ndim == 0 ? tensor_dims(&c, DT_I64, 1, one)
				 : tensor(&c, DT_I64, 1, NULL);
	return k == 1 ? f[0] : tuple_of(&c, f, k);
}

/* =================================================================
 * Closures (TVM's src/relax/op/op.cc): read, checked and printed; rlx
 * run refuses them.
 * ================================================================= */

/* Argument i must be a tuple (the captured or passed values). */
static bool
want_tuple(Ctx *c, int i)
{
	const SInfo *si = arg_si(c, i);
	if (si->kind == SI_TUPLE)
		return true;
	diag_error(c->d, arg_span(c, i), "%s: %s must be a tuple, got %s", c->op,
		   arg_name(c, i), infer_sinfo_str(c->m, si));
	return false;
}

/* make_closure(func, args): func a function (cls.f), args the captured
 * values; the closure is an opaque object, as TVM infers it. */
SInfo *
infer_make_closure(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *f = arg_si(&c, 0);
	if (f->kind != SI_FUNC && f->kind != SI_OBJECT) {
		diag_error(d, arg_span(&c, 0), "%s: func must be a function (cls.f), got %s",
			   c.op, infer_sinfo_str(m, f));
		return NULL;
	}
	if (!want_tuple(&c, 1))
		return NULL;
	return si_object(&m->arena);
}

/* invoke_closure / invoke_pure_closure(closure, args, ty_args): what
 * ty_args says (one: it, several: their tuple, none: an object). */
SInfo *
infer_invoke_closure(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *f = arg_si(&c, 0);
	if (f->kind != SI_FUNC && f->kind != SI_OBJECT) {
		diag_error(d, arg_span(&c, 0), "%s: closure must be a closure (R.make_closure), got %s",
			   c.op, infer_sinfo_str(m, f));
		return NULL;
	}
	if (!want_tuple(&c, 1))
		return NULL;
	return infer_packed(m, call, d);
}

/* nn.attention_var_len(queries, keys, values, seqstart_q, max_seqlen_q,
 * seqstart_k, max_seqlen_k): attention over sequences packed into one
 * batch; q, k, v and the result as nn.attention's (TVM's
 * InferTypeAttention), the starts 1-D tensors, the lengths tensors. */
SInfo *
infer_attention_var_len(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	for (int i = 3; i < call->call.nargs; i++) {
		const SInfo *t = want_tensor(&c, i);
		if (!t)
			return NULL;
		if ((i == 3 || i == 5) && t->ndim >= 0 && t->ndim != 1) {
			diag_error(d, arg_span(&c, i), "%s: %s must be 1-D, got %s", c.op,
				   arg_name(&c, i), infer_sinfo_str(m, t));
			return NULL;
		}
	}
	Expr qkv = *call; /* the three tensors, checked as nn.attention's */
	qkv.call.nargs = 3;
	return infer_attention(m, &qkv, d);
}
