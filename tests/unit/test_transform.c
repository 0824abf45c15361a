/*
 * test_transform.c — the transform engine (runtime/engine/rlx_runtime.h) and its
 * pieces (runtime/engine/transform.h), each alone: the cache writer queue against
 * the sequential writer, the checkpoint hasher with and without its thread,
 * the weights check's findings, the up-to-date check, values to and from
 * .npy (value.c), and rlx_transform, rlx_init_weights, rlx_verify_lift,
 * rlx_run and rlx_lift called as a C user would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transform.h"
#include "rlx_runtime.h"
#include "xxh.h"

/* ---------------------------------------------------------------- helpers */

static int
rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

typedef struct {
	char *dir;
	char buf[4][512];
	int next;
} Tmp;

static void
tmp_new(Tmp *t)
{
	t->dir = strdup("/tmp/rlx-xf-test-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->next = 0;
}

static void
tmp_free(Tmp *t)
{
	nftw(t->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(t->dir);
}

/* dir/name (a few at a time). */
static const char *
at(Tmp *t, const char *name)
{
	char *b = t->buf[t->next++ % 4];
	snprintf(b, 512, "%s/%s", t->dir, name);
	return b;
}

/* A float32 tensor of shape (r, c) with values start, start+1, ... */
static RtTensor *
seq(int64_t r, int64_t c, float start)
{
	int64_t shape[2] = {r, c};
	RtError e;
	RtTensor *t = rt_tensor_new(DT_F32, 2, shape, &e);
	assert_non_null(t);
	for (int64_t i = 0; i < r * c; i++)
		((float *)t->data)[i] = start + (float)i;
	return t;
}

/* Writes a checkpoint of the named tensors (freed). */
static void
write_ckpt(const char *path, const char **names, RtTensor **ts, int n)
{
	RtError e;
	assert_true(rt_st_write(path, names, (const RtTensor *const *)ts, n, &e));
	for (int i = 0; i < n; i++)
		rt_tensor_free(ts[i]);
}

/* A whole file, malloc'ed. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *p = malloc((size_t)n + 1);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	p[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* The message of the first diagnostic of level lv, or "". */
static const char *
first_msg(const rlx_diags *d, DiagLevel lv)
{
	for (int i = 0; i < d->n; i++)
		if (d->items[i].level == lv)
			return d->items[i].msg;
	return "";
}

/* main: y = x @ (w1 + w2)^T; lifting moves the add and the transpose. */
static const char model[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((2, 4), dtype=\"float32\"),\n"
	"             w1: R.Tensor((\"v\", 4), dtype=\"float32\"),\n"
	"             w2: R.Tensor((\"v\", 4), dtype=\"float32\")) -> R.Tensor((2, \"v\"), dtype=\"float32\"):\n"
	"        v = T.int64()\n"
	"        R.func_attr({\"num_input\": 1})\n"
	"        with R.dataflow():\n"
	"            s = R.add(w1, w2)\n"
	"            st = R.permute_dims(s, axes=[1, 0])\n"
	"            y = R.matmul(x, st, out_dtype=\"void\")\n"
	"            R.output(y)\n"
	"        return y\n";

/* ------------------------------------------------------------ cache queue */

/* Tensors of several sizes, some with shards of their own, and a shape
 * tuple, pushed through two writer threads: the cache is byte for byte the
 * one the sequential writer makes. */
static void
test_queue_same_as_sequential(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	enum { N = 12 };
	RtValue *vs[N];
	const char *names[N] = {"a", "b", "c", "d", "e", "f", "g", "h", "i",
				"j", "k", "l"};
	for (int i = 0; i < N; i++) {
		if (i == 5) {
			int64_t sh[3] = {3, 1, 4};
			vs[i] = rt_value_shape(sh, 3);
		} else {
			vs[i] = rt_value_tensor(seq(i % 3 == 0 ? 300 : 7, 64, (float)i));
		}
	}
	RtCacheOptions co = {.shard_bytes = 64 << 10};
	RtError e;
	for (int pass = 0; pass < 2; pass++) {
		RtCacheWriter *cw = rt_cache_begin(at(&t, pass ? "q" : "seq"), &co, &e);
		assert_non_null(cw);
		if (pass) {
			RtCacheQueue *q = rt_cache_queue_new(cw, N, 2, 1 << 10);
			assert_non_null(q);
			for (int i = 0; i < N; i++)
				assert_true(rt_cache_queue_push(q, vs[i], names[i], &e));
			assert_true(rt_cache_queue_finish(q, true, &e));
		} else {
			for (int i = 0; i < N; i++) {
				if (vs[i]->kind == RV_SHAPE)
					assert_true(rt_cache_add_shape(cw, names[i],
						vs[i]->values, vs[i]->n, &e));
				else
					assert_true(rt_cache_add(cw, names[i], vs[i]->t, &e));
			}
		}
		assert_true(rt_cache_finish(cw, NULL, &e));
	}
	/* the queue gave back its references: ours are the last */
	for (int i = 0; i < N; i++) {
		assert_int_equal(vs[i]->refs, 1);
		rt_value_release(vs[i]);
	}
	size_t la, lb;
	char *a = slurp(at(&t, "seq/tensor-cache.json"), &la);
	char *b = slurp(at(&t, "q/tensor-cache.json"), &lb);
	assert_string_equal(a, b);
	free(a);
	free(b);
	for (int s = 0;; s++) {
		char n[64];
		snprintf(n, sizeof n, "seq/params_shard_%d.bin", s);
		struct stat st;
		if (stat(at(&t, n), &st))
			break;
		a = slurp(at(&t, n), &la);
		snprintf(n, sizeof n, "q/params_shard_%d.bin", s);
		b = slurp(at(&t, n), &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		free(a);
		free(b);
	}
	tmp_free(&t);
}

/* More values than the queue was made for: an error, not an overrun. */
static void
test_queue_capacity(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	RtError e;
	RtCacheWriter *cw = rt_cache_begin(at(&t, "c"), NULL, &e);
	RtCacheQueue *q = rt_cache_queue_new(cw, 1, 0, 0);
	RtValue *v = rt_value_tensor(seq(2, 2, 0));
	assert_true(rt_cache_queue_push(q, v, "a", &e));
	assert_false(rt_cache_queue_push(q, v, "b", &e));
	assert_non_null(strstr(e.msg, "more outputs"));
	assert_true(rt_cache_queue_finish(q, true, &e));
	assert_int_equal(v->refs, 1);
	rt_value_release(v);
	rt_cache_abort(cw);
	tmp_free(&t);
}

/* -------------------------------------------------------- checkpoint hash */

static void
hash_of(const char *path, const char *const *names, int n, bool thread,
	char hex[17])
{
	RtError e;
	RtWeights *w = rt_weights_open(path, &e);
	assert_non_null(w);
	RtCkptHash *h = rt_ckpt_hash_new(path, names, n);
	if (thread)
		rt_ckpt_hash_start(h);
	assert_true(rt_ckpt_hash_rest(h, w, &e));
	rt_ckpt_hash_hex(h, hex);
	rt_ckpt_hash_free(h);
	rt_weights_close(w);
}

/* The thread and the calling thread hash alike; bytes, names and order
 * all count. */
static void
test_ckpt_hash(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *names[] = {"w1", "w2"}, *rev[] = {"w2", "w1"};
	RtTensor *ts[] = {seq(3, 4, 0), seq(3, 4, 100)};
	write_ckpt(at(&t, "a.safetensors"), names, ts, 2);
	RtTensor *us[] = {seq(3, 4, 0), seq(3, 4, 101)};
	write_ckpt(at(&t, "b.safetensors"), names, us, 2);
	char h1[17], h2[17], h3[17], h4[17];
	hash_of(at(&t, "a.safetensors"), names, 2, true, h1);
	hash_of(at(&t, "a.safetensors"), names, 2, false, h2);
	hash_of(at(&t, "b.safetensors"), names, 2, true, h3);
	hash_of(at(&t, "a.safetensors"), rev, 2, false, h4);
	assert_string_equal(h1, h2);
	assert_string_not_equal(h1, h3);
	assert_string_not_equal(h1, h4);
	/* a tensor the checkpoint lacks: an error, from either thread */
	const char *bad[] = {"w1", "nope"};
	RtError e;
	RtWeights *w = rt_weights_open(at(&t, "a.safetensors"), &e);
	RtCkptHash *h = rt_ckpt_hash_new(at(&t, "a.safetensors"), bad, 2);
	rt_ckpt_hash_start(h);
	assert_false(rt_ckpt_hash_rest(h, w, &e));
	assert_non_null(strstr(e.msg, "nope"));
	rt_ckpt_hash_free(h);
	rt_weights_close(w);
	tmp_free(&t);
}

/*
 * The executor's side of the hashing thread: it takes what the thread
 * read (the same bytes as the file's), reads and offers the rest, in any
 * order, or takes nothing at all; the hash is the same every way, and a
 * thread held up by what it keeps (four 12 MiB tensors, more than it
 * keeps ahead) is let go at the end.
 */
static void
test_ckpt_hash_take(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	enum { N = 4 };
	const char *names[N] = {"w0", "w1", "w2", "w3"};
	RtTensor *ts[N];
	for (int i = 0; i < N; i++)
		ts[i] = seq(3 << 10, 1 << 10, (float)(i * 7));
	const char *path = at(&t, "big.safetensors");
	write_ckpt(path, names, ts, N);
	char want[17], got[17];
	hash_of(path, names, N, false, want);
	RtError e;
	RtWeights *w = rt_weights_open(path, &e);
	assert_non_null(w);
	/* 0: in order; 1: last first; 2: nothing taken, one offered */
	for (int way = 0; way < 3; way++) {
		RtCkptHash *h = rt_ckpt_hash_new(path, names, N);
		rt_ckpt_hash_start(h);
		int taken = 0;
		for (int k = 0; way < 2 && k < N; k++) {
			int i = way == 0 ? k : N - 1 - k;
			RtTensor *mine = rt_weights_load(w, names[i], &e);
			assert_non_null(mine);
			RtTensor *x = rt_ckpt_hash_take(h, i);
			/* the first in order: the thread's, once it got there */
			for (int ms = 0; way == 0 && i == 0 && !x && ms < 30000; ms++) {
				usleep(1000);
				x = rt_ckpt_hash_take(h, i);
			}
			if (x) {
				taken++;
				assert_int_equal(x->nbytes, mine->nbytes);
				assert_memory_equal(x->data, mine->data, mine->nbytes);
				rt_tensor_free(x);
				assert_null(rt_ckpt_hash_take(h, i)); /* once */
			} else {
				rt_ckpt_hash_offer(h, i, mine);
			}
			rt_tensor_free(mine);
		}
		if (way == 2) {
			RtTensor *mine = rt_weights_load(w, names[N - 1], &e);
			rt_ckpt_hash_offer(h, N - 1, mine);
			rt_tensor_free(mine);
			usleep(100 * 1000); /* time to fill what the thread keeps */
		}
		assert_true(rt_ckpt_hash_rest(h, w, &e));
		rt_ckpt_hash_hex(h, got);
		assert_string_equal(got, want);
		if (way == 0)
			assert_true(taken >= 1);
		rt_ckpt_hash_free(h);
	}
	rt_weights_close(w);
	tmp_free(&t);
}

/* ---------------------------------------------------------- weights check */

/* Runs the weights check of main's weights on a checkpoint. */
static int
check_strict(const char *ckpt, bool strict, rlx_diags *d)
{
	rlx_diags *pd = rlx_diags_new();
	Module *m = rlx_parse("m.py", model, sizeof model - 1, pd);
	assert_non_null(m);
	rlx_diags_free(pd);
	RtError e;
	RtWeights *w = rt_weights_open(ckpt, &e);
	assert_non_null(w);
	RtWeightInfo info[2];
	int n = rt_check_weights(m, ir_find_func(m, "main"), 1, w, ckpt, strict,
				 info, d);
	if (!n) {
		assert_int_equal(info[0].nbytes, info[0].shape[0] * 4 * 4);
		assert_int_equal(info[1].dt, DT_F32);
	}
	rt_weights_close(w);
	ir_module_free(m);
	return n;
}

static int
check(const char *ckpt, rlx_diags *d)
{
	return check_strict(ckpt, false, d);
}

static void
test_weights_check(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *ok[] = {"w1", "w2", "extra"};
	RtTensor *a[] = {seq(3, 4, 0), seq(3, 4, 0), seq(1, 1, 0)};
	write_ckpt(at(&t, "ok.safetensors"), ok, a, 3);
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(check(at(&t, "ok.safetensors"), d), 0);
	assert_int_equal(rlx_diags_warnings(d), 1);
	assert_non_null(strstr(first_msg(d, DIAG_WARNING), "'extra'"));
	rlx_diags_free(d);
	/* --strict: the same tensor is an error */
	d = rlx_diags_new();
	assert_int_equal(check_strict(at(&t, "ok.safetensors"), true, d), 1);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "'extra'"));
	rlx_diags_free(d);

	/* v bound to 3 by w1, so w2's 5 rows disagree */
	RtTensor *b[] = {seq(3, 4, 0), seq(5, 4, 0)};
	write_ckpt(at(&t, "bad.safetensors"), ok, b, 2);
	d = rlx_diags_new();
	assert_int_equal(check(at(&t, "bad.safetensors"), d), 1);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "tensor 'w2' is (5, 4) float32"));
	assert_int_equal(rlx_diags_warnings(d), 0);
	rlx_diags_free(d);

	const char *one[] = {"w1"};
	RtTensor *c[] = {seq(3, 4, 0)};
	write_ckpt(at(&t, "miss.safetensors"), one, c, 1);
	d = rlx_diags_new();
	assert_int_equal(check(at(&t, "miss.safetensors"), d), 1);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "1 weight of main is missing"));
	rlx_diags_free(d);
	tmp_free(&t);
}

