/*
 * gemm_isa.h — the kernels of runtime/kernels/gemm.c for one instruction set.
 * gemm.c includes it once per ISA, after defining:
 *
 *   SFX(x)         the ISA's suffix on every name (x##_avx512, ...)
 *   V              16 f32 lanes (one zmm, two ymm, or a generic vector)
 *   vload(p) vstore(p, v) vset1(x) vzero() vadd(a, b) vsum(v)
 *   vfma(a, b, c)  a * b + c
 *   vload_h(p)     16 f16 at p as V (F16C where there is one)
 *   vload_bh(p)    16 bf16 at p as V
 *   vstore_h(p, v) vstore_bh(p, v)  v as 16 f16 / bf16 at p, rounded to
 *                  nearest even
 *   GEMV_BHP       1 when vload_bhp(p) takes 16 bf16 at p as V in the
 *                  order 0, 2, .., 14, 1, 3, .., 15 in fewer operations
 *   vload_q8(p)    16 int8 at p as V
 *   vmul(a, b)     a * b
 *   vtranspose16(r) r[0..16) rows to r[0..16) columns (a 16 x 16 transpose)
 *   MR, NV         the micro-kernel tile: MR rows x 16*NV columns
 *   Q8_ROWS(M)     rows of int8 b an int8 GEMV takes at a time for M
 *                  rows of a
 *   GEMV_Q8_G32    1 when the ISA has its own int8 GEMV for groups of a
 *                  multiple of 32: gemv_q8_g32(M, K, gs, a, q, s, y, ldy,
 *                  j0, j1), y[m, j] for m < M <= 8, j0 <= j < j1
 *   Q8_GS32_M      the largest M for which the int8 GEMV has its own copy
 *                  for groups of 32 (0: none; measured per ISA)
 *   ISA_KC ISA_MC ISA_NC  the cache blocks (KC a multiple of 16, MC of
 *                  every MR, NC of every NR)
 *   ISA_BT_PAR_M ISA_BT_PAR_X  the largest M and bytes of x (M x K
 *                  f32) with which a skinny x @ w.T reads w in place
 *                  (uk_bt) also on more than one thread (measured faster
 *                  than the blocked GEMM there; gemm.c's bt_fits)
 *
 * Everything here is static; gemm.c reaches it through a table of
 * function pointers (GemmIsa).
 */

#define NR (16 * NV)

/* 16 elements of dtype dt (RT_GEMM_*) at element i of p, as f32. */
static inline __attribute__((always_inline)) V
SFX(vload_dt)(const void *p, int dt, int64_t i)
{
	if (dt == RT_GEMM_F16)
		return vload_h((const uint16_t *)p + i);
	if (dt == RT_GEMM_BF16)
		return vload_bh((const uint16_t *)p + i);
#if GEMV_BHP
	if (dt == GEMV_BF16_PAIRS)
		return vload_bhp((const uint16_t *)p + i);
#endif
	return vload((const float *)p + i);
}

/* 16 weights of b at element i as f32 (b of dtype dt; RT_GEMM_Q8 b: each
 * q[i] * s[i / gs], the 16 in one group when gs % 16 == 0 and i % 16 ==
 * 0, as every caller's i is). */
static inline __attribute__((always_inline)) V
SFX(vload_b)(const void *p, int dt, const float *s, int64_t gs, int64_t i)
{
	if (dt != RT_GEMM_Q8)
		return SFX(vload_dt)(p, dt, i);
	if (gs % 16 == 0)
		return vmul(vload_q8((const int8_t *)p + i), vset1(s[i / gs]));
	float t[16];
	for (int l = 0; l < 16; l++)
		t[l] = b_ld(p, dt, s, gs, i + l);
	return vload(t);
}

/*
 * The micro-kernel: c[r, 0..NR) (+)= sum over kc of ap[k*MR + r] *
 * bp[k*NR + ..] for r < MR, the accumulators in registers. add: add to
 * c instead of storing. pf (may be NULL): lines to prefetch meanwhile,
 * one every pf->gap steps.
 */
