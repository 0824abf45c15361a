/* test_tensor.c — tensor allocation, sizes, buffer pools, f16/bf16
 * conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "rt.h"

static uint32_t
fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float
bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static void
test_new(void **state)
{
	(void)state;
	RtError e = {0};
	int64_t sh[] = {2, 3};
	RtTensor *t = rt_tensor_new(DT_F32, 2, sh, &e);
	assert_non_null(t);
	assert_int_equal(t->nbytes, 24);
	assert_int_equal(rt_numel(t), 6);
	assert_int_equal((uintptr_t)t->data % RT_ALIGN, 0);
	assert_int_equal(t->own, RT_OWNED);
	memset(t->data, 0xab, t->nbytes); /* ASan: the bytes are ours */
	rt_tensor_free(t);

	t = rt_tensor_new(DT_F64, 0, NULL, &e); /* scalar */
	assert_non_null(t);
	assert_int_equal(t->nbytes, 8);
	assert_int_equal(rt_numel(t), 1);
	rt_tensor_free(t);

	int64_t empty[] = {0, 5};
	t = rt_tensor_new(DT_I16, 2, empty, &e);
	assert_non_null(t);
	assert_int_equal(t->nbytes, 0);
	assert_int_equal(rt_numel(t), 0);
	assert_non_null(t->data);
	rt_tensor_free(t);

	int64_t b[] = {3};
	t = rt_tensor_new(DT_BOOL, 1, b, &e);
	assert_int_equal(t->nbytes, 3);
	rt_tensor_free(t);
	rt_tensor_free(NULL);
}

static void
test_new_refused(void **state)
{
	(void)state;
	RtError e = {0};
	int64_t big[] = {INT64_MAX, 2};
	assert_null(rt_tensor_new(DT_F32, 2, big, &e));
	assert_non_null(strstr(e.msg, "overflow"));
	int64_t big2[] = {(int64_t)1 << 62, 4};
	assert_null(rt_tensor_new(DT_I8, 2, big2, &e));
	/* bytes overflow even though elements fit */
	int64_t big3[] = {(int64_t)1 << 61};
	assert_null(rt_tensor_new(DT_F64, 1, big3, &e));
	/* empty but with absurd other dimensions */
	int64_t big4[] = {0, INT64_MAX, 2};
	assert_null(rt_tensor_new(DT_U8, 3, big4, &e));
	int64_t neg[] = {2, -1};
	e.msg[0] = 0;
	assert_null(rt_tensor_new(DT_F32, 2, neg, &e));
	assert_non_null(strstr(e.msg, "negative"));
	int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
	assert_null(rt_tensor_new(DT_F32, 9, nine, &e));
	assert_null(rt_tensor_new(DT_UNKNOWN, 1, nine, &e));
	assert_null(rt_tensor_new(DT_F32, -1, nine, &e));
	assert_null(rt_tensor_borrow(DT_F32, 2, neg, nine, &e));
	rt_tensor_new(DT_F32, 2, neg, NULL); /* NULL error is fine */
}

static void
test_size(void **state)
{
	(void)state;
	size_t n = 99;
	int64_t sh[] = {4, 8};
	assert_true(rt_size(DT_F32, 2, sh, &n));
	assert_int_equal(n, 128);
	assert_true(rt_size(DT_BF16, 2, sh, &n));
	assert_int_equal(n, 64);
	assert_true(rt_size(DT_BOOL, 0, sh, &n));
	assert_int_equal(n, 1);
	int64_t z[] = {4, 0, 8};
	assert_true(rt_size(DT_F64, 3, z, &n));
	assert_int_equal(n, 0);
	int64_t ov[] = {(int64_t)1 << 32, (int64_t)1 << 32};
	assert_false(rt_size(DT_U8, 2, ov, &n));
}

static void
test_borrow(void **state)
{
	(void)state;
	RtError e = {0};
	int32_t buf[6] = {1, 2, 3, 4, 5, 6};
	int64_t sh[] = {3, 2};
	RtTensor *t = rt_tensor_borrow(DT_I32, 2, sh, buf, &e);
	assert_non_null(t);
	assert_ptr_equal(t->data, buf);
	assert_int_equal(t->own, RT_BORROWED);
	assert_int_equal(t->nbytes, 24);
	assert_int_equal(t->shape[1], 2);
	rt_tensor_free(t); /* must not free the stack buffer */
	assert_int_equal(buf[5], 6);
}

