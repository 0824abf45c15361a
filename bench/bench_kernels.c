/*
 * bench_kernels.c — timings for `make bench` (bench/run.py reads them).
 *
 *   bench_kernels compile LAYERS REPS
 *       Generates a Llama-style model of LAYERS identical decoder layers
 *       as TVMScript, parses it (rlx_parse: parse, infer, verify), then
 *       REPS times: a fresh Codegen on one Jit, cg_kernel over every op
 *       call of the module, cg_flush. Prints
 *       `compile LAYERS SECONDS CALLS KERNELS` (the median).
 *   bench_kernels tir NAME REPS
 *       A prim_func as LegalizeOps writes it (add, sum over the last
 *       axis, matmul) against rlx's kernel of the same op call, on the
 *       same buffers, timed alternately. Prints `tir NAME TIR_SECONDS
 *       OP_SECONDS THREADS` (medians).
 *   bench_kernels gemmisa ISA M K N n|t REPS [DTYPE]
 *       rlx_gemm itself with the kernels of ISA (avx2, avx512 or generic;
 *       the host must have it) on float32 a and b of DTYPE (float32, the
 *       default, float16, bfloat16, or int8 with a scale per group of
 *       32), on a pool of
 *       RLX_NUM_THREADS: a host with AVX-512 can time the AVX2 kernels an
 *       AVX2-only CPU runs. Prints `gemm SECONDS THREADS` (the best).
 *   bench_kernels model FILE N REPS [lift]
 *       The main function of the model in FILE (examples/llama.py, or
 *       examples/llama_legalized.py, scaled) run by the executor on
 *       random weights in memory and N token ids; with lift, the module
 *       lifted first (as `rlx transform` lifts it), its
 *       main_transform_params run once and the lifted main timed on its
 *       outputs. Prints `model SECONDS THREADS` (the best of REPS runs
 *       after one warm-up; the JIT and the transform are not timed).
 *   bench_kernels kernel NAME REPS
 *       Parses the one-op function of row NAME (transpose, cast, add,
 *       rms_norm, matmul, max_pool2d, avg_pool2d, attention, conv1d,
 *       sort, sort1m, argsort, topk), compiles its kernel, runs it REPS times on
 *       real buffers and times each run with clock_gettime; the same for
 *       a plain memcpy of the largest buffer's bytes. Prints
 *       `kernel NAME RLX_SECONDS MEMCPY_SECONDS BYTES THREADS` (medians).
 *
 * Only the library is used (ir.h, codegen.h), not the executor.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen.h"
#include "gemm.h"
#include "index_error.h"
#include "pool.h"
#include "rt_exec.h"
#include "transform.h"

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec ts;
	clock_gettime(getenv("BENCH_CPU_TIME") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The best of reps timed runs of p on args, after one that warms up;
 * false (the error printed under what) when a run fails. */
static bool
best_of_runs(RtProgram *p, RtValue **args, int reps, const char *what, double *best)
{
	*best = 1e30;
	for (int r = 0; r <= reps; r++) {
		RtError e;
		RtValue *res = NULL;
		double t0 = now();
		if (!rt_run(p, args, &res, &e)) {
			fprintf(stderr, "%s: %s\n", what, e.msg);
			return false;
		}
		double t = now() - t0;
		rt_value_release(res);
		if (r)
			*best = t < *best ? t : *best;
	}
	return true;
}

/* The result line the bench reads: "LABEL SECONDS THREADS". */
static void
print_best(const char *label, double best)
{
	ThreadPool *pl = tpool_new(0); /* the size the program's pool has */
	printf("%s %.6f %d\n", label, best, tpool_size(pl));
	tpool_free(pl);
}

/*
 * A 64-byte aligned buffer of bytes, allocated as rlx allocates a tensor
 * of that size (rt_tensor_new: huge pages from RT_HUGE_MIN on, as NumPy
 * does for its large arrays), so that rlx's kernels, the read loop and
 * the peers all read memory mapped alike; rt_buf_free gives it back.
 */
