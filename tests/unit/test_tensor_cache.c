/* test_tensor_cache.c — the tvmjs tensor cache: round trips, atomic
 * replacement, abort, every malformed cache a clear error, and a foreign
 * reader (NumPy) agreeing on the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <pthread.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_io.h"
#include "tensor_cache.h"

/* ---------------------------------------------------------------- helpers */

/* nftw callback: removes one entry. */
static int
rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A fresh temporary directory; the test removes it with rm_rf. */
static char *
tmpdir(void)
{
	char *t = strdup("/tmp/rlx-cache-test-XXXXXX");
	assert_non_null(mkdtemp(t));
	return t;
}

static void
rm_rf(char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* malloc'd printf. */
static char *
fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	assert_true(vasprintf(&s, f, ap) >= 0);
	va_end(ap);
	return s;
}

/* The names in dir, sorted and joined by spaces ("" when empty).
 * (Through ls: dirent.h's DT_UNKNOWN clashes with ir.h's.) */
static char *
listing(const char *dir)
{
	char *cmd = fmt("LC_ALL=C ls -A '%s' | tr '\\n' ' '", dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = 0;
	assert_int_equal(pclose(p), 0);
	free(cmd);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	return strdup(buf);
}

static char *
read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return s;
}

static void
write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static bool
exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A deterministic test tensor: byte k is (k * 31 + seed), bool bytes 0/1. */
static RtTensor *
make(DType dt, int ndim, const int64_t *shape, int seed)
{
	RtTensor *t = calloc(1, sizeof *t);
	t->dtype = dt;
	t->ndim = ndim;
	size_t n = (size_t)dtype_bits(dt) / 8;
	for (int i = 0; i < ndim; i++) {
		t->shape[i] = shape[i];
		n *= (size_t)shape[i];
	}
	t->nbytes = n;
	t->data = aligned_alloc(64, (n + 63) / 64 * 64 + 64);
	t->own = RT_OWNED;
	unsigned char *p = t->data;
	for (size_t k = 0; k < n; k++)
		p[k] = dt == DT_BOOL ? (unsigned char)((k + (size_t)seed) % 2)
				     : (unsigned char)(k * 31 + (size_t)seed);
	return t;
}

static void
tfree(RtTensor *t)
{
	if (t && t->own == RT_OWNED)
		free(t->data);
	free(t);
}

/* Loads name from c and checks it equals t. */
static void
check_equal(RtCache *c, const char *name, const RtTensor *t)
{
	int i = rt_cache_find(c, name);
	assert_true(i >= 0);
	assert_string_equal(rt_cache_name(c, i), name);
	RtError e = {0};
	RtTensor *u = rt_cache_load(c, i, &e);
	assert_non_null(u);
	assert_int_equal(u->dtype, t->dtype);
	assert_int_equal(u->ndim, t->ndim);
	for (int d = 0; d < t->ndim; d++)
		assert_int_equal(u->shape[d], t->shape[d]);
	assert_int_equal(u->nbytes, t->nbytes);
	assert_non_null(u->data);
	assert_int_equal((uintptr_t)u->data % RT_ALIGN, 0);
	if (t->nbytes) {
		assert_int_equal(u->own, RT_BORROWED);
		assert_memory_equal(u->data, t->data, t->nbytes);
	}
	tfree(u);
}

/* ------------------------------------------------------------- round trip */

static const DType all_dtypes[] = {
	DT_F32, DT_F16, DT_BF16, DT_I8, DT_U8, DT_I32, DT_I64, DT_BOOL,
	DT_F64, DT_I16,
};
enum { NDT = sizeof all_dtypes / sizeof *all_dtypes };

/* The shard index and byteOffset of record name, from the JSON. */
static void
locate(json_t *top, const char *name, int *shard, int64_t *off)
{
	json_t *shards = json_object_get(top, "records");
	for (size_t s = 0; s < json_array_size(shards); s++) {
		json_t *recs = json_object_get(json_array_get(shards, s),
					       "records");
		for (size_t r = 0; r < json_array_size(recs); r++) {
			json_t *rec = json_array_get(recs, r);
			if (!strcmp(json_string_value(json_object_get(rec, "name")),
				    name)) {
				*shard = (int)s;
				*off = json_integer_value(
					json_object_get(rec, "byteOffset"));
				return;
			}
		}
	}
	fail_msg("no record %s", name);
}

