/*
 * test_codegen.c — op calls built by hand, lowered by codegen.c, compiled
 * by the JIT and run on buffers; every result checked against the same
 * computation in plain C (double precision, libm).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

#include <cmocka.h>

#include "codegen.h"
#include "gemm.h"
#include "pool.h"

/* ------------------------------------------------------------- fixture */

typedef struct {
	Module *m;
	Jit *jit;
	Codegen *cg;
	Diags d;
} Fx;

static int
setup(void **state)
{
	Fx *f = calloc(1, sizeof *f);
	RtError err;
	f->m = ir_module_new("test", "", 0);
	f->jit = jit_new(&err);
	if (!f->jit)
		fail_msg("jit_new: %s", err.msg);
	f->cg = cg_new(f->jit);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fx *f = *state;
	cg_free(f->cg);
	jit_free(f->jit);
	ir_module_free(f->m);
	diag_clear(&f->d);
	free(f->d.items); /* diag_clear keeps the array for reuse */
	free(f);
	return 0;
}

/* ------------------------------------------------------------ tensors */

/* A test tensor: shape, dtype and 64-byte aligned data. */
typedef struct {
	DType dt;
	int nd;
	int64_t shape[8];
	int64_t n;
	void *data;
} Tens;

static uint16_t
f32_to_bf16(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if (x != x)
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static float
bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static int
esize(DType t)
{
	return (dtype_bits(t) + 7) / 8;
}

static Tens *
tens(DType dt, int nd, const int64_t *shape)
{
	Tens *t = calloc(1, sizeof *t);
	t->dt = dt;
	t->nd = nd;
	t->n = 1;
	for (int i = 0; i < nd; i++) {
		t->shape[i] = shape[i];
		t->n *= shape[i];
	}
	size_t bytes = ((size_t)t->n * (size_t)esize(dt) + 63) / 64 * 64;
	t->data = aligned_alloc(64, bytes ? bytes : 64);
	memset(t->data, 0xA5, bytes ? bytes : 64); /* garbage, not zeros */
	return t;
}

static void
tfree(Tens *t)
{
	free(t->data);
	free(t);
}

static double
getd(const Tens *t, int64_t i)
{
	switch (t->dt) {
	case DT_BOOL: case DT_U8: return ((uint8_t *)t->data)[i];
	case DT_I8: return ((int8_t *)t->data)[i];
	case DT_I16: return ((int16_t *)t->data)[i];
	case DT_I32: return ((int32_t *)t->data)[i];
	case DT_I64: return (double)((int64_t *)t->data)[i];
	case DT_F16: return (double)((_Float16 *)t->data)[i];
	case DT_BF16: return bf16_to_f32(((uint16_t *)t->data)[i]);
	case DT_F32: return ((float *)t->data)[i];
	case DT_F64: return ((double *)t->data)[i];
	case DT_U16: return ((uint16_t *)t->data)[i];
	case DT_U32: return ((uint32_t *)t->data)[i];
	case DT_U64: return (double)((uint64_t *)t->data)[i];
	case DT_F8E4M3: case DT_F8E5M2:
		return dtype_f8_decode(t->dt, ((uint8_t *)t->data)[i]);
	default: fail_msg("bad dtype"); return 0;
	}
}

static void
setd(Tens *t, int64_t i, double v)
{
	switch (t->dt) {
	case DT_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
	case DT_U8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
	case DT_I8: ((int8_t *)t->data)[i] = (int8_t)v; break;
	case DT_I16: ((int16_t *)t->data)[i] = (int16_t)v; break;
	case DT_I32: ((int32_t *)t->data)[i] = (int32_t)v; break;
	case DT_I64: ((int64_t *)t->data)[i] = (int64_t)v; break;
	case DT_F16: ((_Float16 *)t->data)[i] = (_Float16)v; break;
	case DT_BF16: ((uint16_t *)t->data)[i] = f32_to_bf16((float)v); break;
	case DT_F32: ((float *)t->data)[i] = (float)v; break;
	case DT_F64: ((double *)t->data)[i] = v; break;
	case DT_U16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
	case DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
	case DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
	case DT_F8E4M3: case DT_F8E5M2:
		((uint8_t *)t->data)[i] = dtype_f8_encode(t->dt, v);
		break;
	default: fail_msg("bad dtype");
	}
}

/* Fills t with values in [lo, hi) from a fixed sequence. */
static void
fill(Tens *t, double lo, double hi, unsigned seed)
{
	uint32_t s = seed * 2654435761u + 1;
	for (int64_t i = 0; i < t->n; i++) {
		s = s * 1664525u + 1013904223u;
		setd(t, i, lo + (hi - lo) * (s >> 8) / (double)(1 << 24));
	}
}

/* The input element of in that output element o of out reads, numpy
 * broadcasting. */
static int64_t
bidx(const Tens *in, const Tens *out, int64_t o)
{
	int64_t r = 0, st = 1;
	for (int j = out->nd - 1, ji = in->nd - 1; j >= 0; j--, ji--) {
		int64_t c = o % out->shape[j];
		o /= out->shape[j];
		if (ji < 0)
			continue;
		if (in->shape[ji] != 1)
			r += c * st;
		st *= in->shape[ji];
	}
	return r;
}

static double
tol(DType t)
{
	switch (t) {
	case DT_F16: return 2e-3;
	case DT_BF16: return 1.6e-2;
	case DT_F32: return 2e-5;
	case DT_F64: return 1e-12;
	default: return 0;
	}
}

/* Every element of t against ref, relative tolerance rtol (plus abs). */
static void
check(const Tens *t, const double *ref, double rtol, const char *what)
{
	for (int64_t i = 0; i < t->n; i++) {
		double a = getd(t, i), r = ref[i];
		if (isnan(r) && isnan(a))
			continue;
		if (a == r)
			continue;
		if (!(fabs(a - r) <= rtol * (1 + fabs(r))))
			fail_msg("%s: element %lld is %.9g, expected %.9g", what,
				 (long long)i, a, r);
	}
}

/* ------------------------------------------------------------ IR */

static PExpr **
dims_of(Fx *f, int nd, const int64_t *shape)
{
	PExpr **p = ARENA_ARRAY(&f->m->arena, PExpr *, nd ? nd : 1);
	for (int i = 0; i < nd; i++)
		p[i] = pe_int(&f->m->arena, shape[i]);
	return p;
}

static SInfo *
tsi(Fx *f, const Tens *t)
{
	return si_tensor(&f->m->arena, t->dt, t->nd, dims_of(f, t->nd, t->shape));
}

/* A use of a fresh var with t's struct info. */
static Expr *
tvar(Fx *f, const Tens *t)
{
	Span sp = {0};
	Var *v = ir_var(f->m, "x", tsi(f, t), false, sp);
	Expr *e = ir_var_ref(f->m, v, sp);
	e->sinfo = v->sinfo;
	return e;
}

static Expr *
prim(Fx *f, DType dt, double v)
{
	Expr *e = ir_expr(f->m, E_PRIM, (Span){0});
	e->prim.dtype = dt;
	if (dtype_is_float(dt))
		e->prim.f = v;
	else
		e->prim.value = pe_int(&f->m->arena, (int64_t)v);
	e->sinfo = si_prim(&f->m->arena, dt, NULL);
	return e;
}

static Expr *
shape_expr(Fx *f, const Tens *t)
{
	Expr *e = ir_expr(f->m, E_SHAPE, (Span){0});
	e->shape.values = dims_of(f, t->nd, t->shape);
	e->shape.n = t->nd;
	e->sinfo = si_shape(&f->m->arena, t->nd, e->shape.values);
	return e;
}

/* op(args...) with default attributes and result struct info out. */
static Expr *
call(Fx *f, OpKind op, SInfo *out, int nargs, ...)
{
	OpSig sig;
	op_sig(op, &sig);
	assert_int_equal(nargs, sig.nargs);
	Expr *e = ir_expr(f->m, E_CALL, (Span){0});
	e->call.op = op;
	e->call.nargs = sig.nargs;
	e->call.args = ARENA_ARRAY(&f->m->arena, Expr *, sig.nargs + 1);
	e->call.nattrs = sig.nattrs;
	e->call.attrs = ARENA_ARRAY(&f->m->arena, AttrVal, sig.nattrs + 1);
	va_list ap;
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
		e->call.args[i] = va_arg(ap, Expr *);
	va_end(ap);
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (q->is_attr && q->has_default)
			e->call.attrs[q->slot] = op_default(f->m, q);
	}
	e->sinfo = out;
	return e;
}

static void
set_attr(Fx *f, Expr *e, const char *name, AttrVal v)
{
	OpSig sig;
	op_sig(e->call.op, &sig);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr && !strcmp(sig.params[i].name, name)) {
			e->call.attrs[sig.params[i].slot] = v;
			return;
		}
	fail_msg("no attribute %s", name);
	(void)f;
}

static AttrVal
av_int(int64_t i)
{
	return (AttrVal){.kind = AV_INT, .i = i};
}

static AttrVal
av_none(void)
{
	return (AttrVal){.kind = AV_NONE};
}

