/*
 * codegen.h — op calls to LLVM kernels (runtime/codegen/codegen.c, prefix cg_) and
 * the ORC JIT that compiles them (runtime/codegen/jit.c, prefix jit_).
 *
 * This header does not include the LLVM headers: the JIT's module and
 * context parameters are the opaque structs behind LLVMModuleRef and
 * LLVMContextRef, so the executor can use it without LLVM's flags.
 */
#ifndef RLX_CODEGEN_H
#define RLX_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "rt.h"

struct LLVMOpaqueModule;
struct LLVMOpaqueContext;

/* ---------------------------------------------------- runtime/codegen/jit.c */

typedef struct Jit Jit;

/* An LLJIT for the host CPU that resolves libm and the process's symbols.
 * NULL with a message in err on failure. */
Jit *jit_new(RtError *err);
void jit_free(Jit *jit);
/* The context modules given to jit_add_module must be created in. */
struct LLVMOpaqueContext *jit_context(Jit *jit);
/* Verifies, optimizes (default<O3> for the host CPU) and adds mod; the JIT
 * takes ownership of mod whatever the result. */
bool jit_add_module(Jit *jit, struct LLVMOpaqueModule *mod, RtError *err);
/* The address of a symbol of an added module, or NULL. */
void *jit_lookup(Jit *jit, const char *name);
/* A number not returned before by this Jit (unique symbol names). */
unsigned jit_unique(Jit *jit);
/* The thread pool the JIT's kernels split their loops across (pool.h). */
struct ThreadPool *jit_pool(Jit *jit);
/* The code cache and the time spent compiling (see jit.c: the cache is
 * $XDG_CACHE_HOME/rlx or ~/.cache/rlx, off with RLX_NO_CACHE=1). */
typedef struct {
	int hits, misses; /* modules found in the cache / compiled */
	double seconds;   /* in jit_add_module and jit_lookup */
} JitStats;
const JitStats *jit_stats(const Jit *jit);
/* Why the code cache is not used (its folder is not only this user's:
 * docs/security.md), for one warning; NULL when it is used or off. */
const char *jit_cache_warning(const Jit *jit);
/* The GEMM_ISA_* (runtime/kernels/gemm.h) the Jit uses: the host CPU's (AVX-512F,
 * else AVX2 + FMA + F16C, else generic; from LLVM's host features), at
 * most RLX_ISA's (jit.c). */
int jit_gemm_isa(const Jit *jit);

/* ------------------------------------------------ runtime/codegen/codegen.c */

enum { CG_MAX_SCALARS = 4 };

/* The kernel ABI; see the comment at the top of codegen.c. */
typedef void (*CgFn)(void **buffers, const int64_t *dims);

/* An index of a prim_func's access that its kernel checks at run time
 * (codegen_tir.c): where it is written, the buffer, the axis. */
typedef struct {
	Span span;
	const TBuf *buf;
	int axis;
} CgSite;

typedef struct {
	const char *name; /* the symbol in the JIT */
	const char *key;  /* the signature it was made for */
	CgFn fn;          /* NULL until cg_flush() compiled it */
	int nin, nout;    /* buffers: nin inputs then nout outputs */
	int ndims;        /* entries of dims: the ndim of every buffer, summed,
			   * then one per scalar */
	/* integer prim arguments the kernel reads at run time (tril's k when
	 * it is symbolic): dims ends with the value of call argument
	 * scalar_arg[i] for each i < nscalars, as an int64 */
	int nscalars;
	int scalar_arg[CG_MAX_SCALARS];
	/* a prim_func's kernel (cg_tir_kernel): nout is 1, that last buffer
	 * the RlxIndexRec (runtime/kernels/index_error.h) the kernel fills at
	 * its first index outside its buffer, site i being sites[i] */
	CgSite *sites;
	int nsites;
} CgKernel;

typedef struct Codegen Codegen;

