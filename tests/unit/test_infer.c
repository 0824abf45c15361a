/*
 * test_infer.c — struct-info inference: every op's rule (results and error
 * messages), symbolic dims, unknown inputs, si_check / si_equal, and
 * infer_module on hand-built functions.
 *
 * Calls are built by hand: variables with a given struct info, and an
 * E_CALL whose attributes start at the op's defaults (op_sig + op_default)
 * and are then set by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

typedef struct {
	Module *m;
	Diags d;
} Fx;

static const Span sp0 = {1, 1, 1};

static int
setup(void **state)
{
	Fx *f = calloc(1, sizeof *f);
	f->m = ir_module_new("t.py", "", 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fx *f = *state;
	diag_clear(&f->d);
	free(f->d.items);
	ir_module_free(f->m);
	free(f);
	return 0;
}

/* A constant dim. */
static PExpr *
I(Fx *f, int64_t v)
{
	return pe_int(&f->m->arena, v);
}

/* A symbolic dim named s. */
static PExpr *
S(Fx *f, const char *s)
{
	return pe_var(&f->m->arena, ir_symvar(f->m, s, sp0));
}

/* A tensor struct info with n dims given as PExpr* varargs (n < 0: none). */
static SInfo *
ten(Fx *f, DType dt, int n, ...)
{
	if (n < 0)
		return si_tensor(&f->m->arena, dt, -1, NULL);
	PExpr **s = ARENA_ARRAY(&f->m->arena, PExpr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s[i] = va_arg(ap, PExpr *);
	va_end(ap);
	return si_tensor(&f->m->arena, dt, n, s);
}

/* A tensor of known ndim and unknown dims. */
static SInfo *
ten_nd(Fx *f, DType dt, int n)
{
	return si_tensor(&f->m->arena, dt, n, NULL);
}

/* A use of a fresh variable of struct info si. */
static Expr *
V(Fx *f, SInfo *si)
{
	Var *v = ir_var(f->m, "x", si, false, sp0);
	return ir_var_ref(f->m, v, sp0);
}

/* R.shape([...]) with n dims. */
static Expr *
SHP(Fx *f, int n, ...)
{
	Expr *e = ir_expr(f->m, E_SHAPE, sp0);
	e->shape.n = n;
	e->shape.values = ARENA_ARRAY(&f->m->arena, PExpr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->shape.values[i] = va_arg(ap, PExpr *);
	va_end(ap);
	return e;
}

/* R.prim_value(v) (int64) */
static Expr *
PRIM(Fx *f, PExpr *v)
{
	Expr *e = ir_expr(f->m, E_PRIM, sp0);
	e->prim.dtype = DT_I64;
	e->prim.value = v;
	return e;
}

/* R.prim_value(T.float32(v)) */
static Expr *
PRIMF(Fx *f, double v)
{
	Expr *e = ir_expr(f->m, E_PRIM, sp0);
	e->prim.dtype = DT_F32;
	e->prim.f = v;
	return e;
}

/* A tuple of n expressions. */
static Expr *
TUP(Fx *f, int n, ...)
{
	Expr *e = ir_expr(f->m, E_TUPLE, sp0);
	e->tuple.n = n;
	e->tuple.items = ARENA_ARRAY(&f->m->arena, Expr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->tuple.items[i] = va_arg(ap, Expr *);
	va_end(ap);
	return e;
}

/* R.NAME(args...) with default attributes; args NULL-terminated. */
static Expr *
CALL(Fx *f, const char *name, ...)
{
	OpKind op = op_lookup(name);
	assert_int_not_equal(op, OP_NONE);
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(f->m, E_CALL, (Span){3, 5, 4});
	e->call.op = op;
	e->call.nargs = sig.nargs;
	e->call.nattrs = sig.nattrs;
	e->call.args = ARENA_ARRAY(&f->m->arena, Expr *, sig.nargs + 1);
	e->call.attrs = ARENA_ARRAY(&f->m->arena, AttrVal, sig.nattrs + 1);
	va_list ap;
	va_start(ap, name);
	for (int i = 0; i < sig.nargs; i++) {
		e->call.args[i] = va_arg(ap, Expr *);
		assert_non_null(e->call.args[i]);
	}
	assert_null(va_arg(ap, Expr *));
	va_end(ap);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr)
			e->call.attrs[sig.params[i].slot] =
				op_default(f->m, &sig.params[i]);
	return e;
}

/* The attribute called name of call e. */
static AttrVal *
A(Expr *e, const char *name)
{
	OpSig sig;
	op_sig(e->call.op, &sig);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr && !strcmp(sig.params[i].name, name))
			return &e->call.attrs[sig.params[i].slot];
	fail_msg("no attribute %s", name);
	return NULL;
}

static void
set_int(Expr *e, const char *name, int64_t v)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_INT;
	a->i = v;
}

static void
set_none(Expr *e, const char *name)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_NONE;
}

static void
set_bool(Expr *e, const char *name, bool v)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_BOOL;
	a->i = v;
}

static void
set_dtype(Expr *e, const char *name, DType t)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_DTYPE;
	a->dtype = t;
}

static void
set_str(Fx *f, Expr *e, const char *name, const char *s)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_STR;
	a->s = arena_strdup(&f->m->arena, s);
}

/* Sets an ints attribute to n values. */
static void
set_ints(Fx *f, Expr *e, const char *name, int n, ...)
{
	AttrVal *a = A(e, name);
	memset(a, 0, sizeof *a);
	a->kind = AV_INTS;
	a->n = n;
	a->ints = ARENA_ARRAY(&f->m->arena, int64_t, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		a->ints[i] = va_arg(ap, int);
	va_end(ap);
}

/* Infers e and expects success without diagnostics. */
static SInfo *
ok(Fx *f, Expr *e)
{
	int before = f->d.nerrors;
	SInfo *si = infer_expr(f->m, e, &f->d);
	if (f->d.nerrors != before)
		fail_msg("unexpected error: %s", f->d.items[f->d.n - 1].msg);
	assert_non_null(si);
	assert_ptr_equal(e->sinfo, si);
	return si;
}

/* Infers e and expects one error whose message contains `msg`. */
static void
err(Fx *f, Expr *e, const char *msg)
{
	int before = f->d.nerrors;
	SInfo *si = infer_expr(f->m, e, &f->d);
	assert_null(si);
	assert_int_equal(f->d.nerrors, before + 1);
	const char *got = f->d.items[f->d.n - 1].msg;
	if (!strstr(got, msg))
		fail_msg("message \"%s\" lacks \"%s\"", got, msg);
	assert_true(f->d.items[f->d.n - 1].span.line > 0);
}

/*
 * Expects a tensor of dtype dt and ndim n; the dims, given as int64 varargs
 * after n, are compared as constants; pass `-99` to skip a dim (symbolic).
 * shape_known false expects unknown dims.
 */
static void
is_tensor(const SInfo *si, DType dt, int n, bool shape_known, ...)
{
	assert_int_equal(si->kind, SI_TENSOR);
	assert_int_equal(si->dtype, dt);
	assert_int_equal(si->ndim, n);
	if (!shape_known) {
		if (n != 0)
			assert_null(si->shape);
		return;
	}
	assert_true(n == 0 || si->shape != NULL);
	va_list ap;
	va_start(ap, shape_known);
	for (int i = 0; i < n; i++) {
		int64_t want = va_arg(ap, int64_t), v;
		if (want == -99)
			continue;
		if (!pe_is_const(si->shape[i], &v))
			fail_msg("dim %d is not a constant", i);
		if (v != want)
			fail_msg("dim %d is %lld, want %lld", i, (long long)v,
				 (long long)want);
	}
	va_end(ap);
}

#define L(x) ((int64_t)(x))

/* ------------------------------------------------------------ binary */

static void
test_binary_broadcast(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "add", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
			      V(f, ten(f, DT_F32, 1, I(f, 3))), NULL));
	is_tensor(r, DT_F32, 2, true, L(2), L(3));
	r = ok(f, CALL(f, "multiply", V(f, ten(f, DT_F32, 3, I(f, 4), I(f, 1), I(f, 3))),
		       V(f, ten(f, DT_F32, 2, I(f, 5), I(f, 1))), NULL));
	is_tensor(r, DT_F32, 3, true, L(4), L(5), L(3));
	/* scalar with tensor */
	r = ok(f, CALL(f, "subtract", V(f, ten(f, DT_F32, 0)),
		       V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 2))), NULL));
	is_tensor(r, DT_F32, 2, true, L(2), L(2));
	err(f, CALL(f, "add", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		    V(f, ten(f, DT_F32, 1, I(f, 4))), NULL),
	    "R.add: cannot broadcast shapes (2, 3) and (4,)");
	err(f, CALL(f, "divide", V(f, ten(f, DT_F32, 1, I(f, 2))),
		    V(f, ten(f, DT_I32, 1, I(f, 2))), NULL),
	    "R.divide: dtypes float32 and int32 differ");
	err(f, CALL(f, "power", V(f, ten(f, DT_F32, 1, I(f, 2))),
		    TUP(f, 0), NULL),
	    "R.power: expects a tensor for x2, got ");
}