static AttrVal
av_ints(Fx *f, int n, ...)
{
	AttrVal v = {.kind = AV_INTS, .n = n};
	v.ints = ARENA_ARRAY(&f->m->arena, int64_t, n + 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		v.ints[i] = va_arg(ap, int); /* pass ints */
	va_end(ap);
	return v;
}

static CgKernel *
compile(Fx *f, Expr *e)
{
	CgKernel *k = cg_kernel(f->cg, f->m, e, &f->d);
	if (!k) {
		StrBuf b = {0};
		for (int i = 0; i < f->d.n; i++)
			sb_printf(&b, "%s\n", f->d.items[i].msg);
		char *s = sb_take(&b);
		fail_msg("cg_kernel failed: %s", s);
		free(s);
	}
	RtError err;
	if (!cg_flush(f->cg, &err))
		fail_msg("cg_flush: %s", err.msg);
	assert_non_null(k->fn);
	return k;
}

/* Runs kernel k on tensors ts (inputs then outputs). */
static void
runk(CgKernel *k, Tens **ts, int nt)
{
	void *bufs[64];
	int64_t dims[512];
	int nd = 0;
	assert_int_equal(k->nin + k->nout, nt);
	for (int i = 0; i < nt; i++) {
		bufs[i] = ts[i]->data;
		for (int j = 0; j < ts[i]->nd; j++)
			dims[nd++] = ts[i]->shape[j];
	}
	assert_int_equal(nd, k->ndims);
	k->fn(bufs, dims);
}

/* Compiles e and runs it on ts. */
static void
exec(Fx *f, Expr *e, Tens **ts, int nt)
{
	runk(compile(f, e), ts, nt);
}

#define SHAPE(...) (int64_t[]){__VA_ARGS__}
#define NDIM(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define T(dt, ...) tens(dt, NDIM(__VA_ARGS__), SHAPE(__VA_ARGS__))

/* -------------------------------------------------------------- tests */

/* add end to end; an identical signature reuses the kernel. */
static void
test_add_and_cache(void **state)
{
	Fx *f = *state;
	Tens *a = T(DT_F32, 37), *b = T(DT_F32, 37), *c = T(DT_F32, 37);
	fill(a, -2, 2, 1);
	fill(b, -2, 2, 2);
	Expr *e = call(f, OP_ADD, tsi(f, c), 2, tvar(f, a), tvar(f, b));
	CgKernel *k = compile(f, e);
	runk(k, (Tens *[]){a, b, c}, 3);
	double ref[37];
	for (int i = 0; i < 37; i++)
		ref[i] = (float)(getd(a, i) + getd(b, i));
	check(c, ref, 0, "add");
	/* Same op, dtypes and shapes, other vars: the same kernel. */
	Expr *e2 = call(f, OP_ADD, tsi(f, c), 2, tvar(f, a), tvar(f, b));
	assert_ptr_equal(compile(f, e2), k);
	assert_int_equal(cg_num_kernels(f->cg), 1);
	/* Another shape: another kernel. */
	Tens *d = T(DT_F32, 36);
	Expr *e3 = call(f, OP_ADD, tsi(f, d), 2, tvar(f, d), tvar(f, d));
	assert_ptr_not_equal(compile(f, e3), k);
	assert_int_equal(cg_num_kernels(f->cg), 2);
	tfree(a), tfree(b), tfree(c), tfree(d);
}

/* Symbolic dims come from the dims array; one kernel serves every n. */
static void
test_symbolic(void **state)
{
	Fx *f = *state;
	SymVar *n = ir_symvar(f->m, "n", (Span){0});
	PExpr **sh = ARENA_ARRAY(&f->m->arena, PExpr *, 2);
	sh[0] = pe_var(&f->m->arena, n);
	sh[1] = pe_int(&f->m->arena, 3);
	PExpr **sh1 = ARENA_ARRAY(&f->m->arena, PExpr *, 1);
	sh1[0] = pe_int(&f->m->arena, 3);
	SInfo *si = si_tensor(&f->m->arena, DT_F32, 2, sh);
	Var *x = ir_var(f->m, "x", si, false, (Span){0});
	Var *y = ir_var(f->m, "y", si_tensor(&f->m->arena, DT_F32, 1, sh1),
			false, (Span){0});
	Expr *e = call(f, OP_MULTIPLY, si, 2, ir_var_ref(f->m, x, (Span){0}),
		       ir_var_ref(f->m, y, (Span){0}));
	CgKernel *k = compile(f, e);
	int64_t sizes[] = {1001, 0, 1};
	for (int s = 0; s < 3; s++) {
		Tens *a = T(DT_F32, sizes[s], 3), *b = T(DT_F32, 3);
		Tens *c = T(DT_F32, sizes[s], 3);
		fill(a, -3, 3, 3);
		fill(b, -3, 3, 4);
		runk(k, (Tens *[]){a, b, c}, 3);
		double *ref = calloc((size_t)c->n + 1, sizeof(double));
		for (int64_t i = 0; i < c->n; i++)
			ref[i] = (float)(getd(a, i) * getd(b, i % 3));
		check(c, ref, 0, "multiply n x 3");
		free(ref);
		tfree(a), tfree(b), tfree(c);
	}
	assert_int_equal(cg_num_kernels(f->cg), 1);
}

/* The reference of a binary op in double. */
static double
ref_binary(OpKind op, double x, double y, bool fl)
{
	switch (op) {
	case OP_ADD: return x + y;
	case OP_SUBTRACT: return x - y;
	case OP_MULTIPLY: return x * y;
	case OP_DIVIDE:
		if (fl)
			return x / y;
		return y == 0 ? 0 : trunc(x / y);
	case OP_FLOOR_DIVIDE: return y == 0 && !fl ? 0 : floor(x / y);
	case OP_POWER: return pow(x, y);
	case OP_MAXIMUM: return x > y ? x : y;
	case OP_MINIMUM: return x < y ? x : y;
	case OP_EQUAL: return x == y;
	case OP_NOT_EQUAL: return x != y;
	case OP_LESS: return x < y;
	case OP_LESS_EQUAL: return x <= y;
	case OP_GREATER: return x > y;
	case OP_GREATER_EQUAL: return x >= y;
	case OP_LOGICAL_AND: return x != 0 && y != 0;
	case OP_LOGICAL_OR: return x != 0 || y != 0;
	default: fail_msg("no reference"); return 0;
	}
}

/* One binary op on broadcast shapes a, b → c; returns nothing, checks. */
static void
binary_case(Fx *f, OpKind op, Tens *a, Tens *b, Tens *c, double rtol)
{
	Expr *e = call(f, op, tsi(f, c), 2, tvar(f, a), tvar(f, b));
	exec(f, e, (Tens *[]){a, b, c}, 3);
	double *ref = calloc((size_t)c->n + 1, sizeof(double));
	bool fl = dtype_is_float(a->dt);
	for (int64_t i = 0; i < c->n; i++) {
		double r = ref_binary(op, getd(a, bidx(a, c, i)), getd(b, bidx(b, c, i)), fl);
		if (c->dt == DT_F32)
			r = (float)r;
		ref[i] = r;
	}
	check(c, ref, rtol, op_info(op)->name);
	free(ref);
}

static const OpKind arith_ops[] = {
	OP_ADD, OP_SUBTRACT, OP_MULTIPLY, OP_DIVIDE, OP_FLOOR_DIVIDE,
	OP_POWER, OP_MAXIMUM, OP_MINIMUM,
};
static const OpKind cmp_ops[] = {
	OP_EQUAL, OP_NOT_EQUAL, OP_LESS, OP_LESS_EQUAL, OP_GREATER,
	OP_GREATER_EQUAL,
};

/* Every arithmetic op, f32, f16 and bf16, with broadcast and tails. */
static void
test_binary_float(void **state)
{
	Fx *f = *state;
	DType dts[] = {DT_F32, DT_F16, DT_BF16, DT_F64};
	for (size_t d = 0; d < ARRAY_LEN(dts); d++)
		for (size_t i = 0; i < ARRAY_LEN(arith_ops); i++) {
			Tens *a = T(dts[d], 3, 1, 19), *b = T(dts[d], 4, 1);
			Tens *c = T(dts[d], 3, 4, 19);
			bool pw = arith_ops[i] == OP_POWER;
			fill(a, pw ? 0.1 : -4, 4, 5);
			fill(b, pw ? -2 : 0.25, 2, 6);
			binary_case(f, arith_ops[i], a, b, c, tol(dts[d]) * 4);
			tfree(a), tfree(b), tfree(c);
		}
	/* size 0 and a scalar operand */
	Tens *a = T(DT_F32, 0, 5), *b = T(DT_F32, 5), *c = T(DT_F32, 0, 5);
	binary_case(f, OP_ADD, a, b, c, 0);
	tfree(a), tfree(b), tfree(c);
	a = T(DT_F32, 4, 33);
	b = tens(DT_F32, 0, NULL);
	c = T(DT_F32, 4, 33);
	fill(a, -1, 1, 7);
	setd(b, 0, 2.5);
	binary_case(f, OP_MULTIPLY, a, b, c, 0);
	tfree(a), tfree(b), tfree(c);
}

/* Integer arithmetic: truncating and flooring division, /0 gives 0. */
static void
test_binary_int(void **state)
{
	Fx *f = *state;
	DType dts[] = {DT_I32, DT_I64, DT_I8, DT_U8};
	for (size_t d = 0; d < ARRAY_LEN(dts); d++)
		for (size_t i = 0; i < ARRAY_LEN(arith_ops); i++) {
			Tens *a = T(dts[d], 5, 9), *b = T(dts[d], 9);
			Tens *c = T(dts[d], 5, 9);
			bool un = dts[d] == DT_U8, pw = arith_ops[i] == OP_POWER;
			fill(a, un ? 0 : -9, 10, 8);
			fill(b, un || pw ? 0 : -4, pw ? 3 : 5, 9);
			if (arith_ops[i] == OP_ADD || arith_ops[i] == OP_MULTIPLY ||
			    arith_ops[i] == OP_SUBTRACT) {
				if (un)
					for (int64_t j = 0; j < a->n; j++)
						setd(a, j, getd(a, j) + 5);
			}
			binary_case(f, arith_ops[i], a, b, c, 0);
			tfree(a), tfree(b), tfree(c);
		}
}

/* Comparisons give bool; logical ops read any dtype as truth. */
static void
test_compare_logical(void **state)
{
	Fx *f = *state;
	DType dts[] = {DT_F32, DT_I32, DT_F16};
	for (size_t d = 0; d < ARRAY_LEN(dts); d++)
		for (size_t i = 0; i < ARRAY_LEN(cmp_ops); i++) {
			Tens *a = T(dts[d], 6, 7), *b = T(dts[d], 6, 1);
			Tens *c = T(DT_BOOL, 6, 7);
			fill(a, -3, 3, 10);
			fill(b, -3, 3, 11);
			for (int j = 0; j < 6; j++) /* some equal pairs */
				setd(a, j * 7 + 2, getd(b, j));
			binary_case(f, cmp_ops[i], a, b, c, 0);
			tfree(a), tfree(b), tfree(c);
		}
	OpKind lops[] = {OP_LOGICAL_AND, OP_LOGICAL_OR};
	for (size_t i = 0; i < 2; i++) {
		Tens *a = T(DT_BOOL, 40), *b = T(DT_BOOL, 40), *c = T(DT_BOOL, 40);
		fill(a, 0, 2, 12);
		fill(b, 0, 2, 13);
		for (int j = 0; j < 40; j++) {
			setd(a, j, floor(getd(a, j)));
			setd(b, j, floor(getd(b, j)));
		}
		binary_case(f, lops[i], a, b, c, 0);
		tfree(a), tfree(b), tfree(c);
	}
	Tens *a = T(DT_BOOL, 17), *c = T(DT_BOOL, 17);
	for (int j = 0; j < 17; j++)
		setd(a, j, j % 3 == 0);
	exec(f, call(f, OP_LOGICAL_NOT, tsi(f, c), 1, tvar(f, a)),
	     (Tens *[]){a, c}, 2);
	for (int j = 0; j < 17; j++)
		assert_int_equal(getd(c, j), j % 3 != 0);
	tfree(a), tfree(c);
}

/* where(cond, x1, x2) with broadcasting of all three. */
static void
test_where(void **state)
{
	Fx *f = *state;
	Tens *c = T(DT_BOOL, 4, 1), *x = T(DT_F32, 1, 13), *y = T(DT_F32, 4, 13);
	Tens *o = T(DT_F32, 4, 13);
	for (int i = 0; i < 4; i++)
		setd(c, i, i & 1);
	fill(x, -1, 1, 14);
	fill(y, -1, 1, 15);
	exec(f, call(f, OP_WHERE, tsi(f, o), 3, tvar(f, c), tvar(f, x), tvar(f, y)),
	     (Tens *[]){c, x, y, o}, 4);
	double ref[52];
	for (int i = 0; i < 52; i++)
		ref[i] = getd(c, i / 13) ? getd(x, i % 13) : getd(y, i);
	check(o, ref, 0, "where");
	tfree(c), tfree(x), tfree(y), tfree(o);
}

/* The reference of a unary op. */
static double
ref_unary(OpKind op, double x)
{
	switch (op) {
	case OP_NEGATIVE: return -x;
	case OP_ABS: return fabs(x);
	case OP_EXP: return exp(x);
	case OP_LOG: return log(x);
	case OP_SQRT: return sqrt(x);
	case OP_RSQRT: return 1 / sqrt(x);
	case OP_SIN: return sin(x);
	case OP_COS: return cos(x);
	case OP_TANH: return tanh(x);
	case OP_SIGMOID: return 1 / (1 + exp(-x));
	case OP_ERF: return erf(x);
	case OP_ROUND: return nearbyint(x);
	case OP_FLOOR: return floor(x);
	case OP_CEIL: return ceil(x);
	case OP_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
	case OP_RELU: return x > 0 ? x : 0;
	case OP_SILU: return x / (1 + exp(-x));
	case OP_GELU: return 0.5 * x * (1 + erf(x / sqrt(2)));
	case OP_GELU_TANH:
		return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
	case OP_CLIP: return x < -0.5 ? -0.5 : x > 1.25 ? 1.25 : x;
	default: fail_msg("no reference"); return 0;
	}
}

static const OpKind unary_ops[] = {
	OP_NEGATIVE, OP_ABS, OP_EXP, OP_LOG, OP_SQRT, OP_RSQRT, OP_SIN, OP_COS,
	OP_TANH, OP_SIGMOID, OP_ERF, OP_ROUND, OP_FLOOR, OP_CEIL, OP_SIGN,
	OP_RELU, OP_SILU, OP_GELU, OP_GELU_TANH, OP_CLIP,
};

/* Every unary op in f32, f16, bf16 and f64, on 101 elements. */
static void
test_unary(void **state)
{
	Fx *f = *state;
	DType dts[] = {DT_F32, DT_F16, DT_BF16, DT_F64};
	for (size_t d = 0; d < ARRAY_LEN(dts); d++)
		for (size_t i = 0; i < ARRAY_LEN(unary_ops); i++) {
			OpKind op = unary_ops[i];
			bool pos = op == OP_LOG || op == OP_SQRT || op == OP_RSQRT;
			Tens *a = T(dts[d], 101), *c = T(dts[d], 101);
			fill(a, pos ? 0.01 : -4, 4, 16);
			setd(a, 3, pos ? 1 : 0);
			setd(a, 5, pos ? 4 : 2.5); /* round half to even */
			Expr *e = op == OP_CLIP
				? call(f, op, tsi(f, c), 3, tvar(f, a), prim(f, DT_F64, -0.5),
				       prim(f, DT_F64, 1.25))
				: call(f, op, tsi(f, c), 1, tvar(f, a));
			exec(f, e, (Tens *[]){a, c}, 2);
			double ref[101];
			for (int j = 0; j < 101; j++)
				ref[j] = ref_unary(op, getd(a, j));
			/* the result is rounded to the dtype once */
			Tens *r = T(dts[d], 101);
			for (int j = 0; j < 101; j++)
				setd(r, j, ref[j]);
			for (int j = 0; j < 101; j++)
				ref[j] = getd(r, j);
			check(c, ref, dts[d] == DT_F32 ? 1e-5 : tol(dts[d]), op_info(op)->name);
			tfree(a), tfree(c), tfree(r);
		}
	/* integer unary ops */
	OpKind iops[] = {OP_NEGATIVE, OP_ABS, OP_SIGN, OP_RELU, OP_CLIP};
	for (size_t i = 0; i < ARRAY_LEN(iops); i++) {
		Tens *a = T(DT_I32, 23), *c = T(DT_I32, 23);
		fill(a, -10, 10, 17);
		Expr *e = iops[i] == OP_CLIP
			? call(f, OP_CLIP, tsi(f, c), 3, tvar(f, a), prim(f, DT_I64, -3),
			       prim(f, DT_I64, 4))
			: call(f, iops[i], tsi(f, c), 1, tvar(f, a));
		exec(f, e, (Tens *[]){a, c}, 2);
		for (int j = 0; j < 23; j++) {
			double x = getd(a, j);
			double r = iops[i] == OP_CLIP ? fmin(fmax(x, -3), 4)
						      : ref_unary(iops[i], x);
			assert_true(getd(c, j) == r);
		}
		tfree(a), tfree(c);
	}
}

/* astype between every pair of dtypes, on values they all hold. */
static void
test_astype(void **state)
{
	Fx *f = *state;
	static const double vals[] = {0, 1, 2, 3.5, 100, 65.25, 7, -2.75, -100, 0.5};
	for (int from = DT_BOOL; from < DT_COUNT; from++)
		for (int to = DT_BOOL; to < DT_COUNT; to++) {
			Tens *a = T((DType)from, 10), *c = T((DType)to, 10);
			int n = dtype_is_unsigned((DType)from) ||
					dtype_is_unsigned((DType)to) ? 7 : 10;
			for (int i = 0; i < 10; i++)
				setd(a, i, vals[i % n]);
			Expr *e = call(f, OP_ASTYPE, tsi(f, c), 1, tvar(f, a));
			set_attr(f, e, "dtype", (AttrVal){.kind = AV_DTYPE, .dtype = (DType)to});
			exec(f, e, (Tens *[]){a, c}, 2);
			Tens *r = T((DType)to, 10);
			double ref[10];
			for (int i = 0; i < 10; i++) {
				double x = getd(a, i);
				setd(r, i, dtype_is_float((DType)to) || to == DT_BOOL ? x : trunc(x));
				ref[i] = getd(r, i);
			}
			char what[64];
			snprintf(what, sizeof what, "astype %s -> %s",
				 dtype_name((DType)from), dtype_name((DType)to));
			check(c, ref, 0, what);
			tfree(a), tfree(c), tfree(r);
		}
	/* f32 to f16 and bf16 round to nearest even; NaN stays NaN */
	float ties[] = {1 + 0x1p-8f, 1 + 3 * 0x1p-8f, 1 + 0x1p-11f, 1 + 3 * 0x1p-11f,
			NAN, -INFINITY, 65504, 1e-7f};
	uint16_t bf[] = {0x3f80, 0x3f82}, hf[] = {0x3c00, 0x3c02};
	Tens *a = T(DT_F32, 8), *h = T(DT_F16, 8), *b = T(DT_BF16, 8);
	memcpy(a->data, ties, sizeof ties);
	Expr *e = call(f, OP_ASTYPE, tsi(f, h), 1, tvar(f, a));
	set_attr(f, e, "dtype", (AttrVal){.kind = AV_DTYPE, .dtype = DT_F16});
	exec(f, e, (Tens *[]){a, h}, 2);
	e = call(f, OP_ASTYPE, tsi(f, b), 1, tvar(f, a));
	set_attr(f, e, "dtype", (AttrVal){.kind = AV_DTYPE, .dtype = DT_BF16});
	exec(f, e, (Tens *[]){a, b}, 2);
	uint16_t *hb = h->data, *bb = b->data;
	assert_int_equal(bb[0], bf[0]);
	assert_int_equal(bb[1], bf[1]);
	assert_int_equal(hb[2], hf[0]);
	assert_int_equal(hb[3], hf[1]);
	assert_true(isnan(getd(h, 4)) && isnan(getd(b, 4)));
	assert_true(getd(h, 5) == -INFINITY && getd(b, 5) == -INFINITY);
	assert_true(getd(h, 6) == 65504);
	tfree(a), tfree(h), tfree(b);
}

/* permute_dims: 2-D transposes (tiled) with odd sizes, 3-D, f16, default. */
static void
test_permute(void **state)
{
	Fx *f = *state;
	struct { DType dt; int nd; int64_t shape[3]; int64_t axes[3]; bool def; } cs[] = {
		{DT_F32, 2, {37, 45}, {1, 0}, false},
		{DT_F16, 2, {70, 3}, {1, 0}, true},
		{DT_F32, 3, {2, 33, 40}, {2, 0, 1}, false},
		{DT_I64, 3, {3, 4, 5}, {1, 0, 2}, false},
		{DT_U8, 3, {5, 1, 66}, {0, 2, 1}, false},
		{DT_F32, 2, {0, 7}, {1, 0}, false},
	};
	for (size_t c = 0; c < ARRAY_LEN(cs); c++) {
		int nd = cs[c].nd;
		int64_t osh[3];
		for (int i = 0; i < nd; i++)
			osh[i] = cs[c].shape[cs[c].axes[i]];
		Tens *a = tens(cs[c].dt, nd, cs[c].shape), *o = tens(cs[c].dt, nd, osh);
		fill(a, 0, 100, 18);
		Expr *e = call(f, OP_PERMUTE_DIMS, tsi(f, o), 1, tvar(f, a));
		if (!cs[c].def)
			set_attr(f, e, "axes", nd == 2 ? av_ints(f, 2, (int)cs[c].axes[0], (int)cs[c].axes[1])
				 : av_ints(f, 3, (int)cs[c].axes[0], (int)cs[c].axes[1],
					  (int)cs[c].axes[2]));
		exec(f, e, (Tens *[]){a, o}, 2);
		double *ref = calloc((size_t)o->n + 1, sizeof(double));
		for (int64_t i = 0; i < o->n; i++) {
			int64_t idx[3], r = i, src = 0;
			for (int j = nd - 1; j >= 0; j--) {
				idx[j] = r % osh[j];
				r /= osh[j];
			}
			int64_t in_idx[3];
			for (int j = 0; j < nd; j++)
				in_idx[cs[c].axes[j]] = idx[j];
			for (int j = 0; j < nd; j++)
				src = src * cs[c].shape[j] + in_idx[j];
			ref[i] = getd(a, src);
		}
		check(o, ref, 0, "permute_dims");
		free(ref);
		tfree(a), tfree(o);
	}
}

/* reshape keeps the bytes; broadcast_to repeats along size-1 dims. */
static void
test_reshape_broadcast(void **state)
{
	Fx *f = *state;
	Tens *a = T(DT_BF16, 6, 4), *o = T(DT_BF16, 3, 8);
	fill(a, -1, 1, 19);
	exec(f, call(f, OP_RESHAPE, tsi(f, o), 2, tvar(f, a), shape_expr(f, o)),
	     (Tens *[]){a, o}, 2);
	assert_memory_equal(a->data, o->data, 48);
	tfree(a), tfree(o);

	a = T(DT_I32, 3, 1);
	o = T(DT_I32, 2, 3, 5);
	fill(a, -50, 50, 20);
	exec(f, call(f, OP_BROADCAST_TO, tsi(f, o), 2, tvar(f, a), shape_expr(f, o)),
	     (Tens *[]){a, o}, 2);
	for (int i = 0; i < 30; i++)
		assert_true(getd(o, i) == getd(a, (i / 5) % 3));
	tfree(a), tfree(o);
}

/* One matmul a @ b → c against a double triple loop. */
static void
matmul_case(Fx *f, Tens *a, Tens *b, Tens *c, double rtol)
{
	fill(a, -1, 1, 21);
	fill(b, -1, 1, 22);
	exec(f, call(f, OP_MATMUL, tsi(f, c), 2, tvar(f, a), tvar(f, b)),
	     (Tens *[]){a, b, c}, 3);
	int64_t K = a->shape[a->nd - 1];
	int64_t M = a->nd > 1 ? a->shape[a->nd - 2] : 1;
	int64_t N = b->nd > 1 ? b->shape[b->nd - 1] : 1;
	int64_t nb = M * N != 0 ? c->n / (M * N) : 0;
	double *ref = calloc((size_t)c->n + 1, sizeof(double));
	/* batch dims: broadcast a's and b's against c's */
	int cb = c->nd - (a->nd > 1) - (b->nd > 1);
	for (int64_t bi = 0; bi < nb; bi++) {
		int64_t ao = 0, bo = 0, r = bi, sa = M * K, sb = K * N;
		for (int j = cb - 1; j >= 0; j--) {
			int64_t x = r % c->shape[j];
			r /= c->shape[j];
			int ja = j - (cb - (a->nd - 2)), jb = j - (cb - (b->nd - 2));
			if (a->nd > 2 && ja >= 0) {
				if (a->shape[ja] != 1)
					ao += x * sa;
				sa *= a->shape[ja];
			}
			if (b->nd > 2 && jb >= 0) {
				if (b->shape[jb] != 1)
					bo += x * sb;
				sb *= b->shape[jb];
			}
		}
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0;
				for (int64_t k = 0; k < K; k++)
					s += getd(a, ao + i * K + k) * getd(b, bo + k * N + j);
				ref[bi * M * N + i * N + j] = s;
			}
	}
	check(c, ref, rtol, "matmul");
	free(ref);
	tfree(a), tfree(b), tfree(c);
}

