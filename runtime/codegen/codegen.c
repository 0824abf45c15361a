/*
 * codegen.c — lowers op calls (E_CALL) to LLVM IR kernels.
 *
 * Kernel ABI. Every kernel is an external function
 *
 *     void NAME(void **buffers, const int64_t *dims);
 *
 * buffers: the tensor arguments in signature order (a tuple argument, as
 *   concat's, gives one buffer per field), then the output(s) (one per
 *   field when the result is a tuple, as split's). Dense, C order,
 *   64-byte aligned; bool is one byte. Outputs never alias inputs.
 *   Non-tensor arguments (shapes, prim values) and attributes are compiled
 *   into the kernel.
 * dims: the runtime shape of every buffer, in buffer order, ndim entries
 *   each, then the value of each integer prim argument that is known only
 *   at run time and that the kernel reads (CgKernel.scalar_arg: tril's
 *   symbolic k), CgKernel.ndims in all. The kernel reads only the dims
 *   that are symbolic in its signature; static ones are constants in the
 *   code.
 *
 * One kernel per signature: the key is the op, the dtype and dims of every
 * buffer (static values, symbolic dims numbered by first appearance so that
 * equal dims stay equal), the attributes and the prim arguments; for a
 * fused kernel (a CgFusion, codegen.h: the plan's producers computed
 * inside the kernel) every producer's too, in the place of the argument it
 * computes. Calls with
 * the same key share the kernel. Kernels are generated into one pending
 * module; cg_flush() optimizes it for the host CPU and JIT-compiles it.
 *
 * Inside, each kernel is an internal function taking one `noalias` pointer
 * per buffer, called from the external wrapper; after inlining the
 * optimizer knows the buffers do not overlap and vectorizes the inner loops,
 * which are unit-stride wherever the op allows. f16 and bf16 are loaded to
 * f32, computed in f32 and rounded to nearest even when stored.
 *
 * Threads. The impl also takes the range [lo, hi) of its outer loop and a
 * flag saying whether it may split it. A generator opens its outer loop
 * with cg_par_begin (or cg_par_nest): when the flag is set and the work is at
 * least PAR_MIN, the impl packs its arguments and calls
 * rlx_parallel_for(pool, ctx, n, NAME.par) on the Jit's thread pool
 * (runtime/kernels/pool.h; the pool is read from the symbol rlx_jit_pool, which
 * the Jit defines, so the code holds no address), and
 * NAME.par calls the impl again on each chunk with the flag clear. So the
 * code before the outer loop runs once per chunk and must be pure. Small
 * kernels never leave the calling thread.
 *
 * Fast paths: transposes move T x T tiles through registers (vector loads,
 * a shuffle network, vector stores; non-temporal when the output is
 * large), float matmuls call rlx_gemm (runtime/kernels/gemm.c: register
 * tiles per instruction set, packed panels), reductions may
 * reassociate so they vectorize, and f32 exp is a polynomial so loops
 * calling it vectorize. Cold tail loops carry metadata that keeps the
 * optimizer from vectorizing or unrolling them (JIT time).
 *
 * Two layers (codegen_impl.h): a KernelBuilder builds one kernel function
 * (buffers, loops, parallel loops, loads, stores, conversions: the cg_*
 * helpers taking it, and cg_k_init / cg_build / cg_register); an OpKernel
 * is an op call being lowered onto one (the call, what its generators pass
 * each other, the op helpers cg_attr, cg_prim_arg, cg_prim_i64, cg_fail).
 * A prim_func (codegen_tir.c) is lowered onto a KernelBuilder alone.
 *
 * Adding an op: write `static bool gen_OP(OpKernel *o)` (its builder is
 * o->k) from the cg_* helpers of codegen_impl.h (loops: cg_loop_begin/cg_loop_end, cg_nest_begin/
 * cg_nest_end, cg_par_begin for the outer loop; elements: cg_ld/cg_st with
 * an element offset, cg_cvt between dtypes) or, for an elementwise op, a
 * case in elem_unary/elem_binary;
 * then its line in gen_of, the table of generators gen_body() reads. The
 * generators of one family live together: codegen_move.c (data
 * movement), codegen_index.c (computed from each output element's index),
 * codegen_nn.c (the neural-network ops).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h> /* temporary metadata nodes for loop hints */

#include "codegen_impl.h"
#include "gemm.h"




struct Codegen {
	Jit *jit;
	LLVMModuleRef pending; /* NULL when nothing waits for cg_flush */
	CgKernel **kernels;    /* every kernel made, in order */
	int n, cap;
	NameMap index;         /* a kernel's key to its position in kernels */
	unsigned id;           /* this Codegen's number in its Jit */
};

/* ------------------------------------------------------------ IR helpers */

/* An i64 constant. */
LLVMValueRef
cg_ci(KernelBuilder *k, int64_t v)
{
	return LLVMConstInt(k->i64, (unsigned long long)v, true);
}

LLVMValueRef
cg_add(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildNSWAdd(k->b, a, b, "");
}

LLVMValueRef
cg_mul(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildNSWMul(k->b, a, b, "");
}

/* min(a, b) of i64 values. */
LLVMValueRef
cg_imin(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, a, b, ""),
			       a, b, "");
}

/* max(a, b) of i64 values. */
LLVMValueRef
cg_imax(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSGT, a, b, ""),
			       a, b, "");
}

/* Product of dims[lo..hi) (1 when empty). */
LLVMValueRef
cg_prod(KernelBuilder *k, LLVMValueRef *dims, int lo, int hi)
{
	LLVMValueRef p = cg_ci(k, 1);
	for (int i = lo; i < hi; i++)
		p = cg_mul(k, p, dims[i]);
	return p;
}

/* C-order strides of buffer b, in elements. */
void
cg_strides(KernelBuilder *k, const Buf *b, LLVMValueRef *st)
{
	LLVMValueRef s = cg_ci(k, 1);
	for (int i = b->nd - 1; i >= 0; i--) {
		st[i] = s;
		s = cg_mul(k, s, b->dim[i]);
	}
}

/* A stack slot in the entry block (so mem2reg can promote it). */
LLVMValueRef
cg_slot(KernelBuilder *k, LLVMTypeRef t, int64_t n)
{
	LLVMBuilderRef eb = LLVMCreateBuilderInContext(k->c);
	LLVMValueRef first = LLVMGetFirstInstruction(k->entry);
	if (first)
		LLVMPositionBuilderBefore(eb, first);
	else
		LLVMPositionBuilderAtEnd(eb, k->entry);
	LLVMValueRef v = n == 1 ? LLVMBuildAlloca(eb, t, "")
				: LLVMBuildAlloca(eb, LLVMArrayType2(t, (uint64_t)n), "");
	LLVMSetAlignment(v, 64);
	LLVMDisposeBuilder(eb);
	return v;
}


/* Opens a loop `for (i = from; i < n; i++)`; returns its index, an i64. */
LLVMValueRef
cg_loop_from(KernelBuilder *k, Loop *l, LLVMValueRef from, LLVMValueRef n)
{
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(k->b);
	l->body = LLVMAppendBasicBlockInContext(k->c, k->fn, "body");
	l->exit = LLVMAppendBasicBlockInContext(k->c, k->fn, "exit");
	l->n = n;
	LLVMBuildCondBr(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, from, n, ""),
			l->body, l->exit);
	LLVMPositionBuilderAtEnd(k->b, l->body);
	l->i = LLVMBuildPhi(k->b, k->i64, "i");
	LLVMAddIncoming(l->i, &from, &pre, 1);
	l->plain = l->keep = false;
	return l->i;
}

/* Opens a loop `for (i = 0; i < n; i++)`; returns its index, an i64. */
LLVMValueRef
cg_loop_begin(KernelBuilder *k, Loop *l, LLVMValueRef n)
{
	return cg_loop_from(k, l, cg_ci(k, 0), n);
}

/* A string metadata node with an optional i32 operand. */
static LLVMMetadataRef
md_str(KernelBuilder *k, const char *s, int v, bool with_v)
{
	LLVMMetadataRef ops[2] = {
		LLVMMDStringInContext2(k->c, s, strlen(s)),
		LLVMValueAsMetadata(LLVMConstInt(k->i32, (unsigned long long)v, 0)),
	};
	return LLVMMDNodeInContext2(k->c, ops, with_v ? 2 : 1);
}

/* Loop metadata asking for no vectorization and no unrolling (plain:
 * tail loops that run a few times would only cost compile time), or for
 * no unrolling only (keep). */
static void
mark_loop(KernelBuilder *k, LLVMValueRef br, bool plain)
{
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(k->c, NULL, 0);
	LLVMMetadataRef ops[3] = {
		tmp,
		md_str(k, "llvm.loop.unroll.disable", 0, false),
		md_str(k, "llvm.loop.vectorize.width", 1, true),
	};
	LLVMMetadataRef node = LLVMMDNodeInContext2(k->c, ops, plain ? 3 : 2);
	LLVMMetadataReplaceAllUsesWith(tmp, node);
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(k->c, "llvm.loop", 9),
			LLVMMetadataAsValue(k->c, node));
}

/* Closes the loop opened by loop_begin; code continues after it. */
void
cg_loop_end(KernelBuilder *k, Loop *l)
{
	LLVMValueRef next = LLVMBuildNUWAdd(k->b, l->i, cg_ci(k, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(k->b);
	LLVMAddIncoming(l->i, &next, &latch, 1);
	LLVMValueRef br = LLVMBuildCondBr(k->b,
		LLVMBuildICmp(k->b, LLVMIntSLT, next, l->n, ""), l->body, l->exit);
	if (l->plain || l->keep)
		mark_loop(k, br, l->plain);
	LLVMPositionBuilderAtEnd(k->b, l->exit);
}


void
cg_nest_begin(KernelBuilder *k, Nest *ns, LLVMValueRef *dims, int nd, LLVMValueRef *idx)
{
	ns->n = nd;
	for (int i = 0; i < nd; i++)
		idx[i] = cg_loop_begin(k, &ns->l[i], dims[i]);
}

void
cg_nest_end(KernelBuilder *k, Nest *ns)
{
	for (int i = ns->n - 1; i >= 0; i--)
		cg_loop_end(k, &ns->l[i]);
}

/*
 * Opens the kernel's outer loop over [0, n), split across the Jit's pool
 * when work (elements touched, or multiply-adds) is at least PAR_MIN.
 * The impl function is then called once per chunk (through NAME.par) with
 * its range in k->lo, k->hi and split off, and runs everything before this
 * point again: that code must be pure (no stores but to slots), and
 * nothing may follow the loop's loop_end but the return. At most once per
 * kernel. Closed with loop_end.
 */
LLVMValueRef
cg_par_begin(KernelBuilder *k, Loop *l, LLVMValueRef n, LLVMValueRef work)
{
	if (k->par_used)
		ir_bug("two parallel loops in one kernel");
	k->par_used = true;
	LLVMBuilderRef b = k->b;
	LLVMValueRef big = LLVMBuildAnd(b, k->split,
		LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, n, cg_ci(k, 1), ""),
			     LLVMBuildICmp(b, LLVMIntSGE, work, cg_ci(k, PAR_MIN), ""),
			     ""), "");
	LLVMBasicBlockRef par = LLVMAppendBasicBlockInContext(k->c, k->fn, "par");
	LLVMBasicBlockRef ser = LLVMAppendBasicBlockInContext(k->c, k->fn, "serial");
	LLVMBuildCondBr(b, big, par, ser);
	/* par: the buffers and dims into a context, the pool runs NAME.par */
	LLVMPositionBuilderAtEnd(b, par);
	int nb = k->nin + k->nout;
	LLVMValueRef ctx = cg_slot(k, k->ptr, nb + 1);
	for (int i = 0; i <= nb; i++) {
		LLVMValueRef o = cg_ci(k, i);
		LLVMBuildStore(b, LLVMGetParam(k->fn, (unsigned)i),
			       LLVMBuildInBoundsGEP2(b, k->ptr, ctx, &o, 1, ""));
	}
	LLVMTypeRef pt[4] = {k->ptr, k->ptr, k->i64, k->ptr};
	LLVMTypeRef ft = LLVMFunctionType(k->vd, pt, 4, false);
	LLVMValueRef pf = LLVMGetNamedFunction(k->mod, "rlx_parallel_for");
	if (!pf)
		pf = LLVMAddFunction(k->mod, "rlx_parallel_for", ft);
	LLVMValueRef args[4] = {k->pool, ctx, n, k->tramp};
	LLVMBuildCall2(b, ft, pf, args, 4, "");
	LLVMBuildRetVoid(b);
	/* serial: this call's part of the range */
	LLVMPositionBuilderAtEnd(b, ser);
	return cg_loop_from(k, l, cg_imax(k, k->lo, cg_ci(k, 0)), cg_imin(k, k->hi, n));
}

/*
 * The outer loops of a nest over dims[0..nd-1) flattened into one
 * parallel loop (the last dim is left to the caller); idx[0..nd-1) get
 * the indices back by division. nd >= 1. Closed with cg_loop_end(l).
 */
void
cg_par_nest(KernelBuilder *k, Loop *l, LLVMValueRef *dims, int nd, LLVMValueRef *idx,
	 LLVMValueRef work)
{
	LLVMValueRef f = cg_par_begin(k, l, cg_prod(k, dims, 0, nd - 1), work);
	for (int i = nd - 2; i >= 0; i--) {
		if (i == 0) {
			idx[0] = f;
			break;
		}
		idx[i] = LLVMBuildURem(k->b, f, dims[i], "");
		f = LLVMBuildUDiv(k->b, f, dims[i], "");
	}
}

/* Σ idx[i] * st[i] over i < n. */
LLVMValueRef
cg_dot(KernelBuilder *k, LLVMValueRef *idx, LLVMValueRef *st, int n)
{
	LLVMValueRef o = cg_ci(k, 0);
	for (int i = 0; i < n; i++)
		o = cg_add(k, o, cg_mul(k, idx[i], st[i]));
	return o;
}

/* ------------------------------------------------------ element access */

bool
cg_is_unsigned(DType t)
{
	return dtype_is_unsigned(t);
}

/* How an element is stored. */
static LLVMTypeRef
stype(KernelBuilder *k, DType t)
{
	switch (t) {
	case DT_BOOL: case DT_I8: case DT_U8: return k->i8;
	case DT_F8E4M3: case DT_F8E5M2: return k->i8;
	case DT_I16: case DT_U16: return k->i16;
	case DT_I32: case DT_U32: return k->i32;
	case DT_I64: case DT_U64: return k->i64;
	case DT_F16: return k->f16;
	case DT_BF16: return k->i16;
	case DT_F32: return k->f32;
	case DT_F64: return k->f64;
	default: ir_bug("no storage type for %s", dtype_name(t));
	}
}

/* How an element is computed with: f16/bf16/float8 as f32, bool as i1. */
LLVMTypeRef
cg_ctype(KernelBuilder *k, DType t)
{
	if (t == DT_BOOL)
		return k->i1;
	if (dtype_is_narrow_float(t))
		return k->f32;
	return stype(k, t);
}

/* A constant of dtype t in its compute type. */
LLVMValueRef
cg_cconst(KernelBuilder *k, DType t, double v)
{
	if (dtype_is_float(t))
		return LLVMConstReal(cg_ctype(k, t), v);
	if (t == DT_BOOL)
		return LLVMConstInt(k->i1, v != 0, false);
	return LLVMConstInt(cg_ctype(k, t), (unsigned long long)(long long)v,
			    true);
}

/* f64 to f32 rounding to odd (toward zero, the last bit set when inexact):
 * rounding that to a float8 once more gives the float8 nearest to the f64,
 * as ml_dtypes rounds an f64 directly (Boldo and Melquiond, "When double
 * rounding is odd": f32 has more than 2 bits beyond a float8's). */
static LLVMValueRef
f64_to_f32_odd(KernelBuilder *k, LLVMValueRef v)
{
	LLVMBuilderRef b = k->b;
	LLVMValueRef t = LLVMBuildFPTrunc(b, v, k->f32, "");
	LLVMValueRef back = LLVMBuildFPExt(b, t, k->f64, "");
	LLVMValueRef u = LLVMBuildBitCast(b, t, k->i32, "");
	/* rounded away from zero: one step back toward it (the bits of
	 * the magnitude are ordered like the magnitudes) */
	LLVMValueRef away = LLVMBuildFCmp(b, LLVMRealOGT, cg_fn1(k, "llvm.fabs", back),
					  cg_fn1(k, "llvm.fabs", v), "");
	u = LLVMBuildSub(b, u, LLVMBuildZExt(b, away, k->i32, ""), "");
	LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, back, v, "");
	u = LLVMBuildOr(b, u, LLVMBuildZExt(b, inexact, k->i32, ""), "");
	return LLVMBuildBitCast(b, u, k->f32, "");
}

