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

/* Attribute slot j. */
static const AttrVal *
attr(const Ctx *c, int j)
{
	return &c->call->call.attrs[j];
}

/* Attribute j as an int list: AV_INTS, or one AV_INT; false for None. */
static bool
attr_ints(const Ctx *c, int j, const int64_t **v, int *n)
{
	const AttrVal *a = attr(c, j);
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

/* Attribute j as dims (AV_DIMS, or AV_INTS / AV_INT as constants); false
 * for None. */
static bool
attr_dims(const Ctx *c, int j, PExpr ***v, int *n)
{
	const AttrVal *a = attr(c, j);
	*v = NULL;
	*n = 0;
	if (a->kind == AV_DIMS) {
		*v = a->dims;
		*n = a->n;
		return true;
	}
	const int64_t *xs;
	if (!attr_ints(c, j, &xs, n))
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

/* A tensor result; shape NULL means unknown dims (known for ndim 0). */
static SInfo *
tensor(Ctx *c, DType t, int ndim, PExpr **shape)
{
	if (ndim == 0 && !shape)
		shape = dims_new(c, 1);
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
	if (!binary_dtype(&c, a->dtype, b->dtype, &dt))
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
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
		const AttrVal *v = attr(&c, j);
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
		if (attr(&c, j)->kind == AV_DTYPE)
			dt = attr(&c, j)->dtype;
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const SInfo *s = arg_si(&c, 1);
	DType dt = attr(&c, 0)->kind == AV_DTYPE ? attr(&c, 0)->dtype : x->dtype;
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !want_prim(&c, 1) || !want_prim(&c, 2))
		return NULL;
	return ir_copy_sinfo(m, x);
}

/* -------------------------------------------------------------- nn */

SInfo *
infer_softmax(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	int ax;
	if (x->ndim >= 0 && !norm_axis(&c, attr(&c, 0)->i, x->ndim, &ax))
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !want_float(&c, x, 0))
		return NULL;
	const int64_t *axes;
	int n;
	attr_ints(&c, 0, &axes, &n);
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

/* An attribute of 1 or 2 ints as a pair (strides, dilation). */
static bool
pair_attr(Ctx *c, int j, const char *what, int64_t out[2])
{
	const int64_t *v;
	int n;
	attr_ints(c, j, &v, &n);
	if (n != 1 && n != 2) {
		diag_error(c->d, c->call->span,
			   "%s: %s must have 1 or 2 values, got %d", c->op,
			   what, n);
		return false;
	}
	out[0] = v[0];
	out[1] = n == 2 ? v[1] : v[0];
	if (out[0] <= 0 || out[1] <= 0) {
		diag_error(c->d, c->call->span,
			   "%s: %s must be positive, got %s", c->op, what,
			   ints_str(c, v, n));
		return false;
	}
	return true;
}

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

/* Attribute j must be the string `want` (the only layout supported). */
static bool
layout_attr(Ctx *c, int j, const char *what, const char *want)
{
	const AttrVal *v = attr(c, j);
	if (v->kind == AV_STR && v->s && !strcmp(v->s, want))
		return true;
	diag_error(c->d, c->call->span,
		   "%s: only %s=\"%s\" is supported, got \"%s\"", c->op, what,
		   want, v->kind == AV_STR && v->s ? v->s : "");
	return false;
}

SInfo *
infer_conv2d(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0), *w = want_tensor(&c, 1);
	if (!x || !w)
		return NULL;
	/* attrs: strides padding dilation groups data_layout kernel_layout
	 * out_layout out_dtype */
	if (!layout_attr(&c, 4, "data_layout", "NCHW") ||
	    !layout_attr(&c, 5, "kernel_layout", "OIHW") ||
	    !layout_attr(&c, 6, "out_layout", "NCHW"))
		return NULL;
	int64_t st[2], dil[2], pad[4];
	if (!pair_attr(&c, 0, "strides", st) ||
	    !pair_attr(&c, 2, "dilation", dil))
		return NULL;
	const int64_t *p;
	int np;
	attr_ints(&c, 1, &p, &np);
	if (np == 1) {
		pad[0] = pad[1] = pad[2] = pad[3] = p[0];
	} else if (np == 2) {
		pad[0] = pad[2] = p[0];
		pad[1] = pad[3] = p[1];
	} else if (np == 4) {
		memcpy(pad, p, sizeof pad); /* top, left, bottom, right */
	} else {
		diag_error(d, call->span,
			   "%s: padding must have 1, 2 or 4 values, got %d",
			   c.op, np);
		return NULL;
	}
	int64_t groups = attr(&c, 3)->i;
	if (groups <= 0) {
		diag_error(d, call->span, "%s: groups must be positive, got %lld",
			   c.op, (long long)groups);
		return NULL;
	}
	DType dt = attr(&c, 7)->kind == AV_DTYPE ? attr(&c, 7)->dtype
						 : DT_UNKNOWN;
	if (dt == DT_UNKNOWN && !binary_dtype(&c, x->dtype, w->dtype, &dt))
		return NULL;
	for (int i = 0; i < 2; i++) {
		const SInfo *t = i ? w : x;
		if (t->ndim >= 0 && t->ndim != 4) {
			diag_error(d, arg_span(&c, i),
				   "%s: %s must be 4-D (%s), got %s", c.op,
				   arg_name(&c, i), i ? "OIHW" : "NCHW",
				   infer_sinfo_str(m, t));
			return NULL;
		}
	}
	if (!known(x) || !known(w) || x->ndim < 0 || w->ndim < 0)
		return tensor(&c, dt, 4, NULL);
	PExpr *cin = x->shape[1], *o = w->shape[0], *wi = w->shape[1];
	PExpr *gi = dop(m, PE_MUL, wi, pe_int(&m->arena, groups));
	if (infer_dim_rel(m, cin, gi) == DIM_DIFFER) {
		diag_error(d, call->span,
			   "%s: data has %s input channels but the weight "
			   "expects %s (%s per group, %lld groups)",
			   c.op, dim_str(&c, cin), dim_str(&c, gi),
			   dim_str(&c, wi), (long long)groups);
		return NULL;
	}
	int64_t ov;
	if (dconst(o, &ov) && ov % groups) {
		diag_error(d, call->span,
			   "%s: %lld output channels are not divisible by "
			   "%lld groups",
			   c.op, (long long)ov, (long long)groups);
		return NULL;
	}
	PExpr **out = dims_new(&c, 4);
	out[0] = x->shape[0];
	out[1] = o;
	for (int i = 0; i < 2; i++) {
		int64_t pads;
		if (__builtin_add_overflow(pad[i], pad[i + 2], &pads)) {
			diag_error(d, call->span, "%s: padding is too large",
				   c.op);
			return NULL;
		}
		out[2 + i] = conv_dim(&c, x->shape[2 + i], w->shape[2 + i],
				      pads, dil[i], st[i]);
		int64_t v;
		if (dconst(out[2 + i], &v) && v <= 0) {
			diag_error(d, call->span,
				   "%s: the output %s would be %lld: the "
				   "kernel is larger than the padded input",
				   c.op, i ? "width" : "height", (long long)v);
			return NULL;
		}
	}
	return tensor(&c, dt, 4, out);
}

