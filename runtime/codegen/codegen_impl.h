/*
 * codegen_impl.h — what the kernel generators share, internal to the
 * codegen files: codegen.c (the helpers, elementwise, matmul,
 * reductions, softmax and norms, dispatch, signatures, the cache),
 * codegen_move.c (copies, transposes, concat, split, take, slices,
 * arange), codegen_index.c
 * (the kernels computed from each output element's index: masks,
 * creation, layout_transform, prelu, quantization, tile, pad, gathers,
 * stack, scatter) and codegen_nn.c (scans, statistics, pooling,
 * convolutions, norms, attention, sorting, einsum). The kernel ABI and the helpers are described at the top of
 * codegen.c. The helpers keep their short names; they are internal to the
 * static library (librlx exports only rlx_*).
 */
#ifndef RLX_CODEGEN_IMPL_H
#define RLX_CODEGEN_IMPL_H

#include <llvm-c/Core.h>

#include "codegen.h"
#include "op_attr.h"

enum {
	MAXBUF = 64, /* buffers of one kernel */
	MAXD = 8,    /* dims of one buffer (RT_MAX_DIMS) */
	JB = 256,    /* matmul column block (the f32 accumulator row) */
	PAR_MIN = 1 << 16, /* work (elements, or multiply-adds) worth threads */
	PAR_BLK = 4096,    /* flat elementwise loops: elements per chunk */
	NT_MIN_BYTES = 8 << 20, /* outputs this large bypass the caches */
	QT = 16,            /* transpose tiles per strip of rows */
	CC_BLK = 1 << 16,   /* concat: elements per parallel block */
};

/* A buffer of the kernel being built. */
typedef struct {
	DType dt;
	int nd;
	LLVMValueRef ptr;
	LLVMValueRef dim[MAXD];
	const char *tok[MAXD]; /* the dim in the key: "4", "$0", "?1.2" */
} Buf;

/*
 * A kernel being built: the LLVM function (cg_build makes the impl and
 * its ABI wrapper), its buffers, the parallel split of its outer loop and
 * the integer scalars it reads at run time. It knows nothing of what the
 * kernel computes: op calls (OpKernel, below) and prim_funcs
 * (codegen_tir.c) are lowered onto it with the same helpers (cg_* taking
 * a KernelBuilder: loops, loads, stores, conversions).
 */
typedef struct {
	LLVMContextRef c;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMBasicBlockRef entry;
	LLVMTypeRef i1, i8, i16, i32, i64, f16, f32, f64, ptr, vd;
	Buf buf[MAXBUF];
	int nin, nout;
	Module *m;            /* its arena holds the kernel's strings */
	Diags *d;
	/* splitting the outer loop across the pool (par_begin) */
	LLVMValueRef lo, hi;  /* the impl's range of the outer loop */
	LLVMValueRef split;   /* i1: may this call split it? */
	LLVMValueRef tramp;   /* void NAME.par(ctx, lo, hi) */
	LLVMValueRef pool;    /* the Jit's pool, a constant pointer */
	bool par_used;
	int gemm_isa;         /* GEMM_ISA_* of the host (rlx_gemm) */
	/* integer values known only at run time (cg_prim_i64): they follow
	 * the buffers' dims (ndim_bufs entries) in dims */
	LLVMValueRef dims;
	int ndim_bufs;
	int nscalars;
	int scalar_arg[CG_MAX_SCALARS]; /* the call argument of each */
	LLVMValueRef scalar[CG_MAX_SCALARS]; /* the i64 values, loaded */
} KernelBuilder;

/*
 * An op call being lowered (cg_kernel) onto its kernel's builder k: the
 * call, and what the op's generators (gen_*, elem_*, the index maps) pass
 * each other beyond the builder. The op helpers (cg_attr, cg_prim_arg,
 * cg_prim_i64, cg_layout_of, cg_fail) take an OpKernel; every other cg_*
 * helper takes the builder.
 */
typedef struct {
	KernelBuilder *k;
	Expr *e;              /* the call (the fusion's root) */
	const CgFusion *fu;   /* the calls the kernel computes (codegen.h) */
	/* the elementwise node being computed (elem_unary, elem_binary):
	 * e's inputs' dtypes and count, and its result's dtype */
	const DType *edt;
	int enin;
	DType odt;
	/* parameters an op's kernel sets for its index map (gen_index_map) */
	int64_t pi[4 * MAXD];
	double pf[4];
	LLVMValueRef pv[4];
} OpKernel;

/* A counted loop `for (i = 0; i < n; i++)`, guarded for n <= 0. */
typedef struct {
	LLVMBasicBlockRef body, exit;
	LLVMValueRef i, n;
	bool plain; /* a cold tail: neither vectorize nor unroll it */
	bool keep;  /* vectorize it, but do not unroll it away (so that it
		     * stays the innermost loop the vectorizer sees) */
} Loop;

/* A loop nest over dims[0..nd), the last innermost. */
typedef struct {
	Loop l[MAXD];
	int n;
} Nest;

/* codegen.c: building a kernel, for an op call (cg_kernel) or a prim_func
 * (codegen_tir.c): cg_k_init readies k (types, module, builder: the caller disposes k->b),
 * the caller sets k->nin/nout, cg_build makes the impl with gen as its
 * body and the ABI wrapper, cg_register records it under key (taken) with
 * ndims dims (plus k's scalars); cg_find looks a key up. */