static void
test_binary_symbolic(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n"), *m = S(f, "m");
	SInfo *r = ok(f, CALL(f, "add", V(f, ten(f, DT_F32, 2, n, I(f, 4))),
			      V(f, ten(f, DT_F32, 2, I(f, 1), I(f, 4))), NULL));
	is_tensor(r, DT_F32, 2, true, L(-99), L(4));
	assert_ptr_equal(r->shape[0], n);
	r = ok(f, CALL(f, "maximum", V(f, ten(f, DT_F32, 1, n)),
		       V(f, ten(f, DT_F32, 1, n)), NULL));
	assert_ptr_equal(r->shape[0], n);
	/* n vs m: cannot be proven equal or 1 → ndim only, as TVM */
	r = ok(f, CALL(f, "minimum", V(f, ten(f, DT_F32, 2, n, I(f, 3))),
		       V(f, ten(f, DT_F32, 1, m)), NULL));
	is_tensor(r, DT_F32, 2, false);
	/* n vs 3: unknown too */
	r = ok(f, CALL(f, "floor_divide", V(f, ten(f, DT_I64, 1, n)),
		       V(f, ten(f, DT_I64, 1, I(f, 3))), NULL));
	is_tensor(r, DT_I64, 1, false);
	/* a constant mismatch is found even next to an unknown dim */
	err(f, CALL(f, "add", V(f, ten(f, DT_F32, 2, n, I(f, 3))),
		    V(f, ten(f, DT_F32, 2, m, I(f, 4))), NULL),
	    "cannot broadcast");
}

static void
test_binary_unknown(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "add", V(f, ten(f, DT_F32, -1)),
			      V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL));
	is_tensor(r, DT_F32, -1, false);
	r = ok(f, CALL(f, "add", V(f, ten_nd(f, DT_UNKNOWN, 3)),
		       V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL));
	is_tensor(r, DT_UNKNOWN, 3, false);
	/* prim operands */
	r = ok(f, CALL(f, "add", PRIM(f, I(f, 1)), PRIM(f, I(f, 2)), NULL));
	assert_int_equal(r->kind, SI_PRIM);
	assert_int_equal(r->dtype, DT_I64);
	r = ok(f, CALL(f, "multiply", V(f, ten(f, DT_I64, 1, I(f, 5))),
		       PRIM(f, I(f, 2)), NULL));
	is_tensor(r, DT_I64, 1, true, L(5));
}

static void
test_compare_logical(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "less", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
			      V(f, ten(f, DT_F32, 0)), NULL));
	is_tensor(r, DT_BOOL, 2, true, L(2), L(3));
	static const char *const cmps[] = {"equal", "not_equal", "less_equal",
					   "greater", "greater_equal"};
	for (size_t i = 0; i < ARRAY_LEN(cmps); i++) {
		r = ok(f, CALL(f, cmps[i], V(f, ten(f, DT_I32, 1, I(f, 4))),
			       V(f, ten(f, DT_I32, 1, I(f, 4))), NULL));
		is_tensor(r, DT_BOOL, 1, true, L(4));
	}
	err(f, CALL(f, "equal", V(f, ten(f, DT_I32, 1, I(f, 4))),
		    V(f, ten(f, DT_F32, 1, I(f, 4))), NULL),
	    "R.equal: dtypes int32 and float32 differ");
	/* TVM: a bool operand may meet another dtype; the left one's wins */
	r = ok(f, CALL(f, "greater", V(f, ten(f, DT_BOOL, 1, I(f, 4))),
		       V(f, ten(f, DT_F32, 1, I(f, 4))), NULL));
	is_tensor(r, DT_BOOL, 1, true, L(4));
	r = ok(f, CALL(f, "add", V(f, ten(f, DT_F32, 1, I(f, 4))),
		       V(f, ten(f, DT_BOOL, 1, I(f, 4))), NULL));
	is_tensor(r, DT_F32, 1, true, L(4));
	r = ok(f, CALL(f, "logical_and", V(f, ten(f, DT_BOOL, 1, I(f, 4))),
		       V(f, ten(f, DT_BOOL, 2, I(f, 3), I(f, 1))), NULL));
	is_tensor(r, DT_BOOL, 2, true, L(3), L(4));
	r = ok(f, CALL(f, "logical_or", V(f, ten(f, DT_BOOL, 1, I(f, 4))),
		       V(f, ten(f, DT_BOOL, 1, I(f, 4))), NULL));
	is_tensor(r, DT_BOOL, 1, true, L(4));
	err(f, CALL(f, "logical_or", V(f, ten(f, DT_BOOL, 1, I(f, 4))),
		    V(f, ten(f, DT_I32, 1, I(f, 4))), NULL),
	    "R.logical_or: expects bool tensors");
	r = ok(f, CALL(f, "logical_not", V(f, ten(f, DT_BOOL, 1, I(f, 4))), NULL));
	is_tensor(r, DT_BOOL, 1, true, L(4));
	err(f, CALL(f, "logical_not", V(f, ten(f, DT_F32, 1, I(f, 4))), NULL),
	    "R.logical_not: expects a bool tensor");
}

static void
test_where(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "where", V(f, ten(f, DT_BOOL, 2, I(f, 2), I(f, 1))),
			      V(f, ten(f, DT_F32, 1, I(f, 3))),
			      V(f, ten(f, DT_F32, 0)), NULL));
	is_tensor(r, DT_F32, 2, true, L(2), L(3));
	err(f, CALL(f, "where", V(f, ten(f, DT_F32, 1, I(f, 3))),
		    V(f, ten(f, DT_F32, 1, I(f, 3))),
		    V(f, ten(f, DT_F32, 1, I(f, 3))), NULL),
	    "R.where: the condition must be a bool tensor");
	err(f, CALL(f, "where", V(f, ten(f, DT_BOOL, 1, I(f, 2))),
		    V(f, ten(f, DT_F32, 1, I(f, 3))),
		    V(f, ten(f, DT_F32, 1, I(f, 3))), NULL),
	    "R.where: cannot broadcast shapes (2,) and (3,)");
}

/* ------------------------------------------------------------- unary */

static void
test_unary(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n");
	static const char *const any[] = {"negative", "abs", "round", "floor",
					  "ceil", "sign", "nn.relu"};
	for (size_t i = 0; i < ARRAY_LEN(any); i++) {
		SInfo *r = ok(f, CALL(f, any[i], V(f, ten(f, DT_I32, 2, n, I(f, 3))), NULL));
		is_tensor(r, DT_I32, 2, true, L(-99), L(3));
		assert_ptr_equal(r->shape[0], n);
	}
	static const char *const fl[] = {"exp", "log", "sqrt", "rsqrt", "sin",
					 "cos", "tanh", "sigmoid", "erf",
					 "nn.silu", "nn.gelu", "nn.gelu_tanh"};
	for (size_t i = 0; i < ARRAY_LEN(fl); i++) {
		SInfo *r = ok(f, CALL(f, fl[i], V(f, ten(f, DT_F16, 1, I(f, 3))), NULL));
		is_tensor(r, DT_F16, 1, true, L(3));
		r = ok(f, CALL(f, fl[i], V(f, ten(f, DT_UNKNOWN, -1)), NULL));
		is_tensor(r, DT_UNKNOWN, -1, false);
		char want[64];
		snprintf(want, sizeof want, "R.%s: expects a float tensor", fl[i]);
		err(f, CALL(f, fl[i], V(f, ten(f, DT_I64, 1, I(f, 3))), NULL), want);
	}
	err(f, CALL(f, "exp", TUP(f, 1, V(f, ten(f, DT_F32, 0))), NULL),
	    "R.exp: expects a tensor, got ");
	SInfo *r = ok(f, CALL(f, "builtin.stop_lift_params",
			      V(f, ten(f, DT_F32, 1, I(f, 7))), NULL));
	is_tensor(r, DT_F32, 1, true, L(7));
}

static void
test_clip(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "clip", V(f, ten(f, DT_F32, 1, I(f, 3))),
			      PRIMF(f, 0.0), PRIMF(f, 6.0), NULL));
	is_tensor(r, DT_F32, 1, true, L(3));
	err(f, CALL(f, "clip", V(f, ten(f, DT_F32, 1, I(f, 3))),
		    V(f, ten(f, DT_F32, 0)), PRIMF(f, 6.0), NULL),
	    "R.clip: expects a prim value for min");
}