static void
test_round_trip(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 1024};
	RtCacheWriter *w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);

	/* every dtype: a matrix, a scalar, an empty tensor */
	RtTensor *ts[NDT * 3 + 3];
	char names[NDT * 3 + 3][32];
	int n = 0;
	int64_t mat[] = {3, 5}, empty[] = {0, 4};
	for (int i = 0; i < NDT; i++) {
		ts[n] = make(all_dtypes[i], 2, mat, i);
		snprintf(names[n++], 32, "m.%s", dtype_name(all_dtypes[i]));
		ts[n] = make(all_dtypes[i], 0, NULL, i + 7);
		snprintf(names[n++], 32, "s.%s", dtype_name(all_dtypes[i]));
		ts[n] = make(all_dtypes[i], 2, empty, 0);
		snprintf(names[n++], 32, "e.%s", dtype_name(all_dtypes[i]));
	}
	int64_t big[] = {200}, half[] = {512}, under[] = {511};
	ts[n] = make(DT_F32, 1, big, 3);       /* 800 bytes: own shard */
	snprintf(names[n++], 32, "big");
	ts[n] = make(DT_U8, 1, half, 4);       /* exactly half: own shard */
	snprintf(names[n++], 32, "half");
	ts[n] = make(DT_U8, 1, under, 5);      /* just under half: shared */
	snprintf(names[n++], 32, "under");

	int64_t sv[] = {7, -3, 1LL << 40};
	for (int i = 0; i < n; i++) {
		/* interleave the shape tuples with the tensors */
		if (i == 5)
			assert_true(rt_cache_add_shape(w, "shape.a", sv, 3, &e));
		if (i == 11)
			assert_true(rt_cache_add_shape(w, "shape.empty", NULL, 0,
						       &e));
		assert_true(rt_cache_add(w, names[i], ts[i], &e));
	}
	/* a duplicate name is refused without harming the writer */
	assert_false(rt_cache_add(w, "big", ts[0], &e));
	assert_non_null(strstr(e.msg, "duplicate record name 'big'"));
	assert_true(rt_cache_finish(w,
		"{\"rlxModuleHash\": \"abc\", \"rlxCheckpointHash\": \"def\"}",
		&e));
	char *ls = listing(base);
	assert_string_equal(ls, "out");
	free(ls);

	/* the JSON: shard caps, alignment, the own-shard rule */
	char *jpath = fmt("%s/tensor-cache.json", dir);
	json_error_t je;
	json_t *top = json_load_file(jpath, JSON_REJECT_DUPLICATES, &je);
	assert_non_null(top);
	json_t *shards = json_object_get(top, "records");
	assert_true(json_array_size(shards) >= 4);
	int64_t prev_shard = 0;
	for (size_t s = 0; s < json_array_size(shards); s++) {
		json_t *sh = json_array_get(shards, s);
		char *want = fmt("params_shard_%zu.bin", s);
		assert_string_equal(json_string_value(json_object_get(sh,
			"dataPath")), want);
		free(want);
		assert_string_equal(json_string_value(json_object_get(sh,
			"format")), "raw-shard");
		assert_int_equal(strlen(json_string_value(json_object_get(sh,
			"rlxHash"))), 16);
		json_t *recs = json_object_get(sh, "records");
		int64_t nb = json_integer_value(json_object_get(sh, "nbytes"));
		assert_true(json_array_size(recs) >= 1);
		if (json_array_size(recs) > 1)
			assert_true(nb <= 1024);
		for (size_t r = 0; r < json_array_size(recs); r++) {
			json_t *rec = json_array_get(recs, r);
			assert_int_equal(json_integer_value(json_object_get(rec,
				"byteOffset")) % 64, 0);
			assert_string_equal(json_string_value(json_object_get(
				rec, "format")), "raw");
		}
		(void)prev_shard;
	}
	/* records keep their order across shards */
	int sh_prev = -1;
	int64_t off_prev = -1;
	for (int i = 0; i < n; i++) {
		int sh;
		int64_t off;
		locate(top, names[i], &sh, &off);
		assert_true(sh > sh_prev || (sh == sh_prev && off >= off_prev));
		sh_prev = sh;
		off_prev = off;
	}
	/* big and half are alone in their shards; under shares */
	const char *alone[] = {"big", "half"};
	for (int k = 0; k < 2; k++) {
		int sh;
		int64_t off;
		locate(top, alone[k], &sh, &off);
		json_t *recs = json_object_get(json_array_get(shards,
			(size_t)sh), "records");
		assert_int_equal(json_array_size(recs), 1);
		assert_int_equal(off, 0);
	}
	int sh_half, sh_under;
	int64_t off;
	locate(top, "half", &sh_half, &off);
	locate(top, "under", &sh_under, &off);
	assert_int_equal(sh_under, sh_half + 1);
	/* the shape record */
	int sh_shape;
	locate(top, "shape.a", &sh_shape, &off);
	json_t *srec = NULL;
	json_t *recs = json_object_get(json_array_get(shards,
		(size_t)sh_shape), "records");
	for (size_t r = 0; r < json_array_size(recs); r++)
		if (!strcmp(json_string_value(json_object_get(
			    json_array_get(recs, r), "name")), "shape.a"))
			srec = json_array_get(recs, r);
	assert_non_null(srec);
	assert_string_equal(json_string_value(json_object_get(srec, "dtype")),
			    "int64");
	assert_string_equal(json_string_value(json_object_get(srec,
		"rlxKind")), "shape");
	assert_int_equal(json_integer_value(json_object_get(srec, "nbytes")),
			 24);
	/* metadata */
	json_t *meta = json_object_get(top, "metadata");
	assert_int_equal(json_integer_value(json_object_get(meta,
		"ParamSize")), n);
	int64_t bytes = 0;
	for (int i = 0; i < n; i++)
		bytes += (int64_t)ts[i]->nbytes;
	assert_int_equal(json_integer_value(json_object_get(meta,
		"ParamBytes")), bytes);
	assert_true(json_is_real(json_object_get(meta, "BitsPerParam")));
	assert_string_equal(json_string_value(json_object_get(meta,
		"rlxCheckpointHash")), "def");
	assert_non_null(json_object_get(meta, "rlxVersion"));
	json_decref(top);
	free(jpath);

	/* read it back */
	RtCache *c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_int_equal(rt_cache_count(c), n + 2);
	for (int i = 0; i < n; i++) {
		check_equal(c, names[i], ts[i]);
		assert_false(rt_cache_is_shape(c, rt_cache_find(c, names[i])));
	}
	assert_int_equal(rt_cache_find(c, "nope"), -1);
	int si = rt_cache_find(c, "shape.a");
	assert_true(rt_cache_is_shape(c, si));
	int64_t got[4] = {0};
	int gn = 2;
	assert_false(rt_cache_load_shape(c, si, got, &gn, &e));
	assert_int_equal(gn, 3);
	assert_non_null(strstr(e.msg, "3 values"));
	gn = 4;
	assert_true(rt_cache_load_shape(c, si, got, &gn, &e));
	assert_int_equal(gn, 3);
	assert_memory_equal(got, sv, sizeof sv);
	gn = 4;
	assert_true(rt_cache_load_shape(c, rt_cache_find(c, "shape.empty"),
					got, &gn, &e));
	assert_int_equal(gn, 0);
	assert_false(rt_cache_load_shape(c, rt_cache_find(c, "big"), got, &gn,
					 &e));
	assert_non_null(strstr(e.msg, "not a shape"));
	/* a shape record also loads as its int64 tensor */
	RtTensor *st = rt_cache_load(c, si, &e);
	assert_non_null(st);
	assert_int_equal(st->dtype, DT_I64);
	assert_int_equal(st->shape[0], 3);
	assert_memory_equal(st->data, sv, sizeof sv);
	tfree(st);
	assert_true(rt_cache_verify(c, &e));
	json_t *m = json_loads(rt_cache_metadata(c), 0, &je);
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m,
		"rlxModuleHash")), "abc");
	json_decref(m);
	rt_cache_close(c);

	/* a trailing slash names the same directory */
	char *slash = fmt("%s/", dir);
	c = rt_cache_open(slash, &e);
	assert_non_null(c);
	rt_cache_close(c);
	free(slash);

	for (int i = 0; i < n; i++)
		tfree(ts[i]);
	free(dir);
	rm_rf(base);
}