/* ------------------------------------------------------------- transform */

static int nprogress, nfinal;

static void
progress(const rlx_progress *p, bool final, void *ctx)
{
	(void)ctx;
	assert_true(p->tensors_done <= p->tensors);
	nprogress++;
	nfinal += final;
}

/* rlx_transform end to end: the cache holds (w1 + w2)^T; a second run is
 * up to date; a changed option is not; a wrong checkpoint leaves nothing. */
static void
test_rlx_transform(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *names[] = {"w1", "w2"};
	RtTensor *ts[] = {seq(3, 4, 0), seq(3, 4, 10)};
	write_ckpt(at(&t, "w.safetensors"), names, ts, 2);
	rlx_transform_options o = {.progress = progress};
	rlx_transform_stats st;
	rlx_diags *d = rlx_diags_new();
	const char *out = at(&t, "cache");
	assert_int_equal(rlx_transform("m.py", model, sizeof model - 1,
				       at(&t, "w.safetensors"), out, &o, &st, d),
			 RLX_OK);
	assert_int_equal(rlx_diags_errors(d), 0);
	assert_false(st.up_to_date);
	assert_int_equal(st.tensors, 1);
	assert_int_equal(st.bytes_in, 2 * 12 * 4);
	assert_int_equal(st.bytes_out, 12 * 4);
	assert_int_equal(nfinal, 1);
	assert_true(nprogress >= 1);
	rlx_diags_free(d);

	RtError e;
	RtCache *c = rt_cache_open(out, &e);
	assert_non_null(c);
	assert_int_equal(rt_cache_count(c), 1);
	RtTensor *r = rt_cache_load(c, 0, &e);
	assert_non_null(r);
	assert_int_equal(r->shape[0], 4);
	assert_int_equal(r->shape[1], 3);
	/* r[j][i] = w1[i][j] + w2[i][j] = 2 * (4i + j) + 10 */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			assert_true(((float *)r->data)[j * 3 + i] ==
				    (float)(2 * (4 * i + j) + 10));
	rt_tensor_free(r);
	rt_cache_close(c);
	struct stat sb;
	assert_int_equal(stat(at(&t, "cache/model.py"), &sb), 0);

	d = rlx_diags_new();
	assert_int_equal(rlx_transform("m.py", model, sizeof model - 1,
				       at(&t, "w.safetensors"), out, NULL, &st, d),
			 RLX_OK);
	assert_true(st.up_to_date);
	rlx_diags_free(d);

	/* another shard size: not up to date, and out exists: refused */
	o.shard_bytes = 1 << 20;
	d = rlx_diags_new();
	rlx_transform("m.py", model, sizeof model - 1, at(&t, "w.safetensors"),
		      out, &o, &st, d);
	assert_false(st.up_to_date);
	rlx_diags_free(d);

	/* a checkpoint without w2: an error naming it, no cache written */
	const char *one[] = {"w1"};
	RtTensor *us[] = {seq(3, 4, 0)};
	write_ckpt(at(&t, "one.safetensors"), one, us, 1);
	d = rlx_diags_new();
	assert_int_equal(rlx_transform("m.py", model, sizeof model - 1,
				       at(&t, "one.safetensors"), at(&t, "c2"),
				       NULL, NULL, d),
			 RLX_EINPUT);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "'w2'"));
	assert_int_not_equal(stat(at(&t, "c2"), &sb), 0);
	rlx_diags_free(d);

	/* the module's errors come through the same channel, located */
	d = rlx_diags_new();
	assert_int_equal(rlx_transform("bad.py", "x = 1\n", 6,
				       at(&t, "w.safetensors"), at(&t, "c3"),
				       NULL, NULL, d),
			 RLX_EINPUT);
	assert_true(rlx_diags_errors(d) > 0);
	assert_string_equal(d->items[0].file, "bad.py");
	rlx_diags_free(d);
	tmp_free(&t);
}