/* Every half value: to f32 and back, against the compiler's _Float16. */
static void
test_f16_exhaustive(void **state)
{
	(void)state;
	for (uint32_t h = 0; h < 0x10000; h++) {
		_Float16 x;
		uint16_t hb = (uint16_t)h;
		memcpy(&x, &hb, 2);
		float ref = (float)x;
		float got = rt_f16_to_f32(hb);
		if (isnan(ref)) {
			assert_true(isnan(got));
			assert_true(isnan(rt_f16_to_f32(rt_f32_to_f16(got))));
			continue;
		}
		assert_int_equal(fbits(got), fbits(ref));
		assert_int_equal(rt_f32_to_f16(got), hb);
	}
}

/* f32 -> f16 against _Float16: a sweep of bit patterns and every rounding
 * boundary (midpoints between neighbouring halves, and next to them). */
static void
test_f16_rounding(void **state)
{
	(void)state;
	for (uint64_t u = 0; u < 0x100000000ull; u += 4093) {
		float f = bitsf((uint32_t)u);
		if (isnan(f)) {
			uint16_t h = rt_f32_to_f16(f);
			assert_true((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
			continue;
		}
		_Float16 r = (_Float16)f;
		uint16_t rb;
		memcpy(&rb, &r, 2);
		assert_int_equal(rt_f32_to_f16(f), rb);
	}
	for (uint32_t h = 0; h < 0x7c00; h++) {
		double lo = rt_f16_to_f32((uint16_t)h);
		double hi = h + 1 < 0x7c00 ? rt_f16_to_f32((uint16_t)(h + 1))
					   : 65536.0;
		float mid = (float)((lo + hi) / 2); /* exact in f32 */
		for (int d = -2; d <= 2; d++) {
			float f = bitsf(fbits(mid) + (uint32_t)d);
			for (int s = 0; s < 2; s++, f = -f) {
				_Float16 r = (_Float16)f;
				uint16_t rb;
				memcpy(&rb, &r, 2);
				assert_int_equal(rt_f32_to_f16(f), rb);
			}
		}
	}
	assert_int_equal(rt_f32_to_f16(65504.0f), 0x7bff);
	assert_int_equal(rt_f32_to_f16(65519.99f), 0x7bff);
	assert_int_equal(rt_f32_to_f16(65520.0f), 0x7c00);
	assert_int_equal(rt_f32_to_f16(-INFINITY), 0xfc00);
	assert_int_equal(rt_f32_to_f16(ldexpf(1, -25)), 0);      /* tie: even */
	assert_int_equal(rt_f32_to_f16(ldexpf(1.5f, -24)), 2);   /* tie: even */
	assert_int_equal(rt_f32_to_f16(ldexpf(1.01f, -25)), 1);
	assert_int_equal(rt_f32_to_f16(-0.0f), 0x8000);
	assert_int_equal(rt_f32_to_f16(1.0f), 0x3c00);
	assert_int_equal(rt_f32_to_f16(ldexpf(1, -14)), 0x0400); /* min normal */
}

/* Reference bf16 rounding: the nearer of the two neighbours, ties to even,
 * computed in double. */
static uint16_t
bf16_ref(float f)
{
	uint32_t u = fbits(f);
	uint16_t sign = (uint16_t)(u >> 16) & 0x8000;
	uint16_t lo = (uint16_t)((u & 0x7fffffff) >> 16);
	uint16_t hi = lo + 1;
	double a = fabs((double)f);
	double vlo = rt_bf16_to_f32(lo);
	double vhi = hi == 0x7f80 ? ldexp(1, 128) : rt_bf16_to_f32(hi);
	if (lo == 0x7f80) /* infinity */
		return sign | lo;
	if (a - vlo < vhi - a || (a - vlo == vhi - a && !(lo & 1)))
		return sign | lo;
	return sign | hi;
}

static void
test_bf16(void **state)
{
	(void)state;
	for (uint64_t u = 0; u < 0x100000000ull; u += 997) {
		float f = bitsf((uint32_t)u);
		uint16_t b = rt_f32_to_bf16(f);
		if (isnan(f)) {
			assert_true(isnan(rt_bf16_to_f32(b)));
			continue;
		}
		assert_int_equal(b, bf16_ref(f));
	}
	/* ties and their neighbours */
	for (uint32_t hi = 0; hi < 0x7f80; hi += 7) {
		uint32_t mid = hi << 16 | 0x8000;
		for (int d = -1; d <= 1; d++) {
			float f = bitsf(mid + (uint32_t)d);
			assert_int_equal(rt_f32_to_bf16(f), bf16_ref(f));
		}
	}
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = rt_bf16_to_f32((uint16_t)h);
		assert_int_equal(fbits(f), h << 16);
		if (!isnan(f))
			assert_int_equal(rt_f32_to_bf16(f), h);
	}
	assert_int_equal(rt_f32_to_bf16(1.0f), 0x3f80);
	assert_int_equal(rt_f32_to_bf16(bitsf(0x3f808000)), 0x3f80); /* even */
	assert_int_equal(rt_f32_to_bf16(bitsf(0x3f818000)), 0x3f82); /* even */
	assert_int_equal(rt_f32_to_bf16(bitsf(0x7f7fffff)), 0x7f80); /* Inf */
	assert_int_equal(rt_f32_to_bf16(bitsf(0x7f800001)) & 0x7fc0, 0x7fc0);
	assert_int_equal(rt_f32_to_bf16(bitsf(0x00000001)), 0); /* subnormal */
}

static void
test_error(void **state)
{
	(void)state;
	RtError e;
	rt_error(&e, "%s: tensor '%s'", "w.safetensors", "x");
	assert_string_equal(e.msg, "w.safetensors: tensor 'x'");
	char longs[3000];
	memset(longs, 'a', sizeof longs - 1);
	longs[sizeof longs - 1] = 0;
	rt_error(&e, "%s", longs); /* truncated, not overflowing */
	assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
	rt_error(NULL, "ignored");
}

/* ----------------------------------------------------------------- pools */

/* Tensors of RT_HUGE_MIN bytes or more are mapped at a 2 MiB boundary
 * (RT_MAPPED), every byte of them writable up to a size that is no
 * multiple of a page; smaller ones are allocated. */
static void
test_new_huge(void **state)
{
	(void)state;
	RtError e = {0};
	const int64_t sizes[] = {RT_HUGE_MIN - RT_ALIGN, RT_HUGE_MIN,
				 RT_HUGE_MIN + 1, 3 * RT_HUGE_MIN + 4097};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		RtTensor *t = rt_tensor_new(DT_U8, 1, &sizes[i], &e);
		assert_non_null(t);
		assert_int_equal(t->nbytes, (size_t)sizes[i]);
		if (sizes[i] < RT_HUGE_MIN) {
			assert_int_equal(t->own, RT_OWNED);
		} else {
			assert_int_equal(t->own, RT_MAPPED);
			assert_true(t->cap >= t->nbytes);
			assert_int_equal((uintptr_t)t->data % RT_HUGE_MIN, 0);
		}
		unsigned char *q = t->data;
		memset(q, 0x5a, t->nbytes);
		assert_int_equal(q[0], 0x5a);
		assert_int_equal(q[t->nbytes - 1], 0x5a);
		rt_tensor_free(t);
	}
	/* the mapping on its own: fresh memory reads zero, any length */
	unsigned char *m = rt_map_huge(RT_HUGE_MIN + 10);
	assert_non_null(m);
	assert_int_equal((uintptr_t)m % RT_HUGE_MIN, 0);
	assert_int_equal(m[RT_HUGE_MIN + 9], 0);
	m[RT_HUGE_MIN + 9] = 1;
	munmap(m, RT_HUGE_MIN + 10);
	assert_null(rt_map_huge(0));
	/* rt_buf_alloc: 64-byte aligned below RT_HUGE_MIN, mapped at 2 MiB
	 * from it on (the size rounded up to 64 decides), every byte ours */
	const size_t bs[] = {0, 1, RT_HUGE_MIN - 64, RT_HUGE_MIN - 63,
			     RT_HUGE_MIN, 5 * RT_HUGE_MIN + 3};
	for (size_t i = 0; i < sizeof bs / sizeof *bs; i++) {
		unsigned char *b = rt_buf_alloc(bs[i]);
		assert_non_null(b);
		bool huge = (bs[i] + 63) / 64 * 64 >= RT_HUGE_MIN;
		assert_int_equal((uintptr_t)b % (huge ? RT_HUGE_MIN : 64), 0);
		memset(b, 7, bs[i]);
		rt_buf_free(b, bs[i]);
	}
	rt_buf_free(NULL, RT_HUGE_MIN);
	rt_buf_free(NULL, 1);
}

