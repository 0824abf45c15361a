/*
 * bench_kernels.c — timings for `make bench` (bench/run.py reads them).
 *
 *   bench_kernels compile LAYERS REPS
 *       Generates a Llama-style model of LAYERS identical decoder layers
 *       as TVMScript, parses it (rlx_parse: parse, infer, verify), then
 *       REPS times: a fresh Codegen on one Jit, cg_kernel over every op
 *       call of the module, cg_flush. Prints
 *       `compile LAYERS SECONDS CALLS KERNELS` (the median).
 *   bench_kernels kernel NAME REPS
 *       Parses the one-op function of row NAME (transpose, cast, add,
 *       rms_norm, matmul, max_pool2d, avg_pool2d, attention, conv1d,
 *       sort), compiles its kernel, runs it REPS times on
 *       real buffers and times each run with clock_gettime; the same for
 *       a plain memcpy of the largest buffer's bytes. Prints
 *       `kernel NAME RLX_SECONDS MEMCPY_SECONDS BYTES THREADS` (medians).
 *
 * Only the library is used (ir.h, codegen.h), not the executor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen.h"
#include "pool.h"

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

enum { HID = 512, HEADS = 8, HDIM = 64, FFN = 1376 };

/* A weight parameter of layer l. */
static void
param(StrBuf *b, int l, const char *name, int d0, int d1)
{
	if (d1)
		sb_printf(b, ", `model.layers.%d.%s`: R.Tensor((%d, %d), dtype=\"float32\")",
			  l, name, d0, d1);
	else
		sb_printf(b, ", `model.layers.%d.%s`: R.Tensor((%d,), dtype=\"float32\")",
			  l, name, d0);
}

/* The TVMScript of a model with `layers` identical decoder layers. */
static char *
gen_model(int layers)
{
	StrBuf b = {0};
	sb_puts(&b, "@I.ir_module\nclass Module:\n    @R.function\n    def main("
		    "x: R.Tensor((1, \"n\", 512), dtype=\"float32\")");
	for (int l = 0; l < layers; l++) {
		param(&b, l, "input_layernorm.weight", HID, 0);
		param(&b, l, "self_attn.q_proj.weight", HID, HID);
		param(&b, l, "self_attn.k_proj.weight", HID, HID);
		param(&b, l, "self_attn.v_proj.weight", HID, HID);
		param(&b, l, "self_attn.o_proj.weight", HID, HID);
		param(&b, l, "post_attention_layernorm.weight", HID, 0);
		param(&b, l, "mlp.gate_proj.weight", FFN, HID);
		param(&b, l, "mlp.up_proj.weight", FFN, HID);
		param(&b, l, "mlp.down_proj.weight", HID, FFN);
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
		L("a%d_1 = R.permute_dims(`%s.%d.self_attn.q_proj.weight`, axes=None)", l, P, l);
		L("a%d_2 = R.matmul(a%d_0, a%d_1, out_dtype=\"void\")", l, l, l);
		L("a%d_3 = R.permute_dims(`%s.%d.self_attn.k_proj.weight`, axes=None)", l, P, l);
		L("a%d_4 = R.matmul(a%d_0, a%d_3, out_dtype=\"void\")", l, l, l);
		L("a%d_5 = R.permute_dims(`%s.%d.self_attn.v_proj.weight`, axes=None)", l, P, l);
		L("a%d_6 = R.matmul(a%d_0, a%d_5, out_dtype=\"void\")", l, l, l);
		L("a%d_7 = R.reshape(a%d_2, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_8 = R.permute_dims(a%d_7, axes=[0, 2, 1, 3])", l, l);
		L("a%d_9 = R.reshape(a%d_4, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_10 = R.permute_dims(a%d_9, axes=[0, 2, 3, 1])", l, l);
		L("a%d_11 = R.reshape(a%d_6, R.shape([1, n, %d, %d]))", l, l, HEADS, HDIM);
		L("a%d_12 = R.permute_dims(a%d_11, axes=[0, 2, 1, 3])", l, l);
		L("a%d_13 = R.matmul(a%d_8, a%d_10, out_dtype=\"void\")", l, l, l);
		L("a%d_14 = R.multiply(a%d_13, R.const(0.125, \"float32\"))", l, l);
		L("a%d_15 = R.nn.softmax(a%d_14, axis=-1)", l, l);
		L("a%d_16 = R.matmul(a%d_15, a%d_12, out_dtype=\"void\")", l, l, l);
		L("a%d_17 = R.permute_dims(a%d_16, axes=[0, 2, 1, 3])", l, l);
		L("a%d_18 = R.reshape(a%d_17, R.shape([1, n, %d]))", l, l, HID);
		L("a%d_19 = R.permute_dims(`%s.%d.self_attn.o_proj.weight`, axes=None)", l, P, l);
		L("a%d_20 = R.matmul(a%d_18, a%d_19, out_dtype=\"void\")", l, l, l);
		L("a%d_21 = R.add(%s, a%d_20)", l, h, l);
		L("a%d_22 = R.nn.rms_norm(a%d_21, `%s.%d.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)", l, l, P, l);
		L("a%d_23 = R.permute_dims(`%s.%d.mlp.gate_proj.weight`, axes=None)", l, P, l);
		L("a%d_24 = R.matmul(a%d_22, a%d_23, out_dtype=\"void\")", l, l, l);
		L("a%d_25 = R.nn.silu(a%d_24)", l, l);
		L("a%d_26 = R.permute_dims(`%s.%d.mlp.up_proj.weight`, axes=None)", l, P, l);
		L("a%d_27 = R.matmul(a%d_22, a%d_26, out_dtype=\"void\")", l, l, l);
		L("a%d_28 = R.multiply(a%d_25, a%d_27)", l, l, l);
		L("a%d_29 = R.permute_dims(`%s.%d.mlp.down_proj.weight`, axes=None)", l, P, l);
		L("a%d_30 = R.matmul(a%d_28, a%d_29, out_dtype=\"void\")", l, l, l);
		L("a%d_31 = R.add(a%d_21, a%d_30)", l, l, l);
#undef L
		snprintf(prev, sizeof prev, "a%d_31", l);
		h = prev;
	}
	sb_printf(&b, "            gv = %s\n            R.output(gv)\n        return gv\n", h);
	return sb_take(&b);
}

