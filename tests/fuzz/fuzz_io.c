/*
 * fuzz_io.c — the readers of binary and JSON inputs (safetensors, sharded
 * checkpoint indexes, .npy, tensor caches) under libFuzzer, and a replayer
 * of their regression inputs.
 *
 * The contract: any bytes are either read, or refused with an RtError
 * message; never a crash, a hang, a leak or undefined behaviour. Whatever
 * a reader accepts must load: every tensor it lists loads (or is refused
 * with a message), with the dtype, shape and byte size it announced, and
 * every byte of it can be read.
 *
 * The first input byte selects the reader (bits 0-1) and options; the rest
 * is cut at each "%%FILE%%" into the files the reader is given, written to
 * a temporary directory made once per process:
 *
 *   0  safetensors: the file, through rt_st_open and rt_weights_open
 *   1  .npy: the image, through rt_npy_parse and rt_npy_read, which must
 *      agree
 *   2  sharded index: model.safetensors.index.json, then the shards
 *      model-00001.safetensors and model-00002.safetensors
 *   3  tensor cache: tensor-cache.json (bit 2: ndarray-cache.json), then
 *      params_shard_0.bin and params_shard_1.bin, through rt_cache_open
 *      and rt_weights_open on the directory
 *
 * Bit 3 (cache only): the k-th "rlxHash": "<16 chars>" of the JSON text is
 * overwritten with the xxh3 of shard k before the files are written, so
 * that mutated shards get past the hash check to the record checks.
 *
 * Built with -DRLX_FUZZ_REPLAY, main() runs the same over the files named
 * on the command line (directories: every regular file in them but
 * README.md), so that `meson test` replays tests/fuzz/regress/io and the
 * seed corpus under the sanitizers of the build. A broken property aborts
 * with what broke.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_io.h"
#include "xxh.h"

/* Larger inputs only slow the fuzzer down. */
#define FUZZ_MAX_INPUT (256 * 1024)

static const char SEP[] = "%%FILE%%";

enum { MAX_PARTS = 3 };

/* The files each reader is given, in input order. */
static const char *const st_files[] = {"model.safetensors"};
static const char *const npy_files[] = {"array.npy"};
static const char *const index_files[] = {
	"model.safetensors.index.json", "model-00001.safetensors",
	"model-00002.safetensors"};
static const char *const cache_files[] = {
	"tensor-cache.json", "params_shard_0.bin", "params_shard_1.bin"};
static const char *const every_file[] = {
	"model.safetensors", "array.npy", "model.safetensors.index.json",
	"model-00001.safetensors", "model-00002.safetensors",
	"tensor-cache.json", "ndarray-cache.json", "params_shard_0.bin",
	"params_shard_1.bin"};

/* Reports a broken property and aborts (the fuzzer saves the input). */
static _Noreturn void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_io property broken: %s\n", what);
	if (detail)
		fprintf(stderr, "--- detail\n%s\n", detail);
	abort();
}

/* The temporary directory's path joined with name (a static buffer). */
static const char *
tmp_path(const char *name)
{
	static char dir[64];
	static char buf[256];
	if (!dir[0]) {
		const char *base = access("/dev/shm", W_OK) ? "/tmp"
							    : "/dev/shm";
		snprintf(dir, sizeof dir, "%s/rlx-fuzz-io-XXXXXX", base);
		if (!mkdtemp(dir))
			fail("cannot make a temporary directory", dir);
	}
	if (!name)
		return dir;
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

/* Removes every file a reader may have been given. */
static void
clear_files(void)
{
	for (size_t i = 0; i < ARRAY_LEN(every_file); i++)
		unlink(tmp_path(every_file[i]));
}

/* Removes the temporary directory (at exit). */
static void
remove_tmp(void)
{
	clear_files();
	rmdir(tmp_path(NULL));
}

/* Writes n bytes at p to the file name of the temporary directory. */
static void
write_file(const char *name, const void *p, size_t n)
{
	const char *path = tmp_path(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		fail("cannot write a temporary file", path);
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k <= 0)
			fail("cannot write a temporary file", path);
		c += k;
		n -= (size_t)k;
	}
	close(fd);
}