/* ------------------------------------------------------------- matmul */

SInfo *
infer_matmul(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *a = want_tensor(&c, 0), *b = want_tensor(&c, 1);
	if (!a || !b)
		return NULL;
	DType dt = attr(&c, 0)->kind == AV_DTYPE ? attr(&c, 0)->dtype
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const int64_t *axes;
	int n;
	bool given = attr_ints(&c, 0, &axes, &n);
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
 * reshape: the new shape comes from argument 1 (R.shape([...]) or a var of
 * R.Shape struct info). One -1 is inferred from the element count; the
 * element counts must agree when that is provable.
 */
SInfo *
infer_reshape(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0), *s = want_shape(&c, 1);
	if (!x || !s)
		return NULL;
	if (s->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
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
	return tensor(&c, x->dtype, n, out);
}

SInfo *
infer_astype(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	return tensor(&c, attr(&c, 0)->dtype, x->ndim, x->shape);
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
	if (t->kind != SI_TUPLE) {
		diag_error(d, arg_span(&c, 0),
			   "%s: expects a tuple of tensors, got %s", c.op,
			   infer_sinfo_str(m, t));
		return NULL;
	}
	if (t->nfields == 0) {
		diag_error(d, arg_span(&c, 0),
			   "%s: expects at least one tensor", c.op);
		return NULL;
	}
	DType dt = DT_UNKNOWN;
	int ndim = -1;
	bool all_known = true;
	for (int i = 0; i < t->nfields; i++) {
		const SInfo *f = t->fields[i];
		if (f->kind != SI_TENSOR) {
			diag_error(d, arg_span(&c, 0),
				   "%s: field %d of the tuple is not a tensor: "
				   "%s",
				   c.op, i, infer_sinfo_str(m, f));
			return NULL;
		}
		if (f->dtype != DT_UNKNOWN) {
			if (dt != DT_UNKNOWN && f->dtype != dt) {
				diag_error(d, arg_span(&c, 0),
					   "%s: dtypes %s and %s differ", c.op,
					   dtype_name(dt), dtype_name(f->dtype));
				return NULL;
			}
			dt = f->dtype;
		}
		if (f->ndim >= 0 && ndim >= 0 && f->ndim != ndim &&
		    attr(&c, 0)->kind != AV_NONE) {
			diag_error(d, arg_span(&c, 0),
				   "%s: tensors have %d and %d dimensions",
				   c.op, ndim, f->ndim);
			return NULL;
		}
		if (f->ndim >= 0)
			ndim = f->ndim;
		all_known &= f->ndim >= 0 && known(f);
	}
	/* An unknown dtype in any field makes the result's unknown. */
	for (int i = 0; i < t->nfields; i++)
		if (t->fields[i]->dtype == DT_UNKNOWN)
			dt = DT_UNKNOWN;
	const AttrVal *av = attr(&c, 0);
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
		}
	}
	return tensor(&c, dt, ndim, unknown ? NULL : o);
}

