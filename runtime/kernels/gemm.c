/*
 * gemm.c — matrix multiply for generated matmul kernels (see gemm.h).
 *
 * GEMM (M > 8) follows GotoBLAS/BLIS: for each block of NC columns and KC
 * of the reduction, blocks of MC rows of a are packed into panels of MR
 * rows (16 x 16 transposes) and a register micro-kernel computes MR x NR
 * tiles of c from them and b's block packed into panels of NR columns (f16
 * and bf16 converted, a transposed b transposed 16 x 16 while packing).
 * The first row block packs each b panel just before its first use while
 * its micro-kernels prefetch the next panel's weights into L2, so the
 * weights' one read from memory overlaps the arithmetic (the prefill
 * case, M = 128, has one row block). The b block (KC x NC) sits in L2
 * next to an a block (MC x KC), a b micro-panel (KC x NR) in L1 (BLOCKS
 * below). Threads: one tpool_run per batch over (column group, row group)
 * items, each packing its own b panels and blocks of a into the scratch
 * slot of its thread (kept by the pool between calls): a thread's b block
 * stays in its core's L2 and no item waits for another. Many small
 * batches go one batch per item instead.
 *
 * A skinny x @ w.T (M up to BT_MAX_M; on one thread, or for one batch
 * on any number with the AVX2 kernels, and with the AVX-512 ones up to M
 * = 64 while x fits a core's L2) reads w in place instead: x transposed
 * into panels, MR rows of w broadcast against them (uk_bt), the tiles of
 * w split across the threads, so w is never packed (gemm_bt). f32 w is
 * broadcast straight from w; 16-bit and int8 w (groups of a multiple of
 * 16) are widened a tile of MR rows at a time into a block in L2
 * (widen_rows), each weight once.
 *
 * GEMV (M <= 8, decode) splits the columns across threads and reads each
 * weight once: b [K, N] four rows at a time into a row of accumulators in
 * L1, b [N, K] (x @ w.T) a few rows at a time with vector accumulators;
 * f16 and bf16 weights are widened in registers (F16C), int8 weights
 * (RT_GEMM_Q8) widened and multiplied by their group's scale in registers:
 * a GEMV reads one byte per weight. A GEMM packs int8 b dequantized.
 *
 * The micro-kernels come from gemm_isa.h, compiled once per instruction
 * set (AVX-512: 12 x 32, AVX2+FMA: 6 x 16, generic vectors: 4 x 16); the
 * caller passes the one its host has (jit_gemm_isa reads the CPU's
 * features, as LLVM does for the generated code).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "pool.h"
#include "rt.h"

/*
 * Cache lines for a micro-kernel to prefetch into L2 while it computes,
 * one every gap reduction steps: n lines from p + off on, lines of a row
 * len bytes long, rows row bytes apart. The micro-kernel advances it.
 */
typedef struct {
	const char *p;
	int64_t n, gap, row, len, off;
} GemmPf;

/* The kernels of one instruction set (gemm_isa.h). */
typedef struct {
	int mr, nr;
	int kc, mc, nc; /* the cache blocks (see BLOCKS below) */
	void (*uk)(int64_t kc, const float *ap, const float *bp, float *c,
		   int64_t ldc, int add, GemmPf *pf);
	void (*pack_a)(const void *a, int dt, int64_t K, int64_t i0, int64_t mc,
		       int64_t k0, int64_t kc, float *ap);
	void (*pack_b)(const void *b, int dt, const float *s, int64_t gs,
		       int transb, int64_t K, int64_t N, int64_t k0, int64_t kc,
		       int64_t j0, int64_t nc, float *bp);
	void (*gemv)(int M, int dt, const float *s, int64_t gs, int transb,
		     int64_t K, int64_t N, const float *a, const void *b, float *y,
		     int64_t ldy, int64_t j0, int64_t j1);
	void (*uk_bt)(const float *xp, const float *w, int64_t K, int h,
		      float *c, int64_t ldc, int mw);
	void (*widen_rows)(const void *w, int dt, const float *s, int64_t gs,
			   int64_t n0, int h, int64_t K, float *d);
	void (*pack_xt)(const void *a, int dt, int64_t M, int64_t K, int64_t p,
			float *xt);
	void (*narrow)(const float *src, int dt, void *dst, int64_t lo, int64_t hi);
	int bt_par_m;      /* uk_bt on more threads than one: up to this M */
	int64_t bt_par_x;  /* and this many bytes of x (see bt_fits) */
} GemmIsa;

/*
 * BLOCKS: the cache blocks of each ISA, set where the ISA's kernels are
 * included. A b micro-panel (KC x NR f32) stays in L1 while the a
 * micro-panels stream past it from the a block (MC x KC) in L2. AVX2's
 * 6 x 16 kernel is the one that AVX2-only CPUs run (Zen 1-3, 32 KiB L1,
 * 512 KiB L2 on Zen 3): KC 256 keeps its b micro-panel at half of L1 and
 * MC 144 its a block at about a quarter of L2, BLIS's blocks for the same
 * kernel on Zen 3. AVX-512's KC 256 (a 32 KiB micro-panel) was measured
 * best on Zen 4 and Sapphire Rapids (docs/perf.md, "Cache blocks").
 */
enum {
	GEMV_MAX_M = 8,
	GEMV_COLS = 512, /* columns per GEMV work item (at least) */
	GEMV_PF_ROWS = 8, /* b [K, N]: rows ahead that a GEMV prefetches */
	GEMV_SPLIT_K = 64, /* x @ b [K, N] on T threads: split along K from
			    * this many rows of b per thread */
	SMALL_BATCH = 1 << 20, /* multiply-adds: one batch per work item */
	PAR_WORK = 1 << 16,    /* multiply-adds worth a second thread */
	MAX_SLOTS = 257,
	GROUP_MIN_COLS = 512, /* narrowest column group beyond 2 per thread */
	BT_MAX_M = 128, /* x @ w.T up to this M: w read in place */
	BT_PF_LINES = 48, /* uk_bt: lines ahead each row of w prefetches */
};

/* Rows of b [N, K] a GEMV reads at a time for M rows of a: a pass reads
 * all of a again, and more rows are more streams from memory at once. */
#define GEMV_ROWS(M) ((M) <= 3 ? 4 : (M) <= 5 ? 3 : 2)

/* The dtype the GEMVs give bf16 weights taken in pairs (GEMV_BHP). */
enum { GEMV_BF16_PAIRS = 100 };

/* ------------------------------------------------------------ dtypes */

static inline float
f16_to_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	uint32_t u;
	if (e == 0x1f)
		u = s | 0x7f800000 | (m << 13);
	else if (e)
		u = s | ((e + 112) << 23) | (m << 13);
	else if (m) { /* subnormal: normalize */
		e = 113;
		while (!(m & 0x400)) {
			m <<= 1;
			e--;
		}
		u = s | (e << 23) | ((m & 0x3ff) << 13);
	} else
		u = s;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint16_t