static void
test_matmul(void **state)
{
	Fx *f = *state;
	matmul_case(f, T(DT_F32, 5, 7), T(DT_F32, 7, 300), T(DT_F32, 5, 300), 1e-5);
	matmul_case(f, T(DT_F32, 2, 1, 3, 4), T(DT_F32, 3, 4, 6), T(DT_F32, 2, 3, 3, 6), 1e-5);
	matmul_case(f, T(DT_F32, 4), T(DT_F32, 4, 3), T(DT_F32, 3), 1e-5);
	matmul_case(f, T(DT_F32, 3, 4), T(DT_F32, 4), T(DT_F32, 3), 1e-5);
	matmul_case(f, T(DT_F32, 0, 4), T(DT_F32, 4, 3), T(DT_F32, 0, 3), 0);
	matmul_case(f, T(DT_F32, 2, 0), T(DT_F32, 0, 3), T(DT_F32, 2, 3), 0);
	/* f16 inputs accumulate in f32: 300 terms stay within f16 rounding */
	matmul_case(f, T(DT_F16, 9, 300), T(DT_F16, 300, 11), T(DT_F16, 9, 11), 2e-3);
	matmul_case(f, T(DT_BF16, 3, 64), T(DT_BF16, 64, 5), T(DT_BF16, 3, 5), 1.6e-2);
	matmul_case(f, T(DT_F64, 6, 5), T(DT_F64, 5, 260), T(DT_F64, 6, 260), 1e-12);
}