static void
SFX(uk)(int64_t kc, const float *restrict ap, const float *restrict bp,
	float *restrict c, int64_t ldc, int add, GemmPf *pf)
{
	V acc[MR][NV];
	for (int r = 0; r < MR; r++)
		for (int v = 0; v < NV; v++)
			acc[r][v] = vzero();
	/* every line of the c tile (a row of NV vectors spans NV lines):
	 * prefetching only each row's first left the other half of an
	 * AVX-512 tile's stores to miss at the end */
	for (int r = 0; r < MR; r++)
		for (int v = 0; v < NV; v++)
			__builtin_prefetch(c + r * ldc + 16 * v, 1);
	const char *pp = NULL;
	int64_t pn = 0, gap = 1, row = 0, len = 0, off = 0, cd = 1;
	if (pf) {
		pp = pf->p;
		pn = pf->n;
		gap = pf->gap;
		row = pf->row;
		len = pf->len;
		off = pf->off;
	}
	for (int64_t k = 0; k < kc; k++) {
		if (pn > 0 && --cd == 0) {
			__builtin_prefetch(pp + off, 0, 2);
			cd = gap;
			pn--;
			if ((off += 64) >= len) {
				off = 0;
				pp += row;
			}
		}
		V b[NV];
		for (int v = 0; v < NV; v++)
			b[v] = vload(bp + 16 * v);
		for (int r = 0; r < MR; r++) {
			V a = vset1(ap[r]);
			for (int v = 0; v < NV; v++)
				acc[r][v] = vfma(a, b[v], acc[r][v]);
		}
		ap += MR;
		bp += NR;
	}
	if (pf) {
		pf->p = pp;
		pf->off = off;
	}
	if (add) {
		for (int r = 0; r < MR; r++)
			for (int v = 0; v < NV; v++)
				vstore(c + r * ldc + 16 * v,
				       vadd(vload(c + r * ldc + 16 * v), acc[r][v]));
	} else {
		for (int r = 0; r < MR; r++)
			for (int v = 0; v < NV; v++)
				vstore(c + r * ldc + 16 * v, acc[r][v]);
	}
}

/*
 * Packs rows i0 .. i0+mc, columns k0 .. k0+kc of a [M, K] (dtype dt) into
 * panels of MR rows (rows past mc zero): 16 x 16 transposes, each column
 * stored whole so that the next overwrites its lanes past MR (the last
 * one's spill lands in the next panel, written after, or in the slack of
 * MR rows the buffer has past its panels).
 */
static void
SFX(pack_a)(const void *a, int dt, int64_t K, int64_t i0, int64_t mc,
	    int64_t k0, int64_t kc, float *ap)
{
	for (int64_t p = 0; p * MR < mc; p++) {
		float *d = ap + p * kc * MR;
		int64_t ip = i0 + p * MR, h = mc - p * MR < MR ? mc - p * MR : MR;
		int64_t k = 0;
		for (; k + 16 <= kc; k += 16) {
			V r[16];
			for (int j = 0; j < 16; j++)
				r[j] = j < h ? SFX(vload_dt)(a, dt, (ip + j) * K + k0 + k)
					     : vzero();
			vtranspose16(r);
			for (int x = 0; x < 16; x++)
				vstore(d + (k + x) * MR, r[x]);
		}
		for (; k < kc; k++)
			for (int j = 0; j < MR; j++)
				d[k * MR + j] = j < h ? gemm_ld(a, dt, (ip + j) * K + k0 + k)
						      : 0.0f;
	}
}

/* Converts 16 elements of row j (k0 .. k0+16) of b [N, K] for the 16
 * rows j0 .. j0+16 into d[k * NR + j - j0] (a 16 x 16 transpose); rows
 * from j0 + h on are zero. */
static void
SFX(pack_bt16)(const void *b, int dt, const float *s, int64_t gs, int64_t K,
	       int64_t j0, int64_t h, int64_t k0, float *d)
{
	V r[16];
	for (int j = 0; j < 16; j++)
		r[j] = j < h ? SFX(vload_b)(b, dt, s, gs, (j0 + j) * K + k0) : vzero();
	vtranspose16(r);
	for (int k = 0; k < 16; k++)
		vstore(d + k * NR, r[k]);
}

/*
 * Packs b's rows k0 .. k0+kc and columns j0 .. j0+nc (of b read as
 * [K, N]; with transb b is stored [N, K]) into panels of NR columns:
 * panel p holds kc rows of NR values, columns past nc zero.
 */