Codegen *cg_new(Jit *jit);
void cg_free(Codegen *cg);
/*
 * The kernel for op call e (E_CALL with sinfo set on it and its arguments).
 * A signature seen before returns the same kernel; a new one is generated
 * into the pending LLVM module and gets its fn at the next cg_flush().
 * NULL with an error at e's span when the call cannot be lowered.
 */
CgKernel *cg_kernel(Codegen *cg, Module *m, Expr *e, Diags *d);
/*
 * Fusion as data: the calls one kernel computes, as the executor's plan
 * says (exec_plan.c). node[n - 1] is the root, the call the kernel is for;
 * the others are its producers: calls bound to vars that the kernel
 * computes where they are read instead of storing them, each listed before
 * the nodes that read it. from[i] of a node says where argument i of its
 * call comes from (cg_node_arg: of a call_tir, input i, the item i of its
 * argument tuple): -1, the argument as written (a tensor: a buffer of the
 * kernel; a prim value: compiled in), else the producer node that computes
 * it. The IR is not changed: every call is a binding's value.
 *
 * What may be fused: a producer of an elementwise root (cg_fusable), or of
 * a reduction's data (cg_reduce_fusable), is itself cg_fusable, with a
 * known tensor type whose dtype stores exactly what it computes (float32,
 * float64, int32, int64) and, for an elementwise root, the root's shape;
 * under a reduction every tensor operand has the data's shape. A matmul's
 * b may be a permute_dims producer read transposed (cg_matmul_transpose),
 * or the dequantize of int8 weights (cg_matmul_qweight). A call_tir's
 * input that its prim_func's matrix product reads as b (cg_tir_gemm_b)
 * may be a call_tir of a transposing prim_func (cg_tir_transpose), its
 * input read with the last two axes swapped (cg_tir_fused_kernel).
 */
typedef struct {
	Expr *call;        /* an E_CALL of the IR, as written */
	const Var *var;    /* the var it is bound to (--print-plan) */
	const int *from;   /* call->call.nargs entries; NULL: all -1 */
} CgNode;

typedef struct {
	int n;
	const CgNode *node; /* node[n - 1]: the root */
} CgFusion;

/* The arguments of call e that a node's from covers: an op's arguments;
 * a call_tir's inputs (its argument tuple's items, or the one argument
 * when it is not a tuple literal). The callee and tir_vars of a call_tir
 * are always as written. */
static inline int
cg_node_nargs(const Expr *e)
{
	if (e->call.op != OP_CALL_TIR || e->call.nargs < 2)
		return e->call.nargs;
	return e->call.args[1]->kind == E_TUPLE ? e->call.args[1]->tuple.n : 1;
}

/* Argument i of call e as cg_node_nargs counts them. */
static inline Expr *
cg_node_arg(const Expr *e, int i)
{
	if (e->call.op != OP_CALL_TIR || e->call.nargs < 2)
		return e->call.args[i];
	const Expr *t = e->call.args[1];
	return t->kind == E_TUPLE ? t->tuple.items[i] : e->call.args[1];
}

/* Where argument i of node nd of fu comes from: -1 (the argument as
 * written) or the producer node computing it. */
static inline int
cg_from(const CgFusion *fu, int nd, int i)
{
	const CgNode *n = &fu->node[nd];
	return n->from ? n->from[i] : -1;
}

/* The kernel of fusion fu (cg_kernel of its root when n is 1): a kernel
 * per signature as cg_kernel's, the key covering every node (op, dims,
 * dtypes, attributes, prim arguments) and how they are linked. */
CgKernel *cg_fused_kernel(Codegen *cg, Module *m, const CgFusion *fu, Diags *d);
/* The arguments whose tensors are fu's kernel's input buffers, in buffer
 * order (a tuple gives one buffer per field), into ins (up to max); their
 * count, -1 when fu cannot be lowered (cg_fused_kernel says why). */