/* The reference reduction of x [3,4,5] over the axes in mask. */
static void
reduce_case(Fx *f, OpKind op, DType dt, unsigned mask, bool keep, DType odt)
{
	Tens *x = T(dt, 3, 4, 5);
	fill(x, op == OP_PROD ? 0.5 : -3, op == OP_PROD ? 1.5 : 3, 23);
	int64_t osh[3];
	int ond = 0;
	for (int i = 0; i < 3; i++) {
		if (!(mask >> i & 1))
			osh[ond++] = x->shape[i];
		else if (keep)
			osh[ond++] = 1;
	}
	Tens *o = tens(odt, ond, osh);
	Expr *e = call(f, op, tsi(f, o), 1, tvar(f, x));
	bool arg = op == OP_ARGMAX || op == OP_ARGMIN;
	if (mask == 7)
		set_attr(f, e, "axis", av_none());
	else if (arg)
		set_attr(f, e, "axis", av_int(mask == 1 ? 0 : mask == 2 ? -2 : 2));
	else {
		AttrVal v = av_ints(f, 0);
		for (int i = 0; i < 3; i++)
			if (mask >> i & 1)
				v.ints[v.n++] = i == 2 ? -1 : i;
		set_attr(f, e, "axis", v);
	}
	set_attr(f, e, "keepdims", (AttrVal){.kind = AV_BOOL, .i = keep});
	exec(f, e, (Tens *[]){x, o}, 2);
	double ref[60];
	for (int64_t oi = 0; oi < o->n; oi++) {
		/* kept coordinates */
		int64_t kc[3] = {0}, r = oi;
		for (int i = 2; i >= 0; i--)
			if (!(mask >> i & 1)) {
				kc[i] = r % x->shape[i];
				r /= x->shape[i];
			}
		double acc = op == OP_PROD ? 1 : op == OP_SUM || op == OP_MEAN ? 0
			   : NAN;
		int64_t best = 0, cnt = 0;
		for (int64_t xi = 0; xi < 60; xi++) {
			int64_t c[3] = {xi / 20, xi / 5 % 4, xi % 5};
			bool in = true;
			for (int i = 0; i < 3; i++)
				in = in && ((mask >> i & 1) || c[i] == kc[i]);
			if (!in)
				continue;
			double v = getd(x, xi);
			switch (op) {
			case OP_SUM: case OP_MEAN: acc += v; break;
			case OP_PROD: acc *= v; break;
			case OP_MAX: case OP_ARGMAX:
				if (cnt == 0 || v > acc) {
					acc = v;
					best = cnt;
				}
				break;
			default:
				if (cnt == 0 || v < acc) {
					acc = v;
					best = cnt;
				}
				break;
			}
			cnt++;
		}
		ref[oi] = arg ? (double)best : op == OP_MEAN ? acc / (double)cnt : acc;
	}
	check(o, ref, arg ? 0 : dt == DT_F32 ? 1e-5 : tol(dt), op_info(op)->name);
	tfree(x), tfree(o);
}

static void
test_reduce(void **state)
{
	Fx *f = *state;
	OpKind ops[] = {OP_SUM, OP_MEAN, OP_MAX, OP_MIN, OP_PROD};
	unsigned masks[] = {1, 2, 4, 5, 7};
	for (size_t i = 0; i < ARRAY_LEN(ops); i++)
		for (size_t j = 0; j < ARRAY_LEN(masks); j++) {
			reduce_case(f, ops[i], DT_F32, masks[j], j & 1, DT_F32);
			reduce_case(f, ops[i], DT_F16, masks[j], false, DT_F16);
		}
	for (size_t j = 0; j < ARRAY_LEN(masks); j++)
		if (masks[j] != 5) {
			reduce_case(f, OP_ARGMAX, DT_F32, masks[j], false, DT_I64);
			reduce_case(f, OP_ARGMIN, DT_BF16, masks[j], j & 1, DT_I64);
		}
	reduce_case(f, OP_SUM, DT_I32, 2, false, DT_I32);
	reduce_case(f, OP_MAX, DT_I8, 4, true, DT_I8);
}