static void
SFX(pack_b)(const void *b, int dt, const float *s, int64_t gs, int transb,
	    int64_t K, int64_t N, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
	    float *bp)
{
	for (int64_t p = 0; p * NR < nc; p++) {
		float *d = bp + p * kc * NR;
		int64_t jp = j0 + p * NR, w = nc - p * NR < NR ? nc - p * NR : NR;
		if (!transb && w == NR && dt != RT_GEMM_Q8) {
			for (int64_t k = 0; k < kc; k++)
				for (int v = 0; v < NV; v++)
					vstore(d + k * NR + 16 * v,
					       SFX(vload_dt)(b, dt, (k0 + k) * N + jp + 16 * v));
			continue;
		}
		if (transb && w == NR) {
			int64_t k = 0;
			for (; k + 16 <= kc; k += 16)
				for (int v = 0; v < NV; v++)
					SFX(pack_bt16)(b, dt, s, gs, K, jp + 16 * v, 16,
						       k0 + k, d + k * NR + 16 * v);
			for (; k < kc; k++)
				for (int j = 0; j < NR; j++)
					d[k * NR + j] = b_ld(b, dt, s, gs, (jp + j) * K + k0 + k);
			continue;
		}
		for (int64_t k = 0; k < kc; k++)
			for (int j = 0; j < NR; j++)
				d[k * NR + j] = j >= w ? 0.0f : b_ld(b, dt, s, gs,
					transb ? (jp + j) * K + k0 + k : (k0 + k) * N + jp + j);
	}
}

/*
 * Prefetches into L2 byte off of each of R rows, row bytes apart from p,
 * when a step of `step` bytes there starts a cache line: called once per
 * step, it asks for each line once. A GEMV streams its weights this way
 * ahead of its loads; the hardware prefetchers alone start over at every
 * 4 KiB page, and a row of 4096 int8 or 16-bit weights is one or two.
 */
static inline __attribute__((always_inline)) void
SFX(prefetch_rows)(const int R, const char *p, int64_t row, int64_t off, int64_t step)
{
	if ((off & 63) >= step)
		return;
	for (int r = 0; r < R; r++)
		__builtin_prefetch(p + r * row + off, 0, 2);
}

/*
 * GEMV rows against b [K, N]: y[m, j] = sum_k a[m, k] * b[k, j] for
 * j0 <= j < j1, m < M. k goes four rows of b at a time over the whole
 * column range (each row a contiguous stream), y staying in L1; the
 * rows GEMV_PF_ROWS further on are prefetched meanwhile.
 */
static inline __attribute__((always_inline)) void
SFX(gemv_n_body)(const int M, const int dt, int64_t K, int64_t N,
		 const float *restrict a, const void *restrict b,
		 float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
	int64_t jv = j0 + (j1 - j0) / 16 * 16, es = dt == RT_GEMM_F32 ? 4 : 2;
	for (int m = 0; m < M; m++)
		for (int64_t j = j0; j < j1; j++)
			y[m * ldy + j] = 0;
	int64_t k = 0;
	for (; k + 4 <= K; k += 4) {
		for (int64_t j = j0; j < jv; j += 16) {
			SFX(prefetch_rows)(4, (const char *)b + (k + GEMV_PF_ROWS) * N * es,
					   N * es, j * es, 16 * es);
			V b0 = SFX(vload_dt)(b, dt, k * N + j);
			V b1 = SFX(vload_dt)(b, dt, (k + 1) * N + j);
			V b2 = SFX(vload_dt)(b, dt, (k + 2) * N + j);
			V b3 = SFX(vload_dt)(b, dt, (k + 3) * N + j);
			for (int m = 0; m < M; m++) {
				const float *am = a + m * K + k;
				float *yp = y + m * ldy + j;
				V s = vfma(vset1(am[0]), b0, vload(yp));
				s = vfma(vset1(am[1]), b1, s);
				s = vfma(vset1(am[2]), b2, s);
				vstore(yp, vfma(vset1(am[3]), b3, s));
			}
		}
		for (int64_t j = jv; j < j1; j++)
			for (int m = 0; m < M; m++)
				for (int t = 0; t < 4; t++)
					y[m * ldy + j] += a[m * K + k + t] *
						gemm_ld(b, dt, (k + t) * N + j);
	}
	for (; k < K; k++)
		for (int64_t j = j0; j < j1; j++)
			for (int m = 0; m < M; m++)
				y[m * ldy + j] += a[m * K + k] * gemm_ld(b, dt, k * N + j);
}

/* R rows j .. j+R of b [N, K] against the M rows of a: y[m, j + r];
 * the next R rows are prefetched meanwhile. */
