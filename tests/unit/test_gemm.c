/*
 * test_gemm.c — runtime/kernels/gemm.c against a double-precision reference: every
 * instruction set the host has (and the generic kernels), 1 and 2 threads,
 * GEMM and GEMV shapes with edges (size 0 and 1, odd sizes, sizes across
 * the cache blocks), b plain and transposed, f32/f16/bf16 operands and
 * results, broadcast batches; int8 weights with group scales (RT_GEMM_Q8)
 * against the same reference on the dequantized weights.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "gemm.h"
#include "pool.h"

/* The value v rounded to dtype dt and stored at element i of p. */
static void
put(void *p, int dt, int64_t i, float v)
{
	if (dt == RT_GEMM_F32) {
		((float *)p)[i] = v;
		return;
	}
	if (dt == RT_GEMM_BF16) {
		uint32_t u;
		memcpy(&u, &v, 4);
		((uint16_t *)p)[i] = (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
		return;
	}
	((uint16_t *)p)[i] = (uint16_t)0; /* replaced below */
	_Float16 h = (_Float16)v;
	memcpy((uint16_t *)p + i, &h, 2);
}

static double
get(const void *p, int dt, int64_t i)
{
	if (dt == RT_GEMM_F32)
		return ((const float *)p)[i];
	if (dt == RT_GEMM_BF16) {
		uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
	_Float16 h;
	memcpy(&h, (const uint16_t *)p + i, 2);
	return (double)h;
}

static size_t
esize(int dt)
{
	return dt == RT_GEMM_F32 ? 4 : 2;
}

static unsigned rng_state = 12345;

static float
rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (float)((rng_state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/*
 * One case: batch dims bd of the result (a broadcast over batch dim 0
 * when abcast, b over the last when bbcast), M x K times K x N.
 */
static void
check(ThreadPool *pool, int isa, int64_t M, int64_t N, int64_t K, int transb,
      int adt, int bdt, int cdt, int nb, const int64_t *bd, int abcast,
      int bbcast)
{
	int64_t nbatch = 1;
	for (int j = 0; j < nb; j++)
		nbatch *= bd[j];
	/* a's and b's batch extents: 1 where they broadcast */
	int64_t an = 1, bn = 1;
	RtGemm g = {.M = M, .N = N, .K = K, .adt = adt, .bdt = bdt, .cdt = cdt,
		    .transb = transb, .nb = nb};
	int64_t sa = M * K, sb = K * N;
	for (int j = nb - 1; j >= 0; j--) {
		g.bdim[j] = bd[j];
		bool ab = abcast && j == 0, bbr = bbcast && j == nb - 1;
		g.as[j] = ab ? 0 : sa;
		g.bs[j] = bbr ? 0 : sb;
		if (!ab) {
			sa *= bd[j];
			an *= bd[j];
		}
		if (!bbr) {
			sb *= bd[j];
			bn *= bd[j];
		}
	}
	void *a = malloc((size_t)(an * M * K) * esize(adt) + 64);
	void *b = malloc((size_t)(bn * K * N) * esize(bdt) + 64);
	void *c = malloc((size_t)(nbatch * M * N) * esize(cdt) + 64);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	for (int64_t i = 0; i < an * M * K; i++)
		put(a, adt, i, rnd());
	for (int64_t i = 0; i < bn * K * N; i++)
		put(b, bdt, i, rnd());
	for (int64_t i = 0; i < nbatch * M * N; i++)
		put(c, cdt, i, 1e30f); /* every element must be written */
	g.a = a;
	g.b = b;
	g.c = c;
	rlx_gemm(pool, isa, &g);
	for (int64_t bt = 0; bt < nbatch; bt++) {
		int64_t ao = 0, bo = 0, x = bt;
		for (int j = nb - 1; j >= 0; j--) {
			ao += x % bd[j] * g.as[j];
			bo += x % bd[j] * g.bs[j];
			x /= bd[j];
		}
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0, mag = 0;
				for (int64_t k = 0; k < K; k++) {
					double p = get(a, adt, ao + i * K + k) *
						   get(b, bdt, bo + (transb ? j * K + k : k * N + j));
					s += p;
					mag += fabs(p);
				}
				double got = get(c, cdt, bt * M * N + i * N + j);
				double tol = 1e-5 * mag + 1e-6 +
					     (cdt == RT_GEMM_F32 ? 0 : cdt == RT_GEMM_F16 ? 1e-3 * fabs(s) + 1e-4 : 8e-3 * fabs(s));
				if (!(fabs(got - s) <= tol))
					fail_msg("isa %d threads %d M %lld N %lld K %lld transb %d dt %d%d%d "
						 "batch %lld: c[%lld, %lld] = %g, want %g",
						 isa, tpool_size(pool), (long long)M, (long long)N,
						 (long long)K, transb, adt, bdt, cdt, (long long)bt,
						 (long long)i, (long long)j, got, s);
			}
	}
	free(a);
	free(b);
	free(c);
}

/* The instruction sets this host can run. */
static int
isas(int *out)
{
	int n = 0;
	out[n++] = GEMM_ISA_GENERIC;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		out[n++] = GEMM_ISA_AVX2;
	if (__builtin_cpu_supports("avx512f"))
		out[n++] = GEMM_ISA_AVX512;
#endif
	return n;
}

static const int64_t SHAPES[][3] = {
	/* M, N, K */
	{1, 1, 1}, {1, 37, 19}, {2, 5, 3}, {3, 64, 64}, {5, 100, 33},
	{8, 17, 250}, {1, 1000, 17}, {4, 33, 1}, /* GEMV */
	{9, 1, 1}, {13, 31, 7}, {12, 32, 16}, {25, 47, 129}, {30, 70, 300},
	{200, 45, 20}, {97, 300, 261}, /* GEMM, across MC and KC */
	{250, 130, 300}, {20, 2100, 24}, /* two row blocks and KC blocks; NC */
	{900, 4, 600}, /* row groups: too few columns for the threads */
	{20, 3000, 40}, /* 5 column groups on 2 threads (GROUP_MIN_COLS) */
	{32, 25, 1}, {64, 13, 33}, {128, 50, 40}, {120, 7, 300}, /* x @ w.T in
	 * place (uk_bt): K under 16 and not of 16, a last tile of 1 and of
	 * under MR rows, M of whole panels and not */
	{0, 5, 3}, {5, 0, 3}, {5, 4, 0}, {1, 3, 0}, /* empty */
	{1, 300, 261}, {1, 257, 1000}, /* GEMV x @ b split along K on 2
	 * threads (gemv_split): an odd K, blocks of unequal rows */
};

static void
test_shapes(void **state)
{
	(void)state;
	int is[3], ni = isas(is);
	for (int t = 1; t <= 2; t++) {
		ThreadPool *pool = tpool_new(t);
		for (int i = 0; i < ni; i++)
			for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++)
				for (int tb = 0; tb < 2; tb++)
					check(pool, is[i], SHAPES[s][0], SHAPES[s][1],
					      SHAPES[s][2], tb, RT_GEMM_F32, RT_GEMM_F32,
					      RT_GEMM_F32, 0, NULL, 0, 0);
		tpool_free(pool);
	}
}

static void
test_dtypes(void **state)
{
	(void)state;
	int is[3], ni = isas(is);
	static const int dts[][3] = {
		{RT_GEMM_F32, RT_GEMM_F16, RT_GEMM_F32},
		{RT_GEMM_F32, RT_GEMM_BF16, RT_GEMM_F32},
		{RT_GEMM_F16, RT_GEMM_F16, RT_GEMM_F16},
		{RT_GEMM_BF16, RT_GEMM_BF16, RT_GEMM_BF16},
		{RT_GEMM_F16, RT_GEMM_F16, RT_GEMM_F32},
		{RT_GEMM_F16, RT_GEMM_F32, RT_GEMM_F32}, /* 16-bit x, f32 w */
		{RT_GEMM_BF16, RT_GEMM_F32, RT_GEMM_BF16},
	};
	static const int64_t sh[][3] = {{1, 45, 37}, {3, 64, 40}, {8, 33, 17},
					{20, 50, 70}, {40, 33, 300}, {30, 40, 50},
					/* a 16-bit result's f32 scratch, a 16-bit x's
					 * widened copy (GEMV): 2 MiB or more, mapped */
					{600, 1000, 3}, {8, 3, 70000},
					/* x @ w.T in place, w widened a tile at a
					 * time (widen_rows): K not of 16, a last tile
					 * of 1 and of under MR rows */
					{32, 25, 19}, {64, 13, 33}, {128, 50, 40}, {120, 7, 300},
					/* GEMV split along K (gemv_split) */
					{1, 300, 261}};
	ThreadPool *pool = tpool_new(2);
	for (int i = 0; i < ni; i++)
		for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
			for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
				for (int tb = 0; tb < 2; tb++)
					check(pool, is[i], sh[s][0], sh[s][1], sh[s][2], tb,
					      dts[d][0], dts[d][1], dts[d][2], 0, NULL, 0, 0);
	tpool_free(pool);
}

static void
test_batches(void **state)
{
	(void)state;
	int is[3], ni = isas(is);
	int64_t bd[2] = {3, 2};
	ThreadPool *pool = tpool_new(2);
	for (int i = 0; i < ni; i++)
		for (int tb = 0; tb < 2; tb++) {
			check(pool, is[i], 7, 9, 5, tb, RT_GEMM_F32, RT_GEMM_F32,
			      RT_GEMM_F32, 2, bd, 0, 0);
			check(pool, is[i], 1, 40, 33, tb, RT_GEMM_F32, RT_GEMM_F16,
			      RT_GEMM_F32, 2, bd, 1, 0);
			check(pool, is[i], 70, 40, 65, tb, RT_GEMM_F32, RT_GEMM_F32,
			      RT_GEMM_F32, 2, bd, 0, 1);
			check(pool, is[i], 130, 100, 90, tb, RT_GEMM_F32, RT_GEMM_F32,
			      RT_GEMM_F32, 1, bd, 0, 0);
		}
	tpool_free(pool);
}

/*
 * int8 b with a scale per group of gs weights (element i of b as stored
 * is q[i] * s[i / gs]) against the double reference on the dequantized
 * weights; a in dtype adt, c f32, nbatch batches of a sharing b.
 */
static void
check_q8(ThreadPool *pool, int isa, int64_t M, int64_t N, int64_t K, int64_t gs,
	 int transb, int adt, int64_t nbatch)
{
	RtGemm g = {.M = M, .N = N, .K = K, .adt = adt, .bdt = RT_GEMM_Q8,
		    .cdt = RT_GEMM_F32, .transb = transb, .bgroup = gs};
	if (nbatch > 1) {
		g.nb = 1;
		g.bdim[0] = nbatch;
		g.as[0] = M * K;
		g.bs[0] = 0;
	}
	int8_t *q = malloc((size_t)(K * N) + 64);
	float *sc = malloc((size_t)(K * N / gs + 1) * sizeof *sc);
	void *a = malloc((size_t)(nbatch * M * K) * esize(adt) + 64);
	float *c = malloc((size_t)(nbatch * M * N) * sizeof *c + 64);
	assert_non_null(q);
	assert_non_null(sc);
	assert_non_null(a);
	assert_non_null(c);
	for (int64_t i = 0; i < K * N; i++) /* every byte, -128 included */
		q[i] = (int8_t)(int)(rnd() * 128.0f);
	q[0] = -128;
	for (int64_t i = 0; i < K * N / gs; i++)
		sc[i] = (0.5f + rnd()) * 0.01f; /* negative ones too */
	for (int64_t i = 0; i < nbatch * M * K; i++)
		put(a, adt, i, rnd());
	for (int64_t i = 0; i < nbatch * M * N; i++)
		c[i] = 1e30f;
	g.a = a;
	g.b = q;
	g.bscale = sc;
	g.c = c;
	rlx_gemm(pool, isa, &g);
	for (int64_t bt = 0; bt < nbatch; bt++)
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double sum = 0, mag = 0;
				for (int64_t k = 0; k < K; k++) {
					int64_t e = transb ? j * K + k : k * N + j;
					double p = get(a, adt, bt * M * K + i * K + k) *
						   ((double)q[e] * sc[e / gs]);
					sum += p;
					mag += fabs(p);
				}
				double got = c[bt * M * N + i * N + j];
				if (!(fabs(got - sum) <= 1e-5 * mag + 1e-6))
					fail_msg("q8 isa %d threads %d M %lld N %lld K %lld gs %lld "
						 "transb %d adt %d batch %lld: c[%lld, %lld] = %g, want %g",
						 isa, tpool_size(pool), (long long)M, (long long)N,
						 (long long)K, (long long)gs, transb, adt,
						 (long long)bt, (long long)i, (long long)j, got, sum);
			}
	free(q);
	free(sc);
	free(a);
	free(c);
}

static void
test_q8(void **state)
{
	(void)state;
	int is[3], ni = isas(is);
	static const int64_t sh[][4] = {
		/* M, N, K, group */
		{1, 1, 32, 32}, {1, 67, 64, 32}, {2, 40, 128, 16}, {3, 64, 96, 32},
		{2, 38, 96, 32}, {3, 5, 4096, 32}, /* groups of 32 unrolled (Q8_GS32_M) */
		{5, 33, 64, 64}, {8, 50, 256, 128}, {1, 1000, 32, 32}, /* GEMV */
		{1, 45, 48, 16}, {1, 9, 256, 128}, /* M = 1: groups of one step, of eight */
		{1, 11, 192, 64}, {1, 3, 64, 32}, /* groups by 32 (gemv_q8_g32): rows past */
		{2, 7, 128, 64}, {4, 6, 96, 32}, {6, 5, 64, 32}, {7, 3, 32, 32}, /* R's */
		{1, 37, 24, 8}, {4, 9, 21, 7}, {1, 20, 40, 40}, /* groups not of 16 */
		{9, 33, 64, 32}, {20, 47, 96, 16}, {40, 70, 800, 32}, /* GEMM, across KC */
		{100, 130, 64, 8}, {13, 17, 30, 10},
		/* x @ w.T in place, w widened a tile at a time (widen_rows); groups
		 * not of 16 stay blocked */
		{32, 25, 64, 16}, {64, 13, 96, 32}, {120, 7, 320, 32}, {128, 50, 48, 16},
		{32, 9, 40, 8},
		{0, 5, 32, 32}, {5, 0, 32, 32}, {3, 4, 0, 16}, /* empty */
	};
	for (int t = 1; t <= 2; t++) {
		ThreadPool *pool = tpool_new(t);
		for (int i = 0; i < ni; i++)
			for (size_t k = 0; k < sizeof sh / sizeof *sh; k++)
				for (int tb = 0; tb < 2; tb++)
					check_q8(pool, is[i], sh[k][0], sh[k][1], sh[k][2],
						 sh[k][3], tb, RT_GEMM_F32, 1);
		tpool_free(pool);
	}
	ThreadPool *pool = tpool_new(2);
	for (int i = 0; i < ni; i++) {
		check_q8(pool, is[i], 1, 40, 64, 32, 1, RT_GEMM_F16, 1);
		check_q8(pool, is[i], 30, 40, 64, 32, 1, RT_GEMM_BF16, 1);
		check_q8(pool, is[i], 1, 40, 64, 32, 1, RT_GEMM_F32, 3);
		check_q8(pool, is[i], 17, 40, 64, 16, 1, RT_GEMM_F32, 3);
	}
	tpool_free(pool);
}

static float
fbits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/*
 * A 16-bit result is rounded from f32 to nearest even, bit for bit as the
 * compiler's _Float16 and the bf16 rule in put() round: the products are
 * a[i] * 1 (K = 1, exact), a holding ties, the largest f16 and the next
 * ones, overflow to inf, f16 subnormals and the values rounded to zero,
 * f32 subnormals, inf and NaN (any NaN of the same sign), then random
 * values; 33 columns, so each row ends in a partial vector.
 */
static void
test_narrow(void **state)
{
	(void)state;
	const float special[] = {
		1.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f,
		-1.0f - 0x1p-11f, 65504.0f, 65519.0f, 65520.0f, -65520.0f, 1e6f, 3.4e38f,
		0x1p-24f, 0x1p-25f, 0x1p-25f + 0x1p-40f, 3 * 0x1p-26f, 0x1p-14f - 0x1p-25f,
		1e-40f, -1e-40f, 0.0f, fbits(0x7f800000u), fbits(0xff800000u),
		fbits(0x7fc00000u), fbits(0xffc12345u), fbits(0x7f800001u), fbits(0x7fffffffu),
		fbits(0x3f808000u), fbits(0x3f818000u), fbits(0x7f7fffffu),
	};
	enum { NS = sizeof special / sizeof *special, M = NS + 20, N = 33 };
	int is[3], ni = isas(is);
	float a[M], b[N];
	for (int i = 0; i < M; i++)
		a[i] = i < NS ? special[i] : rnd() * 1000.0f;
	for (int j = 0; j < N; j++)
		b[j] = 1.0f;
	uint16_t c[M * N];
	ThreadPool *pool = tpool_new(2);
	for (int i = 0; i < ni; i++)
		for (int dt = RT_GEMM_F16; dt <= RT_GEMM_BF16; dt++) {
			RtGemm g = {.M = M, .N = N, .K = 1, .a = a, .b = b, .c = c,
				    .adt = RT_GEMM_F32, .bdt = RT_GEMM_F32, .cdt = dt};
			rlx_gemm(pool, is[i], &g);
			for (int r = 0; r < M; r++) {
				uint16_t want;
				put(&want, dt, 0, a[r]);
				for (int j = 0; j < N; j++) {
					uint16_t got = c[r * N + j];
					bool ok = isnan(a[r]) ? (got & 0x7fff) > (dt == RT_GEMM_F16 ? 0x7c00 : 0x7f80) &&
							       !(got & 0x8000) == !signbit(a[r])
							     : got == want;
					if (!ok)
						fail_msg("isa %d dtype %d: %a gave 0x%04x, want 0x%04x (row %d, column %d)",
							 is[i], dt, (double)a[r], got, want, r, j);
				}
			}
		}
	tpool_free(pool);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_q8),
		cmocka_unit_test(test_narrow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