/* softmax and log_softmax along the last and the first axis. */
static void
test_softmax(void **state)
{
	Fx *f = *state;
	OpKind ops[] = {OP_SOFTMAX, OP_LOG_SOFTMAX};
	struct { DType dt; int64_t r, c; int axis; } cs[] = {
		{DT_F32, 4, 37, -1}, {DT_F32, 5, 3, 0}, {DT_F16, 3, 100, 1},
	};
	for (size_t o = 0; o < 2; o++)
		for (size_t c = 0; c < ARRAY_LEN(cs); c++) {
			Tens *x = T(cs[c].dt, cs[c].r, cs[c].c), *y = T(cs[c].dt, cs[c].r, cs[c].c);
			fill(x, -5, 5, 24);
			setd(x, 0, 80); /* exp(80) overflows f32 without the max */
			Expr *e = call(f, ops[o], tsi(f, y), 1, tvar(f, x));
			set_attr(f, e, "axis", av_int(cs[c].axis));
			exec(f, e, (Tens *[]){x, y}, 2);
			double *ref = calloc((size_t)y->n, sizeof(double));
			bool rows = cs[c].axis != 0;
			int64_t nl = rows ? cs[c].r : cs[c].c, n = rows ? cs[c].c : cs[c].r;
			for (int64_t l = 0; l < nl; l++) {
#define AT(j) (rows ? l * cs[c].c + (j) : (j) * cs[c].c + l)
				double m = -INFINITY, s = 0;
				for (int64_t j = 0; j < n; j++)
					m = fmax(m, getd(x, AT(j)));
				for (int64_t j = 0; j < n; j++)
					s += exp(getd(x, AT(j)) - m);
				for (int64_t j = 0; j < n; j++)
					ref[AT(j)] = ops[o] == OP_SOFTMAX ? exp(getd(x, AT(j)) - m) / s
						   : getd(x, AT(j)) - m - log(s);
#undef AT
			}
			check(y, ref, cs[c].dt == DT_F32 ? 1e-5 : 3e-3, op_info(ops[o])->name);
			free(ref);
			tfree(x), tfree(y);
		}
}

/* rms_norm and layer_norm over the last axis (and the last two). */
static void
test_norms(void **state)
{
	Fx *f = *state;
	DType dts[] = {DT_F32, DT_F16, DT_BF16};
	for (size_t d = 0; d < ARRAY_LEN(dts); d++) {
		Tens *x = T(dts[d], 3, 37), *w = T(dts[d], 37), *y = T(dts[d], 3, 37);
		fill(x, -2, 2, 25);
		fill(w, 0.5, 1.5, 26);
		exec(f, call(f, OP_RMS_NORM, tsi(f, y), 2, tvar(f, x), tvar(f, w)),
		     (Tens *[]){x, w, y}, 3);
		double ref[111];
		for (int r = 0; r < 3; r++) {
			double ss = 0;
			for (int j = 0; j < 37; j++)
				ss += getd(x, r * 37 + j) * getd(x, r * 37 + j);
			double s = 1 / sqrt(ss / 37 + 1e-5);
			for (int j = 0; j < 37; j++)
				ref[r * 37 + j] = getd(x, r * 37 + j) * s * getd(w, j);
		}
		check(y, ref, dts[d] == DT_F32 ? 1e-5 : tol(dts[d]), "rms_norm");
		tfree(x), tfree(w), tfree(y);
	}
	Tens *x = T(DT_F32, 2, 3, 5), *g = T(DT_F32, 3, 5), *b = T(DT_F32, 3, 5);
	Tens *y = T(DT_F32, 2, 3, 5);
	fill(x, -2, 2, 27);
	fill(g, 0.5, 1.5, 28);
	fill(b, -1, 1, 29);
	Expr *e = call(f, OP_LAYER_NORM, tsi(f, y), 3, tvar(f, x), tvar(f, g), tvar(f, b));
	set_attr(f, e, "axes", av_ints(f, 2, -2, -1));
	exec(f, e, (Tens *[]){x, g, b, y}, 4);
	double ref[30];
	for (int r = 0; r < 2; r++) {
		double mean = 0, var = 0;
		for (int j = 0; j < 15; j++)
			mean += getd(x, r * 15 + j) / 15;
		for (int j = 0; j < 15; j++)
			var += pow(getd(x, r * 15 + j) - mean, 2) / 15;
		for (int j = 0; j < 15; j++)
			ref[r * 15 + j] = (getd(x, r * 15 + j) - mean) / sqrt(var + 1e-5)
					  * getd(g, j) + getd(b, j);
	}
	check(y, ref, 1e-5, "layer_norm");
	tfree(x), tfree(g), tfree(b), tfree(y);
}

/* concat along axis 1 then split back. */
static void
test_concat_split(void **state)
{
	Fx *f = *state;
	Tens *a = T(DT_F32, 2, 3), *b = T(DT_F32, 2, 5), *c = T(DT_F32, 2, 8);
	fill(a, 0, 10, 30);
	fill(b, 10, 20, 31);
	Expr *tup = ir_expr(f->m, E_TUPLE, (Span){0});
	tup->tuple.n = 2;
	tup->tuple.items = ARENA_ARRAY(&f->m->arena, Expr *, 2);
	tup->tuple.items[0] = tvar(f, a);
	tup->tuple.items[1] = tvar(f, b);
	SInfo **fs = ARENA_ARRAY(&f->m->arena, SInfo *, 2);
	fs[0] = tsi(f, a);
	fs[1] = tsi(f, b);
	tup->sinfo = si_tuple(&f->m->arena, fs, 2);
	Expr *e = call(f, OP_CONCAT, tsi(f, c), 1, tup);
	set_attr(f, e, "axis", av_int(-1));
	exec(f, e, (Tens *[]){a, b, c}, 3);
	for (int r = 0; r < 2; r++)
		for (int j = 0; j < 8; j++)
			assert_true(getd(c, r * 8 + j) ==
				    (j < 3 ? getd(a, r * 3 + j) : getd(b, r * 5 + j - 3)));

	Tens *p = T(DT_F32, 2, 3), *q = T(DT_F32, 2, 5);
	Expr *s = call(f, OP_SPLIT, si_tuple(&f->m->arena, fs, 2), 1, tvar(f, c));
	set_attr(f, s, "indices_or_sections", av_ints(f, 1, 3));
	set_attr(f, s, "axis", av_int(1));
	exec(f, s, (Tens *[]){c, p, q}, 3);
	assert_memory_equal(p->data, a->data, 24);
	assert_memory_equal(q->data, b->data, 40);
	tfree(a), tfree(b), tfree(c), tfree(p), tfree(q);
}

/* take with negative indices, along an axis and flat. */
static void
test_take(void **state)
{
	Fx *f = *state;
	Tens *x = T(DT_F16, 5, 4), *ix = T(DT_I64, 3), *y = T(DT_F16, 3, 4);
	fill(x, -5, 5, 32);
	int64_t iv[] = {4, -1, 0};
	memcpy(ix->data, iv, sizeof iv);
	Expr *e = call(f, OP_TAKE, tsi(f, y), 2, tvar(f, x), tvar(f, ix));
	set_attr(f, e, "axis", av_int(0));
	exec(f, e, (Tens *[]){x, ix, y}, 3);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			assert_true(getd(y, i * 4 + j) == getd(x, ((iv[i] + 5) % 5) * 4 + j));
	Tens *ix2 = T(DT_I32, 2, 2), *y2 = T(DT_F16, 2, 2);
	int32_t iv2[] = {19, 0, -20, 7};
	memcpy(ix2->data, iv2, sizeof iv2);
	exec(f, call(f, OP_TAKE, tsi(f, y2), 2, tvar(f, x), tvar(f, ix2)),
	     (Tens *[]){x, ix2, y2}, 3);
	for (int i = 0; i < 4; i++)
		assert_true(getd(y2, i) == getd(x, (iv2[i] + 20) % 20));
	tfree(x), tfree(ix), tfree(y), tfree(ix2), tfree(y2);
}

/* strided_slice with negative begin and stride. */
static void
test_strided_slice(void **state)
{
	Fx *f = *state;
	Tens *x = T(DT_I32, 10, 6), *y = T(DT_I32, 4, 3);
	for (int i = 0; i < 60; i++)
		setd(x, i, i);
	Expr *e = call(f, OP_STRIDED_SLICE, tsi(f, y), 1, tvar(f, x));
	set_attr(f, e, "axes", av_ints(f, 2, 0, 1));
	set_attr(f, e, "begin", av_ints(f, 2, 1, -1));
	set_attr(f, e, "end", av_ints(f, 2, 8, -7));
	set_attr(f, e, "strides", av_ints(f, 2, 2, -2));
	exec(f, e, (Tens *[]){x, y}, 2);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++)
			assert_int_equal(getd(y, i * 3 + j), (1 + 2 * i) * 6 + (5 - 2 * j));
	tfree(x), tfree(y);
}

/* zeros, ones, full (constant and tensor fill values), arange. */
static void
test_creation(void **state)
{
	Fx *f = *state;
	Tens *z = T(DT_F16, 3, 5), *o = T(DT_I32, 7), *fl = T(DT_BF16, 9);
	Expr *e = call(f, OP_ZEROS, tsi(f, z), 1, shape_expr(f, z));
	set_attr(f, e, "dtype", (AttrVal){.kind = AV_DTYPE, .dtype = DT_F16});
	exec(f, e, (Tens *[]){z}, 1);
	for (int i = 0; i < 15; i++)
		assert_true(getd(z, i) == 0);
	e = call(f, OP_ONES, tsi(f, o), 1, shape_expr(f, o));
	set_attr(f, e, "dtype", (AttrVal){.kind = AV_DTYPE, .dtype = DT_I32});
	exec(f, e, (Tens *[]){o}, 1);
	for (int i = 0; i < 7; i++)
		assert_true(getd(o, i) == 1);
	e = call(f, OP_FULL, tsi(f, fl), 2, shape_expr(f, fl), prim(f, DT_F32, 2.5));
	exec(f, e, (Tens *[]){fl}, 1);
	for (int i = 0; i < 9; i++)
		assert_true(getd(fl, i) == 2.5);
	Tens *v = tens(DT_F32, 0, NULL), *g = T(DT_F32, 2, 3);
	setd(v, 0, -1.25);
	e = call(f, OP_FULL, tsi(f, g), 2, shape_expr(f, g), tvar(f, v));
	exec(f, e, (Tens *[]){v, g}, 2);
	for (int i = 0; i < 6; i++)
		assert_true(getd(g, i) == -1.25);
	Tens *ar = T(DT_F32, 6);
	e = call(f, OP_ARANGE, tsi(f, ar), 3, prim(f, DT_I64, 1), prim(f, DT_I64, 4),
		 prim(f, DT_F32, 0.5));
	exec(f, e, (Tens *[]){ar}, 1);
	for (int i = 0; i < 6; i++)
		assert_true(getd(ar, i) == 1 + 0.5 * i);
	tfree(z), tfree(o), tfree(fl), tfree(v), tfree(g), tfree(ar);
}