/* The up-to-date check on its own: a cache matches only the provenance
 * it was written with. */
static void
test_up_to_date(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *names[] = {"w1", "w2"};
	RtTensor *ts[] = {seq(3, 4, 0), seq(3, 4, 10)};
	write_ckpt(at(&t, "w.safetensors"), names, ts, 2);
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(rlx_transform("m.py", model, sizeof model - 1,
				       at(&t, "w.safetensors"), at(&t, "c"),
				       NULL, NULL, d), RLX_OK);
	rlx_diags_free(d);
	RtError e;
	RtWeights *w = rt_weights_open(at(&t, "w.safetensors"), &e);
	json_t *want = rt_provenance(XXH3_64bits(model, sizeof model - 1),
				     "main", "main_transform_params", 32 << 20,
				     false);
	for (int k = 0; k < 3; k++) {
		RtCkptHash *h = rt_ckpt_hash_new(at(&t, "w.safetensors"), names, 2);
		bool failed;
		if (k == 1)
			json_object_set_new(want, "rlxShared", json_true());
		if (k == 2)
			json_object_set_new(want, "rlxShared", json_false());
		bool same = rt_cache_up_to_date(k == 2 ? at(&t, "none") : at(&t, "c"),
						want, h, w, &failed, &e);
		assert_int_equal(same, k == 0);
		assert_false(failed);
		rt_ckpt_hash_free(h);
	}
	json_decref(want);
	rt_weights_close(w);
	tmp_free(&t);
}