/* Cuts data at each SEP into at most MAX_PARTS parts; the count. */
static int
split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len)
{
	size_t sl = sizeof SEP - 1;
	int n = 0;
	const uint8_t *p = data, *end = data + size;
	while (n < MAX_PARTS - 1) {
		const uint8_t *q = memmem(p, (size_t)(end - p), SEP, sl);
		if (!q)
			break;
		part[n] = p;
		len[n++] = (size_t)(q - p);
		p = q + sl;
	}
	part[n] = p;
	len[n++] = (size_t)(end - p);
	return n;
}

/* A failure must say why. With RLX_FUZZ_IO_VERBOSE set, every outcome
 * is printed (to see what a seed or finding reaches). */
static void
need_message(bool ok, RtError *e, const char *what)
{
	if (!ok && !e->msg[0])
		fail("refused without a message", what);
	if (getenv("RLX_FUZZ_IO_VERBOSE"))
		fprintf(stderr, "  %s: %s\n", what, ok ? "ok" : e->msg);
}

/* A loaded tensor must be what was announced and readable throughout. */
static void
check_tensor(const RtTensor *t, DType dt, int ndim, const int64_t *shape,
	     const char *name)
{
	size_t nb;
	if (t->dtype != dt || t->ndim != ndim ||
	    memcmp(t->shape, shape, sizeof(int64_t) * (size_t)ndim))
		fail("a tensor loads with another dtype or shape than listed",
		     name);
	if (!rt_size(t->dtype, t->ndim, t->shape, &nb) || nb != t->nbytes)
		fail("a tensor's nbytes does not match its shape", name);
	if (t->nbytes && !t->data)
		fail("a tensor without data", name);
	const volatile unsigned char *p = t->data;
	unsigned sum = 0;
	for (size_t i = 0; i < t->nbytes; i++)
		sum += p[i];
	if (t->dtype == DT_BOOL)
		for (size_t i = 0; i < t->nbytes; i++)
			if (p[i] > 1)
				fail("a bool tensor holds a byte other than 0 "
				     "or 1", name);
	(void)sum;
}

/* Every tensor of a safetensors file, and its metadata. */
static void
run_safetensors(void)
{
	const char *path = tmp_path(st_files[0]);
	RtError e = {0};
	RtSafetensors *st = rt_st_open(path, &e);
	need_message(st != NULL, &e, "rt_st_open");
	RtWeights *w = rt_weights_open(path, &e);
	need_message(w != NULL, &e, "rt_weights_open");
	if (!st != !w)
		fail("rt_st_open and rt_weights_open disagree", e.msg);
	if (!st)
		return;
	if (rt_weights_count(w) != rt_st_count(st))
		fail("rt_weights_count differs from rt_st_count", NULL);
	for (int i = 0; i < rt_st_count(st); i++) {
		const char *name = rt_st_name(st, i);
		DType dt;
		int ndim;
		int64_t shape[RT_MAX_DIMS];
		if (!name || !rt_st_find(st, name, &dt, &ndim, shape))
			fail("a listed tensor is not found", name);
		e.msg[0] = 0;
		RtTensor *t = rt_st_load(st, name, &e);
		need_message(t != NULL, &e, name);
		if (t)
			check_tensor(t, dt, ndim, shape, name);
		rt_tensor_free(t);
		e.msg[0] = 0;
		t = rt_weights_load(w, name, &e);
		need_message(t != NULL, &e, name);
		if (t)
			check_tensor(t, dt, ndim, shape, name);
		rt_tensor_free(t);
	}
	e.msg[0] = 0;
	if (rt_st_load(st, "no such tensor \x01", &e) || !e.msg[0])
		fail("a missing tensor loads", NULL);
	for (int i = 0; i < rt_st_meta_count(st); i++) {
		const char *k = rt_st_meta_key(st, i);
		const char *v = rt_st_meta_value(st, i);
		if (!k || !v || !rt_st_meta_get(st, k))
			fail("a metadata entry is not found", k);
	}
	rt_weights_close(w);
	rt_st_close(st);
}

