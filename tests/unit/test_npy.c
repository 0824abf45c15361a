/*
 * test_npy.c — the .npy reader and writer, with NumPy as the oracle: files
 * written by rlx are loaded and compared by numpy (and byte-compared with
 * np.save's), files written by numpy (v1.0 and v2.0) are read by rlx.
 * Everything is generated at test time in a mkdtemp directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_io.h"

typedef struct {
	char dir[64];
	char path[1024];
} Tmp;

static int
setup(void **state)
{
	Tmp *t = calloc(1, sizeof *t);
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(t->dir, sizeof t->dir, "%s/rlxnpy.XXXXXX", base);
	if (!mkdtemp(t->dir))
		return -1;
	*state = t;
	return 0;
}

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

/* Runs a Python script (text) with numpy; its exit status. */
static int
python(Tmp *t, const char *text)
{
	char script[300], cmd[700];
	snprintf(script, sizeof script, "%s/check.py", t->dir);
	write_bytes(script, text, strlen(text));
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s' '%s'", script,
		 t->dir);
	return system(cmd);
}

/* The dtypes .npy holds, their numpy names. */
static const struct {
	DType dt;
	const char *np;
} dtypes[] = {
	{DT_BOOL, "bool"},   {DT_I8, "int8"},       {DT_I16, "int16"},
	{DT_I32, "int32"},   {DT_I64, "int64"},     {DT_U8, "uint8"},
	{DT_F16, "float16"}, {DT_F32, "float32"}, {DT_F64, "float64"},
	{DT_U16, "uint16"},  {DT_U32, "uint32"},   {DT_U64, "uint64"},
};

/* The shapes tried for every dtype. */
static const struct {
	int ndim;
	int64_t shape[3];
	const char *py;
} shapes[] = {
	{0, {0}, "()"},
	{1, {7}, "(7,)"},
	{2, {3, 5}, "(3, 5)"},
	{3, {2, 0, 4}, "(2, 0, 4)"},
	{3, {1, 2, 3}, "(1, 2, 3)"},
};

/* Value i of the test pattern, in a dtype; numpy computes the same:
 * bool: i % 3 == 0; ints: i * 37 - 50 (wrapping); floats: (i - 3) / 4. */
static void
fill(RtTensor *t)
{
	int64_t n = rt_numel(t);
	for (int64_t i = 0; i < n; i++) {
		int64_t v = i * 37 - 50;
		double f = (double)(i - 3) / 4;
		switch (t->dtype) {
		case DT_BOOL: ((uint8_t *)t->data)[i] = i % 3 == 0; break;
		case DT_I8: ((int8_t *)t->data)[i] = (int8_t)v; break;
		case DT_I16: ((int16_t *)t->data)[i] = (int16_t)v; break;
		case DT_I32: ((int32_t *)t->data)[i] = (int32_t)v; break;
		case DT_I64: ((int64_t *)t->data)[i] = v; break;
		case DT_U8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
		case DT_U16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
		case DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
		case DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
		case DT_F16:
			((uint16_t *)t->data)[i] = rt_f32_to_f16((float)f);
			break;
		case DT_F32: ((float *)t->data)[i] = (float)f; break;
		case DT_F64: ((double *)t->data)[i] = f; break;
		default: fail();
		}
	}
}

static const char py_pattern[] =
	"import sys, numpy as np\n"
	"d = sys.argv[1]\n"
	"def pattern(dt, shape):\n"
	"    i = np.arange(int(np.prod(shape)), dtype=np.int64)\n"
	"    if dt == 'bool':\n"
	"        a = i % 3 == 0\n"
	"    elif dt.startswith('float'):\n"
	"        a = ((i - 3) / 4).astype(dt)\n"
	"    else:\n"
	"        a = (i * 37 - 50).astype(dt)\n"
	"    return a.reshape(shape)\n";

/* Every dtype and shape: rlx writes, rlx reads back, numpy loads and
 * compares, and the bytes equal np.save's. */