/* An op the generator does not know is an error at the call, no crash. */
static void
test_unsupported(void **state)
{
	Fx *f = *state;
	Tens *x = T(DT_F32, 1, 1, 4, 4), *w = T(DT_F32, 1, 1, 3, 3), *y = T(DT_F32, 1, 1, 2, 2);
	Expr *e = call(f, OP_CONV2D, tsi(f, y), 2, tvar(f, x), tvar(f, w));
	e->span = (Span){3, 7, 5};
	set_attr(f, e, "data_layout", (AttrVal){.kind = AV_STR, .s = "NCDHW"});
	assert_null(cg_kernel(f->cg, f->m, e, &f->d));
	assert_int_equal(f->d.nerrors, 1);
	assert_int_equal(f->d.items[0].span.line, 3);
	assert_non_null(strstr(f->d.items[0].msg, "NCHW"));
	/* a non-tensor operand */
	Expr *bad = call(f, OP_ADD, tsi(f, y), 2, tvar(f, x), prim(f, DT_F32, 1));
	bad->call.args[1]->sinfo = si_object(&f->m->arena);
	assert_null(cg_kernel(f->cg, f->m, bad, &f->d));
	assert_true(f->d.nerrors >= 1);
	tfree(x), tfree(w), tfree(y);
}

/* ------------------------------------------- large kernels, threads */

enum { MAXD_T = 8 };

/* permute_dims of one case: in shape sh, axes, checked element-wise. */
static void
permute_case(Fx *f, DType dt, int nd, const int64_t *sh, const int *axes)
{
	int64_t osh[MAXD_T];
	for (int i = 0; i < nd; i++)
		osh[i] = sh[axes[i]];
	Tens *a = tens(dt, nd, sh), *o = tens(dt, nd, osh);
	fill(a, 0, 100, 40);
	Expr *e = call(f, OP_PERMUTE_DIMS, tsi(f, o), 1, tvar(f, a));
	AttrVal av = {.kind = AV_INTS, .n = nd};
	av.ints = ARENA_ARRAY(&f->m->arena, int64_t, nd);
	for (int i = 0; i < nd; i++)
		av.ints[i] = axes[i];
	set_attr(f, e, "axes", av);
	exec(f, e, (Tens *[]){a, o}, 2);
	double *ref = calloc((size_t)o->n + 1, sizeof(double));
	int64_t ist[MAXD_T], s = 1;
	for (int i = nd - 1; i >= 0; i--) {
		ist[i] = s;
		s *= sh[i];
	}
	for (int64_t i = 0; i < o->n; i++) {
		int64_t r = i, src = 0;
		for (int j = nd - 1; j >= 0; j--) {
			src += (r % osh[j]) * ist[axes[j]];
			r /= osh[j];
		}
		ref[i] = getd(a, src);
	}
	check(o, ref, 0, "permute_dims");
	free(ref);
	tfree(a), tfree(o);
}

/* Transposes through the tiled path: full tiles, r tails, partial q
 * blocks, every element width, other dims around, the parallel split and
 * the non-temporal stores of a large output. */
static void
test_permute_tiled(void **state)
{
	Fx *f = *state;
	permute_case(f, DT_F32, 2, SHAPE(300, 517), (int[]){1, 0});
	permute_case(f, DT_F32, 2, SHAPE(16, 16), (int[]){1, 0});
	permute_case(f, DT_F32, 2, SHAPE(15, 17), (int[]){1, 0});
	permute_case(f, DT_F16, 2, SHAPE(129, 260), (int[]){1, 0});
	permute_case(f, DT_BF16, 3, SHAPE(3, 33, 20), (int[]){2, 0, 1});
	permute_case(f, DT_U8, 3, SHAPE(7, 40, 35), (int[]){2, 1, 0});
	permute_case(f, DT_I64, 2, SHAPE(300, 260), (int[]){1, 0});
	permute_case(f, DT_F64, 3, SHAPE(9, 2, 11), (int[]){1, 2, 0});
	permute_case(f, DT_F32, 3, SHAPE(3, 70, 130), (int[]){0, 2, 1});
	permute_case(f, DT_F32, 4, SHAPE(2, 40, 3, 48), (int[]){0, 3, 2, 1});
	permute_case(f, DT_I32, 4, SHAPE(2, 5, 33, 64), (int[]){3, 0, 1, 2});
	/* innermost dim kept: row copies across the pool */
	permute_case(f, DT_F32, 3, SHAPE(40, 50, 70), (int[]){1, 0, 2});
	/* 8 MiB out with whole cache-line tile rows: non-temporal stores */
	permute_case(f, DT_F32, 2, SHAPE(2048, 1040), (int[]){1, 0});
}

/* f32 matmul through the register tiles: partial row blocks, column
 * tiles, the 16-wide and the scalar column tails, broadcast batches, the
 * parallel split, K = 0. */
static void
test_matmul_tiles(void **state)
{
	Fx *f = *state;
	matmul_case(f, T(DT_F32, 13, 37), T(DT_F32, 37, 83), T(DT_F32, 13, 83), 1e-5);
	matmul_case(f, T(DT_F32, 6, 5), T(DT_F32, 5, 64), T(DT_F32, 6, 64), 1e-5);
	matmul_case(f, T(DT_F32, 1, 9), T(DT_F32, 9, 15), T(DT_F32, 1, 15), 1e-5);
	matmul_case(f, T(DT_F32, 2, 1, 7, 5), T(DT_F32, 3, 5, 50), T(DT_F32, 2, 3, 7, 50), 1e-5);
	matmul_case(f, T(DT_F32, 130, 200), T(DT_F32, 200, 70), T(DT_F32, 130, 70), 1e-5);
	matmul_case(f, T(DT_F32, 4, 33, 64), T(DT_F32, 64, 48), T(DT_F32, 4, 33, 48), 1e-5);
	matmul_case(f, T(DT_F32, 7, 0), T(DT_F32, 0, 40), T(DT_F32, 7, 40), 0);
	/* the generic path split across the pool too */
	matmul_case(f, T(DT_F16, 70, 40), T(DT_F16, 40, 60), T(DT_F16, 70, 60), 2e-3);
}

/* Kernels large enough to split across the pool give the results of the
 * plain loops: flat and broadcast elementwise, a reduction, softmax,
 * rms_norm, take, strided_slice. */
static void
test_parallel_kernels(void **state)
{
	Fx *f = *state;
	/* flat: a tail past the last whole block */
	Tens *a = T(DT_F32, 70001), *b = T(DT_F32, 70001), *c = T(DT_F32, 70001);
	fill(a, -2, 2, 41);
	fill(b, -2, 2, 42);
	binary_case(f, OP_ADD, a, b, c, 0);
	tfree(a), tfree(b), tfree(c);
	/* broadcast */
	a = T(DT_F32, 300, 257), b = T(DT_F32, 257), c = T(DT_F32, 300, 257);
	fill(a, -2, 2, 43);
	fill(b, -2, 2, 44);
	binary_case(f, OP_MULTIPLY, a, b, c, 0);
	tfree(a), tfree(b), tfree(c);
	/* sum over the last axis of 300 x 301 */
	Tens *x = T(DT_F32, 300, 301), *s = T(DT_F32, 300);
	fill(x, -1, 1, 45);
	Expr *e = call(f, OP_SUM, tsi(f, s), 1, tvar(f, x));
	set_attr(f, e, "axis", av_ints(f, 1, -1));
	exec(f, e, (Tens *[]){x, s}, 2);
	double *ref = calloc(300 * 301, sizeof(double));
	for (int r = 0; r < 300; r++) {
		ref[r] = 0;
		for (int j = 0; j < 301; j++)
			ref[r] += getd(x, r * 301 + j);
	}
	check(s, ref, 1e-5, "sum");
	tfree(s);
	/* softmax over rows */
	Tens *y = T(DT_F32, 300, 301);
	exec(f, call(f, OP_SOFTMAX, tsi(f, y), 1, tvar(f, x)), (Tens *[]){x, y}, 2);
	for (int r = 0; r < 300; r++) {
		double m = -INFINITY, sum = 0;
		for (int j = 0; j < 301; j++)
			m = fmax(m, getd(x, r * 301 + j));
		for (int j = 0; j < 301; j++)
			sum += exp(getd(x, r * 301 + j) - m);
		for (int j = 0; j < 301; j++)
			ref[r * 301 + j] = exp(getd(x, r * 301 + j) - m) / sum;
	}
	check(y, ref, 1e-5, "softmax");
	/* rms_norm over rows */
	Tens *w = T(DT_F32, 301);
	fill(w, 0.5, 1.5, 46);
	exec(f, call(f, OP_RMS_NORM, tsi(f, y), 2, tvar(f, x), tvar(f, w)),
	     (Tens *[]){x, w, y}, 3);
	for (int r = 0; r < 300; r++) {
		double ss = 0;
		for (int j = 0; j < 301; j++)
			ss += getd(x, r * 301 + j) * getd(x, r * 301 + j);
		for (int j = 0; j < 301; j++)
			ref[r * 301 + j] = getd(x, r * 301 + j) / sqrt(ss / 301 + 1e-5) * getd(w, j);
	}
	check(y, ref, 1e-5, "rms_norm");
	tfree(w), tfree(y);
	/* take: 500 rows of 301 */
	Tens *ix = T(DT_I32, 500), *t = T(DT_F32, 500, 301);
	for (int i = 0; i < 500; i++)
		setd(ix, i, (i * 7) % 300);
	e = call(f, OP_TAKE, tsi(f, t), 2, tvar(f, x), tvar(f, ix));
	set_attr(f, e, "axis", av_int(0));
	exec(f, e, (Tens *[]){x, ix, t}, 3);
	double *tref = calloc(500 * 301, sizeof(double));
	for (int i = 0; i < 500; i++)
		for (int j = 0; j < 301; j++)
			tref[i * 301 + j] = getd(x, ((i * 7) % 300) * 301 + j);
	check(t, tref, 0, "take");
	free(tref);
	tfree(ix), tfree(t);
	/* strided_slice: every other row, columns from 1 */
	Tens *ss = T(DT_F32, 150, 300);
	e = call(f, OP_STRIDED_SLICE, tsi(f, ss), 1, tvar(f, x));
	set_attr(f, e, "axes", av_ints(f, 2, 0, 1));
	set_attr(f, e, "begin", av_ints(f, 2, 0, 1));
	set_attr(f, e, "end", av_ints(f, 2, 300, 301));
	set_attr(f, e, "strides", av_ints(f, 2, 2, 1));
	exec(f, e, (Tens *[]){x, ss}, 2);
	for (int i = 0; i < 150; i++)
		for (int j = 0; j < 300; j++)
			ref[i * 300 + j] = getd(x, (2 * i) * 301 + j + 1);
	check(ss, ref, 0, "strided_slice");
	tfree(ss);
	free(ref);
	tfree(x);
}