/* An .npy image, parsed in memory and read from the file: both agree. */
static void
run_npy(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the end. */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		fail("out of memory", NULL);
	memcpy(buf, data, size);
	RtError e1 = {0}, e2 = {0};
	RtTensor *a = rt_npy_parse(buf, size, "fuzz.npy", &e1);
	need_message(a != NULL, &e1, "rt_npy_parse");
	RtTensor *b = rt_npy_read(tmp_path(npy_files[0]), &e2);
	need_message(b != NULL, &e2, "rt_npy_read");
	if (!a != !b)
		fail("rt_npy_parse and rt_npy_read disagree",
		     a ? e2.msg : e1.msg);
	if (a) {
		check_tensor(a, a->dtype, a->ndim, a->shape, "fuzz.npy");
		check_tensor(b, a->dtype, a->ndim, a->shape, "fuzz.npy");
		if (a->nbytes && memcmp(a->data, b->data, a->nbytes))
			fail("rt_npy_parse and rt_npy_read read other bytes",
			     NULL);
	}
	rt_tensor_free(a);
	rt_tensor_free(b);
	free(buf);
}

/* Every tensor of a sharded checkpoint index. */
static void
run_index(void)
{
	RtError e = {0};
	RtWeights *w = rt_weights_open(tmp_path(index_files[0]), &e);
	need_message(w != NULL, &e, "rt_weights_open");
	if (!w)
		return;
	for (int i = 0; i < rt_weights_count(w); i++) {
		const char *name = rt_weights_name(w, i);
		if (!name || !rt_weights_has(w, name))
			fail("a listed weight is not found", name);
		DType dt;
		int ndim;
		int64_t shape[RT_MAX_DIMS];
		e.msg[0] = 0;
		bool ok = rt_weights_info(w, name, &dt, &ndim, shape, &e);
		need_message(ok, &e, name);
		e.msg[0] = 0;
		RtTensor *t = rt_weights_load(w, name, &e);
		need_message(t != NULL, &e, name);
		if (t && !ok)
			fail("a weight loads without info", name);
		if (t)
			check_tensor(t, dt, ndim, shape, name);
		rt_tensor_free(t);
		if (rt_weights_is_shape(w, name))
			fail("a safetensors weight is a shape", name);
	}
	rt_weights_close(w);
}

/* Every record of a tensor cache through rt_cache_*. */
static void
run_cache_direct(const char *dir)
{
	RtError e = {0};
	RtCache *c = rt_cache_open(dir, &e);
	need_message(c != NULL, &e, "rt_cache_open");
	if (!c)
		return;
	if (!rt_cache_metadata(c))
		fail("no metadata text", NULL);
	for (int i = 0; i < rt_cache_count(c); i++) {
		const char *name = rt_cache_name(c, i);
		if (!name || rt_cache_find(c, name) != i)
			fail("a listed record is not found", name);
		DType dt;
		int ndim;
		int64_t shape[RT_MAX_DIMS];
		rt_cache_info(c, i, &dt, &ndim, shape);
		e.msg[0] = 0;
		RtTensor *t = rt_cache_load(c, i, &e);
		need_message(t != NULL, &e, name);
		if (t)
			check_tensor(t, dt, ndim, shape, name);
		rt_tensor_free(t);
		int64_t vals[64];
		int n = (int)ARRAY_LEN(vals);
		e.msg[0] = 0;
		bool ok = rt_cache_load_shape(c, i, vals, &n, &e);
		need_message(ok, &e, name);
		if (ok && !rt_cache_is_shape(c, i))
			fail("a tensor record loads as a shape", name);
		n = 0;
		e.msg[0] = 0;
		ok = rt_cache_load_shape(c, i, vals, &n, &e);
		need_message(ok, &e, name);
	}
	e.msg[0] = 0;
	need_message(rt_cache_verify(c, &e), &e, "rt_cache_verify");
	e.msg[0] = 0;
	if (rt_cache_load(c, rt_cache_count(c), &e) || !e.msg[0])
		fail("a record past the end loads", NULL);
	rt_cache_close(c);
}

/* Every record of a tensor cache through rt_weights_*. */
static void
run_cache_weights(const char *dir)
{
	RtError e = {0};
	RtWeights *w = rt_weights_open(dir, &e);
	need_message(w != NULL, &e, "rt_weights_open");
	if (!w)
		return;
	for (int i = 0; i < rt_weights_count(w); i++) {
		const char *name = rt_weights_name(w, i);
		DType dt;
		int ndim;
		int64_t shape[RT_MAX_DIMS];
		e.msg[0] = 0;
		if (!name || !rt_weights_has(w, name) ||
		    !rt_weights_info(w, name, &dt, &ndim, shape, &e))
			fail("a listed record is not found", name);
		if (rt_weights_is_shape(w, name)) {
			int64_t vals[8];
			int n = (int)ARRAY_LEN(vals);
			e.msg[0] = 0;
			bool ok = rt_weights_load_shape(w, name, vals, &n, &e);
			need_message(ok, &e, name);
		}
		e.msg[0] = 0;
		RtTensor *t = rt_weights_load(w, name, &e);
		need_message(t != NULL, &e, name);
		if (t)
			check_tensor(t, dt, ndim, shape, name);
		rt_tensor_free(t);
	}
	rt_weights_close(w);
}