/* Converts compute value v of dtype from to dtype to (as numpy astype). */
LLVMValueRef
cg_cvt(KernelBuilder *k, LLVMValueRef v, DType from, DType to)
{
	LLVMTypeRef ft = cg_ctype(k, from), tt = cg_ctype(k, to);
	bool ff = dtype_is_float(from), tf = dtype_is_float(to);
	if (ff && tf) {
		if (from == DT_F64 && dtype_is_float8(to))
			return f64_to_f32_odd(k, v);
		if (ft == tt)
			return v;
		return ft == k->f64 ? LLVMBuildFPTrunc(k->b, v, tt, "")
				    : LLVMBuildFPExt(k->b, v, tt, "");
	}
	if (to == DT_BOOL) {
		if (from == DT_BOOL)
			return v;
		if (ff)
			return LLVMBuildFCmp(k->b, LLVMRealUNE, v,
					     LLVMConstReal(ft, 0), "");
		return LLVMBuildICmp(k->b, LLVMIntNE, v,
				     LLVMConstInt(ft, 0, false), "");
	}
	if (ff) /* float to int */
		return cg_is_unsigned(to) ? LLVMBuildFPToUI(k->b, v, tt, "")
				       : LLVMBuildFPToSI(k->b, v, tt, "");
	if (tf) /* int or bool to float */
		return cg_is_unsigned(from) ? LLVMBuildUIToFP(k->b, v, tt, "")
					 : LLVMBuildSIToFP(k->b, v, tt, "");
	/* int to int */
	unsigned fw = LLVMGetIntTypeWidth(ft), tw = LLVMGetIntTypeWidth(tt);
	if (fw == tw)
		return v;
	if (fw > tw)
		return LLVMBuildTrunc(k->b, v, tt, "");
	return cg_is_unsigned(from) ? LLVMBuildZExt(k->b, v, tt, "")
				 : LLVMBuildSExt(k->b, v, tt, "");
}

/* The address of element off of buffer b. */
LLVMValueRef
cg_addr(KernelBuilder *k, const Buf *b, LLVMValueRef off)
{
	return LLVMBuildInBoundsGEP2(k->b, stype(k, b->dt), b->ptr, &off, 1, "");
}

/* The i32 constant c. */
static LLVMValueRef
c32(KernelBuilder *k, long long c)
{
	return LLVMConstInt(k->i32, (unsigned long long)c, 1);
}

/*
 * float8 bits (i8) to f32, exactly (dtype_f8_decode in IR): a normal
 * value's exponent rebiased into f32's, a subnormal's significand times
 * its quantum, the NaN (and e5m2's infinity) codes mapped, the sign put
 * back.
 */
static LLVMValueRef
f8_to_f32(KernelBuilder *k, LLVMValueRef v, DType t)
{
	LLVMBuilderRef b = k->b;
	bool e5 = t == DT_F8E5M2;
	int m = e5 ? 2 : 3, bias = e5 ? 15 : 7, highest = e5 ? 0x7b : 0x7e;
	LLVMValueRef u = LLVMBuildZExt(b, v, k->i32, "");
	LLVMValueRef mag = LLVMBuildAnd(b, u, c32(k, 0x7f), "");
	LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, u, c32(k, 0x80), ""),
					 c32(k, 24), "");
	/* normal: (mag + ((127 - bias) << m)) << (23 - m) */
	LLVMValueRef nb = LLVMBuildShl(b, LLVMBuildAdd(b, mag, c32(k, (127 - bias) << m), ""),
				       c32(k, 23 - m), "");
	LLVMValueRef normal = LLVMBuildBitCast(b, nb, k->f32, "");
	/* subnormal: the mantissa times 2^(1 - bias - m) */
	LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mag, k->f32, ""),
					 LLVMConstReal(k->f32, ldexp(1, 1 - bias - m)), "");
	LLVMValueRef isnorm = LLVMBuildICmp(b, LLVMIntUGE, mag, c32(k, 1 << m), "");
	LLVMValueRef r = LLVMBuildSelect(b, isnorm, normal, sub, "");
	LLVMValueRef special = LLVMBuildICmp(b, LLVMIntUGT, mag, c32(k, highest), "");
	LLVMValueRef nan = LLVMConstReal(k->f32, NAN);
	LLVMValueRef sv = e5 ? LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, mag, c32(k, 0x7c), ""),
					       LLVMConstReal(k->f32, INFINITY), nan, "")
			     : nan;
	r = LLVMBuildSelect(b, special, sv, r, "");
	r = LLVMBuildBitCast(b, r, k->i32, "");
	return LLVMBuildBitCast(b, LLVMBuildOr(b, r, sign, ""), k->f32, "");
}

/* RNE of the low n bits of v (i32, 0 < n < 32, n may vary): v plus
 * what carries into bit n exactly when the dropped bits are above half,
 * or half and bit n is odd. */
static LLVMValueRef
rne_bits(KernelBuilder *k, LLVMValueRef v, LLVMValueRef n)
{
	LLVMBuilderRef b = k->b;
	LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, v, n, ""), c32(k, 1), "");
	LLVMValueRef half = LLVMBuildShl(b, c32(k, 1), LLVMBuildSub(b, n, c32(k, 1), ""), "");
	return LLVMBuildAdd(b, v, LLVMBuildAdd(b, odd, LLVMBuildSub(b, half, c32(k, 1), ""), ""), "");
}

/*
 * f32 to float8 bits (i8), as dtype_f8_encode (ml_dtypes' astype): to
 * nearest even; a value whose rounding passes the largest finite one is
 * infinity (float8_e4m3fn: NaN); NaN is the format's NaN; the sign is
 * kept. Values that are normal in the float8 keep their f32 exponent
 * (rebiased) and lose 23 - m significand bits; smaller ones are counted
 * in units of the smallest subnormal.
 */
static LLVMValueRef
f32_to_f8(KernelBuilder *k, LLVMValueRef f, DType t)
{
	LLVMBuilderRef b = k->b;
	bool e5 = t == DT_F8E5M2;
	int m = e5 ? 2 : 3, bias = e5 ? 15 : 7;
	int highest = e5 ? 0x7b : 0x7e, inf = e5 ? 0x7c : 0x7f, nan = e5 ? 0x7e : 0x7f;
	LLVMValueRef x = LLVMBuildBitCast(b, f, k->i32, "");
	LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildLShr(b, x, c32(k, 24), ""), c32(k, 0x80), "");
	LLVMValueRef u = LLVMBuildAnd(b, x, c32(k, 0x7fffffff), "");
	LLVMValueRef e = LLVMBuildLShr(b, u, c32(k, 23), "");
	/* normal in the float8: biased exponent e - 127 + bias >= 1 */
	LLVMValueRef n = rne_bits(k, u, c32(k, 23 - m));
	n = LLVMBuildSub(b, n, c32(k, (long long)(127 - bias) << 23), "");
	n = LLVMBuildLShr(b, n, c32(k, 23 - m), "");
	/* subnormal: significand (with its leading one when f32-normal)
	 * shifted right by 151 - bias - m - max(e, 1), at most 25 (beyond,
	 * the result rounds to 0 anyway) */
	LLVMValueRef lead = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, c32(k, 0), ""),
					    c32(k, 0), c32(k, 1 << 23), "");
	LLVMValueRef sig = LLVMBuildOr(b, LLVMBuildAnd(b, u, c32(k, 0x7fffff), ""), lead, "");
	LLVMValueRef e1 = cg_imax(k, e, c32(k, 1));
	LLVMValueRef sh = LLVMBuildSub(b, c32(k, 151 - bias - m), e1, "");
	sh = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, sh, c32(k, 25), ""), c32(k, 25), sh, "");
	LLVMValueRef s = LLVMBuildLShr(b, rne_bits(k, sig, sh), sh, "");
	LLVMValueRef isnorm = LLVMBuildICmp(b, LLVMIntUGE, e, c32(k, 128 - bias), "");
	LLVMValueRef code = LLVMBuildSelect(b, isnorm, n, s, "");
	code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, code, c32(k, highest), ""),
			       c32(k, inf), code, "");
	/* infinity and NaN of the f32 */
	LLVMValueRef special = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, u, c32(k, 0x7f800000), ""),
					       c32(k, inf), c32(k, nan), "");
	code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, u, c32(k, 0x7f800000), ""),
			       special, code, "");
	return LLVMBuildTrunc(b, LLVMBuildOr(b, code, sign, ""), k->i8, "");
}

/* Loads element off of b as a compute value. */
LLVMValueRef
cg_ld(KernelBuilder *k, const Buf *b, LLVMValueRef off)
{
	LLVMValueRef v = LLVMBuildLoad2(k->b, stype(k, b->dt), cg_addr(k, b, off), "");
	switch (b->dt) {
	case DT_BOOL:
		return LLVMBuildICmp(k->b, LLVMIntNE, v, LLVMConstInt(k->i8, 0, 0), "");
	case DT_F16:
		return LLVMBuildFPExt(k->b, v, k->f32, "");
	case DT_BF16:
		v = LLVMBuildShl(k->b, LLVMBuildZExt(k->b, v, k->i32, ""),
				 LLVMConstInt(k->i32, 16, 0), "");
		return LLVMBuildBitCast(k->b, v, k->f32, "");
	case DT_F8E4M3:
	case DT_F8E5M2:
		return f8_to_f32(k, v, b->dt);
	default:
		return v;
	}
}

/* f32 to bf16 bits, rounding to nearest even; NaN stays a (quiet) NaN. */
static LLVMValueRef
f32_to_bf16(KernelBuilder *k, LLVMValueRef f)
{
	LLVMBuilderRef b = k->b;
	LLVMValueRef u = LLVMBuildBitCast(b, f, k->i32, "");
	LLVMValueRef hi = LLVMBuildLShr(b, u, LLVMConstInt(k->i32, 16, 0), "");
	LLVMValueRef lsb = LLVMBuildAnd(b, hi, LLVMConstInt(k->i32, 1, 0), "");
	LLVMValueRef r = LLVMBuildAdd(b, u, LLVMConstInt(k->i32, 0x7fff, 0), "");
	r = LLVMBuildLShr(b, LLVMBuildAdd(b, r, lsb, ""),
			  LLVMConstInt(k->i32, 16, 0), "");
	LLVMValueRef nan = LLVMBuildOr(b, hi, LLVMConstInt(k->i32, 0x40, 0), "");
	LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, f, f, "");
	r = LLVMBuildSelect(b, isnan, nan, r, "");
	return LLVMBuildTrunc(b, r, k->i16, "");
}

/* f32 value v rounded to the nearest bfloat16 or float8 t (as a store
 * and a load would), as an f32. */
LLVMValueRef
cg_round_narrow(KernelBuilder *k, LLVMValueRef v, DType t)
{
	if (t == DT_BF16) {
		LLVMValueRef u = LLVMBuildZExt(k->b, f32_to_bf16(k, v), k->i32, "");
		u = LLVMBuildShl(k->b, u, LLVMConstInt(k->i32, 16, 0), "");
		return LLVMBuildBitCast(k->b, u, k->f32, "");
	}
	if (dtype_is_float8(t))
		return f8_to_f32(k, f32_to_f8(k, v, t), t);
	return v;
}

/* Stores compute value v (of b's dtype) as element off of b. */
void
cg_st(KernelBuilder *k, const Buf *b, LLVMValueRef off, LLVMValueRef v)
{
	switch (b->dt) {
	case DT_BOOL:
		v = LLVMBuildZExt(k->b, v, k->i8, "");
		break;
	case DT_F16:
		v = LLVMBuildFPTrunc(k->b, v, k->f16, "");
		break;
	case DT_BF16:
		v = f32_to_bf16(k, v);
		break;
	case DT_F8E4M3:
	case DT_F8E5M2:
		v = f32_to_f8(k, v, b->dt);
		break;
	default:
		break;
	}
	LLVMBuildStore(k->b, v, cg_addr(k, b, off));
}

/* A call to the intrinsic `name` overloaded on t. */
static LLVMValueRef
intrin(KernelBuilder *k, const char *name, LLVMTypeRef t, LLVMValueRef *args, int n)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ir_bug("no intrinsic %s", name);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(k->mod, id, &t, 1);
	LLVMTypeRef ft = LLVMIntrinsicGetType(k->c, id, &t, 1);
	return LLVMBuildCall2(k->b, ft, f, args, (unsigned)n, "");
}

/* intrinsic of one float argument. */
LLVMValueRef
cg_fn1(KernelBuilder *k, const char *name, LLVMValueRef x)
{
	return intrin(k, name, LLVMTypeOf(x), &x, 1);
}

/* A call to libm's `name` (float or double by x's type): tanh, erf. */
static LLVMValueRef
libm(KernelBuilder *k, const char *name, LLVMValueRef x)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	char full[32];
	snprintf(full, sizeof full, "%s%s", name, t == k->f32 ? "f" : "");
	LLVMTypeRef ft = LLVMFunctionType(t, &t, 1, false);
	LLVMValueRef f = LLVMGetNamedFunction(k->mod, full);
	if (!f)
		f = LLVMAddFunction(k->mod, full, ft);
	return LLVMBuildCall2(k->b, ft, f, &x, 1, "");
}

static LLVMValueRef
fconst(LLVMValueRef like, double v)
{
	return LLVMConstReal(LLVMTypeOf(like), v);
}

/* max or min of two compute values of dtype t; NaN wins as in numpy. */
LLVMValueRef
cg_vmax(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b, DType t, bool is_max)
{
	if (!dtype_is_float(t)) {
		LLVMIntPredicate p = cg_is_unsigned(t) ? (is_max ? LLVMIntUGT : LLVMIntULT)
						    : (is_max ? LLVMIntSGT : LLVMIntSLT);
		return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, p, a, b, ""), a, b, "");
	}
	LLVMValueRef m = LLVMBuildSelect(
		k->b, LLVMBuildFCmp(k->b, is_max ? LLVMRealOGT : LLVMRealOLT, a, b, ""),
		a, b, "");
	LLVMValueRef uno = LLVMBuildFCmp(k->b, LLVMRealUNO, a, b, "");
	return LLVMBuildSelect(k->b, uno, LLVMBuildFAdd(k->b, a, b, ""), m, "");
}

/* Allows a*b+c to become one fma. */
LLVMValueRef
cg_contract(LLVMValueRef v)
{
	if (LLVMCanValueUseFastMathFlags(v))
		LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
	return v;
}

/*
 * exp(x) in straight-line arithmetic, so loops calling it vectorize (the
 * llvm.exp intrinsic becomes one libm call per element). f32: x = n ln2 +
 * r with |r| <= ln2/2 (ln2 split in two for an exact product), e^r by its
 * degree-7 Taylor polynomial (error below 2^-24 relative on that range),
 * times 2^n built in the exponent bits of two halves. Below -87.33 the result is 0
 * (no subnormals), above 88.72 +inf; NaN stays NaN. f64 uses llvm.exp.
 */