/* A conv2d case: x (N, C, H, W), weight (O, C/groups, KH, KW). */
typedef struct {
	DType dt, odt;
	int64_t x[4], w[4];
	int64_t stride[2], pad[4], dil[2], groups;
} ConvCase;

static void
conv_case(Fx *f, const ConvCase *cc, double rtol)
{
	int64_t oh = (cc->x[2] + cc->pad[0] + cc->pad[2] - cc->dil[0] * (cc->w[2] - 1) - 1) /
		     cc->stride[0] + 1;
	int64_t ow = (cc->x[3] + cc->pad[1] + cc->pad[3] - cc->dil[1] * (cc->w[3] - 1) - 1) /
		     cc->stride[1] + 1;
	Tens *x = tens(cc->dt, 4, cc->x), *w = tens(cc->dt, 4, cc->w);
	Tens *y = tens(cc->odt, 4, SHAPE(cc->x[0], cc->w[0], oh, ow));
	bool fl = dtype_is_float(cc->dt);
	fill(x, fl ? -2 : -5, fl ? 2 : 5, 50);
	fill(w, fl ? -1 : -3, fl ? 1 : 3, 51);
	if (!fl) { /* whole numbers */
		for (int64_t i = 0; i < x->n; i++)
			setd(x, i, floor(getd(x, i)));
		for (int64_t i = 0; i < w->n; i++)
			setd(w, i, floor(getd(w, i)));
	}
	Expr *e = call(f, OP_CONV2D, tsi(f, y), 2, tvar(f, x), tvar(f, w));
	set_attr(f, e, "strides", av_ints(f, 2, (int)cc->stride[0], (int)cc->stride[1]));
	set_attr(f, e, "padding", av_ints(f, 4, (int)cc->pad[0], (int)cc->pad[1],
					  (int)cc->pad[2], (int)cc->pad[3]));
	set_attr(f, e, "dilation", av_ints(f, 2, (int)cc->dil[0], (int)cc->dil[1]));
	set_attr(f, e, "groups", av_int(cc->groups));
	if (cc->odt != cc->dt)
		set_attr(f, e, "out_dtype", (AttrVal){.kind = AV_DTYPE, .dtype = cc->odt});
	exec(f, e, (Tens *[]){x, w, y}, 3);
	double *ref = calloc((size_t)y->n + 1, sizeof(double));
	int64_t C = cc->x[1], H = cc->x[2], W = cc->x[3];
	int64_t O = cc->w[0], Cg = cc->w[1], KH = cc->w[2], KW = cc->w[3];
	for (int64_t n = 0; n < cc->x[0]; n++)
		for (int64_t o = 0; o < O; o++)
			for (int64_t i = 0; i < oh; i++)
				for (int64_t j = 0; j < ow; j++) {
					double acc = 0;
					int64_t g = o / (O / cc->groups);
					for (int64_t c = 0; c < Cg; c++)
						for (int64_t kh = 0; kh < KH; kh++)
							for (int64_t kw = 0; kw < KW; kw++) {
								int64_t ih = i * cc->stride[0] - cc->pad[0] + kh * cc->dil[0];
								int64_t iw = j * cc->stride[1] - cc->pad[1] + kw * cc->dil[1];
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								acc += getd(x, ((n * C + g * Cg + c) * H + ih) * W + iw) *
								       getd(w, ((o * Cg + c) * KH + kh) * KW + kw);
							}
					ref[((n * O + o) * oh + i) * ow + j] = acc;
				}
	check(y, ref, rtol, "conv2d");
	free(ref);
	tfree(x), tfree(w), tfree(y);
}

/* conv2d against the plain loop nest: strides, asymmetric padding,
 * dilation, groups (depthwise too), f16 and integers, out_dtype, and one
 * large enough for the pool. */