/* ---------------------------------------------------------------- nn */

static void
test_softmax(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "nn.softmax", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	is_tensor(ok(f, e), DT_F32, 2, true, L(2), L(3));
	e = CALL(f, "nn.log_softmax", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_int(e, "axis", 2);
	err(f, e, "R.nn.log_softmax: axis 2 is out of range for a tensor of 2 dimensions");
	e = CALL(f, "nn.softmax", V(f, ten(f, DT_F32, -1)), NULL);
	set_int(e, "axis", 7);
	is_tensor(ok(f, e), DT_F32, -1, false);
	err(f, CALL(f, "nn.softmax", V(f, ten(f, DT_I32, 1, I(f, 2))), NULL),
	    "expects a float tensor");
}

static void
test_norms(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n");
	Expr *e = CALL(f, "nn.rms_norm", V(f, ten(f, DT_F32, 2, n, I(f, 8))),
		       V(f, ten(f, DT_F32, 1, I(f, 8))), NULL);
	is_tensor(ok(f, e), DT_F32, 2, true, L(-99), L(8));
	e = CALL(f, "nn.rms_norm", V(f, ten(f, DT_F32, 2, n, I(f, 8))),
		 V(f, ten(f, DT_F32, 1, I(f, 4))), NULL);
	err(f, e, "R.nn.rms_norm: weight shape (4,) does not match");
	e = CALL(f, "nn.rms_norm", V(f, ten(f, DT_F32, 3, n, I(f, 2), I(f, 8))),
		 V(f, ten(f, DT_F32, 1, I(f, 8))), NULL);
	set_ints(f, e, "axes", 2, 1, 2);
	err(f, e, "R.nn.rms_norm: weight must have 2 dimensions");
	e = CALL(f, "nn.rms_norm", V(f, ten(f, DT_F32, 3, n, I(f, 2), I(f, 8))),
		 V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 8))), NULL);
	set_ints(f, e, "axes", 2, -1, 1);
	is_tensor(ok(f, e), DT_F32, 3, true, L(-99), L(2), L(8));
	e = CALL(f, "nn.rms_norm", V(f, ten(f, DT_F32, 2, n, I(f, 8))),
		 V(f, ten(f, DT_F16, 1, I(f, 8))), NULL);
	err(f, e, "weight has dtype float16 but data has float32");

	e = CALL(f, "nn.layer_norm", V(f, ten(f, DT_F32, 2, I(f, 3), I(f, 8))),
		 V(f, ten(f, DT_F32, 1, I(f, 8))), V(f, ten(f, DT_F32, 1, I(f, 8))),
		 NULL);
	set_ints(f, e, "axes", 1, -1);
	is_tensor(ok(f, e), DT_F32, 2, true, L(3), L(8));
	e = CALL(f, "nn.layer_norm", V(f, ten(f, DT_F32, 2, I(f, 3), I(f, 8))),
		 V(f, ten(f, DT_F32, 1, I(f, 8))), V(f, ten(f, DT_F32, 1, I(f, 3))),
		 NULL);
	set_ints(f, e, "axes", 1, -1);
	err(f, e, "R.nn.layer_norm: beta shape (3,) does not match");
	e = CALL(f, "nn.layer_norm", V(f, ten(f, DT_F32, 2, I(f, 3), I(f, 8))),
		 V(f, ten(f, DT_F32, 1, I(f, 8))), V(f, ten(f, DT_F32, 1, I(f, 8))),
		 NULL);
	set_ints(f, e, "axes", 2, 1, 1);
	err(f, e, "axis 1 appears twice");
}

static void
test_conv2d(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "nn.conv2d",
		       V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 32), I(f, 32))),
		       V(f, ten(f, DT_F32, 4, I(f, 16), I(f, 3), I(f, 3), I(f, 3))),
		       NULL);
	is_tensor(ok(f, e), DT_F32, 4, true, L(1), L(16), L(30), L(30));
	/* stride 2, padding 1 (all sides), dilation 2 */
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 32), I(f, 31))),
		 V(f, ten(f, DT_F32, 4, I(f, 16), I(f, 3), I(f, 3), I(f, 3))), NULL);
	set_ints(f, e, "strides", 1, 2);
	set_ints(f, e, "padding", 1, 1);
	set_ints(f, e, "dilation", 2, 2, 1);
	/* H: (32+2-4-1)//2+1 = 15; W: (31+2-2-1)//2+1 = 16 */
	is_tensor(ok(f, e), DT_F32, 4, true, L(1), L(16), L(15), L(16));
	/* padding (top, left, bottom, right), groups, out_dtype */
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F16, 4, I(f, 2), I(f, 4), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F16, 4, I(f, 6), I(f, 2), I(f, 3), I(f, 3))), NULL);
	set_ints(f, e, "padding", 4, 1, 0, 2, 0);
	set_int(e, "groups", 2);
	set_dtype(e, "out_dtype", DT_F32);
	is_tensor(ok(f, e), DT_F32, 4, true, L(2), L(6), L(9), L(6));
	/* symbolic batch and height */
	PExpr *n = S(f, "n"), *h = S(f, "h");
	e = CALL(f, "nn.conv2d", V(f, ten(f, DT_F32, 4, n, I(f, 3), h, I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 1), I(f, 1))), NULL);
	SInfo *r = ok(f, e);
	is_tensor(r, DT_F32, 4, true, L(-99), L(4), L(-99), L(8));
	assert_ptr_equal(r->shape[0], n);
	/* errors */
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 1), I(f, 1))), NULL);
	set_str(f, e, "data_layout", "NHWC"); /* 8 channels against the weight's 3 */
	err(f, e, "R.nn.conv2d: data has 8 input channels but the weight expects 3");
	set_str(f, e, "data_layout", "NCHV");
	err(f, e, "R.nn.conv2d: data_layout must be a permutation of \"NCHW\"");
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 2), I(f, 1), I(f, 1))), NULL);
	err(f, e, "data has 3 input channels but the weight expects 2");
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 3, I(f, 3), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 1), I(f, 1))), NULL);
	err(f, e, "R.nn.conv2d: data must be 4-D");
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 1), I(f, 1))), NULL);
	set_ints(f, e, "padding", 3, 1, 1, 1);
	err(f, e, "padding must have 1, 2 or 4 values, got 3");
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 3), I(f, 2), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 5), I(f, 1))), NULL);
	err(f, e, "the output height would be -2");
	e = CALL(f, "nn.conv2d",
		 V(f, ten(f, DT_F32, 4, I(f, 1), I(f, 4), I(f, 8), I(f, 8))),
		 V(f, ten(f, DT_F32, 4, I(f, 5), I(f, 2), I(f, 1), I(f, 1))), NULL);
	set_int(e, "groups", 2);
	err(f, e, "5 output channels are not divisible by 2 groups");
	/* unknown data rank */
	e = CALL(f, "nn.conv2d", V(f, ten(f, DT_F32, -1)),
		 V(f, ten(f, DT_F32, 4, I(f, 4), I(f, 3), I(f, 1), I(f, 1))), NULL);
	is_tensor(ok(f, e), DT_F32, 4, false);
}

/* ------------------------------------------------------------ matmul */