static void *
buf_new(size_t bytes)
{
	void *p = rt_buf_alloc(bytes);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of t[0..n), which it sorts. */
static double
median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* ------------------------------------------------------------ the model */

/* The model's shape: `compile` uses the default, `forward` its own. */
typedef struct {
	int hid, heads, hdim, ffn;
} Shape;
static const Shape SMALL = {512, 8, 64, 1376};
enum { Q8_GROUP = 32 };

/* A weight parameter of layer l; with q8 a matrix is int8 groups of
 * Q8_GROUP along its input dimension (NAME_q) and their scales (NAME_s). */
static void
param(StrBuf *b, int l, const char *name, int d0, int d1, bool q8)
{
	if (d1 && q8)
		sb_printf(b, ", `model.layers.%d.%s_q`: R.Tensor((%d, %d, %d), dtype=\"int8\")"
			  ", `model.layers.%d.%s_s`: R.Tensor((%d, %d, 1), dtype=\"float32\")",
			  l, name, d0, d1 / Q8_GROUP, Q8_GROUP, l, name, d0, d1 / Q8_GROUP);
	else if (d1)
		sb_printf(b, ", `model.layers.%d.%s`: R.Tensor((%d, %d), dtype=\"float32\")",
			  l, name, d0, d1);
	else
		sb_printf(b, ", `model.layers.%d.%s`: R.Tensor((%d,), dtype=\"float32\")",
			  l, name, d0);
}

/*
 * The transposed weight NAME of layer l as the binding aL_I: a
 * permute_dims of the parameter, or with q8 of its dequantization
 * (astype, multiply by the group scales, reshape: examples/llama_q8.py's
 * run-time half, which the executor fuses into the matmul).
 */
static void
weight_t(StrBuf *b, int l, int i, const char *name, int d0, int d1, bool q8)
{
	if (q8) {
		sb_printf(b, "            a%d_%dq = R.reshape(R.multiply(R.astype("
			  "`model.layers.%d.%s_q`, dtype=\"float32\"), `model.layers.%d.%s_s`), "
			  "R.shape([%d, %d]))\n", l, i, l, name, l, name, d0, d1);
		sb_printf(b, "            a%d_%d = R.permute_dims(a%d_%dq, axes=[1, 0])\n",
			  l, i, l, i);
	} else {
		sb_printf(b, "            a%d_%d = R.permute_dims(`model.layers.%d.%s`, axes=None)\n",
			  l, i, l, name);
	}
}

/* The TVMScript of a model with `layers` identical decoder layers (int8
 * projection weights with q8). */
static char *
gen_model(int layers, Shape sh, bool q8)
{
	const int HID = sh.hid, HEADS = sh.heads, HDIM = sh.hdim, FFN = sh.ffn;
	StrBuf b = {0};
	sb_printf(&b, "@I.ir_module\nclass Module:\n    @R.function\n    def main("
		  "x: R.Tensor((1, \"n\", %d), dtype=\"float32\")", HID);
	for (int l = 0; l < layers; l++) {
		param(&b, l, "input_layernorm.weight", HID, 0, q8);
		param(&b, l, "self_attn.q_proj.weight", HID, HID, q8);
		param(&b, l, "self_attn.k_proj.weight", HID, HID, q8);
		param(&b, l, "self_attn.v_proj.weight", HID, HID, q8);
		param(&b, l, "self_attn.o_proj.weight", HID, HID, q8);
		param(&b, l, "post_attention_layernorm.weight", HID, 0, q8);
		param(&b, l, "mlp.gate_proj.weight", FFN, HID, q8);
		param(&b, l, "mlp.up_proj.weight", FFN, HID, q8);
		param(&b, l, "mlp.down_proj.weight", HID, FFN, q8);
	}
	sb_puts(&b, "):\n        n = T.int64()\n"
		    "        R.func_attr({\"num_input\": 1})\n"
		    "        with R.dataflow():\n");
	const char *h = "x";
	char prev[32];
	for (int l = 0; l < layers; l++) {
		const char *P = "model.layers";
#define L(...) (sb_printf(&b, "            " __VA_ARGS__), sb_putc(&b, '\n'))
		L("a%d_0 = R.nn.rms_norm(%s, `%s.%d.input_layernorm.weight`, axes=[-1], epsilon=1e-05)", l, h, P, l);
		weight_t(&b, l, 1, "self_attn.q_proj.weight", HID, HID, q8);
		L("a%d_2 = R.matmul(a%d_0, a%d_1, out_dtype=\"void\")", l, l, l);
		weight_t(&b, l, 3, "self_attn.k_proj.weight", HID, HID, q8);
		L("a%d_4 = R.matmul(a%d_0, a%d_3, out_dtype=\"void\")", l, l, l);
		weight_t(&b, l, 5, "self_attn.v_proj.weight", HID, HID, q8);
		L("a%d_6 = R.matmul(a%d_0, a%d_5, out_dtype=\"void\")", l, l, l);
		L("a%d_7 = R.reshape(a%d_2, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_8 = R.permute_dims(a%d_7, axes=[0, 2, 1, 3])", l, l);
		L("a%d_9 = R.reshape(a%d_4, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_10 = R.permute_dims(a%d_9, axes=[0, 2, 3, 1])", l, l);
		L("a%d_11 = R.reshape(a%d_6, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_12 = R.permute_dims(a%d_11, axes=[0, 2, 1, 3])", l, l);
		L("a%d_13 = R.matmul(a%d_8, a%d_10, out_dtype=\"void\")", l, l, l);
		L("a%d_14 = R.multiply(a%d_13, R.const(%.17g, \"float32\"))", l, l,
		  1.0 / sqrt((double)HDIM));
		L("a%d_15 = R.nn.softmax(a%d_14, axis=-1)", l, l);
		L("a%d_16 = R.matmul(a%d_15, a%d_12, out_dtype=\"void\")", l, l, l);
		L("a%d_17 = R.permute_dims(a%d_16, axes=[0, 2, 1, 3])", l, l);
		L("a%d_18 = R.reshape(a%d_17, R.shape([1, n, %d]))", l, l, HID);
		weight_t(&b, l, 19, "self_attn.o_proj.weight", HID, HID, q8);
		L("a%d_20 = R.matmul(a%d_18, a%d_19, out_dtype=\"void\")", l, l, l);
		L("a%d_21 = R.add(%s, a%d_20)", l, h, l);
		L("a%d_22 = R.nn.rms_norm(a%d_21, `%s.%d.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)", l, l, P, l);
		weight_t(&b, l, 23, "mlp.gate_proj.weight", FFN, HID, q8);
		L("a%d_24 = R.matmul(a%d_22, a%d_23, out_dtype=\"void\")", l, l, l);
		L("a%d_25 = R.nn.silu(a%d_24)", l, l);
		weight_t(&b, l, 26, "mlp.up_proj.weight", FFN, HID, q8);
		L("a%d_27 = R.matmul(a%d_22, a%d_26, out_dtype=\"void\")", l, l, l);
		L("a%d_28 = R.multiply(a%d_25, a%d_27)", l, l, l);
		weight_t(&b, l, 29, "mlp.down_proj.weight", HID, FFN, q8);
		L("a%d_30 = R.matmul(a%d_28, a%d_29, out_dtype=\"void\")", l, l, l);
		L("a%d_31 = R.add(a%d_21, a%d_30)", l, l, l);
#undef L
		snprintf(prev, sizeof prev, "a%d_31", l);
		h = prev;
	}
	sb_printf(&b, "            gv = %s\n            R.output(gv)\n        return gv\n", h);
	return sb_take(&b);
}

/* x, the result of a call that reported to d; without one, d's diagnostics
 * and exit (a bench tool). */
static void *
or_exit(void *x, Diags *d)
{
	if (!x) {
		diag_print(d, stderr);
		exit(1);
	}
	diag_clear(d);
	free(d->items);
	return x;
}

/* Parses text; exits with the diagnostics on an error. */
static Module *
parse(const char *text)
{
	Diags d = {0};
	return or_exit(rlx_parse("bench.py", text, strlen(text), &d), &d);
}

/* Every op call in e (a function body or a branch), in order. */
static void
collect_calls(Expr *e, Vec *out)
{
	if (!e)
		return;
	if (e->kind == E_CALL) {
		vec_push(out, e);
		return;
	}
	if (e->kind == E_IF) {
		collect_calls(e->if_.then_, out);
		collect_calls(e->if_.else_, out);
		return;
	}
	if (e->kind != E_SEQ)
		return;
	for (int i = 0; i < e->seq.nblocks; i++)
		for (int j = 0; j < e->seq.blocks[i]->n; j++)
			collect_calls(e->seq.blocks[i]->bindings[j]->value, out);
	collect_calls(e->seq.body, out);
}

/* The kernels of every op call of m into cg, then flush. */
static int
compile_all(Codegen *cg, Module *m, Vec *calls, int *failed)
{
	Diags d = {0};
	*failed = 0;
	for (int i = 0; i < calls->n; i++)
		if (!cg_kernel(cg, m, calls->items[i], &d))
			(*failed)++;
	RtError err;
	if (!cg_flush(cg, &err)) {
		fprintf(stderr, "cg_flush: %s\n", err.msg);
		exit(1);
	}
	diag_clear(&d);
	free(d.items);
	return cg_num_kernels(cg);
}

static int
bench_compile(int layers, int reps)
{
	char *text = gen_model(layers, SMALL, false);
	Module *m = parse(text);
	Vec calls = {0};
	for (int f = 0; f < m->nfuncs; f++)
		collect_calls(m->funcs[f]->body, &calls);
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err.msg);
		return 1;
	}
	double *t = calloc((size_t)reps, sizeof *t);
	int nk = 0, failed = 0;
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		Codegen *cg = cg_new(jit);
		nk = compile_all(cg, m, &calls, &failed);
		cg_free(cg);
		t[r] = now() - t0;
	}
	if (failed)
		fprintf(stderr, "note: %d op calls could not be lowered\n", failed);
	printf("compile %d %.6f %d %d\n", layers, median(t, reps), calls.n, nk);
	free(t);
	vec_free(&calls);
	jit_free(jit);
	ir_module_free(m);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ kernels */