LLVMValueRef
cg_fexp(KernelBuilder *k, LLVMValueRef x)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	if (t != k->f32)
		return cg_fn1(k, "llvm.exp", x);
	LLVMBuilderRef b = k->b;
	LLVMValueRef lo = fconst(x, -87.33), hi = fconst(x, 88.72);
	LLVMValueRef xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, lo, ""), lo, x, "");
	xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, xc, hi, ""), hi, xc, "");
	LLVMValueRef n = cg_fn1(k, "llvm.rint",
			     LLVMBuildFMul(b, xc, fconst(x, 1.44269504088896341), ""));
	LLVMValueRef r = LLVMBuildFSub(b, xc, LLVMBuildFMul(b, n, fconst(x, 0.693359375), ""), "");
	r = LLVMBuildFSub(b, r, LLVMBuildFMul(b, n, fconst(x, -2.12194440e-4), ""), "");
	/* Horner: 1 + r(1 + r/2(1 + r/3(1 + ... ))) with 1/k! coefficients */
	static const double c[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
				   1.0 / 6, 0.5, 1.0, 1.0};
	LLVMValueRef p = fconst(x, c[0]);
	for (size_t i = 1; i < ARRAY_LEN(c); i++)
		p = cg_contract(LLVMBuildFAdd(b, cg_contract(LLVMBuildFMul(b, p, r, "")),
					   fconst(x, c[i]), ""));
	/* 2^n as 2^h * 2^(n-h), h = n/2: both normal for n in [-126, 128] */
	LLVMValueRef ni = LLVMBuildFPToSI(b, n, k->i32, "");
	LLVMValueRef h = LLVMBuildSDiv(b, ni, LLVMConstInt(k->i32, 2, 0), "");
	LLVMValueRef y = p;
	LLVMValueRef parts[2] = {h, LLVMBuildSub(b, ni, h, "")};
	for (int i = 0; i < 2; i++) {
		LLVMValueRef e = LLVMBuildShl(b,
			LLVMBuildAdd(b, parts[i], LLVMConstInt(k->i32, 127, 0), ""),
			LLVMConstInt(k->i32, 23, 0), "");
		y = LLVMBuildFMul(b, y, LLVMBuildBitCast(b, e, k->f32, ""), "");
	}
	y = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, lo, ""), fconst(x, 0), y, "");
	y = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, hi, ""),
			    fconst(x, INFINITY), y, "");
	return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""), x, y, "");
}

/* Allows a sum's terms to be added in another order (so a reduction loop
 * vectorizes with several partial sums), and a*b+c to be one fma. */
LLVMValueRef
cg_reassoc(LLVMValueRef v)
{
	if (LLVMCanValueUseFastMathFlags(v))
		LLVMSetFastMathFlags(v, LLVMFastMathAllowReassoc |
				     LLVMFastMathAllowContract);
	return v;
}

/* --------------------------------------------------------- attributes */

/* Attribute p of the call (op_attr.h: by slot). */
AttrVal
cg_attr(OpKernel *o, ParamName p)
{
	return *op_attr(o->e, p);
}

/* Folds a PExpr of constants; false when it has a variable. */
bool
cg_pe_const(const PExpr *x, int64_t *out)
{
	int64_t a, b;
	switch (x->kind) {
	case PE_INT:
		*out = x->value;
		return true;
	case PE_VAR:
		return false;
	default:
		if (!cg_pe_const(x->a, &a) || !cg_pe_const(x->b, &b))
			return false;
		break;
	}
	switch (x->kind) {
	case PE_ADD: *out = a + b; return true;
	case PE_SUB: *out = a - b; return true;
	case PE_MUL: *out = a * b; return true;
	case PE_MIN: *out = a < b ? a : b; return true;
	case PE_MAX: *out = a > b ? a : b; return true;
	case PE_EQ: *out = a == b; return true;
	case PE_NE: *out = a != b; return true;
	case PE_LT: *out = a < b; return true;
	case PE_LE: *out = a <= b; return true;
	case PE_GT: *out = a > b; return true;
	case PE_GE: *out = a >= b; return true;
	case PE_FLOORDIV:
	case PE_FLOORMOD:
		if (!b)
			return false;
		{
			int64_t q = a / b;
			if ((a % b != 0) && ((a < 0) != (b < 0)))
				q--;
			*out = x->kind == PE_FLOORDIV ? q : a - q * b;
		}
		return true;
	default:
		return false;
	}
}

/* The prim argument p as a number; false when it is not a constant. */
bool
cg_prim_arg(OpKernel *o, ParamName p, double *out)
{
	Expr *x = op_arg(o->e, p);
	int64_t v;
	if (!x || x->kind != E_PRIM)
		return false;
	if (dtype_is_float(x->prim.dtype)) {
		*out = x->prim.f;
		return true;
	}
	if (!x->prim.value || !cg_pe_const(x->prim.value, &v))
		return false;
	*out = (double)v;
	return true;
}

/*
 * The integer prim argument p as an i64: a constant, or (a symbolic value,
 * an R.Prim variable) a scalar of the kernel, read from dims at run time
 * (CgKernel.scalar_arg). NULL with a diagnostic when p cannot be one.
 */
LLVMValueRef
cg_prim_i64(OpKernel *o, ParamName p)
{
	KernelBuilder *k = o->k;
	Expr *x = op_arg(o->e, p);
	double v;
	if (x && cg_prim_arg(o, p, &v))
		return cg_ci(k, (int64_t)v);
	const SInfo *si = x ? ir_expr_sinfo(x) : NULL;
	int a = 0;
	while (x && a < o->e->call.nargs && o->e->call.args[a] != x)
		a++;
	if (!x || a == o->e->call.nargs || !si || si->kind != SI_PRIM ||
	    !dtype_is_int(si->dtype)) {
		cg_fail(o, arena_printf(&k->m->arena, "%s must be an integer",
				     op_param_names[p]));
		return NULL;
	}
	for (int i = 0; i < k->nscalars; i++)
		if (k->scalar_arg[i] == a)
			return k->scalar[i];
	if (k->nscalars == CG_MAX_SCALARS) {
		cg_fail(o, "too many prim arguments known only at run time");
		return NULL;
	}
	/* loaded in the entry block, where the dims are */
	LLVMBuilderRef eb = LLVMCreateBuilderInContext(k->c);
	LLVMValueRef first = LLVMGetFirstInstruction(k->entry);
	while (first && LLVMIsAAllocaInst(first))
		first = LLVMGetNextInstruction(first);
	if (first)
		LLVMPositionBuilderBefore(eb, first);
	else
		LLVMPositionBuilderAtEnd(eb, k->entry);
	LLVMValueRef oi = cg_ci(k, k->ndim_bufs + k->nscalars);
	LLVMValueRef sv = LLVMBuildLoad2(eb, k->i64,
		LLVMBuildInBoundsGEP2(eb, k->i64, k->dims, &oi, 1, ""), "scalar");
	LLVMDisposeBuilder(eb);
	k->scalar_arg[k->nscalars] = a;
	k->scalar[k->nscalars++] = sv;
	return sv;
}

/* Normalizes a possibly negative axis; false when out of range. */
bool
cg_norm_axis(int64_t a, int nd, int *out)
{
	if (a < 0)
		a += nd;
	if (a < 0 || a >= (nd ? nd : 1))
		return false;
	*out = (int)a;
	return true;
}

/* The extents around an axis attribute of x: outer (the dims before it),
 * n (its own), inner (after it); None is the flattened data (1, all, 1).
 * False when the axis is out of range. */
bool
cg_axis_extents(KernelBuilder *k, Buf *x, AttrVal av, LLVMValueRef *outer, LLVMValueRef *n,
	     LLVMValueRef *inner)
{
	if (av.kind == AV_NONE) {
		*outer = *inner = cg_ci(k, 1);
		*n = cg_prod(k, x->dim, 0, x->nd);
		return true;
	}
	int ax;
	if (!cg_norm_axis(av.i, x->nd, &ax) || x->nd == 0)
		return false;
	*outer = cg_prod(k, x->dim, 0, ax);
	*n = x->dim[ax];
	*inner = cg_prod(k, x->dim, ax + 1, x->nd);
	return true;
}

/* Reports that the call cannot be lowered, and why; returns false. */
bool
cg_fail(OpKernel *o, const char *why)
{
	KernelBuilder *k = o->k;
	diag_error(k->d, o->e->span, "cannot generate code for %s: %s",
		   op_info(o->e->call.op)->name, why);
	return false;
}

/* -------------------------------------------------------- elementwise */

/* The computation of one output element from its input elements; returns
 * a compute value of dtype *rdt. */
typedef LLVMValueRef (*ElemFn)(OpKernel *o, LLVMValueRef *in, DType *rdt);

/* Do the dims of b equal those of out (same tokens)? */
static bool
same_dims(const Buf *b, const Buf *out)
{
	if (b->nd != out->nd)
		return false;
	for (int i = 0; i < b->nd; i++)
		if (strcmp(b->tok[i], out->tok[i]))
			return false;
	return true;
}

/*
 * out[i] = f(in_0[i'], ...) over the output, inputs broadcast numpy style
 * (aligned on the right; a dim of 1 repeats). When every input has the
 * output's shape it is one flat loop.
 */
static bool
gen_elementwise(OpKernel *o, ElemFn f)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[k->nin];
	LLVMValueRef in[MAXBUF], idx[MAXD];
	DType rdt, dts[MAXBUF];
	for (int i = 0; i < k->nin; i++)
		dts[i] = k->buf[i].dt;
	o->edt = dts;
	o->enin = k->nin;
	o->odt = out->dt;
	bool flat = true;
	for (int i = 0; i < k->nin; i++)
		flat = flat && same_dims(&k->buf[i], out);
	LLVMValueRef total = cg_prod(k, out->dim, 0, out->nd);
	if (flat) {
		/* blocks of PAR_BLK elements across the pool */
		Loop lb, l;
		LLVMValueRef nblk = LLVMBuildSDiv(k->b, cg_add(k, total, cg_ci(k, PAR_BLK - 1)),
						  cg_ci(k, PAR_BLK), "");
		LLVMValueRef j0 = cg_mul(k, cg_par_begin(k, &lb, nblk, total), cg_ci(k, PAR_BLK));
		LLVMValueRef j = cg_loop_from(k, &l, j0, cg_imin(k, cg_add(k, j0, cg_ci(k, PAR_BLK)), total));
		for (int i = 0; i < k->nin; i++)
			in[i] = cg_ld(k, &k->buf[i], j);
		LLVMValueRef v = f(o, in, &rdt);
		cg_st(k, out, j, cg_cvt(k, v, rdt, out->dt));
		cg_loop_end(k, &l);
		cg_loop_end(k, &lb);
		return true;
	}
	/* Strides of each input by output dim, 0 where broadcast. */
	LLVMValueRef ist[MAXBUF][MAXD], ost[MAXD];
	cg_strides(k, out, ost);
	for (int i = 0; i < k->nin; i++) {
		Buf *b = &k->buf[i];
		LLVMValueRef s[MAXD];
		int lead = out->nd - b->nd;
		if (lead < 0)
			return cg_fail(o, "an input has more dims than the result");
		cg_strides(k, b, s);
		for (int j = 0; j < out->nd; j++) {
			if (j < lead) {
				ist[i][j] = cg_ci(k, 0);
			} else if (!strcmp(b->tok[j - lead], out->tok[j])) {
				ist[i][j] = s[j - lead];
			} else {
				LLVMValueRef one = LLVMBuildICmp(
					k->b, LLVMIntEQ, b->dim[j - lead], cg_ci(k, 1), "");
				ist[i][j] = LLVMBuildSelect(k->b, one, cg_ci(k, 0),
							    s[j - lead], "");
			}
		}
	}
	/* broadcast: the outer dims across the pool, the last one inside
	 * (out->nd >= 1 here: a 0-d result is always flat) */
	Loop lo, li;
	int nd = out->nd;
	cg_par_nest(k, &lo, out->dim, nd, idx, total);
	idx[nd - 1] = cg_loop_begin(k, &li, out->dim[nd - 1]);
	for (int i = 0; i < k->nin; i++)
		in[i] = cg_ld(k, &k->buf[i], cg_dot(k, idx, ist[i], nd));
	LLVMValueRef v = f(o, in, &rdt);
	cg_st(k, out, cg_dot(k, idx, ost, nd), cg_cvt(k, v, rdt, out->dt));
	cg_loop_end(k, &li);
	cg_loop_end(k, &lo);
	return true;
}

static const double SQRT1_2 = 0.70710678118654752440;
static const double SQRT_2_PI = 0.79788456080286535588;

/* 1 / (1 + exp(-x)) */
static LLVMValueRef
sigmoid(KernelBuilder *k, LLVMValueRef x)
{
	LLVMValueRef e = cg_fexp(k, LLVMBuildFNeg(k->b, x, ""));
	return LLVMBuildFDiv(k->b, fconst(x, 1),
			     LLVMBuildFAdd(k->b, fconst(x, 1), e, ""), "");
}

/* The bool-valued unary ops: logical_not, and isnan/isinf/isfinite
 * tested in the input's dtype (integers are finite numbers). */
static LLVMValueRef
elem_test(OpKernel *o, OpKind op, LLVMValueRef v)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	if (op == OP_LOGICAL_NOT)
		return LLVMBuildNot(b, cg_cvt(k, v, o->edt[0], DT_BOOL), "");
	if (!dtype_is_float(o->edt[0]))
		return LLVMConstInt(k->i1, op == OP_ISFINITE, 0);
	if (op == OP_ISNAN)
		return LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
	LLVMValueRef a = cg_fn1(k, "llvm.fabs", v);
	return LLVMBuildFCmp(b, op == OP_ISINF ? LLVMRealOEQ : LLVMRealOLT, a,
			     fconst(a, INFINITY), "");
}

/* sign(x) in dtype t: -1, 0 or 1 (a float NaN stays NaN). */
static LLVMValueRef
elem_sign(OpKernel *o, LLVMValueRef x, DType t)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	LLVMValueRef zero = cg_cconst(k, t, 0), one = cg_cconst(k, t, 1);
	if (dtype_is_float(t)) {
		LLVMValueRef neg = LLVMBuildSelect(
			b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
			cg_cconst(k, t, -1), x, "");
		return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""),
				       one, neg, "");
	}
	LLVMValueRef gt = LLVMBuildICmp(b, cg_is_unsigned(t) ? LLVMIntUGT : LLVMIntSGT, x, zero, "");
	LLVMValueRef lt = LLVMBuildICmp(b, LLVMIntSLT, x, zero, "");
	if (cg_is_unsigned(t))
		lt = LLVMConstInt(k->i1, 0, 0);
	return LLVMBuildSelect(b, gt, one,
			       LLVMBuildSelect(b, lt, cg_cconst(k, t, -1), zero, ""), "");
}

/* gelu: x/2 (1 + erf(x / sqrt 2)); gelu_tanh: x/2 (1 + tanh(sqrt(2/pi)
 * (x + 0.044715 x^3))). */
static LLVMValueRef
elem_gelu(OpKernel *o, LLVMValueRef x, bool tanh_form)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	LLVMValueRef g;
	if (!tanh_form) {
		g = libm(k, "erf", LLVMBuildFMul(b, x, fconst(x, SQRT1_2), ""));
	} else {
		LLVMValueRef x3 = LLVMBuildFMul(b, LLVMBuildFMul(b, x, x, ""), x, "");
		LLVMValueRef u = LLVMBuildFAdd(b, x, LLVMBuildFMul(b, x3, fconst(x, 0.044715), ""), "");
		g = libm(k, "tanh", LLVMBuildFMul(b, u, fconst(x, SQRT_2_PI), ""));
	}
	LLVMValueRef h = LLVMBuildFMul(b, x, fconst(x, 0.5), "");
	return LLVMBuildFMul(b, h, LLVMBuildFAdd(b, fconst(x, 1), g, ""), "");
}

/* softplus: log(1 + exp(beta x)) / beta, x itself above the threshold. */
static LLVMValueRef
elem_softplus(OpKernel *o, LLVMValueRef x)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	double beta = cg_attr(o, P_beta).f, th = cg_attr(o, P_threshold).f;
	LLVMValueRef bx = LLVMBuildFMul(b, x, fconst(x, beta), "");
	LLVMValueRef sp = LLVMBuildFDiv(b, libm(k, "log1p", cg_fexp(k, bx)), fconst(x, beta), "");
	return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, bx, fconst(x, th), ""), x, sp, "");
}

/* selu: scale * (x > 0 ? x : alpha * (exp(x) - 1)). */
static LLVMValueRef
elem_selu(OpKernel *o, LLVMValueRef x)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	LLVMValueRef neg = LLVMBuildFMul(b, fconst(x, 1.6732632423543772848),
		LLVMBuildFSub(b, cg_fexp(k, x), fconst(x, 1), ""), "");
	LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, x, fconst(x, 0), "");
	return LLVMBuildFMul(b, LLVMBuildSelect(b, pos, x, neg, ""),
			     fconst(x, 1.0507009873554804934), "");
}

/* Unary ops and the other one-input elementwise ops: one case per op, its
 * scalar body or the helper above that holds it. */