static void
test_matmul(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 4))),
			      V(f, ten(f, DT_F32, 2, I(f, 4), I(f, 5))), NULL));
	is_tensor(r, DT_F32, 2, true, L(2), L(5));
	err(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 4))),
		    V(f, ten(f, DT_F32, 2, I(f, 5), I(f, 5))), NULL),
	    "R.matmul: inner dimensions differ: 4 vs 5");
	/* batch broadcasting */
	r = ok(f, CALL(f, "matmul",
		       V(f, ten(f, DT_F32, 4, I(f, 3), I(f, 1), I(f, 2), I(f, 4))),
		       V(f, ten(f, DT_F32, 3, I(f, 7), I(f, 4), I(f, 5))), NULL));
	is_tensor(r, DT_F32, 4, true, L(3), L(7), L(2), L(5));
	err(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 3, I(f, 3), I(f, 2), I(f, 4))),
		    V(f, ten(f, DT_F32, 3, I(f, 2), I(f, 4), I(f, 5))), NULL),
	    "R.matmul: cannot broadcast shapes (3,) and (2,)");
	/* 1-D rules */
	r = ok(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 1, I(f, 4))),
		       V(f, ten(f, DT_F32, 2, I(f, 4), I(f, 5))), NULL));
	is_tensor(r, DT_F32, 1, true, L(5));
	r = ok(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 3, I(f, 6), I(f, 2), I(f, 4))),
		       V(f, ten(f, DT_F32, 1, I(f, 4))), NULL));
	is_tensor(r, DT_F32, 2, true, L(6), L(2));
	r = ok(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 1, I(f, 4))),
		       V(f, ten(f, DT_F32, 1, I(f, 4))), NULL));
	is_tensor(r, DT_F32, 0, true);
	err(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 1, I(f, 3))),
		    V(f, ten(f, DT_F32, 1, I(f, 4))), NULL),
	    "inner dimensions differ: 3 vs 4");
	err(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 0)),
		    V(f, ten(f, DT_F32, 1, I(f, 4))), NULL),
	    "R.matmul: expects tensors of at least one dimension");
	/* symbolic, out_dtype, unknown */
	PExpr *n = S(f, "n");
	Expr *e = CALL(f, "matmul", V(f, ten(f, DT_F16, 2, n, I(f, 4))),
		       V(f, ten(f, DT_F16, 2, I(f, 4), I(f, 4))), NULL);
	set_dtype(e, "out_dtype", DT_F32);
	r = ok(f, e);
	is_tensor(r, DT_F32, 2, true, L(-99), L(4));
	assert_ptr_equal(r->shape[0], n);
	r = ok(f, CALL(f, "matmul", V(f, ten(f, DT_F32, -1)),
		       V(f, ten(f, DT_F32, 2, I(f, 4), I(f, 4))), NULL));
	is_tensor(r, DT_F32, -1, false);
	r = ok(f, CALL(f, "matmul", V(f, ten_nd(f, DT_F32, 3)),
		       V(f, ten(f, DT_F32, 1, I(f, 4))), NULL));
	is_tensor(r, DT_F32, 2, false);
	err(f, CALL(f, "matmul", V(f, ten(f, DT_F32, 1, I(f, 4))),
		    V(f, ten(f, DT_I8, 1, I(f, 4))), NULL),
	    "R.matmul: dtypes float32 and int8 differ");
}

/* ------------------------------------------------------- manipulation */

static void
test_permute_dims(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n");
	SInfo *r = ok(f, CALL(f, "permute_dims",
			      V(f, ten(f, DT_F32, 3, n, I(f, 3), I(f, 4))), NULL));
	is_tensor(r, DT_F32, 3, true, L(4), L(3), L(-99));
	assert_ptr_equal(r->shape[2], n);
	Expr *e = CALL(f, "permute_dims", V(f, ten(f, DT_F32, 3, n, I(f, 3), I(f, 4))), NULL);
	set_ints(f, e, "axes", 3, 0, -1, 1);
	is_tensor(ok(f, e), DT_F32, 3, true, L(-99), L(4), L(3));
	e = CALL(f, "permute_dims", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axes", 2, 0, 0);
	err(f, e, "R.permute_dims: axes [0, 0] is not a permutation of 2 dimensions");
	e = CALL(f, "permute_dims", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axes", 1, 0);
	err(f, e, "axes [0] is not a permutation of 2 dimensions");
	e = CALL(f, "permute_dims", V(f, ten(f, DT_F32, -1)), NULL);
	set_ints(f, e, "axes", 2, 1, 0);
	is_tensor(ok(f, e), DT_F32, 2, false);
}

static void
test_reshape(void **state)
{
	Fx *f = *state;
	SInfo *r = ok(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 6))),
			      SHP(f, 3, I(f, 3), I(f, -1), I(f, 2)), NULL));
	is_tensor(r, DT_F32, 3, true, L(3), L(2), L(2));
	/* the shape from a variable of R.Shape struct info */
	Expr *sv = V(f, si_shape(&f->m->arena, 1, (PExpr *[]){I(f, 12)}));
	r = ok(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 6))), sv,
		       NULL));
	is_tensor(r, DT_F32, 1, true, L(12));
	err(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		    SHP(f, 2, I(f, 4), I(f, 2)), NULL),
	    "R.reshape: cannot reshape (2, 3) of 6 elements into (4, 2) of 8 elements");
	err(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		    SHP(f, 2, I(f, 4), I(f, -1)), NULL),
	    "cannot reshape (2, 3) of 6 elements into (4, -1)");
	err(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		    SHP(f, 2, I(f, -1), I(f, -1)), NULL),
	    "only one -1 is allowed");
	err(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		    V(f, ten(f, DT_I64, 1, I(f, 2))), NULL),
	    "R.reshape: expects a shape for shape");
	/* symbolic: kept, no provable mismatch */
	PExpr *n = S(f, "n");
	r = ok(f, CALL(f, "reshape", V(f, ten(f, DT_F32, 2, n, I(f, 4))),
		       SHP(f, 2, n, I(f, 4)), NULL));
	assert_ptr_equal(r->shape[0], n);
	r = ok(f, CALL(f, "reshape", V(f, ten(f, DT_F32, -1)),
		       SHP(f, 2, I(f, 3), I(f, -1)), NULL));
	is_tensor(r, DT_F32, 2, false);
	r = ok(f, CALL(f, "reshape", V(f, ten(f, DT_F32, -1)),
		       V(f, si_shape(&f->m->arena, 3, NULL)), NULL));
	is_tensor(r, DT_F32, 3, false);
}

static void
test_astype(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "astype", V(f, ten(f, DT_F32, 1, I(f, 3))), NULL);
	set_dtype(e, "dtype", DT_F16);
	is_tensor(ok(f, e), DT_F16, 1, true, L(3));
	e = CALL(f, "astype", TUP(f, 1, V(f, ten(f, DT_F32, 0))), NULL);
	set_dtype(e, "dtype", DT_F16);
	err(f, e, "R.astype: expects a tensor, got ");
}

static void
test_concat(void **state)
{
	Fx *f = *state;
	Expr *t = TUP(f, 2, V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		      V(f, ten(f, DT_F32, 2, I(f, 4), I(f, 3))));
	is_tensor(ok(f, CALL(f, "concat", t, NULL)), DT_F32, 2, true, L(6), L(3));
	Expr *e = CALL(f, "concat",
		       TUP(f, 2, V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
			   V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 5)))), NULL);
	set_int(e, "axis", -1);
	is_tensor(ok(f, e), DT_F32, 2, true, L(2), L(8));
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		     V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 5)))), NULL);
	err(f, e, "R.concat: shapes (2, 3) and (2, 5) differ outside axis 0");
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		     V(f, ten(f, DT_F32, 1, I(f, 2)))), NULL);
	err(f, e, "tensors have 2 and 1 dimensions");
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, 1, I(f, 2))),
		     V(f, ten(f, DT_I32, 1, I(f, 2)))), NULL);
	err(f, e, "R.concat: dtypes float32 and int32 differ");
	err(f, CALL(f, "concat", V(f, ten(f, DT_F32, 1, I(f, 2))), NULL),
	    "R.concat: expects a tuple of tensors");
	/* axis None flattens */
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))),
		     V(f, ten(f, DT_F32, 1, I(f, 4)))), NULL);
	set_none(e, "axis");
	is_tensor(ok(f, e), DT_F32, 1, true, L(10));
	/* symbolic: n + 3 along axis 0 (not simplified by the stub) */
	PExpr *n = S(f, "n"), *m = S(f, "m");
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, 2, n, I(f, 3))),
		     V(f, ten(f, DT_F32, 2, I(f, 1), m))), NULL);
	is_tensor(ok(f, e), DT_F32, 2, false);
	e = CALL(f, "concat",
		 TUP(f, 2, V(f, ten(f, DT_F32, -1)), V(f, ten(f, DT_F32, 1, I(f, 1)))),
		 NULL);
	is_tensor(ok(f, e), DT_F32, 1, false);
}