/* The benchmark rows: a one-op function each. */
static const struct {
	const char *name;
	const char *params;
	const char *call;
} rows[] = {
	{"transpose", "x: R.Tensor((4096, 4096), dtype=\"float32\")",
	 "R.permute_dims(x, axes=[1, 0])"},
	{"cast", "x: R.Tensor((4096, 4096), dtype=\"float32\")",
	 "R.astype(x, dtype=\"float16\")"},
	{"add", "x: R.Tensor((4096, 4096), dtype=\"float32\"), "
		"y: R.Tensor((4096, 4096), dtype=\"float32\")",
	 "R.add(x, y)"},
	{"rms_norm", "x: R.Tensor((4096, 4096), dtype=\"float32\"), "
		     "w: R.Tensor((4096,), dtype=\"float32\")",
	 "R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-05)"},
	{"matmul", "x: R.Tensor((512, 512), dtype=\"float32\"), "
		   "y: R.Tensor((512, 512), dtype=\"float32\")",
	 "R.matmul(x, y, out_dtype=\"void\")"},
	{"max_pool2d", "x: R.Tensor((4, 64, 112, 112), dtype=\"float32\")",
	 "R.nn.max_pool2d(x, pool_size=3, strides=2, padding=1)"},
	{"avg_pool2d", "x: R.Tensor((4, 64, 112, 112), dtype=\"float32\")",
	 "R.nn.avg_pool2d(x, pool_size=3, strides=2, padding=1, count_include_pad=True)"},
	{"attention", "q: R.Tensor((1, 512, 8, 64), dtype=\"float32\"), "
		      "k: R.Tensor((1, 512, 8, 64), dtype=\"float32\"), "
		      "v: R.Tensor((1, 512, 8, 64), dtype=\"float32\")",
	 "R.nn.attention(q, k, v, causal_mask=\"TopLeft\")"},
	{"conv1d", "x: R.Tensor((8, 64, 1024), dtype=\"float32\"), "
		   "w: R.Tensor((64, 64, 3), dtype=\"float32\")",
	 "R.nn.conv1d(x, w, padding=1)"},
	{"sort", "x: R.Tensor((1024, 4096), dtype=\"float32\")",
	 "R.sort(x, axis=-1)"},
	{"sort1m", "x: R.Tensor((1, 1048576), dtype=\"float32\")",
	 "R.sort(x, axis=-1)"},
	{"argsort", "x: R.Tensor((1024, 4096), dtype=\"float32\")",
	 "R.argsort(x, axis=-1)"},
	{"topk", "x: R.Tensor((1024, 4096), dtype=\"float32\")",
	 "R.topk(x, k=8, axis=-1)"},
};

/* A 64-byte aligned buffer of the static tensor si, filled. */
static void *
buffer(const SInfo *si, size_t *bytes, int64_t *dims, int *nd)
{
	int64_t n = 1;
	for (int i = 0; i < si->ndim; i++) {
		int64_t v;
		if (!pe_is_const(si->shape[i], &v)) {
			fprintf(stderr, "bench shapes must be static\n");
			exit(1);
		}
		dims[(*nd)++] = v;
		n *= v;
	}
	*bytes = (size_t)n * (size_t)((dtype_bits(si->dtype) + 7) / 8);
	size_t alloc = (*bytes + 63) / 64 * 64;
	unsigned char *p = buf_new(*bytes);
	if (si->dtype == DT_F32)
		for (int64_t i = 0; i < n; i++)
			((float *)p)[i] = 0.5f + (float)((uint64_t)i * 2654435761u % 997) * 0.001f;
	else
		memset(p, 0, alloc);
	return p;
}

static int
bench_kernel(const char *name, int reps)
{
	size_t r = 0;
	while (r < ARRAY_LEN(rows) && strcmp(rows[r].name, name))
		r++;
	if (r == ARRAY_LEN(rows)) {
		fprintf(stderr, "no benchmark row %s\n", name);
		return 2;
	}
	StrBuf b = {0};
	sb_printf(&b, "@I.ir_module\nclass Module:\n    @R.function\n"
		  "    def main(%s):\n        gv = %s\n        return gv\n",
		  rows[r].params, rows[r].call);
	char *text = sb_take(&b);
	Module *m = parse(text);
	Vec calls = {0};
	collect_calls(m->funcs[0]->body, &calls);
	Expr *e = calls.items[0];
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err.msg);
		return 1;
	}
	Codegen *cg = cg_new(jit);
	Diags d = {0};
	CgKernel *k = cg_kernel(cg, m, e, &d);
	if (!k || !cg_flush(cg, &err)) {
		diag_print(&d, stderr);
		fprintf(stderr, "cannot compile %s\n", name);
		return 1;
	}
	/* buffers: the tensor arguments, then the result */
	void *bufs[8];
	size_t sizes[8];
	int64_t dims[32];
	int nb = 0, nd = 0;
	size_t bytes = 0, big = 0;
	for (int i = 0; i < e->call.nargs; i++) {
		Expr *x = e->call.args[i];
		const SInfo *si = x->sinfo ? x->sinfo : x->var->sinfo;
		if (si->kind != SI_TENSOR)
			continue;
		bufs[nb] = buffer(si, &bytes, dims, &nd);
		sizes[nb++] = bytes;
		big = bytes > big ? bytes : big;
	}
	/* one buffer per field of a tuple result (topk's values, indices) */
	int nres = e->sinfo->kind == SI_TUPLE ? e->sinfo->nfields : 1;
	for (int i = 0; i < nres; i++) {
		bufs[nb] = buffer(e->sinfo->kind == SI_TUPLE ? e->sinfo->fields[i] : e->sinfo,
				    &bytes, dims, &nd);
		sizes[nb++] = bytes;
		big = bytes > big ? bytes : big;
	}
	if (nb != k->nin + k->nout || nd != k->ndims) {
		fprintf(stderr, "buffer mismatch\n");
		return 1;
	}
	double *tk = calloc((size_t)reps, sizeof *tk);
	double *tm = calloc((size_t)reps, sizeof *tm);
	unsigned char *src = buf_new(big);
	unsigned char *dst = buf_new(big);
	memset(src, 1, big);
	memset(dst, 2, big);
	for (int i = 0; i < 2; i++) { /* warm up: threads, page faults */
		k->fn(bufs, dims);
		memcpy(dst, src, big);
	}
	for (int i = 0; i < reps; i++) {
		double t0 = now();
		k->fn(bufs, dims);
		double t1 = now();
		memcpy(dst, src, big);
		double t2 = now();
		tk[i] = t1 - t0;
		tm[i] = t2 - t1;
	}
	printf("kernel %s %.6f %.6f %zu %d\n", name, median(tk, reps),
	       median(tm, reps), big, tpool_size(jit_pool(jit)));
	free(tk);
	free(tm);
	rt_buf_free(src, big);
	rt_buf_free(dst, big);
	for (int i = 0; i < nb; i++)
		rt_buf_free(bufs[i], sizes[i]);
	diag_clear(&d);
	free(d.items);
	cg_free(cg);
	jit_free(jit);
	vec_free(&calls);
	ir_module_free(m);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ TIR */

