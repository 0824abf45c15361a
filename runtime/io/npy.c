/*
 * npy.c — NumPy .npy arrays: the magic "\x93NUMPY", a version, a header
 * length (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and a newline, then the C-order data.
 *
 * The dict is parsed by hand, strictly: the three keys exactly once, a
 * string, a bool and a tuple of non-negative integers. Little-endian C order
 * only; everything else is refused with a message naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_io.h"

enum { NPY_MAX_HEADER = 1024 * 1024, NPY_PREFIX = 12 };

static const char npy_magic[6] = "\x93NUMPY";

/* ORDER: the descr rlx writes for each DType (NULL: none). */
static const char *const npy_descr[DT_COUNT] = {
	[DT_BOOL] = "|b1", [DT_I8] = "|i1",  [DT_I16] = "<i2",
	[DT_I32] = "<i4",  [DT_I64] = "<i8", [DT_U8] = "|u1",
	[DT_F16] = "<f2",  [DT_F32] = "<f4", [DT_F64] = "<f8",
	[DT_U16] = "<u2",  [DT_U32] = "<u4", [DT_U64] = "<u8",
};

/* The parsed header. */
typedef struct {
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	size_t nbytes;
} NpyHead;

/* A cursor over the header dict text. */
typedef struct {
	const char *s, *p, *end;
	const char *name; /* the file, for messages */
	RtError *e;
} Lex;

/* Fails at the cursor with "expected WHAT". */
static bool
lex_fail(Lex *l, const char *what)
{
	rt_error(l->e, "%s: bad .npy header at offset %d: expected %s",
		 l->name, (int)(l->p - l->s), what);
	return false;
}

/* Skips blanks. */
static void
lex_ws(Lex *l)
{
	while (l->p < l->end &&
	       (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' ||
		*l->p == '\r'))
		l->p++;
}

/* Consumes c after blanks, if it is there. */
static bool
lex_eat(Lex *l, char c)
{
	lex_ws(l);
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return true;
	}
	return false;
}

/* A quoted string (single or double quotes, no escapes) into buf. */
static bool
lex_string(Lex *l, char *buf, size_t cap, const char *what)
{
	lex_ws(l);
	if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
		return lex_fail(l, what);
	char q = *l->p;
	const char *b = ++l->p;
	while (l->p < l->end && *l->p != q && *l->p != '\\') {
		/* the header is ASCII; this also keeps raw bytes out of
		 * the messages that quote the string */
		if ((unsigned char)*l->p < 0x20 || (unsigned char)*l->p > 0x7e)
			return lex_fail(l, "printable ASCII in a string");
		l->p++;
	}
	if (l->p >= l->end || *l->p != q)
		return lex_fail(l, "a closing quote (escapes are not "
				   "supported)");
	size_t n = (size_t)(l->p - b);
	l->p++;
	if (n >= cap) {
		l->p = b;
		return lex_fail(l, "a shorter string");
	}
	memcpy(buf, b, n);
	buf[n] = 0;
	return true;
}

/* A non-negative integer (a Python 2 'L' suffix allowed). */
static bool
lex_int(Lex *l, int64_t *out)
{
	lex_ws(l);
	if (l->p >= l->end || *l->p < '0' || *l->p > '9')
		return lex_fail(l, "a non-negative integer");
	int64_t v = 0;
	while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *l->p - '0', &v))
			return lex_fail(l, "an integer that fits in 64 bits");
		l->p++;
	}
	if (l->p < l->end && *l->p == 'L')
		l->p++;
	*out = v;
	return true;
}