static void
test_split(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "split", V(f, ten(f, DT_F32, 2, I(f, 6), I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 3);
	SInfo *r = ok(f, e);
	assert_int_equal(r->kind, SI_TUPLE);
	assert_int_equal(r->nfields, 3);
	for (int i = 0; i < 3; i++)
		is_tensor(r->fields[i], DT_F32, 2, true, L(2), L(4));
	e = CALL(f, "split", V(f, ten(f, DT_F32, 2, I(f, 6), I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 4);
	r = ok(f, e); /* TVM: ceildiv(6, 4) = 2 each, the last what is left */
	assert_int_equal(r->nfields, 4);
	is_tensor(r->fields[0], DT_F32, 2, true, L(2), L(4));
	is_tensor(r->fields[3], DT_F32, 2, true, L(0), L(4));
	e = CALL(f, "split", V(f, ten(f, DT_F32, 2, I(f, 10), I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 3);
	r = ok(f, e);
	is_tensor(r->fields[1], DT_F32, 2, true, L(4), L(4));
	is_tensor(r->fields[2], DT_F32, 2, true, L(2), L(4));
	e = CALL(f, "split", V(f, ten(f, DT_F32, 2, I(f, 5), I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 4);
	err(f, e, "R.split: axis 0 of length 5 does not split into 4 sections");
	e = CALL(f, "split", V(f, ten(f, DT_F32, 2, I(f, 6), I(f, 10))), NULL);
	set_ints(f, e, "indices_or_sections", 2, 2, 7);
	set_int(e, "axis", -1);
	r = ok(f, e);
	assert_int_equal(r->nfields, 3);
	is_tensor(r->fields[0], DT_F32, 2, true, L(6), L(2));
	is_tensor(r->fields[1], DT_F32, 2, true, L(6), L(5));
	is_tensor(r->fields[2], DT_F32, 2, true, L(6), L(3));
	e = CALL(f, "split", V(f, ten(f, DT_F32, 1, I(f, 4))), NULL);
	set_ints(f, e, "indices_or_sections", 2, 2, 9);
	r = ok(f, e);
	is_tensor(r->fields[1], DT_F32, 1, true, L(2));
	is_tensor(r->fields[2], DT_F32, 1, true, L(0));
	e = CALL(f, "split", V(f, ten(f, DT_F32, 1, I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 2);
	set_int(e, "axis", 1);
	err(f, e, "R.split: axis 1 is out of range for a tensor of 1 dimension");
	e = CALL(f, "split", V(f, ten(f, DT_F32, -1)), NULL);
	set_int(e, "indices_or_sections", 2);
	r = ok(f, e);
	assert_int_equal(r->nfields, 2);
	is_tensor(r->fields[1], DT_F32, -1, false);
	e = CALL(f, "split", V(f, ten(f, DT_F32, 1, I(f, 4))), NULL);
	set_int(e, "indices_or_sections", 0);
	err(f, e, "the number of sections must be positive");
}

static void
test_strided_slice(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "strided_slice",
		       V(f, ten(f, DT_F32, 2, I(f, 10), I(f, 8))), NULL);
	set_ints(f, e, "axes", 2, 0, 1);
	set_ints(f, e, "begin", 2, 1, -3);
	set_ints(f, e, "end", 2, 100, 8);
	is_tensor(ok(f, e), DT_F32, 2, true, L(9), L(3));
	/* strides, negative stride */
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 2, I(f, 10), I(f, 8))), NULL);
	set_ints(f, e, "axes", 2, 0, -1);
	set_ints(f, e, "begin", 2, 0, 7);
	set_ints(f, e, "end", 2, 10, -100);
	set_ints(f, e, "strides", 2, 3, -2);
	is_tensor(ok(f, e), DT_F32, 2, true, L(4), L(4));
	/* symbolic: whole axis keeps n; partial is unknown */
	PExpr *n = S(f, "n");
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 2, n, I(f, 8))), NULL);
	set_ints(f, e, "axes", 2, 0, 1);
	set_ints(f, e, "begin", 2, 0, 2);
	set_ints(f, e, "end", 2, INT32_MAX, 4);
	SInfo *r = ok(f, e);
	is_tensor(r, DT_F32, 2, true, L(-99), L(2));
	assert_ptr_equal(r->shape[0], n);
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 2, n, I(f, 8))), NULL);
	set_ints(f, e, "axes", 1, 0);
	set_ints(f, e, "begin", 1, 1);
	set_ints(f, e, "end", 1, 3);
	is_tensor(ok(f, e), DT_F32, 2, false);
	set_bool(e, "assume_inbound", true);
	is_tensor(ok(f, e), DT_F32, 2, true, L(2), L(8));
	/* errors */
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 1, I(f, 8))), NULL);
	set_ints(f, e, "axes", 1, 0);
	set_ints(f, e, "begin", 2, 0, 1);
	set_ints(f, e, "end", 1, 3);
	err(f, e, "R.strided_slice: axes, begin, end must have the same length, got 1, 2, 1");
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 1, I(f, 8))), NULL);
	set_ints(f, e, "axes", 1, 1);
	set_ints(f, e, "begin", 1, 0);
	set_ints(f, e, "end", 1, 3);
	err(f, e, "axis 1 is out of range");
	e = CALL(f, "strided_slice", V(f, ten(f, DT_F32, 1, I(f, 8))), NULL);
	set_ints(f, e, "axes", 1, 0);
	set_ints(f, e, "begin", 1, 0);
	set_ints(f, e, "end", 1, 3);
	set_ints(f, e, "strides", 1, 0);
	err(f, e, "strides must not be 0");
}

static void
test_take(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		       V(f, ten(f, DT_I64, 2, I(f, 2), I(f, 5))), NULL);
	set_int(e, "axis", 0);
	is_tensor(ok(f, e), DT_F32, 3, true, L(2), L(5), L(16));
	e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		 V(f, ten(f, DT_I32, 1, I(f, 3))), NULL);
	set_int(e, "axis", -1);
	is_tensor(ok(f, e), DT_F32, 2, true, L(100), L(3));
	e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		 V(f, ten(f, DT_I32, 1, I(f, 3))), NULL);
	is_tensor(ok(f, e), DT_F32, 1, true, L(3)); /* axis None */
	e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		 V(f, ten(f, DT_F32, 1, I(f, 3))), NULL);
	set_int(e, "axis", 0);
	err(f, e, "R.take: indices must be integers");
	e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		 V(f, ten(f, DT_I32, 1, I(f, 3))), NULL);
	set_int(e, "axis", 2);
	err(f, e, "R.take: axis 2 is out of range");
	e = CALL(f, "take", V(f, ten(f, DT_F32, 2, I(f, 100), I(f, 16))),
		 PRIM(f, I(f, 4)), NULL);
	set_int(e, "axis", 0);
	is_tensor(ok(f, e), DT_F32, 1, true, L(16));
}

