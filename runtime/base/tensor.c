/*
 * tensor.c — host tensors: 64-byte aligned owned buffers or borrowed views,
 * sizes checked for overflow, large ones from a pool (bufpool.c), and IEEE
 * half / bfloat16 conversion.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the rlx runtime assumes a little-endian host"
#endif

/* Formats an error message into e (a NULL e is ignored). */
void
rt_error(RtError *e, const char *fmt, ...)
{
	if (!e)
		return;
	char raw[sizeof e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* names from files may hold control bytes: never raw to a terminal */
	text_escape(e->msg, sizeof e->msg, raw);
}

void
rt_error_report(Diags *d, const Module *m, const RtError *e)
{
	if (e->span.line <= 0) {
		diag_file(d, DIAG_ERROR, m->src.name, "%s", e->msg);
		return;
	}
	const Source *old = d->src;
	d->src = &m->src;
	diag_error(d, e->span, "%s", e->msg);
	d->src = old;
}

/*
 * nbytes of a tensor of dtype dt and the given shape. Beyond the byte count
 * itself, the product of the non-zero dimensions must fit in int64 and in
 * size_t bytes, so that strides computed by kernels never overflow even for
 * an empty tensor such as [0, 2^62].
 */
bool
rt_size(DType dt, int ndim, const int64_t *shape, size_t *nbytes)
{
	int bits = dtype_bits(dt);
	if (dt == DT_UNKNOWN || bits <= 0 || ndim < 0 || ndim > RT_MAX_DIMS)
		return false;
	int64_t n = 1;
	bool empty = false;
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return false;
		if (shape[i] == 0) {
			empty = true;
			continue;
		}
		if (__builtin_mul_overflow(n, shape[i], &n))
			return false;
	}
	size_t b;
	if (__builtin_mul_overflow((uint64_t)n, (uint64_t)(bits / 8), &b) ||
	    b > (size_t)INT64_MAX)
		return false;
	*nbytes = empty ? 0 : b;
	return true;
}

/* Fills the common fields of t after checking dt/ndim/shape; false + e. */
static bool
tensor_init(RtTensor *t, DType dt, int ndim, const int64_t *shape,
	    RtError *e)
{
	if (dt == DT_UNKNOWN || dtype_bits(dt) <= 0) {
		rt_error(e, "tensor of unknown dtype");
		return false;
	}
	if (ndim < 0 || ndim > RT_MAX_DIMS) {
		rt_error(e, "tensor of %d dimensions (at most %d supported)",
			 ndim, RT_MAX_DIMS);
		return false;
	}
	for (int i = 0; i < ndim; i++)
		if (shape[i] < 0) {
			rt_error(e, "negative dimension %lld",
				 (long long)shape[i]);
			return false;
		}
	if (!rt_size(dt, ndim, shape, &t->nbytes)) {
		rt_error(e, "tensor size overflows");
		return false;
	}
	t->dtype = dt;
	t->ndim = ndim;
	memset(t->shape, 0, sizeof t->shape);
	if (ndim)
		memcpy(t->shape, shape, sizeof *shape * (size_t)ndim);
	return true;
}

/* A new tensor struct, dims checked and set, without data; NULL + e. */
static RtTensor *
tensor_header(DType dt, int ndim, const int64_t *shape, RtError *e)
{
	RtTensor *t = calloc(1, sizeof *t);
	if (!t) {
		rt_error(e, "out of memory");
		return NULL;
	}
	if (!tensor_init(t, dt, ndim, shape, e)) {
		free(t);
		return NULL;
	}
	return t;
}

/* A new owned tensor; its data is RT_ALIGN-aligned and uninitialized. */
RtTensor *
rt_tensor_new(DType dt, int ndim, const int64_t *shape, RtError *e)
{
	RtTensor *t = tensor_header(dt, ndim, shape, e);
	if (!t)
		return NULL;
	/* aligned_alloc wants a multiple of the alignment; never 0. */
	size_t cap = t->nbytes ? t->nbytes : 1;
	if (cap > SIZE_MAX - (RT_ALIGN - 1)) {
		rt_error(e, "tensor size overflows");
		free(t);
		return NULL;
	}
	cap = (cap + RT_ALIGN - 1) & ~(size_t)(RT_ALIGN - 1);
	t->data = rt_buf_alloc(cap);
	t->own = cap >= RT_HUGE_MIN ? RT_MAPPED : RT_OWNED;
	t->cap = cap;
	if (!t->data) {
		rt_error(e, "out of memory allocating %zu bytes", t->nbytes);
		free(t);
		return NULL;
	}
	return t;
}

/* A tensor viewing data, which must outlive it. */
RtTensor *
rt_tensor_borrow(DType dt, int ndim, const int64_t *shape, void *data,
		 RtError *e)
{
	RtTensor *t = tensor_header(dt, ndim, shape, e);
	if (!t)
		return NULL;
	t->data = data;
	t->own = RT_BORROWED;
	return t;
}

/* Frees t and, when owned, its data. NULL is fine. */
void
rt_tensor_free(RtTensor *t)
{
	if (!t)
		return;
	if (t->own == RT_OWNED)
		free(t->data);
	else if (t->own == RT_POOLED)
		rt_bufpool_put(t->pool, t->data, t->cap);
	else if (t->own == RT_MAPPED)
		rt_buf_free(t->data, t->cap);
	free(t);
}