/* The shape tuple: (), (n,), (n, m), (n, m,). */
static bool
lex_shape(Lex *l, NpyHead *h)
{
	if (!lex_eat(l, '('))
		return lex_fail(l, "a shape tuple");
	h->ndim = 0;
	if (lex_eat(l, ')'))
		return true;
	for (;;) {
		if (h->ndim == RT_MAX_DIMS) {
			rt_error(l->e, "%s: more than %d dimensions", l->name,
				 RT_MAX_DIMS);
			return false;
		}
		if (!lex_int(l, &h->shape[h->ndim++]))
			return false;
		bool comma = lex_eat(l, ',');
		if (lex_eat(l, ')')) {
			if (h->ndim == 1 && !comma)
				return lex_fail(l, "a tuple, '(n,)'");
			return true;
		}
		if (!comma)
			return lex_fail(l, "',' or ')' in the shape");
	}
}

/* A Python bool. */
static bool
lex_bool(Lex *l, bool *out)
{
	lex_ws(l);
	size_t left = (size_t)(l->end - l->p);
	if (left >= 4 && !memcmp(l->p, "True", 4)) {
		l->p += 4;
		*out = true;
		return true;
	}
	if (left >= 5 && !memcmp(l->p, "False", 5)) {
		l->p += 5;
		*out = false;
		return true;
	}
	return lex_fail(l, "True or False");
}

/* Maps a descr to a DType; false + e naming what is refused. */
static bool
parse_descr(const char *name, const char *d, DType *out, RtError *e)
{
	char order = '=';
	const char *code = d;
	if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
		order = *code++;
	for (int i = 0; i < DT_COUNT; i++) {
		if (!npy_descr[i] || strcmp(code, npy_descr[i] + 1))
			continue;
		bool one = dtype_bits((DType)i) == 8;
		if (order == '>' && !one) {
			rt_error(e, "%s: big-endian dtype '%s' is not "
				 "supported (only little-endian)", name, d);
			return false;
		}
		if (order == '|' && !one)
			break;
		*out = (DType)i;
		return true;
	}
	if (!strcmp(code, "V1")) {
		/* NumPy saves ml_dtypes' float8 arrays as one-byte voids:
		 * their bytes, for a float8 input (rt_value_from_npy) */
		*out = DT_U8;
		return true;
	}
	rt_error(e, "%s: unsupported dtype '%s'%s", name, d,
		 code[0] == 'V' ? " (bfloat16 and the other void dtypes but "
				  "'|V1' have no .npy form rlx reads)"
				: "");
	return false;
}

/* Parses the header dict of n bytes at s into h; false + e. */
static bool
parse_dict(const char *name, const char *s, size_t n, NpyHead *h,
	   RtError *e)
{
	Lex l = {s, s, s + n, name, e};
	bool seen_descr = false, seen_fo = false, seen_shape = false;
	char key[32], descr[64];
	if (!lex_eat(&l, '{'))
		return lex_fail(&l, "'{'");
	while (!lex_eat(&l, '}')) {
		if (!lex_string(&l, key, sizeof key, "a quoted key or '}'"))
			return false;
		if (!lex_eat(&l, ':'))
			return lex_fail(&l, "':'");
		if (!strcmp(key, "descr") && !seen_descr) {
			seen_descr = true;
			lex_ws(&l);
			if (l.p < l.end && *l.p == '[') {
				rt_error(e, "%s: structured dtypes are not "
					 "supported", name);
				return false;
			}
			if (!lex_string(&l, descr, sizeof descr,
					"a dtype string"))
				return false;
			if (!parse_descr(name, descr, &h->dtype, e))
				return false;
		} else if (!strcmp(key, "fortran_order") && !seen_fo) {
			seen_fo = true;
			bool fo;
			if (!lex_bool(&l, &fo))
				return false;
			if (fo) {
				rt_error(e, "%s: Fortran-order arrays are not "
					 "supported (only C order)", name);
				return false;
			}
		} else if (!strcmp(key, "shape") && !seen_shape) {
			seen_shape = true;
			if (!lex_shape(&l, h))
				return false;
		} else {
			rt_error(e, "%s: bad .npy header: %s key '%s'", name,
				 strcmp(key, "descr") &&
						 strcmp(key, "fortran_order") &&
						 strcmp(key, "shape")
					 ? "unknown"
					 : "repeated",
				 key);
			return false;
		}
		if (!lex_eat(&l, ',')) {
			if (lex_eat(&l, '}'))
				break;
			return lex_fail(&l, "',' or '}'");
		}
	}
	lex_ws(&l);
	if (l.p != l.end)
		return lex_fail(&l, "only blanks after the dict");
	if (!seen_descr || !seen_fo || !seen_shape) {
		rt_error(e, "%s: bad .npy header: no '%s'", name,
			 !seen_descr ? "descr"
			 : !seen_fo  ? "fortran_order"
				     : "shape");
		return false;
	}
	if (!rt_size(h->dtype, h->ndim, h->shape, &h->nbytes)) {
		rt_error(e, "%s: the array size overflows", name);
		return false;
	}
	return true;
}