static LLVMValueRef
elem_unary(OpKernel *o, LLVMValueRef *in, DType *rdt)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	DType t = o->odt; /* compute in the result's dtype */
	OpKind op = o->e->call.op;
	*rdt = t;
	if (op == OP_LOGICAL_NOT || op == OP_ISNAN || op == OP_ISINF || op == OP_ISFINITE) {
		*rdt = DT_BOOL;
		return elem_test(o, op, in[0]);
	}
	LLVMValueRef x = o->enin ? cg_cvt(k, in[0], o->edt[0], t) : NULL;
	bool fl = dtype_is_float(t);
	LLVMValueRef zero = cg_cconst(k, t, 0), one = cg_cconst(k, t, 1);
	switch (op) {
	case OP_NEGATIVE:
		return fl ? LLVMBuildFNeg(b, x, "") : LLVMBuildSub(b, zero, x, "");
	case OP_ABS:
		if (fl)
			return cg_fn1(k, "llvm.fabs", x);
		if (cg_is_unsigned(t))
			return x;
		return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""),
				       LLVMBuildSub(b, zero, x, ""), x, "");
	case OP_EXP: return cg_fexp(k, x);
	case OP_LOG: return cg_fn1(k, "llvm.log", x);
	case OP_SQRT: return cg_fn1(k, "llvm.sqrt", x);
	case OP_RSQRT:
		return LLVMBuildFDiv(b, one, cg_fn1(k, "llvm.sqrt", x), "");
	case OP_SIN: return cg_fn1(k, "llvm.sin", x);
	case OP_COS: return cg_fn1(k, "llvm.cos", x);
	case OP_TANH: return libm(k, "tanh", x);
	case OP_ERF: return libm(k, "erf", x);
	case OP_SIGMOID: return sigmoid(k, x);
	case OP_ROUND: return fl ? cg_fn1(k, "llvm.roundeven", x) : x;
	case OP_FLOOR: return fl ? cg_fn1(k, "llvm.floor", x) : x;
	case OP_CEIL: return fl ? cg_fn1(k, "llvm.ceil", x) : x;
	case OP_SIGN: return elem_sign(o, x, t);
	case OP_CLIP: {
		double lo = 0, hi = 0; /* constants: cg_fusable and gen_clip check */
		cg_prim_arg(o, P_min, &lo);
		cg_prim_arg(o, P_max, &hi);
		x = cg_vmax(k, x, cg_cconst(k, t, lo), t, true);
		return cg_vmax(k, x, cg_cconst(k, t, hi), t, false);
	}
	case OP_RELU:
		if (fl)
			return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
					       zero, x, "");
		return cg_vmax(k, x, zero, t, true);
	case OP_SILU:
		return LLVMBuildFMul(b, x, sigmoid(k, x), "");
	case OP_GELU: return elem_gelu(o, x, false);
	case OP_GELU_TANH: return elem_gelu(o, x, true);
	case OP_SQUARE:
		return fl ? LLVMBuildFMul(b, x, x, "") : LLVMBuildMul(b, x, x, "");
	case OP_TAN: return libm(k, "tan", x);
	case OP_SINH: return libm(k, "sinh", x);
	case OP_COSH: return libm(k, "cosh", x);
	case OP_ASIN: return libm(k, "asin", x);
	case OP_ACOS: return libm(k, "acos", x);
	case OP_ATAN: return libm(k, "atan", x);
	case OP_ASINH: return libm(k, "asinh", x);
	case OP_ACOSH: return libm(k, "acosh", x);
	case OP_ATANH: return libm(k, "atanh", x);
	case OP_TRUNC: return fl ? cg_fn1(k, "llvm.trunc", x) : x;
	case OP_BITWISE_NOT: return LLVMBuildNot(b, x, "");
	case OP_LEAKYRELU: {
		LLVMValueRef ax = LLVMBuildFMul(b, x, fconst(x, cg_attr(o, P_alpha).f), "");
		return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""), x, ax, "");
	}
	case OP_SOFTPLUS: return elem_softplus(o, x);
	case OP_SELU: return elem_selu(o, x);
	case OP_ZEROS:
	case OP_ZEROS_LIKE:
		return zero;
	case OP_ONES:
	case OP_ONES_LIKE:
		return one;
	default: /* astype, broadcast_to, copies: the conversion is all */
		return x;
	}
}

/* Integer division a / b rounding toward zero or -inf; 0 for b == 0. */
static LLVMValueRef
idiv(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b, DType t, bool floor_)
{
	LLVMBuilderRef bl = k->b;
	LLVMValueRef zero = cg_cconst(k, t, 0);
	LLVMValueRef bz = LLVMBuildICmp(bl, LLVMIntEQ, b, zero, "");
	LLVMValueRef safe = LLVMBuildSelect(bl, bz, cg_cconst(k, t, 1), b, "");
	if (cg_is_unsigned(t))
		return LLVMBuildSelect(bl, bz, zero, LLVMBuildUDiv(bl, a, safe, ""), "");
	/* INT_MIN / -1 overflows: divide by 1 and negate instead. */
	LLVMValueRef m1 = LLVMBuildICmp(bl, LLVMIntEQ, safe, cg_cconst(k, t, -1), "");
	safe = LLVMBuildSelect(bl, m1, cg_cconst(k, t, 1), safe, "");
	LLVMValueRef q = LLVMBuildSDiv(bl, a, safe, "");
	q = LLVMBuildSelect(bl, m1, LLVMBuildSub(bl, zero, q, ""), q, "");
	if (floor_) {
		LLVMValueRef r = LLVMBuildSub(bl, a, LLVMBuildMul(bl, q, b, ""), "");
		LLVMValueRef rn = LLVMBuildICmp(bl, LLVMIntNE, r, zero, "");
		LLVMValueRef sgn = LLVMBuildXor(bl, LLVMBuildICmp(bl, LLVMIntSLT, r, zero, ""),
						LLVMBuildICmp(bl, LLVMIntSLT, b, zero, ""), "");
		LLVMValueRef adj = LLVMBuildAnd(bl, rn, sgn, "");
		q = LLVMBuildSelect(bl, adj, LLVMBuildSub(bl, q, cg_cconst(k, t, 1), ""), q, "");
	}
	return LLVMBuildSelect(bl, bz, zero, q, "");
}

/* Comparison op's row in elem_binary's predicate tables (==, !=, <, <=, >,
 * >=); -1 for another op. */
static int
cmp_index(OpKind op)
{
	switch (op) {
	case OP_EQUAL: return 0;
	case OP_NOT_EQUAL: return 1;
	case OP_LESS: return 2;
	case OP_LESS_EQUAL: return 3;
	case OP_GREATER: return 4;
	case OP_GREATER_EQUAL: return 5;
	default: return -1;
	}
}

/* Binary arithmetic, comparisons, logical ops, where and full. */
static LLVMValueRef
elem_binary(OpKernel *o, LLVMValueRef *in, DType *rdt)
{
	KernelBuilder *k = o->k;
	LLVMBuilderRef b = k->b;
	OpKind op = o->e->call.op;
	DType out = o->odt;
	if (op == OP_WHERE) {
		*rdt = out;
		return LLVMBuildSelect(b, cg_cvt(k, in[0], o->edt[0], DT_BOOL),
				       cg_cvt(k, in[1], o->edt[1], out),
				       cg_cvt(k, in[2], o->edt[2], out), "");
	}
	if (op == OP_FULL || op == OP_FULL_LIKE) {
		int i = o->enin - 1; /* fill_value, a tensor */
		*rdt = o->edt[i];
		return in[i];
	}
	if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR || op == OP_LOGICAL_XOR) {
		*rdt = DT_BOOL;
		LLVMValueRef x = cg_cvt(k, in[0], o->edt[0], DT_BOOL);
		LLVMValueRef y = cg_cvt(k, in[1], o->edt[1], DT_BOOL);
		return op == OP_LOGICAL_AND ? LLVMBuildAnd(b, x, y, "")
		       : op == OP_LOGICAL_OR ? LLVMBuildOr(b, x, y, "")
					     : LLVMBuildXor(b, x, y, "");
	}
	if (op == OP_EWISE_FMA) {
		*rdt = out;
		LLVMValueRef x = cg_cvt(k, in[0], o->edt[0], out), y = cg_cvt(k, in[1], o->edt[1], out);
		LLVMValueRef z = cg_cvt(k, in[2], o->edt[2], out);
		if (dtype_is_float(out))
			return cg_contract(LLVMBuildFAdd(b, cg_contract(LLVMBuildFMul(b, x, y, "")), z, ""));
		return LLVMBuildAdd(b, LLVMBuildMul(b, x, y, ""), z, "");
	}
	int ci = cmp_index(op);
	bool cmp = ci >= 0;
	/* a comparison compares in the left operand's dtype, or in the other's
	 * when the left is bool (TVM lets a bool operand meet another dtype) */
	DType t = !cmp ? out : o->edt[0] == DT_BOOL ? o->edt[1] : o->edt[0];
	LLVMValueRef x = cg_cvt(k, in[0], o->edt[0], t);
	LLVMValueRef y = cg_cvt(k, in[1], o->edt[1], t);
	bool fl = dtype_is_float(t), un = cg_is_unsigned(t);
	*rdt = cmp ? DT_BOOL : t;
	if (cmp) {
		static const LLVMRealPredicate fp[] = {
			LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT,
			LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
		static const LLVMIntPredicate sp[] = {
			LLVMIntEQ, LLVMIntNE, LLVMIntSLT,
			LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
		static const LLVMIntPredicate up[] = {
			LLVMIntEQ, LLVMIntNE, LLVMIntULT,
			LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
		if (fl)
			return LLVMBuildFCmp(b, fp[ci], x, y, "");
		return LLVMBuildICmp(b, un ? up[ci] : sp[ci], x, y, "");
	}
	switch (op) {
	case OP_ADD:
		return fl ? LLVMBuildFAdd(b, x, y, "") : LLVMBuildAdd(b, x, y, "");
	case OP_SUBTRACT:
		return fl ? LLVMBuildFSub(b, x, y, "") : LLVMBuildSub(b, x, y, "");
	case OP_MULTIPLY:
		return fl ? LLVMBuildFMul(b, x, y, "") : LLVMBuildMul(b, x, y, "");
	case OP_DIVIDE:
		return fl ? LLVMBuildFDiv(b, x, y, "") : idiv(k, x, y, t, false);
	case OP_FLOOR_DIVIDE:
		return fl ? cg_fn1(k, "llvm.floor", LLVMBuildFDiv(b, x, y, ""))
			  : idiv(k, x, y, t, true);
	case OP_POWER: {
		LLVMValueRef args[2];
		if (fl) {
			args[0] = x;
			args[1] = y;
			return intrin(k, "llvm.pow", LLVMTypeOf(x), args, 2);
		}
		args[0] = cg_cvt(k, x, t, DT_F64);
		args[1] = cg_cvt(k, y, t, DT_F64);
		*rdt = DT_F64;
		return intrin(k, "llvm.pow", k->f64, args, 2);
	}
	case OP_MOD: /* C's fmod / truncated remainder: the sign of x */
		if (fl)
			return LLVMBuildFRem(b, x, y, "");
		return LLVMBuildSub(b, x, LLVMBuildMul(b, idiv(k, x, y, t, false), y, ""), "");
	case OP_FLOOR_MOD: /* the sign of y, as numpy's mod */
		if (fl) {
			LLVMValueRef r = LLVMBuildFRem(b, x, y, "");
			LLVMValueRef adj = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealONE, r, fconst(r, 0), ""),
				LLVMBuildXor(b, LLVMBuildFCmp(b, LLVMRealOLT, r, fconst(r, 0), ""),
					     LLVMBuildFCmp(b, LLVMRealOLT, y, fconst(y, 0), ""), ""), "");
			return LLVMBuildSelect(b, adj, LLVMBuildFAdd(b, r, y, ""), r, "");
		}
		return LLVMBuildSub(b, x, LLVMBuildMul(b, idiv(k, x, y, t, true), y, ""), "");
	case OP_BITWISE_AND: return LLVMBuildAnd(b, x, y, "");
	case OP_BITWISE_OR: return LLVMBuildOr(b, x, y, "");
	case OP_BITWISE_XOR: return LLVMBuildXor(b, x, y, "");
	case OP_LEFT_SHIFT:
	case OP_RIGHT_SHIFT: {
		/* as numpy: a count of the width or more (a negative one read
		 * as unsigned is) shifts everything out: 0, or the sign for a
		 * signed right shift */
		LLVMTypeRef ty = LLVMTypeOf(x);
		unsigned w = LLVMGetIntTypeWidth(ty);
		LLVMValueRef zero = LLVMConstInt(ty, 0, 0);
		LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, y, LLVMConstInt(ty, w, 0), "");
		LLVMValueRef n = LLVMBuildSelect(b, big, zero, y, "");
		if (op == OP_LEFT_SHIFT)
			return LLVMBuildSelect(b, big, zero, LLVMBuildShl(b, x, n, ""), "");
		LLVMValueRef fill = un ? zero : LLVMBuildAShr(b, x, LLVMConstInt(ty, w - 1, 0), "");
		LLVMValueRef r = un ? LLVMBuildLShr(b, x, n, "") : LLVMBuildAShr(b, x, n, "");
		return LLVMBuildSelect(b, big, fill, r, "");
	}
	case OP_MAXIMUM: return cg_vmax(k, x, y, t, true);
	case OP_MINIMUM: return cg_vmax(k, x, y, t, false);
	default: ir_bug("not a binary op");
	}
}

/* ------------------------------------------------- fused elementwise */

/* 1 for an op computed by elem_unary, 2 by elem_binary (from the op
 * table's class), 0 for any other op. */
static int
elem_class(OpKind op)
{
	switch (op_info(op)->cls) {
	case OC_ELEMWISE: return 1;
	case OC_BROADCAST: return 2;
	default: return 0;
	}
}

/* Is x a constant prim value (what cg_prim_arg accepts)? */
static bool
const_prim(const Expr *x)
{
	int64_t v;
	return x && x->kind == E_PRIM &&
	       (dtype_is_float(x->prim.dtype) ||
		(x->prim.value && cg_pe_const(x->prim.value, &v)));
}

/* Can op call e be a node of a fused elementwise kernel (see codegen.h)? */
bool
cg_fusable(const Expr *e)
{
	if (e->kind != E_CALL || !elem_class(e->call.op))
		return false;
	if (e->call.op == OP_CLIP) {
		const Expr *lo = op_arg(e, P_min), *hi = op_arg(e, P_max);
		if (!lo || !const_prim(lo) || !hi || !const_prim(hi))
			return false;
	}
	return true;
}

/* May reduction op read its data from fused producers (see codegen.h)? */
bool
cg_reduce_fusable(OpKind op)
{
	return op_info(op)->flags & OF_FUSE_INPUT;
}

/* The root node of fu: the call the kernel is for. */
static int
fu_root(const CgFusion *fu)
{
	return fu->n - 1;
}

/*
 * The value of node nd of o's fusion, an elementwise call: the arguments
 * producers compute are computed recursively (rounded to their dtype, as
 * storing would), its tensor arguments are the next leaves (the kernel's
 * input buffers, in argument order, depth first). Runs elem_unary /
 * elem_binary with o->e, the node's dtypes switched to the node's call,
 * and restores them.
 */
static LLVMValueRef
elem_node(OpKernel *o, int nd, LLVMValueRef *leaves, int *next, DType *rdt)
{
	KernelBuilder *k = o->k;
	Expr *e = o->fu->node[nd].call;
	LLVMValueRef in[MAXBUF];
	DType dts[MAXBUF];
	int n = 0;
	for (int i = 0; i < e->call.nargs && n < MAXBUF; i++) {
		Expr *x = e->call.args[i];
		int from = cg_from(o->fu, nd, i);
		if (from >= 0) {
			DType r, pdt = o->fu->node[from].call->sinfo->dtype;
			LLVMValueRef v = elem_node(o, from, leaves, next, &r);
			in[n] = cg_cvt(k, v, r, pdt);
			dts[n++] = pdt;
			continue;
		}
		const SInfo *si = x->sinfo ? x->sinfo
					   : x->kind == E_VAR ? x->var->sinfo : NULL;
		if (x->kind == E_PRIM || !si || si->kind == SI_SHAPE ||
		    si->kind == SI_PRIM)
			continue;
		in[n] = leaves[*next];
		dts[n++] = k->buf[*next].dt;
		(*next)++;
	}
	Expr *se = o->e;
	const DType *sedt = o->edt;
	int senin = o->enin;
	DType sodt = o->odt;
	o->e = e;
	o->edt = dts;
	o->enin = n;
	o->odt = e->sinfo->dtype;
	LLVMValueRef v = elem_class(e->call.op) == 1 ? elem_unary(o, in, rdt)
						     : elem_binary(o, in, rdt);
	o->e = se;
	o->edt = sedt;
	o->enin = senin;
	o->odt = sodt;
	return v;
}