f32_to_f16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 0xff, m = u & 0x7fffff;
	if (e == 0xff)
		return (uint16_t)(s | 0x7c00 | (m ? 0x200 | (m >> 13) : 0));
	int32_t ne = (int32_t)e - 112;
	if (ne >= 0x1f)
		return (uint16_t)(s | 0x7c00);
	if (ne <= 0) { /* subnormal or zero */
		if (ne < -10)
			return (uint16_t)s;
		m |= 0x800000;
		int sh = 14 - ne;
		uint32_t r = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return (uint16_t)(s | r);
	}
	uint32_t r = ((uint32_t)ne << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
		r++; /* may carry into the exponent, up to inf: correct */
	return (uint16_t)(s | r);
}

static inline uint16_t
f32_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* Element i of p (dtype dt) as f32. */
static inline float
gemm_ld(const void *p, int dt, int64_t i)
{
	if (dt == RT_GEMM_F16)
		return f16_to_f32(((const uint16_t *)p)[i]);
	if (dt == RT_GEMM_BF16) {
		uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
	return ((const float *)p)[i];
}

/* Element i of b (dtype dt; RT_GEMM_Q8: q[i] * s[i / gs]) as f32. */
static inline float
b_ld(const void *p, int dt, const float *s, int64_t gs, int64_t i)
{
	if (dt == RT_GEMM_Q8)
		return (float)((const int8_t *)p)[i] * s[i / gs];
	return gemm_ld(p, dt, i);
}

/*
 * GEMV with int8 b and group scales of any size and either layout (the
 * kernels' vector path takes transposed b with groups of a multiple of
 * 16): y[m, j] for j0 <= j < j1, group by group without a division per
 * weight when b is transposed.
 */
static void
gemv_q8_ref(int M, const float *s, int64_t gs, int transb, int64_t K,
	    int64_t N, const float *a, const void *b, float *y, int64_t ldy,
	    int64_t j0, int64_t j1)
{
	const int8_t *q = b;
	for (int m = 0; m < M; m++)
		for (int64_t j = j0; j < j1; j++) {
			float acc = 0;
			if (transb) {
				for (int64_t k0 = 0; k0 < K; k0 += gs) {
					float t = 0;
					for (int64_t k = k0; k < k0 + gs && k < K; k++)
						t += a[m * K + k] * (float)q[j * K + k];
					acc += t * s[(j * K + k0) / gs];
				}
			} else {
				for (int64_t k = 0; k < K; k++)
					acc += a[m * K + k] * b_ld(b, RT_GEMM_Q8, s, gs, k * N + j);
			}
			y[m * ldy + j] = acc;
		}
}

static inline void
gemm_st(void *p, int dt, int64_t i, float v)
{
	if (dt == RT_GEMM_F16)
		((uint16_t *)p)[i] = f32_to_f16(v);
	else if (dt == RT_GEMM_BF16)
		((uint16_t *)p)[i] = f32_to_bf16(v);
	else
		((float *)p)[i] = v;
}

/* ------------------------------------------------------------ kernels */

/* Generic "vectors": 16 floats the compiler vectorizes as it can. */
typedef struct {
	float v[16];
} VG;
static inline VG
vg_load(const float *p)
{
	VG v;
	memcpy(v.v, p, sizeof v.v);
	return v;
}
static inline void
vg_store(float *p, VG v)
{
	memcpy(p, v.v, sizeof v.v);
}
static inline VG
vg_set1(float x)
{
	VG v;
	for (int i = 0; i < 16; i++)
		v.v[i] = x;
	return v;
}
static inline VG
vg_add(VG a, VG b)
{
	for (int i = 0; i < 16; i++)
		a.v[i] += b.v[i];
	return a;
}
static inline VG
vg_mul(VG a, VG b)
{
	for (int i = 0; i < 16; i++)
		a.v[i] *= b.v[i];
	return a;
}
static inline VG
vg_load_q8(const int8_t *p)
{
	VG v;
	for (int i = 0; i < 16; i++)
		v.v[i] = (float)p[i];
	return v;
}
static inline VG
vg_fma(VG a, VG b, VG c)
{
	for (int i = 0; i < 16; i++)
		c.v[i] += a.v[i] * b.v[i];
	return c;
}
static inline float
vg_sum(VG v)
{
	float s = 0;
	for (int i = 0; i < 16; i++)
		s += v.v[i];
	return s;
}
static inline VG
vg_load_h(const uint16_t *p)
{
	VG v;
	for (int i = 0; i < 16; i++)
		v.v[i] = f16_to_f32(p[i]);
	return v;
}
static inline VG
vg_load_bh(const uint16_t *p)
{
	VG v;
	for (int i = 0; i < 16; i++)
		v.v[i] = gemm_ld(p, RT_GEMM_BF16, i);
	return v;
}
static inline void
vg_store_h(uint16_t *p, VG v)
{
	for (int i = 0; i < 16; i++)
		p[i] = f32_to_f16(v.v[i]);
}
static inline void
vg_store_bh(uint16_t *p, VG v)
{
	for (int i = 0; i < 16; i++)
		p[i] = f32_to_bf16(v.v[i]);
}

static inline void
vg_transpose16(VG *r)
{
	for (int i = 0; i < 16; i++)
		for (int j = i + 1; j < 16; j++) {
			float t = r[i].v[j];
			r[i].v[j] = r[j].v[i];
			r[j].v[i] = t;
		}
}

#define SFX(x) x##_generic
#define vtranspose16 vg_transpose16
#define V VG
#define vload vg_load
#define vstore vg_store
#define vset1 vg_set1
#define vzero() vg_set1(0)
#define vadd vg_add
#define vfma vg_fma
#define vsum vg_sum
#define vload_h vg_load_h
#define vload_bh vg_load_bh
#define vstore_h vg_store_h
#define vstore_bh vg_store_bh
#define vload_q8 vg_load_q8
#define vmul vg_mul
#define MR 4
#define NV 1
#define ISA_KC 384
#define ISA_MC 192
#define ISA_NC 1024
#define ISA_BT_PAR_M 0
#define ISA_BT_PAR_X 0
#define Q8_ROWS(M) GEMV_ROWS(M)
#define Q8_GS32_M 0
#define GEMV_BHP 0
#define GEMV_Q8_G32 0
#include "gemm_isa.h"
#undef SFX
#undef V
#undef vload
#undef vstore
#undef vset1
#undef vzero
#undef vadd
#undef vfma
#undef vsum
#undef vload_h
#undef vload_bh
#undef vstore_h
#undef vstore_bh
#undef vload_q8
#undef vmul
#undef vtranspose16
#undef MR
#undef NV
#undef ISA_KC
#undef ISA_MC
#undef ISA_NC
#undef ISA_BT_PAR_M
#undef ISA_BT_PAR_X
#undef Q8_ROWS
#undef Q8_GS32_M
#undef GEMV_BHP
#undef GEMV_Q8_G32

#if defined(__x86_64__)
#include <immintrin.h>

/* AVX2 + FMA + F16C: a V is two ymm. */
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
typedef struct {
	__m256 lo, hi;
} V2;
static inline V2
v2_load(const float *p)
{
	return (V2){_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)};
}
static inline void
v2_store(float *p, V2 v)
{
	_mm256_storeu_ps(p, v.lo);
	_mm256_storeu_ps(p + 8, v.hi);
}
static inline V2
v2_set1(float x)
{
	return (V2){_mm256_set1_ps(x), _mm256_set1_ps(x)};
}
static inline V2
v2_add(V2 a, V2 b)
{
	return (V2){_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)};
}
static inline V2
v2_mul(V2 a, V2 b)
{
	return (V2){_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi)};
}
static inline V2
v2_load_q8(const int8_t *p)
{
	return (V2){_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p))),
		    _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8))))};
}
/* The sum of 8 floats. */
static inline float
ymm_sum(__m256 s)
{
	__m128 x = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
	x = _mm_add_ps(x, _mm_movehl_ps(x, x));
	x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
	return _mm_cvtss_f32(x);
}
/*
 * The int8 GEMV for groups of a multiple of 32 (the decode step of
 * llama_q8): y[m, j] = sum over groups g of s[j, g] * (sum over k in g of
 * a[m, k] * q[j, k]) for the M <= 8 rows of a, R rows of q at a time, the
 * rows after them prefetched meanwhile.
 *
 * Bound by its vector operations, so it spends few: 8 weights are one
 * shuffle (each byte to the top of its 32-bit lane, zeros below: the
 * weight times 2^24, exactly) and one conversion, then a multiply-add per
 * row of a; a group's 32 products are summed in one ymm, which one
 * multiply-add by the group's scale adds to the row's sum; the 2^24 comes
 * off each total (exact unless |y| >= 2^104, where f32 would overflow).
 * Against the shared loop (widening by sign extension, vpmovsxbd, and
 * two ymm per group), on Zen 5's AVX2 path: 1.1x at M = 1, 1.1-1.5x at M
 * = 2-8 (measured); LLVM's model of Zen 3 takes vpmovsxbd from memory as
 * 1.5 cycles where the shuffle is 0.5. Rows of q at a time (R): the best
 * measured (M = 2 and 3: 2; M >= 4: 1, what the 16 ymm hold; M = 1: 1,
 * 1.13x as fast as 4 on a Zen 2 core, where Zen 5 ran 3 to 6 the same,
 * docs/perf.md). Splitting M > 4 into two passes over each row was
 * slower.
 */
