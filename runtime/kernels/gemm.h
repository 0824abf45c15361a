/*
 * gemm.h — the matrix-multiply kernels generated matmuls call
 * (runtime/kernels/gemm.c, prefix gemm_; the entry point is rlx_gemm).
 *
 * A generated matmul kernel of float operands fills one RtGemm on its stack
 * and calls rlx_gemm(pool, isa, &g); the JIT defines the symbol as an
 * absolute address, as it does rlx_parallel_for. The layout is fixed (every
 * field 8 bytes, in this order) because the generated code writes it by
 * index: RTG_* below name the slots.
 *
 * c[bt, i, j] = sum_k a[bt', i, k] * b[bt'', k, j] for every batch bt of
 * the result, where a's and b's batch offsets come from c's batch index
 * through their own element strides (0 where they broadcast). With
 * transb, b is stored [N, K] (x @ w.T, the layout checkpoints keep) and
 * read as its transpose without a copy. c is dense, batch after batch.
 * Operands and the result are f32, f16 or bf16 (RT_GEMM_*); products are
 * summed in f32 and the result rounded once.
 *
 * b may also be int8 weights with group scales (bdt RT_GEMM_Q8, the
 * dequantize of a group-quantized checkpoint fused into the matmul):
 * element i of b as stored is b[i] * bscale[i / bgroup], so with transb
 * each row of b [N, K] holds K / bgroup groups of bgroup weights, one f32
 * scale each (bscale [N, K / bgroup], K a multiple of bgroup). The weights
 * are read as bytes and scaled in registers; no f32 copy is made. Groups
 * of a multiple of 16 take the vector paths.
 */
#ifndef RLX_GEMM_H
#define RLX_GEMM_H

#include <stddef.h>
#include <stdint.h>

enum { RT_GEMM_F32 = 0, RT_GEMM_F16 = 1, RT_GEMM_BF16 = 2, RT_GEMM_Q8 = 3 };

/* The instruction sets rlx_gemm has kernels for (jit_gemm_isa picks one
 * from the host CPU's features), in order: a host that runs one runs the
 * ones before it. */
enum { GEMM_ISA_GENERIC = 0, GEMM_ISA_AVX2 = 1, GEMM_ISA_AVX512 = 2 };

enum { RTG_MAXB = 8 };

typedef struct {
	int64_t M, N, K;
	const void *a, *b;
	void *c;
	int64_t adt, bdt, cdt; /* RT_GEMM_* */
	int64_t transb;        /* b is [N, K] */
	int64_t nb;            /* batch dims of c (<= RTG_MAXB) */
	int64_t bdim[RTG_MAXB];
	int64_t as[RTG_MAXB];  /* a's element stride per batch dim of c */
	int64_t bs[RTG_MAXB];
	const float *bscale;   /* RT_GEMM_Q8 b: a scale per group */
	int64_t bgroup;        /* RT_GEMM_Q8 b: weights per group */
} RtGemm;

/* Slot numbers of RtGemm's fields (8 bytes each) for generated code. */
enum {
	RTG_M, RTG_N, RTG_K, RTG_A, RTG_B, RTG_C, RTG_ADT, RTG_BDT, RTG_CDT,
	RTG_TRANSB, RTG_NB, RTG_BDIM, RTG_AS = RTG_BDIM + RTG_MAXB,
	RTG_BS = RTG_AS + RTG_MAXB, RTG_BSCALE = RTG_BS + RTG_MAXB, RTG_BGROUP,
	RTG_SLOTS,
};

/* the generated code's view of RtGemm: every slot where the enum says */
#define RTG_AT(f, slot) (offsetof(RtGemm, f) == (slot) * sizeof(int64_t))
_Static_assert(RTG_AT(M, RTG_M) && RTG_AT(N, RTG_N) && RTG_AT(K, RTG_K) &&
	       RTG_AT(a, RTG_A) && RTG_AT(b, RTG_B) && RTG_AT(c, RTG_C) &&
	       RTG_AT(adt, RTG_ADT) && RTG_AT(bdt, RTG_BDT) &&
	       RTG_AT(cdt, RTG_CDT) && RTG_AT(transb, RTG_TRANSB) &&
	       RTG_AT(nb, RTG_NB) && RTG_AT(bdim, RTG_BDIM) &&
	       RTG_AT(as, RTG_AS) && RTG_AT(bs, RTG_BS) &&
	       RTG_AT(bscale, RTG_BSCALE) && RTG_AT(bgroup, RTG_BGROUP) &&
	       sizeof(RtGemm) == RTG_SLOTS * sizeof(int64_t),
	       "RTG_* name RtGemm's 8-byte slots in order");
#undef RTG_AT

/*
 * Computes g on the pool (runtime/kernels/pool.h; NULL: the calling thread) with
 * the kernels of isa (GEMM_ISA_*; the caller checked the CPU has it).
 * M <= 8 takes the GEMV path (columns split across threads, weights read
 * once, 16-bit weights converted in registers); larger M a packed, cache
 * blocked GEMM (GotoBLAS structure) with a register micro-kernel.
 */
void rlx_gemm(void *pool, int64_t isa, const RtGemm *g);

/* The micro-kernel tile (rows x columns) of isa, for tests and notes. */
void gemm_tile(int isa, int *mr, int *nr);

#endif