/* ElemFn of a fused kernel: the root of o's fusion and its producers. */
static LLVMValueRef
elem_fused(OpKernel *o, LLVMValueRef *in, DType *rdt)
{
	int next = 0;
	return elem_node(o, fu_root(o->fu), in, &next, rdt);
}

/* ---------------------------------------------------------- matmul */

/* The batch offsets of a matmul's operands (gen_matmul). */
typedef struct {
	int cnb;                 /* batch dims of the result */
	LLVMValueRef as[MAXD];   /* a's stride by result batch dim, 0: broadcast */
	LLVMValueRef bs[MAXD];
} MmBatch;

/* Fills mb for c = a @ bb; false when the result has too few dims. */
static bool
mm_batch(KernelBuilder *k, Buf *a, Buf *bb, Buf *c, MmBatch *mb)
{
	int anb = a->nd > 2 ? a->nd - 2 : 0, bnb = bb->nd > 2 ? bb->nd - 2 : 0;
	int cnb = c->nd - (a->nd > 1) - (bb->nd > 1);
	if (cnb < anb || cnb < bnb)
		return false;
	LLVMValueRef sa[MAXD], sb[MAXD];
	cg_strides(k, a, sa);
	cg_strides(k, bb, sb);
	for (int j = 0; j < cnb; j++) {
		int ja = j - (cnb - anb), jb = j - (cnb - bnb);
		mb->as[j] = ja < 0 ? cg_ci(k, 0) : LLVMBuildSelect(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, a->dim[ja], cg_ci(k, 1), ""),
			cg_ci(k, 0), sa[ja], "");
		mb->bs[j] = jb < 0 ? cg_ci(k, 0) : LLVMBuildSelect(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, bb->dim[jb], cg_ci(k, 1), ""),
			cg_ci(k, 0), sb[jb], "");
	}
	mb->cnb = cnb;
	return true;
}

/* From the flat batch index f of the result: the batch offsets of a and
 * b. */
static void
mm_batch_offsets(KernelBuilder *k, const MmBatch *mb, LLVMValueRef f, LLVMValueRef *abase,
		 LLVMValueRef *bbase)
{
	Buf *c = &k->buf[2];
	*abase = *bbase = cg_ci(k, 0);
	for (int j = mb->cnb - 1; j >= 0; j--) {
		LLVMValueRef x = j ? LLVMBuildURem(k->b, f, c->dim[j], "") : f;
		if (j)
			f = LLVMBuildUDiv(k->b, f, c->dim[j], "");
		*abase = cg_add(k, *abase, cg_mul(k, x, mb->as[j]));
		*bbase = cg_add(k, *bbase, cg_mul(k, x, mb->bs[j]));
	}
}

/* The RT_GEMM_* code of dtype t, or -1 when rlx_gemm does not take it. */
int
cg_gemm_dtype(DType t)
{
	return t == DT_F32 ? RT_GEMM_F32 : t == DT_F16 ? RT_GEMM_F16 :
	       t == DT_BF16 ? RT_GEMM_BF16 : -1;
}

/* Is perm a permute_dims that swaps the last two dims of a tensor of at
 * least 2 and keeps the others (so that a matmul can read its input as
 * the transposed b)? */
bool
cg_matmul_transpose(const Expr *perm)
{
	if (perm->kind != E_CALL || perm->call.op != OP_PERMUTE_DIMS ||
	    perm->call.nargs != 1)
		return false;
	const SInfo *si = ir_expr_sinfo(perm->call.args[0]);
	if (!si || si->kind != SI_TENSOR || si->ndim < 2 || cg_gemm_dtype(si->dtype) < 0 ||
	    !perm->sinfo || perm->sinfo->kind != SI_TENSOR || !perm->sinfo->shape)
		return false;
	int nd = si->ndim;
	const AttrVal *ax = op_attr(perm, P_axes);
	if (!ax || ax->kind == AV_NONE)
		return nd == 2;
	if (ax->kind != AV_INTS || ax->n != nd)
		return false;
	for (int i = 0; i < nd; i++) {
		int64_t a = ax->ints[i] < 0 ? ax->ints[i] + nd : ax->ints[i];
		int64_t want = i < nd - 2 ? i : i == nd - 2 ? nd - 1 : nd - 2;
		if (a != want)
			return false;
	}
	return true;
}

/* Are dims x and y the same: equal constants or the same symbolic
 * expression? */
static bool
same_dim(const PExpr *x, const PExpr *y)
{
	int64_t a, b;
	if (cg_pe_const(x, &a) && cg_pe_const(y, &b))
		return a == b;
	return x->kind == PE_VAR && y->kind == PE_VAR && x->var == y->var;
}

/* A static tensor struct info of dtype dt and rank nd with a shape (of
 * x, a var or a constant), or NULL. */
static const SInfo *
leaf_tensor(const Expr *x, DType dt, int nd)
{
	if (x->kind != E_VAR && x->kind != E_CONST)
		return NULL;
	const SInfo *si = ir_expr_sinfo(x);
	return si && si->kind == SI_TENSOR && si->dtype == dt && si->ndim == nd &&
	       si->shape ? si : NULL;
}

/* Is node perm of fu the transposed dequantize of int8 weights (see
 * codegen.h)? */
bool
cg_matmul_qweight(const CgFusion *fu, int perm, const Expr **qp, const Expr **sp)
{
	if (!cg_matmul_transpose(fu->node[perm].call))
		return false;
	int xn = cg_from(fu, perm, 0), rn = -1;
	if (xn < 0)
		return false;
	const Expr *x = fu->node[xn].call;
	const SInfo *ps = ir_expr_sinfo(x);
	if (!ps || ps->ndim != 2 || !ps->shape)
		return false;
	if (x->call.op == OP_RESHAPE && x->call.nargs >= 1) {
		rn = xn;
		if ((xn = cg_from(fu, rn, 0)) < 0)
			return false;
		x = fu->node[xn].call;
	}
	if (x->call.op != OP_MULTIPLY || x->call.nargs != 2 ||
	    !x->sinfo || x->sinfo->kind != SI_TENSOR || x->sinfo->dtype != DT_F32)
		return false;
	/* astype(q) computed by a producer, s as written, in either order */
	int a = cg_from(fu, xn, 0), b = cg_from(fu, xn, 1);
	if ((a >= 0) == (b >= 0))
		return false;
	int cn = a >= 0 ? a : b;
	const Expr *c = fu->node[cn].call, *s = x->call.args[a >= 0 ? 1 : 0];
	if (c->call.op != OP_ASTYPE || c->call.nargs != 1 || cg_from(fu, cn, 0) >= 0 ||
	    !c->sinfo || c->sinfo->kind != SI_TENSOR || c->sinfo->dtype != DT_F32)
		return false;
	int nd = rn >= 0 ? 3 : 2;
	const SInfo *qs = leaf_tensor(c->call.args[0], DT_I8, nd);
	const SInfo *ss = leaf_tensor(s, DT_F32, nd);
	int64_t one;
	if (!qs || !ss || !cg_pe_const(ss->shape[nd - 1], &one) || one != 1)
		return false;
	for (int i = 0; i < nd - 1; i++)
		if (!same_dim(qs->shape[i], ss->shape[i]))
			return false;
	/* the reshape keeps the rows: [N, G, gs] -> [N, G * gs] */
	if (!same_dim(ps->shape[0], qs->shape[0]) ||
	    (rn < 0 && !same_dim(ps->shape[1], qs->shape[1])))
		return false;
	if (qp)
		*qp = c->call.args[0];
	if (sp)
		*sp = s;
	return true;
}

/*
 * c = a @ bb of float operands (f32, f16, bf16; b read transposed when
 * transb; int8 with group scales sc of gs weights when sc): fills an
 * RtGemm on the stack (runtime/kernels/gemm.h: M, N, K, the buffers, dtypes, the
 * batch dims of the result and a's and b's strides over them) and calls
 * rlx_gemm with the Jit's pool and the host's instruction set, which
 * blocks, packs and threads it.
 */
static bool
gen_matmul_call(OpKernel *o, Buf *a, Buf *bb, Buf *c, const MmBatch *mb, bool transb,
		const Buf *sc, LLVMValueRef gs)
{
	KernelBuilder *k = o->k;
	if (mb->cnb > RTG_MAXB)
		return cg_fail(o, "too many batch dims");
	LLVMValueRef M = a->nd > 1 ? a->dim[a->nd - 2] : cg_ci(k, 1);
	LLVMValueRef Kd = a->dim[a->nd - 1];
	LLVMValueRef N = bb->nd == 1 ? cg_ci(k, 1) :
			 bb->dim[bb->nd - (transb ? 2 : 1)];
	LLVMValueRef g = cg_slot(k, k->i64, RTG_SLOTS);
	LLVMTypeRef gt = LLVMArrayType2(k->i64, RTG_SLOTS);
#define FIELD(i, v) do { \
		LLVMValueRef ix[2] = {cg_ci(k, 0), cg_ci(k, (i))}; \
		LLVMBuildStore(k->b, (v), LLVMBuildInBoundsGEP2(k->b, gt, g, ix, 2, "")); \
	} while (0)
	FIELD(RTG_M, M);
	FIELD(RTG_N, N);
	FIELD(RTG_K, Kd);
	FIELD(RTG_A, a->ptr);
	FIELD(RTG_B, bb->ptr);
	FIELD(RTG_C, c->ptr);
	FIELD(RTG_ADT, cg_ci(k, cg_gemm_dtype(a->dt)));
	FIELD(RTG_BDT, cg_ci(k, sc ? RT_GEMM_Q8 : cg_gemm_dtype(bb->dt)));
	FIELD(RTG_CDT, cg_ci(k, cg_gemm_dtype(c->dt)));
	FIELD(RTG_TRANSB, cg_ci(k, transb));
	FIELD(RTG_NB, cg_ci(k, mb->cnb));
	for (int j = 0; j < mb->cnb; j++) {
		FIELD(RTG_BDIM + j, c->dim[j]);
		FIELD(RTG_AS + j, mb->as[j]);
		FIELD(RTG_BS + j, mb->bs[j]);
	}
	if (sc) {
		FIELD(RTG_BSCALE, sc->ptr);
		FIELD(RTG_BGROUP, gs);
	}
#undef FIELD
	LLVMTypeRef pt[3] = {k->ptr, k->i64, k->ptr};
	LLVMTypeRef ft = LLVMFunctionType(k->vd, pt, 3, false);
	LLVMValueRef fn = LLVMGetNamedFunction(k->mod, "rlx_gemm");
	if (!fn)
		fn = LLVMAddFunction(k->mod, "rlx_gemm", ft);
	LLVMValueRef args[3] = {k->pool, cg_ci(k, k->gemm_isa), g};
	LLVMBuildCall2(k->b, ft, fn, args, 3, "");
	return true;
}

/*
 * matmul with numpy semantics (1-D operands, broadcast batch dims). Float
 * operands take gen_matmul_call (runtime/kernels/gemm.c). Otherwise, a parallel
 * loop over batches and rows i; the columns go in blocks of JB: an f32
 * (or wider) accumulator row acc[0..JB) gets a[i, kk] * b[kk, j0 + j] for
 * every kk, a unit-stride inner loop that vectorizes; then it is stored.
 */
static bool
gen_matmul(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	if (a->nd < 1 || bb->nd < 1)
		return cg_fail(o, "operands must have at least one dim");
	MmBatch mb;
	int bn = cg_from(o->fu, fu_root(o->fu), 1);
	if (bn >= 0 && cg_matmul_qweight(o->fu, bn, NULL, NULL)) {
		/* int8 q [N, G, gs] (or [N, K]) and its scales s: b is q read
		 * as [N, K], gs weights per scale */
		Buf *q = &k->buf[1], *sc = &k->buf[2], w = *q;
		c = &k->buf[3];
		w.nd = 2;
		if (q->nd == 3)
			w.dim[1] = cg_mul(k, q->dim[1], q->dim[2]);
		if (cg_gemm_dtype(a->dt) < 0 || cg_gemm_dtype(c->dt) < 0)
			return cg_fail(o, "int8 weights need float operands");
		if (!mm_batch(k, a, &w, c, &mb))
			return cg_fail(o, "result has too few dims");
		return gen_matmul_call(o, a, &w, c, &mb, true, sc, q->dim[q->nd - 1]);
	}
	if (!mm_batch(k, a, bb, c, &mb))
		return cg_fail(o, "result has too few dims");
	bool transb = bn >= 0; /* its permute_dims read transposed */
	if (cg_gemm_dtype(a->dt) >= 0 && cg_gemm_dtype(bb->dt) >= 0 &&
	    cg_gemm_dtype(c->dt) >= 0)
		return gen_matmul_call(o, a, bb, c, &mb, transb, NULL, NULL);
	if (transb || cg_from(o->fu, fu_root(o->fu), 0) >= 0)
		return cg_fail(o, "a transposed operand needs float dtypes");
	LLVMValueRef M = a->nd > 1 ? a->dim[a->nd - 2] : cg_ci(k, 1);
	LLVMValueRef Kd = a->dim[a->nd - 1];
	LLVMValueRef N = bb->nd > 1 ? bb->dim[bb->nd - 1] : cg_ci(k, 1);
	DType acct = dtype_is_float(c->dt) && c->dt != DT_F64 ? DT_F32 : c->dt;
	LLVMTypeRef at = cg_ctype(k, acct);
	LLVMValueRef acc = cg_slot(k, at, JB);
	LLVMTypeRef acca = LLVMArrayType2(at, JB);
	LLVMValueRef nbatch = cg_prod(k, c->dim, 0, mb.cnb);
	LLVMValueRef rows = cg_mul(k, nbatch, M);
	Loop lp, lb, lz, lk, lj, ls;
	LLVMValueRef f = cg_par_begin(k, &lp, rows, cg_mul(k, rows, cg_mul(k, N, Kd)));
	LLVMValueRef i = LLVMBuildURem(k->b, f, M, "");
	LLVMValueRef bt = LLVMBuildUDiv(k->b, f, M, "");
	LLVMValueRef abase, bbase;
	mm_batch_offsets(k, &mb, bt, &abase, &bbase);
	LLVMValueRef cbase = cg_mul(k, bt, cg_mul(k, M, N));
	LLVMValueRef nb = LLVMBuildSDiv(k->b, cg_add(k, N, cg_ci(k, JB - 1)), cg_ci(k, JB), "");
	LLVMValueRef j0 = cg_mul(k, cg_loop_begin(k, &lb, nb), cg_ci(k, JB));
	LLVMValueRef jn = cg_imin(k, cg_ci(k, JB), LLVMBuildSub(k->b, N, j0, ""));
	LLVMValueRef zero = cg_ci(k, 0);
	/* acc[0..jn) = 0 */
	LLVMValueRef j = cg_loop_begin(k, &lz, jn);
	LLVMValueRef gi[2] = {zero, j};
	LLVMBuildStore(k->b, cg_cconst(k, acct, 0),
		       LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, ""));
	cg_loop_end(k, &lz);
	/* acc[j] += a[i, kk] * b[kk, j0 + j] */
	LLVMValueRef kk = cg_loop_begin(k, &lk, Kd);
	LLVMValueRef av = cg_cvt(k, cg_ld(k, a, cg_add(k, abase, cg_add(k, cg_mul(k, i, Kd), kk))),
			      a->dt, acct);
	LLVMValueRef brow = cg_add(k, bbase, cg_add(k, cg_mul(k, kk, N), j0));
	j = cg_loop_begin(k, &lj, jn);
	LLVMValueRef bv = cg_cvt(k, cg_ld(k, bb, cg_add(k, brow, j)), bb->dt, acct);
	gi[1] = j;
	LLVMValueRef p = LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, "");
	LLVMValueRef s;
	if (dtype_is_float(acct))
		s = cg_contract(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, at, p, ""),
					   cg_contract(LLVMBuildFMul(k->b, av, bv, "")), ""));
	else
		s = LLVMBuildAdd(k->b, LLVMBuildLoad2(k->b, at, p, ""),
				 LLVMBuildMul(k->b, av, bv, ""), "");
	LLVMBuildStore(k->b, s, p);
	cg_loop_end(k, &lj);
	cg_loop_end(k, &lk);
	/* c[i, j0 + j] = acc[j] */
	j = cg_loop_begin(k, &ls, jn);
	gi[1] = j;
	LLVMValueRef v = LLVMBuildLoad2(k->b, at,
		LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, ""), "");
	cg_st(k, c, cg_add(k, cbase, cg_add(k, cg_mul(k, i, N), cg_add(k, j0, j))),
	   cg_cvt(k, v, acct, c->dt));
	cg_loop_end(k, &ls);
	cg_loop_end(k, &lb);
	cg_loop_end(k, &lp);
	return true;
}