enum { Q8_MAX_M = 8, Q8_MAX_R = 4 };
static inline __attribute__((always_inline)) __m256
q8_top8(__m128i w16, __m256i sel)
{
	return _mm256_cvtepi32_ps(_mm256_shuffle_epi8(_mm256_broadcastsi128_si256(w16), sel));
}
static inline __attribute__((always_inline)) void
q8_rows(const int M, const int R, int64_t K, const int64_t gs, const float *restrict a,
	const int8_t *restrict q, const float *restrict s, float *restrict y, int64_t ldy,
	int64_t j)
{
	/* bytes 0-7 (lo) and 8-15 (hi) of 16 to the top of eight lanes */
	const __m256i lo = _mm256_setr_epi8(-1, -1, -1, 0, -1, -1, -1, 1, -1, -1, -1, 2,
					    -1, -1, -1, 3, -1, -1, -1, 4, -1, -1, -1, 5,
					    -1, -1, -1, 6, -1, -1, -1, 7);
	const __m256i hi = _mm256_add_epi8(lo, _mm256_set1_epi32(0x08000000));
	const int64_t G = K / gs;
	const int8_t *qr[Q8_MAX_R];
	const float *sr[Q8_MAX_R];
	__m256 acc[Q8_MAX_M][Q8_MAX_R];
	for (int r = 0; r < R; r++) {
		qr[r] = q + (j + r) * K;
		sr[r] = s + (j + r) * G;
		for (int m = 0; m < M; m++)
			acc[m][r] = _mm256_setzero_ps();
	}
	const char *next = (const char *)(q + (j + R) * K);
	for (int64_t k = 0; k < K; k += gs) {
		__m256 part[Q8_MAX_M][Q8_MAX_R];
		for (int m = 0; m < M; m++)
			for (int r = 0; r < R; r++)
				part[m][r] = _mm256_setzero_ps();
		for (int64_t i = k; i < k + gs; i += 32) {
			if (!(i & 63))
				for (int r = 0; r < R; r++)
					__builtin_prefetch(next + r * K + i, 0, 2);
			for (int r = 0; r < R; r++) {
				const __m128i w0 = _mm_loadu_si128((const __m128i *)(qr[r] + i));
				const __m128i w1 = _mm_loadu_si128((const __m128i *)(qr[r] + i + 16));
				const __m256 b[4] = {q8_top8(w0, lo), q8_top8(w0, hi), q8_top8(w1, lo),
						     q8_top8(w1, hi)};
				for (int m = 0; m < M; m++) {
					const float *x = a + m * K + i;
					__m256 t = i > k ? _mm256_fmadd_ps(b[0], _mm256_loadu_ps(x), part[m][r])
							 : _mm256_mul_ps(b[0], _mm256_loadu_ps(x));
					t = _mm256_fmadd_ps(b[1], _mm256_loadu_ps(x + 8), t);
					t = _mm256_fmadd_ps(b[2], _mm256_loadu_ps(x + 16), t);
					part[m][r] = _mm256_fmadd_ps(b[3], _mm256_loadu_ps(x + 24), t);
				}
			}
		}
		for (int r = 0; r < R; r++) {
			const __m256 sc = _mm256_set1_ps(*sr[r]++);
			for (int m = 0; m < M; m++)
				acc[m][r] = _mm256_fmadd_ps(part[m][r], sc, acc[m][r]);
		}
	}
	for (int m = 0; m < M; m++)
		for (int r = 0; r < R; r++)
			y[m * ldy + j + r] = ymm_sum(acc[m][r]) * 0x1p-24f;
}
static inline __attribute__((always_inline)) void
q8_span(const int M, int64_t K, int64_t gs, const float *restrict a,
	const int8_t *restrict q, const float *restrict s, float *restrict y, int64_t ldy,
	int64_t j0, int64_t j1)
{
	const int R = M == 2 || M == 3 ? 2 : 1;
	int64_t j = j0;
	if (gs == 32) /* llama_q8's: the group loop unrolled */
		for (; j + R <= j1; j += R)
			q8_rows(M, R, K, 32, a, q, s, y, ldy, j);
	else
		for (; j + R <= j1; j += R)
			q8_rows(M, R, K, gs, a, q, s, y, ldy, j);
	for (; j < j1; j++)
		q8_rows(M, 1, K, gs, a, q, s, y, ldy, j);
}
/* gemv_q8_g32 (gemm_isa.h's GEMV_Q8_G32) */
static void
gemv_q8_g32(int M, int64_t K, int64_t gs, const float *restrict a, const int8_t *restrict q,
	   const float *restrict s, float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
	switch (M) {
	case 1: q8_span(1, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 2: q8_span(2, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 3: q8_span(3, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 4: q8_span(4, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 5: q8_span(5, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 6: q8_span(6, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 7: q8_span(7, K, gs, a, q, s, y, ldy, j0, j1); break;
	case 8: q8_span(8, K, gs, a, q, s, y, ldy, j0, j1); break;
	default: break;
	}
}
static inline V2
v2_fma(V2 a, V2 b, V2 c)
{
	return (V2){_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)};
}
static inline float
v2_sum(V2 v)
{
	return ymm_sum(_mm256_add_ps(v.lo, v.hi));
}
static inline V2
v2_load_h(const uint16_t *p)
{
	return (V2){_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)),
		    _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8)))};
}
/* 16 bf16 as f32 in pairs' order: the even ones in lo, the odd in hi */
static inline V2
v2_load_bhp(const uint16_t *p)
{
	__m256i d = _mm256_loadu_si256((const __m256i *)p);
	return (V2){_mm256_castsi256_ps(_mm256_slli_epi32(d, 16)),
		    _mm256_castsi256_ps(_mm256_and_si256(d, _mm256_set1_epi32((int)0xffff0000u)))};
}
static inline V2
v2_load_bh(const uint16_t *p)
{
	__m256i lo = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
	__m256i hi = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 8)));
	return (V2){_mm256_castsi256_ps(_mm256_slli_epi32(lo, 16)),
		    _mm256_castsi256_ps(_mm256_slli_epi32(hi, 16))};
}
/* 8 f32 to 8 bf16 in the low halves of 32-bit lanes, rounded to nearest
 * even (f32_to_bf16's rule; NaN stays NaN, quiet). */