static void
test_roundtrip_numpy(void **state)
{
	Tmp *t = *state;
	RtError e = {0};
	char script[32768];
	size_t k = (size_t)snprintf(script, sizeof script, "%s", py_pattern);
	k += (size_t)snprintf(script + k, sizeof script - k,
			      "import io\nbad = 0\n");
	for (size_t i = 0; i < ARRAY_LEN(dtypes); i++)
		for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
			char name[64];
			snprintf(name, sizeof name, "c_%s_%zu.npy",
				 dtypes[i].np, s);
			RtTensor *x = rt_tensor_new(dtypes[i].dt,
						    shapes[s].ndim,
						    shapes[s].shape, &e);
			assert_non_null(x);
			fill(x);
			char path[1024];
			snprintf(path, sizeof path, "%s", at(t, name));
			assert_true(rt_npy_write(path, x, &e));
			RtTensor *y = rt_npy_read(path, &e);
			assert_non_null(y);
			assert_int_equal(y->dtype, x->dtype);
			assert_int_equal(y->ndim, x->ndim);
			assert_memory_equal(y->shape, x->shape,
					    sizeof x->shape);
			assert_int_equal(y->nbytes, x->nbytes);
			if (x->nbytes)
				assert_memory_equal(y->data, x->data,
						    x->nbytes);
			rt_tensor_free(x);
			rt_tensor_free(y);
			k += (size_t)snprintf(
				script + k, sizeof script - k,
				"a = np.load(d + '/%s')\n"
				"b = pattern('%s', %s)\n"
				"buf = io.BytesIO(); np.save(buf, b)\n"
				"if a.dtype != b.dtype or a.shape != b.shape "
				"or not np.array_equal(a, b) or "
				"open(d + '/%s', 'rb').read() != buf.getvalue():\n"
				"    print('mismatch: %s', a, b); bad = 1\n",
				name, dtypes[i].np, shapes[s].py, name, name);
		}
	k += (size_t)snprintf(script + k, sizeof script - k,
			      "sys.exit(bad)\n");
	assert_true(k < sizeof script);
	assert_int_equal(python(t, script), 0);
}