/* ------------------------------------------------------- reductions */

/* The axes the axis attribute reduces (None: all of them) as flags;
 * false after cg_fail. */
static bool
reduced_axes(OpKernel *o, int nd, bool *red)
{
	AttrVal av = cg_attr(o, P_axis);
	if (av.kind == AV_NONE) {
		for (int i = 0; i < nd; i++)
			red[i] = true;
		return true;
	}
	int n = av.kind == AV_INTS ? av.n : 1;
	for (int i = 0; i < n; i++) {
		int a;
		if (!cg_norm_axis(av.kind == AV_INTS ? av.ints[i] : av.i, nd, &a))
			return cg_fail(o, "axis out of range");
		if (nd)
			red[a] = true;
	}
	return true;
}

/* The accumulator's start for reduction op in type acct: 0, 1, or the
 * identity of max / min (-inf, +inf, or the integer type's limits). */
static LLVMValueRef
reduce_init(KernelBuilder *k, OpKind op, DType acct)
{
	bool fl = dtype_is_float(acct);
	bool mx = op == OP_MAX || op == OP_ARGMAX;
	if (!fl && (mx || op == OP_MIN || op == OP_ARGMIN)) {
		LLVMTypeRef at = cg_ctype(k, acct);
		unsigned w = LLVMGetIntTypeWidth(at);
		unsigned long long lo = cg_is_unsigned(acct) ? 0 : 1ull << (w - 1);
		unsigned long long hi = cg_is_unsigned(acct) ? ~0ull : (1ull << (w - 1)) - 1;
		return LLVMConstInt(at, mx ? lo : hi, false);
	}
	double init;
	switch (op) {
	case OP_SUM: case OP_MEAN: init = 0; break;
	case OP_PROD: init = 1; break;
	case OP_MAX: case OP_ARGMAX: init = fl ? -INFINITY : 0; break;
	default: init = fl ? INFINITY : 0; break;
	}
	return cg_cconst(k, acct, init);
}

/* One step of reduction op: the accumulator after cur meets v (both in
 * acct). For argmax / argmin, r is v's flat index in the reduced dims and
 * best the slot of the best index so far, updated here. */
static LLVMValueRef
reduce_step(KernelBuilder *k, OpKind op, DType acct, LLVMValueRef cur, LLVMValueRef v,
	    LLVMValueRef r, LLVMValueRef best)
{
	bool fl = dtype_is_float(acct);
	switch (op) {
	case OP_SUM: case OP_MEAN:
		return fl ? cg_reassoc(LLVMBuildFAdd(k->b, cur, v, "")) : LLVMBuildAdd(k->b, cur, v, "");
	case OP_PROD:
		return fl ? cg_reassoc(LLVMBuildFMul(k->b, cur, v, "")) : LLVMBuildMul(k->b, cur, v, "");
	case OP_MAX: case OP_MIN:
		if (fl) { /* NaN wins as in vmax; a form the vectorizer reduces */
			LLVMValueRef mv[2] = {cur, v};
			return intrin(k, op == OP_MAX ? "llvm.maximum" : "llvm.minimum",
				      cg_ctype(k, acct), mv, 2);
		}
		return cg_vmax(k, cur, v, acct, op == OP_MAX);
	default: /* argmax, argmin: the first best, the first NaN */
		break;
	}
	LLVMValueRef better;
	bool mx = op == OP_ARGMAX;
	if (fl) {
		better = LLVMBuildFCmp(k->b, mx ? LLVMRealOGT : LLVMRealOLT, v, cur, "");
		LLVMValueRef vn = LLVMBuildFCmp(k->b, LLVMRealUNO, v, v, "");
		LLVMValueRef cn = LLVMBuildFCmp(k->b, LLVMRealORD, cur, cur, "");
		better = LLVMBuildOr(k->b, better, LLVMBuildAnd(k->b, vn, cn, ""), "");
	} else {
		LLVMIntPredicate p = cg_is_unsigned(acct) ? (mx ? LLVMIntUGT : LLVMIntULT)
						       : (mx ? LLVMIntSGT : LLVMIntSLT);
		better = LLVMBuildICmp(k->b, p, v, cur, "");
	}
	/* the first element always counts, so -inf/NaN-only rows work */
	better = LLVMBuildOr(k->b, better,
			     LLVMBuildICmp(k->b, LLVMIntEQ, r, cg_ci(k, 0), ""), "");
	LLVMValueRef ob = LLVMBuildLoad2(k->b, k->i64, best, "");
	LLVMBuildStore(k->b, LLVMBuildSelect(k->b, better, r, ob, ""), best);
	return LLVMBuildSelect(k->b, better, v, cur, "");
}

/* The value at offset off of a reduction's data, in dtype xdt: loaded
 * from buffer 0, or computed by the producer node tree of o's fusion
 * from every buffer's element at off (they have the data's shape). */
static LLVMValueRef
reduce_load(OpKernel *o, int tree, LLVMValueRef off, DType xdt)
{
	KernelBuilder *k = o->k;
	if (tree < 0)
		return cg_ld(k, &k->buf[0], off);
	LLVMValueRef lv[MAXBUF];
	for (int i = 0; i < k->nin; i++)
		lv[i] = cg_ld(k, &k->buf[i], off);
	int next = 0;
	DType r;
	LLVMValueRef tv = elem_node(o, tree, lv, &next, &r);
	return cg_cvt(k, tv, r, xdt);
}

/*
 * sum mean max min prod argmax argmin: for every kept position (outer
 * nest over the kept dims), a reduction nest over the reduced dims into an
 * accumulator in the compute type (f32 for f16/bf16).
 */
static bool
gen_reduce(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[k->nin];
	OpKind op = o->e->call.op;
	/* producers compute the data: their tensor operands all have the
	 * data's shape (exec's fuse_seq), so buffer 0 gives the dims */
	int tree = cg_from(o->fu, fu_root(o->fu), 0);
	DType xdt = tree >= 0 ? o->fu->node[tree].call->sinfo->dtype : x->dt;
	if (tree < 0 && k->nin != 1)
		return cg_fail(o, "expects one tensor");
	bool arg = op == OP_ARGMAX || op == OP_ARGMIN;
	bool red[MAXD] = {0};
	int nd = x->nd;
	if (!reduced_axes(o, nd, red))
		return false;
	LLVMValueRef xs[MAXD], kd[MAXD], rd[MAXD], kidx[MAXD], ridx[MAXD];
	LLVMValueRef kst[MAXD], rst[MAXD], kflat[MAXD], rflat[MAXD];
	int nk = 0, nr = 0;
	cg_strides(k, x, xs);
	for (int i = 0; i < nd; i++) {
		if (red[i]) {
			rd[nr] = x->dim[i];
			rst[nr++] = xs[i];
		} else {
			kd[nk] = x->dim[i];
			kst[nk++] = xs[i];
		}
	}
	/* C-order strides within the kept and the reduced dims */
	LLVMValueRef s = cg_ci(k, 1);
	for (int i = nk - 1; i >= 0; i--) {
		kflat[i] = s;
		s = cg_mul(k, s, kd[i]);
	}
	s = cg_ci(k, 1);
	for (int i = nr - 1; i >= 0; i--) {
		rflat[i] = s;
		s = cg_mul(k, s, rd[i]);
	}
	LLVMValueRef count = s;
	DType acct = (op == OP_MAX || op == OP_MIN || arg) ? xdt : out->dt;
	if (dtype_is_narrow_float(acct))
		acct = DT_F32;
	if (acct == DT_BOOL)
		acct = DT_I64;
	bool fl = dtype_is_float(acct);
	LLVMTypeRef at = cg_ctype(k, acct);
	LLVMValueRef acc = cg_slot(k, at, 1), best = cg_slot(k, k->i64, 1);
	LLVMValueRef initv = reduce_init(k, op, acct);
	Nest rn;
	Loop lk;
	LLVMValueRef f = cg_par_begin(k, &lk, cg_prod(k, kd, 0, nk),
				   cg_mul(k, cg_prod(k, kd, 0, nk), count));
	for (int i = nk - 1; i >= 0; i--) {
		kidx[i] = i ? LLVMBuildURem(k->b, f, kd[i], "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, kd[i], "");
	}
	LLVMValueRef base = cg_dot(k, kidx, kst, nk);
	LLVMBuildStore(k->b, initv, acc);
	LLVMBuildStore(k->b, cg_ci(k, 0), best);
	cg_nest_begin(k, &rn, rd, nr, ridx);
	/* reducing along the last dim: the vectorizer must see that loop
	 * (contiguous loads, a vector accumulator) rather than unroll it away
	 * and vectorize the kept dims with strided gathers */
	if (nr && red[nd - 1] && !arg)
		rn.l[nr - 1].keep = true;
	LLVMValueRef off = cg_add(k, base, cg_dot(k, ridx, rst, nr));
	LLVMValueRef v = cg_cvt(k, reduce_load(o, tree, off, xdt), xdt, acct);
	LLVMValueRef cur = LLVMBuildLoad2(k->b, at, acc, "");
	LLVMValueRef r = arg ? cg_dot(k, ridx, rflat, nr) : NULL;
	LLVMBuildStore(k->b, reduce_step(k, op, acct, cur, v, r, best), acc);
	cg_nest_end(k, &rn);
	LLVMValueRef res = LLVMBuildLoad2(k->b, at, acc, "");
	DType rt = acct;
	if (arg) {
		res = LLVMBuildLoad2(k->b, k->i64, best, "");
		rt = DT_I64;
	} else if (op == OP_MEAN) {
		if (fl)
			res = LLVMBuildFDiv(k->b, res, LLVMBuildSIToFP(k->b, count, at, ""), "");
		else
			res = idiv(k, res, cg_cvt(k, count, DT_I64, acct), acct, false);
	}
	cg_st(k, out, cg_dot(k, kidx, kflat, nk), cg_cvt(k, res, rt, out->dt));
	cg_loop_end(k, &lk);
	return true;
}

/* ------------------------------------------------ softmax, norms */

/* Computes in f32 (f64 for f64 data). */
DType
cg_float_ct(DType t)
{
	return t == DT_F64 ? DT_F64 : DT_F32;
}

/* softmax / log_softmax along axis: subtract the row max, then exp. */
static bool
gen_softmax(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	int axis;
	if (x->nd == 0 || !cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &axis))
		return cg_fail(o, "axis out of range");
	DType ct = cg_float_ct(out->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMValueRef outer = cg_prod(k, x->dim, 0, axis), n = x->dim[axis];
	LLVMValueRef inner = cg_prod(k, x->dim, axis + 1, x->nd);
	LLVMValueRef mx = cg_slot(k, t, 1), sum = cg_slot(k, t, 1);
	Loop lo, l1, l2, l3;
	LLVMValueRef f = cg_par_begin(k, &lo, cg_mul(k, outer, inner),
				   cg_mul(k, cg_mul(k, outer, inner), n));
	LLVMValueRef oi = LLVMBuildUDiv(k->b, f, inner, "");
	LLVMValueRef i = LLVMBuildURem(k->b, f, inner, "");
	LLVMValueRef base = cg_add(k, cg_mul(k, cg_mul(k, oi, n), inner), i);
	LLVMBuildStore(k->b, cg_cconst(k, ct, -INFINITY), mx);
	LLVMBuildStore(k->b, cg_cconst(k, ct, 0), sum);
	LLVMValueRef j = cg_loop_begin(k, &l1, n);
	LLVMValueRef off = cg_add(k, base, cg_mul(k, j, inner));
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, off), x->dt, ct);
	LLVMBuildStore(k->b, cg_vmax(k, LLVMBuildLoad2(k->b, t, mx, ""), v, ct, true), mx);
	cg_loop_end(k, &l1);
	LLVMValueRef m = LLVMBuildLoad2(k->b, t, mx, "");
	j = cg_loop_begin(k, &l2, n);
	off = cg_add(k, base, cg_mul(k, j, inner));
	v = cg_cvt(k, cg_ld(k, x, off), x->dt, ct);
	LLVMValueRef e = cg_fexp(k, LLVMBuildFSub(k->b, v, m, ""));
	LLVMBuildStore(k->b, cg_reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, sum, ""), e, "")), sum);
	cg_loop_end(k, &l2);
	LLVMValueRef s = LLVMBuildLoad2(k->b, t, sum, "");
	LLVMValueRef rs = LLVMBuildFDiv(k->b, cg_cconst(k, ct, 1), s, "");
	LLVMValueRef ls = LLVMBuildFAdd(k->b, m, cg_fn1(k, "llvm.log", s), "");
	j = cg_loop_begin(k, &l3, n);
	off = cg_add(k, base, cg_mul(k, j, inner));
	v = cg_cvt(k, cg_ld(k, x, off), x->dt, ct);
	LLVMValueRef r;
	if (o->e->call.op == OP_SOFTMAX)
		r = LLVMBuildFMul(k->b, cg_fexp(k, LLVMBuildFSub(k->b, v, m, "")), rs, "");
	else
		r = LLVMBuildFSub(k->b, v, ls, "");
	cg_st(k, out, off, cg_cvt(k, r, ct, out->dt));
	cg_loop_end(k, &l3);
	cg_loop_end(k, &lo);
	return true;
}

/* The normalized axes must be the trailing ones; *first is the first. */
static bool
trailing_axes(OpKernel *o, int nd, int *first)
{
	AttrVal av = cg_attr(o, P_axes);
	if (av.kind != AV_INTS || av.n < 1 || av.n > nd)
		return cg_fail(o, "axes must be given");
	bool seen[MAXD] = {0};
	for (int i = 0; i < av.n; i++) {
		int a;
		if (!cg_norm_axis(av.ints[i], nd, &a) || seen[a])
			return cg_fail(o, "bad axes");
		seen[a] = true;
	}
	*first = nd - av.n;
	for (int i = *first; i < nd; i++)
		if (!seen[i])
			return cg_fail(o, "only trailing axes are supported");
	return true;
}

/*
 * rms_norm: y = x * w / sqrt(mean(x^2) + eps); layer_norm: y = (x - mean)
 * / sqrt(var + eps) * gamma + beta. The normalized (trailing) dims are
 * one contiguous row; weights are indexed by the position in the row.
 */