int cg_fused_inputs(const CgFusion *fu, const Expr **ins, int max);
/*
 * The kernel of prim_func f (codegen_tir.c; R.call_tir): its buffers are
 * f's buffer parameters in parameter order (nin), then an RlxIndexRec
 * (nout = 1), zeroed by the caller; its dims each buffer's dims, then
 * one int64 per scalar parameter (a float's as a double's bits). The
 * caller checks the buffers against f's (rank, dtype, dims, symbolic
 * variables consistent) before calling. An index not proven inside its
 * dimension is checked when it runs: one outside is recorded (site, value,
 * extent; the first one) and replaced by the nearest index inside (an
 * empty buffer's access goes to the record's spare bytes), so the kernel
 * never reads or writes outside its buffers. NULL with an error at the
 * construct that cannot be lowered.
 */
CgKernel *cg_tir_kernel(Codegen *cg, Module *m, const PrimFunc *f, Diags *d);
/*
 * The kernel of fusion fu whose root is R.call_tir of f (codegen_tir.c):
 * cg_tir_kernel's, except that each input of the root computed by a
 * producer, an R.call_tir of a transposing prim_func (cg_tir_transpose)
 * read by f only as a matrix product's b (cg_tir_gemm_b), is given as
 * that producer's input: the buffer's data is the input's, its last two
 * axes swapped (rlx_gemm reads it with b transposed the other way), and
 * no transposed copy is made. The caller checks the producer's input
 * against its prim_func and passes it with the transposed shape, which
 * the root's checks and dims see. The key covers which inputs are read so.
 */
CgKernel *cg_tir_fused_kernel(Codegen *cg, Module *m, const CgFusion *fu, Diags *d);
/* The prim_func of m that e, an R.call_tir (not its kin), calls; NULL
 * when e is none. */
const PrimFunc *cg_tir_callee(const Module *m, const Expr *e);
/*
 * Is f a transposing copy of its one input into its one output, the last
 * two axes swapped and the others kept (T[.., i, j] = A[.., j, i]: topi's
 * transpose of a matrix as LegalizeOps writes it, permute_dims swapping
 * the last two axes): two buffer parameters of one dtype, the output's
 * shape the input's with the last two dims swapped, and a body of one
 * loop nest from 0 over the output's dims whose one block (spatial
 * iteration variables bound to the loops as they are; no init, T.where or
 * allocation) stores that load and nothing else? So the output is
 * exactly the input read with its last two axes swapped.
 */
bool cg_tir_transpose(const PrimFunc *f);
/*
 * Is buffer parameter p of f read by a matrix product that f's kernel
 * runs on rlx_gemm (its b, as codegen_tir.c's fast path matches it), and
 * never written by f, its handle never used as a value? Then f may read
 * it from the input of the transposing prim_func that computes it
 * (cg_tir_fused_kernel).
 */
bool cg_tir_gemm_b(const PrimFunc *f, int p);
/* Optimizes and JIT-compiles the pending module; fills in the fn pointers. */
bool cg_flush(Codegen *cg, RtError *err);
/* Distinct kernels generated so far (the cache size). */
int cg_num_kernels(const Codegen *cg);
/* Can op call e be a producer, or the root, of a fused elementwise kernel
 * (an elementwise or broadcasting op; clip's bounds constants)? */
bool cg_fusable(const Expr *e);
/* May reduction op read its data from fused producers? */
bool cg_reduce_fusable(OpKind op);
/* Is perm a permute_dims swapping the last two dims of a float tensor, so
 * that a matmul reads its input as the transposed b (no copy)? */
bool cg_matmul_transpose(const Expr *perm);
/*
 * Is node perm of fu (a permute_dims, cg_matmul_transpose) the transposed
 * dequantize of int8 group-quantized weights, its argument computed by
 * producers reshape(multiply(astype(q, "float32"), s), [N, G * gs]) with
 * q an int8 [N, G, gs] and s a float32 [N, G, 1] (or, without the reshape,
 * q [N, K] and s [N, 1]: one scale per row; the multiply's operands in
 * either order), q and s vars or constants? The kernel then reads q's
 * bytes and s directly (its buffers: q, then s) and never materializes the
 * f32 weights. *q and *s (may be NULL) get the two operands.
 */
bool cg_matmul_qweight(const CgFusion *fu, int perm, const Expr **q, const Expr **s);

#endif