/* A new tensor whose data comes from p when p is given and the tensor is
 * large (RT_POOLED), else as rt_tensor_new. */
RtTensor *
rt_tensor_new_in(RtBufPool *p, DType dt, int ndim, const int64_t *shape,
		 RtError *e)
{
	size_t nb;
	if (!p || !rt_size(dt, ndim, shape, &nb) || nb < RT_POOL_MIN ||
	    nb > SIZE_MAX / 2)
		return rt_tensor_new(dt, ndim, shape, e);
	RtTensor *t = tensor_header(dt, ndim, shape, e);
	if (!t)
		return NULL;
	t->data = rt_bufpool_get(p, t->nbytes, &t->cap);
	if (!t->data) {
		rt_error(e, "out of memory allocating %zu bytes", t->nbytes);
		free(t);
		return NULL;
	}
	t->own = RT_POOLED;
	t->pool = p;
	return t;
}

/* Number of elements (1 for a scalar). */
int64_t
rt_numel(const RtTensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

bool
rt_int_at(const RtTensor *t, int64_t i, int64_t *out)
{
	const void *d = t->data;
	switch (t->dtype) {
	case DT_BOOL:
	case DT_U8: *out = ((const uint8_t *)d)[i]; return true;
	case DT_I8: *out = ((const int8_t *)d)[i]; return true;
	case DT_I16: *out = ((const int16_t *)d)[i]; return true;
	case DT_U16: *out = ((const uint16_t *)d)[i]; return true;
	case DT_I32: *out = ((const int32_t *)d)[i]; return true;
	case DT_U32: *out = ((const uint32_t *)d)[i]; return true;
	case DT_I64: *out = ((const int64_t *)d)[i]; return true;
	case DT_U64: {
		uint64_t u = ((const uint64_t *)d)[i];
		*out = (int64_t)u;
		return u <= INT64_MAX;
	}
	default: return false;
	}
}

/* -------------------------------------------------------- f16 and bf16 */

/* The bits of a float. */
static uint32_t
f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* The float of some bits. */
static float
bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* IEEE binary16 to binary32: exact, subnormals normalized, NaN payload
 * kept. */
float
rt_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f;
	uint32_t mant = h & 0x3ff;
	if (exp == 0x1f) /* Inf or NaN */
		return bits_f32(sign | 0x7f800000 | (mant << 13));
	if (exp == 0) {
		if (mant == 0)
			return bits_f32(sign);
		/* Subnormal: mant * 2^-24, normalized for binary32. */
		int e = -1;
		do {
			mant <<= 1;
			e++;
		} while (!(mant & 0x400));
		mant &= 0x3ff;
		return bits_f32(sign | ((uint32_t)(127 - 15 - e) << 23) |
				(mant << 13));
	}
	return bits_f32(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

/* binary32 to binary16, rounding to nearest even; overflow gives Inf, NaN
 * stays NaN (quiet). */
uint16_t
rt_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ax = x & 0x7fffffff;
	if (ax > 0x7f800000) /* NaN: quiet, top payload bits kept */
		return sign | 0x7e00 | (uint16_t)((ax >> 13) & 0x3ff);
	if (ax >= 0x477ff000) /* >= 65520 rounds to Inf */
		return sign | 0x7c00;
	if (ax >= 0x38800000) { /* normal half */
		uint32_t h = (((ax >> 23) - 127 + 15) << 10) |
			     ((ax >> 13) & 0x3ff);
		uint32_t rem = ax & 0x1fff;
		if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
			h++; /* a carry into the exponent is right */
		return sign | (uint16_t)h;
	}
	if (ax < 0x33000000) /* below half the smallest subnormal */
		return sign;
	/* Subnormal half: value / 2^-24, rounded. */
	uint32_t m = (ax & 0x7fffff) | 0x800000;
	int shift = 126 - (int)(ax >> 23); /* -(E + 1), 14..24 */
	uint32_t h = m >> shift;
	uint32_t rem = m & ((1u << shift) - 1);
	uint32_t half = 1u << (shift - 1);
	if (rem > half || (rem == half && (h & 1)))
		h++;
	return sign | (uint16_t)h;
}

/* bfloat16 to binary32: the top half of the bits. */
float
rt_bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

/* binary32 to bfloat16, rounding to nearest even; NaN stays NaN. */
uint16_t
rt_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

double
rt_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

float
rt_narrow_to_f32(DType dt, const void *data, int64_t i)
{
	switch (dt) {
	case DT_F16: return rt_f16_to_f32(((const uint16_t *)data)[i]);
	case DT_BF16: return rt_bf16_to_f32(((const uint16_t *)data)[i]);
	default: return (float)dtype_f8_decode(dt, ((const uint8_t *)data)[i]);
	}
}

void
rt_narrow_from_f32(DType dt, void *data, int64_t i, float f)
{
	switch (dt) {
	case DT_F16: ((uint16_t *)data)[i] = rt_f32_to_f16(f); break;
	case DT_BF16: ((uint16_t *)data)[i] = rt_f32_to_bf16(f); break;
	default: ((uint8_t *)data)[i] = dtype_f8_encode(dt, f); break;
	}
}

/* RssAnon from /proc/self/status, in bytes (see rt.h). */
uint64_t
rt_mem_anon(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kb = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}