static void
test_expand_squeeze(void **state)
{
	Fx *f = *state;
	Expr *e = CALL(f, "expand_dims", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axis", 2, 0, -1);
	is_tensor(ok(f, e), DT_F32, 4, true, L(1), L(2), L(3), L(1));
	e = CALL(f, "expand_dims", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axis", 1, 3);
	err(f, e, "R.expand_dims: axis 3 is out of range for a tensor of 3 dimensions");
	e = CALL(f, "expand_dims", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axis", 2, 1, -3);
	err(f, e, "appears twice");

	PExpr *n = S(f, "n");
	e = CALL(f, "squeeze", V(f, ten(f, DT_F32, 4, I(f, 1), n, I(f, 1), I(f, 3))), NULL);
	SInfo *r = ok(f, e);
	is_tensor(r, DT_F32, 2, true, L(-99), L(3));
	assert_ptr_equal(r->shape[0], n);
	e = CALL(f, "squeeze", V(f, ten(f, DT_F32, 3, I(f, 1), n, I(f, 3))), NULL);
	set_ints(f, e, "axis", 1, 1);
	is_tensor(ok(f, e), DT_F32, 2, true, L(1), L(3)); /* n assumed 1 */
	e = CALL(f, "squeeze", V(f, ten(f, DT_F32, 3, I(f, 1), n, I(f, 3))), NULL);
	set_ints(f, e, "axis", 2, 0, -1); /* TVM skips axis 2, of length 3 */
	r = ok(f, e);
	is_tensor(r, DT_F32, 2, true, L(-99), L(3));
	assert_ptr_equal(r->shape[0], n);
	e = CALL(f, "squeeze", V(f, ten_nd(f, DT_F32, 3)), NULL);
	is_tensor(ok(f, e), DT_F32, -1, false);
	e = CALL(f, "squeeze", V(f, ten_nd(f, DT_F32, 3)), NULL);
	set_ints(f, e, "axis", 1, 0);
	is_tensor(ok(f, e), DT_F32, 2, false);
}

static void
test_broadcast_to_flatten(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n");
	Expr *e = CALL(f, "broadcast_to", V(f, ten(f, DT_F32, 2, I(f, 1), I(f, 3))),
		       SHP(f, 3, n, I(f, 4), I(f, 3)), NULL);
	SInfo *r = ok(f, e);
	is_tensor(r, DT_F32, 3, true, L(-99), L(4), L(3));
	assert_ptr_equal(r->shape[0], n);
	err(f, CALL(f, "broadcast_to", V(f, ten(f, DT_F32, 1, I(f, 2))),
		    SHP(f, 2, I(f, 4), I(f, 3)), NULL),
	    "R.broadcast_to: cannot broadcast shape (2,) to (4, 3)");
	err(f, CALL(f, "broadcast_to", V(f, ten(f, DT_F32, 2, I(f, 1), I(f, 2))),
		    SHP(f, 1, I(f, 2)), NULL),
	    "cannot broadcast a tensor of 2 dimensions to 1 dimensions");
	r = ok(f, CALL(f, "flatten", V(f, ten(f, DT_F32, 3, I(f, 2), I(f, 3), I(f, 4))),
		       NULL));
	is_tensor(r, DT_F32, 1, true, L(24));
	r = ok(f, CALL(f, "flatten", V(f, ten(f, DT_F32, 0)), NULL));
	is_tensor(r, DT_F32, 1, true, L(1));
	r = ok(f, CALL(f, "flatten", V(f, ten(f, DT_F32, -1)), NULL));
	is_tensor(r, DT_F32, 1, false);
	r = ok(f, CALL(f, "flatten", V(f, ten(f, DT_F32, 1, n)), NULL));
	assert_ptr_equal(r->shape[0], n);
}

/* --------------------------------------------------------- reductions */

static void
test_reductions(void **state)
{
	Fx *f = *state;
	static const char *const ops[] = {"sum", "mean", "max", "min", "prod"};
	for (size_t i = 0; i < ARRAY_LEN(ops); i++) {
		Expr *e = CALL(f, ops[i], V(f, ten(f, DT_F32, 3, I(f, 2), I(f, 3), I(f, 4))), NULL);
		is_tensor(ok(f, e), DT_F32, 0, true);
	}
	Expr *e = CALL(f, "sum", V(f, ten(f, DT_F32, 3, I(f, 2), I(f, 3), I(f, 4))), NULL);
	set_ints(f, e, "axis", 2, -1, 0);
	is_tensor(ok(f, e), DT_F32, 1, true, L(3));
	set_bool(e, "keepdims", true);
	is_tensor(ok(f, e), DT_F32, 3, true, L(1), L(3), L(1));
	e = CALL(f, "mean", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_bool(e, "keepdims", true);
	is_tensor(ok(f, e), DT_F32, 2, true, L(1), L(1));
	e = CALL(f, "max", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axis", 2, 1, -1);
	err(f, e, "R.max: axis -1 appears twice in [1, -1]");
	e = CALL(f, "prod", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_ints(f, e, "axis", 1, 2);
	err(f, e, "R.prod: axis 2 is out of range");
	e = CALL(f, "sum", V(f, ten(f, DT_F32, -1)), NULL);
	is_tensor(ok(f, e), DT_F32, 0, true);
	e = CALL(f, "sum", V(f, ten(f, DT_F32, -1)), NULL);
	set_ints(f, e, "axis", 1, 0);
	is_tensor(ok(f, e), DT_F32, -1, false);
	e = CALL(f, "min", V(f, ten_nd(f, DT_F32, 3)), NULL);
	set_ints(f, e, "axis", 1, 0);
	is_tensor(ok(f, e), DT_F32, 2, false);

	e = CALL(f, "argmax", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	is_tensor(ok(f, e), DT_I64, 0, true);
	e = CALL(f, "argmin", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_int(e, "axis", 1);
	set_bool(e, "keepdims", true);
	is_tensor(ok(f, e), DT_I64, 2, true, L(2), L(1));
	e = CALL(f, "argmax", V(f, ten(f, DT_F32, 2, I(f, 2), I(f, 3))), NULL);
	set_int(e, "axis", -3);
	err(f, e, "R.argmax: axis -3 is out of range");
	err(f, CALL(f, "argmin", TUP(f, 0), NULL), "R.argmin: expects a tensor");
}

/* ----------------------------------------------------------- creation */

static void
test_creation(void **state)
{
	Fx *f = *state;
	PExpr *n = S(f, "n");
	Expr *e = CALL(f, "zeros", SHP(f, 2, n, I(f, 3)), NULL);
	set_dtype(e, "dtype", DT_F16);
	SInfo *r = ok(f, e);
	is_tensor(r, DT_F16, 2, true, L(-99), L(3));
	assert_ptr_equal(r->shape[0], n);
	e = CALL(f, "ones", SHP(f, 1, I(f, -2)), NULL);
	set_dtype(e, "dtype", DT_F32);
	err(f, e, "R.ones: negative dimension in shape (-2,)");
	e = CALL(f, "ones", V(f, ten(f, DT_I64, 1, I(f, 2))), NULL);
	set_dtype(e, "dtype", DT_F32);
	err(f, e, "R.ones: expects a shape for shape");

	e = CALL(f, "full", SHP(f, 2, I(f, 2), I(f, 3)), V(f, ten(f, DT_I32, 0)), NULL);
	is_tensor(ok(f, e), DT_I32, 2, true, L(2), L(3));
	set_dtype(e, "dtype", DT_F32);
	is_tensor(ok(f, e), DT_F32, 2, true, L(2), L(3));
	e = CALL(f, "full", SHP(f, 1, I(f, 2)), V(f, ten(f, DT_I32, 1, I(f, 2))), NULL);
	err(f, e, "R.full: fill_value must be a scalar tensor");

	e = CALL(f, "zeros_like", V(f, ten(f, DT_F32, 1, I(f, 5))), NULL);
	is_tensor(ok(f, e), DT_F32, 1, true, L(5));
	e = CALL(f, "ones_like", V(f, ten(f, DT_F32, 1, I(f, 5))), NULL);
	set_dtype(e, "dtype", DT_I8);
	is_tensor(ok(f, e), DT_I8, 1, true, L(5));
	err(f, CALL(f, "zeros_like", SHP(f, 1, I(f, 2)), NULL),
	    "R.zeros_like: expects a tensor");
	e = CALL(f, "full_like", V(f, ten(f, DT_F32, 1, I(f, 5))),
		 V(f, ten(f, DT_F32, 0)), NULL);
	is_tensor(ok(f, e), DT_F32, 1, true, L(5));
	e = CALL(f, "full_like", V(f, ten(f, DT_F32, 1, I(f, 5))),
		 V(f, ten(f, DT_F32, 2, I(f, 1), I(f, 1))), NULL);
	err(f, e, "R.full_like: fill_value must be a scalar tensor");

	e = CALL(f, "arange", PRIM(f, I(f, 0)), PRIM(f, I(f, 10)), PRIM(f, I(f, 3)), NULL);
	is_tensor(ok(f, e), DT_I64, 1, true, L(4));
	e = CALL(f, "arange", PRIMF(f, 0.0), PRIMF(f, 1.0), PRIMF(f, 0.25), NULL);
	set_dtype(e, "dtype", DT_F32);
	is_tensor(ok(f, e), DT_F32, 1, true, L(4));
	e = CALL(f, "arange", PRIM(f, I(f, 5)), PRIM(f, I(f, 1)), PRIM(f, I(f, 1)), NULL);
	is_tensor(ok(f, e), DT_I64, 1, true, L(0));
	e = CALL(f, "arange", PRIM(f, I(f, 5)), PRIM(f, I(f, 1)), PRIM(f, I(f, -2)), NULL);
	is_tensor(ok(f, e), DT_I64, 1, true, L(2));
	e = CALL(f, "arange", PRIM(f, I(f, 0)), PRIM(f, n), PRIM(f, I(f, 1)), NULL);
	r = ok(f, e);
	assert_ptr_equal(r->shape[0], n);
	e = CALL(f, "arange", PRIM(f, I(f, 0)), PRIM(f, I(f, 4)), PRIM(f, I(f, 0)), NULL);
	err(f, e, "R.arange: step must not be 0");
	e = CALL(f, "arange", PRIM(f, I(f, 0)), V(f, ten(f, DT_I64, 0)), PRIM(f, I(f, 1)), NULL);
	err(f, e, "R.arange: expects a prim value for end");
}

/* ---------------------------------------------------- check / equal */

static void
test_si_check(void **state)
{
	Fx *f = *state;
	Module *m = f->m;
	PExpr *n = S(f, "n"), *k = S(f, "k");
	SInfo *a23 = ten(f, DT_F32, 2, I(f, 2), I(f, 3));
	SInfo *b23 = ten(f, DT_F32, 2, I(f, 2), I(f, 3));
	SInfo *a32 = ten(f, DT_F32, 2, I(f, 3), I(f, 2));
	assert_int_equal(si_check(m, a23, b23), SI_PROVEN);
	assert_int_equal(si_check(m, a23, a32), SI_FAIL);
	assert_int_equal(si_check(m, ten_nd(f, DT_F32, 2), a23), SI_PROVEN);
	assert_int_equal(si_check(m, a23, ten_nd(f, DT_F32, 2)), SI_UNKNOWN);
	assert_int_equal(si_check(m, a23, ten(f, DT_F32, -1)), SI_UNKNOWN);
	assert_int_equal(si_check(m, a23, ten_nd(f, DT_F32, 3)), SI_FAIL);
	assert_int_equal(si_check(m, a23, ten(f, DT_UNKNOWN, 2, I(f, 2), I(f, 3))),
			 SI_UNKNOWN);
	assert_int_equal(si_check(m, a23, ten(f, DT_F16, 2, I(f, 2), I(f, 3))),
			 SI_FAIL);
	assert_int_equal(si_check(m, ten(f, DT_F32, 2, n, I(f, 3)), a23), SI_UNKNOWN);
	assert_int_equal(si_check(m, ten(f, DT_F32, 2, n, I(f, 3)),
				  ten(f, DT_F32, 2, n, I(f, 3))), SI_PROVEN);
	assert_int_equal(si_check(m, ten(f, DT_F32, 1, n), ten(f, DT_F32, 1, k)),
			 SI_UNKNOWN);
	assert_int_equal(si_check(m, si_object(&m->arena), a23), SI_PROVEN);
	assert_int_equal(si_check(m, a23, si_object(&m->arena)), SI_UNKNOWN);
	assert_int_equal(si_check(m, a23, si_shape(&m->arena, 2, NULL)), SI_FAIL);
	SInfo *t1 = si_tuple(&m->arena, (SInfo *[]){a23, ten_nd(f, DT_F32, 2)}, 2);
	SInfo *t2 = si_tuple(&m->arena, (SInfo *[]){b23, a32}, 2);
	assert_int_equal(si_check(m, t1, t2), SI_PROVEN);
	assert_int_equal(si_check(m, t2, t1), SI_UNKNOWN);
	assert_int_equal(si_check(m, t1, si_tuple(&m->arena, (SInfo *[]){a23}, 1)),
			 SI_FAIL);
	assert_int_equal(si_check(m, si_prim(&m->arena, DT_I64, NULL),
				  si_prim(&m->arena, DT_I64, I(f, 3))), SI_PROVEN);
	assert_int_equal(si_check(m, si_prim(&m->arena, DT_I64, I(f, 4)),
				  si_prim(&m->arena, DT_I64, I(f, 3))), SI_FAIL);
	assert_int_equal(si_check(m, si_shape(&m->arena, 1, (PExpr *[]){n}),
				  si_shape(&m->arena, 1, (PExpr *[]){I(f, 3)})),
			 SI_UNKNOWN);

	assert_true(si_equal(m, a23, b23));
	assert_false(si_equal(m, a23, a32));
	assert_false(si_equal(m, a23, ten_nd(f, DT_F32, 2)));
	assert_true(si_equal(m, ten_nd(f, DT_F32, 2), ten_nd(f, DT_F32, 2)));
	assert_true(si_equal(m, ten(f, DT_F32, 0), ten(f, DT_F32, 0)));
	assert_true(si_equal(m, t2, si_tuple(&m->arena, (SInfo *[]){a23, a32}, 2)));
	assert_false(si_equal(m, t1, t2));
	assert_false(si_equal(m, si_object(&m->arena), a23));
}

/* ------------------------------------------------------------ module */

/* A block of n bindings. */
static Block *
block(Fx *f, bool dataflow, int n, ...)
{
	Block *b = ARENA_NEW(&f->m->arena, Block);
	b->dataflow = dataflow;
	b->n = n;
	b->bindings = ARENA_ARRAY(&f->m->arena, Binding *, n);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		b->bindings[i] = va_arg(ap, Binding *);
	va_end(ap);
	return b;
}

/* E_SEQ of one block and a body. */
static Expr *
seq(Fx *f, Block *b, Expr *body)
{
	Expr *e = ir_expr(f->m, E_SEQ, sp0);
	e->seq.nblocks = 1;
	e->seq.blocks = ARENA_ARRAY(&f->m->arena, Block *, 1);
	e->seq.blocks[0] = b;
	e->seq.body = body;
	return e;
}

/* Adds function `name` with the given params, body and return. */
static Func *
add_func(Fx *f, const char *name, int np, Var **params, Expr *body, SInfo *ret)
{
	Module *m = f->m;
	Func *fn = ARENA_NEW(&m->arena, Func);
	fn->name = arena_strdup(&m->arena, name);
	fn->nparams = np;
	fn->params = params;
	fn->body = body;
	fn->ret = ret;
	fn->pure = true;
	fn->span = sp0;
	Func **fs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	for (int i = 0; i < m->nfuncs; i++)
		fs[i] = m->funcs[i];
	fs[m->nfuncs++] = fn;
	m->funcs = fs;
	return fn;
}

static void
test_module(void **state)
{
	Fx *f = *state;
	Module *m = f->m;
	PExpr *n = S(f, "n");
	/* def f(x: R.Tensor((n, 4), "float32"), w: R.Tensor((4, 4), "float32")):
	 *     lv = R.permute_dims(w)
	 *     gv = R.matmul(x, lv)
	 *     bad: R.Tensor((4, n), "float32") = R.add(gv, gv)   -- mismatch? no: unknown
	 *     bad2: R.Tensor((2, 3), "float32") = R.flatten(w)    -- FAIL
	 *     after = R.exp(bad2)
	 *     return gv */
	Var *x = ir_var(m, "x", ten(f, DT_F32, 2, n, I(f, 4)), false, sp0);
	Var *w = ir_var(m, "w", ten(f, DT_F32, 2, I(f, 4), I(f, 4)), false, sp0);
	Var *lv = ir_var(m, "lv", NULL, true, sp0);
	Var *gv = ir_var(m, "gv", NULL, false, sp0);
	Var *un = ir_var(m, "un", ten(f, DT_F32, 2, I(f, 4), n), false, sp0);
	Var *bad = ir_var(m, "bad", ten(f, DT_F32, 2, I(f, 2), I(f, 3)), false, sp0);
	Var *after = ir_var(m, "after", NULL, false, sp0);
	Binding *b1 = ir_binding(m, lv, CALL(f, "permute_dims", ir_var_ref(m, w, sp0), NULL), sp0);
	Binding *b2 = ir_binding(m, gv, CALL(f, "matmul", ir_var_ref(m, x, sp0),
					     ir_var_ref(m, lv, sp0), NULL), sp0);
	Binding *b3 = ir_binding(m, un, CALL(f, "add", ir_var_ref(m, gv, sp0),
					     ir_var_ref(m, gv, sp0), NULL), sp0);
	b3->annotated = true;
	Binding *b4 = ir_binding(m, bad, CALL(f, "flatten", ir_var_ref(m, w, sp0), NULL),
				 (Span){7, 9, 3});
	b4->annotated = true;
	Binding *b5 = ir_binding(m, after, CALL(f, "exp", ir_var_ref(m, bad, sp0), NULL), sp0);
	Var **ps = ARENA_ARRAY(&m->arena, Var *, 2);
	ps[0] = x;
	ps[1] = w;
	Func *fn = add_func(f, "main", 2, ps,
			    seq(f, block(f, false, 5, b1, b2, b3, b4, b5),
				ir_var_ref(m, gv, sp0)), NULL);
	assert_int_equal(infer_module(m, &f->d), 1);
	assert_int_equal(f->d.items[f->d.n - 1].span.line, 7);
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "annotation "));
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, " does not match the value's "));
	is_tensor(lv->sinfo, DT_F32, 2, true, L(4), L(4));
	is_tensor(gv->sinfo, DT_F32, 2, true, L(-99), L(4));
	assert_ptr_equal(gv->sinfo->shape[0], n);
	/* annotations are kept */
	is_tensor(un->sinfo, DT_F32, 2, true, L(4), L(-99));
	is_tensor(bad->sinfo, DT_F32, 2, true, L(2), L(3));
	is_tensor(after->sinfo, DT_F32, 2, true, L(2), L(3));
	assert_non_null(b2->value->sinfo);
	/* the return is the body's */
	assert_true(si_equal(m, fn->ret, gv->sinfo));
}

static void
test_module_calls_if_cast(void **state)
{
	Fx *f = *state;
	Module *m = f->m;
	/* def g(a: R.Tensor((k,), "float32")) -> R.Tensor((k,), "float32"): return a */
	PExpr *k = S(f, "k");
	Var *a = ir_var(m, "a", ten(f, DT_F32, 1, k), false, sp0);
	Var **gp = ARENA_ARRAY(&m->arena, Var *, 1);
	gp[0] = a;
	Expr *gbody = seq(f, block(f, false, 0), ir_var_ref(m, a, sp0));
	gbody->seq.nblocks = 0;
	add_func(f, "g", 1, gp, gbody, ten(f, DT_F32, 1, k));

	/* def main(x: R.Tensor((5,), "float32"), c: R.Tensor((), "bool")):
	 *     y = cls.g(x)
	 *     z = if c: y  else: R.zeros(R.shape([5]), "float32")
	 *     t = (y, z); u = t[1]; bad = t[2]
	 *     q = R.match_cast(x, R.Tensor((m,), "float32"))
	 *     r = R.match_cast(x, R.Shape(ndim=1))    -- error
	 *     return q */
	Var *x = ir_var(m, "x", ten(f, DT_F32, 1, I(f, 5)), false, sp0);
	Var *c = ir_var(m, "c", ten(f, DT_BOOL, 0), false, sp0);
	Var *y = ir_var(m, "y", NULL, false, sp0);
	Expr *call = ir_expr(m, E_CALL_FN, sp0);
	call->callfn.callee = "g";
	call->callfn.nargs = 1;
	call->callfn.args = ARENA_ARRAY(&m->arena, Expr *, 1);
	call->callfn.args[0] = ir_var_ref(m, x, sp0);
	Binding *b1 = ir_binding(m, y, call, sp0);

	Var *z = ir_var(m, "z", NULL, false, sp0);
	Expr *ife = ir_expr(m, E_IF, sp0);
	ife->if_.cond = ir_var_ref(m, c, sp0);
	Expr *zc = CALL(f, "zeros", SHP(f, 1, I(f, 5)), NULL);
	set_dtype(zc, "dtype", DT_F32);
	Var *zz = ir_var(m, "zz", NULL, false, sp0);
	ife->if_.then_ = seq(f, block(f, false, 0), ir_var_ref(m, y, sp0));
	ife->if_.else_ = seq(f, block(f, false, 1, ir_binding(m, zz, zc, sp0)),
			     ir_var_ref(m, zz, sp0));
	Binding *b2 = ir_binding(m, z, ife, sp0);

	Var *t = ir_var(m, "t", NULL, false, sp0);
	Binding *b3 = ir_binding(m, t, TUP(f, 2, ir_var_ref(m, y, sp0),
					   ir_var_ref(m, z, sp0)), sp0);
	Var *u = ir_var(m, "u", NULL, false, sp0);
	Expr *g1 = ir_expr(m, E_TUPLE_GET, sp0);
	g1->tget.tuple = ir_var_ref(m, t, sp0);
	g1->tget.index = 1;
	Binding *b4 = ir_binding(m, u, g1, sp0);
	Var *bad = ir_var(m, "bad", NULL, false, sp0);
	Expr *g2 = ir_expr(m, E_TUPLE_GET, (Span){9, 2, 4});
	g2->tget.tuple = ir_var_ref(m, t, sp0);
	g2->tget.index = 2;
	Binding *b5 = ir_binding(m, bad, g2, sp0);

	PExpr *mm = S(f, "m");
	Var *q = ir_var(m, "q", NULL, false, sp0);
	Binding *b6 = ir_binding(m, q, ir_var_ref(m, x, sp0), sp0);
	b6->cast = ten(f, DT_F32, 1, mm);
	Var *r = ir_var(m, "r", NULL, false, sp0);
	Binding *b7 = ir_binding(m, r, ir_var_ref(m, x, sp0), (Span){11, 5, 1});
	b7->cast = si_shape(&m->arena, 1, NULL);

	Var **ps = ARENA_ARRAY(&m->arena, Var *, 2);
	ps[0] = x;
	ps[1] = c;
	Func *fn = add_func(f, "main", 2, ps,
			    seq(f, block(f, false, 7, b1, b2, b3, b4, b5, b6, b7),
				ir_var_ref(m, q, sp0)), NULL);
	assert_int_equal(infer_module(m, &f->d), 2);
	assert_non_null(strstr(f->d.items[0].msg, "tuple index 2 out of range"));
	assert_int_equal(f->d.items[0].span.line, 9);
	assert_non_null(strstr(f->d.items[1].msg, "R.match_cast:"));
	assert_int_equal(f->d.items[1].span.line, 11);
	/* k bound to 5 */
	is_tensor(y->sinfo, DT_F32, 1, true, L(5));
	is_tensor(z->sinfo, DT_F32, 1, true, L(5));
	is_tensor(u->sinfo, DT_F32, 1, true, L(5));
	assert_int_equal(bad->sinfo->kind, SI_OBJECT);
	assert_ptr_equal(q->sinfo, b6->cast);
	/* m is defined in the body, so the return forgets it */
	is_tensor(fn->ret, DT_F32, 1, false);
}

static void
test_module_errors(void **state)
{
	Fx *f = *state;
	Module *m = f->m;
	/* calls with a wrong count, a bad argument, an if on a float */
	Var *a = ir_var(m, "a", ten(f, DT_F32, 1, I(f, 3)), false, sp0);
	Var **gp = ARENA_ARRAY(&m->arena, Var *, 1);
	gp[0] = a;
	Expr *gbody = seq(f, block(f, false, 0), ir_var_ref(m, a, sp0));
	gbody->seq.nblocks = 0;
	/* a return annotation is taken as written, as TVM does, even where
	 * the body's (3,) disagrees: g returns (4,) */
	add_func(f, "g", 1, gp, gbody, ten(f, DT_F32, 1, I(f, 4)));
	assert_int_equal(infer_module(m, &f->d), 0);
	is_tensor(m->funcs[m->nfuncs - 1]->ret, DT_F32, 1, true, L(4));

	Expr *call = ir_expr(m, E_CALL_FN, sp0);
	call->callfn.callee = "g";
	call->callfn.nargs = 1;
	call->callfn.args = ARENA_ARRAY(&m->arena, Expr *, 1);
	call->callfn.args[0] = V(f, ten(f, DT_F32, 1, I(f, 7)));
	assert_null(infer_expr(m, call, &f->d));
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "cls.g: argument 1 (a) expects"));
	call->callfn.nargs = 0;
	assert_null(infer_expr(m, call, &f->d));
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "cls.g: expects 1 argument, got 0"));
	call->callfn.callee = "nope";
	assert_null(infer_expr(m, call, &f->d));
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "unknown function cls.nope"));

	Expr *ife = ir_expr(m, E_IF, sp0);
	ife->if_.cond = V(f, ten(f, DT_F32, 0));
	ife->if_.then_ = seq(f, block(f, false, 0), V(f, ten(f, DT_F32, 0)));
	ife->if_.else_ = seq(f, block(f, false, 0), V(f, ten(f, DT_F32, 0)));
	assert_null(infer_expr(m, ife, &f->d));
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg,
			       "if: the condition must be a bool scalar"));
	/* the join of different branches */
	ife->if_.cond = PRIM(f, I(f, 1));
	ife->if_.cond->prim.dtype = DT_BOOL;
	ife->if_.then_ = seq(f, block(f, false, 0), V(f, ten(f, DT_F32, 1, I(f, 2))));
	ife->if_.else_ = seq(f, block(f, false, 0), V(f, ten(f, DT_F32, 1, I(f, 3))));
	is_tensor(ok(f, ife), DT_F32, 1, false);
	ife->if_.else_ = seq(f, block(f, false, 0), V(f, ten(f, DT_I32, 2, I(f, 2), I(f, 2))));
	is_tensor(ok(f, ife), DT_UNKNOWN, -1, false);
	ife->if_.else_ = seq(f, block(f, false, 0), SHP(f, 0));
	assert_int_equal(ok(f, ife)->kind, SI_OBJECT);

	/* leaves */
	Expr *cst = ir_expr(m, E_CONST, sp0);
	cst->cdata.dtype = DT_I32;
	cst->cdata.ndim = 2;
	cst->cdata.shape = (int64_t[]){2, 2};
	is_tensor(ok(f, cst), DT_I32, 2, true, L(2), L(2));
	Expr *str = ir_expr(m, E_STR, sp0);
	str->str = "hi";
	assert_int_equal(ok(f, str)->kind, SI_OBJECT);
	SInfo *p = ok(f, PRIM(f, I(f, 3)));
	assert_int_equal(p->kind, SI_PRIM);
	assert_int_equal(p->dtype, DT_I64);
	assert_non_null(p->value);
	SInfo *s = ok(f, SHP(f, 2, I(f, 1), I(f, 2)));
	assert_int_equal(s->kind, SI_SHAPE);
	assert_int_equal(s->ndim, 2);
	/* an argument's error does not cascade */
	int before = f->d.nerrors;
	Expr *inner = CALL(f, "exp", V(f, ten(f, DT_I32, 1, I(f, 2))), NULL);
	Expr *outer = CALL(f, "add", TUP(f, 0), inner, NULL);
	outer->call.args[0] = V(f, ten(f, DT_F32, 1, I(f, 2)));
	assert_null(infer_expr(m, outer, &f->d));
	assert_int_equal(f->d.nerrors, before + 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
		T(test_binary_broadcast),
		T(test_binary_symbolic),
		T(test_binary_unknown),
		T(test_compare_logical),
		T(test_where),
		T(test_unary),
		T(test_clip),
		T(test_softmax),
		T(test_norms),
		T(test_conv2d),
		T(test_matmul),
		T(test_permute_dims),
		T(test_reshape),
		T(test_astype),
		T(test_concat),
		T(test_split),
		T(test_strided_slice),
		T(test_take),
		T(test_expand_squeeze),
		T(test_broadcast_to_flatten),
		T(test_reductions),
		T(test_creation),
		T(test_si_check),
		T(test_module),
		T(test_module_calls_if_cast),
		T(test_module_errors),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