/* The TIR rows: a prim_func as TVM's LegalizeOps writes it and the op
 * call computing the same (shapes static, float32). */
static const struct {
	const char *name;
	const char *params;
	const char *call;
	const char *prim;
} tir_rows[] = {
	{"add", "x: R.Tensor((4096, 4096), dtype=\"float32\"), "
		"y: R.Tensor((4096, 4096), dtype=\"float32\")",
	 "R.add(x, y)",
	 "    @T.prim_func(private=True)\n"
	 "    def f(A: T.Buffer((T.int64(4096), T.int64(4096)), \"float32\"), "
	 "B: T.Buffer((T.int64(4096), T.int64(4096)), \"float32\"), "
	 "C: T.Buffer((T.int64(4096), T.int64(4096)), \"float32\")):\n"
	 "        T.func_attr({\"tir.noalias\": True})\n"
	 "        for ax0, ax1 in T.grid(T.int64(4096), T.int64(4096)):\n"
	 "            with T.block(\"T_add\"):\n"
	 "                v0, v1 = T.axis.remap(\"SS\", [ax0, ax1])\n"
	 "                T.reads(A[v0, v1], B[v0, v1])\n"
	 "                T.writes(C[v0, v1])\n"
	 "                C[v0, v1] = A[v0, v1] + B[v0, v1]\n"},
	{"sum", "x: R.Tensor((4096, 4096), dtype=\"float32\")",
	 "R.sum(x, axis=[1])",
	 "    @T.prim_func(private=True)\n"
	 "    def f(A: T.Buffer((T.int64(4096), T.int64(4096)), \"float32\"), "
	 "S: T.Buffer((T.int64(4096),), \"float32\")):\n"
	 "        T.func_attr({\"tir.noalias\": True})\n"
	 "        for ax0, k1 in T.grid(T.int64(4096), T.int64(4096)):\n"
	 "            with T.block(\"A_red\"):\n"
	 "                v0, v1 = T.axis.remap(\"SR\", [ax0, k1])\n"
	 "                T.reads(A[v0, v1])\n"
	 "                T.writes(S[v0])\n"
	 "                with T.init():\n"
	 "                    S[v0] = T.float32(0)\n"
	 "                S[v0] = S[v0] + A[v0, v1]\n"},
	{"matmul", "x: R.Tensor((512, 512), dtype=\"float32\"), "
		   "y: R.Tensor((512, 512), dtype=\"float32\")",
	 "R.matmul(x, y, out_dtype=\"void\")",
	 "    @T.prim_func(private=True)\n"
	 "    def f(A: T.Buffer((T.int64(512), T.int64(512)), \"float32\"), "
	 "B: T.Buffer((T.int64(512), T.int64(512)), \"float32\"), "
	 "C: T.Buffer((T.int64(512), T.int64(512)), \"float32\")):\n"
	 "        T.func_attr({\"tir.noalias\": True})\n"
	 "        for i0, i1, k in T.grid(T.int64(512), T.int64(512), T.int64(512)):\n"
	 "            with T.block(\"matmul\"):\n"
	 "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i0, i1, k])\n"
	 "                T.reads(A[v_i, v_k], B[v_k, v_j])\n"
	 "                T.writes(C[v_i, v_j])\n"
	 "                with T.init():\n"
	 "                    C[v_i, v_j] = T.float32(0)\n"
	 "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"},
};

/*
 * bench_kernels tir NAME REPS: the prim_func of TIR row NAME compiled by
 * cg_tir_kernel and the op call's kernel by cg_kernel, on the same
 * buffers, timed alternately; prints `tir NAME TIR_SECONDS OP_SECONDS
 * THREADS` (medians).
 */
static int
bench_tir(const char *name, int reps)
{
	size_t r = 0;
	while (r < ARRAY_LEN(tir_rows) && strcmp(tir_rows[r].name, name))
		r++;
	if (r == ARRAY_LEN(tir_rows)) {
		fprintf(stderr, "no TIR row %s\n", name);
		return 2;
	}
	StrBuf b = {0};
	sb_printf(&b, "@I.ir_module\nclass Module:\n%s\n    @R.function\n"
		  "    def main(%s):\n        gv = %s\n        return gv\n",
		  tir_rows[r].prim, tir_rows[r].params, tir_rows[r].call);
	char *text = sb_take(&b);
	Module *m = parse(text);
	Vec calls = {0};
	collect_calls(m->funcs[0]->body, &calls);
	Expr *e = calls.items[0];
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err.msg);
		return 1;
	}
	Codegen *cg = cg_new(jit);
	Diags d = {0};
	CgKernel *k = cg_kernel(cg, m, e, &d);
	CgKernel *kt = m->nprims ? cg_tir_kernel(cg, m, m->prims[0], &d) : NULL;
	if (!k || !kt || !cg_flush(cg, &err)) {
		diag_print(&d, stderr);
		fprintf(stderr, "cannot compile %s\n", name);
		return 1;
	}
	void *bufs[8];
	size_t sizes[8];
	int64_t dims[32];
	int nb = 0, nd = 0;
	size_t bytes = 0;
	for (int i = 0; i < e->call.nargs; i++) {
		Expr *x = e->call.args[i];
		const SInfo *si = x->sinfo ? x->sinfo : x->var->sinfo;
		bufs[nb] = buffer(si, &bytes, dims, &nd);
		sizes[nb++] = bytes;
	}
	bufs[nb] = buffer(e->sinfo, &bytes, dims, &nd);
	sizes[nb++] = bytes;
	if (nb != k->nin + k->nout || nd != k->ndims || nb != kt->nin || nd != kt->ndims) {
		fprintf(stderr, "buffer mismatch\n");
		return 1;
	}
	RlxIndexRec rec = {0}; /* the prim_func kernel's last buffer */
	bufs[nb] = &rec;
	double *t1 = calloc((size_t)reps, sizeof *t1);
	double *t2 = calloc((size_t)reps, sizeof *t2);
	for (int i = 0; i < 2; i++) {
		kt->fn(bufs, dims);
		k->fn(bufs, dims);
	}
	for (int i = 0; i < reps; i++) {
		double a = now();
		kt->fn(bufs, dims);
		double bt = now();
		k->fn(bufs, dims);
		double c = now();
		t1[i] = bt - a;
		t2[i] = c - bt;
	}
	printf("tir %s %.6f %.6f %d\n", name, median(t1, reps), median(t2, reps),
	       tpool_size(jit_pool(jit)));
	free(t1);
	free(t2);
	for (int i = 0; i < nb; i++)
		rt_buf_free(bufs[i], sizes[i]);
	diag_clear(&d);
	free(d.items);
	cg_free(cg);
	jit_free(jit);
	vec_free(&calls);
	ir_module_free(m);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ GEMM */