/* --------------------------------------------------- init-weights, verify */

static void
test_init_and_verify(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *dn[] = {"v"};
	const int64_t dv[] = {5};
	rlx_init_options io = {.seed = 7, .dims = {dn, dv, 1}};
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(rlx_init_weights("m.py", model, sizeof model - 1,
					  at(&t, "a.safetensors"), &io, d), RLX_OK);
	assert_int_equal(rlx_init_weights("m.py", model, sizeof model - 1,
					  at(&t, "b.safetensors"), &io, d), RLX_OK);
	size_t la, lb;
	char *a = slurp(at(&t, "a.safetensors"), &la);
	char *b = slurp(at(&t, "b.safetensors"), &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	RtError e;
	RtSafetensors *st = rt_st_open(at(&t, "a.safetensors"), &e);
	int64_t shape[RT_MAX_DIMS];
	assert_true(rt_st_find(st, "w2", NULL, NULL, shape));
	assert_int_equal(shape[0], 5);
	rt_st_close(st);
	rlx_diags_free(d);

	/* a dim the function does not have is the caller's mistake */
	const char *zn[] = {"zz"};
	io.dims.names = zn;
	d = rlx_diags_new();
	assert_int_equal(rlx_init_weights("m.py", model, sizeof model - 1,
					  at(&t, "c.safetensors"), &io, d),
			 RLX_EOPTIONS);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "'zz'"));
	rlx_diags_free(d);

	rlx_verify_options vo = {.seed = 1};
	rlx_verify_result res;
	d = rlx_diags_new();
	assert_int_equal(rlx_verify_lift("m.py", model, sizeof model - 1,
					 at(&t, "a.safetensors"), &vo, &res, d),
			 RLX_OK);
	assert_true(res.agree);
	assert_non_null(strstr(res.report, "output"));
	free(res.report);
	rlx_diags_free(d);

	const char *in[] = {"nope"}, *ip[] = {"x.npy"};
	vo.input_names = in;
	vo.input_paths = ip;
	vo.ninputs = 1;
	d = rlx_diags_new();
	assert_int_equal(rlx_verify_lift("m.py", model, sizeof model - 1,
					 at(&t, "a.safetensors"), &vo, &res, d),
			 RLX_EOPTIONS);
	assert_null(res.report);
	rlx_diags_free(d);
	tmp_free(&t);
}