/* Writes a cache of one tensor named name (u8 values from seed) to dir. */
static bool
write_one(const char *dir, const char *name, int seed, RtError *e)
{
	int64_t shape[] = {100};
	RtTensor *t = make(DT_U8, 1, shape, seed);
	RtCacheWriter *w = rt_cache_begin(dir, NULL, e);
	bool ok = w && rt_cache_add(w, name, t, e);
	if (w && !ok)
		rt_cache_abort(w);
	else if (w)
		ok = rt_cache_finish(w, NULL, e);
	tfree(t);
	return ok;
}

static void
test_replace(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	assert_true(write_one(dir, "a", 1, &e));
	/* a second cache replaces the first, with an extra file shipped */
	int64_t shape[] = {2};
	RtTensor *t = make(DT_F32, 1, shape, 9);
	RtCacheWriter *w = rt_cache_begin(dir, NULL, &e);
	assert_non_null(w);
	char *extra = fmt("%s/module.py", rt_cache_tmpdir(w));
	write_bytes(extra, "# module\n", 9);
	free(extra);
	assert_true(rt_cache_add(w, "b", t, &e));
	assert_true(rt_cache_finish(w, NULL, &e));
	char *ls = listing(base);
	assert_string_equal(ls, "out");
	free(ls);
	ls = listing(dir);
	assert_string_equal(ls, "module.py params_shard_0.bin tensor-cache.json");
	free(ls);
	RtCache *c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_int_equal(rt_cache_count(c), 1);
	assert_int_equal(rt_cache_find(c, "a"), -1);
	check_equal(c, "b", t);
	rt_cache_close(c);
	tfree(t);

	/* a directory that is not a cache is never replaced */
	char *other = fmt("%s/data", base);
	assert_int_equal(mkdir(other, 0777), 0);
	char *keep = fmt("%s/keep.txt", other);
	write_bytes(keep, "x", 1);
	assert_false(write_one(other, "a", 1, &e));
	assert_non_null(strstr(e.msg, "refusing to replace"));
	assert_true(exists(keep));
	/* nor a file */
	assert_false(write_one(keep, "a", 1, &e));
	assert_non_null(strstr(e.msg, "not a directory"));
	/* an empty directory is fine */
	char *empty = fmt("%s/empty", base);
	assert_int_equal(mkdir(empty, 0777), 0);
	assert_true(write_one(empty, "a", 1, &e));
	ls = listing(base);
	assert_string_equal(ls, "data empty out");
	free(ls);
	free(empty);
	free(keep);
	free(other);
	free(dir);
	rm_rf(base);
}

/* Writes a cache of one tensor and, when model is given, its model.py. */
static void
write_with_model(const char *dir, const char *model, int seed)
{
	RtError e = {0};
	int64_t shape[] = {4};
	RtTensor *t = make(DT_U8, 1, shape, seed);
	RtCacheWriter *w = rt_cache_begin(dir, NULL, &e);
	assert_non_null(w);
	if (model)
		assert_true(rt_cache_add_file(w, RT_CACHE_MODEL, model,
					      strlen(model), &e));
	assert_true(rt_cache_add(w, "a", t, &e));
	assert_true(rt_cache_finish(w, NULL, &e));
	tfree(t);
}

/* The module comes from the directory the records come from, even when
 * the cache is replaced (and the old directory removed) between opening
 * the cache and reading the module. */
static void
test_model_with_records(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/c", base);
	write_with_model(dir, "# one\n", 1);
	RtError e = {0};
	RtCache *c = rt_cache_open(dir, &e);
	assert_non_null(c);
	write_with_model(dir, "# two, longer\n", 2);
	char *ls = listing(base);
	assert_string_equal(ls, "c"); /* the old directory is gone */
	free(ls);
	size_t len = 0;
	char *m = rt_cache_read_model(c, &len, &e);
	assert_non_null(m);
	assert_string_equal(m, "# one\n");
	assert_int_equal(len, 6);
	free(m);
	rt_cache_close(c);
	c = rt_cache_open(dir, &e);
	assert_non_null(c);
	m = rt_cache_read_model(c, &len, &e);
	assert_non_null(m);
	assert_string_equal(m, "# two, longer\n");
	free(m);
	rt_cache_close(c);

	/* a cache without a module opens; reading the module is the error */
	write_with_model(dir, NULL, 3);
	c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_null(rt_cache_read_model(c, &len, &e));
	assert_non_null(strstr(e.msg, "/c/model.py: cannot open"));
	rt_cache_close(c);
	free(dir);
	rm_rf(base);
}

static void
test_abort(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	int64_t shape[] = {1000};
	RtTensor *t = make(DT_F32, 1, shape, 2);
	RtCacheOptions o = {.shard_bytes = 1024};

	/* abort after writing shards: nothing at all is left */
	RtCacheWriter *w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	assert_true(rt_cache_add(w, "x", t, &e));
	assert_true(rt_cache_add(w, "y", t, &e));
	assert_true(exists(rt_cache_tmpdir(w)));
	rt_cache_abort(w);
	char *ls = listing(base);
	assert_string_equal(ls, "");
	free(ls);

	/* abort over an existing cache keeps it as it was */
	assert_true(write_one(dir, "old", 3, &e));
	w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	assert_true(rt_cache_add(w, "x", t, &e));
	rt_cache_abort(w);
	ls = listing(base);
	assert_string_equal(ls, "out");
	free(ls);
	RtCache *c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_true(rt_cache_find(c, "old") >= 0);
	rt_cache_close(c);

	/* a failing finish (bad extra metadata) cleans up too */
	w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	assert_true(rt_cache_add(w, "x", t, &e));
	assert_false(rt_cache_finish(w, "[1, 2]", &e));
	assert_non_null(strstr(e.msg, "must be a JSON object"));
	w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	assert_false(rt_cache_finish(w, "{\"ParamSize\": 3}", &e));
	assert_non_null(strstr(e.msg, "may not set \"ParamSize\""));
	ls = listing(base);
	assert_string_equal(ls, "out");
	free(ls);
	c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_true(rt_cache_find(c, "old") >= 0);
	rt_cache_close(c);

	/* bad tensors are refused */
	w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	t->nbytes--;
	assert_false(rt_cache_add(w, "x", t, &e));
	assert_non_null(strstr(e.msg, "its shape needs 4000"));
	t->nbytes++;
	assert_false(rt_cache_add(w, "", t, &e));
	assert_non_null(strstr(e.msg, "non-empty name"));
	rt_cache_abort(w);

	tfree(t);
	free(dir);
	rm_rf(base);
}

