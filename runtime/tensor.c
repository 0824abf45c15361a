/*
 * tensor.c — host tensors: 64-byte aligned owned buffers or borrowed views,
 * sizes checked for overflow, pools of large buffers in huge pages, and
 * IEEE half / bfloat16 conversion.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	t->data = aligned_alloc(RT_ALIGN, cap);
	if (!t->data) {
		rt_error(e, "out of memory allocating %zu bytes", t->nbytes);
		free(t);
		return NULL;
	}
	t->own = RT_OWNED;
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

static void pool_put(RtPool *p, void *data, size_t cap);

/* Frees t and, when owned, its data. NULL is fine. */
void
rt_tensor_free(RtTensor *t)
{
	if (!t)
		return;
	if (t->own == RT_OWNED)
		free(t->data);
	else if (t->own == RT_POOLED)
		pool_put(t->pool, t->data, t->cap);
	free(t);
}

/* ----------------------------------------------------------------- pools */

enum { HUGE_PAGE = 2 << 20 };

/* A free buffer of a pool. */
typedef struct {
	void *data;
	size_t cap;
} PoolBuf;

struct RtPool {
	pthread_mutex_t mu;
	int refs;          /* the creator's + one per buffer handed out */
	PoolBuf *free_;    /* kept buffers, oldest first */
	int nfree, cfree;
	size_t kept;       /* bytes in free_ */
	size_t used, peak; /* bytes handed out now, and at most */
};

/* A new pool with one reference (the creator's); NULL when out of
 * memory. */
RtPool *
rt_pool_new(void)
{
	RtPool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->mu, NULL)) {
		free(p);
		return NULL;
	}
	p->refs = 1;
	return p;
}

/* Unmaps the kept buffers and frees p (no reference left). */
static void
pool_destroy(RtPool *p)
{
	for (int i = 0; i < p->nfree; i++)
		munmap(p->free_[i].data, p->free_[i].cap);
	free(p->free_);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* Drops one reference to p (under no lock); the last one destroys it. */
static void
pool_unref(RtPool *p)
{
	pthread_mutex_lock(&p->mu);
	bool last = --p->refs == 0;
	pthread_mutex_unlock(&p->mu);
	if (last)
		pool_destroy(p);
}

/* Drops the creator's reference: the kept buffers go now, the pool when
 * its last buffer comes back. */
void
rt_pool_release(RtPool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < p->nfree; i++)
		munmap(p->free_[i].data, p->free_[i].cap);
	p->nfree = 0;
	p->kept = 0;
	pthread_mutex_unlock(&p->mu);
	pool_unref(p);
}

/* cap fresh bytes (a multiple of HUGE_PAGE) at a HUGE_PAGE boundary,
 * advised to use huge pages; NULL when the mapping fails. */
static void *
map_huge(size_t cap)
{
	size_t len = cap + HUGE_PAGE;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	char *d = (char *)a;
	if (d > m)
		munmap(m, (size_t)(d - m));
	if (d + cap < m + len)
		munmap(d + cap, (size_t)(m + len - (d + cap)));
	madvise(d, cap, MADV_HUGEPAGE);
	return d;
}

/* A buffer of at least need bytes: the smallest kept one that fits
 * without wasting more than a quarter of it, else a fresh mapping (kept
 * buffers that fit nothing are unmapped first while the pool keeps more
 * than it may). *cap is the buffer's size. */
static void *
pool_get(RtPool *p, size_t need, size_t *cap)
{
	size_t want = (need + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	pthread_mutex_lock(&p->mu);
	int best = -1;
	for (int i = 0; i < p->nfree; i++) {
		size_t c = p->free_[i].cap;
		if (c >= want && c - want <= c / 4 &&
		    (best < 0 || c < p->free_[best].cap))
			best = i;
	}
	void *d = NULL;
	if (best >= 0) {
		d = p->free_[best].data;
		*cap = p->free_[best].cap;
		p->kept -= *cap;
		memmove(&p->free_[best], &p->free_[best + 1],
			sizeof *p->free_ * (size_t)(p->nfree - best - 1));
		p->nfree--;
	} else {
		/* what is kept and does not fit makes room, oldest first */
		size_t limit = p->peak > RT_POOL_KEEP_MIN ? p->peak
							  : RT_POOL_KEEP_MIN;
		while (p->nfree && p->kept + p->used + want > limit) {
			munmap(p->free_[0].data, p->free_[0].cap);
			p->kept -= p->free_[0].cap;
			memmove(&p->free_[0], &p->free_[1],
				sizeof *p->free_ * (size_t)(p->nfree - 1));
			p->nfree--;
		}
	}
	if (d) {
		p->used += *cap;
		p->refs++;
	}
	pthread_mutex_unlock(&p->mu);
	if (d)
		return d;
	d = map_huge(want);
	if (!d)
		return NULL;
	*cap = want;
	pthread_mutex_lock(&p->mu);
	p->used += want;
	if (p->used > p->peak)
		p->peak = p->used;
	p->refs++;
	pthread_mutex_unlock(&p->mu);
	return d;
}

/* Gives a buffer back: kept while what the pool has mapped stays within
 * its peak use (and the creator still holds it), else unmapped. */
static void
pool_put(RtPool *p, void *data, size_t cap)
{
	pthread_mutex_lock(&p->mu);
	p->used -= cap;
	size_t limit = p->peak > RT_POOL_KEEP_MIN ? p->peak : RT_POOL_KEEP_MIN;
	bool keep = p->refs > 1 && p->kept + p->used + cap <= limit;
	if (keep && p->nfree == p->cfree) {
		int nc = p->cfree ? 2 * p->cfree : 8;
		PoolBuf *f = realloc(p->free_, sizeof *f * (size_t)nc);
		if (f) {
			p->free_ = f;
			p->cfree = nc;
		} else {
			keep = false;
		}
	}
	if (keep) {
		p->free_[p->nfree++] = (PoolBuf){data, cap};
		p->kept += cap;
	}
	pthread_mutex_unlock(&p->mu);
	if (!keep)
		munmap(data, cap);
	pool_unref(p);
}

/* A new tensor whose data comes from p when p is given and the tensor is
 * large (RT_POOLED), else as rt_tensor_new. */
RtTensor *
rt_tensor_new_in(RtPool *p, DType dt, int ndim, const int64_t *shape,
		 RtError *e)
{
	size_t nb;
	if (!p || !rt_size(dt, ndim, shape, &nb) || nb < RT_POOL_MIN ||
	    nb > SIZE_MAX / 2)
		return rt_tensor_new(dt, ndim, shape, e);
	RtTensor *t = tensor_header(dt, ndim, shape, e);
	if (!t)
		return NULL;
	t->data = pool_get(p, t->nbytes, &t->cap);
	if (!t->data) {
		rt_error(e, "out of memory allocating %zu bytes", t->nbytes);
		free(t);
		return NULL;
	}
	t->own = RT_POOLED;
	t->pool = p;
	return t;
}

/* The pool's byte counts, read under its lock. */
void
rt_pool_stats(RtPool *p, size_t *used, size_t *kept, size_t *peak)
{
	pthread_mutex_lock(&p->mu);
	if (used)
		*used = p->used;
	if (kept)
		*kept = p->kept;
	if (peak)
		*peak = p->peak;
	pthread_mutex_unlock(&p->mu);
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