/*
 * bench_kernels gemm M K N LAYOUT DTYPE REPS: the matmul kernel of
 * x [M, K] @ w (LAYOUT n: w [K, N]; t: w [N, K] read through a fused
 * permute_dims, as x @ w.T) with x, w and the result of DTYPE; prints
 * `gemm SECONDS THREADS` (the best of REPS calls).
 */
/* A value of bench_gemm's buffers as float (es 4: f32; 2: f16, or
 * bf16 when bf). */
static double
gemm_val(const void *p, size_t i, size_t es, bool bf)
{
	if (es == 4)
		return ((const float *)p)[i];
	uint16_t h = ((const uint16_t *)p)[i];
	return bf ? rt_bf16_to_f32(h) : rt_f16_to_f32(h);
}

/* Whether a few entries of c (the first, the last, one inside) are
 * x @ w (tr: x @ w.T) of bench_gemm's buffers, to the dtype's precision:
 * the benchmark times the product its name says. */
static bool
gemm_check(void *const *bufs, long M, long Kd, long N, bool tr, size_t es,
	   bool bf)
{
	long at[3][2] = {{0, 0}, {M - 1, N - 1}, {M / 2, N / 3}};
	for (int t = 0; t < 3; t++) {
		long i = at[t][0], j = at[t][1];
		double want = 0, mag = 0;
		for (long k = 0; k < Kd; k++) {
			double p = gemm_val(bufs[0], (size_t)(i * Kd + k), es, bf) *
				   gemm_val(bufs[1], (size_t)(tr ? j * Kd + k : k * N + j),
					    es, bf);
			want += p;
			mag += fabs(p);
		}
		double got = gemm_val(bufs[2], (size_t)(i * N + j), es, bf);
		if (!(fabs(got - want) <= (es == 4 ? 1e-5 : bf ? 4e-3 : 2e-3) * mag))
			return false;
	}
	return true;
}

static int
bench_gemm(long M, long Kd, long N, const char *layout, const char *dt, int reps)
{
	bool tr = !strcmp(layout, "t");
	StrBuf b = {0};
	sb_printf(&b, "@I.ir_module\nclass Module:\n    @R.function\n"
		  "    def main(x: R.Tensor((%ld, %ld), dtype=\"%s\"), "
		  "w: R.Tensor((%ld, %ld), dtype=\"%s\")):\n",
		  M, Kd, dt, tr ? N : Kd, tr ? Kd : N, dt);
	if (tr)
		sb_puts(&b, "        wt = R.permute_dims(w, axes=None)\n"
			    "        gv = R.matmul(x, wt, out_dtype=\"void\")\n");
	else
		sb_puts(&b, "        gv = R.matmul(x, w, out_dtype=\"void\")\n");
	sb_puts(&b, "        return gv\n");
	char *text = sb_take(&b);
	Module *m = parse(text);
	Vec calls = {0};
	collect_calls(m->funcs[0]->body, &calls);
	/* t: the executor's fusion, the matmul reading its permute_dims
	 * producer's input transposed */
	static const int mm_from[2] = {-1, 0};
	CgNode nodes[2] = {{.call = calls.items[0]},
			   {.call = calls.items[calls.n - 1], .from = tr ? mm_from : NULL}};
	CgFusion fu = {.n = tr ? 2 : 1, .node = tr ? nodes : nodes + 1};
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err.msg);
		return 1;
	}
	Codegen *cg = cg_new(jit);
	Diags d = {0};
	CgKernel *k = cg_fused_kernel(cg, m, &fu, &d);
	if (!k || !cg_flush(cg, &err)) {
		diag_print(&d, stderr);
		fprintf(stderr, "cannot compile the matmul\n");
		return 1;
	}
	size_t es = strcmp(dt, "float32") ? 2 : 4;
	void *bufs[3];
	size_t n[3] = {(size_t)(M * Kd), (size_t)(Kd * N), (size_t)(M * N)};
	for (int i = 0; i < 3; i++) {
		bufs[i] = buf_new(n[i] * es + 64);
		if (es == 4)
			for (size_t j = 0; j < n[i]; j++)
				((float *)bufs[i])[j] = 0.5f + (float)(j % 97) * 0.01f;
		else
			for (size_t j = 0; j < n[i]; j++)
				((uint16_t *)bufs[i])[j] = (uint16_t)(0x3800 + j % 97);
	}
	int64_t dims[6] = {M, Kd, tr ? N : Kd, tr ? Kd : N, M, N};
	k->fn(bufs, dims); /* warm up: threads, page faults */
	if (!gemm_check(bufs, M, Kd, N, tr, es, !strcmp(dt, "bfloat16"))) {
		fprintf(stderr, "gemm: the kernel's result is wrong (layout %s)\n",
			layout);
		return 1;
	}
	double best = 1e30;
	for (int i = 0; i < reps; i++) {
		double t0 = now();
		k->fn(bufs, dims);
		double t = now() - t0;
		best = t < best ? t : best;
	}
	printf("gemm %.6f %d\n", best, tpool_size(jit_pool(jit)));
	for (int i = 0; i < 3; i++)
		rt_buf_free(bufs[i], n[i] * es + 64);
	diag_clear(&d);
	free(d.items);
	cg_free(cg);
	jit_free(jit);
	vec_free(&calls);
	ir_module_free(m);
	free(text);
	return 0;
}