void cg_k_init(Codegen *cg, KernelBuilder *k, Module *m, Diags *d);
bool cg_build(KernelBuilder *k, const char *name, bool (*gen)(KernelBuilder *k, void *ctx), void *ctx);
CgKernel *cg_register(Codegen *cg, KernelBuilder *k, char *key, const char *name, int ndims);
CgKernel *cg_find(Codegen *cg, const char *key);
void cg_kernel_name(Codegen *cg, const char *what, char *name, size_t n);
LLVMValueRef cg_round_narrow(KernelBuilder *k, LLVMValueRef v, DType t);
/* The RT_GEMM_* code of dtype t (gemm.h), -1 when rlx_gemm does not take it. */
int cg_gemm_dtype(DType t);

/* codegen.c: the helpers the generators use (those taking an OpKernel
 * read the op call) */
LLVMValueRef cg_add(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_addr(KernelBuilder *k, const Buf *b, LLVMValueRef off);
AttrVal cg_attr(OpKernel *o, ParamName p);
LLVMValueRef cg_cconst(KernelBuilder *k, DType t, double v);
LLVMValueRef cg_ci(KernelBuilder *k, int64_t v);
LLVMValueRef cg_contract(LLVMValueRef v);
LLVMTypeRef cg_ctype(KernelBuilder *k, DType t);
LLVMValueRef cg_cvt(KernelBuilder *k, LLVMValueRef v, DType from, DType to);
LLVMValueRef cg_dot(KernelBuilder *k, LLVMValueRef *idx, LLVMValueRef *st, int n);
bool cg_fail(OpKernel *o, const char *why);
LLVMValueRef cg_fexp(KernelBuilder *k, LLVMValueRef x);
DType cg_float_ct(DType t);
LLVMValueRef cg_fn1(KernelBuilder *k, const char *name, LLVMValueRef x);
LLVMValueRef cg_imax(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_imin(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b);
bool cg_is_unsigned(DType t);
LLVMValueRef cg_ld(KernelBuilder *k, const Buf *b, LLVMValueRef off);
LLVMValueRef cg_loop_begin(KernelBuilder *k, Loop *l, LLVMValueRef n);
void cg_loop_end(KernelBuilder *k, Loop *l);
LLVMValueRef cg_loop_from(KernelBuilder *k, Loop *l, LLVMValueRef from, LLVMValueRef n);
LLVMValueRef cg_mul(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b);
void cg_nest_begin(KernelBuilder *k, Nest *ns, LLVMValueRef *dims, int nd, LLVMValueRef *idx);
void cg_nest_end(KernelBuilder *k, Nest *ns);
bool cg_norm_axis(int64_t a, int nd, int *out);
bool cg_axis_extents(KernelBuilder *k, Buf *x, AttrVal av, LLVMValueRef *outer,
		  LLVMValueRef *n, LLVMValueRef *inner);
LLVMValueRef cg_par_begin(KernelBuilder *k, Loop *l, LLVMValueRef n, LLVMValueRef work);
void cg_par_nest(KernelBuilder *k, Loop *l, LLVMValueRef *dims, int nd, LLVMValueRef *idx,
		 LLVMValueRef work);
bool cg_pe_const(const PExpr *x, int64_t *out);
bool cg_prim_arg(OpKernel *o, ParamName p, double *out);
LLVMValueRef cg_prim_i64(OpKernel *o, ParamName p);
LLVMValueRef cg_prod(KernelBuilder *k, LLVMValueRef *dims, int lo, int hi);
LLVMValueRef cg_reassoc(LLVMValueRef v);
LLVMValueRef cg_slot(KernelBuilder *k, LLVMTypeRef t, int64_t n);
void cg_st(KernelBuilder *k, const Buf *b, LLVMValueRef off, LLVMValueRef v);
void cg_strides(KernelBuilder *k, const Buf *b, LLVMValueRef *st);
LLVMValueRef cg_vmax(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b, DType t, bool is_max);

/* codegen_index.c: the index-map helpers (also used by codegen_nn.c) */
void cg_canon_buf(KernelBuilder *k, const Buf *b, const int *perm, int n, LLVMValueRef *dims, LLVMValueRef *sts);
DType cg_cdt(DType t);
LLVMValueRef cg_clampi(KernelBuilder *k, LLVMValueRef i, LLVMValueRef n);
LLVMValueRef cg_inside(KernelBuilder *k, LLVMValueRef i, LLVMValueRef n);
bool cg_layout_of(OpKernel *o, ParamName name, ParamName dflt, const char *canon, int *perm);

/* codegen_index.c: the generators dispatched by gen_body */
bool gen_eye(OpKernel *o);
bool gen_layout_transform(OpKernel *o);
bool gen_move(OpKernel *o);
bool gen_one_hot(OpKernel *o);
bool gen_prelu(OpKernel *o);
bool gen_qdq(OpKernel *o);
bool gen_scatter(OpKernel *o);
bool gen_stack(OpKernel *o);
bool gen_tril(OpKernel *o);

/* codegen_move.c: the data-movement generators dispatched by gen_body */
bool gen_arange(OpKernel *o);
bool gen_concat(OpKernel *o);
bool gen_copy(OpKernel *o);
bool gen_permute(OpKernel *o);
bool gen_split(OpKernel *o);
bool gen_strided_slice(OpKernel *o);
bool gen_take(OpKernel *o);

/* codegen_nn.c: the generators dispatched by gen_body */
bool gen_adaptive_pool2d(OpKernel *o);
bool gen_attention(OpKernel *o);
bool gen_batch_norm(OpKernel *o);
bool gen_conv(OpKernel *o);
bool gen_dropout(OpKernel *o);
bool gen_einsum(OpKernel *o);
bool gen_group_norm(OpKernel *o);
bool gen_pool2d(OpKernel *o);
bool gen_scan(OpKernel *o);
bool gen_sort(OpKernel *o);
bool gen_variance(OpKernel *o);

#endif