static inline __m256i
v2_bf16_bits(__m256 v)
{
	__m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
	__m256i odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
	__m256i r = _mm256_srli_epi32(
		_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd)), 16);
	__m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
	return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}
static inline void
v2_store_h(uint16_t *p, V2 v)
{
	_mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v.lo, _MM_FROUND_TO_NEAREST_INT));
	_mm_storeu_si128((__m128i *)(p + 8), _mm256_cvtps_ph(v.hi, _MM_FROUND_TO_NEAREST_INT));
}
static inline void
v2_store_bh(uint16_t *p, V2 v)
{
	/* packus takes 4 lanes of each half of lo, then of hi: put them back */
	__m256i h = _mm256_packus_epi32(v2_bf16_bits(v.lo), v2_bf16_bits(v.hi));
	_mm256_storeu_si256((__m256i *)p, _mm256_permute4x64_epi64(h, 0xd8));
}
/* r[0..8) rows of 8 to columns. */
static inline void
tr8(__m256 *r)
{
	__m256 t[8], u[8];
	for (int i = 0; i < 4; i++) {
		t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	for (int h = 0; h < 2; h++) { /* rows 0-3, then 4-7 */
		__m256 *q = t + 4 * h;
		u[4 * h + 0] = _mm256_shuffle_ps(q[0], q[2], 0x44);
		u[4 * h + 1] = _mm256_shuffle_ps(q[0], q[2], 0xEE);
		u[4 * h + 2] = _mm256_shuffle_ps(q[1], q[3], 0x44);
		u[4 * h + 3] = _mm256_shuffle_ps(q[1], q[3], 0xEE);
	}
	for (int k = 0; k < 4; k++) {
		r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
		r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
	}
}
static inline void
v2_transpose16(V2 *r)
{
	__m256 b[4][8]; /* rows 0-7 lo, 8-15 lo, 0-7 hi, 8-15 hi */
	for (int j = 0; j < 8; j++) {
		b[0][j] = r[j].lo;
		b[1][j] = r[8 + j].lo;
		b[2][j] = r[j].hi;
		b[3][j] = r[8 + j].hi;
	}
	for (int q = 0; q < 4; q++)
		tr8(b[q]);
	for (int k = 0; k < 8; k++) {
		r[k] = (V2){b[0][k], b[1][k]};
		r[8 + k] = (V2){b[2][k], b[3][k]};
	}
}
#define SFX(x) x##_avx2
#define vtranspose16 v2_transpose16
#define V V2
#define vload v2_load
#define vstore v2_store
#define vset1 v2_set1
#define vzero() v2_set1(0)
#define vadd v2_add
#define vfma v2_fma
#define vsum v2_sum
#define vload_h v2_load_h
#define vload_bh v2_load_bh
#define vstore_h v2_store_h
#define vstore_bh v2_store_bh
#define vload_q8 v2_load_q8
#define vmul v2_mul
#define MR 6
#define NV 1
#define ISA_KC 256
#define ISA_MC 144
#define ISA_NC 1024
#define ISA_BT_PAR_M BT_MAX_M
#define ISA_BT_PAR_X INT64_MAX
/* 16 ymm hold M = 1's accumulators and partial sums for two rows, and M
 * > 1's for one: the int8 GEMV is bound by its vector operations, and
 * GEMV_ROWS's, spilled, took 1.5x (M = 1) to 2.7x (M = 3) as long (groups
 * of a multiple of 32 take gemv_q8_g32 instead) */
#define Q8_ROWS(M) ((M) == 1 ? 2 : 1)
/* groups of 32 unrolled: 0.96-0.99x at M = 1 (groups of 32 now take
 * gemv_q8_g32) */
#define Q8_GS32_M 0
#define GEMV_BHP 1
#define vload_bhp v2_load_bhp
#define GEMV_Q8_G32 1
#include "gemm_isa.h"
#undef SFX
#undef V
#undef vload
#undef vstore
#undef vset1
#undef vzero
#undef vadd
#undef vfma
#undef vsum
#undef vload_h
#undef vload_bh
#undef vstore_h
#undef vstore_bh
#undef vload_q8
#undef vmul
#undef vtranspose16
#undef MR
#undef NV
#undef ISA_KC
#undef ISA_MC
#undef ISA_NC
#undef ISA_BT_PAR_M
#undef ISA_BT_PAR_X
#undef Q8_ROWS
#undef Q8_GS32_M
#undef GEMV_BHP
#undef GEMV_Q8_G32
#undef vload_bhp
#pragma GCC pop_options

/* AVX-512F: a V is one zmm. */
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma,f16c")
static inline __m512
v5_load_bh(const uint16_t *p)
{
	__m512i x = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
	return _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
}
static inline void
v5_store_h(uint16_t *p, __m512 v)
{
	_mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
/* 16 f32 to bf16, rounded to nearest even (f32_to_bf16's rule). */
static inline void
v5_store_bh(uint16_t *p, __m512 v)
{
	__m512i u = _mm512_castps_si512(v), hi = _mm512_srli_epi32(u, 16);
	__m512i odd = _mm512_and_si512(hi, _mm512_set1_epi32(1));
	__m512i r = _mm512_srli_epi32(
		_mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), odd)), 16);
	__mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
	r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
	_mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(r));
}
static inline void
v5_transpose16(__m512 *r)
{
	__m512 t[16], u[16];
	for (int i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	for (int g = 0; g < 4; g++) { /* rows 4g .. 4g+3 */
		__m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
		__m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
		u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
		u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
		u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
		u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
	}
	for (int k = 0; k < 4; k++) { /* columns k, 4+k, 8+k, 12+k */
		__m512 P = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
		__m512 Q = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xdd);
		__m512 R = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
		__m512 S = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xdd);
		r[k] = _mm512_shuffle_f32x4(P, R, 0x88);
		r[8 + k] = _mm512_shuffle_f32x4(P, R, 0xdd);
		r[4 + k] = _mm512_shuffle_f32x4(Q, S, 0x88);
		r[12 + k] = _mm512_shuffle_f32x4(Q, S, 0xdd);
	}
}
#define SFX(x) x##_avx512
#define vtranspose16 v5_transpose16
#define V __m512
#define vload _mm512_loadu_ps
#define vstore _mm512_storeu_ps
#define vset1 _mm512_set1_ps
#define vzero _mm512_setzero_ps
#define vadd _mm512_add_ps
#define vfma _mm512_fmadd_ps
#define vsum _mm512_reduce_add_ps
#define vload_h(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define vload_bh v5_load_bh
#define vstore_h v5_store_h
#define vstore_bh v5_store_bh
#define vload_q8(p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define vmul _mm512_mul_ps
#define MR 12
#define NV 2
#define ISA_KC 256
#define ISA_MC 192
#define ISA_NC 2048
#define ISA_BT_PAR_M 64
#define ISA_BT_PAR_X (1 << 20) /* a Zen 4 or Zen 5 core's L2 */
#define Q8_ROWS(M) GEMV_ROWS(M)
/* groups of 32 unrolled: 1.04-1.20x at M = 1..3 on Zen 5, 0.92x at M = 4 */
#define Q8_GS32_M 3
#define GEMV_BHP 0
#define GEMV_Q8_G32 0
#include "gemm_isa.h"
#undef SFX
#undef V
#undef vload
#undef vstore
#undef vset1
#undef vzero
#undef vadd
#undef vfma
#undef vsum
#undef vload_h
#undef vload_bh
#undef vstore_h
#undef vstore_bh
#undef vload_q8
#undef vmul
#undef vtranspose16
#undef MR
#undef NV
#undef ISA_KC
#undef ISA_MC
#undef ISA_NC
#undef ISA_BT_PAR_M
#undef ISA_BT_PAR_X
#undef Q8_ROWS
#undef Q8_GS32_M
#undef GEMV_BHP
#undef GEMV_Q8_G32
#pragma GCC pop_options
#endif