/* Checks the magic and version in the first avail bytes of a file of
 * total bytes; sets the offset and length of the header dict. */
static bool
parse_prefix(const char *name, const unsigned char *p, size_t avail,
	     uint64_t total, size_t *hoff, size_t *hlen, RtError *e)
{
	if (avail < 6 || memcmp(p, npy_magic, 6)) {
		rt_error(e, "%s: not a .npy file (bad magic)", name);
		return false;
	}
	if (avail < 10) {
		rt_error(e, "%s: truncated .npy header", name);
		return false;
	}
	uint64_t n;
	if (p[6] == 1 && p[7] == 0) {
		n = (uint64_t)p[8] | (uint64_t)p[9] << 8;
		*hoff = 10;
	} else if ((p[6] == 2 || p[6] == 3) && p[7] == 0) {
		if (avail < 12) {
			rt_error(e, "%s: truncated .npy header", name);
			return false;
		}
		n = (uint64_t)p[8] | (uint64_t)p[9] << 8 |
		    (uint64_t)p[10] << 16 | (uint64_t)p[11] << 24;
		*hoff = 12;
	} else {
		rt_error(e, "%s: unsupported .npy format version %d.%d", name,
			 p[6], p[7]);
		return false;
	}
	if (n > NPY_MAX_HEADER) {
		rt_error(e, "%s: header length %llu exceeds the limit of %d "
			 "bytes", name, (unsigned long long)n, NPY_MAX_HEADER);
		return false;
	}
	if (*hoff + n > total) {
		rt_error(e, "%s: header length %llu runs past the end of the "
			 "file (%llu bytes)", name, (unsigned long long)n,
			 (unsigned long long)total);
		return false;
	}
	*hlen = (size_t)n;
	return true;
}

/* Checks that the file size total matches header and data. */
static bool
check_total(const char *name, size_t off, const NpyHead *h, uint64_t total,
	    RtError *e)
{
	uint64_t have = total - off;
	if (have < h->nbytes) {
		rt_error(e, "%s: truncated data: %zu bytes expected, %llu "
			 "present", name, h->nbytes, (unsigned long long)have);
		return false;
	}
	if (have > h->nbytes) {
		rt_error(e, "%s: %llu trailing bytes after the data", name,
			 (unsigned long long)(have - h->nbytes));
		return false;
	}
	return true;
}

/* Maps bool bytes to 0/1. */
static void
normalize_bool(RtTensor *t)
{
	if (t->dtype != DT_BOOL)
		return;
	unsigned char *q = t->data;
	for (size_t i = 0; i < t->nbytes; i++)
		q[i] = q[i] != 0;
}

/* Parses a .npy image of len bytes; NULL + e. */
RtTensor *
rt_npy_parse(const void *buf, size_t len, const char *name, RtError *e)
{
	const unsigned char *p = buf;
	size_t hoff, hlen;
	NpyHead h = {0};
	if (!parse_prefix(name, p, len, len, &hoff, &hlen, e) ||
	    !parse_dict(name, (const char *)p + hoff, hlen, &h, e) ||
	    !check_total(name, hoff + hlen, &h, len, e))
		return NULL;
	RtTensor *t = rt_tensor_new(h.dtype, h.ndim, h.shape, e);
	if (!t)
		return NULL;
	if (h.nbytes)
		memcpy(t->data, p + hoff + hlen, h.nbytes);
	normalize_bool(t);
	return t;
}