static inline __attribute__((always_inline)) void
SFX(gemv_t_rows)(const int M, const int R, const int dt, int64_t K,
		 const float *restrict a, const void *restrict b,
		 float *restrict y, int64_t ldy, int64_t j)
{
	const int64_t es = dt == RT_GEMM_F32 ? 4 : 2;
	V acc[8][4];
	for (int m = 0; m < M; m++)
		for (int r = 0; r < R; r++)
			acc[m][r] = vzero();
	int64_t k = 0;
	for (; k + 16 <= K; k += 16) {
		V bv[4];
		SFX(prefetch_rows)(R, (const char *)b + (j + R) * K * es, K * es, k * es, 16 * es);
		for (int r = 0; r < R; r++)
			bv[r] = SFX(vload_dt)(b, dt, (j + r) * K + k);
		for (int m = 0; m < M; m++) {
			V av = vload(a + m * K + k);
			for (int r = 0; r < R; r++)
				acc[m][r] = vfma(av, bv[r], acc[m][r]);
		}
	}
	for (int m = 0; m < M; m++)
		for (int r = 0; r < R; r++) {
			float s = vsum(acc[m][r]);
			const int tdt = dt == GEMV_BF16_PAIRS ? RT_GEMM_BF16 : dt;
			for (int64_t kk = k; kk < K; kk++)
				s += a[m * K + kk] * gemm_ld(b, tdt, (j + r) * K + kk);
			y[m * ldy + j + r] = s;
		}
}

/* GEMV rows against b [N, K] (contiguous weight rows): y[m, j] for
 * j0 <= j < j1, several rows of b at a time. */
static inline __attribute__((always_inline)) void
SFX(gemv_t_body)(const int M, const int dt, int64_t K,
		 const float *restrict a, const void *restrict b,
		 float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
	const int R = GEMV_ROWS(M);
	int64_t j = j0;
	for (; j + R <= j1; j += R)
		SFX(gemv_t_rows)(M, R, dt, K, a, b, y, ldy, j);
	for (; j < j1; j++)
		SFX(gemv_t_rows)(M, 1, dt, K, a, b, y, ldy, j);
}

/* 16 weights at k of the R int8 rows qr against the M rows of a, added
 * to the group sums part (first: the products start them instead); the
 * rows at next are prefetched meanwhile. */
static inline __attribute__((always_inline)) void
SFX(q8_step)(const int M, const int R, const int first, int64_t K,
	     const float *restrict a, const int8_t *const *qr,
	     const int8_t *next, int64_t k, V part[8][4])
{
	V bv[4];
	SFX(prefetch_rows)(R, (const char *)next, K, k, 16);
	for (int r = 0; r < R; r++)
		bv[r] = vload_q8(qr[r] + k);
	for (int m = 0; m < M; m++) {
		V av = vload(a + m * K + k);
		for (int r = 0; r < R; r++)
			part[m][r] = first ? vmul(av, bv[r]) : vfma(av, bv[r], part[m][r]);
	}
}

/*
 * R rows j .. j+R of int8 b [N, K] with group scales s [N, K / gs] (gs a
 * multiple of 16) against the M rows of a: y[m, j + r]. Each 16 weights
 * are widened in registers; a group's products are summed unscaled and
 * multiplied by the group's scale once (one multiply-add per group, not
 * a multiply per 16 weights: the loop is bound by its vector operations,
 * not by the bytes it reads); the next R rows are prefetched meanwhile.
 * At M = 1 a group's first 16 products start its sums (a multiply, not a
 * multiply-add onto zeros copied into each sum: one vector operation
 * fewer per group and row); at M > 1 that measured no faster.
 */