enum { MIB = 1 << 20 };

/* A 1-d uint8 tensor of n bytes from p. */
static RtTensor *
bytes_in(RtBufPool *p, size_t n)
{
	RtError e = {0};
	RtTensor *t = rt_tensor_new_in(p, DT_U8, 1, (int64_t[]){(int64_t)n}, &e);
	if (!t)
		fail_msg("rt_tensor_new_in(%zu): %s", n, e.msg);
	return t;
}

/* Small tensors and a NULL pool bypass the pool: plain owned memory. */
static void
test_pool_small(void **state)
{
	(void)state;
	RtBufPool *p = rt_bufpool_new();
	assert_non_null(p);
	RtTensor *t = bytes_in(p, RT_POOL_MIN - 1);
	assert_int_equal(t->own, RT_OWNED);
	assert_null(t->pool);
	memset(t->data, 1, t->nbytes);
	rt_tensor_free(t);
	t = bytes_in(NULL, 8 * MIB);
	assert_int_equal(t->own, RT_MAPPED);
	rt_tensor_free(t);
	size_t used = 1, kept = 1, peak = 1;
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 0);
	assert_int_equal(kept, 0);
	assert_int_equal(peak, 0);
	/* the smallest pooled size, and an empty and a scalar tensor */
	t = bytes_in(p, RT_POOL_MIN);
	assert_int_equal(t->own, RT_POOLED);
	assert_ptr_equal(t->pool, p);
	assert_true(t->cap >= t->nbytes);
	assert_int_equal((uintptr_t)t->data % RT_ALIGN, 0);
	rt_tensor_free(t);
	t = bytes_in(p, 0);
	assert_int_equal(t->own, RT_OWNED);
	rt_tensor_free(t);
	RtError e;
	t = rt_tensor_new_in(p, DT_F32, 0, NULL, &e);
	assert_int_equal(t->own, RT_OWNED);
	rt_tensor_free(t);
	/* an overflowing size is refused as by rt_tensor_new */
	assert_null(rt_tensor_new_in(p, DT_F64, 1,
				     (int64_t[]){(int64_t)1 << 61}, &e));
	assert_non_null(strstr(e.msg, "overflow"));
	rt_bufpool_release(p);
	rt_bufpool_release(NULL);
}