static const GemmIsa *
isa_of(int64_t isa)
{
#if defined(__x86_64__)
	if (isa == GEMM_ISA_AVX512)
		return &isa_avx512;
	if (isa == GEMM_ISA_AVX2)
		return &isa_avx2;
#endif
	return &isa_generic;
}

void
gemm_tile(int isa, int *mr, int *nr)
{
	const GemmIsa *k = isa_of(isa);
	*mr = k->mr;
	*nr = k->nr;
}

/* ------------------------------------------------------------ driver */

/* One call of rlx_gemm. */
typedef struct {
	const RtGemm *g;
	const GemmIsa *k;
	ThreadPool *pool;
	int64_t nbatch;
	float *c;          /* f32 result (g->c, or scratch when it is not f32) */
	/* the current batch and block */
	const void *a, *b; /* the batch's operands */
	const float *bsc;  /* the batch's b scales (RT_GEMM_Q8) */
	float *cb;         /* the batch's result */
	int64_t jc, nc, pc, kc;
	float *bp;         /* the packed b block */
	/* threads: column groups gw columns wide, row groups of rgb row blocks */
	int64_t gw, ngrp, rgb, nrg;
	/* per-thread packed a and b blocks, slots taken with an atomic flag */
	int nslots;
	float *scratch;
	atomic_flag *busy;
	float *xt;         /* x @ w.T read in place: x's panels */
	/* GEMV: columns per item; or, split along K, rows of b per item
	 * and the items' partial results (krows 0: not split) */
	int64_t cols, krows;
	float *part;
} Gemm;

/* The batch offsets of a and b (elements) for c's batch bt. */
static void
batch_offsets(const RtGemm *g, int64_t bt, int64_t *ao, int64_t *bo)
{
	*ao = *bo = 0;
	for (int64_t j = g->nb - 1; j >= 0; j--) {
		int64_t x = bt % g->bdim[j];
		bt /= g->bdim[j];
		*ao += x * g->as[j];
		*bo += x * g->bs[j];
	}
}

static int64_t
elem_size(int64_t dt)
{
	return dt == RT_GEMM_F32 ? 4 : dt == RT_GEMM_Q8 ? 1 : 2;
}

static const void *
elem_ptr(const void *p, int64_t dt, int64_t i)
{
	return (const char *)p + i * elem_size(dt);
}

/* The group scales of b from element bo of b on (RT_GEMM_Q8). */
static const float *
scale_ptr(const RtGemm *g, int64_t bo)
{
	return g->bdt == RT_GEMM_Q8 ? g->bscale + bo / g->bgroup : NULL;
}

/* A free slot of scratch (there is one per thread that can be running). */
static int
take_slot(Gemm *s)
{
	for (;;)
		for (int i = 0; i < s->nslots; i++)
			if (!atomic_flag_test_and_set(&s->busy[i]))
				return i;
}

/*
 * The cache lines that packing the b panel of columns j .. j+w (rows
 * s->pc .. +kc of b read as [K, N]) reads, for the micro-kernels of the
 * panel before to prefetch into L2 among nq calls: the weights' first
 * read from memory overlaps the arithmetic instead of stalling the pack.
 */
static GemmPf
panel_lines(const Gemm *s, int64_t j, int64_t w, int64_t nq)
{
	const RtGemm *g = s->g;
	int64_t es = elem_size(g->bdt);
	/* transb: w rows of kc elements; else kc rows of w elements */
	int64_t rows = g->transb ? w : s->kc, len = (g->transb ? s->kc : w) * es;
	int64_t at = g->transb ? j * g->K + s->pc : s->pc * g->N + j;
	const char *p = (const char *)s->b + at * es;
	/* whole lines from the one holding the row's start */
	int64_t mis = (int64_t)((uintptr_t)p & 63);
	int64_t per = (len + mis + 63) / 64;
	int64_t n = (rows * per + nq - 1) / nq, gap = n ? s->kc / n : 1;
	return (GemmPf){.p = p - mis, .n = n, .gap = gap > 0 ? gap : 1,
			.row = (g->transb ? g->K : g->N) * es, .len = per * 64};
}