/* ------------------------------------------------------- malformed caches */

/* A hand-written cache: one shard s0.bin of 128 bytes, two records. */
static const char good_json[] =
	"{\"metadata\": {\"ParamSize\": 2},\n"
	" \"records\": [{\"dataPath\": \"s0.bin\", \"format\": \"raw-shard\",\n"
	"   \"nbytes\": 128, \"records\": [\n"
	"  {\"name\": \"w\", \"shape\": [4], \"dtype\": \"float32\", "
	"\"format\": \"raw\", \"nbytes\": 16, \"byteOffset\": 0},\n"
	"  {\"name\": \"v\", \"shape\": [2, 2], \"dtype\": \"int32\", "
	"\"format\": \"raw\", \"nbytes\": 16, \"byteOffset\": 64}]}]}\n";

/* good_json with the first `from` replaced by `to`. */
static char *
mutate(const char *from, const char *to)
{
	const char *p = strstr(good_json, from);
	assert_non_null(p);
	return fmt("%.*s%s%s", (int)(p - good_json), good_json, to,
		   p + strlen(from));
}

/* Writes json to a fresh cache dir with s0.bin and expects rt_cache_open to
 * fail with a message containing want (and naming the file). */
static void
expect_bad(const char *json, const char *want)
{
	char *base = tmpdir();
	char *shard = fmt("%s/s0.bin", base);
	char *jp = fmt("%s/tensor-cache.json", base);
	unsigned char bytes[128] = {1, 2, 3};
	write_bytes(shard, bytes, sizeof bytes);
	write_bytes(jp, json, strlen(json));
	RtError e = {0};
	RtCache *c = rt_cache_open(base, &e);
	if (c || !strstr(e.msg, want) || !strstr(e.msg, base))
		fail_msg("want an error with \"%s\", got %s: %s", want,
			 c ? "success" : "error", e.msg);
	if (getenv("RLX_TEST_VERBOSE"))
		print_message("%s\n", e.msg);
	free(shard);
	free(jp);
	rm_rf(base);
}

/* expect_bad on good_json with one substitution. */
static void
bad(const char *from, const char *to, const char *want)
{
	char *j = mutate(from, to);
	expect_bad(j, want);
	free(j);
}

static void
test_good_hand_written(void **state)
{
	(void)state;
	/* the base of the malformed cases is itself fine */
	char *base = tmpdir();
	char *shard = fmt("%s/s0.bin", base);
	char *jp = fmt("%s/tensor-cache.json", base);
	unsigned char bytes[128];
	for (int i = 0; i < 128; i++)
		bytes[i] = (unsigned char)i;
	write_bytes(shard, bytes, sizeof bytes);
	write_bytes(jp, good_json, strlen(good_json));
	RtError e = {0};
	RtCache *c = rt_cache_open(base, &e);
	assert_non_null(c);
	assert_int_equal(rt_cache_count(c), 2);
	RtTensor *t = rt_cache_load(c, rt_cache_find(c, "v"), &e);
	assert_non_null(t);
	assert_int_equal(t->ndim, 2);
	assert_memory_equal(t->data, bytes + 64, 16);
	tfree(t);
	assert_string_equal(rt_cache_metadata(c), "{\"ParamSize\":2}");
	rt_cache_close(c);
	/* an unaligned record is copied into an aligned buffer */
	char *j = mutate("\"byteOffset\": 64", "\"byteOffset\": 20");
	write_bytes(jp, j, strlen(j));
	free(j);
	c = rt_cache_open(base, &e);
	assert_non_null(c);
	t = rt_cache_load(c, rt_cache_find(c, "v"), &e);
	assert_non_null(t);
	assert_int_equal(t->own, RT_OWNED);
	assert_int_equal((uintptr_t)t->data % RT_ALIGN, 0);
	assert_memory_equal(t->data, bytes + 20, 16);
	tfree(t);
	rt_cache_close(c);
	/* tvmjs's older name for the description is read too */
	char *old = fmt("%s/ndarray-cache.json", base);
	assert_int_equal(rename(jp, old), 0);
	c = rt_cache_open(base, &e);
	assert_non_null(c);
	assert_int_equal(rt_cache_count(c), 2);
	rt_cache_close(c);
	free(old);
	free(shard);
	free(jp);
	rm_rf(base);
}

static void
test_path_traversal(void **state)
{
	(void)state;
	const char *paths[] = {"../x", "/etc/passwd", "a/b", "", ".", "..",
			       "s0.bin/"};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		char *to = fmt("\"dataPath\": \"%s\"", paths[i]);
		bad("\"dataPath\": \"s0.bin\"", to, "is not a plain file name");
		free(to);
	}
	bad("\"dataPath\": \"s0.bin\"", "\"dataPath\": \"s0\\u0000.bin\"",
	    "invalid JSON");
}

static void
test_sizes_and_bounds(void **state)
{
	(void)state;
	bad("\"nbytes\": 128", "\"nbytes\": 100",
	    "the file is 128 bytes, but");
	bad("\"nbytes\": 128", "\"nbytes\": 256", "nbytes 256");
	bad("\"byteOffset\": 64", "\"byteOffset\": 120",
	    "record 'v' of shard s0.bin: byteOffset 120 + nbytes 16 exceeds "
	    "the shard's 128 bytes");
	bad("\"byteOffset\": 64", "\"byteOffset\": 9223372036854775807",
	    "exceeds the shard's 128 bytes");
	bad("\"byteOffset\": 64", "\"byteOffset\": -64", "negative");
	bad("\"byteOffset\": 64", "\"byteOffset\": 8", "overlap");
	bad("\"nbytes\": 16", "\"nbytes\": 12",
	    "nbytes 12 does not match its shape and dtype");
	bad("\"shape\": [4]", "\"shape\": [4, 1, 1, 1, 1, 1, 1, 1, 1]",
	    "9 dimensions");
	bad("\"shape\": [4]", "\"shape\": [4611686018427387904, 4]",
	    "overflows");
	bad("\"shape\": [4]", "\"shape\": [-4]", "\"shape\"[0] is negative");
	bad("\"dataPath\": \"s0.bin\"", "\"dataPath\": \"s1.bin\"",
	    "s1.bin: No such file");
}