/* bench_kernels gemmisa ISA M K N n|t REPS [DTYPE] (see the top of the file). */
static int
bench_gemm_isa(const char *name, long M, long Kd, long N, const char *layout, int reps,
	       const char *dtype)
{
	enum { GS = 32 };
	int bdt = !strcmp(dtype, "float32")    ? RT_GEMM_F32
		: !strcmp(dtype, "float16")  ? RT_GEMM_F16
		: !strcmp(dtype, "bfloat16") ? RT_GEMM_BF16
		: !strcmp(dtype, "int8")     ? RT_GEMM_Q8 : -1;
	if (bdt < 0 || (bdt == RT_GEMM_Q8 && Kd % GS)) {
		fprintf(stderr, "gemmisa: b is float32, float16, bfloat16 or int8 "
				"(K a multiple of %d)\n", (int)GS);
		return 2;
	}
	int isa = !strcmp(name, "avx512") ? GEMM_ISA_AVX512
		: !strcmp(name, "avx2")	 ? GEMM_ISA_AVX2
		: !strcmp(name, "generic") ? GEMM_ISA_GENERIC : -1;
	/* the ISAs are ordered: the host runs the JIT's choice and those below */
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err.msg);
		return 1;
	}
	int host = jit_gemm_isa(jit);
	jit_free(jit);
	if (isa < 0 || isa > host) {
		fprintf(stderr, "gemmisa: no %s kernels on this host\n", name);
		return 1;
	}
	/* a, b, c and b's scales; a 16-bit b holds 0x3c3c everywhere (1.06 in
	 * f16, 0.0115 in bf16), an int8 b ones */
	size_t n[4] = {(size_t)(M * Kd), (size_t)(Kd * N), (size_t)(M * N),
		       (size_t)(Kd * N / GS)};
	float *bufs[4];
	for (int i = 0; i < 4; i++) {
		bufs[i] = buf_new(n[i] * sizeof(float));
		for (size_t j = 0; j < n[i]; j++)
			bufs[i][j] = 0.5f + (float)(j % 97) * 0.01f;
	}
	if (bdt == RT_GEMM_F16 || bdt == RT_GEMM_BF16)
		memset(bufs[1], 0x3c, n[1] * 2);
	else if (bdt == RT_GEMM_Q8)
		memset(bufs[1], 1, n[1]);
	RtGemm g = {.M = M, .N = N, .K = Kd, .a = bufs[0], .b = bufs[1], .c = bufs[2],
		    .adt = RT_GEMM_F32, .bdt = bdt, .cdt = RT_GEMM_F32,
		    .transb = !strcmp(layout, "t"), .bscale = bufs[3], .bgroup = GS};
	ThreadPool *pl = tpool_new(0);
	if (!pl)
		return 1;
	rlx_gemm(pl, isa, &g); /* warm up: threads, page faults */
	void *abc[3] = {bufs[0], bufs[1], bufs[2]};
	if (bdt == RT_GEMM_F32 && !gemm_check(abc, M, Kd, N, g.transb, 4, false)) {
		fprintf(stderr, "gemmisa: the kernel's result is wrong\n");
		return 1;
	}
	double best = 1e30;
	for (int i = 0; i < reps; i++) {
		double t0 = now();
		rlx_gemm(pl, isa, &g);
		double t = now() - t0;
		best = t < best ? t : best;
	}
	printf("gemm %.6f %d\n", best, tpool_size(pl));
	tpool_free(pl);
	for (int i = 0; i < 4; i++)
		rt_buf_free(bufs[i], n[i] * sizeof(float));
	return 0;
}

/*
 * bench_kernels gemm M K N t int8 REPS: x [M, K] @ (q * s).T with int8
 * weights q [N, K / 32, 32] and a float32 scale per group of 32 (the
 * run-time half of examples/llama_q8.py), through the executor, which
 * fuses the dequantize into the matmul; prints `gemm SECONDS THREADS`
 * (the best of REPS runs).
 */
static int
bench_gemm_q8(long M, long Kd, long N, int reps)
{
	enum { GS = 32 };
	if (Kd % GS) {
		fprintf(stderr, "K must be a multiple of %d\n", GS);
		return 2;
	}
	StrBuf b = {0};
	sb_printf(&b, "@I.ir_module\nclass Module:\n    @R.function\n"
		  "    def main(x: R.Tensor((%ld, %ld), dtype=\"float32\"), "
		  "q: R.Tensor((%ld, %ld, %d), dtype=\"int8\"), "
		  "s: R.Tensor((%ld, %ld, 1), dtype=\"float32\")):\n"
		  "        d0 = R.astype(q, dtype=\"float32\")\n"
		  "        d1 = R.multiply(d0, s)\n"
		  "        w = R.reshape(d1, R.shape([%ld, %ld]))\n"
		  "        wt = R.permute_dims(w, axes=[1, 0])\n"
		  "        gv = R.matmul(x, wt, out_dtype=\"void\")\n"
		  "        return gv\n",
		  M, Kd, N, Kd / GS, (int)GS, N, Kd / GS, N, Kd);
	char *text = sb_take(&b);
	Module *m = parse(text);
	Diags d = {0};
	RtProgram *p = rt_compile(m, "main", &d);
	if (!p) {
		diag_print(&d, stderr);
		return 1;
	}
	if (rt_program_num_kernels(p) != 1)
		fprintf(stderr, "note: the dequantize did not fuse (%d kernels)\n",
			rt_program_num_kernels(p));
	RtError e;
	RtTensor *x = rt_tensor_new(DT_F32, 2, (int64_t[]){M, Kd}, &e);
	RtTensor *q = rt_tensor_new(DT_I8, 3, (int64_t[]){N, Kd / GS, GS}, &e);
	RtTensor *sc = rt_tensor_new(DT_F32, 3, (int64_t[]){N, Kd / GS, 1}, &e);
	if (!x || !q || !sc)
		return 1;
	for (int64_t i = 0; i < M * Kd; i++)
		((float *)x->data)[i] = 0.5f + (float)(i % 97) * 0.01f;
	for (int64_t i = 0; i < N * Kd; i++)
		((int8_t *)q->data)[i] = (int8_t)(i % 255 - 127);
	for (int64_t i = 0; i < N * Kd / GS; i++)
		((float *)sc->data)[i] = 0.001f * (float)(1 + i % 13);
	RtValue *vx = rt_value_tensor(x), *vq = rt_value_tensor(q), *vs = rt_value_tensor(sc);
	RtValue *args[3] = {vx, vq, vs};
	double best;
	if (!best_of_runs(p, args, reps, "run", &best))
		return 1;
	print_best("gemm", best);
	rt_value_release(vx);
	rt_value_release(vq);
	rt_value_release(vs);
	rt_program_free(p);
	diag_clear(&d);
	free(d.items);
	ir_module_free(m);
	free(text);
	return 0;
}

/* One chunk of the read-bandwidth loop: sums its floats. */
typedef struct {
	const float *p;
	int64_t n;
	double sum[256];
} ReadCtx;

/* Sums chunks lo .. hi: 4 streams a quarter chunk apart (as a GEMV reads
 * 4 weight rows), 8 vector accumulators in registers (AVX2 on x86-64). */