/* A freed buffer is reused by the next tensor it fits (not one that
 * would waste most of it), and the buffer is writable end to end. */
static void
test_pool_reuse(void **state)
{
	(void)state;
	RtBufPool *p = rt_bufpool_new();
	RtTensor *a = bytes_in(p, 4 * MIB);
	memset(a->data, 0xa5, a->nbytes);
	void *da = a->data;
	size_t ca = a->cap;
	rt_tensor_free(a);
	size_t used, kept;
	rt_bufpool_stats(p, &used, &kept, NULL);
	assert_int_equal(used, 0);
	assert_int_equal(kept, ca);
	/* a slightly smaller tensor fits: same memory */
	RtTensor *b = bytes_in(p, 4 * MIB - 12345);
	assert_ptr_equal(b->data, da);
	assert_int_equal(b->cap, ca);
	memset(b->data, 0x5a, b->nbytes);
	/* the buffer is taken: another one is fresh */
	RtTensor *c = bytes_in(p, 4 * MIB);
	assert_ptr_not_equal(c->data, da);
	rt_tensor_free(c);
	rt_tensor_free(b);
	/* a much smaller tensor does not take a big buffer */
	RtTensor *d = bytes_in(p, RT_POOL_MIN);
	assert_true(d->cap < ca);
	assert_ptr_not_equal(d->data, da);
	/* nor does a bigger one */
	RtTensor *f = bytes_in(p, 9 * MIB);
	assert_true(f->cap >= 9 * MIB);
	memset(f->data, 1, f->nbytes);
	rt_tensor_free(f);
	rt_tensor_free(d);
	rt_bufpool_release(p);
}

/* The pool never holds (kept + used) more than the peak in use, or
 * RT_POOL_KEEP_MIN: mappings are virtual until touched, so big sizes
 * cost nothing here. */