/*
 * c[i0 .. i0+mc, jc + panels p0 .. p1) from the packed a block ap and the
 * packed b block s->bp: every MR x NR tile by the micro-kernel, edge tiles
 * through a scratch tile; added to c after the first kc block. With
 * pack, each b panel is packed here just before its first use (the first
 * row block), the next one's weights prefetched meanwhile.
 */
static void
macro_kernel(const Gemm *s, float *c, const float *ap, int64_t i0, int64_t mc,
	     int64_t p0, int64_t p1, bool pack)
{
	const GemmIsa *k = s->k;
	const RtGemm *g = s->g;
	int mr = k->mr, nr = k->nr, add = s->pc > 0;
	int64_t kc = s->kc, jc = s->jc, nc = s->nc, N = g->N;
	int64_t nq = (mc + mr - 1) / mr;
	float tile[16 * 64];
	for (int64_t p = p0; p < p1; p++) {
		int64_t j = jc + p * nr, w = nc - p * nr < nr ? nc - p * nr : nr;
		float *bpp = s->bp + p * kc * nr;
		GemmPf pf = {0}, *pfp = NULL;
		int64_t quota = 0;
		if (pack && p + 1 < p1) {
			int64_t wn = nc - (p + 1) * nr < nr ? nc - (p + 1) * nr : nr;
			pf = panel_lines(s, j + nr, wn, nq);
			quota = pf.n;
			pfp = &pf;
		}
		if (pack)
			k->pack_b(s->b, (int)g->bdt, s->bsc, g->bgroup, (int)g->transb,
				  g->K, N, s->pc, kc, j, w, bpp);
		for (int64_t q = 0; q < nq; q++) {
			int64_t i = i0 + q * mr, h = mc - q * mr < mr ? mc - q * mr : mr;
			const float *app = ap + q * kc * mr;
			float *cp = c + i * N + j;
			pf.n = quota;
			if (h == mr && w == nr) {
				k->uk(kc, app, bpp, cp, N, add, pfp);
				continue;
			}
			k->uk(kc, app, bpp, tile, nr, 0, pfp);
			for (int64_t r = 0; r < h; r++)
				for (int64_t x = 0; x < w; x++)
					cp[r * N + x] = add ? cp[r * N + x] + tile[r * nr + x]
							    : tile[r * nr + x];
		}
	}
}

/* One batch on the calling thread: the whole blocked loop nest (s is
 * this thread's copy). */
static void
gemm_serial(Gemm *s, const void *a, const void *b, const float *bsc, float *c,
	    float *ap, float *bp)
{
	const RtGemm *g = s->g;
	const GemmIsa *k = s->k;
	s->b = b;
	s->bsc = bsc;
	s->bp = bp;
	for (int64_t jc = 0; jc < g->N; jc += k->nc) {
		s->jc = jc;
		s->nc = g->N - jc < k->nc ? g->N - jc : k->nc;
		int64_t npan = (s->nc + k->nr - 1) / k->nr;
		for (int64_t pc = 0; pc < g->K; pc += k->kc) {
			s->pc = pc;
			s->kc = g->K - pc < k->kc ? g->K - pc : k->kc;
			for (int64_t ic = 0; ic < g->M; ic += k->mc) {
				int64_t mc = g->M - ic < k->mc ? g->M - ic : k->mc;
				k->pack_a(a, (int)g->adt, g->K, ic, mc, pc, s->kc, ap);
				macro_kernel(s, c, ap, ic, mc, 0, npan, ic == 0);
			}
		}
	}
}

static size_t
abuf_floats(const GemmIsa *k)
{
	return (size_t)(k->mc + k->mr) * (size_t)k->kc;
}

static size_t
bbuf_floats(const GemmIsa *k)
{
	return (size_t)(k->nc + k->nr) * (size_t)k->kc;
}

/* n floats, 64-byte aligned, freed by ffree(p, n): huge pages from
 * RT_HUGE_MIN bytes on (a call's f32 result or widened a is filled once,
 * and faulting it in 4 KiB at a time costs more than filling it). */
static float *
falloc(size_t n)
{
	return rt_buf_alloc(n * sizeof(float));
}

static void
ffree(float *p, size_t n)
{
	rt_buf_free(p, n * sizeof(float));
}

/* Slot i's packed a block and packed b block. */
static float *
slot_a(const Gemm *s, int i)
{
	return s->scratch + (size_t)i * (abuf_floats(s->k) + bbuf_floats(s->k));
}

static float *
slot_b(const Gemm *s, int i)
{
	return slot_a(s, i) + abuf_floats(s->k);
}

/* ThreadPool item: whole batches lo .. hi, each on this thread. */
static void
batches_fn(void *ctx, int64_t lo, int64_t hi)
{
	Gemm *sh = ctx, s = *sh;
	const RtGemm *g = s.g;
	int slot = take_slot(sh);
	for (int64_t bt = lo; bt < hi; bt++) {
		int64_t ao, bo;
		batch_offsets(g, bt, &ao, &bo);
		gemm_serial(&s, elem_ptr(g->a, g->adt, ao), elem_ptr(g->b, g->bdt, bo),
			    scale_ptr(g, bo), s.c + bt * g->M * g->N, slot_a(sh, slot),
			    slot_b(sh, slot));
	}
	atomic_flag_clear(&sh->busy[slot]);
}

/*
 * ThreadPool item: (column group, row group) items lo .. hi of the batch. Each
 * packs its own b panels, one KC block at a time, and runs its row blocks
 * over them, packing each block of a: its b block stays in this core's
 * L2, and no item waits for another.
 */
static void
tile_fn(void *ctx, int64_t lo, int64_t hi)
{
	Gemm *sh = ctx, s = *sh;
	const RtGemm *g = s.g;
	const GemmIsa *k = s.k;
	int slot = take_slot(sh);
	float *ap = slot_a(sh, slot);
	s.bp = slot_b(sh, slot);
	int64_t nmb = (g->M + k->mc - 1) / k->mc;
	for (int64_t it = lo; it < hi; it++) {
		int64_t gr = it / sh->nrg, rg = it % sh->nrg;
		int64_t ib0 = rg * sh->rgb, ib1 = ib0 + sh->rgb < nmb ? ib0 + sh->rgb : nmb;
		s.jc = gr * sh->gw;
		s.nc = g->N - s.jc < sh->gw ? g->N - s.jc : sh->gw;
		int64_t npan = (s.nc + k->nr - 1) / k->nr;
		for (s.pc = 0; s.pc < g->K; s.pc += k->kc) {
			s.kc = g->K - s.pc < k->kc ? g->K - s.pc : k->kc;
			for (int64_t ib = ib0; ib < ib1; ib++) {
				int64_t ic = ib * k->mc, mc = g->M - ic < k->mc ? g->M - ic : k->mc;
				k->pack_a(s.a, (int)g->adt, g->K, ic, mc, s.pc, s.kc, ap);
				macro_kernel(&s, s.cb, ap, ic, mc, 0, npan, ib == ib0);
			}
		}
	}
	atomic_flag_clear(&sh->busy[slot]);
}

