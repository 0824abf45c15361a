/*
 * test_exec.c — the executor (runtime/exec/exec.c): modules parsed from text,
 * compiled, run on hand-made tensors; results, error messages, liveness
 * (observed through reference counts) and the streaming call order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_exec.h"

/* ------------------------------------------------------------ helpers */

/* A parsed module and its compiled function. */
typedef struct {
	Module *m;
	RtProgram *p;
} Prog;

/* Parses text (a module) and compiles func; fails the test on errors. */
static Prog
compile(const char *text, const char *func)
{
	Prog g = {0};
	rlx_diags *d = rlx_diags_new();
	g.m = rlx_parse("test.py", text, strlen(text), d);
	if (!g.m) {
		rlx_diags_print(d, stderr);
		fail_msg("parse failed");
	}
	Diags cd = {0};
	cd.src = &g.m->src;
	g.p = rt_compile(g.m, func, &cd);
	if (!g.p) {
		diag_print(&cd, stderr);
		fail_msg("compile failed");
	}
	diag_clear(&cd);
	free(cd.items);
	rlx_diags_free(d);
	return g;
}

static void
prog_free(Prog *g)
{
	rt_program_free(g->p);
	rlx_module_free(g->m);
}

/* A float32 tensor value of the given shape filled with data (or iota). */
static RtValue *
f32(int ndim, const int64_t *shape, const float *data)
{
	RtError e;
	RtTensor *t = rt_tensor_new(DT_F32, ndim, shape, &e);
	assert_non_null(t);
	float *p = t->data;
	for (int64_t i = 0; i < rt_numel(t); i++)
		p[i] = data ? data[i] : (float)i;
	return rt_value_tensor(t);
}

/* A 0-d bool tensor. */
static RtValue *
boolean(bool b)
{
	RtError e;
	RtTensor *t = rt_tensor_new(DT_BOOL, 0, NULL, &e);
	*(uint8_t *)t->data = b;
	return rt_value_tensor(t);
}

static float
at(const RtValue *v, int64_t i)
{
	assert_int_equal(v->kind, RV_TENSOR);
	assert_int_equal(v->t->dtype, DT_F32);
	return ((const float *)v->t->data)[i];
}

/* Runs p on n args (released after) and returns the result; fails the
 * test when the run fails. */
static RtValue *
run_ok(Prog *g, RtValue **args, int n)
{
	RtValue *res = NULL;
	RtError e;
	bool ok = rt_run(g->p, args, &res, &e);
	if (!ok)
		fail_msg("run failed: %s", e.msg);
	for (int i = 0; i < n; i++)
		rt_value_release(args[i]);
	return res;
}

/* Runs p expecting an error that contains want. */
static void
run_fails(Prog *g, RtValue **args, int n, const char *want)
{
	RtValue *res = NULL;
	RtError e;
	bool ok = rt_run(g->p, args, &res, &e);
	for (int i = 0; i < n; i++)
		rt_value_release(args[i]);
	assert_false(ok);
	assert_null(res);
	if (!strstr(e.msg, want))
		fail_msg("error '%s' lacks '%s'", e.msg, want);
}

/* ------------------------------------------------------------ tests */