#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("avx2")))
static void
read_chunk(void *ctx, int64_t lo, int64_t hi)
{
	ReadCtx *r = ctx;
	enum { STEP = 1 << 16, Q = STEP / 4 };
	__m256 s[8];
	for (int j = 0; j < 8; j++)
		s[j] = _mm256_setzero_ps();
	for (int64_t c = lo; c < hi; c++) {
		const float *p = r->p + c * STEP;
		for (int64_t i = 0; i < Q; i += 16)
			for (int q = 0; q < 4; q++) {
				s[2 * q] = _mm256_add_ps(s[2 * q], _mm256_loadu_ps(p + q * Q + i));
				s[2 * q + 1] = _mm256_add_ps(s[2 * q + 1],
							     _mm256_loadu_ps(p + q * Q + i + 8));
			}
	}
	float t[8], sum = 0;
	for (int j = 1; j < 8; j++)
		s[0] = _mm256_add_ps(s[0], s[j]);
	_mm256_storeu_ps(t, s[0]);
	for (int j = 0; j < 8; j++)
		sum += t[j];
	r->sum[lo % 256] += sum;
}
#else
static void
read_chunk(void *ctx, int64_t lo, int64_t hi)
{
	ReadCtx *r = ctx;
	float s[16] = {0};
	for (int64_t i = lo << 16; i < hi << 16; i += 16)
		for (int j = 0; j < 16; j++)
			s[j] += r->p[i + j];
	for (int j = 1; j < 16; j++)
		s[0] += s[j];
	r->sum[lo % 256] += s[0];
}
#endif

/*
 * bench_kernels read MB REPS: the read bandwidth of this machine now, a
 * sum over MB MiB split across the pool's threads (the bound a GEMV's
 * weight stream can reach); prints `read SECONDS BYTES THREADS` (best).
 */
static int
bench_read(long mb, int reps)
{
	ThreadPool *pool = tpool_new(0);
	int64_t n = (int64_t)mb << 18; /* floats */
	float *p = buf_new((size_t)n * 4);
	if (!pool)
		return 1;
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)(i & 7);
	ReadCtx r = {.p = p, .n = n};
	double best = 1e30;
	for (int i = 0; i <= reps; i++) {
		double t0 = now();
		tpool_run(pool, &r, n >> 16, read_chunk);
		double t = now() - t0;
		if (i)
			best = t < best ? t : best;
	}
	printf("read %.6f %lld %d\n", best, (long long)n * 4, tpool_size(pool));
	rt_buf_free(p, (size_t)n * 4);
	tpool_free(pool);
	return 0;
}

/* ------------------------------------------------------------ forward */

typedef struct {
	RtValue **w; /* per parameter, the input first */
	int n;
} Fwd;

static RtValue *
fwd_load(void *ctx, int param, RtError *e)
{
	Fwd *f = ctx;
	if (param >= f->n) {
		rt_error(e, "no parameter %d", param);
		return NULL;
	}
	return rt_value_retain(f->w[param]);
}

static bool
fwd_emit(void *ctx, int field, RtValue *v, RtError *e)
{
	return true;
}

/*
 * bench_kernels forward LAYERS HID HEADS FFN N REPS [int8]: the Llama-style
 * model of gen_model (hidden HID, HEADS heads of HID/HEADS, FFN, LAYERS
 * layers; weights [out, in] as checkpoints store them, read through
 * permute_dims; with int8, the projections int8 in groups of 32 with f32
 * scales, dequantized in the model as examples/llama_q8.py does)
 * run by the executor on x [1, N, HID] with random weights in memory;
 * prints `forward SECONDS THREADS` (the best of REPS runs after one warm
 * up; the JIT is not timed).
 */