static inline __attribute__((always_inline)) void
SFX(gemv_q8_rows)(const int M, const int R, int64_t K, int64_t gs,
		  const float *restrict a, const int8_t *restrict q,
		  const float *restrict s, float *restrict y, int64_t ldy,
		  int64_t j)
{
	V acc[8][4];
	for (int m = 0; m < M; m++)
		for (int r = 0; r < R; r++)
			acc[m][r] = vzero();
	int64_t G = K / gs;
	/* the rows' weights and scales */
	const int8_t *qr[4];
	const float *sr[4];
	for (int r = 0; r < R; r++) {
		qr[r] = q + (j + r) * K;
		sr[r] = s + (j + r) * G;
	}
	const int8_t *next = q + (j + R) * K; /* the rows to prefetch */
	for (int64_t k = 0; k < K;) {
		V part[8][4];
		const int64_t e = k + gs;
		if (M == 1) {
			SFX(q8_step)(M, R, 1, K, a, qr, next, k, part);
			k += 16;
		} else {
			for (int m = 0; m < M; m++)
				for (int r = 0; r < R; r++)
					part[m][r] = vzero();
		}
		for (; k < e; k += 16)
			SFX(q8_step)(M, R, 0, K, a, qr, next, k, part);
		for (int r = 0; r < R; r++) {
			V sc = vset1(*sr[r]++);
			for (int m = 0; m < M; m++)
				acc[m][r] = vfma(part[m][r], sc, acc[m][r]);
		}
	}
	for (int m = 0; m < M; m++)
		for (int r = 0; r < R; r++)
			y[m * ldy + j + r] = vsum(acc[m][r]);
}

/* GEMV rows j0 .. j1 against int8 b [N, K] with group scales (gs % 16
 * == 0), Q8_ROWS(M) rows at a time. */
static inline __attribute__((always_inline)) void
SFX(gemv_q8_span)(const int M, int64_t K, int64_t gs, const float *restrict a,
		  const int8_t *restrict q, const float *restrict s,
		  float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
	const int R = Q8_ROWS(M);
	int64_t j = j0;
	for (; j + R <= j1; j += R)
		SFX(gemv_q8_rows)(M, R, K, gs, a, q, s, y, ldy, j);
	for (; j < j1; j++)
		SFX(gemv_q8_rows)(M, 1, K, gs, a, q, s, y, ldy, j);
}

/* GEMV rows against int8 b [N, K] with group scales (gs % 16 == 0); for
 * groups of 32 (llama_q8's) and M <= Q8_GS32_M, a copy of the loop with
 * the group size a constant (no loop over a group's 16-weight steps). */
static inline __attribute__((always_inline)) void
SFX(gemv_q8_body)(const int M, int64_t K, int64_t gs, const float *restrict a,
		  const int8_t *restrict q, const float *restrict s,
		  float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
#if GEMV_Q8_G32
	if (gs % 32 == 0) {
		gemv_q8_g32(M, K, gs, a, q, s, y, ldy, j0, j1);
		return;
	}
#endif
	if (gs == 32 && M <= Q8_GS32_M)
		SFX(gemv_q8_span)(M, K, 32, a, q, s, y, ldy, j0, j1);
	else
		SFX(gemv_q8_span)(M, K, gs, a, q, s, y, ldy, j0, j1);
}

#define GEMV_CASE(m)                                                           \
	case m:                                                                \
		if (transb)                                                    \
			SFX(gemv_t_body)(m, DT, K, a, b, y, ldy, j0, j1);      \
		else                                                           \
			SFX(gemv_n_body)(m, DT, K, N, a, b, y, ldy, j0, j1);   \
		return;
#define GEMV_SWITCH                                                            \
	switch (M) {                                                           \
	GEMV_CASE(1) GEMV_CASE(2) GEMV_CASE(3) GEMV_CASE(4)                    \
	GEMV_CASE(5) GEMV_CASE(6) GEMV_CASE(7) GEMV_CASE(8)                    \
	default: return;                                                       \
	}

#define GEMV_Q8_CASE(m)                                                        \
	case m:                                                                \
		SFX(gemv_q8_body)(m, K, gs, a, b, s, y, ldy, j0, j1);          \
		return;

#if GEMV_BHP
/*
 * The GEMV against bf16 b [N, K] with the weights taken in pairs
 * (vload_bhp: 16 weights in the order 0, 2, .., 14, 1, 3, .., 15, two
 * operations instead of four): a copied with each whole 16 columns in
 * that order, the columns past them as they are. 0 when out of memory
 * (the caller takes the plain loop).
 */