/* Reads exactly n bytes at off; false + e. */
static bool
read_at(int fd, void *buf, size_t n, uint64_t off, const char *name,
	RtError *e)
{
	int err = rt_read_at(fd, buf, n, off);
	if (err)
		rt_error(e, "%s: read failed: %s", name,
			 err > 0 ? strerror(err) : "unexpected end");
	return !err;
}

/* Reads a .npy file; NULL + e. */
RtTensor *
rt_npy_read(const char *path, RtError *e)
{
	uint64_t total;
	int fd = rt_open_input(path, &total, e);
	if (fd < 0)
		return NULL;
	RtTensor *t = NULL;
	char *hd = NULL;
	unsigned char pre[NPY_PREFIX];
	size_t avail = total < NPY_PREFIX ? (size_t)total : NPY_PREFIX;
	size_t hoff, hlen;
	NpyHead h = {0};
	if (!read_at(fd, pre, avail, 0, path, e) ||
	    !parse_prefix(path, pre, avail, total, &hoff, &hlen, e))
		goto done;
	if (!(hd = malloc(hlen + 1))) {
		rt_error(e, "out of memory");
		goto done;
	}
	if (!read_at(fd, hd, hlen, hoff, path, e) ||
	    !parse_dict(path, hd, hlen, &h, e) ||
	    !check_total(path, hoff + hlen, &h, total, e))
		goto done;
	t = rt_tensor_new(h.dtype, h.ndim, h.shape, e);
	if (t && !read_at(fd, t->data, h.nbytes, hoff + hlen, path, e)) {
		rt_tensor_free(t);
		t = NULL;
	}
	if (t)
		normalize_bool(t);
done:
	free(hd);
	close(fd);
	return t;
}

/* Writes t as a format 1.0 .npy file, via path.tmp and rename. */
bool
rt_npy_write(const char *path, const RtTensor *t, RtError *e)
{
	if ((unsigned)t->dtype >= DT_COUNT || !npy_descr[t->dtype]) {
		rt_error(e, "%s: %s has no .npy dtype", path,
			 dtype_name(t->dtype));
		return false;
	}
	char hdr[512];
	int k = snprintf(hdr, sizeof hdr,
			 "{'descr': '%s', 'fortran_order': False, 'shape': (",
			 npy_descr[t->dtype]);
	for (int i = 0; i < t->ndim; i++)
		k += snprintf(hdr + k, sizeof hdr - (size_t)k, "%s%lld",
			      i ? ", " : "", (long long)t->shape[i]);
	k += snprintf(hdr + k, sizeof hdr - (size_t)k, "%s), }",
		      t->ndim == 1 ? "," : "");
	/* Pad with spaces and a newline to a multiple of 64 in all. */
	size_t total = 10 + (size_t)k + 1;
	size_t pad = (64 - total % 64) % 64;
	memset(hdr + k, ' ', pad);
	hdr[(size_t)k + pad] = '\n';
	size_t hlen = (size_t)k + pad + 1;
	unsigned char pre[10];
	memcpy(pre, npy_magic, 6);
	pre[6] = 1;
	pre[7] = 0;
	pre[8] = (unsigned char)(hlen & 0xff);
	pre[9] = (unsigned char)(hlen >> 8);

	RtFile out;
	if (!rt_file_begin(&out, path, e))
		return false;
	bool ok = rt_file_write(&out, pre, 10, e) &&
		  rt_file_write(&out, hdr, hlen, e) &&
		  rt_file_write(&out, t->data, t->nbytes, e);
	return rt_file_end(&out, ok, e);
}