static void
test_conv2d(void **state)
{
	Fx *f = *state;
	ConvCase cs[] = {
		{DT_F32, DT_F32, {1, 1, 4, 4}, {1, 1, 3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},
		{DT_F32, DT_F32, {2, 4, 9, 11}, {6, 2, 3, 3}, {2, 1}, {1, 2, 1, 2}, {1, 2}, 2},
		{DT_F32, DT_F32, {1, 3, 7, 8}, {5, 3, 2, 3}, {1, 3}, {0, 1, 2, 1}, {2, 1}, 1},
		{DT_F32, DT_F32, {2, 6, 5, 5}, {6, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 6},
		{DT_F16, DT_F16, {1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
		{DT_F16, DT_F32, {1, 2, 6, 6}, {3, 2, 3, 3}, {2, 2}, {1, 0, 1, 0}, {1, 1}, 1},
		{DT_I32, DT_I32, {1, 3, 5, 6}, {2, 3, 3, 2}, {1, 1}, {1, 0, 0, 1}, {1, 1}, 1},
		{DT_F32, DT_F32, {1, 8, 40, 40}, {16, 8, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
	};
	for (size_t i = 0; i < ARRAY_LEN(cs); i++)
		conv_case(f, &cs[i], cs[i].odt == DT_F16 ? 2e-3 : cs[i].dt == DT_F16 ? 1e-4 : 1e-5);
}

/* A pool body: counts each index it is given. */
static void
count_body(void *ctx, int64_t lo, int64_t hi)
{
	int *seen = ctx;
	for (int64_t i = lo; i < hi; i++)
		__atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
}

typedef struct {
	ThreadPool *pool;
	int *seen;
} Nested;

/* A pool body that runs a loop on the same pool (it must not wait for
 * itself). */
static void
nested_body(void *ctx, int64_t lo, int64_t hi)
{
	Nested *n = ctx;
	for (int64_t i = lo; i < hi; i++)
		tpool_run(n->pool, n->seen + i * 10, 10, count_body);
}

/* The pool runs every index exactly once, nested loops too; its size
 * follows RLX_NUM_THREADS. */
static void
test_pool(void **state)
{
	(void)state;
	ThreadPool *p = tpool_new(3);
	assert_int_equal(tpool_size(p), 3);
	int seen[1000] = {0};
	for (int rep = 0; rep < 20; rep++)
		tpool_run(p, seen, 1000, count_body);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(seen[i], 20);
	memset(seen, 0, sizeof seen);
	Nested n = {p, seen};
	rlx_parallel_for(p, &n, 100, nested_body);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(seen[i], 1);
	tpool_run(p, seen, 0, count_body); /* nothing to do */
	tpool_free(p);
	tpool_free(NULL);
	setenv("RLX_NUM_THREADS", "1", 1);
	p = tpool_new(0);
	assert_int_equal(tpool_size(p), 1);
	memset(seen, 0, sizeof seen);
	tpool_run(p, seen, 1000, count_body);
	assert_int_equal(seen[999], 1);
	tpool_free(p);
	setenv("RLX_NUM_THREADS", "5", 1);
	p = tpool_new(0);
	assert_int_equal(tpool_size(p), 5);
	tpool_free(p);
	unsetenv("RLX_NUM_THREADS");
	p = tpool_new(0);
	assert_true(tpool_size(p) >= 1);
	tpool_free(p);
}

#ifdef __linux__
typedef struct {
	pthread_t caller;
	cpu_set_t want;
	int chunks, wrong; /* chunks run by a worker, with another mask */
} Masks;

/* A pool body: on a worker, checks the thread's CPU mask; on the
 * caller, yields a while first (a worker on the caller's CPU gets to
 * take a chunk too). */
static void
mask_body(void *ctx, int64_t lo, int64_t hi)
{
	(void)lo;
	(void)hi;
	Masks *m = ctx;
	if (pthread_equal(pthread_self(), m->caller)) {
		for (int i = 0; i < 100 && !__atomic_load_n(&m->chunks, __ATOMIC_RELAXED); i++)
			sched_yield();
		return;
	}
	cpu_set_t now;
	CPU_ZERO(&now);
	pthread_getaffinity_np(pthread_self(), sizeof now, &now);
	__atomic_fetch_add(&m->chunks, 1, __ATOMIC_RELAXED);
	if (!CPU_EQUAL(&now, &m->want))
		__atomic_fetch_add(&m->wrong, 1, __ATOMIC_RELAXED);
}

/* Runs jobs on a new pool of 2 until a worker has taken chunks; the
 * workers' masks against m->want. */
static void
run_masks(Masks *m)
{
	ThreadPool *p = tpool_new(2);
	for (int rep = 0; rep < 10000 && !m->chunks; rep++)
		tpool_run(p, m, 64, mask_body);
	tpool_free(p);
	assert_true(m->chunks > 0);
	assert_int_equal(m->wrong, 0);
}

/* The workers start on a CPU other than their caller's (pool.c), and
 * then run where the caller may, no more and no less: a caller limited
 * to one CPU keeps its workers there too. */
static void
test_pool_affinity(void **state)
{
	(void)state;
	cpu_set_t orig;
	assert_int_equal(sched_getaffinity(0, sizeof orig, &orig), 0);
	Masks m = {.caller = pthread_self(), .want = orig};
	run_masks(&m);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
	m = (Masks){.caller = pthread_self(), .want = one};
	run_masks(&m);
	assert_int_equal(sched_setaffinity(0, sizeof orig, &orig), 0);
}
#endif

/* Two Codegens on one Jit: kernel names do not collide. */
static void
test_two_codegens(void **state)
{
	Fx *f = *state;
	Codegen *other = cg_new(f->jit);
	Tens *a = T(DT_F32, 10), *c = T(DT_F32, 10);
	fill(a, -1, 1, 52);
	Expr *e = call(f, OP_NEGATIVE, tsi(f, c), 1, tvar(f, a));
	CgKernel *k1 = compile(f, e);
	Diags d = {0};
	CgKernel *k2 = cg_kernel(other, f->m, e, &d);
	RtError err;
	assert_non_null(k2);
	assert_true(cg_flush(other, &err));
	assert_string_not_equal(k1->name, k2->name);
	runk(k2, (Tens *[]){a, c}, 2);
	for (int i = 0; i < 10; i++)
		assert_true(getd(c, i) == -getd(a, i));
	cg_free(other);
	tfree(a), tfree(c);
}

/* RLX_ISA holds a Jit to at most an instruction set (rlx_gemm's kernels
 * too, never above the host's) and its code still runs; a name it does
 * not know is an error naming it. */
static void
test_isa_cap(void **state)
{
	Fx *f = *state;
	static const struct {
		const char *name;
		int isa;
	} caps[] = {{"generic", GEMM_ISA_GENERIC}, {"avx2", GEMM_ISA_AVX2},
		    {"avx512", GEMM_ISA_AVX512}, {"", GEMM_ISA_AVX512}};
	const char *was = getenv("RLX_ISA");
	char *saved = was ? strdup(was) : NULL;
	int host = jit_gemm_isa(f->jit);
	unsetenv("RLX_ISA");
	Tens *a = T(DT_F32, 40), *c = T(DT_F32, 40);
	fill(a, -1, 1, 52);
	Expr *e = call(f, OP_NEGATIVE, tsi(f, c), 1, tvar(f, a));
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		setenv("RLX_ISA", caps[i].name, 1);
		RtError err;
		Jit *j = jit_new(&err);
		assert_non_null(j);
		int want = caps[i].isa < host ? caps[i].isa : host;
		assert_int_equal(jit_gemm_isa(j), want);
		Codegen *cg = cg_new(j);
		Diags d = {0};
		CgKernel *k = cg_kernel(cg, f->m, e, &d);
		assert_non_null(k);
		assert_true(cg_flush(cg, &err));
		runk(k, (Tens *[]){a, c}, 2);
		for (int x = 0; x < 40; x++)
			assert_true(getd(c, x) == -getd(a, x));
		cg_free(cg);
		jit_free(j);
	}
	setenv("RLX_ISA", "sse9", 1);
	RtError err;
	assert_null(jit_new(&err));
	assert_non_null(strstr(err.msg, "RLX_ISA is 'sse9'"));
	if (saved)
		setenv("RLX_ISA", saved, 1);
	else
		unsetenv("RLX_ISA");
	free(saved);
	tfree(a), tfree(c);
}

/* exp in f32 (a polynomial, not libm): within a few ulp over the whole
 * range, 0 below it, inf above, NaN through; softmax with -inf entries
 * (masked positions) gives them 0. */
static void
test_exp_range(void **state)
{
	Fx *f = *state;
	enum { NX = 4001 };
	Tens *x = T(DT_F32, NX + 8), *y = T(DT_F32, NX + 8);
	for (int i = 0; i < NX; i++)
		setd(x, i, -87.0 + 175.5 * i / (NX - 1));
	double sp[8] = {-INFINITY, INFINITY, NAN, -100, 100, 0, -1e-30, 1e-7};
	for (int i = 0; i < 8; i++)
		setd(x, NX + i, sp[i]);
	exec(f, call(f, OP_EXP, tsi(f, y), 1, tvar(f, x)), (Tens *[]){x, y}, 2);
	for (int i = 0; i < NX + 8; i++) {
		double a = getd(y, i), r = (float)exp(getd(x, i));
		if (isnan(r)) {
			assert_true(isnan(a));
			continue;
		}
		if (isinf(r) || r == 0 || i >= NX) {
			/* subnormal results flush to 0 */
			if (!(fabs(a - r) <= 4e-7 * fabs(r)) && !(a == r) &&
			    !(r < 1.17549435e-38 && a == 0))
				fail_msg("exp(%g) = %.9g, expected %.9g", getd(x, i), a, r);
			continue;
		}
		if (fabs(a - r) > 4e-7 * r)
			fail_msg("exp(%.9g) = %.9g, expected %.9g", getd(x, i), a, r);
	}
	tfree(x), tfree(y);
	Tens *s = T(DT_F32, 2, 5), *o = T(DT_F32, 2, 5);
	for (int i = 0; i < 10; i++)
		setd(s, i, i % 5 < 2 ? -INFINITY : (double)i);
	exec(f, call(f, OP_SOFTMAX, tsi(f, o), 1, tvar(f, s)), (Tens *[]){s, o}, 2);
	for (int r = 0; r < 2; r++) {
		double z = exp(0.0) + exp(-1.0) + exp(-2.0);
		assert_true(getd(o, r * 5) == 0 && getd(o, r * 5 + 1) == 0);
		for (int j = 2; j < 5; j++)
			assert_true(fabs(getd(o, r * 5 + j) - exp(j - 4.0) / z) < 1e-6);
	}
	tfree(s), tfree(o);
}

/* A shape with symbolic dim n at position pos, the rest from sh. */
static SInfo *
sym_si(Fx *f, DType dt, int nd, const int64_t *sh, int pos, SymVar *n)
{
	PExpr **p = ARENA_ARRAY(&f->m->arena, PExpr *, nd);
	for (int i = 0; i < nd; i++)
		p[i] = i == pos ? pe_var(&f->m->arena, n) : pe_int(&f->m->arena, sh[i]);
	return si_tensor(&f->m->arena, dt, nd, p);
}

/* Kernels of symbolic shape split across the pool from the runtime dims:
 * the attention transposes of a Llama layer and a matmul with n rows, at
 * n = 300, 1 and 0. */
static void
test_symbolic_parallel(void **state)
{
	Fx *f = *state;
	SymVar *n = ir_symvar(f->m, "n", (Span){0});
	Span sp = {0};
	Var *xv = ir_var(f->m, "x", sym_si(f, DT_F32, 4, SHAPE(1, 0, 8, 64), 1, n), false, sp);
	Expr *e = call(f, OP_PERMUTE_DIMS, sym_si(f, DT_F32, 4, SHAPE(1, 8, 64, 0), 3, n),
		       1, ir_var_ref(f->m, xv, sp));
	set_attr(f, e, "axes", av_ints(f, 4, 0, 2, 3, 1));
	CgKernel *kp = compile(f, e);
	Var *av = ir_var(f->m, "a", sym_si(f, DT_F32, 2, SHAPE(0, 96), 0, n), false, sp);
	Var *bv = ir_var(f->m, "b", si_tensor(&f->m->arena, DT_F32, 2,
		dims_of(f, 2, SHAPE(96, 70))), false, sp);
	Expr *em = call(f, OP_MATMUL, sym_si(f, DT_F32, 2, SHAPE(0, 70), 0, n), 2,
			ir_var_ref(f->m, av, sp), ir_var_ref(f->m, bv, sp));
	CgKernel *km = compile(f, em);
	int64_t sizes[] = {300, 1, 0};
	for (int i = 0; i < 3; i++) {
		int64_t m = sizes[i];
		Tens *x = T(DT_F32, 1, m, 8, 64), *y = T(DT_F32, 1, 8, 64, m);
		fill(x, -1, 1, 60);
		runk(kp, (Tens *[]){x, y}, 2);
		double *ref = calloc((size_t)y->n + 1, sizeof(double));
		for (int64_t h = 0; h < 8; h++)
			for (int64_t d = 0; d < 64; d++)
				for (int64_t t = 0; t < m; t++)
					ref[(h * 64 + d) * m + t] = getd(x, (t * 8 + h) * 64 + d);
		check(y, ref, 0, "symbolic permute_dims");
		free(ref);
		tfree(x), tfree(y);
		Tens *a = T(DT_F32, m, 96), *b = T(DT_F32, 96, 70), *c = T(DT_F32, m, 70);
		fill(a, -1, 1, 61);
		fill(b, -1, 1, 62);
		runk(km, (Tens *[]){a, b, c}, 3);
		ref = calloc((size_t)c->n + 1, sizeof(double));
		for (int64_t r = 0; r < m; r++)
			for (int64_t j = 0; j < 70; j++) {
				double acc = 0;
				for (int64_t kk = 0; kk < 96; kk++)
					acc += getd(a, r * 96 + kk) * getd(b, kk * 70 + j);
				ref[r * 70 + j] = acc;
			}
		check(c, ref, 1e-5, "symbolic matmul");
		free(ref);
		tfree(a), tfree(b), tfree(c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define U(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		U(test_add_and_cache),
		U(test_symbolic),
		U(test_binary_float),
		U(test_binary_int),
		U(test_compare_logical),
		U(test_where),
		U(test_unary),
		U(test_astype),
		U(test_permute),
		U(test_reshape_broadcast),
		U(test_matmul),
		U(test_reduce),
		U(test_softmax),
		U(test_norms),
		U(test_concat_split),
		U(test_take),
		U(test_strided_slice),
		U(test_creation),
		U(test_unsupported),
		U(test_permute_tiled),
		U(test_matmul_tiles),
		U(test_parallel_kernels),
		U(test_conv2d),
		U(test_pool),
#ifdef __linux__
		U(test_pool_affinity),
#endif
		U(test_two_codegens),
		U(test_isa_cap),
		U(test_exp_range),
		U(test_symbolic_parallel),
#undef U
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