static int
SFX(gemv_bf16_pairs)(int M, int64_t K, const float *restrict a,
		     const void *restrict b, float *restrict y, int64_t ldy,
		     int64_t j0, int64_t j1)
{
	float *ap = aligned_alloc(64, ((size_t)(M * K) * sizeof(float) + 63) / 64 * 64);
	if (!ap)
		return 0;
	for (int m = 0; m < M; m++) {
		const float *x = a + m * K;
		float *xp = ap + m * K;
		int64_t k = 0;
		for (; k + 16 <= K; k += 16)
			for (int i = 0; i < 8; i++) {
				xp[k + i] = x[k + 2 * i];
				xp[k + 8 + i] = x[k + 2 * i + 1];
			}
		for (; k < K; k++)
			xp[k] = x[k];
	}
	switch (M) {
#define BHP_CASE(m)                                                            \
	case m:                                                                \
		SFX(gemv_t_body)(m, GEMV_BF16_PAIRS, K, ap, b, y, ldy, j0, j1); \
		break;
	BHP_CASE(1) BHP_CASE(2) BHP_CASE(3) BHP_CASE(4)
	BHP_CASE(5) BHP_CASE(6) BHP_CASE(7) BHP_CASE(8)
#undef BHP_CASE
	default: break;
	}
	free(ap);
	return 1;
}
#endif

/* y[m, j0 .. j1) for m < M <= 8 (a: M x K f32; b of dtype dt, with group
 * scales s of gs weights when it is RT_GEMM_Q8). */
static void
SFX(gemv)(int M, int dt, const float *s, int64_t gs, int transb, int64_t K,
	  int64_t N, const float *restrict a, const void *restrict b,
	  float *restrict y, int64_t ldy, int64_t j0, int64_t j1)
{
	if (dt == RT_GEMM_Q8) {
		if (!transb || gs % 16) {
			gemv_q8_ref(M, s, gs, transb, K, N, a, b, y, ldy, j0, j1);
			return;
		}
		switch (M) {
		GEMV_Q8_CASE(1) GEMV_Q8_CASE(2) GEMV_Q8_CASE(3) GEMV_Q8_CASE(4)
		GEMV_Q8_CASE(5) GEMV_Q8_CASE(6) GEMV_Q8_CASE(7) GEMV_Q8_CASE(8)
		default: return;
		}
	} else if (dt == RT_GEMM_F16) {
#define DT RT_GEMM_F16
		GEMV_SWITCH
#undef DT
	} else if (dt == RT_GEMM_BF16) {
#if GEMV_BHP
		if (transb && K >= 16 && SFX(gemv_bf16_pairs)(M, K, a, b, y, ldy, j0, j1))
			return;
#endif
#define DT RT_GEMM_BF16
		GEMV_SWITCH
#undef DT
	} else {
#define DT RT_GEMM_F32
		GEMV_SWITCH
#undef DT
	}
}

#undef GEMV_CASE
#undef GEMV_Q8_CASE
#undef GEMV_SWITCH

/*
 * The skinny x @ w.T micro-kernel (f32 w [N, K], read in place, never
 * packed; or a tile of narrower w that widen_rows made): c[m * ldc + r]
 * = sum over k < K of xp[k * NR + m] * w[r * K + k] for m < mw, r < h:
 * MR rows of w broadcast one weight at a time
 * against NR values of x's column k (xp: x transposed by pack_xt), the
 * accumulators a transposed MR x NR tile. Rows past h read row h - 1.
 */
static void
SFX(uk_bt)(const float *restrict xp, const float *restrict w, int64_t K,
	   int h, float *restrict c, int64_t ldc, int mw)
{
	V acc[MR][NV];
	const float *wr[MR];
	for (int r = 0; r < MR; r++) {
		wr[r] = w + (r < h ? r : h - 1) * K;
		for (int v = 0; v < NV; v++)
			acc[r][v] = vzero();
	}
	for (int64_t k0 = 0; k0 < K; k0 += 16) {
		/* the rows' lines BT_PF_LINES on (a line is 16 steps) */
		for (int r = 0; r < MR; r++)
			__builtin_prefetch(wr[r] + k0 + 16 * BT_PF_LINES, 0, 3);
		int64_t e = k0 + 16 < K ? k0 + 16 : K;
		for (int64_t k = k0; k < e; k++) {
			V x[NV];
			for (int v = 0; v < NV; v++)
				x[v] = vload(xp + k * NR + 16 * v);
			for (int r = 0; r < MR; r++) {
				V b = vset1(wr[r][k]);
				for (int v = 0; v < NV; v++)
					acc[r][v] = vfma(b, x[v], acc[r][v]);
			}
		}
	}
	float t[MR][NR];
	for (int r = 0; r < MR; r++)
		for (int v = 0; v < NV; v++)
			vstore(&t[r][16 * v], acc[r][v]);
	for (int m = 0; m < mw; m++)
		for (int r = 0; r < h; r++)
			c[m * ldc + r] = t[r][m];
}