/*
 * One batch across the pool, in (column group, row group) items: column
 * groups at most NC wide, 2 x threads many where the columns allow, and up
 * to 4 x threads many while they stay GROUP_MIN_COLS wide; row groups
 * split the rows only when the column groups are too few (each row group
 * packs the b panels again). More items than threads let a thread that
 * runs slower (its core shared) take fewer of them; each column group
 * packs all of a again, so they are not made narrower than that.
 */
static void
gemm_parallel(Gemm *s, const void *a, const void *b, const float *bsc, float *c)
{
	const RtGemm *g = s->g;
	const GemmIsa *k = s->k;
	int64_t T = tpool_size(s->pool);
	s->a = a;
	s->b = b;
	s->bsc = bsc;
	s->cb = c;
	int64_t nmb = (g->M + k->mc - 1) / k->mc, npan = (g->N + k->nr - 1) / k->nr;
	int64_t ngrp = (g->N + k->nc - 1) / k->nc;
	if (ngrp < 2 * T)
		ngrp = 2 * T < npan ? 2 * T : npan;
	int64_t fine = g->N / GROUP_MIN_COLS < 4 * T ? g->N / GROUP_MIN_COLS : 4 * T;
	if (ngrp < fine)
		ngrp = fine;
	s->gw = (npan + ngrp - 1) / ngrp * k->nr;
	s->ngrp = (g->N + s->gw - 1) / s->gw;
	int64_t nrg = (2 * T + s->ngrp - 1) / s->ngrp;
	s->rgb = (nmb + nrg - 1) / nrg;
	s->nrg = (nmb + s->rgb - 1) / s->rgb;
	tpool_run(s->pool, s, s->ngrp * s->nrg, tile_fn);
}

/* ThreadPool item: tiles lo .. hi of MR rows of the batch's w (s->b) against
 * every panel of x in s->xt; 16-bit and int8 w widened a tile at a time
 * (widen_rows) into a block of this item's. */
static void
bt_fn(void *ctx, int64_t lo, int64_t hi)
{
	const Gemm *s = ctx;
	const RtGemm *g = s->g;
	const GemmIsa *k = s->k;
	int64_t M = g->M, N = g->N, K = g->K, mr = k->mr, nr = k->nr;
	float *wt = NULL;
	if (g->bdt != RT_GEMM_F32 && !(wt = falloc((size_t)(mr * K))))
		return; /* out of memory: the executor's own allocations fail first */
	for (int64_t t = lo; t < hi; t++) {
		int64_t n0 = t * mr;
		int h = (int)(N - n0 < mr ? N - n0 : mr);
		const float *w = (const float *)s->b + n0 * K;
		if (wt) {
			k->widen_rows(s->b, (int)g->bdt, s->bsc, g->bgroup, n0, h, K, wt);
			w = wt;
		}
		for (int64_t m0 = 0; m0 < M; m0 += nr)
			k->uk_bt(s->xt + m0 * K, w, K, h, s->cb + m0 * N + n0,
				 N, (int)(M - m0 < nr ? M - m0 : nr));
	}
	ffree(wt, (size_t)(mr * K));
}

/*
 * One batch of a skinny x @ w.T: x transposed into panels of NR rows in
 * s->xt (pack_xt, on the calling thread; cheap, M is small), then the
 * tiles of MR rows of w, straight from w (f32) or widened a tile at a
 * time (16-bit, int8), against each panel (uk_bt), split across p's
 * threads. At these M packing w, as the blocked GEMM does, costs more
 * than its reuse saves (docs/architecture.md).
 */
static void
gemm_bt(Gemm *s, ThreadPool *p, const void *a, const void *w, const float *ws, float *c)
{
	const RtGemm *g = s->g;
	const GemmIsa *k = s->k;
	int64_t np = (g->M + k->nr - 1) / k->nr;
	for (int64_t i = 0; i < np; i++)
		k->pack_xt(a, (int)g->adt, g->M, g->K, i, s->xt);
	s->b = w;
	s->bsc = ws;
	s->cb = c;
	tpool_run(p, s, (g->N + k->mr - 1) / k->mr, bt_fn);
}

/* Whether x @ w.T goes through gemm_bt: w f32, 16-bit or int8 in groups
 * of a multiple of 16 (widen_rows' vectors), M up to BT_MAX_M filling
 * 3/4 of its panels' lanes, on one thread or, for one batch, on more when
 * M and x (M x K f32) are within the ISA's bt_par_m and bt_par_x. Paired
 * against the blocked GEMM on two threads (docs/perf.md): the
 * AVX2 kernels 1.13-1.55x at every such M on a Zen 4 VM (no limit); the
 * AVX-512 ones 0.85-1.05x there at M = 128 and 1.00-1.06x on a Zen 5 VM,
 * but 1.03-1.50x on that Zen 5 at M <= 64 with x of up to 1 MiB (M = 48:
 * 0.95x). Batches on more threads stay blocked: it runs them side by
 * side, and gemm_bt would run them one after another (not measured). */
static bool
bt_fits(const Gemm *s, int T)
{
	const RtGemm *g = s->g;
	int64_t nr = s->k->nr, mp = (g->M + nr - 1) / nr * nr;
	bool par = s->nbatch == 1 && g->M <= s->k->bt_par_m &&
		   g->M * g->K * (int64_t)sizeof(float) <= s->k->bt_par_x;
	return (T == 1 || par) && g->transb &&
	       (g->bdt != RT_GEMM_Q8 || g->bgroup % 16 == 0) && g->M <= BT_MAX_M &&
	       4 * g->M >= 3 * mp;
}

/* Every batch through gemm_bt, x's panels in the pool's scratch; false
 * when that cannot be had (nothing ran). */
static bool
bt_all(Gemm *s, ThreadPool *p)
{
	const RtGemm *g = s->g;
	int64_t nr = s->k->nr;
	size_t bytes = (size_t)((g->M + nr - 1) / nr * nr * g->K) * sizeof(float);
	float *xt = tpool_scratch_take(s->pool, &bytes);
	if (!xt)
		return false;
	s->xt = xt;
	for (int64_t bt = 0; bt < s->nbatch; bt++) {
		int64_t ao, bo;
		batch_offsets(g, bt, &ao, &bo);
		gemm_bt(s, p, elem_ptr(g->a, g->adt, ao), elem_ptr(g->b, g->bdt, bo),
			scale_ptr(g, bo), s->c + bt * g->M * g->N);
	}
	tpool_scratch_give(s->pool, xt, bytes);
	return true;
}