static bool
gen_norm(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[k->nin];
	bool layer = o->e->call.op == OP_LAYER_NORM;
	int first = 0; /* set unless trailing_axes fails */
	if (!trailing_axes(o, x->nd, &first))
		return false;
	double eps = cg_attr(o, P_epsilon).f;
	bool center = !layer || cg_attr(o, P_center).i, scale = !layer || cg_attr(o, P_scale).i;
	DType ct = cg_float_ct(out->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMValueRef outer = cg_prod(k, x->dim, 0, first);
	LLVMValueRef n = cg_prod(k, x->dim, first, x->nd);
	LLVMValueRef nf = LLVMBuildSIToFP(k->b, n, t, "");
	LLVMValueRef acc = cg_slot(k, t, 1);
	Loop lo, l1, l2, l3;
	LLVMValueRef oi = cg_par_begin(k, &lo, outer, cg_mul(k, outer, n));
	LLVMValueRef base = cg_mul(k, oi, n);
	LLVMValueRef mean = cg_cconst(k, ct, 0);
	if (layer) {
		LLVMBuildStore(k->b, cg_cconst(k, ct, 0), acc);
		LLVMValueRef j = cg_loop_begin(k, &l1, n);
		LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, j)), x->dt, ct);
		LLVMBuildStore(k->b, cg_reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""), v, "")), acc);
		cg_loop_end(k, &l1);
		mean = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), nf, "");
	}
	LLVMBuildStore(k->b, cg_cconst(k, ct, 0), acc);
	LLVMValueRef j = cg_loop_begin(k, &l2, n);
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, j)), x->dt, ct);
	v = LLVMBuildFSub(k->b, v, mean, "");
	LLVMBuildStore(k->b, cg_reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""),
						    cg_contract(LLVMBuildFMul(k->b, v, v, "")), "")), acc);
	cg_loop_end(k, &l2);
	LLVMValueRef var = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), nf, "");
	LLVMValueRef r = LLVMBuildFDiv(k->b, cg_cconst(k, ct, 1),
		cg_fn1(k, "llvm.sqrt", LLVMBuildFAdd(k->b, var, cg_cconst(k, ct, eps), "")), "");
	j = cg_loop_begin(k, &l3, n);
	v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, j)), x->dt, ct);
	v = LLVMBuildFMul(k->b, LLVMBuildFSub(k->b, v, mean, ""), r, "");
	if (scale)
		v = LLVMBuildFMul(k->b, v, cg_cvt(k, cg_ld(k, &k->buf[1], j), k->buf[1].dt, ct), "");
	if (layer && center)
		v = LLVMBuildFAdd(k->b, v, cg_cvt(k, cg_ld(k, &k->buf[2], j), k->buf[2].dt, ct), "");
	cg_st(k, out, cg_add(k, base, j), cg_cvt(k, v, ct, out->dt));
	cg_loop_end(k, &l3);
	cg_loop_end(k, &lo);
	return true;
}

/* ------------------------------------------------------------ dispatch */

/* The kernel of a call with fused producers: a reduction over them, or
 * the elementwise root and its producers. */
static bool
gen_fused(OpKernel *o)
{
	KernelBuilder *k = o->k;
	OpKind op = o->e->call.op;
	if (k->nout != 1)
		return cg_fail(o, "a fused kernel has one output");
	if (cg_reduce_fusable(op))
		return gen_reduce(o);
	if (!elem_class(op))
		return cg_fail(o, "cannot take a fused operand");
	return gen_elementwise(o, elem_fused);
}

/* R.full and R.full_like: a constant fill value needs no input; a tensor
 * one is broadcast as a binary op's operand. */
static bool
gen_full(OpKernel *o)
{
	KernelBuilder *k = o->k;
	if (op_arg(o->e, P_fill_value)->kind != E_PRIM)
		return gen_elementwise(o, elem_binary);
	double v;
	if (k->nout != 1 || !cg_prim_arg(o, P_fill_value, &v))
		return cg_fail(o, "fill_value must be a tensor or a constant");
	Buf *out = &k->buf[k->nin];
	Loop l;
	LLVMValueRef i = cg_loop_begin(k, &l, cg_prod(k, out->dim, 0, out->nd));
	cg_st(k, out, i, cg_cconst(k, dtype_is_narrow_float(out->dt) ? DT_F32 : out->dt, v));
	cg_loop_end(k, &l);
	return true;
}

/* An op of one tensor in, one out, whose scalar body is elem_unary's. */
static bool
gen_unary(OpKernel *o)
{
	KernelBuilder *k = o->k;
	if (k->nin != 1 || k->nout != 1)
		return cg_fail(o, "expects one tensor");
	return gen_elementwise(o, elem_unary);
}

/* R.zeros and R.ones: no input, elem_unary's constant. */
static bool
gen_fill(OpKernel *o)
{
	return gen_elementwise(o, elem_unary);
}

/* R.clip: elem_unary with its bounds compiled in as constants. */
static bool
gen_clip(OpKernel *o)
{
	KernelBuilder *k = o->k;
	double v;
	if (k->nin != 1 || !cg_prim_arg(o, P_min, &v) || !cg_prim_arg(o, P_max, &v))
		return cg_fail(o, "min and max must be constants");
	return gen_elementwise(o, elem_unary);
}

/*
 * The generator of each op that its class does not name (gen_body reads
 * the class first: broadcasting and elementwise ops, views). A table
 * rather than a switch: one line per op, and an op missing here is the
 * "no code generation" error.
 */
static bool (*const gen_of[OP_COUNT])(OpKernel *) = {
	[OP_FULL] = gen_full, [OP_FULL_LIKE] = gen_full,
	[OP_CLIP] = gen_clip,
	[OP_BROADCAST_TO] = gen_unary, [OP_STOP_LIFT_PARAMS] = gen_unary,
	[OP_ZEROS] = gen_fill, [OP_ONES] = gen_fill,
	[OP_PERMUTE_DIMS] = gen_permute,
	[OP_CONCAT] = gen_concat,
	[OP_SPLIT] = gen_split,
	[OP_TAKE] = gen_take,
	[OP_STRIDED_SLICE] = gen_strided_slice,
	[OP_ARANGE] = gen_arange,
	[OP_MATMUL] = gen_matmul,
	[OP_SUM] = gen_reduce, [OP_MEAN] = gen_reduce, [OP_MAX] = gen_reduce,
	[OP_MIN] = gen_reduce, [OP_PROD] = gen_reduce,
	[OP_ARGMAX] = gen_reduce, [OP_ARGMIN] = gen_reduce,
	[OP_SOFTMAX] = gen_softmax, [OP_LOG_SOFTMAX] = gen_softmax,
	[OP_RMS_NORM] = gen_norm, [OP_LAYER_NORM] = gen_norm,
	[OP_CONV2D] = gen_conv, [OP_CONV1D] = gen_conv, [OP_CONV2D_TRANSPOSE] = gen_conv,
	[OP_TRIL] = gen_tril, [OP_TRIU] = gen_tril,
	[OP_EYE] = gen_eye,
	[OP_ONE_HOT] = gen_one_hot,
	[OP_LAYOUT_TRANSFORM] = gen_layout_transform,
	[OP_PRELU] = gen_prelu,
	[OP_QUANTIZE] = gen_qdq, [OP_DEQUANTIZE] = gen_qdq,
	[OP_TILE] = gen_move, [OP_REPEAT] = gen_move, [OP_FLIP] = gen_move,
	[OP_PAD] = gen_move, [OP_GATHER_ELEMENTS] = gen_move,
	[OP_GATHER_ND] = gen_move, [OP_DYNAMIC_STRIDED_SLICE] = gen_move,
	[OP_STACK] = gen_stack,
	[OP_SCATTER_ELEMENTS] = gen_scatter, [OP_SCATTER_ND] = gen_scatter,
	[OP_CUMSUM] = gen_scan, [OP_CUMPROD] = gen_scan,
	[OP_VARIANCE] = gen_variance, [OP_STD] = gen_variance,
	[OP_MAX_POOL2D] = gen_pool2d, [OP_AVG_POOL2D] = gen_pool2d,
	[OP_ADAPTIVE_AVG_POOL2D] = gen_adaptive_pool2d,
	[OP_BATCH_NORM] = gen_batch_norm,
	[OP_GROUP_NORM] = gen_group_norm, [OP_INSTANCE_NORM] = gen_group_norm,
	[OP_ATTENTION] = gen_attention,
	[OP_DROPOUT] = gen_dropout,
	[OP_SORT] = gen_sort, [OP_ARGSORT] = gen_sort, [OP_TOPK] = gen_sort,
	[OP_EINSUM] = gen_einsum,
};

/* Emits the body of k's kernel; false with a diagnostic. A matmul takes
 * its fused operands (a transpose, a dequantization) itself; other fused
 * kernels are gen_fused's; then the op's own generator (gen_of), else the
 * one of its class. */
static bool
gen_body(OpKernel *o)
{
	KernelBuilder *k = o->k;
	OpKind op = o->e->call.op;
	if (op == OP_MATMUL)
		return gen_matmul(o);
	if (o->fu->n > 1)
		return gen_fused(o);
	if (gen_of[op])
		return gen_of[op](o);
	switch (op_info(op)->cls) {
	case OC_BROADCAST:
		if (k->nin != o->e->call.nargs || k->nout != 1)
			return cg_fail(o, "expects tensor operands");
		return gen_elementwise(o, elem_binary);
	case OC_ELEMWISE: case OC_FILL_LIKE:
		return gen_unary(o);
	case OC_VIEW: /* the same elements in C order */
		return gen_copy(o);
	default:
		return cg_fail(o, "no code generation for this op yet");
	}
}

/* ------------------------------------------------------ signatures */

/* Collects symbolic vars in first-appearance order for the key. */
typedef struct {
	const SymVar *v[64];
	int n;
} VarNames;

/* Writes dim x to the key: numbers, $k for the k-th symbolic var. */
static void
key_dim(StrBuf *sb, const PExpr *x, VarNames *vn)
{
	int64_t c;
	static const char ops[] = "+-*/%<>=!lLgG"; /* ORDER: PExprKind from PE_ADD */
	_Static_assert(sizeof ops - 1 == PE_GE - PE_ADD + 1,
		       "a key character per PExprKind from PE_ADD");
	if (cg_pe_const(x, &c)) {
		sb_printf(sb, "%lld", (long long)c);
		return;
	}
	if (x->kind == PE_VAR) {
		int i = 0;
		while (i < vn->n && vn->v[i] != x->var)
			i++;
		if (i == vn->n && vn->n < (int)ARRAY_LEN(vn->v))
			vn->v[vn->n++] = x->var;
		sb_printf(sb, "$%d", i);
		return;
	}
	sb_printf(sb, "(%c", ops[x->kind - PE_ADD]);
	key_dim(sb, x->a, vn);
	sb_putc(sb, ' ');
	key_dim(sb, x->b, vn);
	sb_putc(sb, ')');
}

/* Writes an attribute value to the key. */
static void
key_attr(StrBuf *sb, const AttrVal *v)
{
	switch (v->kind) {
	case AV_NONE: sb_puts(sb, "None"); break;
	case AV_INT: case AV_BOOL: sb_printf(sb, "%lld", (long long)v->i); break;
	case AV_FLOAT: sb_printf(sb, "%.17g", v->f); break;
	case AV_STR: sb_printf(sb, "\"%s\"", v->s); break;
	case AV_DTYPE: sb_puts(sb, dtype_name(v->dtype)); break;
	case AV_INTS:
		sb_putc(sb, '[');
		for (int i = 0; i < v->n; i++)
			sb_printf(sb, "%s%lld", i ? "," : "", (long long)v->ints[i]);
		sb_putc(sb, ']');
		break;
	case AV_DIMS: case AV_SINFO: case AV_RAW: case AV_IMAP: /* as text */
		print_attrval(sb, v);
		break;
	}
}

/* Appends the tensors of si (a tensor or a tuple of them) to sis. */
static bool
push_tensors(const SInfo *si, const SInfo **sis, int *n)
{
	if (!si)
		return false;
	if (si->kind == SI_TUPLE) {
		for (int i = 0; i < si->nfields; i++)
			if (!push_tensors(si->fields[i], sis, n))
				return false;
		return true;
	}
	if (si->kind != SI_TENSOR || si->ndim < 0 || si->ndim > MAXD ||
	    si->dtype == DT_UNKNOWN || *n >= MAXBUF)
		return false;
	sis[(*n)++] = si;
	return true;
}

/* A kernel's signature as it is read off its fusion: the buffers' struct
 * infos, the arguments that give the input buffers, and the key (d: where
 * to say why not, NULL: say nothing). */
typedef struct {
	const CgFusion *fu;
	Diags *d;
	const SInfo **sis; /* MAXBUF: inputs, then outputs */
	int n;
	const Expr **xs;   /* MAXBUF: the arguments that give the inputs */
	int nx;
	StrBuf *key;
	VarNames vn;
} Sig;

/* Argument x's tensors join the inputs (x gives them). */
static bool
sig_input(Sig *g, const Expr *x)
{
	if (g->nx >= MAXBUF || !push_tensors(ir_expr_sinfo(x), g->sis, &g->n))
		return false;
	g->xs[g->nx++] = x;
	return true;
}

static bool sig_args(Sig *g, int nd);

/* A producer node of a fused kernel into the key: "(op args -> dtype[dims]
 * attrs)"; its tensors join the buffers. */
static bool
sig_nested(Sig *g, int nd)
{
	const Expr *x = g->fu->node[nd].call;
	const SInfo *si = x->sinfo;
	if (!cg_fusable(x) || !si || si->kind != SI_TENSOR || !si->shape ||
	    si->dtype == DT_UNKNOWN) {
		if (g->d)
			diag_error(g->d, x->span, "%s: cannot be fused into "
				   "its user", op_info(x->call.op)->name);
		return false;
	}
	sb_printf(g->key, " (%s", op_info(x->call.op)->name);
	if (!sig_args(g, nd))
		return false;
	sb_printf(g->key, " -> %s[", dtype_name(si->dtype));
	for (int j = 0; j < si->ndim; j++) {
		if (j)
			sb_putc(g->key, ',');
		key_dim(g->key, si->shape[j], &g->vn);
	}
	sb_putc(g->key, ']');
	for (int i = 0; i < x->call.nattrs; i++) {
		sb_putc(g->key, ' ');
		key_attr(g->key, &x->call.attrs[i]);
	}
	sb_putc(g->key, ')');
	return true;
}

/* The arguments of node nd into the key and their tensors into the
 * inputs; a producer's at the place of the argument it computes. */
static bool
sig_args(Sig *g, int nd)
{
	const Expr *e = g->fu->node[nd].call;
	for (int i = 0; i < e->call.nargs; i++) {
		const Expr *x = e->call.args[i];
		int from = cg_from(g->fu, nd, i);
		const Expr *q, *s;
		if (from >= 0 && e->call.op == OP_MATMUL && i == 1 &&
		    cg_matmul_qweight(g->fu, from, &q, &s)) {
			/* int8 weights and their scales read transposed */
			sb_puts(g->key, " (TQ8)");
			if (!sig_input(g, q) || !sig_input(g, s))
				return false;
			continue;
		}
		if (from >= 0 && e->call.op == OP_MATMUL && i == 1 &&
		    cg_matmul_transpose(g->fu->node[from].call)) {
			/* b read transposed: its input is the buffer */
			sb_puts(g->key, " (T");
			if (!sig_args(g, from))
				return false;
			sb_putc(g->key, ')');
			continue;
		}
		if (from >= 0) {
			if (!sig_nested(g, from))
				return false;
			continue;
		}
		const SInfo *si = ir_expr_sinfo(x);
		if (x->kind == E_PRIM) {
			if (dtype_is_float(x->prim.dtype))
				sb_printf(g->key, " p%.17g", x->prim.f);
			else if (x->prim.value) {
				sb_puts(g->key, " p");
				key_dim(g->key, x->prim.value, &g->vn);
			}
			continue;
		}
		if (!si || si->kind == SI_SHAPE || si->kind == SI_PRIM)
			continue;
		if (!sig_input(g, x)) {
			if (g->d)
				diag_error(g->d, x->span, "%s: argument %d is not a "
					   "tensor of known dtype and rank",
					   op_info(e->call.op)->name, i);
			return false;
		}
	}
	return true;
}

/*
 * The buffers of fusion fu (their struct infos in g->sis, inputs then
 * outputs; the arguments giving the inputs in g->xs) and its key; false
 * with a diagnostic when an operand is not a known tensor.
 */
static bool
signature(Sig *g, int *nin, int *nout)
{
	const Expr *e = g->fu->node[fu_root(g->fu)].call;
	sb_puts(g->key, op_info(e->call.op)->name);
	if (!sig_args(g, fu_root(g->fu)))
		return false;
	*nin = g->n;
	if (!push_tensors(e->sinfo, g->sis, &g->n) || g->n == *nin) {
		if (g->d)
			diag_error(g->d, e->span, "%s: the result's dtype and rank "
				   "must be known", op_info(e->call.op)->name);
		return false;
	}
	*nout = g->n - *nin;
	for (int b = 0; b < g->n; b++) {
		const SInfo *si = g->sis[b];
		sb_printf(g->key, " %s[", dtype_name(si->dtype));
		for (int j = 0; j < si->ndim; j++) {
			if (j)
				sb_putc(g->key, ',');
			if (si->shape)
				key_dim(g->key, si->shape[j], &g->vn);
			else
				sb_printf(g->key, "?%d.%d", b, j);
		}
		sb_putc(g->key, ']');
	}
	for (int i = 0; i < e->call.nattrs; i++) {
		sb_putc(g->key, ' ');
		key_attr(g->key, &e->call.attrs[i]);
	}
	return true;
}