static const char add_relu[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), y: R.Tensor((4,), dtype=\"float32\")):\n"
	"        n = T.int64()\n"
	"        a = R.add(x, y)\n"
	"        b = R.nn.relu(a)\n"
	"        return b\n";

/* An op chain with broadcasting and a symbolic dim. */
static void
test_run_basic(void **state)
{
	(void)state;
	Prog g = compile(add_relu, "main");
	float yd[4] = {-5, 0, 1, 2};
	RtValue *args[2] = {f32(2, (int64_t[]){3, 4}, NULL),
			    f32(1, (int64_t[]){4}, yd)};
	RtValue *r = run_ok(&g, args, 2);
	assert_int_equal(r->t->ndim, 2);
	assert_int_equal(r->t->shape[0], 3);
	for (int i = 0; i < 12; i++) {
		float want = (float)i + yd[i % 4];
		assert_true(at(r, i) == (want < 0 ? 0 : want));
	}
	assert_int_equal((uintptr_t)r->t->data % RT_ALIGN, 0);
	rt_value_release(r);
	/* the same program runs again with another n */
	RtValue *args2[2] = {f32(2, (int64_t[]){1, 4}, NULL),
			     f32(1, (int64_t[]){4}, yd)};
	r = run_ok(&g, args2, 2);
	assert_int_equal(r->t->shape[0], 1);
	assert_true(at(r, 3) == 5);
	rt_value_release(r);
	prog_free(&g);
}

/* Parameters checked against their annotations. */
static void
test_param_errors(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(y: R.Tensor((\"n\", 4), dtype=\"float32\"), x: R.Tensor((\"m\", \"n\"), dtype=\"float32\")):\n"
		"        n = T.int64()\n"
		"        m = T.int64()\n"
		"        a = R.matmul(x, y, out_dtype=\"void\")\n"
		"        return a\n";
	Prog g = compile(text, "main");
	RtValue *a1[2] = {f32(2, (int64_t[]){4, 4}, NULL),
			  f32(2, (int64_t[]){2, 5}, NULL)};
	run_fails(&g, a1, 2, "parameter 'x': dimension 1 is 5, but n was "
		  "bound to 4 by parameter 'y'");
	RtValue *a2[2] = {f32(2, (int64_t[]){4, 3}, NULL),
			  f32(2, (int64_t[]){2, 4}, NULL)};
	run_fails(&g, a2, 2, "parameter 'y': dimension 1 is 3, expected 4");
	RtValue *a3[2] = {f32(1, (int64_t[]){4}, NULL),
			  f32(2, (int64_t[]){2, 4}, NULL)};
	run_fails(&g, a3, 2, "parameter 'y': has 1 dimensions");
	RtError e;
	RtTensor *it = rt_tensor_new(DT_I32, 2, (int64_t[]){4, 4}, &e);
	memset(it->data, 0, it->nbytes);
	RtValue *a4[2] = {rt_value_tensor(it), f32(2, (int64_t[]){2, 4}, NULL)};
	run_fails(&g, a4, 2, "parameter 'y': dtype is int32, expected float32");
	int64_t sv[2] = {4, 4};
	RtValue *a5[2] = {rt_value_shape(sv, 2), f32(2, (int64_t[]){2, 4}, NULL)};
	run_fails(&g, a5, 2, "parameter 'y': expected a tensor, got a shape");
	/* and a good call still works */
	RtValue *ok[2] = {f32(2, (int64_t[]){4, 4}, NULL),
			  f32(2, (int64_t[]){2, 4}, NULL)};
	RtValue *r = run_ok(&g, ok, 2);
	assert_int_equal(r->t->shape[0], 2);
	assert_int_equal(r->t->shape[1], 4);
	rt_value_release(r);
	prog_free(&g);
}

/* if/else on a bool scalar. */
static void
test_if_else(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor((3,), dtype=\"float32\")) -> R.Tensor((3,), dtype=\"float32\"):\n"
		"        k = R.multiply(x, x)\n"
		"        if c:\n"
		"            a = R.add(k, x)\n"
		"            r = R.negative(a)\n"
		"        else:\n"
		"            r = R.subtract(k, x)\n"
		"        return r\n";
	Prog g = compile(text, "main");
	float xd[3] = {1, 2, 3};
	RtValue *a1[2] = {boolean(true), f32(1, (int64_t[]){3}, xd)};
	RtValue *r = run_ok(&g, a1, 2);
	for (int i = 0; i < 3; i++)
		assert_true(at(r, i) == -(xd[i] * xd[i] + xd[i]));
	rt_value_release(r);
	RtValue *a2[2] = {boolean(false), f32(1, (int64_t[]){3}, xd)};
	r = run_ok(&g, a2, 2);
	for (int i = 0; i < 3; i++)
		assert_true(at(r, i) == xd[i] * xd[i] - xd[i]);
	rt_value_release(r);
	prog_free(&g);
}

static const char calls[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function(private=True)\n"
	"    def double(v: R.Tensor((\"k\",), dtype=\"float32\")) -> R.Tensor((\"k\",), dtype=\"float32\"):\n"
	"        k = T.int64()\n"
	"        d = R.add(v, v)\n"
	"        return d\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((3,), dtype=\"float32\"), y: R.Tensor((5,), dtype=\"float32\")):\n"
	"        a = cls.double(x)\n"
	"        b = cls.double(y)\n"
	"        c = cls.double(a)\n"
	"        return (c, b)\n";

/* Calls to another function, with its own symbolic binding per call. */
static void
test_function_calls(void **state)
{
	(void)state;
	Prog g = compile(calls, "main");
	RtValue *args[2] = {f32(1, (int64_t[]){3}, NULL),
			    f32(1, (int64_t[]){5}, NULL)};
	RtValue *r = run_ok(&g, args, 2);
	assert_int_equal(r->kind, RV_TUPLE);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->fields[0]->t->shape[0], 3);
	assert_int_equal(r->fields[1]->t->shape[0], 5);
	for (int i = 0; i < 3; i++)
		assert_true(at(r->fields[0], i) == 4 * i);
	for (int i = 0; i < 5; i++)
		assert_true(at(r->fields[1], i) == 2 * i);
	rt_value_release(r);
	prog_free(&g);
}

/* match_cast: checked at run time, binds new symbolic vars. */
static void
test_match_cast(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor(dtype=\"float32\", ndim=2)):\n"
		"        m = T.int64()\n"
		"        y = R.match_cast(x, R.Tensor((4, m), dtype=\"float32\"))\n"
		"        z = R.zeros(R.shape([m, 2]), dtype=\"float32\")\n"
		"        s = R.shape([m * 2, (m - 7) // 2, (m - 7) % 2, T.min(m, 3), T.max(m, 3)])\n"
		"        return (y, z, s)\n";
	Prog g = compile(text, "main");
	RtValue *a1[1] = {f32(2, (int64_t[]){3, 2}, NULL)};
	run_fails(&g, a1, 1, "binding 'y': dimension 0 is 3, expected 4");
	RtValue *a2[1] = {f32(2, (int64_t[]){4, 2}, NULL)};
	RtValue *r = run_ok(&g, a2, 1);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->fields[1]->t->shape[0], 2);
	RtValue *s = r->fields[2];
	assert_int_equal(s->kind, RV_SHAPE);
	assert_int_equal(s->n, 5);
	/* m = 2: floor semantics for negative operands */
	assert_int_equal(s->values[0], 4);
	assert_int_equal(s->values[1], -3);
	assert_int_equal(s->values[2], 1);
	assert_int_equal(s->values[3], 2);
	assert_int_equal(s->values[4], 3);
	rt_value_release(r);
	prog_free(&g);
}

/* A shape division by a zero dim is an error, not a crash. */
static void
test_division_by_zero(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((\"n\", \"m\"), dtype=\"float32\")):\n"
		"        n = T.int64()\n"
		"        m = T.int64()\n"
		"        s = R.shape([n // m])\n"
		"        return s\n";
	Prog g = compile(text, "main");
	RtValue *a[1] = {f32(2, (int64_t[]){3, 0}, NULL)};
	run_fails(&g, a, 1, "division by zero");
	prog_free(&g);
}

/* reshape is a view: same data, kept alive by the result. */
static void
test_reshape_view(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((2, 6), dtype=\"float32\")):\n"
		"        a = R.reshape(x, R.shape([3, 4]))\n"
		"        b = R.expand_dims(a, axis=[0])\n"
		"        return b\n";
	Prog g = compile(text, "main");
	RtValue *x = f32(2, (int64_t[]){2, 6}, NULL);
	RtValue *args[1] = {x};
	RtValue *r = NULL;
	RtError e;
	assert_true(rt_run(g.p, args, &r, &e));
	assert_ptr_equal(r->t->data, x->t->data);
	assert_int_equal(r->t->ndim, 3);
	assert_int_equal(r->t->shape[1], 3);
	rt_value_release(x); /* the view keeps the data */
	assert_true(at(r, 11) == 11);
	rt_value_release(r);
	prog_free(&g);
}

/* Elementwise ops on tensors of unknown shape: the inputs' broadcast;
 * endless recursion is an error, not a stack overflow. */
static void
test_unknown_shapes_and_recursion(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def rec(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        y = cls.rec(x)\n"
		"        return y\n"
		"    @R.function\n"
		"    def main(x: R.Tensor(dtype=\"float32\", ndim=2), y: R.Tensor(dtype=\"float32\", ndim=1)):\n"
		"        a = R.add(x, y)\n"
		"        b = R.exp(a)\n"
		"        c = R.sum(b, axis=[1], keepdims=True)\n"
		"        d = R.permute_dims(b)\n"
		"        e = R.nn.softmax(d, axis=0)\n"
		"        return (b, c, e)\n";
	Prog g = compile(text, "main");
	RtValue *a1[2] = {f32(2, (int64_t[]){2, 1}, NULL),
			  f32(1, (int64_t[]){3}, NULL)};
	RtValue *r = run_ok(&g, a1, 2);
	RtValue *b = r->fields[0], *c = r->fields[1], *e = r->fields[2];
	assert_int_equal(b->t->shape[0], 2);
	assert_int_equal(b->t->shape[1], 3);
	assert_true(fabsf(at(b, 5) - expf(3)) < 1e-5f * expf(3));
	assert_int_equal(c->t->ndim, 2);
	assert_int_equal(c->t->shape[0], 2);
	assert_int_equal(c->t->shape[1], 1);
	float sum1 = expf(1) + expf(2) + expf(3);
	assert_true(fabsf(at(c, 1) - sum1) < 1e-5f * sum1);
	assert_int_equal(e->t->shape[0], 3);
	assert_int_equal(e->t->shape[1], 2);
	rt_value_release(r);
	RtValue *a2[2] = {f32(2, (int64_t[]){2, 2}, NULL),
			  f32(1, (int64_t[]){3}, NULL)};
	run_fails(&g, a2, 2, "binding 'a': operands of dimension 2 and 3 do "
		  "not broadcast");
	prog_free(&g);
	g = compile(text, "rec");
	RtValue *a3[1] = {f32(1, (int64_t[]){2}, NULL)};
	run_fails(&g, a3, 1, "binding 'y': in call to 'rec': function calls "
		  "nested deeper than");
	prog_free(&g);
}

/* ------------------------------------------------------------ streaming */

/* Records the callbacks of a streaming run. */
typedef struct {
	char log[512];
	RtValue *params[8];  /* test's references to what load returned */
	RtValue *fields[8];  /* retained emitted values */
	int nparams;
	int refs_at[8][8];   /* refs of params[j] when param i was loaded */
	int field_refs_at[8][8]; /* refs of fields[j] when field i came */
	int fail_load;       /* a parameter whose load fails, or -1 */
} Rec;

static RtValue *
rec_load(void *ctx, int i, RtError *e)
{
	Rec *r = ctx;
	char buf[16];
	snprintf(buf, sizeof buf, "L%d ", i);
	strcat(r->log, buf);
	if (i == r->fail_load) {
		rt_error(e, "cannot load %d", i);
		return NULL;
	}
	for (int j = 0; j < r->nparams; j++)
		r->refs_at[i][j] = r->params[j] ? r->params[j]->refs : 0;
	float d[4] = {(float)i + 1, (float)i + 2, (float)i + 3, (float)i + 4};
	RtValue *v = f32(1, (int64_t[]){4}, d);
	r->params[i] = rt_value_retain(v);
	return v;
}

static bool
rec_emit(void *ctx, int k, RtValue *v, RtError *e)
{
	Rec *r = ctx;
	(void)e;
	char buf[16];
	snprintf(buf, sizeof buf, "E%d ", k);
	strcat(r->log, buf);
	for (int j = 0; j < 8; j++)
		r->field_refs_at[k][j] = r->fields[j] ? r->fields[j]->refs : 0;
	r->fields[k] = rt_value_retain(v);
	return true;
}

static void
rec_free(Rec *r)
{
	for (int i = 0; i < 8; i++) {
		rt_value_release(r->params[i]);
		rt_value_release(r->fields[i]);
	}
}

static const char transform[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main_transform_params(w0: R.Tensor((4,), dtype=\"float32\"), w1: R.Tensor((4,), dtype=\"float32\"), w2: R.Tensor((4,), dtype=\"float32\"), w3: R.Tensor((4,), dtype=\"float32\"), unused: R.Tensor((4,), dtype=\"float32\")):\n"
	"        R.func_attr({\"num_input\": 0})\n"
	"        with R.dataflow():\n"
	"            a = R.negative(w1)\n"
	"            b = R.add(a, w2)\n"
	"            c = R.multiply(a, w3)\n"
	"            gv = (w0, b, a, c, w2)\n"
	"            R.output(gv)\n"
	"        return gv\n";

/*
 * The documented order: pass-through w0 first; then each weight at its
 * first use (w1 for a, w2 for b, w3 for c), w2 emitted as soon as loaded;
 * a computed field emitted right after its binding; `unused` never loaded.
 * Liveness: w1 is released after a, so when w2 loads only the test's
 * reference remains; a is still needed by c when emitted (refs 2 = ours +
 * the executor's), released after c.
 */
static void
test_stream_order(void **state)
{
	(void)state;
	Prog g = compile(transform, "main_transform_params");
	Rec r = {.nparams = 5, .fail_load = -1};
	RtStream s = {rec_load, rec_emit, &r};
	RtError e;
	bool ok = rt_run_stream(g.p, &s, &e);
	if (!ok)
		fail_msg("%s", e.msg);
	assert_string_equal(r.log, "L0 E0 L1 E2 L2 E4 E1 L3 E3 ");
	/* w0 was released right after its emission: our two references
	 * (loaded, emitted) are left */
	assert_int_equal(r.refs_at[1][0], 2);
	/* w1 (used only by a) was released before w2 was loaded */
	assert_int_equal(r.refs_at[2][1], 1);
	/* a (field 2) still held by the executor when b was emitted, since c
	 * uses it; released after c (only our reference is left) */
	assert_int_equal(r.field_refs_at[1][2], 2);
	assert_int_equal(r.fields[2]->refs, 1);
	/* w2 is field 4 and was used by b: released by the executor after b */
	assert_int_equal(r.refs_at[3][2], 2); /* ours + the emitted field's */
	assert_true(at(r.fields[1], 0) == -2 + 3);
	assert_true(at(r.fields[3], 1) == -3 * 5);
	assert_null(r.params[4]);
	rec_free(&r);
	prog_free(&g);
}

/* Some fields only: c (field 3) needs a and w3, a needs w1; w0 and w2
 * are never loaded, b never computed, the other fields not emitted; the
 * parameters a run would load say the same. */
static void
test_stream_some(void **state)
{
	(void)state;
	Prog g = compile(transform, "main_transform_params");
	Rec r = {.nparams = 5, .fail_load = -1};
	RtStream s = {rec_load, rec_emit, &r};
	RtError e;
	bool want[5] = {false, false, false, true, false};
	bool used[5];
	assert_true(rt_stream_params(g.p, want, used, &e));
	assert_true(!used[0] && used[1] && !used[2] && used[3] && !used[4]);
	if (!rt_run_stream_some(g.p, &s, want, &e))
		fail_msg("%s", e.msg);
	assert_string_equal(r.log, "L1 L3 E3 ");
	assert_true(at(r.fields[3], 1) == -3 * 5);
	rec_free(&r);
	/* the pass-through field alone: w0, nothing run */
	Rec r2 = {.nparams = 5, .fail_load = -1};
	s.ctx = &r2;
	bool want0[5] = {true, false, false, false, false};
	assert_true(rt_run_stream_some(g.p, &s, want0, &e));
	assert_string_equal(r2.log, "L0 E0 ");
	rec_free(&r2);
	prog_free(&g);
}

/* A failing load stops the run with its message; nothing leaks. */
static void
test_stream_load_error(void **state)
{
	(void)state;
	Prog g = compile(transform, "main_transform_params");
	Rec r = {.nparams = 5, .fail_load = 2};
	RtStream s = {rec_load, rec_emit, &r};
	RtError e;
	assert_false(rt_run_stream(g.p, &s, &e));
	assert_non_null(strstr(e.msg, "cannot load 2"));
	rec_free(&r);
	prog_free(&g);
}

/* A non-tuple result is emitted as field 0 at the end; a loaded value of
 * the wrong shape is an error naming the parameter. */
static void
test_stream_single(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(w0: R.Tensor((4,), dtype=\"float32\"), w1: R.Tensor((4,), dtype=\"float32\")):\n"
		"        a = R.add(w0, w1)\n"
		"        return a\n";
	Prog g = compile(text, "main");
	Rec r = {.nparams = 2, .fail_load = -1};
	RtStream s = {rec_load, rec_emit, &r};
	RtError e;
	assert_true(rt_run_stream(g.p, &s, &e));
	assert_string_equal(r.log, "L0 L1 E0 ");
	assert_true(at(r.fields[0], 0) == 3);
	rec_free(&r);
	prog_free(&g);

	static const char text2[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(w0: R.Tensor((5,), dtype=\"float32\")):\n"
		"        a = R.negative(w0)\n"
		"        return a\n";
	g = compile(text2, "main");
	Rec r2 = {.nparams = 1, .fail_load = -1};
	s.ctx = &r2;
	assert_false(rt_run_stream(g.p, &s, &e));
	assert_non_null(strstr(e.msg, "parameter 'w0': dimension 0 is 4, "
			       "expected 5"));
	rec_free(&r2);
	prog_free(&g);
}

/* Liveness in rt_run: a long chain of large intermediates keeps only a
 * couple alive; observed through the kernels' unchanged results and ASan
 * (a leak or a use after free fails the test). */
static void
test_long_chain(void **state)
{
	(void)state;
	StrBuf b = {0};
	sb_puts(&b, "@I.ir_module\nclass Module:\n    @R.function\n"
		"    def main(x: R.Tensor((256, 256), dtype=\"float32\")):\n"
		"        v0 = R.add(x, x)\n");
	for (int i = 1; i < 40; i++)
		sb_printf(&b, "        v%d = R.subtract(v%d, x)\n", i, i - 1);
	sb_puts(&b, "        return v39\n");
	Prog g = compile(b.p, "main");
	sb_free(&b);
	RtValue *args[1] = {f32(2, (int64_t[]){256, 256}, NULL)};
	RtValue *r = run_ok(&g, args, 1);
	/* 2x - 39x */
	assert_true(at(r, 7) == -37.0f * 7);
	rt_value_release(r);
	prog_free(&g);
}

/* ------------------------------------------------------------ fusion */

/* The quantization chain divide -> round -> clip -> astype, as a module:
 * the chain alone (fusable into one kernel), or with every intermediate
 * also returned (used twice: nothing fuses, one kernel per op). */
static const char quant_fused[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(w: R.Tensor((4, 64), dtype=\"float32\"), s: R.Tensor((4, 1), dtype=\"float32\")):\n"
	"        d = R.divide(w, s)\n"
	"        r = R.round(d)\n"
	"        c = R.clip(r, R.prim_value(-127), R.prim_value(127))\n"
	"        q = R.astype(c, dtype=\"int8\")\n"
	"        return q\n";
static const char quant_unfused[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(w: R.Tensor((4, 64), dtype=\"float32\"), s: R.Tensor((4, 1), dtype=\"float32\")):\n"
	"        d = R.divide(w, s)\n"
	"        r = R.round(d)\n"
	"        c = R.clip(r, R.prim_value(-127), R.prim_value(127))\n"
	"        q = R.astype(c, dtype=\"int8\")\n"
	"        return (q, d, r, c)\n";
/* The intermediate d matched to a struct info (checked at run time): d
 * stays a tensor of its own, the rest fuses. */
static const char quant_annotated[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(w: R.Tensor((4, 64), dtype=\"float32\"), s: R.Tensor((4, 1), dtype=\"float32\")):\n"
	"        d0 = R.divide(w, s)\n"
	"        d = R.match_cast(d0, R.Tensor((4, 64), dtype=\"float32\"))\n"
	"        r = R.round(d)\n"
	"        c = R.clip(r, R.prim_value(-127), R.prim_value(127))\n"
	"        q = R.astype(c, dtype=\"int8\")\n"
	"        return q\n";

/* The same with every binding annotated as TVM prints it: annotations that
 * inference proves check nothing, so they do not stop the fusion. */
static const char quant_proven[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(w: R.Tensor((4, 64), dtype=\"float32\"), s: R.Tensor((4, 1), dtype=\"float32\")):\n"
	"        d: R.Tensor((4, 64), dtype=\"float32\") = R.divide(w, s)\n"
	"        r: R.Tensor((4, 64), dtype=\"float32\") = R.round(d)\n"
	"        c: R.Tensor((4, 64), dtype=\"float32\") = R.clip(r, R.prim_value(-127), R.prim_value(127))\n"
	"        q: R.Tensor((4, 64), dtype=\"int8\") = R.astype(c, dtype=\"int8\")\n"
	"        return q\n";

/* Quantization inputs: scales 0.5, 0.25, 2, 1e-3 per row; values with
 * exact halves (ties round to even), beyond +-127 (clipped), negative
 * zero and tiny values. */
static void
quant_inputs(RtValue **w, RtValue **s)
{
	float wd[4 * 64], sd[4] = {0.5f, 0.25f, 2.0f, 1e-3f};
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 64; j++) {
			float v = ((float)j - 32.0f) * 0.75f + 0.125f * (float)(i + 1);
			if (j == 0)
				v = -0.0f;
			if (j == 1)
				v = sd[i] * 2.5f; /* a tie: 2 */
			if (j == 2)
				v = sd[i] * -3.5f; /* a tie: -4 */
			if (j == 3)
				v = 1e6f;
			if (j == 4)
				v = -1e6f;
			wd[i * 64 + j] = v;
		}
	*w = f32(2, (int64_t[]){4, 64}, wd);
	*s = f32(2, (int64_t[]){4, 1}, sd);
}

/* q computed in C, one operation at a time as the ops define them. */
static int8_t
quant_ref(const RtValue *w, const RtValue *s, int i, int j)
{
	float d = ((const float *)w->t->data)[i * 64 + j] /
		  ((const float *)s->t->data)[i];
	float r = nearbyintf(d);
	float c = r < -127 ? -127 : r > 127 ? 127 : r;
	return (int8_t)c;
}

/* The fused chain (one kernel) gives bit for bit what the unfused one
 * (four kernels, every intermediate stored) gives, and what C computes. */
static void
test_fusion_quantize(void **state)
{
	(void)state;
	Prog gf = compile(quant_fused, "main");
	Prog gu = compile(quant_unfused, "main");
	Prog ga = compile(quant_annotated, "main");
	Prog gp = compile(quant_proven, "main");
	assert_int_equal(rt_program_num_kernels(gf.p), 1);
	assert_int_equal(rt_program_num_kernels(gu.p), 4);
	assert_int_equal(rt_program_num_kernels(ga.p), 2);
	assert_int_equal(rt_program_num_kernels(gp.p), 1);

	RtValue *w, *s;
	quant_inputs(&w, &s);
	RtValue *args[2] = {rt_value_retain(w), rt_value_retain(s)};
	RtValue *qf = run_ok(&gf, args, 2);
	args[0] = rt_value_retain(w);
	args[1] = rt_value_retain(s);
	RtValue *tu = run_ok(&gu, args, 2);
	args[0] = rt_value_retain(w);
	args[1] = rt_value_retain(s);
	RtValue *qa = run_ok(&ga, args, 2);
	args[0] = rt_value_retain(w);
	args[1] = rt_value_retain(s);
	RtValue *qp = run_ok(&gp, args, 2);
	assert_int_equal(tu->kind, RV_TUPLE);
	assert_int_equal(tu->n, 4);
	RtValue *qu = tu->fields[0];
	assert_int_equal(qf->t->dtype, DT_I8);
	assert_int_equal(qu->t->dtype, DT_I8);
	assert_int_equal(qa->t->dtype, DT_I8);
	assert_int_equal(qf->t->nbytes, 256);
	assert_memory_equal(qf->t->data, qu->t->data, 256);
	assert_memory_equal(qa->t->data, qu->t->data, 256);
	assert_memory_equal(qp->t->data, qu->t->data, 256);
	const int8_t *q = qf->t->data;
	const float *d = tu->fields[1]->t->data, *r = tu->fields[2]->t->data,
		    *c = tu->fields[3]->t->data;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 64; j++) {
			int k = i * 64 + j;
			float dd = ((const float *)w->t->data)[k] /
				   ((const float *)s->t->data)[i];
			assert_memory_equal(&d[k], &dd, 4);
			assert_true(r[k] == nearbyintf(dd));
			assert_true(c[k] == (float)quant_ref(w, s, i, j));
			if (q[k] != quant_ref(w, s, i, j))
				fail_msg("q[%d][%d] is %d, expected %d", i, j,
					 q[k], quant_ref(w, s, i, j));
		}
	assert_int_equal(q[1], 2);    /* 2.5 rounds to even */
	assert_int_equal(q[2], -4);   /* -3.5 too */
	assert_int_equal(q[3], 127);  /* clipped */
	assert_int_equal(q[4], -127);
	rt_value_release(qf);
	rt_value_release(tu);
	rt_value_release(qa);
	rt_value_release(qp);
	rt_value_release(w);
	rt_value_release(s);
	prog_free(&gf);
	prog_free(&gu);
	prog_free(&ga);
	prog_free(&gp);
}

/* The module's text, for comparing before and after planning. */
static char *
module_text(const Module *m)
{
	PrintOpts o = {.no_header = true};
	StrBuf b = {0};
	print_module(&b, m, &o);
	return sb_take(&b);
}

/* Fusion is data of the plan: a chain of elementwise calls and a
 * transposed matmul operand are computed inside the kernels that read
 * them (two kernels for five bindings) while the IR stays as written, the
 * plan names the producers each kernel computes, and the values are
 * those computed in C. */
static void
test_fusion_as_data(void **state)
{
	(void)state;
	static const char src[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((2, 3), dtype=\"float32\"),"
		" y: R.Tensor((2, 3), dtype=\"float32\"),"
		" w: R.Tensor((4, 3), dtype=\"float32\")):\n"
		"        lv = R.add(x, y)\n"
		"        lv1 = R.multiply(lv, y)\n"
		"        gv = R.negative(lv1)\n"
		"        wt = R.permute_dims(w, axes=[1, 0])\n"
		"        out = R.matmul(gv, wt)\n"
		"        return out\n";
	rlx_diags *d = rlx_diags_new();
	Module *m = rlx_parse("test.py", src, strlen(src), d);
	assert_non_null(m);
	char *before = module_text(m);
	rlx_module_free(m);
	Prog g = compile(src, "main");
	char *after = module_text(g.m);
	assert_string_equal(before, after);
	assert_int_equal(rt_program_num_kernels(g.p), 2);
	StrBuf plan = {0};
	rt_program_plan(g.p, &plan);
	assert_non_null(strstr(plan.p, "5 bindings, 2 kernel calls, 3 fused"));
	assert_non_null(strstr(plan.p, "lv1 = R.multiply(lv, y)"));
	assert_non_null(strstr(plan.p, "_negative, computing lv, lv1\n"));
	assert_non_null(strstr(plan.p, "_matmul, computing wt\n"));
	const char *l = strstr(plan.p, "    lv = ");
	assert_non_null(l);
	assert_non_null(strstr(l, "# fused into gv\n"));
	float xd[6], yd[6], wd[12];
	for (int i = 0; i < 6; i++)
		xd[i] = (float)i * 0.5f - 1.0f, yd[i] = (float)(i % 4) - 1.5f;
	for (int i = 0; i < 12; i++)
		wd[i] = (float)((i * 7) % 5) - 2.0f;
	RtValue *args[3] = {f32(2, (int64_t[]){2, 3}, xd),
			    f32(2, (int64_t[]){2, 3}, yd),
			    f32(2, (int64_t[]){4, 3}, wd)};
	RtValue *r = run_ok(&g, args, 3);
	assert_int_equal(r->t->ndim, 2);
	assert_int_equal(r->t->shape[1], 4);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++) {
			float want = 0;
			for (int k = 0; k < 3; k++)
				want += -((xd[i * 3 + k] + yd[i * 3 + k]) * yd[i * 3 + k]) *
					wd[j * 3 + k];
			assert_true(fabsf(at(r, i * 4 + j) - want) <= 1e-5f);
		}
	rt_value_release(r);
	sb_free(&plan);
	free(before);
	free(after);
	rlx_diags_free(d);
	prog_free(&g);
}

/* max(abs(w)) over the last axis: fused into the reduction (one kernel)
 * it equals the unfused pair and the maximum computed in C. */
static void
test_fusion_reduce(void **state)
{
	(void)state;
	static const char fused[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(w: R.Tensor((3, 2, 50), dtype=\"float32\")):\n"
		"        a = R.abs(w)\n"
		"        m = R.max(a, axis=[2], keepdims=True)\n"
		"        return m\n";
	static const char unfused[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(w: R.Tensor((3, 2, 50), dtype=\"float32\")):\n"
		"        a = R.abs(w)\n"
		"        m = R.max(a, axis=[2], keepdims=True)\n"
		"        return (m, a)\n";
	Prog gf = compile(fused, "main");
	Prog gu = compile(unfused, "main");
	assert_int_equal(rt_program_num_kernels(gf.p), 1);
	assert_int_equal(rt_program_num_kernels(gu.p), 2);
	float wd[300];
	for (int i = 0; i < 300; i++)
		wd[i] = (float)((i * 37) % 101 - 50) * 0.01f;
	wd[17] = -7.5f;  /* row 0: the largest magnitude is negative */
	wd[120] = 3.25f; /* row 2 */
	for (int j = 0; j < 50; j++) /* row 5: all negative */
		wd[250 + j] = -(float)(j + 1) / 64.0f;
	RtValue *w = f32(3, (int64_t[]){3, 2, 50}, wd);
	RtValue *args[1] = {rt_value_retain(w)};
	RtValue *mf = run_ok(&gf, args, 1);
	args[0] = rt_value_retain(w);
	RtValue *tu = run_ok(&gu, args, 1);
	RtValue *mu = tu->fields[0];
	assert_int_equal(mf->t->ndim, 3);
	assert_int_equal(mf->t->shape[2], 1);
	assert_int_equal(mf->t->nbytes, 6 * 4);
	assert_memory_equal(mf->t->data, mu->t->data, 6 * 4);
	for (int r = 0; r < 6; r++) {
		float want = 0;
		for (int j = 0; j < 50; j++)
			want = fmaxf(want, fabsf(wd[r * 50 + j]));
		assert_true(at(mf, r) == want);
	}
	assert_true(at(mf, 0) == 7.5f);
	assert_true(at(mf, 5) == 50.0f / 64.0f);
	rt_value_release(mf);
	rt_value_release(tu);
	rt_value_release(w);
	prog_free(&gf);
	prog_free(&gu);
}

/* ------------------------------------------------------------ int8 matmul */

/* x @ dequantize(q, s).T as examples/llama_q8.py writes it (annotated, as
 * `rlx lift` prints it): q int8 [40, 2, 32], a scale per group of 32. */
static const char dq_grouped[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((\"n\", 64), dtype=\"float32\"), q: R.Tensor((40, 2, 32), dtype=\"int8\"), s: R.Tensor((40, 2, 1), dtype=\"float32\")):\n"
	"        n = T.int64()\n"
	"        d0: R.Tensor((40, 2, 32), dtype=\"float32\") = R.astype(q, dtype=\"float32\")\n"
	"        d1: R.Tensor((40, 2, 32), dtype=\"float32\") = R.multiply(d0, s)\n"
	"        w: R.Tensor((40, 64), dtype=\"float32\") = R.reshape(d1, R.shape([40, 64]))\n"
	"        wt: R.Tensor((64, 40), dtype=\"float32\") = R.permute_dims(w, axes=[1, 0])\n"
	"        y: R.Tensor((n, 40), dtype=\"float32\") = R.matmul(x, wt, out_dtype=\"void\")\n"
	"        return y\n";
/* The same with the dequantized weights also returned: stored, not fused. */
static const char dq_stored[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((\"n\", 64), dtype=\"float32\"), q: R.Tensor((40, 2, 32), dtype=\"int8\"), s: R.Tensor((40, 2, 1), dtype=\"float32\")):\n"
	"        n = T.int64()\n"
	"        d0 = R.astype(q, dtype=\"float32\")\n"
	"        d1 = R.multiply(d0, s)\n"
	"        w = R.reshape(d1, R.shape([40, 64]))\n"
	"        wt = R.permute_dims(w, axes=[1, 0])\n"
	"        y = R.matmul(x, wt, out_dtype=\"void\")\n"
	"        return (y, w)\n";
/* One scale per row, the scale first: q [40, 64], s [40, 1]. */
static const char dq_rows[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((\"n\", 64), dtype=\"float32\"), q: R.Tensor((40, 64), dtype=\"int8\"), s: R.Tensor((40, 1), dtype=\"float32\")):\n"
	"        d0 = R.astype(q, dtype=\"float32\")\n"
	"        w = R.multiply(s, d0)\n"
	"        wt = R.permute_dims(w, axes=[1, 0])\n"
	"        y = R.matmul(x, wt, out_dtype=\"void\")\n"
	"        return y\n";

static RtValue *
i8_tensor(int ndim, const int64_t *shape)
{
	RtError e;
	RtTensor *t = rt_tensor_new(DT_I8, ndim, shape, &e);
	assert_non_null(t);
	int8_t *p = t->data;
	for (int64_t i = 0; i < rt_numel(t); i++)
		p[i] = (int8_t)((i * 37 + 11) % 255 - 127);
	return rt_value_tensor(t);
}

/* x [n, 64] @ (q * s).T: y[i, j] = sum_k x[i, k] q[j, k] s[j, k / gs]. */
static void
check_dq(const RtValue *y, const float *x, int64_t n, const RtValue *q,
	 const RtValue *s, int gs)
{
	assert_int_equal(y->t->ndim, 2);
	assert_int_equal(y->t->shape[0], n);
	assert_int_equal(y->t->shape[1], 40);
	const int8_t *qd = q->t->data;
	const float *sd = s->t->data;
	for (int64_t i = 0; i < n; i++)
		for (int j = 0; j < 40; j++) {
			double want = 0, mag = 0;
			for (int k = 0; k < 64; k++) {
				double p = x[i * 64 + k] * (double)qd[j * 64 + k] *
					   sd[(j * 64 + k) / gs];
				want += p;
				mag += fabs(p);
			}
			double got = at(y, i * 40 + j);
			if (!(fabs(got - want) <= 1e-5 * mag + 1e-6))
				fail_msg("y[%lld, %d] = %g, want %g", (long long)i, j,
					 got, want);
		}
}

/* The dequantize fuses into the matmul (one kernel reading q and s) in
 * both forms, and computes what C computes, on the GEMV (n = 3) and the
 * GEMM (n = 20) path; stored, the weights are what q * s gives. */
static void
test_fusion_dequant(void **state)
{
	(void)state;
	Prog gg = compile(dq_grouped, "main");
	Prog gs = compile(dq_stored, "main");
	Prog gr = compile(dq_rows, "main");
	assert_int_equal(rt_program_num_kernels(gg.p), 1);
	assert_int_equal(rt_program_num_kernels(gs.p), 2);
	assert_int_equal(rt_program_num_kernels(gr.p), 1);
	float xd[20 * 64], sd[80];
	for (int i = 0; i < 20 * 64; i++)
		xd[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
	for (int i = 0; i < 80; i++)
		sd[i] = 0.001f * (float)(i + 1) * (i % 3 ? 1.0f : -1.0f);
	for (int n = 3; n <= 20; n += 17) {
		RtValue *q = i8_tensor(3, (int64_t[]){40, 2, 32});
		RtValue *s = f32(3, (int64_t[]){40, 2, 1}, sd);
		RtValue *args[3] = {f32(2, (int64_t[]){n, 64}, xd),
				    rt_value_retain(q), rt_value_retain(s)};
		RtValue *y = run_ok(&gg, args, 3);
		check_dq(y, xd, n, q, s, 32);
		args[0] = f32(2, (int64_t[]){n, 64}, xd);
		args[1] = rt_value_retain(q);
		args[2] = rt_value_retain(s);
		RtValue *t = run_ok(&gs, args, 3);
		assert_int_equal(t->kind, RV_TUPLE);
		check_dq(t->fields[0], xd, n, q, s, 32);
		const int8_t *qd = q->t->data;
		for (int k = 0; k < 40 * 64; k++)
			assert_true(at(t->fields[1], k) == (float)qd[k] * sd[k / 32]);
		rt_value_release(t);
		rt_value_release(y);
		rt_value_release(q);
		rt_value_release(s);

		q = i8_tensor(2, (int64_t[]){40, 64});
		s = f32(2, (int64_t[]){40, 1}, sd);
		args[0] = f32(2, (int64_t[]){n, 64}, xd);
		args[1] = rt_value_retain(q);
		args[2] = rt_value_retain(s);
		y = run_ok(&gr, args, 3);
		check_dq(y, xd, n, q, s, 64);
		rt_value_release(y);
		rt_value_release(q);
		rt_value_release(s);
	}
	prog_free(&gg);
	prog_free(&gs);
	prog_free(&gr);
}

/* An f16 intermediate does not fuse (storing rounds it): x -> f16 -> f32
 * is x rounded to half precision, as computed in C, in two kernels; an
 * intermediate used twice (b) is computed once and both users see it. */
static void
test_fusion_refused(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((40,), dtype=\"float32\")):\n"
		"        h = R.astype(x, dtype=\"float16\")\n"
		"        y = R.astype(h, dtype=\"float32\")\n"
		"        return y\n";
	Prog g = compile(text, "main");
	assert_int_equal(rt_program_num_kernels(g.p), 2);
	float xd[40];
	for (int i = 0; i < 40; i++)
		xd[i] = 1.0f + (float)i * 0.000123f + (i % 3 ? 1e-5f : 0);
	xd[0] = 65520.0f;  /* rounds to inf in f16 */
	xd[1] = 1e-8f;     /* underflows to 0 */
	RtValue *args[1] = {f32(1, (int64_t[]){40}, xd)};
	RtValue *y = run_ok(&g, args, 1);
	int rounded = 0;
	for (int i = 0; i < 40; i++) {
		float want = rt_f16_to_f32(rt_f32_to_f16(xd[i]));
		assert_memory_equal(&((const float *)y->t->data)[i], &want, 4);
		rounded += want != xd[i];
	}
	assert_true(rounded > 30); /* the test would see a fused f32 path */
	assert_true(isinf(at(y, 0)));
	rt_value_release(y);
	prog_free(&g);

	static const char twice[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((40,), dtype=\"float32\")):\n"
		"        b = R.multiply(x, x)\n"
		"        c = R.add(b, x)\n"
		"        d = R.subtract(c, b)\n"
		"        return d\n";
	g = compile(twice, "main");
	/* b is used twice: stored; c fuses into d */
	assert_int_equal(rt_program_num_kernels(g.p), 2);
	args[0] = f32(1, (int64_t[]){40}, xd);
	y = run_ok(&g, args, 1);
	for (int i = 0; i < 40; i++) {
		float b = xd[i] * xd[i], c = b + xd[i], want = c - b;
		assert_memory_equal(&((const float *)y->t->data)[i], &want, 4);
	}
	rt_value_release(y);
	prog_free(&g);
}

/* ----------------------------------------------- rt_value_compare */

/* A float32 (or int32 when is_int) vector value of n elements. */
static RtValue *
vec_value(int n, const double *x, bool is_int)
{
	int64_t shape[1] = {n};
	RtTensor *t = rt_tensor_new(is_int ? DT_I32 : DT_F32, 1, shape, NULL);
	assert_non_null(t);
	for (int i = 0; i < n; i++) {
		if (is_int)
			((int32_t *)t->data)[i] = (int32_t)x[i];
		else
			((float *)t->data)[i] = (float)x[i];
	}
	return rt_value_tensor(t);
}

/* rt_value_compare(a, b) and the text it wrote. */
static bool
compare(const RtValue *a, const RtValue *b, char **text)
{
	size_t len;
	FILE *f = open_memstream(text, &len);
	assert_non_null(f);
	bool ok = rt_value_compare("out", a, b, f);
	fclose(f);
	return ok;
}

static void
check_compare(RtValue *a, RtValue *b, bool want, const char *fragment)
{
	char *text = NULL;
	bool ok = compare(a, b, &text);
	if (ok != want || !strstr(text, fragment))
		fail_msg("compare gave %d, wanted %d; text: %s", ok, want, text);
	free(text);
	rt_value_release(a);
	rt_value_release(b);
}

/* What `rlx verify` calls agreement, and what it calls a mismatch. */
static void
test_compare(void **state)
{
	(void)state;
	double ref[4] = {1, -2, 3, 4}, near[4] = {1.000001, -2, 3, 4};
	double far[4] = {1, -2, 3.01, 4}, tiny[4] = {1e-7, -2, 3, 4};
	double nan1[4] = {NAN, -2, 3, 4}, inf1[4] = {INFINITY, -2, 3, 4};
	check_compare(vec_value(4, ref, false), vec_value(4, ref, false), true,
		      "out (4,) float32: max abs diff 0: equal, ok");
	/* 1e-6 off 1, next to 4: within the rule, and the line says which */
	check_compare(vec_value(4, near, false), vec_value(4, ref, false), true,
		      "within |a - b| <= 1e-05 * (|b| + max|b|), "
		      "the worst element at 2% of its bound, ok");
	check_compare(vec_value(4, far, false), vec_value(4, ref, false), false, "MISMATCH");
	/* relative to the largest reference element: 1e-7 next to 4 agrees */
	double zero[4] = {0, -2, 3, 4};
	check_compare(vec_value(4, tiny, false), vec_value(4, zero, false), true, " ok");
	check_compare(vec_value(4, nan1, false), vec_value(4, ref, false), false, "MISMATCH");
	check_compare(vec_value(4, ref, false), vec_value(4, nan1, false), false, "MISMATCH");
	check_compare(vec_value(4, nan1, false), vec_value(4, nan1, false), true, " ok");
	check_compare(vec_value(4, inf1, false), vec_value(4, inf1, false), true, " ok");
	check_compare(vec_value(4, inf1, false), vec_value(4, ref, false), false, "MISMATCH");
	/* integers are exact */
	double off[4] = {1, -2, 3, 5};
	check_compare(vec_value(4, off, true), vec_value(4, ref, true), false, "MISMATCH");
	check_compare(vec_value(4, ref, true), vec_value(4, ref, true), true,
		      "out (4,) int32: max abs diff 0: equal, ok");
	check_compare(vec_value(4, off, true), vec_value(4, ref, true), false,
		      "max abs diff 1: MISMATCH (integers must be equal)");
	/* shapes, dtypes, kinds, tuples, shape tuples */
	check_compare(vec_value(3, ref, false), vec_value(4, ref, false), false,
		      "out: (3,) float32 vs (4,) float32");
	check_compare(vec_value(4, ref, true), vec_value(4, ref, false), false,
		      "(4,) int32 vs (4,) float32");
	int64_t s1[2] = {2, 3}, s2[2] = {2, 4};
	check_compare(rt_value_shape(s1, 2), vec_value(4, ref, false), false,
		      "different kinds");
	check_compare(rt_value_shape(s1, 2), rt_value_shape(s1, 2), true, "equal");
	check_compare(rt_value_shape(s1, 2), rt_value_shape(s2, 2), false, "DIFFERS");
	RtValue *ta[2] = {vec_value(4, ref, false), vec_value(4, ref, false)};
	RtValue *tb[2] = {vec_value(4, ref, false), vec_value(4, far, false)};
	check_compare(rt_value_tuple(ta, 2), rt_value_tuple(tb, 2), false,
		      "out.1 (4,) float32: max abs diff 0.01");
	check_compare(rt_value_prim(DT_F32, 0, 2.0), rt_value_prim(DT_F32, 0, 2.0),
		      true, "scalar, abs diff 0 ok");
	check_compare(rt_value_prim(DT_I64, 3, 0), rt_value_prim(DT_I64, 4, 0),
		      false, "MISMATCH");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_basic),
		cmocka_unit_test(test_param_errors),
		cmocka_unit_test(test_if_else),
		cmocka_unit_test(test_function_calls),
		cmocka_unit_test(test_match_cast),
		cmocka_unit_test(test_division_by_zero),
		cmocka_unit_test(test_reshape_view),
		cmocka_unit_test(test_unknown_shapes_and_recursion),
		cmocka_unit_test(test_stream_order),
		cmocka_unit_test(test_stream_some),
		cmocka_unit_test(test_stream_load_error),
		cmocka_unit_test(test_stream_single),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_fusion_quantize),
		cmocka_unit_test(test_fusion_reduce),
		cmocka_unit_test(test_fusion_as_data),
		cmocka_unit_test(test_fusion_refused),
		cmocka_unit_test(test_fusion_dequant),
		cmocka_unit_test(test_compare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