/* ThreadPool item: GEMV items lo .. hi (batch, column range). */
static void
gemv_fn(void *ctx, int64_t lo, int64_t hi)
{
	Gemm *s = ctx;
	const RtGemm *g = s->g;
	int64_t M = g->M, K = g->K, N = g->N;
	float *abuf = g->adt == RT_GEMM_F32 ? NULL : falloc((size_t)(M * K) + 16);
	if (g->adt != RT_GEMM_F32 && !abuf)
		return; /* out of memory: the executor's own allocations fail first */
	int64_t per = (N + s->cols - 1) / s->cols;
	for (int64_t it = lo; it < hi; it++) {
		int64_t bt = it / per, j0 = it % per * s->cols;
		int64_t j1 = j0 + s->cols < N ? j0 + s->cols : N;
		int64_t ao, bo;
		batch_offsets(g, bt, &ao, &bo);
		const float *a = (const float *)g->a + ao;
		if (abuf) {
			for (int64_t i = 0; i < M * K; i++)
				abuf[i] = gemm_ld(g->a, (int)g->adt, ao + i);
			a = abuf;
		}
		s->k->gemv((int)M, (int)g->bdt, scale_ptr(g, bo), g->bgroup,
			   (int)g->transb, K, N, a,
			   elem_ptr(g->b, g->bdt, bo), s->c + bt * M * N, N, j0, j1);
	}
	ffree(abuf, (size_t)(M * K) + 16);
}

/* ThreadPool item: x [1, K] @ b [K, N] over rows it * krows .. of b, a
 * contiguous block of it, into item it's partial result (item 0's is c
 * itself; gemv_split adds the others). */
static void
gemv_k_fn(void *ctx, int64_t lo, int64_t hi)
{
	Gemm *s = ctx;
	const RtGemm *g = s->g;
	for (int64_t it = lo; it < hi; it++) {
		int64_t k0 = it * s->krows;
		int64_t k1 = k0 + s->krows < g->K ? k0 + s->krows : g->K;
		float *y = it ? s->part + (it - 1) * g->N : s->c;
		s->k->gemv(1, (int)g->bdt, NULL, 0, 0, k1 - k0, g->N,
			   (const float *)g->a + k0, elem_ptr(g->b, g->bdt, k0 * g->N),
			   y, g->N, 0, g->N);
	}
}

/*
 * x [1, K] @ b [K, N] on T threads, split along K: with the columns split
 * instead, each thread reads a few KiB of every row of b, rows N apart,
 * and on a Zen 2 VM two threads streamed 0.73x as fast as OpenBLAS's;
 * a block of whole rows each is one contiguous stream per thread. The
 * partial results (N floats each) are added after. False (nothing done)
 * when its scratch cannot be had.
 */
static bool
gemv_split(Gemm *s, ThreadPool *p, int T)
{
	const RtGemm *g = s->g;
	int64_t items = T, N = g->N;
	s->krows = (g->K + items - 1) / items;
	items = (g->K + s->krows - 1) / s->krows;
	size_t bytes = (size_t)((items - 1) * N) * sizeof(float);
	s->part = tpool_scratch_take(p, &bytes);
	if (!s->part)
		return false;
	tpool_run(p, s, items, gemv_k_fn);
	for (int64_t it = 1; it < items; it++)
		for (int64_t j = 0; j < N; j++)
			s->c[j] += s->part[(it - 1) * N + j];
	tpool_scratch_give(p, s->part, bytes);
	return true;
}

/* ThreadPool item: converts the f32 scratch result into c, elements lo .. hi. */
static void
convert_fn(void *ctx, int64_t lo, int64_t hi)
{
	Gemm *s = ctx;
	s->k->narrow(s->c, (int)s->g->cdt, s->g->c, lo, hi);
}

void
rlx_gemm(void *pool, int64_t isa, const RtGemm *g)
{
	Gemm s = {.g = g, .k = isa_of(isa), .pool = pool, .nbatch = 1};
	for (int64_t j = 0; j < g->nb; j++)
		s.nbatch *= g->bdim[j];
	int64_t M = g->M, N = g->N, K = g->K;
	int64_t total = s.nbatch * M * N;
	if (total <= 0)
		return;
	/* a 16-bit c: the f32 result first, in scratch the pool keeps */
	size_t cbytes = (size_t)total * sizeof(float);
	s.c = g->cdt == RT_GEMM_F32 ? g->c : tpool_scratch_take(pool, &cbytes);
	if (!s.c)
		return; /* out of memory: the executor's own allocations fail first */
	double work = (double)total * (double)K;
	ThreadPool *p = work >= PAR_WORK ? pool : NULL;
	int T = tpool_size(p);
	if (K == 0) {
		memset(s.c, 0, (size_t)total * sizeof(float));
	} else if (M == 1 && T > 1 && s.nbatch == 1 && !g->transb &&
		   g->adt == RT_GEMM_F32 && g->bdt != RT_GEMM_Q8 &&
		   K >= GEMV_SPLIT_K * T && gemv_split(&s, p, T)) {
		/* done: split along K */
	} else if (M <= GEMV_MAX_M) {
		/* columns in items of at least GEMV_COLS, a few per thread */
		int64_t per = (N + GEMV_COLS - 1) / GEMV_COLS;
		int64_t want = (4 * T + s.nbatch - 1) / s.nbatch;
		if (per > want)
			per = want;
		if (per < 1)
			per = 1;
		s.cols = (N + per - 1) / per;
		s.cols = (s.cols + 15) / 16 * 16;
		if (T == 1 && !g->transb)
			s.cols = N; /* b [K, N]: whole rows, one stream */
		per = (N + s.cols - 1) / s.cols;
		tpool_run(p, &s, s.nbatch * per, gemv_fn);
	} else if (bt_fits(&s, T) && bt_all(&s, p)) {
		/* done: x @ w.T with w read in place */
	} else {
		/* a slot of scratch per thread: packed a and b blocks (the
		 * pool keeps it, also for the small products that run serially) */
		s.nslots = T < MAX_SLOTS ? T : MAX_SLOTS;
		size_t bytes = (size_t)s.nslots * (abuf_floats(s.k) + bbuf_floats(s.k)) * sizeof(float);
		s.scratch = tpool_scratch_take(pool, &bytes);
		s.busy = calloc((size_t)s.nslots, sizeof *s.busy);
		if (s.scratch && s.busy) {
			for (int i = 0; i < s.nslots; i++)
				atomic_flag_clear(&s.busy[i]);
			if (T == 1 || (s.nbatch >= T && M * N * K <= SMALL_BATCH) ||
			    s.nbatch >= 4 * T)
				tpool_run(p, &s, s.nbatch, batches_fn);
			else
				for (int64_t bt = 0; bt < s.nbatch; bt++) {
					int64_t ao, bo;
					batch_offsets(g, bt, &ao, &bo);
					gemm_parallel(&s, elem_ptr(g->a, g->adt, ao),
						      elem_ptr(g->b, g->bdt, bo), scale_ptr(g, bo),
						      s.c + bt * M * N);
				}
		}
		tpool_scratch_give(pool, s.scratch, bytes);
		free(s.busy);
	}
	if (s.c != g->c) {
		tpool_run(total >= PAR_WORK ? pool : NULL, &s, total, convert_fn);
		tpool_scratch_give(pool, s.c, cbytes);
	}
}