static int
bench_forward(int layers, int hid, int heads, int ffn, long n, int reps, bool q8)
{
	Shape sh = {hid, heads, hid / heads, ffn};
	char *text = gen_model(layers, sh, q8);
	Module *m = parse(text);
	Diags d = {0};
	RtProgram *p = rt_compile(m, "main", &d);
	if (!p) {
		diag_print(&d, stderr);
		return 1;
	}
	const Func *f = rt_program_func(p);
	Fwd fw = {calloc((size_t)f->nparams, sizeof(RtValue *)), f->nparams};
	unsigned seed = 1;
	for (int i = 0; i < f->nparams; i++) {
		const SInfo *si = f->params[i]->sinfo;
		int64_t shape[8];
		int64_t cnt = 1;
		for (int j = 0; j < si->ndim; j++) {
			int64_t v;
			shape[j] = pe_is_const(si->shape[j], &v) ? v : n;
			cnt *= shape[j];
		}
		RtError e;
		RtTensor *t = rt_tensor_new(si->dtype, si->ndim, shape, &e);
		if (!t)
			return 1;
		/* int8 weights: -127 .. 127; their scales 1 / (127 sqrt(in)) */
		bool scales = q8 && si->ndim == 3 && shape[2] == 1;
		float scale = i == 0 ? 1.0f
			: scales ? 1.0f / (127.0f * sqrtf((float)(shape[1] * Q8_GROUP)))
			: 1.0f / sqrtf((float)shape[si->ndim - 1]);
		for (int64_t j = 0; j < cnt; j++) {
			seed = seed * 1103515245u + 12345u;
			float r = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
			if (si->dtype == DT_I8)
				((int8_t *)t->data)[j] = (int8_t)(r * 127.0f);
			else
				((float *)t->data)[j] = scales ? scale : scale * r;
		}
		fw.w[i] = rt_value_tensor(t);
	}
	RtStream st = {fwd_load, fwd_emit, &fw};
	double best = 1e30;
	for (int r = 0; r <= reps; r++) {
		RtError e;
		double t0 = now();
		if (!rt_run_stream(p, &st, &e)) {
			fprintf(stderr, "forward: %s\n", e.msg);
			return 1;
		}
		double t = now() - t0;
		if (r)
			best = t < best ? t : best;
	}
	print_best("forward", best);
	for (int i = 0; i < fw.n; i++)
		rt_value_release(fw.w[i]);
	free(fw.w);
	rt_program_free(p);
	diag_clear(&d);
	free(d.items);
	ir_module_free(m);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ model */

/* The value of parameter p: n token ids below vocab for an int64 input,
 * else random float32 weights scaled by 1/sqrt(last dim). */
static RtValue *
model_arg(const Var *p, long n, int64_t vocab, unsigned *seed)
{
	const SInfo *si = p->sinfo;
	int64_t shape[8], cnt = 1;
	for (int j = 0; j < si->ndim; j++) {
		int64_t v;
		shape[j] = pe_is_const(si->shape[j], &v) ? v : n;
		cnt *= shape[j];
	}
	RtError e;
	RtTensor *t = rt_tensor_new(si->dtype, si->ndim, shape, &e);
	if (!t) {
		fprintf(stderr, "%s: %s\n", p->name, e.msg);
		exit(1);
	}
	float scale = si->ndim ? 1.0f / sqrtf((float)shape[si->ndim - 1]) : 1.0f;
	for (int64_t j = 0; j < cnt; j++) {
		*seed = *seed * 1103515245u + 12345u;
		if (si->dtype == DT_I64)
			((int64_t *)t->data)[j] = (int64_t)((*seed >> 8) % (unsigned)vocab);
		else if (si->dtype == DT_F32)
			((float *)t->data)[j] = scale * ((float)((*seed >> 8) & 0xffff) / 32768.0f - 1.0f);
		else {
			fprintf(stderr, "%s: only int64 inputs and float32 weights\n", p->name);
			exit(1);
		}
	}
	return rt_value_tensor(t);
}

/* Compiles `name` of m; exits with the diagnostics on an error. */
static RtProgram *
model_compile(Module *m, const char *name)
{
	Diags d = {0};
	return or_exit(rt_compile_func(m, name, &d), &d);
}

static int
bench_model(const char *path, long n, int reps, bool lift)
{
	RtError e;
	size_t len;
	char *text = rt_read_whole(path, UINT64_MAX, &len, &e);
	if (!text) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	Module *m0 = parse(text);
	Func *F0 = ir_find_func(m0, "main");
	if (!F0) {
		fprintf(stderr, "%s: no main\n", path);
		return 1;
	}
	int nin = ir_func_num_input(F0);
	/* token ids below the first weight's first dim (the vocabulary) */
	int64_t vocab = 1;
	if (F0->nparams > nin && F0->params[nin]->sinfo->ndim)
		pe_is_const(F0->params[nin]->sinfo->shape[0], &vocab);
	unsigned seed = 1;
	RtValue **args0 = calloc((size_t)F0->nparams, sizeof *args0);
	for (int i = 0; i < F0->nparams; i++)
		args0[i] = model_arg(F0->params[i], n, vocab, &seed);
	Module *m = m0;
	RtValue **args = args0;
	int nargs = F0->nparams;
	RtProgram *tp = NULL;
	RtValue *tr = NULL;
	if (lift) {
		Diags d = {0};
		m = parse(text);
		if (rt_lift_tidy(m, false, NULL, 0, false, &d)) {
			diag_print(&d, stderr);
			return 1;
		}
		Func *T1 = ir_find_func(m, "main_transform_params");
		Func *F1 = ir_find_func(m, "main");
		if (!T1 || !F1) {
			fprintf(stderr, "%s: lifting made no main_transform_params\n", path);
			return 1;
		}
		rt_unbundle(m, T1, rt_lift_weight_names(m0, F0, false, NULL, 0), &d);
		RtValue **targs = calloc((size_t)T1->nparams + 1, sizeof *targs);
		for (int i = 0; i < T1->nparams; i++)
			for (int j = nin; j < F0->nparams && !targs[i]; j++)
				if (!strcmp(F0->params[j]->name, T1->params[i]->name))
					targs[i] = args0[j];
		tp = model_compile(m, "main_transform_params");
		if (!rt_run(tp, targs, &tr, &e)) {
			fprintf(stderr, "main_transform_params: %s\n", e.msg);
			return 1;
		}
		free(targs);
		int nin1 = ir_func_num_input(F1);
		nargs = F1->nparams;
		if (tr->kind != RV_TUPLE || tr->n != nargs - nin1) {
			fprintf(stderr, "main_transform_params: not the lifted main's weights\n");
			return 1;
		}
		args = calloc((size_t)nargs, sizeof *args);
		for (int i = 0; i < nin1; i++)
			args[i] = args0[i];
		for (int i = nin1; i < nargs; i++)
			args[i] = tr->fields[i - nin1];
		diag_clear(&d);
		free(d.items);
	}
	RtProgram *p = model_compile(m, "main");
	double best;
	if (!best_of_runs(p, args, reps, path, &best))
		return 1;
	print_best("model", best);
	rt_program_free(p);
	if (lift) {
		free(args);
		rt_value_release(tr);
		rt_program_free(tp);
		ir_module_free(m);
	}
	for (int i = 0; i < F0->nparams; i++)
		rt_value_release(args0[i]);
	free(args0);
	ir_module_free(m0);
	free(text);
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 8 || (argc == 9 && !strcmp(argv[8], "int8"))) &&
	    !strcmp(argv[1], "forward"))
		return bench_forward(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
				     atoi(argv[5]), atol(argv[6]), atoi(argv[7]), argc == 9);
	if (argc == 8 && !strcmp(argv[1], "gemm") && !strcmp(argv[6], "int8"))
		return bench_gemm_q8(atol(argv[2]), atol(argv[3]), atol(argv[4]),
				     atoi(argv[7]) > 0 ? atoi(argv[7]) : 1);
	if (argc == 8 && !strcmp(argv[1], "gemm"))
		return bench_gemm(atol(argv[2]), atol(argv[3]), atol(argv[4]), argv[5],
				  argv[6], atoi(argv[7]) > 0 ? atoi(argv[7]) : 1);
	if ((argc == 8 || argc == 9) && !strcmp(argv[1], "gemmisa"))
		return bench_gemm_isa(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]),
				      argv[6], atoi(argv[7]) > 0 ? atoi(argv[7]) : 1,
				      argc == 9 ? argv[8] : "float32");
	if (argc == 4 && !strcmp(argv[1], "read"))
		return bench_read(atol(argv[2]), atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 4 && !strcmp(argv[1], "compile"))
		return bench_compile(atoi(argv[2]), atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "lift"))) &&
	    !strcmp(argv[1], "model"))
		return bench_model(argv[2], atol(argv[3]), atoi(argv[4]) > 0 ? atoi(argv[4]) : 1,
				   argc == 6);
	if (argc == 4 && !strcmp(argv[1], "kernel"))
		return bench_kernel(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 4 && !strcmp(argv[1], "tir"))
		return bench_tir(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	fprintf(stderr, "usage: bench_kernels compile LAYERS REPS\n"
			"       bench_kernels kernel NAME REPS\n"
			"       bench_kernels tir add|sum|matmul REPS\n"
			"       bench_kernels gemm M K N n|t DTYPE REPS\n"
			"       bench_kernels gemm M K N t int8 REPS\n"
			"       bench_kernels gemmisa avx2|avx512|generic M K N n|t REPS [DTYPE]\n"
			"       bench_kernels read MB REPS\n"
			"       bench_kernels forward LAYERS HID HEADS FFN N REPS [int8]\n"
			"       bench_kernels model FILE N REPS [lift]\n");
	return 2;
}