static void
test_names_keys_formats(void **state)
{
	(void)state;
	bad("\"name\": \"v\"", "\"name\": \"w\"",
	    "duplicate record name 'w'");
	bad("\"name\": \"v\"", "\"name\": \"v\", \"name\": \"x\"",
	    "duplicate object key");
	bad("\"name\": \"v\"", "\"name\": \"\"", "\"name\" is empty");
	bad("\"format\": \"raw\"", "\"format\": \"f32-to-bf16\"",
	    "record 'w' of shard s0.bin: unsupported format \"f32-to-bf16\"");
	bad("\"format\": \"raw\"", "\"format\": \"zstd\"",
	    "unsupported format \"zstd\"");
	bad("\"format\": \"raw-shard\"", "\"format\": \"zip-shard\"",
	    "unsupported shard format");
	bad("\"dtype\": \"float32\"", "\"dtype\": \"float4_e2m1fn\"",
	    "unsupported dtype \"float4_e2m1fn\"");
	/* a float8 record is read; its nbytes must be one byte an element */
	bad("\"dtype\": \"float32\"", "\"dtype\": \"float8_e4m3fn\"",
	    "nbytes 16 does not match its shape and dtype float8_e4m3fn");
	bad("\"dtype\": \"float32\"", "\"dtype\": \"void\"",
	    "unsupported dtype");
	bad("\"format\": \"raw-shard\"",
	    "\"format\": \"raw-shard\", \"rlxHash\": \"xyz\"", "16 hex digits");
	bad("\"format\": \"raw\"", "\"format\": \"raw\", \"rlxKind\": \"shape\"",
	    "a shape record must be a 1-d int64 array");
	bad("\"format\": \"raw\"", "\"format\": \"raw\", \"rlxKind\": \"dict\"",
	    "unknown \"rlxKind\"");
	/* the same shard listed twice */
	char *j = mutate("]}]}", "]}, {\"dataPath\": \"s0.bin\", \"format\": "
			 "\"raw-shard\", \"nbytes\": 128, \"records\": []}]}");
	expect_bad(j, "a second shard with the same dataPath");
	free(j);
}

static void
test_missing_and_types(void **state)
{
	(void)state;
	bad("\"dtype\": \"float32\", ", "", "record 'w' of shard s0.bin: "
	    "missing \"dtype\"");
	bad("\"name\": \"w\", ", "", "record #0 of shard s0.bin: missing "
	    "\"name\"");
	bad("\"byteOffset\": 0", "\"byteOffsett\": 0", "missing \"byteOffset\"");
	bad("\"dataPath\": \"s0.bin\", ", "", "shard #0: missing \"dataPath\"");
	bad("\"nbytes\": 128, ", "", "shard s0.bin: missing \"nbytes\"");
	bad("\"records\": [{", "\"recs\": [{", "missing \"records\"");
	bad("{\"metadata\": {\"ParamSize\": 2},", "{", "missing \"metadata\"");
	bad("\"nbytes\": 16", "\"nbytes\": \"16\"",
	    "\"nbytes\" must be an integer, not a string");
	bad("\"nbytes\": 16", "\"nbytes\": 16.0",
	    "\"nbytes\" must be an integer, not a real number");
	bad("\"shape\": [4]", "\"shape\": 4",
	    "\"shape\" must be an array, not an integer");
	bad("\"shape\": [4]", "\"shape\": [\"4\"]",
	    "\"shape\"[0] must be an integer, not a string");
	bad("\"name\": \"w\"", "\"name\": 7",
	    "\"name\" must be a string, not an integer");
	bad("\"metadata\": {\"ParamSize\": 2}", "\"metadata\": []",
	    "\"metadata\" must be an object, not an array");
	bad("{\"name\": \"w\"", "[{\"name\": \"w\"", "invalid JSON");
	expect_bad("[1, 2]", "the top level must be an object, not an array");
	expect_bad("{\"metadata\": {}, \"records\": [7]}",
		   "shard #0: must be an object, not an integer");
	expect_bad("{\"metadata\": {}, \"records\": {}}",
		   "\"records\" must be an array, not an object");
	/* truncated and empty */
	char *half = fmt("%.*s", (int)strlen(good_json) / 2, good_json);
	expect_bad(half, "invalid JSON");
	free(half);
	expect_bad("", "the file is empty");
	expect_bad("{} {}", "invalid JSON");
}