/*
 * Rows n0 .. n0 + h of w [N, K] of dtype dt (16-bit, or RT_GEMM_Q8 with
 * group scales s of gs weights, gs a multiple of 16) widened to f32 at d,
 * row r at d + r * K: the tile uk_bt reads for narrow weights. The rows
 * are one contiguous run of w; the tile (MR x K f32) stays in L2 for the
 * panels of x that follow, so each weight is widened once.
 */
static inline __attribute__((always_inline)) void
SFX(widen_body)(const void *restrict w, const int dt, const float *restrict s,
		int64_t gs, int64_t n0, int h, int64_t K, float *restrict d)
{
	for (int r = 0; r < h; r++) {
		int64_t i0 = (n0 + r) * K, k = 0;
		float *o = d + r * K;
		if (dt == RT_GEMM_Q8) {
			const int8_t *q = (const int8_t *)w + i0;
			const float *sr = s + (n0 + r) * (K / gs);
			for (; k + gs <= K; k += gs) {
				V sc = vset1(*sr++);
				for (int64_t kk = k; kk < k + gs; kk += 16)
					vstore(o + kk, vmul(vload_q8(q + kk), sc));
			}
		} else {
			for (; k + 16 <= K; k += 16)
				vstore(o + k, SFX(vload_dt)(w, dt, i0 + k));
		}
		for (; k < K; k++)
			o[k] = b_ld(w, dt, s, gs, i0 + k);
	}
}

static void
SFX(widen_rows)(const void *restrict w, int dt, const float *restrict s, int64_t gs,
		int64_t n0, int h, int64_t K, float *restrict d)
{
	if (dt == RT_GEMM_F16)
		SFX(widen_body)(w, RT_GEMM_F16, s, gs, n0, h, K, d);
	else if (dt == RT_GEMM_BF16)
		SFX(widen_body)(w, RT_GEMM_BF16, s, gs, n0, h, K, d);
	else
		SFX(widen_body)(w, RT_GEMM_Q8, s, gs, n0, h, K, d);
}

/*
 * Packs x [M, K] (dtype dt) transposed for uk_bt: panel p (rows p * NR
 * .. +NR, rows past M zero) at xt + p * K * NR, column k of the panel at
 * k * NR.
 */
static void
SFX(pack_xt)(const void *a, int dt, int64_t M, int64_t K, int64_t p, float *xt)
{
	float *d = xt + p * K * NR;
	int64_t i0 = p * NR;
	int64_t k = 0;
	for (; k + 16 <= K; k += 16)
		for (int v = 0; v < NV; v++)
			SFX(pack_bt16)(a, dt, NULL, 0, K, i0 + 16 * v,
				       M - i0 - 16 * v, k, d + k * NR + 16 * v);
	for (; k < K; k++)
		for (int j = 0; j < NR; j++)
			d[k * NR + j] = i0 + j < M ? gemm_ld(a, dt, (i0 + j) * K + k) : 0.0f;
}

/* Elements lo .. hi of the f32 result src as dtype dt (f16 or bf16) at
 * dst, rounded to nearest even, 16 at a time. */
static void
SFX(narrow)(const float *restrict src, int dt, void *restrict dst, int64_t lo, int64_t hi)
{
	uint16_t *d = dst;
	int64_t i = lo;
	if (dt == RT_GEMM_F16)
		for (; i + 16 <= hi; i += 16)
			vstore_h(d + i, vload(src + i));
	else if (dt == RT_GEMM_BF16)
		for (; i + 16 <= hi; i += 16)
			vstore_bh(d + i, vload(src + i));
	for (; i < hi; i++)
		gemm_st(dst, dt, i, src[i]);
}

static const GemmIsa SFX(isa) = {
	.mr = MR, .nr = NR, .kc = ISA_KC, .mc = ISA_MC, .nc = ISA_NC, .uk = SFX(uk), .pack_a = SFX(pack_a),
	.pack_b = SFX(pack_b),
	.gemv = SFX(gemv), .uk_bt = SFX(uk_bt), .widen_rows = SFX(widen_rows),
	.pack_xt = SFX(pack_xt), .narrow = SFX(narrow),
	.bt_par_m = ISA_BT_PAR_M, .bt_par_x = ISA_BT_PAR_X,
};

#undef NR