/* ------------------------------------------------------------------ run */

/* main returning a tuple of its result and a weight, for rlx_run's emit */
static const char tuple_model[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((2, 4), dtype=\"float32\"),\n"
	"             w1: R.Tensor((3, 4), dtype=\"float32\")):\n"
	"        R.func_attr({\"num_input\": 1})\n"
	"        y = R.matmul(x, R.permute_dims(w1, axes=[1, 0]), out_dtype=\"void\")\n"
	"        return (y, w1)\n";

typedef struct {
	int nstart, nemit;
	bool refuse;
	int fields[4];
	float y00;
} RunSeen;

static bool
run_start(const rlx_run_info *info, void *ctx, rlx_diags *d)
{
	(void)d;
	RunSeen *s = ctx;
	s->nstart++;
	assert_string_equal(info->func, "main");
	return !s->refuse;
}

static bool
run_emit(void *ctx, int field, rlx_value *v, rlx_diags *d)
{
	(void)d;
	RunSeen *s = ctx;
	assert_true(s->nemit < 4);
	s->fields[s->nemit++] = field;
	if (field == 0)
		s->y00 = ((float *)v->t->data)[0];
	return true;
}

/* rlx_run as a C user calls it: the result kept or handed out field by
 * field; inputs and weights checked before anything runs. */
static void
test_rlx_run(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	const char *names[] = {"w1", "w2"};
	RtTensor *ts[] = {seq(3, 4, 0), seq(3, 4, 10)};
	write_ckpt(at(&t, "w.safetensors"), names, ts, 2);
	RtError e;
	RtTensor *x = seq(2, 4, 1);
	assert_true(rt_npy_write(at(&t, "x.npy"), x, &e));
	rt_tensor_free(x);
	char xpath[512];
	snprintf(xpath, sizeof xpath, "%s", at(&t, "x.npy"));
	const char *in[] = {"x"}, *ip[] = {xpath};
	RunSeen seen = {0};
	rlx_run_options o = {.input_names = in, .input_paths = ip, .ninputs = 1,
			     .start = run_start, .ctx = &seen};
	rlx_run_result res;
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1,
				 at(&t, "w.safetensors"), &o, &res, d), RLX_OK);
	assert_int_equal(rlx_diags_errors(d), 0);
	assert_int_equal(seen.nstart, 1);
	assert_false(res.info.tuple);
	assert_int_equal(res.info.nresult, 1);
	assert_true(res.info.writer);
	assert_non_null(res.fields);
	const RtTensor *y = res.fields[0]->t;
	assert_int_equal(y->shape[0], 2);
	assert_int_equal(y->shape[1], 3);
	/* y[i][j] = sum_k x[i][k] * (w1 + w2)[j][k], x[i][k] = 4i + k + 1 */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++) {
			float want = 0;
			for (int k = 0; k < 4; k++)
				want += (float)(4 * i + k + 1) *
					(float)(2 * (4 * j + k) + 10);
			assert_true(((float *)y->data)[i * 3 + j] == want);
		}
	rlx_run_result_free(&res);
	rlx_diags_free(d);

	/* a missing weight: the one weights check, nothing runs */
	const char *one[] = {"w1"};
	RtTensor *us[] = {seq(3, 4, 0)};
	write_ckpt(at(&t, "one.safetensors"), one, us, 1);
	d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1,
				 at(&t, "one.safetensors"), &o, &res, d),
			 RLX_EINPUT);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR),
			       "missing from the checkpoint: 'w2'"));
	assert_null(res.fields);
	rlx_run_result_free(&res);
	rlx_diags_free(d);

	/* no checkpoint for a function with weights: the caller's mistake */
	d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1, NULL, &o, &res,
				 d), RLX_EOPTIONS);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "'w1'"));
	rlx_run_result_free(&res);
	rlx_diags_free(d);

	/* an input the function does not have, and a missing one */
	const char *bad[] = {"z"};
	o.input_names = bad;
	d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1,
				 at(&t, "w.safetensors"), &o, &res, d),
			 RLX_EINPUT);
	assert_non_null(strstr(first_msg(d, DIAG_ERROR),
			       "main has no input 'z' (inputs: 'x')"));
	rlx_run_result_free(&res);
	rlx_diags_free(d);
	o.input_names = in;

	/* start refusing stops the run before anything is read */
	seen.refuse = true;
	d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1,
				 at(&t, "nope.safetensors"), &o, &res, d),
			 RLX_EINPUT);
	assert_int_equal(rlx_diags_errors(d), 0);
	rlx_run_result_free(&res);
	rlx_diags_free(d);
	seen.refuse = false;

	/* a tuple result through emit: every field once, none kept */
	o.emit = run_emit;
	seen.nemit = 0;
	d = rlx_diags_new();
	assert_int_equal(rlx_run("t.py", tuple_model, sizeof tuple_model - 1,
				 at(&t, "w.safetensors"), &o, &res, d), RLX_OK);
	assert_true(res.info.tuple);
	assert_int_equal(res.info.nresult, 2);
	assert_string_equal(res.info.names[0], "y");
	assert_int_equal(seen.nemit, 2);
	assert_true(seen.fields[0] + seen.fields[1] == 1);
	/* y[0][0] = sum_k (k + 1) * w1[0][k] = 0 + 2 + 6 + 12 */
	assert_true(seen.y00 == 20.0f);
	assert_null(res.fields);
	/* w2 is in the checkpoint but no weight of main: a warning */
	assert_non_null(strstr(first_msg(d, DIAG_WARNING), "'w2'"));
	rlx_run_result_free(&res);
	rlx_diags_free(d);

	/* the plan only: nothing read */
	rlx_run_options po = {.plan_only = true};
	d = rlx_diags_new();
	assert_int_equal(rlx_run("m.py", model, sizeof model - 1, NULL, &po,
				 &res, d), RLX_OK);
	assert_non_null(strstr(res.plan, "matmul"));
	rlx_run_result_free(&res);
	rlx_diags_free(d);
	tmp_free(&t);
}