static void
test_no_cache_here(void **state)
{
	(void)state;
	char *base = tmpdir();
	RtError e = {0};
	assert_null(rt_cache_open(base, &e));
	assert_non_null(strstr(e.msg, "no tensor-cache.json"));
	char *file = fmt("%s/f", base);
	write_bytes(file, "x", 1);
	assert_null(rt_cache_open(file, &e));
	assert_non_null(strstr(e.msg, "not a directory"));
	char *none = fmt("%s/none", base);
	assert_null(rt_cache_open(none, &e));
	assert_non_null(strstr(e.msg, "No such file"));
	/* tensor-cache.json that is a directory */
	char *jd = fmt("%s/tensor-cache.json", base);
	assert_int_equal(mkdir(jd, 0777), 0);
	assert_null(rt_cache_open(base, &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	free(jd);
	free(none);
	free(file);
	rm_rf(base);
}

static void
test_hash_mismatch(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 2048};
	int64_t shape[] = {300};
	RtTensor *a = make(DT_F32, 1, shape, 1), *b = make(DT_I32, 1, shape, 2);
	RtCacheWriter *w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	assert_true(rt_cache_add(w, "a", a, &e));
	assert_true(rt_cache_add(w, "b", b, &e));
	assert_true(rt_cache_finish(w, NULL, &e));
	/* flip one byte of the second shard */
	char *p = fmt("%s/params_shard_1.bin", dir);
	size_t n;
	char *bytes = read_text(p, &n);
	assert_int_equal(n, 1200);
	bytes[77] ^= 1;
	write_bytes(p, bytes, n);
	free(bytes);
	RtCache *c = rt_cache_open(dir, &e);
	assert_non_null(c);
	check_equal(c, "a", a); /* the intact shard still loads */
	assert_null(rt_cache_load(c, rt_cache_find(c, "b"), &e));
	assert_non_null(strstr(e.msg, "params_shard_1.bin: content hash"));
	assert_non_null(strstr(e.msg, "does not match the rlxHash"));
	assert_null(rt_cache_load(c, rt_cache_find(c, "b"), &e));
	assert_false(rt_cache_verify(c, &e));
	assert_non_null(strstr(e.msg, "params_shard_1.bin"));
	rt_cache_close(c);
	/* without the hash, a reader has nothing to check against */
	char *jp = fmt("%s/tensor-cache.json", dir);
	char *j = read_text(jp, NULL);
	char *h = strstr(strstr(j, "params_shard_1.bin"), "\"rlxHash\"");
	assert_non_null(h);
	memcpy(h, "\"rlxHasx\"", 9);
	write_bytes(jp, j, strlen(j));
	c = rt_cache_open(dir, &e);
	assert_non_null(c);
	assert_true(rt_cache_verify(c, &e));
	rt_cache_close(c);
	free(j);
	free(jp);
	free(p);
	tfree(a);
	tfree(b);
	free(dir);
	rm_rf(base);
}

/* ----------------------------------------------------- a foreign reader */

static const char numpy_script[] =
	"import json, os, sys\n"
	"import numpy as np\n"
	"d = sys.argv[1]\n"
	"top = json.load(open(os.path.join(d, 'tensor-cache.json')))\n"
	"got = {}\n"
	"for s in top['records']:\n"
	"    p = os.path.join(d, s['dataPath'])\n"
	"    assert os.path.getsize(p) == s['nbytes'], s\n"
	"    for r in s['records']:\n"
	"        if r.get('rlxKind') == 'shape':\n"
	"            got['shape:' + r['name']] = np.fromfile(p, '<i8',\n"
	"                count=r['shape'][0], offset=r['byteOffset'])\n"
	"            continue\n"
	"        dt = np.dtype({'bfloat16': 'uint16'}.get(r['dtype'], r['dtype']))\n"
	"        dt = dt.newbyteorder('<')\n"
	"        n = int(np.prod(r['shape']))\n"
	"        a = np.fromfile(p, dt, count=n, offset=r['byteOffset'])\n"
	"        a = a.reshape(r['shape'])\n"
	"        assert a.nbytes == r['nbytes'], r\n"
	"        got[r['name']] = a\n"
	"exp = (np.arange(6, dtype=np.float32) * 0.5 - 1).reshape(2, 3)\n"
	"assert np.array_equal(got['f32'], exp), got['f32']\n"
	"assert np.array_equal(got['i64'], np.arange(4) * 1000000007 - 5)\n"
	"assert np.array_equal(got['f16'], np.array([1.0, -2.0, 0.5], np.float16))\n"
	"assert got['bf16'].tolist() == [0x3f80, 0xc000]\n"
	"assert got['b'].dtype == np.bool_ and got['b'].tolist() == [True, False, True]\n"
	"assert np.array_equal(got['u8'], np.arange(70, dtype=np.uint8))\n"
	"assert got['f64'].shape == (40, 10)\n"
	"assert np.array_equal(got['f64'].ravel(), np.arange(400) / 8)\n"
	"assert got['scalar'].shape == () and got['scalar'] == 2.5\n"
	"assert got['none'].shape == (0, 3)\n"
	"assert got['shape:sh'].tolist() == [16, -1, 1 << 40]\n"
	"print('numpy agrees on', len(got), 'records')\n";

static void
test_numpy_reader(void **state)
{
	(void)state;
	if (system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0)
		skip();
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 2048};
	RtCacheWriter *w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	int64_t s23[] = {2, 3}, s4[] = {4}, s3[] = {3}, s2[] = {2}, s70[] = {70},
		s400[] = {40, 10}, s03[] = {0, 3};
	RtTensor *t = make(DT_F32, 2, s23, 0);
	for (int i = 0; i < 6; i++)
		((float *)t->data)[i] = (float)i * 0.5f - 1;
	assert_true(rt_cache_add(w, "f32", t, &e));
	tfree(t);
	t = make(DT_I64, 1, s4, 0);
	for (int i = 0; i < 4; i++)
		((int64_t *)t->data)[i] = (int64_t)i * 1000000007 - 5;
	assert_true(rt_cache_add(w, "i64", t, &e));
	tfree(t);
	t = make(DT_F16, 1, s3, 0);
	uint16_t h[] = {0x3c00, 0xc000, 0x3800};
	memcpy(t->data, h, sizeof h);
	assert_true(rt_cache_add(w, "f16", t, &e));
	tfree(t);
	t = make(DT_BF16, 1, s2, 0);
	uint16_t bf[] = {0x3f80, 0xc000};
	memcpy(t->data, bf, sizeof bf);
	assert_true(rt_cache_add(w, "bf16", t, &e));
	tfree(t);
	t = make(DT_BOOL, 1, s3, 1);
	assert_true(rt_cache_add(w, "b", t, &e));
	tfree(t);
	t = make(DT_U8, 1, s70, 0);
	for (int i = 0; i < 70; i++)
		((uint8_t *)t->data)[i] = (uint8_t)i;
	assert_true(rt_cache_add(w, "u8", t, &e));
	tfree(t);
	int64_t sv[] = {16, -1, 1LL << 40};
	assert_true(rt_cache_add_shape(w, "sh", sv, 3, &e));
	t = make(DT_F64, 2, s400, 0); /* 3200 bytes: its own shard */
	for (int i = 0; i < 400; i++)
		((double *)t->data)[i] = i / 8.0;
	assert_true(rt_cache_add(w, "f64", t, &e));
	tfree(t);
	t = make(DT_F32, 0, NULL, 0);
	*(float *)t->data = 2.5f;
	assert_true(rt_cache_add(w, "scalar", t, &e));
	tfree(t);
	t = make(DT_F32, 2, s03, 0);
	assert_true(rt_cache_add(w, "none", t, &e));
	tfree(t);
	assert_true(rt_cache_finish(w, NULL, &e));

	char *script = fmt("%s/read.py", base);
	write_bytes(script, numpy_script, strlen(numpy_script));
	char *cmd = fmt("/usr/bin/python3 %s %s", script, dir);
	int rc = system(cmd);
	assert_true(WIFEXITED(rc));
	assert_int_equal(WEXITSTATUS(rc), 0);
	free(cmd);
	free(script);
	free(dir);
	rm_rf(base);
}

/* A large piece is written a chunk at a time, every chunk but the last
 * ending at a 2 MiB boundary of the file (whole aligned blocks in one
 * write(): the page cache keeps them as 2 MiB folios). */