/* numpy writes every dtype and shape, in format 1.0 and 2.0; rlx reads. */
static void
test_read_numpy(void **state)
{
	Tmp *t = *state;
	char script[4096];
	snprintf(script, sizeof script,
		 "%s"
		 "from numpy.lib import format as F\n"
		 "for dt in ['bool', 'int8', 'int16', 'int32', 'int64', "
		 "'uint8', 'float16', 'float32', 'float64', 'uint16', 'uint32', "
		 "'uint64']:\n"
		 "    for s, shape in enumerate([(), (7,), (3, 5), (2, 0, 4), "
		 "(1, 2, 3)]):\n"
		 "        a = pattern(dt, shape)\n"
		 "        np.save(d + '/np1_%%s_%%d.npy' %% (dt, s), a)\n"
		 "        with open(d + '/np2_%%s_%%d.npy' %% (dt, s), 'wb') "
		 "as f:\n"
		 "            F.write_array(f, a, version=(2, 0))\n"
		 "np.save(d + '/be.npy', np.arange(4, dtype='>f4'))\n"
		 "np.save(d + '/be1.npy', np.arange(4, dtype='>i1'))\n"
		 "np.save(d + '/fo.npy', np.asfortranarray("
		 "np.arange(6, dtype='f4').reshape(2, 3)))\n"
		 "np.save(d + '/i16be.npy', np.arange(4, dtype='>i2'))\n"
		 "np.save(d + '/c64.npy', np.arange(4, dtype='c8'))\n"
		 "np.save(d + '/rec.npy', np.zeros(2, dtype=[('a', 'i4'), "
		 "('b', 'f4')]))\n"
		 "np.save(d + '/v2.npy', np.zeros(3, dtype='V2'))\n",
		 py_pattern);
	assert_int_equal(python(t, script), 0);
	RtError e = {0};
	for (size_t i = 0; i < ARRAY_LEN(dtypes); i++)
		for (size_t s = 0; s < ARRAY_LEN(shapes); s++)
			for (int v = 1; v <= 2; v++) {
				char name[64];
				snprintf(name, sizeof name, "np%d_%s_%zu.npy", v,
					 dtypes[i].np, s);
				RtTensor *x = rt_npy_read(at(t, name), &e);
				if (!x)
					print_error("%s\n", e.msg);
				assert_non_null(x);
				RtTensor *want = rt_tensor_new(
					dtypes[i].dt, shapes[s].ndim,
					shapes[s].shape, &e);
				fill(want);
				assert_int_equal(x->dtype, want->dtype);
				assert_int_equal(x->ndim, want->ndim);
				assert_memory_equal(x->shape, want->shape,
						    sizeof x->shape);
				assert_int_equal(x->nbytes, want->nbytes);
				if (x->nbytes)
					assert_memory_equal(x->data, want->data,
							    x->nbytes);
				rt_tensor_free(x);
				rt_tensor_free(want);
			}
	/* a one-byte type is the same in either byte order */
	RtTensor *x = rt_npy_read(at(t, "be1.npy"), &e);
	assert_non_null(x);
	assert_int_equal(x->dtype, DT_I8);
	rt_tensor_free(x);

	static const struct {
		const char *file, *want;
	} bad[] = {
		{"be.npy", "big-endian dtype '>f4' is not supported"},
		{"fo.npy", "Fortran-order arrays are not supported"},
		{"i16be.npy", "big-endian dtype '>i2' is not supported"},
		{"c64.npy", "unsupported dtype '<c8'"},
		{"rec.npy", "structured dtypes are not supported"},
		{"v2.npy", "unsupported dtype '|V2'"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s", at(t, bad[i].file));
		e.msg[0] = 0;
		assert_null(rt_npy_read(path, &e));
		if (!strstr(e.msg, bad[i].want) || !strstr(e.msg, path)) {
			print_error("want '%s', got '%s'\n", bad[i].want,
				    e.msg);
			fail();
		}
	}
}

/* A .npy image: version, header text (padded as given), data. */
static unsigned char *
npy_image(int major, const char *hdr, const void *data, size_t dlen,
	  size_t *len)
{
	size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
	unsigned char *b = malloc(pre + hl + dlen + 1);
	memcpy(b, "\x93NUMPY", 6);
	b[6] = (unsigned char)major;
	b[7] = 0;
	for (size_t i = 0; i < pre - 8; i++)
		b[8 + i] = (unsigned char)(hl >> (8 * i));
	memcpy(b + pre, hdr, hl);
	if (dlen)
		memcpy(b + pre + hl, data, dlen);
	*len = pre + hl + dlen;
	return b;
}

/* Parsing hdr (+ dlen data bytes) fails with want in the message, from
 * memory and from a file. */
static void
expect_bad(Tmp *t, int major, const char *hdr, size_t dlen, const char *want)
{
	static const unsigned char z[64];
	size_t len;
	unsigned char *b = npy_image(major, hdr, z, dlen, &len);
	RtError e = {0};
	RtTensor *x = rt_npy_parse(b, len, "mem.npy", &e);
	bool ok = !x && strstr(e.msg, want) && strstr(e.msg, "mem.npy");
	rt_tensor_free(x);
	at(t, "bad.npy");
	write_bytes(t->path, b, len);
	RtError e2 = {0};
	x = rt_npy_read(t->path, &e2);
	ok = ok && !x && strstr(e2.msg, want) && strstr(e2.msg, t->path);
	rt_tensor_free(x);
	free(b);
	if (!ok) {
		print_error("header %s: want '%s', got '%s' / '%s'\n", hdr,
			    want, e.msg, e2.msg);
		fail();
	}
}

#define H(d, f, s) "{'descr': '" d "', 'fortran_order': " f ", 'shape': " s ", }"

static void
test_bad_headers(void **state)
{
	Tmp *t = *state;
	expect_bad(t, 1, H("<f4", "False", "(2,)"), 7, "truncated data");
	expect_bad(t, 1, H("<f4", "False", "(2,)"), 9, "1 trailing bytes");
	expect_bad(t, 1, H("<f4", "False", "(3)"), 12, "expected a tuple");
	expect_bad(t, 1, H("<f4", "False", "(-3,)"), 12,
		   "a non-negative integer");
	expect_bad(t, 1, H("<f4", "False", "[3]"), 12, "a shape tuple");
	expect_bad(t, 1, H("<f4", "False", "(3, 'a')"), 12, "integer");
	expect_bad(t, 1, H("<f4", "False", "(99999999999999999999,)"), 0,
		   "fits in 64 bits");
	expect_bad(t, 1, H("<f4", "False", "(4294967296, 4294967296)"), 0,
		   "overflows");
	expect_bad(t, 1, H("<f4", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), 4,
		   "more than 8 dimensions");
	expect_bad(t, 1, H("<f4", "True", "(2,)"), 8, "Fortran-order");
	expect_bad(t, 1, H("<f4", "1", "(2,)"), 8, "True or False");
	expect_bad(t, 1, H(">f8", "False", "(1,)"), 8, "big-endian");
	expect_bad(t, 1, H("<u3", "False", "(1,)"), 4, "unsupported dtype");
	expect_bad(t, 1, H("|f4", "False", "(1,)"), 4, "unsupported dtype");
	expect_bad(t, 1, H("<f4 ", "False", "(1,)"), 4, "unsupported dtype");
	expect_bad(t, 1, H("", "False", "(1,)"), 4, "unsupported dtype");
	/* raw bytes in a string are refused, not quoted back in the message */
	expect_bad(t, 1, H("<f\xff\x01", "False", "(1,)"), 4,
		   "printable ASCII in a string");
	expect_bad(t, 1, H("<f\t4", "False", "(1,)"), 4,
		   "printable ASCII in a string");
	expect_bad(t, 1, "{'descr': '<f4', 'shape': (1,), }", 4,
		   "no 'fortran_order'");
	expect_bad(t, 1, "{'fortran_order': False, 'shape': (1,)}", 4,
		   "no 'descr'");
	expect_bad(t, 1, "{'descr': '<f4', 'fortran_order': False}", 4,
		   "no 'shape'");
	expect_bad(t, 1,
		   "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
		   "'extra': 1}",
		   4, "unknown key 'extra'");
	expect_bad(t, 1,
		   "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
		   "'shape': (1,)}",
		   4, "repeated key 'descr'");
	expect_bad(t, 1, "{'descr': '<f4' 'fortran_order': False}", 4,
		   "',' or '}'");
	expect_bad(t, 1, "{'descr' '<f4'}", 4, "':'");
	expect_bad(t, 1, "{'descr': '<f4", 4, "closing quote");
	expect_bad(t, 1, "{'descr': '<f\\4'}", 4, "closing quote");
	expect_bad(t, 1, "['descr']", 4, "'{'");
	expect_bad(t, 1, "", 4, "'{'");
	expect_bad(t, 1, H("<f4", "False", "(1,)") " x", 4, "only blanks");
	expect_bad(t, 1, "{'descr': [('a', '<i4')], 'fortran_order': False, "
			 "'shape': (1,)}", 4, "structured");
	expect_bad(t, 2, H("<f4", "False", "(2,)"), 4, "truncated data");
	expect_bad(t, 4, H("<f4", "False", "(1,)"), 4,
		   "unsupported .npy format version 4.0");

	/* the dict variations numpy accepts and rlx does too */
	static const char *const good[] = {
		"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}",
		"{'shape': (1,), 'fortran_order': False, 'descr': '<f4'}\n",
		"{'descr':'f4','fortran_order':False,'shape':(1L,),}   \n",
		"{'descr': '=f4', 'fortran_order': False, 'shape': ( 1 , ) }",
	};
	for (size_t i = 0; i < ARRAY_LEN(good); i++) {
		float one = 1.0f;
		size_t len;
		unsigned char *b = npy_image(1, good[i], &one, 4, &len);
		RtError e = {0};
		RtTensor *x = rt_npy_parse(b, len, "ok.npy", &e);
		if (!x)
			print_error("%s: %s\n", good[i], e.msg);
		assert_non_null(x);
		assert_int_equal(x->dtype, DT_F32);
		assert_true(*(float *)x->data == 1.0f);
		rt_tensor_free(x);
		free(b);
	}
}

/* Magic, version and header length. */
static void
test_bad_prefix(void **state)
{
	Tmp *t = *state;
	RtError e = {0};
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} bad[] = {
		{"", 0, "bad magic"},
		{"\x93NUM", 4, "bad magic"},
		{"\x93NUMPX\x01\x00\x00\x00", 10, "bad magic"},
		{"PK\x03\x04", 4, "bad magic"},
		{"\x93NUMPY\x01", 7, "truncated .npy header"},
		{"\x93NUMPY\x02\x00\x10\x00", 10, "truncated .npy header"},
		{"\x93NUMPY\x01\x00\x10\x00{}", 12, "runs past the end"},
		{"\x93NUMPY\x02\x00\xff\xff\x00\x00{", 13, "runs past the end"},
		{"\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13, "exceeds the limit"},
		{"\x93NUMPY\x01\x01\x00\x00", 10, "version 1.1"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		const char *p = at(t, "p.npy");
		write_bytes(p, bad[i].bytes, bad[i].len);
		e.msg[0] = 0;
		assert_null(rt_npy_read(p, &e));
		if (!strstr(e.msg, bad[i].want) || !strstr(e.msg, p)) {
			print_error("%zu: want '%s', got '%s'\n", i,
				    bad[i].want, e.msg);
			fail();
		}
		assert_null(rt_npy_parse(bad[i].bytes, bad[i].len, "m", &e));
		assert_non_null(strstr(e.msg, bad[i].want));
	}
	assert_null(rt_npy_read(at(t, "missing.npy"), &e));
	assert_non_null(strstr(e.msg, "cannot open"));
	assert_null(rt_npy_read(t->dir, &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
}

/* Every prefix of valid images: refused (or, whole, read), never a crash. */
static void
test_truncations(void **state)
{
	(void)state;
	RtError e;
	float d[6] = {1, 2, 3, 4, 5, 6};
	for (int v = 1; v <= 2; v++) {
		size_t len;
		unsigned char *b = npy_image(v, H("<f4", "False", "(2, 3)") "\n",
					     d, sizeof d, &len);
		for (size_t cut = 0; cut <= len; cut++) {
			/* an exact-size copy, so ASan sees any overread */
			unsigned char *c = malloc(cut ? cut : 1);
			memcpy(c, b, cut);
			RtTensor *x = rt_npy_parse(c, cut, "t.npy", &e);
			assert_true(!x == (cut != len));
			rt_tensor_free(x);
			free(c);
		}
		free(b);
	}
}

/* Bool bytes other than 0/1 read as true; bf16 cannot be written. */
static void
test_bool_and_bf16(void **state)
{
	Tmp *t = *state;
	size_t len;
	unsigned char *b = npy_image(1, H("|b1", "False", "(3,)"), "\0\5\1", 3,
				     &len);
	RtError e = {0};
	RtTensor *x = rt_npy_parse(b, len, "b.npy", &e);
	assert_non_null(x);
	assert_memory_equal(x->data, "\0\1\1", 3);
	rt_tensor_free(x);
	free(b);

	/* '|V1', as NumPy saves an ml_dtypes float8 array: its bytes, for a
	 * float8 input to take as bit patterns; other voids are refused */
	b = npy_image(1, H("|V1", "False", "(2,)"), "\x7e\xff", 2, &len);
	x = rt_npy_parse(b, len, "f8.npy", &e);
	assert_non_null(x);
	assert_int_equal(x->dtype, DT_U8);
	assert_memory_equal(x->data, "\x7e\xff", 2);
	rt_tensor_free(x);
	free(b);
	b = npy_image(1, H("<V2", "False", "(2,)"), "\0\0\0\0", 4, &len);
	assert_null(rt_npy_parse(b, len, "bf.npy", &e));
	assert_non_null(strstr(e.msg, "unsupported dtype '<V2'"));
	free(b);

	int64_t sh[] = {2};
	x = rt_tensor_new(DT_BF16, 1, sh, &e);
	assert_false(rt_npy_write(at(t, "bf.npy"), x, &e));
	assert_non_null(strstr(e.msg, "bfloat16 has no .npy dtype"));
	assert_int_equal(access(t->path, F_OK), -1);
	rt_tensor_free(x);
	x = rt_tensor_new(DT_F32, 1, sh, &e);
	assert_false(rt_npy_write("/nonexistent/dir/y.npy", x, &e));
	assert_non_null(strstr(e.msg, "/nonexistent/dir/y.npy"));
	rt_tensor_free(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_numpy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_numpy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_headers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_prefix, setup,
						teardown),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test_setup_teardown(test_bool_and_bf16, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