int
cg_fused_inputs(const CgFusion *fu, const Expr **ins, int max)
{
	const SInfo *sis[MAXBUF];
	const Expr *xs[MAXBUF];
	StrBuf key = {0};
	Sig g = {.fu = fu, .d = NULL, .sis = sis, .xs = xs, .key = &key};
	int nin, nout;
	bool ok = signature(&g, &nin, &nout) && g.nx <= max;
	sb_free(&key);
	if (!ok)
		return -1;
	memcpy(ins, xs, sizeof *xs * (size_t)g.nx);
	return g.nx;
}

/* ------------------------------------------------------------ the cache */

Codegen *
cg_new(Jit *jit)
{
	Codegen *cg = calloc(1, sizeof *cg);
	if (!cg)
		return NULL;
	cg->jit = jit;
	cg->id = jit_unique(jit);
	return cg;
}

void
cg_free(Codegen *cg)
{
	if (!cg)
		return;
	if (cg->pending)
		LLVMDisposeModule(cg->pending);
	for (int i = 0; i < cg->n; i++) {
		free((char *)cg->kernels[i]->key);
		free((char *)cg->kernels[i]->name);
		free(cg->kernels[i]->sites);
		free(cg->kernels[i]);
	}
	namemap_free(&cg->index);
	free(cg->kernels);
	free(cg);
}

int
cg_num_kernels(const Codegen *cg)
{
	return cg->n;
}

/* Adds the attribute `name` to parameter i (0: the function). */
static void
fn_attr(KernelBuilder *k, LLVMValueRef f, unsigned i, const char *name, uint64_t v)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
	LLVMAddAttributeAtIndex(f, i, LLVMCreateEnumAttribute(k->c, kind, v));
}

/* Declares NAME.impl (one noalias pointer per buffer, then the dims, the
 * outer loop's range and whether it may split; see par_begin) and its
 * chunk entry NAME.par(ctx, lo, hi) in k, and opens the impl's entry
 * block, where the pool is loaded. */
static void
declare_impl(KernelBuilder *k, const char *name)
{
	LLVMTypeRef pt[MAXBUF + 4];
	int nb = k->nin + k->nout;
	for (int i = 0; i <= nb; i++)
		pt[i] = k->ptr;
	pt[nb + 1] = k->i64;
	pt[nb + 2] = k->i64;
	pt[nb + 3] = k->i1;
	char impl[160], par[160];
	snprintf(impl, sizeof impl, "%s.impl", name);
	snprintf(par, sizeof par, "%s.par", name);
	LLVMValueRef f = LLVMAddFunction(k->mod, impl,
		LLVMFunctionType(k->vd, pt, (unsigned)nb + 4, false));
	LLVMSetLinkage(f, LLVMInternalLinkage);
	fn_attr(k, f, LLVMAttributeFunctionIndex, "nounwind", 0);
	/* called from the wrapper and from NAME.par: one copy is enough,
	 * and the noalias parameters tell the optimizer all it needs */
	fn_attr(k, f, LLVMAttributeFunctionIndex, "noinline", 0);
	for (int i = 0; i <= nb; i++) {
		fn_attr(k, f, (unsigned)i + 1, "noalias", 0);
		fn_attr(k, f, (unsigned)i + 1, "nocapture", 0);
		if (i < nb)
			fn_attr(k, f, (unsigned)i + 1, "align", 64);
	}
	LLVMTypeRef tt[3] = {k->ptr, k->i64, k->i64};
	LLVMValueRef tramp = LLVMAddFunction(k->mod, par,
		LLVMFunctionType(k->vd, tt, 3, false));
	LLVMSetLinkage(tramp, LLVMInternalLinkage);
	fn_attr(k, tramp, LLVMAttributeFunctionIndex, "nounwind", 0);
	k->fn = f;
	k->tramp = tramp;
	k->lo = LLVMGetParam(f, (unsigned)nb + 1);
	k->hi = LLVMGetParam(f, (unsigned)nb + 2);
	k->split = LLVMGetParam(f, (unsigned)nb + 3);
	k->entry = LLVMAppendBasicBlockInContext(k->c, f, "entry");
	LLVMPositionBuilderAtEnd(k->b, k->entry);
	/* the pool through a symbol the Jit defines (no address in the code,
	 * so the object code can be cached: jit.c) */
	LLVMValueRef gp = LLVMGetNamedGlobal(k->mod, "rlx_jit_pool");
	if (!gp)
		gp = LLVMAddGlobal(k->mod, k->ptr, "rlx_jit_pool");
	k->pool = LLVMBuildLoad2(k->b, k->ptr, gp, "pool");
}

/* Fills k->buf from the buffers' struct info: dtype, rank, pointer (the
 * impl's parameters) and each dim, a constant when static, else loaded
 * from the dims parameter; tok names each dim for the kernel's key. */
static void
bind_buffers(KernelBuilder *k, const SInfo **sis)
{
	int nb = k->nin + k->nout;
	LLVMValueRef dims = LLVMGetParam(k->fn, (unsigned)nb);
	int doff = 0;
	VarNames vn = {.n = 0};
	for (int i = 0; i < nb; i++) {
		Buf *b = &k->buf[i];
		const SInfo *si = sis[i];
		b->dt = si->dtype;
		b->nd = si->ndim;
		b->ptr = LLVMGetParam(k->fn, (unsigned)i);
		for (int j = 0; j < b->nd; j++, doff++) {
			int64_t c;
			StrBuf tok = {0};
			if (si->shape)
				key_dim(&tok, si->shape[j], &vn);
			else
				sb_printf(&tok, "?%d.%d", i, j);
			b->tok[j] = arena_strdup(&k->m->arena, tok.p);
			sb_free(&tok);
			if (si->shape && cg_pe_const(si->shape[j], &c)) {
				b->dim[j] = cg_ci(k, c);
				continue;
			}
			LLVMValueRef o = cg_ci(k, doff);
			LLVMValueRef p = LLVMBuildInBoundsGEP2(k->b, k->i64, dims, &o, 1, "");
			b->dim[j] = LLVMBuildLoad2(k->b, k->i64, p, "");
		}
	}
	k->dims = dims;
	k->ndim_bufs = doff;
}

/* Calls the impl f with the nb + 1 pointers loaded from the array `ptrs`
 * (buffers, then the dims when dims is NULL) or the nb buffers and dims,
 * the range [lo, hi) and whether it may split; then returns. */
static void
call_impl(KernelBuilder *k, LLVMValueRef f, LLVMValueRef ptrs, int nload, LLVMValueRef dims,
	  LLVMValueRef lo, LLVMValueRef hi, bool split)
{
	int nb = k->nin + k->nout;
	LLVMValueRef args[MAXBUF + 4];
	for (int i = 0; i < nload; i++) {
		LLVMValueRef o = cg_ci(k, i);
		args[i] = LLVMBuildLoad2(k->b, k->ptr,
			LLVMBuildInBoundsGEP2(k->b, k->ptr, ptrs, &o, 1, ""), "");
	}
	if (dims)
		args[nb] = dims;
	args[nb + 1] = lo;
	args[nb + 2] = hi;
	args[nb + 3] = LLVMConstInt(k->i1, split, 0);
	LLVMBuildCall2(k->b, LLVMGlobalGetValueType(f), f, args, (unsigned)nb + 4, "");
	LLVMBuildRetVoid(k->b);
}

/*
 * Builds a kernel: the impl function (declare_impl) with its body
 * (gen(k, ctx)), the external wrapper of the kernel ABI that calls it over
 * the whole range, and NAME.par, the chunk entry the pool calls, when the
 * body has a parallel loop.
 */
bool
cg_build(KernelBuilder *k, const char *name, bool (*gen)(KernelBuilder *k, void *ctx), void *ctx)
{
	int nb = k->nin + k->nout;
	declare_impl(k, name);
	LLVMValueRef f = k->fn, tramp = k->tramp;
	if (!gen(k, ctx)) {
		LLVMDeleteFunction(f);
		LLVMDeleteFunction(tramp);
		return false;
	}
	LLVMBuildRetVoid(k->b);
	if (k->par_used) {
		/* NAME.par(ctx, lo, hi): ctx holds the buffers, then dims */
		LLVMPositionBuilderAtEnd(k->b,
			LLVMAppendBasicBlockInContext(k->c, tramp, "entry"));
		call_impl(k, f, LLVMGetParam(tramp, 0), nb + 1, NULL,
			  LLVMGetParam(tramp, 1), LLVMGetParam(tramp, 2), false);
	} else {
		LLVMDeleteFunction(tramp);
	}
	/* the kernel ABI: kernel(void **buffers, const int64_t *dims) */
	LLVMTypeRef wt[2] = {k->ptr, k->ptr};
	LLVMValueRef w = LLVMAddFunction(k->mod, name,
		LLVMFunctionType(k->vd, wt, 2, false));
	fn_attr(k, w, LLVMAttributeFunctionIndex, "nounwind", 0);
	LLVMPositionBuilderAtEnd(k->b, LLVMAppendBasicBlockInContext(k->c, w, "entry"));
	call_impl(k, f, LLVMGetParam(w, 0), nb, LLVMGetParam(w, 1),
		  cg_ci(k, 0), cg_ci(k, INT64_MAX), true);
	return true;
}

/* cg_build's ctx for an op call: the call and its buffers' struct infos. */
typedef struct {
	OpKernel *o;
	const SInfo **sis;
} OpCtx;

/* An op call's body: its buffers from their struct infos, then gen_body. */
static bool
gen_op(KernelBuilder *k, void *ctx)
{
	OpCtx *c = ctx;
	bind_buffers(k, c->sis);
	return gen_body(c->o);
}

/* A new kernel of cg: the LLVM types, the pending module, the builder
 * (disposed by cg_register or the caller). */
void
cg_k_init(Codegen *cg, KernelBuilder *k, Module *m, Diags *d)
{
	if (!cg->pending)
		cg->pending = LLVMModuleCreateWithNameInContext(
			"rlx_kernels", jit_context(cg->jit));
	memset(k, 0, sizeof *k);
	k->c = jit_context(cg->jit);
	k->mod = cg->pending;
	k->b = LLVMCreateBuilderInContext(k->c);
	k->i1 = LLVMInt1TypeInContext(k->c);
	k->i8 = LLVMInt8TypeInContext(k->c);
	k->i16 = LLVMInt16TypeInContext(k->c);
	k->i32 = LLVMInt32TypeInContext(k->c);
	k->i64 = LLVMInt64TypeInContext(k->c);
	k->f16 = LLVMHalfTypeInContext(k->c);
	k->f32 = LLVMFloatTypeInContext(k->c);
	k->f64 = LLVMDoubleTypeInContext(k->c);
	k->ptr = LLVMPointerTypeInContext(k->c, 0);
	k->vd = LLVMVoidTypeInContext(k->c);
	k->gemm_isa = jit_gemm_isa(cg->jit);
	k->m = m;
	k->d = d;
}

/* The kernel made before for key, NULL when none. */
CgKernel *
cg_find(Codegen *cg, const char *key)
{
	const int *have = namemap_get(&cg->index, key);
	return have ? cg->kernels[*have] : NULL;
}

/* A kernel's symbol: rlx_c0_k12_WHAT (WHAT's dots and other
 * non-identifier characters as '_'); the Codegen's number keeps names of
 * several Codegens on one Jit apart. */
void
cg_kernel_name(Codegen *cg, const char *what, char *name, size_t n)
{
	int len = snprintf(name, n, "rlx_c%u_k%d_%s", cg->id, cg->n, what);
	for (int i = 0; i < len && i < (int)n - 1; i++)
		if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			name[i] = '_';
}

/* Records the kernel built in k as `name` under key (taken): its fn is
 * set by the next cg_flush. */
CgKernel *
cg_register(Codegen *cg, KernelBuilder *k, char *key, const char *name, int ndims)
{
	CgKernel *kn = calloc(1, sizeof *kn);
	if (!kn)
		ir_bug("out of memory");
	kn->name = strdup(name);
	kn->key = key;
	kn->nin = k->nin;
	kn->nout = k->nout;
	kn->ndims = ndims + k->nscalars;
	kn->nscalars = k->nscalars;
	memcpy(kn->scalar_arg, k->scalar_arg, sizeof kn->scalar_arg);
	if (cg->n == cg->cap) {
		cg->cap = cg->cap ? cg->cap * 2 : 16;
		cg->kernels = realloc(cg->kernels, sizeof *cg->kernels * (size_t)cg->cap);
		if (!cg->kernels)
			ir_bug("out of memory");
	}
	namemap_add(&cg->index, kn->key, cg->n);
	cg->kernels[cg->n++] = kn;
	return kn;
}

CgKernel *
cg_kernel(Codegen *cg, Module *m, Expr *e, Diags *d)
{
	if (e->kind != E_CALL)
		ir_bug("cg_kernel on a %s", ir_expr_kind_name(e->kind));
	CgNode n = {e, NULL, NULL};
	CgFusion fu = {1, &n};
	return cg_fused_kernel(cg, m, &fu, d);
}

CgKernel *
cg_fused_kernel(Codegen *cg, Module *m, const CgFusion *fu, Diags *d)
{
	Expr *e = fu->node[fu_root(fu)].call;
	OpClass oc = op_info(e->call.op)->cls;
	OpKind op = e->call.op;
	if (op == OP_CALL_DPS_PACKED && e->call.nargs > 0 &&
	    (e->call.args[0]->kind == E_STR || e->call.args[0]->kind == E_EXTERN)) {
		diag_error(d, e->span, "R.call_dps_packed(\"%s\"): rlx knows no "
			   "packed function of that name (it runs the module's "
			   "prim_funcs through R.call_tir)", e->call.args[0]->str);
		return NULL;
	}
	if (oc == OC_NOKERNEL) {
		diag_error(d, e->span, "R.%s cannot be run by rlx yet: rlx reads, "
			   "checks, prints and lifts it, but has no kernel for it "
			   "(docs/language.md lists the ops rlx runs)",
			   op_info(e->call.op)->name);
		return NULL;
	}
	if (oc == OC_EXTERN || oc == OC_IMPURE) {
		diag_error(d, e->span, "R.%s cannot be run by rlx: it is outside "
			   "the operators rlx computes (packed functions, memory "
			   "planning, effects)", op_info(e->call.op)->name);
		return NULL;
	}
	const SInfo *sis[MAXBUF];
	const Expr *xs[MAXBUF];
	int nin, nout;
	StrBuf key = {0};
	Sig g = {.fu = fu, .d = d, .sis = sis, .xs = xs, .key = &key};
	if (!signature(&g, &nin, &nout)) {
		sb_free(&key);
		return NULL;
	}
	char *ks = sb_take(&key);
	CgKernel *have = cg_find(cg, ks);
	if (have) {
		free(ks);
		return have;
	}
	KernelBuilder k;
	cg_k_init(cg, &k, m, d);
	k.nin = nin;
	k.nout = nout;
	OpKernel o = {.k = &k, .e = e, .fu = fu};
	OpCtx c = {&o, sis};

	/* a name that says what it is: rlx_c0_k12_nn_softmax */
	char name[128];
	cg_kernel_name(cg, op_info(e->call.op)->name, name, sizeof name);
	bool ok = cg_build(&k, name, gen_op, &c);
	LLVMDisposeBuilder(k.b);
	if (!ok) {
		free(ks);
		return NULL;
	}
	int ndims = 0;
	for (int i = 0; i < nin + nout; i++)
		ndims += sis[i]->ndim;
	return cg_register(cg, &k, ks, name, ndims);
}

bool
cg_flush(Codegen *cg, RtError *err)
{
	if (!cg->pending)
		return true;
	LLVMModuleRef mod = cg->pending;
	cg->pending = NULL;
	if (!jit_add_module(cg->jit, mod, err))
		return false;
	for (int i = 0; i < cg->n; i++) {
		CgKernel *kn = cg->kernels[i];
		if (kn->fn)
			continue;
		void *p = jit_lookup(cg->jit, kn->name);
		if (!p) {
			snprintf(err->msg, sizeof err->msg, "kernel %s not found in the JIT", kn->name);
			return false;
		}
		kn->fn = (CgFn)(uintptr_t)p;
	}
	return true;
}