/* Overwrites the 16 characters after the k-th `"rlxHash": "` of the JSON
 * text with the xxh3 of shard k (the last shard when there are fewer). */
static void
patch_hashes(char *json, size_t len, const uint8_t **shard,
	     const size_t *slen, int nshards)
{
	static const char key[] = "\"rlxHash\"";
	char *p = json, *end = json + len;
	for (int k = 0; nshards > 0; k++) {
		char *q = memmem(p, (size_t)(end - p), key, sizeof key - 1);
		if (!q)
			return;
		p = q + sizeof key - 1;
		while (p < end && (*p == ' ' || *p == ':' || *p == '\n'))
			p++;
		if (p >= end || *p != '"')
			continue;
		p++;
		if (end - p < 16)
			return;
		int s = k < nshards ? k : nshards - 1;
		char hex[17];
		snprintf(hex, sizeof hex, "%016llx",
			 (unsigned long long)XXH3_64bits(shard[s], slen[s]));
		memcpy(p, hex, 16);
		p += 16;
	}
}

/* The property, over one input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	if (size < 1 || size > FUZZ_MAX_INPUT)
		return 0;
	if (!registered) {
		registered = true;
		atexit(remove_tmp);
	}
	clear_files();
	int mode = data[0];
	const uint8_t *part[MAX_PARTS];
	size_t len[MAX_PARTS];
	switch (mode & 3) {
	case 0:
		write_file(st_files[0], data + 1, size - 1);
		run_safetensors();
		break;
	case 1:
		write_file(npy_files[0], data + 1, size - 1);
		run_npy(data + 1, size - 1);
		break;
	case 2: {
		int n = split(data + 1, size - 1, part, len);
		for (int i = 0; i < n; i++)
			write_file(index_files[i], part[i], len[i]);
		run_index();
		break;
	}
	default: {
		int n = split(data + 1, size - 1, part, len);
		char *json = malloc(len[0] ? len[0] : 1);
		if (!json)
			fail("out of memory", NULL);
		memcpy(json, part[0], len[0]);
		if (mode & 8)
			patch_hashes(json, len[0], part + 1, len + 1, n - 1);
		write_file(mode & 4 ? "ndarray-cache.json" : cache_files[0],
			   json, len[0]);
		free(json);
		for (int i = 1; i < n; i++)
			write_file(cache_files[i], part[i], len[i]);
		run_cache_direct(tmp_path(NULL));
		run_cache_weights(tmp_path(NULL));
		break;
	}
	}
	return 0;
}

#ifdef RLX_FUZZ_REPLAY
/* Runs the property over one file. */
static void
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	StrBuf b = {0};
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_putn(&b, chunk, k);
	fclose(f);
	fprintf(stderr, "replay %s\n", path);
	LLVMFuzzerTestOneInput((const uint8_t *)(b.p ? b.p : ""), b.len);
	sb_free(&b);
}

/* Replays every regular file of a directory but README.md (not
 * recursive), sorted; the count. */
static int
replay_dir(const char *dir)
{
	char *pat = NULL;
	if (asprintf(&pat, "%s/*", dir) < 0)
		abort();
	glob_t g;
	int count = 0;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *base = strrchr(g.gl_pathv[i], '/');
			struct stat st;
			if (!strcmp(base ? base + 1 : g.gl_pathv[i],
				    "README.md"))
				continue;
			if (!stat(g.gl_pathv[i], &st) && S_ISREG(st.st_mode)) {
				replay_file(g.gl_pathv[i]);
				count++;
			}
		}
		globfree(&g);
	}
	free(pat);
	return count;
}

int
main(int argc, char **argv)
{
	int count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			count += replay_dir(argv[i]);
		} else {
			replay_file(argv[i]);
			count++;
		}
	}
	printf("%d passed, 0 failed\n", count);
	return count ? 0 : 1;
}
#endif