static void
test_pool_bounded(void **state)
{
	(void)state;
	RtBufPool *p = rt_bufpool_new();
	RtTensor *t[3];
	for (int i = 0; i < 3; i++)
		t[i] = bytes_in(p, 40 * MIB);
	size_t used, kept, peak;
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 120 * MIB);
	assert_int_equal(peak, 120 * MIB);
	for (int i = 0; i < 3; i++)
		rt_tensor_free(t[i]);
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 0);
	assert_int_equal(kept, 120 * MIB);
	/* 100 MiB fits no kept buffer: they make room (all three must go) */
	RtTensor *big = bytes_in(p, 100 * MIB);
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 100 * MIB);
	assert_int_equal(peak, 120 * MIB);
	assert_true(kept + used <= peak);
	assert_int_equal(kept, 0);
	/* a pattern of mixed sizes stays within the peak */
	RtTensor *live[4] = {0};
	for (int i = 0; i < 64; i++) {
		int k = i % 4;
		rt_tensor_free(live[k]);
		live[k] = bytes_in(p, (size_t)(1 + (i * 7) % 13) * MIB);
		rt_bufpool_stats(p, &used, &kept, &peak);
		size_t limit = peak > RT_POOL_KEEP_MIN ? peak : RT_POOL_KEEP_MIN;
		if (kept + used > limit)
			fail_msg("step %d: kept %zu + used %zu > %zu", i, kept,
				 used, limit);
	}
	rt_tensor_free(big);
	for (int k = 0; k < 4; k++)
		rt_tensor_free(live[k]);
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 0);
	assert_true(kept <= peak);
	/* the creator lets go while a buffer is out: the pool lives on until
	 * it comes back (ASan reports a leak or a use after free otherwise) */
	RtTensor *last = bytes_in(p, 2 * MIB);
	rt_bufpool_release(p);
	memset(last->data, 3, last->nbytes);
	rt_tensor_free(last);
}

enum { POOL_THREADS = 8, POOL_ROUNDS = 150 };

typedef struct {
	RtBufPool *p;
	int id;
	int bad;
} PoolJob;

/* Allocates, stamps, checks and frees buffers of varying sizes, two alive
 * at a time; a buffer handed to two threads at once shows as a stamp
 * overwritten. */
static void *
pool_worker(void *arg)
{
	PoolJob *j = arg;
	RtTensor *held[2] = {0};
	unsigned seed = (unsigned)j->id * 2654435761u + 1;
	for (int r = 0; r < POOL_ROUNDS; r++) {
		int k = r & 1;
		if (held[k]) {
			uint8_t *d = held[k]->data;
			size_t n = held[k]->nbytes;
			uint8_t want = (uint8_t)(j->id * 16 + k);
			if (d[0] != want || d[n / 2] != want || d[n - 1] != want)
				j->bad++;
			rt_tensor_free(held[k]);
		}
		seed = seed * 1103515245u + 12345u;
		size_t n = RT_POOL_MIN + (seed >> 8) % (5 * MIB);
		RtError e;
		held[k] = rt_tensor_new_in(j->p, DT_U8, 1,
					   (int64_t[]){(int64_t)n}, &e);
		if (!held[k]) {
			j->bad++;
			continue;
		}
		uint8_t *d = held[k]->data;
		uint8_t v = (uint8_t)(j->id * 16 + k);
		d[0] = d[n / 2] = d[n - 1] = v;
	}
	for (int k = 0; k < 2; k++)
		rt_tensor_free(held[k]);
	return NULL;
}

/* Many threads allocate from and free to one pool at once. */
static void
test_pool_threads(void **state)
{
	(void)state;
	RtBufPool *p = rt_bufpool_new();
	pthread_t th[POOL_THREADS];
	PoolJob jobs[POOL_THREADS];
	for (int i = 0; i < POOL_THREADS; i++) {
		jobs[i] = (PoolJob){p, i, 0};
		assert_int_equal(pthread_create(&th[i], NULL, pool_worker,
						&jobs[i]), 0);
	}
	for (int i = 0; i < POOL_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(jobs[i].bad, 0);
	}
	size_t used, kept, peak;
	rt_bufpool_stats(p, &used, &kept, &peak);
	assert_int_equal(used, 0);
	assert_true(peak <= (size_t)POOL_THREADS * 2 * 6 * MIB);
	size_t limit = peak > RT_POOL_KEEP_MIN ? peak : RT_POOL_KEEP_MIN;
	assert_true(kept <= limit);
	rt_bufpool_release(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_new_refused),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_borrow),
		cmocka_unit_test(test_f16_exhaustive),
		cmocka_unit_test(test_f16_rounding),
		cmocka_unit_test(test_bf16),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_new_huge),
		cmocka_unit_test(test_pool_small),
		cmocka_unit_test(test_pool_reuse),
		cmocka_unit_test(test_pool_bounded),
		cmocka_unit_test(test_pool_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