/* ------------------------------------------------------------------ lift */

static const char bind_model[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((2,), \"float32\"), scale: R.Tensor((2,), \"float32\"),\n"
	"             w: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n"
	"        R.func_attr({\"num_input\": 2})\n"
	"        with R.dataflow():\n"
	"            ws = R.multiply(w, scale)\n"
	"            y = R.add(x, ws)\n"
	"            R.output(y)\n"
	"        return y\n";

/* rlx_lift as a C user calls it: the lift pipeline, a --bind array read
 * from a .npy file joining the transform, a missing file and a bad
 * module reported through the diagnostics. */
static void
test_rlx_lift(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_lift("m.py", bind_model, sizeof bind_model - 1, NULL, d);
	assert_non_null(m);
	char *text = rlx_print(m, NULL);
	assert_non_null(strstr(text, "def main_transform_params"));
	assert_non_null(strstr(text, "R.multiply(w, scale)")); /* scale: an input */
	free(text);
	rlx_module_free(m);
	rlx_diags_free(d);

	int64_t two = 2;
	RtError e;
	RtTensor *sc = rt_tensor_new(DT_F32, 1, &two, &e);
	((float *)sc->data)[0] = 0.5f;
	((float *)sc->data)[1] = 2.0f;
	assert_true(rt_npy_write(at(&t, "s.npy"), sc, &e));
	rt_tensor_free(sc);
	char value[600];
	snprintf(value, sizeof value, "@%s", at(&t, "s.npy"));
	const char *bn[] = {"scale"}, *bv[] = {value};
	rlx_lift_options o = {.bind_names = bn, .bind_values = bv, .nbinds = 1,
			      .tidy = true};
	d = rlx_diags_new();
	m = rlx_lift("m.py", bind_model, sizeof bind_model - 1, &o, d);
	assert_non_null(m);
	text = rlx_print(m, NULL);
	const char *tp = strstr(text, "def main_transform_params");
	assert_non_null(tp);
	assert_non_null(strstr(tp, "R.const([0.5, 2.0], \"float32\")"));
	assert_non_null(strstr(text, "\"num_input\": 1"));
	free(text);
	rlx_module_free(m);
	rlx_diags_free(d);

	/* a --bind file that is not there: an error naming the binding */
	snprintf(value, sizeof value, "@%s", at(&t, "none.npy"));
	d = rlx_diags_new();
	assert_null(rlx_lift("m.py", bind_model, sizeof bind_model - 1, &o, d));
	assert_non_null(strstr(first_msg(d, DIAG_ERROR), "--bind scale"));
	rlx_diags_free(d);

	/* the module's errors, located */
	d = rlx_diags_new();
	assert_null(rlx_lift("bad.py", "x = 1\n", 6, NULL, d));
	assert_true(rlx_diags_errors(d) > 0);
	assert_string_equal(d->items[0].file, "bad.py");
	rlx_diags_free(d);
	tmp_free(&t);
}

/* ------------------------------------------------------- value <-> .npy */

/* Values written as .npy and read back for an annotation: a shape tuple,
 * a scalar, a bfloat16 tensor (float32 on disk), a tuple as a directory;
 * a wrong dtype or constant dim is refused naming the input and file. */
static void
test_value_npy(void **state)
{
	(void)state;
	Tmp t;
	tmp_new(&t);
	Arena a = {0};
	RtError e;
	/* a shape tuple */
	int64_t sh[3] = {2, 3, 5};
	RtValue *v = rt_value_shape(sh, 3);
	assert_true(rt_value_write(at(&t, "s.npy"), v, &e));
	rt_value_release(v);
	SInfo ssi = {.kind = SI_SHAPE, .ndim = 3};
	v = rt_value_read_npy("s", &ssi, at(&t, "s.npy"), &e);
	assert_non_null(v);
	assert_int_equal(v->kind, RV_SHAPE);
	assert_int_equal(v->values[2], 5);
	rt_value_release(v);
	ssi.ndim = 2;
	assert_null(rt_value_read_npy("s", &ssi, at(&t, "s.npy"), &e));
	assert_non_null(strstr(e.msg, "input 's'"));

	/* a bfloat16 tensor goes out as float32 and comes back as bfloat16 */
	int64_t shape[2] = {2, 2};
	RtTensor *bt = rt_tensor_new(DT_BF16, 2, shape, &e);
	for (int i = 0; i < 4; i++)
		((uint16_t *)bt->data)[i] = rt_f32_to_bf16(1.5f * (float)i);
	v = rt_value_tensor(bt);
	assert_true(rt_value_write(at(&t, "b.npy"), v, &e));
	RtTensor *raw = rt_npy_read(at(&t, "b.npy"), &e);
	assert_int_equal(raw->dtype, DT_F32);
	assert_true(((float *)raw->data)[3] == 4.5f);
	rt_tensor_free(raw);
	PExpr *dims[2] = {pe_int(&a, 2), pe_int(&a, 2)};
	SInfo tsi = {.kind = SI_TENSOR, .dtype = DT_BF16, .ndim = 2, .shape = dims};
	RtValue *w = rt_value_read_npy("b", &tsi, at(&t, "b.npy"), &e);
	assert_non_null(w);
	assert_int_equal(w->t->dtype, DT_BF16);
	assert_memory_equal(w->t->data, v->t->data, 8);
	rt_value_release(w);
	/* a constant dim that differs */
	dims[1] = pe_int(&a, 3);
	assert_null(rt_value_read_npy("b", &tsi, at(&t, "b.npy"), &e));
	assert_non_null(strstr(e.msg, "got shape (2, 2) dtype bfloat16"));

	/* a tuple as a directory of fields, nested */
	RtValue *fields[2] = {rt_value_retain(v), rt_value_prim(DT_I64, 7, 7)};
	RtValue *inner = rt_value_tuple(fields, 2);
	RtValue *outer_f[2] = {rt_value_shape(sh, 2), inner};
	RtValue *tup = rt_value_tuple(outer_f, 2);
	assert_true(rt_value_write(at(&t, "tup"), tup, &e));
	RtTensor *p = rt_npy_read(at(&t, "tup/1/1.npy"), &e);
	assert_non_null(p);
	assert_int_equal(p->ndim, 0);
	assert_int_equal(*(int64_t *)p->data, 7);
	rt_tensor_free(p);
	StrBuf b = {0};
	rt_value_print(&b, "r", tup);
	assert_string_equal(b.p, "r[0]: shape (2, 3)\n"
			    "r[1][0]: bfloat16 (2, 2)\n[[0, 1.5], [3, 4.5]]\n"
			    "r[1][1]: int64 7\n");
	sb_free(&b);
	rt_value_release(tup);
	rt_value_release(v);
	arena_free(&a);
	tmp_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_same_as_sequential),
		cmocka_unit_test(test_queue_capacity),
		cmocka_unit_test(test_ckpt_hash),
		cmocka_unit_test(test_ckpt_hash_take),
		cmocka_unit_test(test_weights_check),
		cmocka_unit_test(test_rlx_transform),
		cmocka_unit_test(test_up_to_date),
		cmocka_unit_test(test_init_and_verify),
		cmocka_unit_test(test_rlx_run),
		cmocka_unit_test(test_rlx_lift),
		cmocka_unit_test(test_value_npy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