static void
test_chunks(void **state)
{
	(void)state;
	const uint64_t M2 = 2 << 20;
	assert_int_equal(CHUNK_BYTES, M2);
	assert_int_equal(tc_chunk(0, 5 * M2), M2);
	assert_int_equal(tc_chunk(64, 5 * M2), M2 - 64);
	assert_int_equal(tc_chunk(M2 - 64, 100), 64);
	assert_int_equal(tc_chunk(2 * M2, 10), 10);
	assert_int_equal(tc_chunk(3 * M2 + 1, 0), 0);
	uint64_t at = 3 * M2 / 2 + 64, n = 7 * M2 + 3, calls = 0;
	while (n) {
		uint64_t k = tc_chunk(at, n);
		assert_true(k > 0 && k <= M2);
		at += k;
		n -= k;
		calls++;
		if (n)
			assert_int_equal(at % M2, 0);
	}
	assert_int_equal(at, 3 * M2 / 2 + 64 + 7 * M2 + 3);
	assert_int_equal(calls, 8); /* a head, six whole blocks, a tail */
}

/* Large records (their blocks allocated before the write): the bytes,
 * hashes and file sizes are as for small ones, and no block is left
 * allocated past the end of a shard. */
static void
test_large_records(void **state)
{
	(void)state;
	char *base = tmpdir();
	char *dir = fmt("%s/out", base);
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 8 << 20};
	RtCacheWriter *w = rt_cache_begin(dir, &o, &e);
	assert_non_null(w);
	int64_t s1[] = {3 << 18}, s2[] = {1000, 1001}, s3[] = {5 << 20};
	RtTensor *t[4] = {
		make(DT_F32, 1, s1, 1),   /* 3 MiB */
		make(DT_U8, 2, s2, 2),    /* under 1 MiB: not preallocated */
		make(DT_U8, 1, s1, 3),    /* 768 KiB, then an unaligned end */
		make(DT_U8, 1, s3, 4),    /* 5 MiB: a shard of its own */
	};
	const char *names[4] = {"a", "b", "c", "d"};
	for (int i = 0; i < 4; i++)
		assert_true(rt_cache_add(w, names[i], t[i], &e));
	assert_true(rt_cache_finish(w, NULL, &e));
	RtCache *c = rt_cache_open(dir, &e);
	if (!c)
		fail_msg("%s", e.msg);
	assert_true(rt_cache_verify(c, &e));
	for (int i = 0; i < 4; i++) {
		int k = rt_cache_find(c, names[i]);
		assert_true(k >= 0);
		RtTensor *r = rt_cache_load(c, k, &e);
		assert_non_null(r);
		assert_int_equal(r->nbytes, t[i]->nbytes);
		assert_memory_equal(r->data, t[i]->data, t[i]->nbytes);
		rt_tensor_free(r);
	}
	rt_cache_close(c);
	/* each shard: its size is the JSON's, its blocks within its size */
	json_error_t je;
	char *jpath = fmt("%s/tensor-cache.json", dir);
	json_t *top = json_load_file(jpath, 0, &je);
	assert_non_null(top);
	json_t *shards = json_object_get(top, "records");
	assert_int_equal(json_array_size(shards), 2);
	for (size_t s = 0; s < json_array_size(shards); s++) {
		json_t *sh = json_array_get(shards, s);
		char *p = fmt("%s/%s", dir, json_string_value(json_object_get(sh,
			"dataPath")));
		struct stat st;
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_size,
				 json_integer_value(json_object_get(sh, "nbytes")));
		if ((uint64_t)st.st_blocks * 512 > (uint64_t)st.st_size + 65536)
			fail_msg("%s: %lld bytes allocated for %lld", p,
				 (long long)st.st_blocks * 512,
				 (long long)st.st_size);
		free(p);
	}
	json_decref(top);
	free(jpath);
	for (int i = 0; i < 4; i++)
		tfree(t[i]);
	free(dir);
	rm_rf(base);
}

/* A cache of the tensors written with rt_cache_add, its JSON and shard
 * bytes as one string (for comparing layouts). */
static char *
cache_text(const char *dir)
{
	char *cmd = fmt("cd '%s' && grep -v rlxVersion tensor-cache.json && "
			"cat params_shard_*.bin | od -An -tx1 | md5sum", dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	n = fread(buf, 1, cap - 1, p);
	buf[n] = 0;
	assert_int_equal(pclose(p), 0);
	free(cmd);
	return buf;
}

typedef struct {
	RtCacheWriter *w;
	RtCacheTicket *tk;
	RtTensor **t;
	int from, step, n;
	bool ok;
} WriteJob;

static void *
write_some(void *arg)
{
	WriteJob *j = arg;
	RtError e = {0};
	j->ok = true;
	for (int i = j->from; i >= 0 && i < j->n; i += j->step)
		j->ok &= rt_cache_write_alone(j->w, &j->tk[i], j->t[i], &e);
	return NULL;
}

/* rt_cache_place fixes the layout: writing the shards of large tensors
 * later, out of order and on two threads at once, gives the cache that
 * rt_cache_add in order gives, byte for byte. */
static void
test_place_then_write(void **state)
{
	(void)state;
	enum { N = 12 };
	char *base = tmpdir();
	char *d1 = fmt("%s/seq", base), *d2 = fmt("%s/par", base);
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 1 << 20};
	RtTensor *t[N];
	char names[N][16];
	for (int i = 0; i < N; i++) {
		/* alone (>= 512 KiB) and packed ones, interleaved */
		int64_t shape[] = {i % 3 == 0 ? 200000 + i : 1000 * (i + 1)};
		t[i] = make(i % 3 && i % 2 ? DT_U8 : DT_F32, 1, shape, i);
		snprintf(names[i], sizeof names[i], "t%d", i);
	}
	RtCacheWriter *w = rt_cache_begin(d1, &o, &e);
	for (int i = 0; i < N; i++)
		assert_true(rt_cache_add(w, names[i], t[i], &e));
	int64_t sv[2] = {3, 4};
	assert_true(rt_cache_add_shape(w, "shape", sv, 2, &e));
	assert_true(rt_cache_finish(w, NULL, &e));

	w = rt_cache_begin(d2, &o, &e);
	RtCacheTicket tk[N];
	int alone = 0;
	for (int i = 0; i < N; i++) {
		assert_true(rt_cache_place(w, names[i], t[i], &tk[i], &e));
		alone += tk[i].shard >= 0;
	}
	assert_int_equal(alone, 4);
	assert_true(rt_cache_add_shape(w, "shape", sv, 2, &e));
	/* finishing with a shard unwritten is refused (and aborts) */
	char *d3 = fmt("%s/bad", base);
	RtCacheWriter *w2 = rt_cache_begin(d3, &o, &e);
	RtCacheTicket tk2;
	assert_true(rt_cache_place(w2, "big", t[0], &tk2, &e));
	assert_false(rt_cache_finish(w2, NULL, &e));
	assert_non_null(strstr(e.msg, "placed but not written"));
	json_decref(tk2.rec);
	/* two threads: the odd ones from the last down, the even ones up */
	WriteJob a = {w, tk, t, N - 1, -2, N, false}, b = {w, tk, t, 0, 2, N, false};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, write_some, &a), 0);
	write_some(&b);
	pthread_join(th, NULL);
	assert_true(a.ok && b.ok);
	assert_true(rt_cache_finish(w, NULL, &e));
	char *x = cache_text(d1), *y = cache_text(d2);
	assert_string_equal(x, y);
	RtCache *c = rt_cache_open(d2, &e);
	assert_non_null(c);
	assert_true(rt_cache_verify(c, &e));
	rt_cache_close(c);
	free(x);
	free(y);
	for (int i = 0; i < N; i++)
		tfree(t[i]);
	free(d1);
	free(d2);
	free(d3);
	rm_rf(base);
}