/*
 * split: an int splits axis into that many equal parts (an error when a
 * known length is not divisible; a symbolic one gives ceil division as in
 * TVM); a list of indices splits at them. The result is a tuple.
 */
SInfo *
infer_split(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const AttrVal *ios = attr(&c, 0);
	bool sections = ios->kind == AV_INT;
	int64_t nsec = sections ? ios->i : 0;
	const int64_t *idx = NULL;
	int nidx = 0;
	if (!sections)
		attr_ints(&c, 0, &idx, &nidx);
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
		if (!norm_axis(&c, attr(&c, 1)->i, x->ndim, &ax))
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
	if (sections && lconst && lv % nsec) {
		diag_error(d, call->span,
			   "%s: axis %d of length %lld is not divisible into "
			   "%lld sections",
			   c.op, ax, (long long)lv, (long long)nsec);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		PExpr *piece;
		if (sections) {
			piece = dop(m, PE_FLOORDIV,
				    dop(m, PE_ADD, len, pe_int(&m->arena, nsec - 1)),
				    pe_int(&m->arena, nsec));
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
		PExpr **o = dims_new(&c, x->ndim);
		memcpy(o, x->shape, sizeof(PExpr *) * (size_t)x->ndim);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const int64_t *axes;
	PExpr **beg, **end, **str = NULL;
	int na, nb, ne, ns = 0;
	attr_ints(&c, 0, &axes, &na);
	attr_dims(&c, 1, &beg, &nb);
	attr_dims(&c, 2, &end, &ne);
	bool has_str = attr_dims(&c, 3, &str, &ns);
	bool inbound = attr(&c, 4)->kind == AV_BOOL && attr(&c, 4)->i;
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
	PExpr **o = dims_new(&c, x->ndim);
	memcpy(o, x->shape, sizeof(PExpr *) * (size_t)x->ndim);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0), *ix = operand(&c, 1);
	if (!x || !ix)
		return NULL;
	if (ix->dtype != DT_UNKNOWN && !dtype_is_int(ix->dtype)) {
		diag_error(d, arg_span(&c, 1),
			   "%s: indices must be integers, got %s", c.op,
			   infer_sinfo_str(m, arg_si(&c, 1)));
		return NULL;
	}
	const AttrVal *av = attr(&c, 0);
	if (av->kind == AV_NONE)
		return tensor(&c, x->dtype, ix->ndim, known(ix) ? ix->shape : NULL);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	attr_ints(&c, 0, &axes, &na);
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
 * squeeze: the given axes must have length 1 (a symbolic length is
 * assumed to be 1, as in TVM); None removes every dim known to be 1.
 */
SInfo *
infer_squeeze(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	bool given = attr_ints(&c, 0, &axes, &na);
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
			if (known(x) && dconst(x->shape[ax[i]], &v) && v != 1) {
				diag_error(d, call->span,
					   "%s: axis %d has length %lld, not 1",
					   c.op, ax[i], (long long)v);
				return NULL;
			}
			drop[ax[i]] = true;
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0), *s = want_shape(&c, 1);
	if (!x || !s)
		return NULL;
	if (s->ndim < 0)
		return tensor(&c, x->dtype, -1, NULL);
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
		}
	PExpr **o = dims_new(&c, s->ndim);
	memcpy(o, s->shape, sizeof(PExpr *) * (size_t)s->ndim);
	return tensor(&c, x->dtype, s->ndim, o);
}