/* Parses text; exits with the diagnostics on an error (a bench tool). */
static Module *
parse(const char *text)
{
	Diags d = {0};
	Module *m = rlx_parse("bench.py", text, strlen(text), &d);
	if (!m) {
		diag_print(&d, stderr);
		exit(1);
	}
	diag_clear(&d);
	free(d.items);
	return m;
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
	char err[512];
	if (!cg_flush(cg, err, sizeof err)) {
		fprintf(stderr, "cg_flush: %s\n", err);
		exit(1);
	}
	diag_clear(&d);
	free(d.items);
	return cg_num_kernels(cg);
}

static int
bench_compile(int layers, int reps)
{
	char *text = gen_model(layers);
	Module *m = parse(text);
	Vec calls = {0};
	for (int f = 0; f < m->nfuncs; f++)
		collect_calls(m->funcs[f]->body, &calls);
	char err[512];
	Jit *jit = jit_new(err, sizeof err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err);
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
	unsigned char *p = aligned_alloc(64, alloc ? alloc : 64);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
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
	char err[512];
	Jit *jit = jit_new(err, sizeof err);
	if (!jit) {
		fprintf(stderr, "jit_new: %s\n", err);
		return 1;
	}
	Codegen *cg = cg_new(jit);
	Diags d = {0};
	CgKernel *k = cg_kernel(cg, m, e, &d);
	if (!k || !cg_flush(cg, err, sizeof err)) {
		diag_print(&d, stderr);
		fprintf(stderr, "cannot compile %s\n", name);
		return 1;
	}
	/* buffers: the tensor arguments, then the result */
	void *bufs[8];
	int64_t dims[32];
	int nb = 0, nd = 0;
	size_t bytes = 0, big = 0;
	for (int i = 0; i < e->call.nargs; i++) {
		Expr *x = e->call.args[i];
		const SInfo *si = x->sinfo ? x->sinfo : x->var->sinfo;
		if (si->kind != SI_TENSOR)
			continue;
		bufs[nb++] = buffer(si, &bytes, dims, &nd);
		big = bytes > big ? bytes : big;
	}
	bufs[nb++] = buffer(e->sinfo, &bytes, dims, &nd);
	big = bytes > big ? bytes : big;
	if (nb != k->nin + k->nout || nd != k->ndims) {
		fprintf(stderr, "buffer mismatch\n");
		return 1;
	}
	double *tk = calloc((size_t)reps, sizeof *tk);
	double *tm = calloc((size_t)reps, sizeof *tm);
	unsigned char *src = aligned_alloc(64, (big + 63) / 64 * 64);
	unsigned char *dst = aligned_alloc(64, (big + 63) / 64 * 64);
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
	       median(tm, reps), big, pool_size(jit_pool(jit)));
	free(tk);
	free(tm);
	free(src);
	free(dst);
	for (int i = 0; i < nb; i++)
		free(bufs[i]);
	diag_clear(&d);
	free(d.items);
	cg_free(cg);
	jit_free(jit);
	vec_free(&calls);
	ir_module_free(m);
	free(text);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "compile"))
		return bench_compile(atoi(argv[2]), atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 4 && !strcmp(argv[1], "kernel"))
		return bench_kernel(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	fprintf(stderr, "usage: bench_kernels compile LAYERS REPS\n"
			"       bench_kernels kernel NAME REPS\n");
	return 2;
}