/* A planned cache (rt_cache_plan) written by 1, 2 and 3 writers, each
 * taking its shards' records in reverse order, is the cache rt_cache_add
 * writes from the same records in order, byte for byte: the plan follows
 * the writer's packing rule (alone, packed, empty and shape records). */
static void
test_planned(void **state)
{
	(void)state;
	enum { N = 14 };
	char *base = tmpdir();
	RtError e = {0};
	RtCacheOptions o = {.shard_bytes = 1 << 16};
	RtTensor *t[N];
	char names[N][16];
	RtPlanRec recs[N + 1];
	for (int i = 0; i < N; i++) {
		int64_t shape[] = {i % 3 == 0 ? 9000 + i : i == 5 ? 0
				   : 600 * (i + 1)};
		t[i] = make(i % 3 && i % 2 ? DT_U8 : DT_F32, 1, shape, i);
		snprintf(names[i], sizeof names[i], "t%d", i);
		recs[i] = (RtPlanRec){.name = names[i], .dtype = t[i]->dtype,
				      .ndim = 1, .shape = {shape[0]}};
	}
	int64_t sv[3] = {3, 4, 5};
	recs[N] = (RtPlanRec){.name = "shape", .dtype = DT_I64, .ndim = 1,
			      .shape = {3}, .is_shape = true};
	char *d0 = fmt("%s/seq", base);
	RtCacheWriter *w = rt_cache_begin(d0, &o, &e);
	for (int i = 0; i < N; i++)
		assert_true(rt_cache_add(w, names[i], t[i], &e));
	assert_true(rt_cache_add_shape(w, "shape", sv, 3, &e));
	assert_true(rt_cache_finish(w, "{\"x\": 1}", &e));
	char *want = cache_text(d0);
	for (int np = 1; np <= 3; np++) {
		RtCachePlan pl;
		assert_true(rt_cache_plan(&pl, recs, N + 1, 1 << 16, np, &e));
		assert_true(pl.nshards >= 6);
		for (int s = 1; s < pl.nshards; s++)
			assert_true(pl.owner[s] >= pl.owner[s - 1]);
		char *d = fmt("%s/p%d", base, np);
		RtCacheWriter *ws[3] = {rt_cache_begin_planned(d, &pl, &e)};
		assert_non_null(ws[0]);
		for (int q = 1; q < np; q++)
			assert_non_null(ws[q] = rt_cache_join(d, rt_cache_tmpdir(ws[0]),
							      &pl, q, &e));
		for (int i = N; i >= 0; i--) {
			RtCacheWriter *wq = ws[pl.owner[recs[i].shard]];
			if (i == N) {
				assert_true(rt_cache_add_shape(wq, "shape", sv, 3, &e));
				continue;
			}
			/* another writer's record is refused */
			if (np > 1) {
				RtCacheWriter *other =
					ws[(pl.owner[recs[i].shard] + 1) % np];
				assert_false(rt_cache_add(other, names[i], t[i], &e));
				assert_non_null(strstr(e.msg, "which process"));
			}
			assert_true(rt_cache_add(wq, names[i], t[i], &e));
		}
		uint64_t sum[N + 1] = {0}, h[N + 1];
		for (int q = 0; q < np; q++) {
			assert_true(rt_cache_hashes(ws[q], h, &e));
			for (int s = 0; s < pl.nshards; s++)
				sum[s] += h[s];
		}
		for (int q = 1; q < np; q++)
			rt_cache_abort(ws[q]); /* joined: the files stay */
		assert_true(rt_cache_set_hashes(ws[0], sum, &e));
		assert_true(rt_cache_finish(ws[0], "{\"x\": 1}", &e));
		char *got = cache_text(d);
		assert_string_equal(got, want);
		free(got);
		free(d);
		rt_cache_plan_free(&pl);
	}
	/* a record of another shape than planned is an error */
	RtCachePlan pl;
	assert_true(rt_cache_plan(&pl, recs, N + 1, 1 << 16, 1, &e));
	char *d = fmt("%s/bad", base);
	w = rt_cache_begin_planned(d, &pl, &e);
	assert_false(rt_cache_add(w, names[1], t[2], &e));
	assert_non_null(strstr(e.msg, "planned"));
	rt_cache_abort(w);
	assert_false(exists(d));
	rt_cache_plan_free(&pl);
	free(d);
	free(want);
	free(d0);
	for (int i = 0; i < N; i++)
		tfree(t[i]);
	rm_rf(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_then_write),
		cmocka_unit_test(test_planned),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_large_records),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_model_with_records),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_good_hand_written),
		cmocka_unit_test(test_path_traversal),
		cmocka_unit_test(test_sizes_and_bounds),
		cmocka_unit_test(test_names_keys_formats),
		cmocka_unit_test(test_missing_and_types),
		cmocka_unit_test(test_no_cache_here),
		cmocka_unit_test(test_hash_mismatch),
		cmocka_unit_test(test_numpy_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