SInfo *
infer_flatten(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const int64_t *axes;
	int na;
	bool given = attr_ints(&c, 0, &axes, &na);
	return reduce(&c, x, given ? axes : NULL, na, attr(&c, 1)->i != 0,
		      x->dtype);
}

SInfo *
infer_argreduce(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const AttrVal *av = attr(&c, 0);
	return reduce(&c, x, av->kind == AV_NONE ? NULL : &av->i, 1,
		      attr(&c, 1)->i != 0, DT_I64);
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
	return from_shape(&c, 0, attr(&c, 0)->dtype);
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
	const AttrVal *av = attr(&c, 0);
	return from_shape(&c, 0, av->kind == AV_DTYPE ? av->dtype : v->dtype);
}

SInfo *
infer_fill_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	const AttrVal *av = attr(&c, 0);
	DType dt = av->kind == AV_DTYPE && av->dtype != DT_UNKNOWN ? av->dtype
								  : x->dtype;
	return tensor(&c, dt, x->ndim, x->shape);
}

SInfo *
infer_full_like(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !fill_value(&c, 1))
		return NULL;
	const AttrVal *av = attr(&c, 0);
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
	DType dt = attr(&c, 0)->dtype;
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

/* ---------------------------------------------------------- collectives */

/*
 * R.ccl.* and R.dist.* (TVM's src/relax/op/ccl/ccl.cc and
 * op/distributed/distributed.cc). num_workers must be positive; allreduce's
 * op_type is one of TVM's reductions (TVM checks it only when lowering).
 */
static bool
want_workers(Ctx *c, int j)
{
	int64_t n = attr(c, j)->i;
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x)
		return NULL;
	if (call->call.op == OP_CCL_ALLREDUCE) {
		static const char *const kinds[] = {"sum", "prod", "min",
						    "max", "avg"};
		const char *k = attr(&c, 0)->s ? attr(&c, 0)->s : "";
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
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !want_workers(&c, 0))
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
				  pe_int(&m->arena, attr(&c, 0)->i)));
	return tensor(&c, x->dtype, x->ndim, s);
}

/* scatter_from_worker0, redistribute_replica_to_shard: axis split into
 * num_workers equal parts, one per worker. The shape must be known (TVM
 * requires it); a length provably not divisible is an error. */
SInfo *
infer_ccl_scatter(Module *m, Expr *call, Diags *d)
{
	Ctx c;
	ctx_init(&c, m, call, d);
	const SInfo *x = want_tensor(&c, 0);
	if (!x || !want_workers(&c, 0))
		return NULL;
	if (!known(x)) {
		diag_error(d, call->span, "%s: the input's shape must be known, "
			   "got %s", c.op, infer_sinfo_str(m, x));
		return NULL;
	}
	int ax;
	if (!norm_axis(&c, attr(&c, 1)->i, x->ndim, &ax))
		return NULL;
	int64_t n = attr(&c, 0)->i, len;
	if (dconst(x->shape[ax], &len) && len % n) {
		diag_error(d, call->span,
			   "%s: axis %d of length %lld is not divisible by "
			   "num_workers %lld", c.op, ax, (long long)len,
			   (long long)n);
		return NULL;
	}
	PExpr **s = dims_new(&c, x->ndim);
	memcpy(s, x->shape, sizeof *s * (size_t)x->ndim);
	s[ax] = pe_simplify(&m->arena,
			    pe_bin(&m->arena, PE_FLOORDIV, x->shape[ax],
				   pe_int(&m->arena, n)));
	return tensor(&c, x->dtype, x->ndim, s);
}
