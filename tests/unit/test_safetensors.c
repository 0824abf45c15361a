/*
 * test_safetensors.c — the safetensors reader and writer, weight sources
 * (single file, sharded index). Every input file is written by the test
 * into a fresh temporary directory.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_io.h"

typedef struct {
	char dir[64];
	char path[1024];
} Tmp;

/* rm -rf of the test directory (only files we made, no subdirs deeper
 * than one). */
static int
teardown(void **state)
{
	Tmp *t = *state;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

static int
setup(void **state)
{
	Tmp *t = calloc(1, sizeof *t);
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(t->dir, sizeof t->dir, "%s/rlxst.XXXXXX", base);
	if (!mkdtemp(t->dir))
		return -1;
	*state = t;
	return 0;
}

/* t->path = dir/name */
static const char *
at(Tmp *t, const char *name)
{
	snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
	return t->path;
}

static void
write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* A safetensors image: u64 hlen, header, data; the header is used as is
 * (hlen = strlen) unless hlen_override is not ~0. Returns malloc'ed bytes. */
static unsigned char *
image(const char *header, const void *data, size_t dlen, uint64_t hlen_over,
      size_t *len)
{
	size_t hl = strlen(header);
	uint64_t h64 = hlen_over != ~(uint64_t)0 ? hlen_over : hl;
	unsigned char *b = malloc(8 + hl + dlen + 1);
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(h64 >> (8 * i));
	memcpy(b + 8, header, hl);
	if (dlen)
		memcpy(b + 8 + hl, data, dlen);
	*len = 8 + hl + dlen;
	return b;
}

/* Writes a safetensors file made of header + data to dir/name. */
static const char *
write_st(Tmp *t, const char *name, const char *header, const void *data,
	 size_t dlen)
{
	size_t len;
	unsigned char *b = image(header, data, dlen, ~(uint64_t)0, &len);
	at(t, name);
	write_bytes(t->path, b, len);
	free(b);
	return t->path;
}

/* The unsigned and float8 dtypes of the format (issue 46): read with
 * their dtype and bytes, written back under the same names. */
static void
test_uint_and_float8(void **state)
{
	Tmp *t = *state;
	unsigned char data[32] = {0};
	uint16_t u16 = 65535;
	uint32_t u32 = 0xdeadbeefu;
	uint64_t u64 = 0xfedcba9876543210ull;
	memcpy(data, &u64, 8);
	memcpy(data + 8, &u32, 4);
	memcpy(data + 12, &u16, 2);
	data[14] = 0x7e; /* e4m3fn 448 */
	data[15] = 0x7c; /* e5m2 inf */
	const char *h =
		"{\"u64\":{\"dtype\":\"U64\",\"shape\":[1],\"data_offsets\":[0,8]},"
		"\"u32\":{\"dtype\":\"U32\",\"shape\":[1],\"data_offsets\":[8,12]},"
		"\"u16\":{\"dtype\":\"U16\",\"shape\":[1],\"data_offsets\":[12,14]},"
		"\"e4\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[14,15]},"
		"\"e5\":{\"dtype\":\"F8_E5M2\",\"shape\":[1],\"data_offsets\":[15,16]}}";
	RtError e = {0};
	RtSafetensors *st = rt_st_open(write_st(t, "u.safetensors", h, data, 16), &e);
	assert_non_null(st);
	static const struct {
		const char *name;
		DType dt;
	} want[] = {{"u64", DT_U64}, {"u32", DT_U32}, {"u16", DT_U16},
		    {"e4", DT_F8E4M3}, {"e5", DT_F8E5M2}};
	RtTensor *ts[5];
	const char *names[5];
	for (int i = 0; i < 5; i++) {
		ts[i] = rt_st_load(st, want[i].name, &e);
		assert_non_null(ts[i]);
		assert_int_equal(ts[i]->dtype, want[i].dt);
		names[i] = want[i].name;
	}
	assert_true(((uint64_t *)ts[0]->data)[0] == u64);
	assert_true(((uint32_t *)ts[1]->data)[0] == u32);
	assert_true(((uint16_t *)ts[2]->data)[0] == u16);
	assert_true(dtype_f8_decode(DT_F8E4M3, ((uint8_t *)ts[3]->data)[0]) == 448);
	assert_true(isinf(dtype_f8_decode(DT_F8E5M2, ((uint8_t *)ts[4]->data)[0])));
	assert_string_equal(rt_st_dtype_name(DT_F8E4M3), "F8_E4M3");
	char out[1100];
	snprintf(out, sizeof out, "%s", at(t, "w.safetensors"));
	assert_true(rt_st_write(out, names, (const RtTensor *const *)ts, 5, &e));
	RtSafetensors *w = rt_st_open(out, &e);
	assert_non_null(w);
	for (int i = 0; i < 5; i++) {
		RtTensor *x = rt_st_load(w, want[i].name, &e);
		assert_int_equal(x->dtype, want[i].dt);
		assert_memory_equal(x->data, ts[i]->data, ts[i]->nbytes);
		rt_tensor_free(x);
		rt_tensor_free(ts[i]);
	}
	rt_st_close(w);
	rt_st_close(st);
}

/* Every dtype, values checked; metadata kept; header order kept. */
static void
test_every_dtype(void **state)
{
	Tmp *t = *state;
	unsigned char data[256];
	size_t n = 0;
	/* f64 [2] */
	double f64[2] = {1.5, -2.25};
	memcpy(data + n, f64, 16);
	n += 16;
	int64_t i64[2] = {INT64_MIN, 42};
	memcpy(data + n, i64, 16);
	n += 16;
	float f32[3] = {0.5f, -1e30f, 3.0f};
	memcpy(data + n, f32, 12);
	n += 12;
	int32_t i32[1] = {-7};
	memcpy(data + n, i32, 4);
	n += 4;
	uint16_t f16[2] = {0x3c00, 0xc000}; /* 1, -2 */
	memcpy(data + n, f16, 4);
	n += 4;
	uint16_t bf16[2] = {0x3f80, 0x4040}; /* 1, 3 */
	memcpy(data + n, bf16, 4);
	n += 4;
	int16_t i16[2] = {-300, 300};
	memcpy(data + n, i16, 4);
	n += 4;
	int8_t i8[2] = {-128, 127};
	memcpy(data + n, i8, 2);
	n += 2;
	uint8_t u8[2] = {0, 255};
	memcpy(data + n, u8, 2);
	n += 2;
	uint8_t b[3] = {1, 0, 1};
	memcpy(data + n, b, 3);
	n += 3;
	assert_int_equal(n, 67);
	const char *h =
		"{\"__metadata__\":{\"format\":\"pt\",\"k\":\"v\"},"
		"\"f64\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]},"
		"\"i64\":{\"dtype\":\"I64\",\"shape\":[2,1],\"data_offsets\":[16,32]},"
		"\"f32\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[32,44]},"
		"\"i32\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[44,48]},"
		"\"f16\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[48,52]},"
		"\"bf16\":{\"dtype\":\"BF16\",\"shape\":[1,2],\"data_offsets\":[52,56]},"
		"\"i16\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[56,60]},"
		"\"i8\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[60,62]},"
		"\"u8\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[62,64]},"
		"\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[64,67]},"
		"\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[67,67]}}";
	/* pad the header with spaces to a multiple of 8: aligned data */
	char hp[2048];
	size_t hl = strlen(h);
	memcpy(hp, h, hl);
	while (hl % 8)
		hp[hl++] = ' ';
	hp[hl] = 0;
	RtError e = {0};
	RtSafetensors *st = rt_st_open(write_st(t, "all.safetensors", hp, data, n),
				       &e);
	assert_non_null(st);
	assert_int_equal(rt_st_count(st), 11);
	const char *order[] = {"f64", "i64", "f32", "i32", "f16", "bf16",
			       "i16", "i8",  "u8",  "b",   "empty"};
	for (int i = 0; i < 11; i++)
		assert_string_equal(rt_st_name(st, i), order[i]);
	assert_null(rt_st_name(st, 11));
	assert_int_equal(rt_st_meta_count(st), 2);
	assert_string_equal(rt_st_meta_get(st, "format"), "pt");
	assert_string_equal(rt_st_meta_key(st, 1), "k");
	assert_string_equal(rt_st_meta_value(st, 1), "v");
	assert_null(rt_st_meta_get(st, "nope"));

	DType dt;
	int nd;
	int64_t sh[RT_MAX_DIMS];
	assert_true(rt_st_find(st, "bf16", &dt, &nd, sh));
	assert_int_equal(dt, DT_BF16);
	assert_int_equal(nd, 2);
	assert_int_equal(sh[0], 1);
	assert_int_equal(sh[1], 2);
	assert_false(rt_st_find(st, "missing", &dt, &nd, sh));
	assert_false(rt_st_find(st, "__metadata__", NULL, NULL, NULL));

	RtTensor *x = rt_st_load(st, "f64", &e);
	assert_int_equal(x->own, RT_BORROWED); /* aligned: a view */
	assert_true(((double *)x->data)[1] == -2.25);
	rt_tensor_free(x);
	x = rt_st_load(st, "i64", &e);
	assert_true(((int64_t *)x->data)[0] == INT64_MIN);
	assert_int_equal(((int64_t *)x->data)[1], 42);
	rt_tensor_free(x);
	x = rt_st_load(st, "f32", &e);
	assert_true(((float *)x->data)[1] == -1e30f);
	assert_int_equal(rt_numel(x), 3);
	rt_tensor_free(x);
	x = rt_st_load(st, "i32", &e);
	assert_int_equal(x->ndim, 0);
	assert_int_equal(rt_numel(x), 1);
	assert_int_equal(((int32_t *)x->data)[0], -7);
	rt_tensor_free(x);
	x = rt_st_load(st, "f16", &e);
	assert_true(rt_f16_to_f32(((uint16_t *)x->data)[1]) == -2.0f);
	rt_tensor_free(x);
	x = rt_st_load(st, "bf16", &e);
	assert_true(rt_bf16_to_f32(((uint16_t *)x->data)[1]) == 3.0f);
	rt_tensor_free(x);
	x = rt_st_load(st, "i16", &e);
	assert_int_equal(((int16_t *)x->data)[0], -300);
	rt_tensor_free(x);
	x = rt_st_load(st, "i8", &e);
	assert_int_equal(((int8_t *)x->data)[0], -128);
	rt_tensor_free(x);
	x = rt_st_load(st, "u8", &e);
	assert_int_equal(((uint8_t *)x->data)[1], 255);
	rt_tensor_free(x);
	x = rt_st_load(st, "b", &e);
	assert_int_equal(x->dtype, DT_BOOL);
	assert_memory_equal(x->data, b, 3);
	rt_tensor_free(x);
	x = rt_st_load(st, "empty", &e);
	assert_non_null(x);
	assert_int_equal(x->nbytes, 0);
	assert_int_equal(x->shape[1], 4);
	rt_tensor_free(x);
	assert_null(rt_st_load(st, "missing", &e));
	assert_non_null(strstr(e.msg, "'missing'"));
	rt_st_close(st);
}

/* Offsets that are not multiples of the element size: read by copy. */
static void
test_unaligned(void **state)
{
	Tmp *t = *state;
	unsigned char data[64];
	data[0] = 9; /* u8 [1] first: everything after is off by one */
	float f[3] = {1.25f, -8.0f, 1e-3f};
	double d[2] = {3.5, -0.125};
	int64_t q[1] = {-123456789012345};
	uint16_t h[1] = {0x3555};
	memcpy(data + 1, f, 12);
	memcpy(data + 13, d, 16);
	memcpy(data + 29, q, 8);
	memcpy(data + 37, h, 2);
	const char *hd =
		"{\"u\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
		"\"f\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[1,13]},"
		"\"d\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[13,29]},"
		"\"q\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[29,37]},"
		"\"h\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[37,39]}}";
	/* pad to 8 so that only the offsets misalign the data */
	char hp[1024];
	size_t hl = strlen(hd);
	memcpy(hp, hd, hl);
	while (hl % 8)
		hp[hl++] = ' ';
	hp[hl] = 0;
	RtError e = {0};
	RtSafetensors *st =
		rt_st_open(write_st(t, "u.safetensors", hp, data, 39), &e);
	assert_non_null(st);
	RtTensor *x = rt_st_load(st, "f", &e);
	assert_non_null(x);
	assert_int_equal((uintptr_t)x->data % RT_ALIGN, 0);
	assert_memory_equal(x->data, f, 12);
	rt_tensor_free(x);
	x = rt_st_load(st, "d", &e);
	assert_int_equal((uintptr_t)x->data % 8, 0);
	assert_true(((double *)x->data)[0] == 3.5);
	assert_true(((double *)x->data)[1] == -0.125);
	rt_tensor_free(x);
	x = rt_st_load(st, "q", &e);
	assert_true(*(int64_t *)x->data == -123456789012345);
	rt_tensor_free(x);
	x = rt_st_load(st, "h", &e);
	assert_int_equal(*(uint16_t *)x->data, 0x3555);
	rt_tensor_free(x);
	x = rt_st_load(st, "u", &e);
	assert_int_equal(*(uint8_t *)x->data, 9);
	rt_tensor_free(x);
	rt_st_close(st);
}

/* Bool bytes other than 0/1 are read as true, never passed on raw. */
static void
test_bool_normalized(void **state)
{
	Tmp *t = *state;
	unsigned char data[3] = {0, 7, 1};
	RtError e = {0};
	RtSafetensors *st = rt_st_open(
		write_st(t, "b.safetensors",
			 "{\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],"
			 "\"data_offsets\":[0,3]}}",
			 data, 3),
		&e);
	assert_non_null(st);
	RtTensor *x = rt_st_load(st, "b", &e);
	assert_memory_equal(x->data, "\0\1\1", 3);
	rt_tensor_free(x);
	rt_st_close(st);
}

/* rt_st_read: the bytes rt_st_load gives, in memory of the reader's own
 * (a large tensor from the pool, aligned however the file lays it out),
 * bools normalized; a file cut short under it is an error naming it. */
static void
test_read_copies(void **state)
{
	Tmp *t = *state;
	enum { NF = 300000 }; /* 1.2 MB: past RT_POOL_MIN */
	size_t dlen = 1 + 4 * (size_t)NF + 3;
	unsigned char *data = malloc(dlen);
	assert_non_null(data);
	data[0] = 9; /* u8 [1] first: f starts off by one */
	for (int i = 0; i < NF; i++) {
		float v = (float)i * 0.5f - 7.0f;
		memcpy(data + 1 + 4 * (size_t)i, &v, 4);
	}
	memcpy(data + 1 + 4 * (size_t)NF, "\0\7\1", 3);
	char hd[512];
	snprintf(hd, sizeof hd,
		 "{\"u\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
		 "\"f\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[1,%zu]},"
		 "\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[%zu,%zu]}}",
		 NF, dlen - 3, dlen - 3, dlen);
	RtError e = {0};
	RtSafetensors *st =
		rt_st_open(write_st(t, "r.safetensors", hd, data, dlen), &e);
	assert_non_null(st);
	RtBufPool *pool = rt_bufpool_new();
	assert_non_null(pool);
	RtTensor *x = rt_st_read(st, "f", pool, &e);
	assert_non_null(x);
	assert_int_equal(x->own, RT_POOLED);
	assert_int_equal((uintptr_t)x->data % RT_ALIGN, 0);
	assert_int_equal(x->nbytes, 4 * (size_t)NF);
	assert_memory_equal(x->data, data + 1, 4 * (size_t)NF);
	RtTensor *y = rt_st_load(st, "f", &e);
	assert_memory_equal(x->data, y->data, x->nbytes);
	rt_tensor_free(y);
	rt_tensor_free(x);
	x = rt_st_read(st, "u", NULL, &e);
	assert_int_equal(x->own, RT_OWNED);
	assert_int_equal(*(uint8_t *)x->data, 9);
	rt_tensor_free(x);
	x = rt_st_read(st, "b", pool, &e);
	assert_memory_equal(x->data, "\0\1\1", 3);
	rt_tensor_free(x);
	assert_null(rt_st_read(st, "missing", pool, &e));
	assert_non_null(strstr(e.msg, "'missing'"));
	/* cut short after the open: the read comes up short */
	assert_int_equal(truncate(at(t, "r.safetensors"), 4096), 0);
	e.msg[0] = 0;
	assert_null(rt_st_read(st, "f", pool, &e));
	assert_non_null(strstr(e.msg, "r.safetensors: the file was truncated "
				      "while it was read"));
	rt_st_close(st);
	rt_bufpool_release(pool);
	free(data);
}

/* Writer: every dtype through write and read back; the header keeps the
 * given order, is 8-aligned, and every tensor comes back as a view. */
static void
test_write_roundtrip(void **state)
{
	Tmp *t = *state;
	RtError e = {0};
	DType dts[] = {DT_U8, DT_BOOL, DT_F16, DT_F64, DT_I8, DT_BF16,
		       DT_I16, DT_I32, DT_I64, DT_F32};
	enum { N = ARRAY_LEN(dts) + 2 };
	RtTensor *ts[N];
	const char *names[N];
	char nbuf[N][16];
	for (size_t i = 0; i < ARRAY_LEN(dts); i++) {
		int64_t sh[] = {3, (int64_t)i + 1};
		ts[i] = rt_tensor_new(dts[i], 2, sh, &e);
		unsigned char *p = ts[i]->data;
		for (size_t k = 0; k < ts[i]->nbytes; k++)
			p[k] = dts[i] == DT_BOOL ? (k & 1)
						 : (unsigned char)(k * 31 + i);
		snprintf(nbuf[i], sizeof nbuf[i], "t%zu.%s", i,
			 dtype_name(dts[i]));
		names[i] = nbuf[i];
	}
	int64_t zero[] = {0};
	ts[N - 2] = rt_tensor_new(DT_F32, 1, zero, &e);
	names[N - 2] = "zero";
	ts[N - 1] = rt_tensor_new(DT_F64, 0, NULL, &e);
	*(double *)ts[N - 1]->data = 6.5;
	names[N - 1] = "scalar";
	const char *meta[] = {"format", "pt", "note", "héllo \"q\""};
	char path[1024];
	snprintf(path, sizeof path, "%s", at(t, "w.safetensors"));
	assert_true(rt_st_write_meta(path, names,
				     (const RtTensor *const *)ts, N, meta, 2,
				     &e));
	assert_int_equal(access(at(t, "w.safetensors.tmp"), F_OK), -1);

	/* the raw header: length aligned, keys in the given order */
	FILE *f = fopen(path, "rb");
	uint64_t hl;
	assert_int_equal(fread(&hl, 1, 8, f), 8);
	assert_int_equal((8 + hl) % 8, 0);
	char *hdr = calloc(1, hl + 1);
	assert_int_equal(fread(hdr, 1, hl, f), hl);
	fclose(f);
	const char *prev = strstr(hdr, "__metadata__");
	assert_non_null(prev);
	for (int i = 0; i < N; i++) {
		char key[40];
		snprintf(key, sizeof key, "\"%s\"", names[i]);
		const char *p = strstr(hdr, key);
		assert_non_null(p);
		assert_true(p > prev);
		prev = p;
	}
	free(hdr);

	RtSafetensors *st = rt_st_open(path, &e);
	assert_non_null(st);
	assert_string_equal(rt_st_meta_get(st, "note"), "héllo \"q\"");
	assert_int_equal(rt_st_count(st), N);
	for (int i = 0; i < N; i++) {
		assert_string_equal(rt_st_name(st, i), names[i]);
		RtTensor *x = rt_st_load(st, names[i], &e);
		assert_non_null(x);
		assert_int_equal(x->own, RT_BORROWED);
		assert_int_equal(x->dtype, ts[i]->dtype);
		assert_int_equal(x->ndim, ts[i]->ndim);
		assert_memory_equal(x->shape, ts[i]->shape, sizeof x->shape);
		assert_int_equal(x->nbytes, ts[i]->nbytes);
		if (x->nbytes)
			assert_memory_equal(x->data, ts[i]->data, x->nbytes);
		rt_tensor_free(x);
	}
	rt_st_close(st);

	/* duplicate and reserved names are refused, nothing written */
	const char *dup[] = {"a", "a"};
	RtTensor *two[] = {ts[0], ts[1]};
	assert_false(rt_st_write(at(t, "d.safetensors"), dup,
				 (const RtTensor *const *)two, 2, &e));
	assert_non_null(strstr(e.msg, "twice"));
	assert_int_equal(access(at(t, "d.safetensors"), F_OK), -1);
	assert_int_equal(access(at(t, "d.safetensors.tmp"), F_OK), -1);
	const char *res[] = {"__metadata__"};
	assert_false(rt_st_write(at(t, "d.safetensors"), res,
				 (const RtTensor *const *)two, 1, &e));
	/* an unwritable place */
	assert_false(rt_st_write("/nonexistent/dir/x.safetensors", names,
				 (const RtTensor *const *)ts, 1, &e));
	assert_non_null(strstr(e.msg, "/nonexistent/dir/x.safetensors"));
	for (int i = 0; i < N; i++)
		rt_tensor_free(ts[i]);

	/* zero tensors: an 8-byte header "{}      " */
	assert_true(rt_st_write(at(t, "none.safetensors"), NULL, NULL, 0, &e));
	st = rt_st_open(t->path, &e);
	assert_non_null(st);
	assert_int_equal(rt_st_count(st), 0);
	rt_st_close(st);
}

/* One malformed file: the open fails with a message naming the file and
 * containing want. */
static void
expect_bad(Tmp *t, const unsigned char *b, size_t len, const char *want)
{
	at(t, "bad.safetensors");
	write_bytes(t->path, b, len);
	RtError e = {0};
	RtSafetensors *st = rt_st_open(t->path, &e);
	if (st || !strstr(e.msg, want) || !strstr(e.msg, t->path)) {
		print_error("want '%s', got %s: '%s'\n", want,
			    st ? "success" : "error", e.msg);
		rt_st_close(st);
		fail();
	}
}

/* Header + data, then expect_bad. */
static void
expect_bad_h(Tmp *t, const char *header, const void *data, size_t dlen,
	     const char *want)
{
	size_t len;
	unsigned char *b = image(header, data, dlen, ~(uint64_t)0, &len);
	expect_bad(t, b, len, want);
	free(b);
}

#define REC(name, dt, shape, b, e)                                       \
	"\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape              \
	",\"data_offsets\":[" #b "," #e "]}"

static void
test_malformed(void **state)
{
	Tmp *t = *state;
	unsigned char z[256] = {0};
	size_t len;
	unsigned char *b;

	expect_bad(t, (const unsigned char *)"\x04\0\0", 3, "too short");
	expect_bad(t, z, 0, "too short");
	/* header length past EOF, and huge */
	b = image("{}", NULL, 0, 1000, &len);
	expect_bad(t, b, len, "runs past the end of the file");
	free(b);
	b = image("{}", NULL, 0, (uint64_t)1 << 60, &len);
	expect_bad(t, b, len, "exceeds the limit");
	free(b);
	b = image("{}", NULL, 0, ~(uint64_t)0 - 3, &len);
	expect_bad(t, b, len, "exceeds the limit");
	free(b);
	/* a valid file truncated inside the data */
	b = image("{" REC("a", "F32", "[4]", 0, 16) "}", z, 16, ~(uint64_t)0,
		  &len);
	expect_bad(t, b, len - 3, "past the end of the data area");
	/* and truncated inside the header */
	expect_bad(t, b, 20, "runs past the end of the file");
	free(b);

	expect_bad_h(t, "", NULL, 0, "not a JSON object");
	expect_bad_h(t, "[1, 2]", NULL, 0, "not a JSON object");
	expect_bad_h(t, "{\"a\": ", NULL, 0, "bad JSON header");
	expect_bad_h(t, "{\"a\": 1} x", NULL, 0, "bad JSON header");
	expect_bad_h(t, "{\"a\": \"\\u0000\"}", NULL, 0, "bad JSON header");
	size_t hl;
	b = image("{\"__metadata__\":{}}  ", NULL, 0, ~(uint64_t)0, &hl);
	b[8 + 19] = 0; /* a NUL byte in the padding */
	expect_bad(t, b, hl, "bad JSON header");
	free(b);
	expect_bad_h(t, "{" REC("a", "F32", "[1]", 0, 4) ","
			REC("a", "F32", "[1]", 4, 8) "}",
		     z, 8, "duplicate");
	expect_bad_h(t, "{\"a\": 5}", NULL, 0, "not a JSON object");
	expect_bad_h(t, "{" REC("a", "F32", "[4]", 0, 400) "}", z, 16,
		     "past the end of the data area");
	expect_bad_h(t, "{" REC("a", "F32", "[2]", 8, 0) "}", z, 16,
		     "not an interval");
	expect_bad_h(t, "{" REC("a", "F32", "[1]", -4, 0) "}", z, 16,
		     "not an interval");
	expect_bad_h(t, "{" REC("a", "F32", "[2]", 0, 8) ","
			REC("b", "F32", "[2]", 4, 12) "}",
		     z, 12, "overlaps");
	expect_bad_h(t, "{" REC("a", "F32", "[3]", 0, 12) ","
			REC("b", "U8", "[4]", 0, 4) "}",
		     z, 12, "overlaps");
	expect_bad_h(t, "{" REC("a", "F32", "[1]", 0, 4) ","
			REC("b", "F32", "[1]", 8, 12) "}",
		     z, 12, "bytes [4, 8] of the data area belong to no tensor");
	expect_bad_h(t, "{" REC("a", "F32", "[1]", 0, 4) "}", z, 9,
		     "5 trailing bytes");
	expect_bad_h(t, "{" REC("a", "F32", "[1]", 4, 8) "}", z, 8,
		     "belong to no tensor");
	expect_bad_h(t, "{}", z, 1, "1 trailing bytes");
	expect_bad_h(t, "{" REC("a", "F32", "[0]", 0, 0) "}", z, 4,
		     "trailing");
	expect_bad_h(t, "{" REC("a", "F32", "[0]", 0, 4) "}", z, 4,
		     "do not match");
	expect_bad_h(t, "{" REC("a", "Q7", "[1]", 0, 4) "}", z, 4,
		     "tensor 'a': unknown dtype 'Q7'");
	expect_bad_h(t, "{" REC("a", "F8_E8M0", "[1]", 0, 1) "}", z, 1,
		     "tensor 'a': dtype F8_E8M0 is not supported");
	expect_bad_h(t, "{" REC("a", "C64", "[1]", 0, 8) "}", z, 8,
		     "dtype C64 is not supported");
	expect_bad_h(t, "{" REC("a", "F32", "[2,-1]", 0, 4) "}", z, 4,
		     "dimension 1 is negative");
	expect_bad_h(t, "{" REC("a", "F32", "[2.0]", 0, 8) "}", z, 8,
		     "not an integer");
	expect_bad_h(t, "{" REC("a", "F32", "[\"2\"]", 0, 8) "}", z, 8,
		     "not an integer");
	expect_bad_h(t, "{" REC("a", "F32", "2", 0, 8) "}", z, 8,
		     "shape is not a list");
	expect_bad_h(t, "{" REC("a", "F32", "[1,1,1,1,1,1,1,1,1]", 0, 4) "}",
		     z, 4, "9 dimensions");
	expect_bad_h(t,
		     "{" REC("a", "U8", "[1099511627776,1099511627776]", 0,
			     4) "}",
		     z, 4, "overflows");
	expect_bad_h(t, "{" REC("a", "F32", "[99999999999999999999]", 0, 4)
			"}",
		     z, 4, "bad JSON");
	expect_bad_h(t, "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", z,
		     4, "tensor 'a': no dtype");
	expect_bad_h(t, "{\"a\":{\"dtype\":3,\"shape\":[1],"
			"\"data_offsets\":[0,4]}}",
		     z, 4, "dtype is not a string");
	expect_bad_h(t, "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}",
		     z, 4, "no shape");
	expect_bad_h(t, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", z, 4,
		     "no data_offsets");
	expect_bad_h(t, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
			"\"data_offsets\":[0]}}",
		     z, 4, "data_offsets is not a list");
	expect_bad_h(t, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
			"\"data_offsets\":[0,4,8]}}",
		     z, 4, "data_offsets is not a list");
	expect_bad_h(t, "{\"__metadata__\":{\"a\":1}}", NULL, 0,
		     "__metadata__ value of 'a' is not a string");
	expect_bad_h(t, "{\"__metadata__\":[]}", NULL, 0,
		     "__metadata__ is not a JSON object");

	/* the message the issue asks for, word for word */
	at(t, "w.safetensors");
	size_t l2;
	b = image("{" REC("model.embed.weight", "F32", "[4, 8]", 0, 100) "}",
		  z, 100, ~(uint64_t)0, &l2);
	write_bytes(t->path, b, l2);
	free(b);
	RtError e = {0};
	assert_null(rt_st_open(t->path, &e));
	char want[1200];
	snprintf(want, sizeof want,
		 "%s: tensor 'model.embed.weight': data_offsets [0, 100] do "
		 "not match shape [4, 8] of F32 (128 bytes)",
		 t->path);
	assert_string_equal(e.msg, want);

	/* not a file */
	assert_null(rt_st_open(t->dir, &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_null(rt_st_open(at(t, "missing.safetensors"), &e));
	assert_non_null(strstr(e.msg, "cannot open"));
}

/* Tiny xorshift for the fuzz tests. */
static uint32_t
rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Every truncation and many random corruptions of a valid file: each is
 * refused or read, never a crash or an out-of-bounds read (ASan). */
static void
test_fuzz(void **state)
{
	Tmp *t = *state;
	unsigned char z[64];
	for (int i = 0; i < 64; i++)
		z[i] = (unsigned char)i;
	size_t len;
	unsigned char *good = image(
		"{\"__metadata__\":{\"a\":\"b\"}," REC("x", "F32", "[2,3]", 0, 24)
		"," REC("y", "U8", "[1]", 24, 25) "," REC("z", "BOOL", "[]", 25, 26)
		"," REC("w", "F16", "[3]", 26, 32) "}",
		z, 32, ~(uint64_t)0, &len);
	unsigned char *b = malloc(len);
	at(t, "f.safetensors");
	RtError e;
	for (size_t cut = 0; cut <= len; cut++) {
		write_bytes(t->path, good, cut);
		RtSafetensors *st = rt_st_open(t->path, &e);
		assert_true(st == NULL || cut == len);
		rt_st_close(st);
	}
	uint32_t seed = 12345;
	int opened = 0;
	for (int it = 0; it < 400; it++) {
		memcpy(b, good, len);
		int flips = 1 + (int)(rnd(&seed) % 3);
		for (int k = 0; k < flips; k++) {
			size_t pos = rnd(&seed) % (len - 32); /* header */
			const char alpha[] = "0123456789[]{},:\"-. eE";
			b[pos] = (unsigned char)(rnd(&seed) & 1
				? (uint32_t)alpha[rnd(&seed) % (sizeof alpha - 1)]
				: rnd(&seed) & 0xff);
		}
		write_bytes(t->path, b, len);
		RtSafetensors *st = rt_st_open(t->path, &e);
		if (st) {
			opened++;
			for (int i = 0; i < rt_st_count(st); i++) {
				RtTensor *x =
					rt_st_load(st, rt_st_name(st, i), &e);
				assert_non_null(x);
				volatile unsigned char sink = 0;
				for (size_t k = 0; k < x->nbytes; k++)
					sink ^= ((unsigned char *)x->data)[k];
				(void)sink;
				rt_tensor_free(x);
			}
			rt_st_close(st);
		} else {
			assert_non_null(strstr(e.msg, t->path));
		}
	}
	assert_true(opened < 400);
	free(b);
	free(good);
}

/* The corpus of tests/e2e/make_bad_files.py: every file refused, with the
 * expected words and the file's name in the message. */
static void
test_bad_corpus(void **state)
{
	Tmp *t = *state;
	const char *src = getenv("SRCDIR");
	if (!src)
		skip();
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 '%s/tests/e2e/make_bad_files.py' '%s'", src,
		 t->dir);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(at(t, "expected.tsv"), "r");
	assert_non_null(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = 0;
		char path[1024];
		snprintf(path, sizeof path, "%s", at(t, line));
		RtError e = {0};
		bool refused;
		size_t len = strlen(path);
		if (len > 4 && !strcmp(path + len - 4, ".npy")) {
			RtTensor *x = rt_npy_read(path, &e);
			refused = !x;
			rt_tensor_free(x);
		} else {
			RtWeights *w = rt_weights_open(path, &e);
			refused = !w;
			rt_weights_close(w);
		}
		if (!refused || !strstr(e.msg, tab + 1) ||
		    !strstr(e.msg, path)) {
			print_error("%s: want '%s', got '%s'\n", line, tab + 1,
				    refused ? e.msg : "success");
			fail();
		}
		n++;
	}
	fclose(f);
	assert_true(n >= 20);
}

/* A small valid file with the given tensors (all F32 [2], value = index). */
static void
write_shard(Tmp *t, const char *name, const char *const *tn, int n)
{
	RtError e = {0};
	RtTensor *ts[8];
	for (int i = 0; i < n; i++) {
		int64_t sh[] = {2};
		ts[i] = rt_tensor_new(DT_F32, 1, sh, &e);
		((float *)ts[i]->data)[0] = (float)i;
		((float *)ts[i]->data)[1] = (float)(10 * i + strlen(name));
	}
	assert_true(rt_st_write(at(t, name), tn, (const RtTensor *const *)ts,
				n, &e));
	for (int i = 0; i < n; i++)
		rt_tensor_free(ts[i]);
}

static void
write_text(Tmp *t, const char *name, const char *text)
{
	write_bytes(at(t, name), text, strlen(text));
}

static void
test_sharded(void **state)
{
	Tmp *t = *state;
	const char *a[] = {"l.0.w", "l.0.b"};
	const char *b[] = {"l.1.w", "extra"};
	write_shard(t, "model-00001-of-00002.safetensors", a, 2);
	char sub[300];
	snprintf(sub, sizeof sub, "%s/sub", t->dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_shard(t, "sub/model-00002-of-00002.safetensors", b, 2);
	write_text(t, "model.safetensors.index.json",
		   "{\"metadata\": {\"total_size\": 32},\n"
		   " \"weight_map\": {\n"
		   "  \"l.0.w\": \"model-00001-of-00002.safetensors\",\n"
		   "  \"l.1.w\": \"sub/model-00002-of-00002.safetensors\",\n"
		   "  \"l.0.b\": \"model-00001-of-00002.safetensors\",\n"
		   "  \"ghost\": \"model-00001-of-00002.safetensors\",\n"
		   "  \"lost\": \"./nowhere.safetensors\"}}\n");
	RtError e = {0};
	RtWeights *w = rt_weights_open(t->path, &e);
	assert_non_null(w);
	assert_int_equal(rt_weights_count(w), 5);
	assert_string_equal(rt_weights_name(w, 0), "l.0.w");
	assert_string_equal(rt_weights_name(w, 1), "l.1.w");
	assert_null(rt_weights_name(w, 5));
	assert_true(rt_weights_has(w, "ghost"));
	assert_false(rt_weights_has(w, "extra")); /* not in the map */

	DType dt;
	int nd;
	int64_t sh[RT_MAX_DIMS];
	assert_true(rt_weights_info(w, "l.1.w", &dt, &nd, sh, &e));
	assert_int_equal(dt, DT_F32);
	assert_int_equal(nd, 1);
	assert_int_equal(sh[0], 2);
	RtTensor *x = rt_weights_load(w, "l.1.w", &e);
	assert_non_null(x);
	assert_true(((float *)x->data)[0] == 0.0f);
	assert_true(((float *)x->data)[1] ==
		    (float)strlen("sub/model-00002-of-00002.safetensors"));
	rt_tensor_free(x);
	x = rt_weights_load(w, "l.0.b", &e);
	assert_true(((float *)x->data)[0] == 1.0f);
	rt_tensor_free(x);

	/* mapped to a shard that lacks it */
	assert_null(rt_weights_load(w, "ghost", &e));
	assert_non_null(strstr(e.msg, "tensor 'ghost' is mapped to shard "
				      "'model-00001-of-00002.safetensors', "
				      "which has no tensor"));
	assert_false(rt_weights_info(w, "ghost", NULL, NULL, NULL, &e));
	/* a missing shard: an error naming its file, at first use */
	assert_null(rt_weights_load(w, "lost", &e));
	assert_non_null(strstr(e.msg, "nowhere.safetensors: cannot open"));
	assert_null(rt_weights_load(w, "nothing", &e));
	assert_non_null(strstr(e.msg, "no tensor 'nothing'"));
	rt_weights_close(w);

	/* a single file through the same interface */
	w = rt_weights_open(at(t, "model-00001-of-00002.safetensors"), &e);
	assert_non_null(w);
	assert_int_equal(rt_weights_count(w), 2);
	assert_true(rt_weights_has(w, "l.0.b"));
	assert_false(rt_weights_has(w, "l.1.w"));
	assert_true(rt_weights_info(w, "l.0.w", &dt, &nd, sh, &e));
	x = rt_weights_load(w, "l.0.w", &e);
	assert_non_null(x);
	rt_tensor_free(x);
	assert_null(rt_weights_load(w, "l.1.w", &e));
	assert_non_null(strstr(e.msg, "no tensor 'l.1.w'"));
	rt_weights_close(w);
}

/* An index that is refused at open, with want in the message. */
static void
expect_bad_index(Tmp *t, const char *text, const char *want)
{
	write_text(t, "bad.safetensors.index.json", text);
	RtError e = {0};
	RtWeights *w = rt_weights_open(t->path, &e);
	if (w || !strstr(e.msg, want) || !strstr(e.msg, t->path)) {
		print_error("want '%s', got '%s'\n", want, e.msg);
		rt_weights_close(w);
		fail();
	}
}

static void
test_sharded_bad(void **state)
{
	Tmp *t = *state;
	expect_bad_index(t, "{\"weight_map\": {\"a\": \"../x.safetensors\"}}",
			 "shard file name '../x.safetensors' leaves");
	expect_bad_index(t,
			 "{\"weight_map\": {\"a\": \"s/../../x.safetensors\"}}",
			 "leaves");
	expect_bad_index(t, "{\"weight_map\": {\"a\": \"sub/..\"}}",
			 "leaves");
	expect_bad_index(t, "{\"weight_map\": {\"a\": \"/etc/passwd\"}}",
			 "leaves");
	expect_bad_index(t, "{\"weight_map\": {\"a\": \"\"}}", "leaves");
	expect_bad_index(t, "{\"weight_map\": {\"a\": 3}}",
			 "'a' is not a file name");
	expect_bad_index(t, "{\"weight_map\": {\"a\": \"x\", \"a\": \"y\"}}",
			 "duplicate");
	expect_bad_index(t, "{\"metadata\": {}}", "no \"weight_map\"");
	expect_bad_index(t, "[]", "no \"weight_map\"");
	expect_bad_index(t, "{\"weight_map\": {}, \"metadata\": 3}",
			 "\"metadata\" is not an object");
	expect_bad_index(t, "{\"weight_map\": ", "bad JSON");
	/* a name like "a..b" is fine */
	write_text(t, "ok.safetensors.index.json",
		   "{\"weight_map\": {\"a\": \"a..b.safetensors\"}}");
	RtError e = {0};
	RtWeights *w = rt_weights_open(t->path, &e);
	assert_non_null(w);
	rt_weights_close(w);
	/* a directory without tensor-cache.json is a checkpoint folder; this
	 * one has several indexes and no model.safetensors.index.json */
	assert_null(rt_weights_open(t->dir, &e));
	assert_non_null(strstr(e.msg, "not a tensor cache"));
	assert_non_null(strstr(e.msg, "name the one to read"));
	assert_null(rt_weights_open(at(t, "none.safetensors.index.json"), &e));
	assert_non_null(strstr(e.msg, "cannot open"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_dtype, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unaligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uint_and_float8, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bool_normalized, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_roundtrip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fuzz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_corpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sharded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sharded_bad, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
