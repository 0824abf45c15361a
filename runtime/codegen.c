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
 *   each (CgKernel.ndims in all). The kernel reads only the dims that are
 *   symbolic in its signature; static ones are constants in the code.
 *
 * One kernel per signature: the key is the op, the dtype and dims of every
 * buffer (static values, symbolic dims numbered by first appearance so that
 * equal dims stay equal), the attributes and the prim arguments. Calls with
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
 * with par_begin (or par_nest): when the flag is set and the work is at
 * least PAR_MIN, the impl packs its arguments and calls
 * rlx_parallel_for(pool, ctx, n, NAME.par) on the Jit's thread pool
 * (runtime/pool.h; the pool's address is a constant in the code), and
 * NAME.par calls the impl again on each chunk with the flag clear. So the
 * code before the outer loop runs once per chunk and must be pure. Small
 * kernels never leave the calling thread.
 *
 * Fast paths: transposes move T x T tiles through registers (vector loads,
 * a shuffle network, vector stores; non-temporal when the output is
 * large), f32 matmul uses 6 x 32 register tiles of fmas, reductions may
 * reassociate so they vectorize, and f32 exp is a polynomial so loops
 * calling it vectorize. Cold tail loops carry metadata that keeps the
 * optimizer from vectorizing or unrolling them (JIT time).
 *
 * Adding an op: write `static bool gen_OP(K *k)` from the helpers below
 * (loops: loop_begin/loop_end, nest_begin/nest_end, par_begin for the
 * outer loop; elements: ld/st with an element offset, cvt between dtypes;
 * strides) or, for an elementwise op, a case in elem_unary/elem_binary;
 * then a case in gen_body().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h> /* temporary metadata nodes for loop hints */

#include "codegen.h"

enum {
	MAXBUF = 64, /* buffers of one kernel */
	MAXD = 8,    /* dims of one buffer (RT_MAX_DIMS) */
	JB = 256,    /* matmul column block (the f32 accumulator row) */
	PAR_MIN = 1 << 16, /* work (elements, or multiply-adds) worth threads */
	PAR_BLK = 4096,    /* flat elementwise loops: elements per chunk */
	NT_MIN_BYTES = 8 << 20, /* outputs this large bypass the caches */
	QT = 16,            /* transpose tiles per strip of rows */
	CC_BLK = 1 << 16,   /* concat: elements per parallel block */
	MM_MR = 6,         /* matmul register tile: rows */
	MM_VW = 16,        /* f32 lanes of one accumulator vector */
	MM_NV = 2,         /* accumulator vectors per row (MM_NV * MM_VW cols) */
};

/* A buffer of the kernel being built. */
typedef struct {
	DType dt;
	int nd;
	LLVMValueRef ptr;
	LLVMValueRef dim[MAXD];
	const char *tok[MAXD]; /* the dim in the key: "4", "$0", "?1.2" */
} Buf;

/* The kernel being built. */
typedef struct {
	LLVMContextRef c;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMBasicBlockRef entry;
	LLVMTypeRef i1, i8, i16, i32, i64, f16, f32, f64, ptr, vd;
	Buf buf[MAXBUF];
	int nin, nout;
	Module *m;
	Expr *e;
	Diags *d;
	OpSig sig;
	/* splitting the outer loop across the pool (par_begin) */
	LLVMValueRef lo, hi;  /* the impl's range of the outer loop */
	LLVMValueRef split;   /* i1: may this call split it? */
	LLVMValueRef tramp;   /* void NAME.par(ctx, lo, hi) */
	LLVMValueRef pool;    /* the Jit's pool, a constant pointer */
	bool par_used;
	/* the elementwise node being computed (elem_unary, elem_binary):
	 * k->e's inputs' dtypes and count, and its result's dtype */
	const DType *edt;
	int enin;
	DType odt;
} K;

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
static LLVMValueRef
ci(K *k, int64_t v)
{
	return LLVMConstInt(k->i64, (unsigned long long)v, true);
}

static LLVMValueRef
add(K *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildNSWAdd(k->b, a, b, "");
}

static LLVMValueRef
mul(K *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildNSWMul(k->b, a, b, "");
}

/* min(a, b) of i64 values. */
static LLVMValueRef
imin(K *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, a, b, ""),
			       a, b, "");
}

/* max(a, b) of i64 values. */
static LLVMValueRef
imax(K *k, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSGT, a, b, ""),
			       a, b, "");
}

/* Product of dims[lo..hi) (1 when empty). */
static LLVMValueRef
prod(K *k, LLVMValueRef *dims, int lo, int hi)
{
	LLVMValueRef p = ci(k, 1);
	for (int i = lo; i < hi; i++)
		p = mul(k, p, dims[i]);
	return p;
}

/* C-order strides of buffer b, in elements. */
static void
strides(K *k, const Buf *b, LLVMValueRef *st)
{
	LLVMValueRef s = ci(k, 1);
	for (int i = b->nd - 1; i >= 0; i--) {
		st[i] = s;
		s = mul(k, s, b->dim[i]);
	}
}

/* A stack slot in the entry block (so mem2reg can promote it). */
static LLVMValueRef
slot(K *k, LLVMTypeRef t, int64_t n)
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

/* A counted loop `for (i = 0; i < n; i++)`, guarded for n <= 0. */
typedef struct {
	LLVMBasicBlockRef body, exit;
	LLVMValueRef i, n;
	bool plain; /* a cold tail: neither vectorize nor unroll it */
	bool keep;  /* vectorize it, but do not unroll it away (so that it
		     * stays the innermost loop the vectorizer sees) */
} Loop;

/* Opens a loop `for (i = from; i < n; i++)`; returns its index, an i64. */
static LLVMValueRef
loop_from(K *k, Loop *l, LLVMValueRef from, LLVMValueRef n)
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
static LLVMValueRef
loop_begin(K *k, Loop *l, LLVMValueRef n)
{
	return loop_from(k, l, ci(k, 0), n);
}

/* A string metadata node with an optional i32 operand. */
static LLVMMetadataRef
md_str(K *k, const char *s, int v, bool with_v)
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
mark_loop(K *k, LLVMValueRef br, bool plain)
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
static void
loop_end(K *k, Loop *l)
{
	LLVMValueRef next = LLVMBuildNUWAdd(k->b, l->i, ci(k, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(k->b);
	LLVMAddIncoming(l->i, &next, &latch, 1);
	LLVMValueRef br = LLVMBuildCondBr(k->b,
		LLVMBuildICmp(k->b, LLVMIntSLT, next, l->n, ""), l->body, l->exit);
	if (l->plain || l->keep)
		mark_loop(k, br, l->plain);
	LLVMPositionBuilderAtEnd(k->b, l->exit);
}

/* A loop nest over dims[0..nd), the last innermost. */
typedef struct {
	Loop l[MAXD];
	int n;
} Nest;

static void
nest_begin(K *k, Nest *ns, LLVMValueRef *dims, int nd, LLVMValueRef *idx)
{
	ns->n = nd;
	for (int i = 0; i < nd; i++)
		idx[i] = loop_begin(k, &ns->l[i], dims[i]);
}

static void
nest_end(K *k, Nest *ns)
{
	for (int i = ns->n - 1; i >= 0; i--)
		loop_end(k, &ns->l[i]);
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
static LLVMValueRef
par_begin(K *k, Loop *l, LLVMValueRef n, LLVMValueRef work)
{
	if (k->par_used)
		ir_bug("two parallel loops in one kernel");
	k->par_used = true;
	LLVMBuilderRef b = k->b;
	LLVMValueRef big = LLVMBuildAnd(b, k->split,
		LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, n, ci(k, 1), ""),
			     LLVMBuildICmp(b, LLVMIntSGE, work, ci(k, PAR_MIN), ""),
			     ""), "");
	LLVMBasicBlockRef par = LLVMAppendBasicBlockInContext(k->c, k->fn, "par");
	LLVMBasicBlockRef ser = LLVMAppendBasicBlockInContext(k->c, k->fn, "serial");
	LLVMBuildCondBr(b, big, par, ser);
	/* par: the buffers and dims into a context, the pool runs NAME.par */
	LLVMPositionBuilderAtEnd(b, par);
	int nb = k->nin + k->nout;
	LLVMValueRef ctx = slot(k, k->ptr, nb + 1);
	for (int i = 0; i <= nb; i++) {
		LLVMValueRef o = ci(k, i);
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
	return loop_from(k, l, imax(k, k->lo, ci(k, 0)), imin(k, k->hi, n));
}

/*
 * The outer loops of a nest over dims[0..nd-1) flattened into one
 * parallel loop (the last dim is left to the caller); idx[0..nd-1) get
 * the indices back by division. nd >= 1. Closed with loop_end(l).
 */
static void
par_nest(K *k, Loop *l, LLVMValueRef *dims, int nd, LLVMValueRef *idx,
	 LLVMValueRef work)
{
	LLVMValueRef f = par_begin(k, l, prod(k, dims, 0, nd - 1), work);
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
static LLVMValueRef
dot(K *k, LLVMValueRef *idx, LLVMValueRef *st, int n)
{
	LLVMValueRef o = ci(k, 0);
	for (int i = 0; i < n; i++)
		o = add(k, o, mul(k, idx[i], st[i]));
	return o;
}

/* ------------------------------------------------------ element access */

static bool
is_unsigned(DType t)
{
	return t == DT_U8 || t == DT_BOOL;
}

/* How an element is stored. */
static LLVMTypeRef
stype(K *k, DType t)
{
	switch (t) {
	case DT_BOOL: case DT_I8: case DT_U8: return k->i8;
	case DT_I16: return k->i16;
	case DT_I32: return k->i32;
	case DT_I64: return k->i64;
	case DT_F16: return k->f16;
	case DT_BF16: return k->i16;
	case DT_F32: return k->f32;
	case DT_F64: return k->f64;
	default: ir_bug("no storage type for %s", dtype_name(t));
	}
}

/* How an element is computed with: f16/bf16 as f32, bool as i1. */
static LLVMTypeRef
ctype(K *k, DType t)
{
	if (t == DT_BOOL)
		return k->i1;
	if (t == DT_F16 || t == DT_BF16)
		return k->f32;
	return stype(k, t);
}

/* A constant of dtype t in its compute type. */
static LLVMValueRef
cconst(K *k, DType t, double v)
{
	if (dtype_is_float(t))
		return LLVMConstReal(ctype(k, t), v);
	if (t == DT_BOOL)
		return LLVMConstInt(k->i1, v != 0, false);
	return LLVMConstInt(ctype(k, t), (unsigned long long)(long long)v,
			    true);
}

/* Converts compute value v of dtype from to dtype to (as numpy astype). */
static LLVMValueRef
cvt(K *k, LLVMValueRef v, DType from, DType to)
{
	LLVMTypeRef ft = ctype(k, from), tt = ctype(k, to);
	bool ff = dtype_is_float(from), tf = dtype_is_float(to);
	if (ff && tf) {
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
		return is_unsigned(to) ? LLVMBuildFPToUI(k->b, v, tt, "")
				       : LLVMBuildFPToSI(k->b, v, tt, "");
	if (tf) /* int or bool to float */
		return is_unsigned(from) ? LLVMBuildUIToFP(k->b, v, tt, "")
					 : LLVMBuildSIToFP(k->b, v, tt, "");
	/* int to int */
	unsigned fw = LLVMGetIntTypeWidth(ft), tw = LLVMGetIntTypeWidth(tt);
	if (fw == tw)
		return v;
	if (fw > tw)
		return LLVMBuildTrunc(k->b, v, tt, "");
	return is_unsigned(from) ? LLVMBuildZExt(k->b, v, tt, "")
				 : LLVMBuildSExt(k->b, v, tt, "");
}

/* The address of element off of buffer b. */
static LLVMValueRef
addr(K *k, const Buf *b, LLVMValueRef off)
{
	return LLVMBuildInBoundsGEP2(k->b, stype(k, b->dt), b->ptr, &off, 1, "");
}

/* Loads element off of b as a compute value. */
static LLVMValueRef
ld(K *k, const Buf *b, LLVMValueRef off)
{
	LLVMValueRef v = LLVMBuildLoad2(k->b, stype(k, b->dt), addr(k, b, off), "");
	switch (b->dt) {
	case DT_BOOL:
		return LLVMBuildICmp(k->b, LLVMIntNE, v, LLVMConstInt(k->i8, 0, 0), "");
	case DT_F16:
		return LLVMBuildFPExt(k->b, v, k->f32, "");
	case DT_BF16:
		v = LLVMBuildShl(k->b, LLVMBuildZExt(k->b, v, k->i32, ""),
				 LLVMConstInt(k->i32, 16, 0), "");
		return LLVMBuildBitCast(k->b, v, k->f32, "");
	default:
		return v;
	}
}

/* f32 to bf16 bits, rounding to nearest even; NaN stays a (quiet) NaN. */
static LLVMValueRef
f32_to_bf16(K *k, LLVMValueRef f)
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

/* Stores compute value v (of b's dtype) as element off of b. */
static void
st(K *k, const Buf *b, LLVMValueRef off, LLVMValueRef v)
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
	default:
		break;
	}
	LLVMBuildStore(k->b, v, addr(k, b, off));
}

/* A call to the intrinsic `name` overloaded on t. */
static LLVMValueRef
intrin(K *k, const char *name, LLVMTypeRef t, LLVMValueRef *args, int n)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ir_bug("no intrinsic %s", name);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(k->mod, id, &t, 1);
	LLVMTypeRef ft = LLVMIntrinsicGetType(k->c, id, &t, 1);
	return LLVMBuildCall2(k->b, ft, f, args, (unsigned)n, "");
}

/* intrinsic of one float argument. */
static LLVMValueRef
fn1(K *k, const char *name, LLVMValueRef x)
{
	return intrin(k, name, LLVMTypeOf(x), &x, 1);
}

/* A call to libm's `name` (float or double by x's type): tanh, erf. */
static LLVMValueRef
libm(K *k, const char *name, LLVMValueRef x)
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
static LLVMValueRef
vmax(K *k, LLVMValueRef a, LLVMValueRef b, DType t, bool is_max)
{
	if (!dtype_is_float(t)) {
		LLVMIntPredicate p = is_unsigned(t) ? (is_max ? LLVMIntUGT : LLVMIntULT)
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
static LLVMValueRef
contract(LLVMValueRef v)
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
static LLVMValueRef
fexp(K *k, LLVMValueRef x)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	if (t != k->f32)
		return fn1(k, "llvm.exp", x);
	LLVMBuilderRef b = k->b;
	LLVMValueRef lo = fconst(x, -87.33), hi = fconst(x, 88.72);
	LLVMValueRef xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, lo, ""), lo, x, "");
	xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, xc, hi, ""), hi, xc, "");
	LLVMValueRef n = fn1(k, "llvm.rint",
			     LLVMBuildFMul(b, xc, fconst(x, 1.44269504088896341), ""));
	LLVMValueRef r = LLVMBuildFSub(b, xc, LLVMBuildFMul(b, n, fconst(x, 0.693359375), ""), "");
	r = LLVMBuildFSub(b, r, LLVMBuildFMul(b, n, fconst(x, -2.12194440e-4), ""), "");
	/* Horner: 1 + r(1 + r/2(1 + r/3(1 + ... ))) with 1/k! coefficients */
	static const double c[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
				   1.0 / 6, 0.5, 1.0, 1.0};
	LLVMValueRef p = fconst(x, c[0]);
	for (size_t i = 1; i < ARRAY_LEN(c); i++)
		p = contract(LLVMBuildFAdd(b, contract(LLVMBuildFMul(b, p, r, "")),
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
static LLVMValueRef
reassoc(LLVMValueRef v)
{
	if (LLVMCanValueUseFastMathFlags(v))
		LLVMSetFastMathFlags(v, LLVMFastMathAllowReassoc |
				     LLVMFastMathAllowContract);
	return v;
}

/* --------------------------------------------------------- attributes */

/* The attribute or expression argument named `name` of the call. */
static const OpParam *
param(K *k, const char *name)
{
	for (int i = 0; i < k->sig.nparams; i++)
		if (!strcmp(k->sig.params[i].name, name))
			return &k->sig.params[i];
	ir_bug("%s has no parameter %s", op_info(k->e->call.op)->name, name);
}

/* Attribute `name`, its default when the call has fewer attrs. */
static AttrVal
attr(K *k, const char *name)
{
	const OpParam *q = param(k, name);
	if (q->slot < k->e->call.nattrs)
		return k->e->call.attrs[q->slot];
	return op_default(k->m, q);
}

/* Folds a PExpr of constants; false when it has a variable. */
static bool
pe_const(const PExpr *x, int64_t *out)
{
	int64_t a, b;
	switch (x->kind) {
	case PE_INT:
		*out = x->value;
		return true;
	case PE_VAR:
		return false;
	default:
		if (!pe_const(x->a, &a) || !pe_const(x->b, &b))
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

/* A prim argument `name` as a number; false when it is not a constant. */
static bool
prim_arg(K *k, const char *name, double *out)
{
	const OpParam *q = param(k, name);
	Expr *x = q->slot < k->e->call.nargs ? k->e->call.args[q->slot] : NULL;
	int64_t v;
	if (!x || x->kind != E_PRIM)
		return false;
	if (dtype_is_float(x->prim.dtype)) {
		*out = x->prim.f;
		return true;
	}
	if (!x->prim.value || !pe_const(x->prim.value, &v))
		return false;
	*out = (double)v;
	return true;
}

/* Normalizes a possibly negative axis; false when out of range. */
static bool
norm_axis(int64_t a, int nd, int *out)
{
	if (a < 0)
		a += nd;
	if (a < 0 || a >= (nd ? nd : 1))
		return false;
	*out = (int)a;
	return true;
}

/* Reports that the call cannot be lowered, and why; returns false. */
static bool
fail(K *k, const char *why)
{
	diag_error(k->d, k->e->span, "cannot generate code for %s: %s",
		   op_info(k->e->call.op)->name, why);
	return false;
}

/* -------------------------------------------------------- elementwise */

/* The computation of one output element from its input elements; returns
 * a compute value of dtype *rdt. */
typedef LLVMValueRef (*ElemFn)(K *k, LLVMValueRef *in, DType *rdt);

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
gen_elementwise(K *k, ElemFn f)
{
	Buf *out = &k->buf[k->nin];
	LLVMValueRef in[MAXBUF], idx[MAXD];
	DType rdt, dts[MAXBUF];
	for (int i = 0; i < k->nin; i++)
		dts[i] = k->buf[i].dt;
	k->edt = dts;
	k->enin = k->nin;
	k->odt = out->dt;
	bool flat = true;
	for (int i = 0; i < k->nin; i++)
		flat = flat && same_dims(&k->buf[i], out);
	LLVMValueRef total = prod(k, out->dim, 0, out->nd);
	if (flat) {
		/* blocks of PAR_BLK elements across the pool */
		Loop lb, l;
		LLVMValueRef nblk = LLVMBuildSDiv(k->b, add(k, total, ci(k, PAR_BLK - 1)),
						  ci(k, PAR_BLK), "");
		LLVMValueRef j0 = mul(k, par_begin(k, &lb, nblk, total), ci(k, PAR_BLK));
		LLVMValueRef j = loop_from(k, &l, j0, imin(k, add(k, j0, ci(k, PAR_BLK)), total));
		for (int i = 0; i < k->nin; i++)
			in[i] = ld(k, &k->buf[i], j);
		LLVMValueRef v = f(k, in, &rdt);
		st(k, out, j, cvt(k, v, rdt, out->dt));
		loop_end(k, &l);
		loop_end(k, &lb);
		return true;
	}
	/* Strides of each input by output dim, 0 where broadcast. */
	LLVMValueRef ist[MAXBUF][MAXD], ost[MAXD];
	strides(k, out, ost);
	for (int i = 0; i < k->nin; i++) {
		Buf *b = &k->buf[i];
		LLVMValueRef s[MAXD];
		int lead = out->nd - b->nd;
		if (lead < 0)
			return fail(k, "an input has more dims than the result");
		strides(k, b, s);
		for (int j = 0; j < out->nd; j++) {
			if (j < lead) {
				ist[i][j] = ci(k, 0);
			} else if (!strcmp(b->tok[j - lead], out->tok[j])) {
				ist[i][j] = s[j - lead];
			} else {
				LLVMValueRef one = LLVMBuildICmp(
					k->b, LLVMIntEQ, b->dim[j - lead], ci(k, 1), "");
				ist[i][j] = LLVMBuildSelect(k->b, one, ci(k, 0),
							    s[j - lead], "");
			}
		}
	}
	/* broadcast: the outer dims across the pool, the last one inside
	 * (out->nd >= 1 here: a 0-d result is always flat) */
	Loop lo, li;
	int nd = out->nd;
	par_nest(k, &lo, out->dim, nd, idx, total);
	idx[nd - 1] = loop_begin(k, &li, out->dim[nd - 1]);
	for (int i = 0; i < k->nin; i++)
		in[i] = ld(k, &k->buf[i], dot(k, idx, ist[i], nd));
	LLVMValueRef v = f(k, in, &rdt);
	st(k, out, dot(k, idx, ost, nd), cvt(k, v, rdt, out->dt));
	loop_end(k, &li);
	loop_end(k, &lo);
	return true;
}

static const double SQRT1_2 = 0.70710678118654752440;
static const double SQRT_2_PI = 0.79788456080286535588;

/* 1 / (1 + exp(-x)) */
static LLVMValueRef
sigmoid(K *k, LLVMValueRef x)
{
	LLVMValueRef e = fexp(k, LLVMBuildFNeg(k->b, x, ""));
	return LLVMBuildFDiv(k->b, fconst(x, 1),
			     LLVMBuildFAdd(k->b, fconst(x, 1), e, ""), "");
}

/* Unary ops and the other one-input elementwise ops. */
static LLVMValueRef
elem_unary(K *k, LLVMValueRef *in, DType *rdt)
{
	LLVMBuilderRef b = k->b;
	DType t = k->odt; /* compute in the result's dtype */
	OpKind op = k->e->call.op;
	*rdt = t;
	if (op == OP_LOGICAL_NOT) {
		*rdt = DT_BOOL;
		return LLVMBuildNot(b, cvt(k, in[0], k->edt[0], DT_BOOL), "");
	}
	LLVMValueRef x = k->enin ? cvt(k, in[0], k->edt[0], t) : NULL;
	bool fl = dtype_is_float(t);
	LLVMValueRef zero = cconst(k, t, 0), one = cconst(k, t, 1);
	switch (op) {
	case OP_NEGATIVE:
		return fl ? LLVMBuildFNeg(b, x, "") : LLVMBuildSub(b, zero, x, "");
	case OP_ABS:
		if (fl)
			return fn1(k, "llvm.fabs", x);
		if (is_unsigned(t))
			return x;
		return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""),
				       LLVMBuildSub(b, zero, x, ""), x, "");
	case OP_EXP: return fexp(k, x);
	case OP_LOG: return fn1(k, "llvm.log", x);
	case OP_SQRT: return fn1(k, "llvm.sqrt", x);
	case OP_RSQRT:
		return LLVMBuildFDiv(b, one, fn1(k, "llvm.sqrt", x), "");
	case OP_SIN: return fn1(k, "llvm.sin", x);
	case OP_COS: return fn1(k, "llvm.cos", x);
	case OP_TANH: return libm(k, "tanh", x);
	case OP_ERF: return libm(k, "erf", x);
	case OP_SIGMOID: return sigmoid(k, x);
	case OP_ROUND: return fl ? fn1(k, "llvm.roundeven", x) : x;
	case OP_FLOOR: return fl ? fn1(k, "llvm.floor", x) : x;
	case OP_CEIL: return fl ? fn1(k, "llvm.ceil", x) : x;
	case OP_SIGN:
		if (fl) {
			LLVMValueRef neg = LLVMBuildSelect(
				b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
				cconst(k, t, -1), x, "");
			return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""),
					       one, neg, "");
		} else {
			LLVMValueRef gt = LLVMBuildICmp(b, is_unsigned(t) ? LLVMIntUGT : LLVMIntSGT, x, zero, "");
			LLVMValueRef lt = LLVMBuildICmp(b, LLVMIntSLT, x, zero, "");
			if (is_unsigned(t))
				lt = LLVMConstInt(k->i1, 0, 0);
			return LLVMBuildSelect(b, gt, one,
					       LLVMBuildSelect(b, lt, cconst(k, t, -1), zero, ""), "");
		}
	case OP_CLIP: {
		double lo, hi;
		prim_arg(k, "min", &lo);
		prim_arg(k, "max", &hi);
		x = vmax(k, x, cconst(k, t, lo), t, true);
		return vmax(k, x, cconst(k, t, hi), t, false);
	}
	case OP_RELU:
		if (fl)
			return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
					       zero, x, "");
		return vmax(k, x, zero, t, true);
	case OP_SILU:
		return LLVMBuildFMul(b, x, sigmoid(k, x), "");
	case OP_GELU: {
		LLVMValueRef e = libm(k, "erf", LLVMBuildFMul(b, x, fconst(x, SQRT1_2), ""));
		LLVMValueRef h = LLVMBuildFMul(b, x, fconst(x, 0.5), "");
		return LLVMBuildFMul(b, h, LLVMBuildFAdd(b, one, e, ""), "");
	}
	case OP_GELU_TANH: {
		LLVMValueRef x3 = LLVMBuildFMul(b, LLVMBuildFMul(b, x, x, ""), x, "");
		LLVMValueRef u = LLVMBuildFAdd(b, x, LLVMBuildFMul(b, x3, fconst(x, 0.044715), ""), "");
		LLVMValueRef th = libm(k, "tanh", LLVMBuildFMul(b, u, fconst(x, SQRT_2_PI), ""));
		LLVMValueRef h = LLVMBuildFMul(b, x, fconst(x, 0.5), "");
		return LLVMBuildFMul(b, h, LLVMBuildFAdd(b, one, th, ""), "");
	}
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
idiv(K *k, LLVMValueRef a, LLVMValueRef b, DType t, bool floor_)
{
	LLVMBuilderRef bl = k->b;
	LLVMValueRef zero = cconst(k, t, 0);
	LLVMValueRef bz = LLVMBuildICmp(bl, LLVMIntEQ, b, zero, "");
	LLVMValueRef safe = LLVMBuildSelect(bl, bz, cconst(k, t, 1), b, "");
	if (is_unsigned(t))
		return LLVMBuildSelect(bl, bz, zero, LLVMBuildUDiv(bl, a, safe, ""), "");
	/* INT_MIN / -1 overflows: divide by 1 and negate instead. */
	LLVMValueRef m1 = LLVMBuildICmp(bl, LLVMIntEQ, safe, cconst(k, t, -1), "");
	safe = LLVMBuildSelect(bl, m1, cconst(k, t, 1), safe, "");
	LLVMValueRef q = LLVMBuildSDiv(bl, a, safe, "");
	q = LLVMBuildSelect(bl, m1, LLVMBuildSub(bl, zero, q, ""), q, "");
	if (floor_) {
		LLVMValueRef r = LLVMBuildSub(bl, a, LLVMBuildMul(bl, q, b, ""), "");
		LLVMValueRef rn = LLVMBuildICmp(bl, LLVMIntNE, r, zero, "");
		LLVMValueRef sgn = LLVMBuildXor(bl, LLVMBuildICmp(bl, LLVMIntSLT, r, zero, ""),
						LLVMBuildICmp(bl, LLVMIntSLT, b, zero, ""), "");
		LLVMValueRef adj = LLVMBuildAnd(bl, rn, sgn, "");
		q = LLVMBuildSelect(bl, adj, LLVMBuildSub(bl, q, cconst(k, t, 1), ""), q, "");
	}
	return LLVMBuildSelect(bl, bz, zero, q, "");
}

/* Binary arithmetic, comparisons, logical ops, where and full. */
static LLVMValueRef
elem_binary(K *k, LLVMValueRef *in, DType *rdt)
{
	LLVMBuilderRef b = k->b;
	OpKind op = k->e->call.op;
	DType out = k->odt;
	if (op == OP_WHERE) {
		*rdt = out;
		return LLVMBuildSelect(b, cvt(k, in[0], k->edt[0], DT_BOOL),
				       cvt(k, in[1], k->edt[1], out),
				       cvt(k, in[2], k->edt[2], out), "");
	}
	if (op == OP_FULL || op == OP_FULL_LIKE) {
		int i = k->enin - 1; /* fill_value, a tensor */
		*rdt = k->edt[i];
		return in[i];
	}
	if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR) {
		*rdt = DT_BOOL;
		LLVMValueRef x = cvt(k, in[0], k->edt[0], DT_BOOL);
		LLVMValueRef y = cvt(k, in[1], k->edt[1], DT_BOOL);
		return op == OP_LOGICAL_AND ? LLVMBuildAnd(b, x, y, "")
					    : LLVMBuildOr(b, x, y, "");
	}
	bool cmp = op >= OP_EQUAL && op <= OP_GREATER_EQUAL;
	DType t = cmp ? k->edt[0] : out;
	LLVMValueRef x = cvt(k, in[0], k->edt[0], t);
	LLVMValueRef y = cvt(k, in[1], k->edt[1], t);
	bool fl = dtype_is_float(t), un = is_unsigned(t);
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
		int i = op - OP_EQUAL;
		if (fl)
			return LLVMBuildFCmp(b, fp[i], x, y, "");
		return LLVMBuildICmp(b, un ? up[i] : sp[i], x, y, "");
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
		return fl ? fn1(k, "llvm.floor", LLVMBuildFDiv(b, x, y, ""))
			  : idiv(k, x, y, t, true);
	case OP_POWER: {
		LLVMValueRef args[2];
		if (fl) {
			args[0] = x;
			args[1] = y;
			return intrin(k, "llvm.pow", LLVMTypeOf(x), args, 2);
		}
		args[0] = cvt(k, x, t, DT_F64);
		args[1] = cvt(k, y, t, DT_F64);
		*rdt = DT_F64;
		return intrin(k, "llvm.pow", k->f64, args, 2);
	}
	case OP_MAXIMUM: return vmax(k, x, y, t, true);
	case OP_MINIMUM: return vmax(k, x, y, t, false);
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

/* Is x a constant prim value (what prim_arg accepts)? */
static bool
const_prim(const Expr *x)
{
	int64_t v;
	return x && x->kind == E_PRIM &&
	       (dtype_is_float(x->prim.dtype) ||
		(x->prim.value && pe_const(x->prim.value, &v)));
}

/* Can op call e be a node of a fused elementwise kernel (see codegen.h)? */
bool
cg_fusable(const Expr *e)
{
	if (e->kind != E_CALL || !elem_class(e->call.op))
		return false;
	if (e->call.op == OP_CLIP) {
		OpSig sig;
		op_sig(e->call.op, &sig);
		for (int i = 0; i < sig.nparams; i++) {
			const OpParam *q = &sig.params[i];
			if ((!strcmp(q->name, "min") || !strcmp(q->name, "max")) &&
			    (q->slot >= e->call.nargs ||
			     !const_prim(e->call.args[q->slot])))
				return false;
		}
	}
	return true;
}

/* Can reduction op read its data from a fused elementwise tree whose
 * leaves all have the data's shape (see codegen.h)? */
bool
cg_reduce_fusable(OpKind op)
{
	return op == OP_SUM || op == OP_MEAN || op == OP_MAX || op == OP_MIN ||
	       op == OP_PROD;
}

/* Does call e have a call among its arguments (a fused kernel)? */
static bool
has_nested_call(const Expr *e)
{
	for (int i = 0; i < e->call.nargs; i++)
		if (e->call.args[i]->kind == E_CALL)
			return true;
	return false;
}

/*
 * The value of node e of a fused elementwise tree: its call arguments are
 * computed recursively (rounded to their dtype, as storing would), its
 * tensor arguments are the next leaves (the kernel's input buffers, in
 * argument order, depth first). Runs elem_unary / elem_binary with k->e,
 * k->sig and the node's dtypes switched to e, and restores them.
 */
static LLVMValueRef
elem_node(K *k, Expr *e, LLVMValueRef *leaves, int *next, DType *rdt)
{
	LLVMValueRef in[MAXBUF];
	DType dts[MAXBUF];
	int n = 0;
	for (int i = 0; i < e->call.nargs && n < MAXBUF; i++) {
		Expr *x = e->call.args[i];
		if (x->kind == E_CALL) {
			DType r;
			LLVMValueRef v = elem_node(k, x, leaves, next, &r);
			in[n] = cvt(k, v, r, x->sinfo->dtype);
			dts[n++] = x->sinfo->dtype;
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
	Expr *se = k->e;
	OpSig ss = k->sig;
	const DType *sedt = k->edt;
	int senin = k->enin;
	DType sodt = k->odt;
	k->e = e;
	op_sig(e->call.op, &k->sig);
	k->edt = dts;
	k->enin = n;
	k->odt = e->sinfo->dtype;
	LLVMValueRef v = elem_class(e->call.op) == 1 ? elem_unary(k, in, rdt)
						     : elem_binary(k, in, rdt);
	k->e = se;
	k->sig = ss;
	k->edt = sedt;
	k->enin = senin;
	k->odt = sodt;
	return v;
}

/* ElemFn of a fused kernel: the whole tree of k->e. */
static LLVMValueRef
elem_fused(K *k, LLVMValueRef *in, DType *rdt)
{
	int next = 0;
	return elem_node(k, k->e, in, &next, rdt);
}

/* ------------------------------------------------------ data movement */

/* reshape, expand_dims, squeeze, flatten: the bytes, unchanged. */
static bool
gen_copy(K *k)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	if (in->dt != out->dt)
		return fail(k, "changes the dtype");
	LLVMValueRef n = mul(k, prod(k, out->dim, 0, out->nd),
			     ci(k, (dtype_bits(out->dt) + 7) / 8));
	LLVMBuildMemCpy(k->b, out->ptr, 64, in->ptr, 64, n);
	return true;
}

/* A constant <n x i32> shuffle mask. */
static LLVMValueRef
mask(K *k, const int *m, int n)
{
	LLVMValueRef v[64];
	for (int i = 0; i < n; i++)
		v[i] = LLVMConstInt(k->i32, (unsigned long long)m[i], 0);
	return LLVMConstVector(v, (unsigned)n);
}

/* A vector load of type t at p with the given alignment. */
static LLVMValueRef
vload(K *k, LLVMTypeRef t, LLVMValueRef p, unsigned align)
{
	LLVMValueRef v = LLVMBuildLoad2(k->b, t, p, "");
	LLVMSetAlignment(v, align);
	return v;
}

/*
 * Transposes the n x n matrix whose rows are the vectors r[0..n) in place
 * (n a power of two): for d = n/2, n/4, .. 1, rows i and i + d (i & d == 0)
 * swap their off-diagonal d-blocks, one two-input shuffle per row. The
 * backend turns these into unpack/permute instructions.
 */
static void
transpose_regs(K *k, LLVMValueRef *r, int n)
{
	int ma[64], mb[64];
	for (int d = n / 2; d >= 1; d /= 2) {
		for (int p = 0; p < n; p++) {
			ma[p] = (p & d) ? n + p - d : p;
			mb[p] = (p & d) ? n + p : p + d;
		}
		LLVMValueRef mav = mask(k, ma, n), mbv = mask(k, mb, n);
		for (int i = 0; i < n; i++) {
			if (i & d)
				continue;
			LLVMValueRef x = r[i], y = r[i + d];
			r[i] = LLVMBuildShuffleVector(k->b, x, y, mav, "");
			r[i + d] = LLVMBuildShuffleVector(k->b, x, y, mbv, "");
		}
	}
}

/*
 * The tiles of a transpose strip (gen_permute): for t < ntile, then
 * qt < nqt, the T x T tile at r0 = t*T, q = q0 + qt*T: rows
 * in[ibase + q + (r0 + v) * sr ..+T] for v < T, transposed, stored as rows
 * out[obase + r0 + (q + v) * oq ..+T]. Walking the few q tiles of a strip
 * for each r0 reads QT consecutive cache lines of each input row at once.
 * nt: aligned non-temporal stores.
 */
static void
transpose_tiles(K *k, LLVMTypeRef vt, LLVMTypeRef et, int T, LLVMValueRef ntile,
		LLVMValueRef nqt, LLVMValueRef ibase, LLVMValueRef obase,
		LLVMValueRef q0, LLVMValueRef sr, LLVMValueRef oq, bool nt)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	unsigned bytes = LLVMGetIntTypeWidth(et) / 8;
	LLVMValueRef tv = ci(k, T);
	Loop lt, lq;
	LLVMValueRef r0 = mul(k, loop_begin(k, &lt, ntile), tv);
	LLVMValueRef q = add(k, q0, mul(k, loop_begin(k, &lq, nqt), tv));
	LLVMValueRef rows[64];
	LLVMValueRef ib = add(k, ibase, q), ob = add(k, obase, r0);
	for (int v = 0; v < T; v++) {
		LLVMValueRef o = add(k, ib, mul(k, add(k, r0, ci(k, v)), sr));
		rows[v] = vload(k, vt, LLVMBuildInBoundsGEP2(k->b, et, in->ptr, &o, 1, ""),
				bytes);
	}
	transpose_regs(k, rows, T);
	for (int v = 0; v < T; v++) {
		LLVMValueRef o = add(k, ob, mul(k, add(k, q, ci(k, v)), oq));
		LLVMValueRef p = LLVMBuildInBoundsGEP2(k->b, et, out->ptr, &o, 1, "");
		LLVMValueRef s = LLVMBuildStore(k->b, rows[v], p);
		LLVMSetAlignment(s, nt ? bytes * (unsigned)T : bytes);
		if (nt) {
			LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(k->i32, 1, 0));
			LLVMSetMetadata(s, LLVMGetMDKindIDInContext(k->c, "nontemporal", 11),
					LLVMMetadataAsValue(k->c, LLVMMDNodeInContext2(k->c, &one, 1)));
		}
	}
	lq.plain = true; /* at most QT trips */
	loop_end(k, &lq);
	loop_end(k, &lt);
}

/* Element-by-element copy of a transpose's rows q in [qa, qb) of q, cols
 * r in [ra, Dr) (the edges of a strip). */
static void
transpose_edge(K *k, LLVMTypeRef et, LLVMValueRef qa, LLVMValueRef qb,
	       LLVMValueRef ra, LLVMValueRef Dr, LLVMValueRef ibase,
	       LLVMValueRef obase, LLVMValueRef sr, LLVMValueRef oq)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	Loop lq, lr;
	LLVMValueRef q = loop_from(k, &lq, qa, qb);
	LLVMValueRef r = loop_from(k, &lr, ra, Dr);
	LLVMValueRef io = add(k, add(k, ibase, q), mul(k, r, sr));
	LLVMValueRef oo = add(k, add(k, obase, r), mul(k, q, oq));
	LLVMBuildStore(k->b, LLVMBuildLoad2(k->b, et,
		LLVMBuildInBoundsGEP2(k->b, et, in->ptr, &io, 1, ""), ""),
		LLVMBuildInBoundsGEP2(k->b, et, out->ptr, &oo, 1, ""));
	lq.plain = lr.plain = true;
	loop_end(k, &lr);
	loop_end(k, &lq);
}

/*
 * permute_dims: out[i0..] = in[...] with out dim j = in dim axes[j].
 *
 * When the innermost dim stays innermost, rows are copied: a parallel
 * loop over the outer dims, a unit-stride inner loop. Otherwise (a
 * transpose) let q be the output dim that is innermost in the input and r
 * the output's innermost dim. A parallel loop runs over the other dims
 * and strips of QT*T rows of q; each strip walks r in T x T tiles
 * (transpose_tiles): T vector loads along q (contiguous in the input), an
 * in-register transpose (transpose_regs), T vector stores along r
 * (contiguous in the output). Elements move as integers of their width.
 * The r tail and the last rows of q that fill no tile are copied element
 * by element.
 */
static bool
gen_permute(K *k)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	int nd = in->nd, axes[MAXD];
	AttrVal av = attr(k, "axes");
	if (in->dt != out->dt)
		return fail(k, "changes the dtype");
	if (av.kind == AV_INTS) {
		if (av.n != nd)
			return fail(k, "axes must name every dim");
		for (int i = 0; i < nd; i++)
			if (!norm_axis(av.ints[i], nd, &axes[i]))
				return fail(k, "axis out of range");
	} else {
		for (int i = 0; i < nd; i++)
			axes[i] = nd - 1 - i;
	}
	LLVMValueRef ist[MAXD], s[MAXD], ost[MAXD], idx[MAXD];
	strides(k, in, ist);
	strides(k, out, ost);
	for (int j = 0; j < nd; j++)
		s[j] = ist[axes[j]];
	LLVMValueRef total = prod(k, out->dim, 0, nd);
	if (nd == 0) {
		st(k, out, ci(k, 0), ld(k, in, ci(k, 0)));
		return true;
	}
	if (axes[nd - 1] == nd - 1) {
		Loop lo, li;
		par_nest(k, &lo, out->dim, nd, idx, total);
		idx[nd - 1] = loop_begin(k, &li, out->dim[nd - 1]);
		st(k, out, dot(k, idx, ost, nd), ld(k, in, dot(k, idx, s, nd)));
		loop_end(k, &li);
		loop_end(k, &lo);
		return true;
	}
	int q = 0, r = nd - 1;
	while (axes[q] != nd - 1)
		q++;
	int bytes = (dtype_bits(in->dt) + 7) / 8;
	int T = bytes >= 8 ? 8 : 16;
	LLVMTypeRef et = LLVMIntTypeInContext(k->c, (unsigned)bytes * 8);
	LLVMTypeRef vt = LLVMVectorType(et, (unsigned)T);
	/* the parallel loop: other dims (C order), then strips of q */
	int oth[MAXD], no = 0;
	for (int j = 0; j < nd; j++)
		if (j != q && j != r)
			oth[no++] = j;
	LLVMValueRef tv = ci(k, T), qs = ci(k, QT * T);
	LLVMValueRef Dq = out->dim[q], Dr = out->dim[r];
	LLVMValueRef nbq = LLVMBuildSDiv(k->b, add(k, Dq, ci(k, QT * T - 1)), qs, "");
	LLVMValueRef nitems = nbq;
	for (int i = 0; i < no; i++)
		nitems = mul(k, nitems, out->dim[oth[i]]);
	Loop lp;
	LLVMValueRef f = par_begin(k, &lp, nitems, total);
	LLVMValueRef bq = LLVMBuildURem(k->b, f, nbq, "");
	f = LLVMBuildUDiv(k->b, f, nbq, "");
	LLVMValueRef ibase = ci(k, 0), obase = ci(k, 0);
	for (int i = no - 1; i >= 0; i--) {
		LLVMValueRef d = out->dim[oth[i]];
		LLVMValueRef x = i ? LLVMBuildURem(k->b, f, d, "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, d, "");
		ibase = add(k, ibase, mul(k, x, s[oth[i]]));
		obase = add(k, obase, mul(k, x, ost[oth[i]]));
	}
	LLVMValueRef q0 = mul(k, bq, qs);
	LLVMValueRef qn = imin(k, qs, LLVMBuildSub(k->b, Dq, q0, ""));
	LLVMValueRef nqt = LLVMBuildSDiv(k->b, qn, tv, "");
	LLVMValueRef qt_end = add(k, q0, mul(k, nqt, tv));
	LLVMValueRef ntile = LLVMBuildSDiv(k->b, Dr, tv, "");
	LLVMValueRef sr = s[r], oq = ost[q];
	/* When each tile row is a whole aligned cache line (Dr % T == 0,
	 * T elements of 64 bytes) and the output is larger than the caches,
	 * the stores are non-temporal: no read for ownership, no cache
	 * filled with lines this kernel never reads again. */
	if (bytes * T == 64) {
		LLVMValueRef nt = LLVMBuildAnd(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, LLVMBuildSRem(k->b, Dr, tv, ""),
				      ci(k, 0), ""),
			LLVMBuildICmp(k->b, LLVMIntSGE, total,
				      ci(k, NT_MIN_BYTES / bytes), ""), "");
		LLVMBasicBlockRef bnt = LLVMAppendBasicBlockInContext(k->c, k->fn, "nt");
		LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(k->c, k->fn, "t");
		LLVMBasicBlockRef btail = LLVMAppendBasicBlockInContext(k->c, k->fn, "tail");
		LLVMBuildCondBr(k->b, nt, bnt, bt);
		LLVMPositionBuilderAtEnd(k->b, bnt);
		transpose_tiles(k, vt, et, T, ntile, nqt, ibase, obase, q0, sr, oq, true);
		/* non-temporal stores are weakly ordered: fence before the
		 * pool reports the chunk done */
		LLVMBuildFence(k->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
		LLVMBuildBr(k->b, btail);
		LLVMPositionBuilderAtEnd(k->b, bt);
		transpose_tiles(k, vt, et, T, ntile, nqt, ibase, obase, q0, sr, oq, false);
		LLVMBuildBr(k->b, btail);
		LLVMPositionBuilderAtEnd(k->b, btail);
	} else {
		transpose_tiles(k, vt, et, T, ntile, nqt, ibase, obase, q0, sr, oq, false);
	}
	/* the r tail of the tiled rows, then the rows that fill no tile */
	transpose_edge(k, et, q0, qt_end, mul(k, ntile, tv), Dr, ibase, obase, sr, oq);
	transpose_edge(k, et, qt_end, add(k, q0, qn), ci(k, 0), Dr, ibase, obase, sr, oq);
	loop_end(k, &lp);
	return true;
}

/*
 * concat: each input's rows land side by side along axis. Each input row
 * (the dims from axis on, contiguous in input and output) is cut into
 * blocks of CC_BLK elements; the parallel loop runs over (outer index,
 * block of any input), finding the input by a chain of compares. A block
 * of the output's dtype is a memcpy.
 */
static bool
gen_concat(K *k)
{
	Buf *out = &k->buf[k->nin];
	AttrVal av = attr(k, "axis");
	int axis = 0;
	if (av.kind == AV_NONE)
		return fail(k, "axis=None is not supported");
	if (!norm_axis(av.i, out->nd, &axis))
		return fail(k, "axis out of range");
	LLVMBuilderRef b = k->b;
	LLVMValueRef outer = prod(k, out->dim, 0, axis);
	LLVMValueRef orow = prod(k, out->dim, axis, out->nd);
	LLVMValueRef rows[MAXBUF], nblk[MAXBUF], offs[MAXBUF];
	LLVMValueRef nb = ci(k, 0), off = ci(k, 0);
	for (int i = 0; i < k->nin; i++) {
		Buf *in = &k->buf[i];
		rows[i] = prod(k, in->dim, axis, in->nd);
		nblk[i] = LLVMBuildSDiv(b, add(k, rows[i], ci(k, CC_BLK - 1)),
					ci(k, CC_BLK), "");
		offs[i] = off;
		off = add(k, off, rows[i]);
		nb = add(k, nb, nblk[i]);
	}
	Loop lp;
	LLVMValueRef f = par_begin(k, &lp, mul(k, outer, nb), mul(k, outer, orow));
	LLVMValueRef o = LLVMBuildUDiv(b, f, nb, "");
	LLVMValueRef blk = LLVMBuildURem(b, f, nb, "");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(k->c, k->fn, "cdone");
	LLVMValueRef first = ci(k, 0);
	for (int i = 0; i < k->nin; i++) {
		Buf *in = &k->buf[i];
		LLVMValueRef last = add(k, first, nblk[i]);
		LLVMBasicBlockRef here = LLVMAppendBasicBlockInContext(k->c, k->fn, "cin");
		LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(k->c, k->fn, "cnext");
		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, blk, last, ""),
				here, next);
		LLVMPositionBuilderAtEnd(b, here);
		LLVMValueRef j0 = mul(k, LLVMBuildSub(b, blk, first, ""), ci(k, CC_BLK));
		LLVMValueRef j1 = imin(k, add(k, j0, ci(k, CC_BLK)), rows[i]);
		LLVMValueRef ioff = add(k, mul(k, o, rows[i]), j0);
		LLVMValueRef ooff = add(k, add(k, mul(k, o, orow), offs[i]), j0);
		if (in->dt == out->dt && dtype_bits(in->dt) % 8 == 0) {
			int bytes = dtype_bits(in->dt) / 8;
			LLVMBuildMemCpy(b, addr(k, out, ooff), 1, addr(k, in, ioff), 1,
					mul(k, LLVMBuildSub(b, j1, j0, ""), ci(k, bytes)));
		} else {
			Loop li;
			LLVMValueRef j = loop_begin(k, &li, LLVMBuildSub(b, j1, j0, ""));
			LLVMValueRef v = ld(k, in, add(k, ioff, j));
			st(k, out, add(k, ooff, j), cvt(k, v, in->dt, out->dt));
			loop_end(k, &li);
		}
		LLVMBuildBr(b, done);
		LLVMPositionBuilderAtEnd(b, next);
		first = last;
	}
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	loop_end(k, &lp);
	return true;
}

/* split: the reverse of concat, one output per section. */
static bool
gen_split(K *k)
{
	Buf *in = &k->buf[0];
	int axis;
	if (!norm_axis(attr(k, "axis").i, in->nd, &axis))
		return fail(k, "axis out of range");
	LLVMValueRef outer = prod(k, in->dim, 0, axis);
	LLVMValueRef irow = prod(k, in->dim, axis, in->nd);
	LLVMValueRef off = ci(k, 0);
	for (int i = 0; i < k->nout; i++) {
		Buf *b = &k->buf[k->nin + i];
		LLVMValueRef row = prod(k, b->dim, axis, b->nd);
		Loop lo, li;
		LLVMValueRef o = loop_begin(k, &lo, outer);
		LLVMValueRef j = loop_begin(k, &li, row);
		LLVMValueRef v = ld(k, in, add(k, add(k, mul(k, o, irow), off), j));
		st(k, b, add(k, mul(k, o, row), j), cvt(k, v, in->dt, b->dt));
		loop_end(k, &li);
		loop_end(k, &lo);
		off = add(k, off, row);
	}
	return true;
}

/* take: out[o, t, i] = x[o, wrap(indices[t]), i] along axis. */
static bool
gen_take(K *k)
{
	Buf *x = &k->buf[0], *ix = &k->buf[1], *out = &k->buf[2];
	AttrVal av = attr(k, "axis");
	LLVMValueRef outer, n, inner;
	if (av.kind == AV_NONE) {
		outer = inner = ci(k, 1);
		n = prod(k, x->dim, 0, x->nd);
	} else {
		int axis;
		if (!norm_axis(av.i, x->nd, &axis) || x->nd == 0)
			return fail(k, "axis out of range");
		outer = prod(k, x->dim, 0, axis);
		n = x->dim[axis];
		inner = prod(k, x->dim, axis + 1, x->nd);
	}
	if (!dtype_is_int(ix->dt))
		return fail(k, "indices must be integers");
	LLVMValueRef ni = prod(k, ix->dim, 0, ix->nd);
	Loop lo, li;
	LLVMValueRef rows = mul(k, outer, ni);
	LLVMValueRef f = par_begin(k, &lo, rows, mul(k, rows, inner));
	LLVMValueRef o = LLVMBuildUDiv(k->b, f, ni, "");
	LLVMValueRef t = LLVMBuildURem(k->b, f, ni, "");
	LLVMValueRef p = cvt(k, ld(k, ix, t), ix->dt, DT_I64);
	LLVMValueRef neg = LLVMBuildICmp(k->b, LLVMIntSLT, p, ci(k, 0), "");
	p = LLVMBuildSelect(k->b, neg, add(k, p, n), p, "");
	p = imax(k, imin(k, p, LLVMBuildSub(k->b, n, ci(k, 1), "")), ci(k, 0));
	LLVMValueRef src = mul(k, add(k, mul(k, o, n), p), inner);
	LLVMValueRef dst = mul(k, add(k, mul(k, o, ni), t), inner);
	LLVMValueRef i = loop_begin(k, &li, inner);
	st(k, out, add(k, dst, i), cvt(k, ld(k, x, add(k, src, i)), x->dt, out->dt));
	loop_end(k, &li);
	loop_end(k, &lo);
	return true;
}

/* strided_slice: out[i..] = x[begin + i * stride ..]; begins normalized at
 * run time against the actual dims, extents taken from the output. */
static bool
gen_strided_slice(K *k)
{
	Buf *x = &k->buf[0], *out = &k->buf[1];
	AttrVal axes = attr(k, "axes"), beg = attr(k, "begin");
	AttrVal strv = attr(k, "strides");
	LLVMValueRef start[MAXD], step[MAXD], xs[MAXD], idx[MAXD];
	if (out->nd != x->nd || axes.kind != AV_INTS || beg.kind != AV_INTS ||
	    beg.n < axes.n || (strv.kind == AV_INTS && strv.n < axes.n))
		return fail(k, "malformed attributes");
	for (int d = 0; d < x->nd; d++) {
		start[d] = ci(k, 0);
		step[d] = ci(k, 1);
	}
	for (int p = 0; p < axes.n; p++) {
		int d;
		if (!norm_axis(axes.ints[p], x->nd, &d))
			return fail(k, "axis out of range");
		int64_t s = strv.kind == AV_INTS ? strv.ints[p] : 1;
		if (s == 0)
			return fail(k, "a stride is 0");
		LLVMValueRef n = x->dim[d], b = ci(k, beg.ints[p]);
		b = beg.ints[p] < 0 ? add(k, b, n) : b;
		if (s > 0)
			b = imin(k, imax(k, b, ci(k, 0)), n);
		else
			b = imin(k, imax(k, b, ci(k, -1)),
				 LLVMBuildSub(k->b, n, ci(k, 1), ""));
		start[d] = b;
		step[d] = ci(k, s);
	}
	strides(k, x, xs);
	LLVMValueRef ost[MAXD];
	strides(k, out, ost);
	if (out->nd == 0) {
		st(k, out, ci(k, 0), ld(k, x, ci(k, 0)));
		return true;
	}
	Loop lo, li;
	int nd = out->nd;
	par_nest(k, &lo, out->dim, nd, idx, prod(k, out->dim, 0, nd));
	idx[nd - 1] = loop_begin(k, &li, out->dim[nd - 1]);
	LLVMValueRef src = ci(k, 0);
	for (int d = 0; d < x->nd; d++)
		src = add(k, src, mul(k, add(k, start[d], mul(k, idx[d], step[d])), xs[d]));
	st(k, out, dot(k, idx, ost, nd), ld(k, x, src));
	loop_end(k, &li);
	loop_end(k, &lo);
	return true;
}

/* arange: out[i] = start + i * step. */
static bool
gen_arange(K *k)
{
	Buf *out = &k->buf[0];
	double s0, s1;
	if (!prim_arg(k, "start", &s0) || !prim_arg(k, "step", &s1))
		return fail(k, "start and step must be constants");
	Loop l;
	LLVMValueRef i = loop_begin(k, &l, out->dim[0]);
	LLVMValueRef v;
	if (dtype_is_float(out->dt)) {
		v = LLVMBuildSIToFP(k->b, i, k->f64, "");
		v = LLVMBuildFAdd(k->b, LLVMConstReal(k->f64, s0),
				  LLVMBuildFMul(k->b, v, LLVMConstReal(k->f64, s1), ""), "");
		v = cvt(k, v, DT_F64, out->dt);
	} else {
		v = add(k, ci(k, (int64_t)s0), mul(k, i, ci(k, (int64_t)s1)));
		v = cvt(k, v, DT_I64, out->dt);
	}
	st(k, out, i, v);
	loop_end(k, &l);
	return true;
}

/* ---------------------------------------------------------- matmul */

/* The batch offsets of a matmul's operands (gen_matmul). */
typedef struct {
	int cnb;                 /* batch dims of the result */
	LLVMValueRef as[MAXD];   /* a's stride by result batch dim, 0: broadcast */
	LLVMValueRef bs[MAXD];
} MmBatch;

/* Fills mb; false when the result has too few dims. */
static bool
mm_batch(K *k, MmBatch *mb)
{
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	int anb = a->nd > 2 ? a->nd - 2 : 0, bnb = bb->nd > 2 ? bb->nd - 2 : 0;
	int cnb = c->nd - (a->nd > 1) - (bb->nd > 1);
	if (cnb < anb || cnb < bnb)
		return false;
	LLVMValueRef sa[MAXD], sb[MAXD];
	strides(k, a, sa);
	strides(k, bb, sb);
	for (int j = 0; j < cnb; j++) {
		int ja = j - (cnb - anb), jb = j - (cnb - bnb);
		mb->as[j] = ja < 0 ? ci(k, 0) : LLVMBuildSelect(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, a->dim[ja], ci(k, 1), ""),
			ci(k, 0), sa[ja], "");
		mb->bs[j] = jb < 0 ? ci(k, 0) : LLVMBuildSelect(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, bb->dim[jb], ci(k, 1), ""),
			ci(k, 0), sb[jb], "");
	}
	mb->cnb = cnb;
	return true;
}

/* From the flat batch index f of the result: the batch offsets of a and
 * b. */
static void
mm_batch_offsets(K *k, const MmBatch *mb, LLVMValueRef f, LLVMValueRef *abase,
		 LLVMValueRef *bbase)
{
	Buf *c = &k->buf[2];
	*abase = *bbase = ci(k, 0);
	for (int j = mb->cnb - 1; j >= 0; j--) {
		LLVMValueRef x = j ? LLVMBuildURem(k->b, f, c->dim[j], "") : f;
		if (j)
			f = LLVMBuildUDiv(k->b, f, c->dim[j], "");
		*abase = add(k, *abase, mul(k, x, mb->as[j]));
		*bbase = add(k, *bbase, mul(k, x, mb->bs[j]));
	}
}

/* <MM_VW x float> with every lane x. */
static LLVMValueRef
splat(K *k, LLVMValueRef x, int n)
{
	LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), (unsigned)n);
	LLVMValueRef v = LLVMBuildInsertElement(k->b, LLVMGetUndef(vt), x,
						LLVMConstInt(k->i32, 0, 0), "");
	int z[64] = {0};
	return LLVMBuildShuffleVector(k->b, v, LLVMGetUndef(vt), mask(k, z, n), "");
}

/*
 * The f32 register tile: c[i0 + r, j0 .. j0 + nv*MM_VW) for r < mr as
 * mr * nv vector accumulators; for every kk, nv vector loads of b's row
 * kk, mr broadcasts of a[i0 + r, kk] and mr * nv fmas. All trip counts but
 * K's are constants, so the accumulators live in registers.
 */
static void
mm_tile(K *k, int mr, int nv, LLVMValueRef abase, LLVMValueRef bbase,
	LLVMValueRef cbase, LLVMValueRef i0, LLVMValueRef j0, LLVMValueRef Kd,
	LLVMValueRef N)
{
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	LLVMTypeRef vt = LLVMVectorType(k->f32, MM_VW);
	LLVMValueRef acc[MM_MR][MM_NV], bv[MM_NV];
	LLVMValueRef zero = LLVMConstNull(vt);
	for (int r = 0; r < mr; r++)
		for (int v = 0; v < nv; v++) {
			acc[r][v] = slot(k, vt, 1);
			LLVMBuildStore(k->b, zero, acc[r][v]);
		}
	Loop lk;
	LLVMValueRef kk = loop_begin(k, &lk, Kd);
	LLVMValueRef brow = add(k, bbase, add(k, mul(k, kk, N), j0));
	for (int v = 0; v < nv; v++) {
		LLVMValueRef o = add(k, brow, ci(k, v * MM_VW));
		bv[v] = vload(k, vt, LLVMBuildInBoundsGEP2(k->b, k->f32, bb->ptr, &o, 1, ""), 4);
	}
	for (int r = 0; r < mr; r++) {
		LLVMValueRef o = add(k, abase, add(k, mul(k, add(k, i0, ci(k, r)), Kd), kk));
		LLVMValueRef x = splat(k, LLVMBuildLoad2(k->b, k->f32, addr(k, a, o), ""), MM_VW);
		for (int v = 0; v < nv; v++) {
			LLVMValueRef args[3] = {x, bv[v], LLVMBuildLoad2(k->b, vt, acc[r][v], "")};
			LLVMBuildStore(k->b, intrin(k, "llvm.fma", vt, args, 3), acc[r][v]);
		}
	}
	loop_end(k, &lk);
	for (int r = 0; r < mr; r++)
		for (int v = 0; v < nv; v++) {
			LLVMValueRef o = add(k, cbase, add(k, mul(k, add(k, i0, ci(k, r)), N),
							  add(k, j0, ci(k, v * MM_VW))));
			LLVMValueRef s = LLVMBuildStore(k->b, LLVMBuildLoad2(k->b, vt, acc[r][v], ""),
							addr(k, c, o));
			LLVMSetAlignment(s, 4);
		}
}

/* Rows i0 .. i0+mr of an f32 matmul: register tiles of MM_NV, then one
 * vector of columns, then the last columns one by one. */
static void
mm_rows(K *k, int mr, LLVMValueRef abase, LLVMValueRef bbase, LLVMValueRef cbase,
	LLVMValueRef i0, LLVMValueRef Kd, LLVMValueRef N)
{
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	LLVMValueRef w = ci(k, MM_NV * MM_VW);
	LLVMValueRef nt = LLVMBuildSDiv(k->b, N, w, "");
	Loop lj, lr, lc, lk;
	LLVMValueRef j0 = mul(k, loop_begin(k, &lj, nt), w);
	mm_tile(k, mr, MM_NV, abase, bbase, cbase, i0, j0, Kd, N);
	loop_end(k, &lj);
	LLVMValueRef j = mul(k, nt, w);
	/* one more vector of columns when MM_VW are left */
	LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(k->c, k->fn, "vec");
	LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(k->c, k->fn, "rest");
	LLVMValueRef more = LLVMBuildICmp(k->b, LLVMIntSLE, add(k, j, ci(k, MM_VW)), N, "");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(k->b);
	LLVMBuildCondBr(k->b, more, one, rest);
	LLVMPositionBuilderAtEnd(k->b, one);
	mm_tile(k, mr, 1, abase, bbase, cbase, i0, j, Kd, N);
	LLVMValueRef j2 = add(k, j, ci(k, MM_VW));
	LLVMBasicBlockRef from2 = LLVMGetInsertBlock(k->b);
	LLVMBuildBr(k->b, rest);
	LLVMPositionBuilderAtEnd(k->b, rest);
	LLVMValueRef jr = LLVMBuildPhi(k->b, k->i64, "");
	LLVMAddIncoming(jr, &j, &from, 1);
	LLVMAddIncoming(jr, &j2, &from2, 1);
	/* the last columns, a dot product each */
	LLVMValueRef acc = slot(k, k->f32, 1);
	LLVMValueRef r = loop_begin(k, &lr, ci(k, mr));
	LLVMValueRef i = add(k, i0, r);
	LLVMValueRef jc = loop_from(k, &lc, jr, N);
	LLVMBuildStore(k->b, LLVMConstReal(k->f32, 0), acc);
	LLVMValueRef kk = loop_begin(k, &lk, Kd);
	LLVMValueRef av = ld(k, a, add(k, abase, add(k, mul(k, i, Kd), kk)));
	LLVMValueRef bv = ld(k, bb, add(k, bbase, add(k, mul(k, kk, N), jc)));
	LLVMBuildStore(k->b, contract(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, k->f32, acc, ""),
			contract(LLVMBuildFMul(k->b, av, bv, "")), "")), acc);
	loop_end(k, &lk);
	st(k, c, add(k, cbase, add(k, mul(k, i, N), jc)), LLVMBuildLoad2(k->b, k->f32, acc, ""));
	lk.plain = lc.plain = lr.plain = true;
	loop_end(k, &lc);
	loop_end(k, &lr);
}

/*
 * f32 matmul with both operands at least 2-D: a parallel loop over the
 * batches and blocks of MM_MR rows; each block is mm_rows (MM_MR rows at
 * a time, the last rows of a partial block one at a time).
 */
static bool
gen_matmul_f32(K *k, const MmBatch *mb)
{
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	LLVMValueRef M = a->dim[a->nd - 2], Kd = a->dim[a->nd - 1];
	LLVMValueRef N = bb->dim[bb->nd - 1];
	LLVMValueRef nbatch = prod(k, c->dim, 0, mb->cnb);
	LLVMValueRef mr = ci(k, MM_MR);
	LLVMValueRef nib = LLVMBuildSDiv(k->b, add(k, M, ci(k, MM_MR - 1)), mr, "");
	LLVMValueRef items = mul(k, nbatch, nib);
	LLVMValueRef work = mul(k, mul(k, nbatch, M), mul(k, N, Kd));
	Loop lp, lr;
	LLVMValueRef f = par_begin(k, &lp, items, work);
	LLVMValueRef ib = LLVMBuildURem(k->b, f, nib, "");
	LLVMValueRef bt = LLVMBuildUDiv(k->b, f, nib, "");
	LLVMValueRef abase, bbase;
	mm_batch_offsets(k, mb, bt, &abase, &bbase);
	LLVMValueRef cbase = mul(k, bt, mul(k, M, N));
	LLVMValueRef i0 = mul(k, ib, mr);
	LLVMBasicBlockRef bfull = LLVMAppendBasicBlockInContext(k->c, k->fn, "rows");
	LLVMBasicBlockRef bpart = LLVMAppendBasicBlockInContext(k->c, k->fn, "lastrows");
	LLVMBasicBlockRef bjoin = LLVMAppendBasicBlockInContext(k->c, k->fn, "next");
	LLVMBuildCondBr(k->b, LLVMBuildICmp(k->b, LLVMIntSLE, add(k, i0, mr), M, ""),
			bfull, bpart);
	LLVMPositionBuilderAtEnd(k->b, bfull);
	mm_rows(k, MM_MR, abase, bbase, cbase, i0, Kd, N);
	LLVMBuildBr(k->b, bjoin);
	LLVMPositionBuilderAtEnd(k->b, bpart);
	LLVMValueRef i = loop_from(k, &lr, i0, M);
	mm_rows(k, 1, abase, bbase, cbase, i, Kd, N);
	loop_end(k, &lr);
	LLVMBuildBr(k->b, bjoin);
	LLVMPositionBuilderAtEnd(k->b, bjoin);
	loop_end(k, &lp);
	return true;
}

/*
 * matmul with numpy semantics (1-D operands, broadcast batch dims). f32
 * operands of at least 2 dims take gen_matmul_f32. Otherwise, a parallel
 * loop over batches and rows i; the columns go in blocks of JB: an f32
 * (or wider) accumulator row acc[0..JB) gets a[i, kk] * b[kk, j0 + j] for
 * every kk, a unit-stride inner loop that vectorizes; then it is stored.
 */
static bool
gen_matmul(K *k)
{
	Buf *a = &k->buf[0], *bb = &k->buf[1], *c = &k->buf[2];
	if (a->nd < 1 || bb->nd < 1)
		return fail(k, "operands must have at least one dim");
	MmBatch mb;
	if (!mm_batch(k, &mb))
		return fail(k, "result has too few dims");
	if (a->nd >= 2 && bb->nd >= 2 && a->dt == DT_F32 && bb->dt == DT_F32 &&
	    c->dt == DT_F32)
		return gen_matmul_f32(k, &mb);
	LLVMValueRef M = a->nd > 1 ? a->dim[a->nd - 2] : ci(k, 1);
	LLVMValueRef Kd = a->dim[a->nd - 1];
	LLVMValueRef N = bb->nd > 1 ? bb->dim[bb->nd - 1] : ci(k, 1);
	DType acct = dtype_is_float(c->dt) && c->dt != DT_F64 ? DT_F32 : c->dt;
	LLVMTypeRef at = ctype(k, acct);
	LLVMValueRef acc = slot(k, at, JB);
	LLVMTypeRef acca = LLVMArrayType2(at, JB);
	LLVMValueRef nbatch = prod(k, c->dim, 0, mb.cnb);
	LLVMValueRef rows = mul(k, nbatch, M);
	Loop lp, lb, lz, lk, lj, ls;
	LLVMValueRef f = par_begin(k, &lp, rows, mul(k, rows, mul(k, N, Kd)));
	LLVMValueRef i = LLVMBuildURem(k->b, f, M, "");
	LLVMValueRef bt = LLVMBuildUDiv(k->b, f, M, "");
	LLVMValueRef abase, bbase;
	mm_batch_offsets(k, &mb, bt, &abase, &bbase);
	LLVMValueRef cbase = mul(k, bt, mul(k, M, N));
	LLVMValueRef nb = LLVMBuildSDiv(k->b, add(k, N, ci(k, JB - 1)), ci(k, JB), "");
	LLVMValueRef j0 = mul(k, loop_begin(k, &lb, nb), ci(k, JB));
	LLVMValueRef jn = imin(k, ci(k, JB), LLVMBuildSub(k->b, N, j0, ""));
	LLVMValueRef zero = ci(k, 0);
	/* acc[0..jn) = 0 */
	LLVMValueRef j = loop_begin(k, &lz, jn);
	LLVMValueRef gi[2] = {zero, j};
	LLVMBuildStore(k->b, cconst(k, acct, 0),
		       LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, ""));
	loop_end(k, &lz);
	/* acc[j] += a[i, kk] * b[kk, j0 + j] */
	LLVMValueRef kk = loop_begin(k, &lk, Kd);
	LLVMValueRef av = cvt(k, ld(k, a, add(k, abase, add(k, mul(k, i, Kd), kk))),
			      a->dt, acct);
	LLVMValueRef brow = add(k, bbase, add(k, mul(k, kk, N), j0));
	j = loop_begin(k, &lj, jn);
	LLVMValueRef bv = cvt(k, ld(k, bb, add(k, brow, j)), bb->dt, acct);
	gi[1] = j;
	LLVMValueRef p = LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, "");
	LLVMValueRef s;
	if (dtype_is_float(acct))
		s = contract(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, at, p, ""),
					   contract(LLVMBuildFMul(k->b, av, bv, "")), ""));
	else
		s = LLVMBuildAdd(k->b, LLVMBuildLoad2(k->b, at, p, ""),
				 LLVMBuildMul(k->b, av, bv, ""), "");
	LLVMBuildStore(k->b, s, p);
	loop_end(k, &lj);
	loop_end(k, &lk);
	/* c[i, j0 + j] = acc[j] */
	j = loop_begin(k, &ls, jn);
	gi[1] = j;
	LLVMValueRef v = LLVMBuildLoad2(k->b, at,
		LLVMBuildInBoundsGEP2(k->b, acca, acc, gi, 2, ""), "");
	st(k, c, add(k, cbase, add(k, mul(k, i, N), add(k, j0, j))),
	   cvt(k, v, acct, c->dt));
	loop_end(k, &ls);
	loop_end(k, &lb);
	loop_end(k, &lp);
	return true;
}

/* ------------------------------------------------------- reductions */

/*
 * sum mean max min prod argmax argmin: for every kept position (outer
 * nest over the kept dims), a reduction nest over the reduced dims into an
 * accumulator in the compute type (f32 for f16/bf16).
 */
static bool
gen_reduce(K *k)
{
	Buf *x = &k->buf[0], *out = &k->buf[k->nin];
	OpKind op = k->e->call.op;
	/* a fused elementwise tree computes the data: its leaves all have
	 * the data's shape (exec's fuse_seq), so buffer 0 gives the dims */
	Expr *tree = k->e->call.args[0]->kind == E_CALL ? k->e->call.args[0] : NULL;
	DType xdt = tree ? tree->sinfo->dtype : x->dt;
	if (!tree && k->nin != 1)
		return fail(k, "expects one tensor");
	bool arg = op == OP_ARGMAX || op == OP_ARGMIN;
	bool red[MAXD] = {0};
	AttrVal av = attr(k, "axis");
	int nd = x->nd;
	if (av.kind == AV_NONE) {
		for (int i = 0; i < nd; i++)
			red[i] = true;
	} else {
		int n = av.kind == AV_INTS ? av.n : 1;
		for (int i = 0; i < n; i++) {
			int a;
			if (!norm_axis(av.kind == AV_INTS ? av.ints[i] : av.i, nd, &a))
				return fail(k, "axis out of range");
			if (nd)
				red[a] = true;
		}
	}
	LLVMValueRef xs[MAXD], kd[MAXD], rd[MAXD], kidx[MAXD], ridx[MAXD];
	LLVMValueRef kst[MAXD], rst[MAXD], kflat[MAXD], rflat[MAXD];
	int nk = 0, nr = 0;
	strides(k, x, xs);
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
	LLVMValueRef s = ci(k, 1);
	for (int i = nk - 1; i >= 0; i--) {
		kflat[i] = s;
		s = mul(k, s, kd[i]);
	}
	s = ci(k, 1);
	for (int i = nr - 1; i >= 0; i--) {
		rflat[i] = s;
		s = mul(k, s, rd[i]);
	}
	LLVMValueRef count = s;
	DType vt = xdt; /* type of compared values (arg ops, max, min) */
	DType acct = (op == OP_MAX || op == OP_MIN || arg) ? xdt : out->dt;
	if (acct == DT_F16 || acct == DT_BF16)
		acct = DT_F32;
	if (acct == DT_BOOL)
		acct = DT_I64;
	if (vt == DT_F16 || vt == DT_BF16)
		vt = DT_F32;
	double init;
	bool fl = dtype_is_float(acct);
	switch (op) {
	case OP_SUM: case OP_MEAN: init = 0; break;
	case OP_PROD: init = 1; break;
	case OP_MAX: case OP_ARGMAX: init = fl ? -INFINITY : 0; break;
	default: init = fl ? INFINITY : 0; break;
	}
	LLVMTypeRef at = ctype(k, acct);
	LLVMValueRef acc = slot(k, at, 1), best = slot(k, k->i64, 1);
	LLVMValueRef initv = cconst(k, acct, init);
	if (!fl && (op == OP_MAX || op == OP_ARGMAX || op == OP_MIN || op == OP_ARGMIN)) {
		unsigned w = LLVMGetIntTypeWidth(at);
		bool mx = op == OP_MAX || op == OP_ARGMAX;
		unsigned long long lo = is_unsigned(acct) ? 0 : 1ull << (w - 1);
		unsigned long long hi = is_unsigned(acct) ? ~0ull : (1ull << (w - 1)) - 1;
		initv = LLVMConstInt(at, mx ? lo : hi, false);
	}
	Nest rn;
	Loop lk;
	LLVMValueRef f = par_begin(k, &lk, prod(k, kd, 0, nk),
				   mul(k, prod(k, kd, 0, nk), count));
	for (int i = nk - 1; i >= 0; i--) {
		kidx[i] = i ? LLVMBuildURem(k->b, f, kd[i], "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, kd[i], "");
	}
	LLVMValueRef base = dot(k, kidx, kst, nk);
	LLVMBuildStore(k->b, initv, acc);
	LLVMBuildStore(k->b, ci(k, 0), best);
	nest_begin(k, &rn, rd, nr, ridx);
	/* reducing along the last dim: the vectorizer must see that loop
	 * (contiguous loads, a vector accumulator) rather than unroll it away
	 * and vectorize the kept dims with strided gathers */
	if (nr && red[nd - 1] && !arg)
		rn.l[nr - 1].keep = true;
	LLVMValueRef off = add(k, base, dot(k, ridx, rst, nr)), raw;
	if (tree) {
		LLVMValueRef lv[MAXBUF];
		for (int i = 0; i < k->nin; i++)
			lv[i] = ld(k, &k->buf[i], off);
		int next = 0;
		DType r;
		LLVMValueRef tv = elem_node(k, tree, lv, &next, &r);
		raw = cvt(k, tv, r, xdt);
	} else {
		raw = ld(k, x, off);
	}
	LLVMValueRef v = cvt(k, raw, xdt, acct);
	LLVMValueRef cur = LLVMBuildLoad2(k->b, at, acc, "");
	LLVMValueRef nv;
	switch (op) {
	case OP_SUM: case OP_MEAN:
		nv = fl ? reassoc(LLVMBuildFAdd(k->b, cur, v, "")) : LLVMBuildAdd(k->b, cur, v, "");
		break;
	case OP_PROD:
		nv = fl ? reassoc(LLVMBuildFMul(k->b, cur, v, "")) : LLVMBuildMul(k->b, cur, v, "");
		break;
	case OP_MAX: case OP_MIN:
		if (fl) { /* NaN wins as in vmax; a form the vectorizer reduces */
			LLVMValueRef mv[2] = {cur, v};
			nv = intrin(k, op == OP_MAX ? "llvm.maximum" : "llvm.minimum", at, mv, 2);
		} else {
			nv = vmax(k, cur, v, acct, op == OP_MAX);
		}
		break;
	default: { /* argmax, argmin: the first best, the first NaN */
		LLVMValueRef better;
		bool mx = op == OP_ARGMAX;
		if (fl) {
			better = LLVMBuildFCmp(k->b, mx ? LLVMRealOGT : LLVMRealOLT, v, cur, "");
			LLVMValueRef vn = LLVMBuildFCmp(k->b, LLVMRealUNO, v, v, "");
			LLVMValueRef cn = LLVMBuildFCmp(k->b, LLVMRealORD, cur, cur, "");
			better = LLVMBuildOr(k->b, better, LLVMBuildAnd(k->b, vn, cn, ""), "");
		} else {
			LLVMIntPredicate p = is_unsigned(acct) ? (mx ? LLVMIntUGT : LLVMIntULT)
							       : (mx ? LLVMIntSGT : LLVMIntSLT);
			better = LLVMBuildICmp(k->b, p, v, cur, "");
		}
		/* the first element always counts, so -inf/NaN-only rows work */
		LLVMValueRef r = dot(k, ridx, rflat, nr);
		better = LLVMBuildOr(k->b, better,
				     LLVMBuildICmp(k->b, LLVMIntEQ, r, ci(k, 0), ""), "");
		LLVMValueRef ob = LLVMBuildLoad2(k->b, k->i64, best, "");
		LLVMBuildStore(k->b, LLVMBuildSelect(k->b, better, r, ob, ""), best);
		nv = LLVMBuildSelect(k->b, better, v, cur, "");
		break;
	}
	}
	LLVMBuildStore(k->b, nv, acc);
	nest_end(k, &rn);
	LLVMValueRef res = LLVMBuildLoad2(k->b, at, acc, "");
	DType rt = acct;
	if (arg) {
		res = LLVMBuildLoad2(k->b, k->i64, best, "");
		rt = DT_I64;
	} else if (op == OP_MEAN) {
		if (fl)
			res = LLVMBuildFDiv(k->b, res, LLVMBuildSIToFP(k->b, count, at, ""), "");
		else
			res = idiv(k, res, cvt(k, count, DT_I64, acct), acct, false);
	}
	(void)vt;
	st(k, out, dot(k, kidx, kflat, nk), cvt(k, res, rt, out->dt));
	loop_end(k, &lk);
	return true;
}

/* ------------------------------------------------ softmax, norms */

/* Computes in f32 (f64 for f64 data). */
static DType
float_ct(DType t)
{
	return t == DT_F64 ? DT_F64 : DT_F32;
}

/* softmax / log_softmax along axis: subtract the row max, then exp. */
static bool
gen_softmax(K *k)
{
	Buf *x = &k->buf[0], *out = &k->buf[1];
	int axis;
	if (x->nd == 0 || !norm_axis(attr(k, "axis").i, x->nd, &axis))
		return fail(k, "axis out of range");
	DType ct = float_ct(out->dt);
	LLVMTypeRef t = ctype(k, ct);
	LLVMValueRef outer = prod(k, x->dim, 0, axis), n = x->dim[axis];
	LLVMValueRef inner = prod(k, x->dim, axis + 1, x->nd);
	LLVMValueRef mx = slot(k, t, 1), sum = slot(k, t, 1);
	Loop lo, l1, l2, l3;
	LLVMValueRef f = par_begin(k, &lo, mul(k, outer, inner),
				   mul(k, mul(k, outer, inner), n));
	LLVMValueRef o = LLVMBuildUDiv(k->b, f, inner, "");
	LLVMValueRef i = LLVMBuildURem(k->b, f, inner, "");
	LLVMValueRef base = add(k, mul(k, mul(k, o, n), inner), i);
	LLVMBuildStore(k->b, cconst(k, ct, -INFINITY), mx);
	LLVMBuildStore(k->b, cconst(k, ct, 0), sum);
	LLVMValueRef j = loop_begin(k, &l1, n);
	LLVMValueRef off = add(k, base, mul(k, j, inner));
	LLVMValueRef v = cvt(k, ld(k, x, off), x->dt, ct);
	LLVMBuildStore(k->b, vmax(k, LLVMBuildLoad2(k->b, t, mx, ""), v, ct, true), mx);
	loop_end(k, &l1);
	LLVMValueRef m = LLVMBuildLoad2(k->b, t, mx, "");
	j = loop_begin(k, &l2, n);
	off = add(k, base, mul(k, j, inner));
	v = cvt(k, ld(k, x, off), x->dt, ct);
	LLVMValueRef e = fexp(k, LLVMBuildFSub(k->b, v, m, ""));
	LLVMBuildStore(k->b, reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, sum, ""), e, "")), sum);
	loop_end(k, &l2);
	LLVMValueRef s = LLVMBuildLoad2(k->b, t, sum, "");
	LLVMValueRef rs = LLVMBuildFDiv(k->b, cconst(k, ct, 1), s, "");
	LLVMValueRef ls = LLVMBuildFAdd(k->b, m, fn1(k, "llvm.log", s), "");
	j = loop_begin(k, &l3, n);
	off = add(k, base, mul(k, j, inner));
	v = cvt(k, ld(k, x, off), x->dt, ct);
	LLVMValueRef r;
	if (k->e->call.op == OP_SOFTMAX)
		r = LLVMBuildFMul(k->b, fexp(k, LLVMBuildFSub(k->b, v, m, "")), rs, "");
	else
		r = LLVMBuildFSub(k->b, v, ls, "");
	st(k, out, off, cvt(k, r, ct, out->dt));
	loop_end(k, &l3);
	loop_end(k, &lo);
	return true;
}

/* The normalized axes must be the trailing ones; *first is the first. */
static bool
trailing_axes(K *k, int nd, int *first)
{
	AttrVal av = attr(k, "axes");
	if (av.kind != AV_INTS || av.n < 1 || av.n > nd)
		return fail(k, "axes must be given");
	bool seen[MAXD] = {0};
	for (int i = 0; i < av.n; i++) {
		int a;
		if (!norm_axis(av.ints[i], nd, &a) || seen[a])
			return fail(k, "bad axes");
		seen[a] = true;
	}
	*first = nd - av.n;
	for (int i = *first; i < nd; i++)
		if (!seen[i])
			return fail(k, "only trailing axes are supported");
	return true;
}

/*
 * rms_norm: y = x * w / sqrt(mean(x^2) + eps); layer_norm: y = (x - mean)
 * / sqrt(var + eps) * gamma + beta. The normalized (trailing) dims are
 * one contiguous row; weights are indexed by the position in the row.
 */
static bool
gen_norm(K *k)
{
	Buf *x = &k->buf[0], *out = &k->buf[k->nin];
	bool layer = k->e->call.op == OP_LAYER_NORM;
	int first;
	if (!trailing_axes(k, x->nd, &first))
		return false;
	double eps = attr(k, "epsilon").f;
	bool center = !layer || attr(k, "center").i, scale = !layer || attr(k, "scale").i;
	DType ct = float_ct(out->dt);
	LLVMTypeRef t = ctype(k, ct);
	LLVMValueRef outer = prod(k, x->dim, 0, first);
	LLVMValueRef n = prod(k, x->dim, first, x->nd);
	LLVMValueRef nf = LLVMBuildSIToFP(k->b, n, t, "");
	LLVMValueRef acc = slot(k, t, 1);
	Loop lo, l1, l2, l3;
	LLVMValueRef o = par_begin(k, &lo, outer, mul(k, outer, n));
	LLVMValueRef base = mul(k, o, n);
	LLVMValueRef mean = cconst(k, ct, 0);
	if (layer) {
		LLVMBuildStore(k->b, cconst(k, ct, 0), acc);
		LLVMValueRef j = loop_begin(k, &l1, n);
		LLVMValueRef v = cvt(k, ld(k, x, add(k, base, j)), x->dt, ct);
		LLVMBuildStore(k->b, reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""), v, "")), acc);
		loop_end(k, &l1);
		mean = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), nf, "");
	}
	LLVMBuildStore(k->b, cconst(k, ct, 0), acc);
	LLVMValueRef j = loop_begin(k, &l2, n);
	LLVMValueRef v = cvt(k, ld(k, x, add(k, base, j)), x->dt, ct);
	v = LLVMBuildFSub(k->b, v, mean, "");
	LLVMBuildStore(k->b, reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""),
						    contract(LLVMBuildFMul(k->b, v, v, "")), "")), acc);
	loop_end(k, &l2);
	LLVMValueRef var = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), nf, "");
	LLVMValueRef r = LLVMBuildFDiv(k->b, cconst(k, ct, 1),
		fn1(k, "llvm.sqrt", LLVMBuildFAdd(k->b, var, cconst(k, ct, eps), "")), "");
	j = loop_begin(k, &l3, n);
	v = cvt(k, ld(k, x, add(k, base, j)), x->dt, ct);
	v = LLVMBuildFMul(k->b, LLVMBuildFSub(k->b, v, mean, ""), r, "");
	if (scale)
		v = LLVMBuildFMul(k->b, v, cvt(k, ld(k, &k->buf[1], j), k->buf[1].dt, ct), "");
	if (layer && center)
		v = LLVMBuildFAdd(k->b, v, cvt(k, ld(k, &k->buf[2], j), k->buf[2].dt, ct), "");
	st(k, out, add(k, base, j), cvt(k, v, ct, out->dt));
	loop_end(k, &l3);
	loop_end(k, &lo);
	return true;
}

/* ------------------------------------------------------------ conv2d */

/* Attribute `name`, 1 or 2 positive ints, as a pair; false when not. */
static bool
int_pair(K *k, const char *name, int64_t out[2])
{
	AttrVal v = attr(k, name);
	if (v.kind != AV_INTS || v.n < 1 || v.n > 2)
		return false;
	out[0] = v.ints[0];
	out[1] = v.n == 2 ? v.ints[1] : v.ints[0];
	return out[0] > 0 && out[1] > 0;
}

/* Is string attribute `name` equal to want? */
static bool
attr_is(K *k, const char *name, const char *want)
{
	AttrVal v = attr(k, name);
	return v.kind == AV_STR && !strcmp(v.s, want);
}

/*
 * nn.conv2d, NCHW data, OIHW weight, NCHW result:
 *   out[n, o, oh, ow] = Σ_{c, kh, kw} x[n, g*Cg + c, oh*sh - pt + kh*dh,
 *                                    ow*sw - pl + kw*dw] * w[o, c, kh, kw]
 * with g = o / (O / groups), Cg = w's dim 1, positions outside x reading 0.
 * A direct loop nest: a parallel loop over (n, o, oh), then ow, then the
 * reduction, accumulated in f32 (f64 for f64; the result's dtype for
 * integers).
 */
static bool
gen_conv2d(K *k)
{
	Buf *x = &k->buf[0], *w = &k->buf[1], *out = &k->buf[2];
	if (k->nin != 2 || x->nd != 4 || w->nd != 4 || out->nd != 4)
		return fail(k, "expects 4-D data and weight");
	if (!attr_is(k, "data_layout", "NCHW") || !attr_is(k, "kernel_layout", "OIHW") ||
	    !attr_is(k, "out_layout", "NCHW"))
		return fail(k, "only NCHW data, OIHW weights and NCHW results");
	int64_t st2[2], dil[2], pad[4], groups = attr(k, "groups").i;
	AttrVal pv = attr(k, "padding");
	if (!int_pair(k, "strides", st2) || !int_pair(k, "dilation", dil))
		return fail(k, "strides and dilation must be 1 or 2 positive values");
	if (pv.kind != AV_INTS || (pv.n != 1 && pv.n != 2 && pv.n != 4))
		return fail(k, "padding must have 1, 2 or 4 values");
	for (int i = 0; i < 4; i++) /* top, left, bottom, right */
		pad[i] = pv.n == 1 ? pv.ints[0] : pv.n == 2 ? pv.ints[i % 2] : pv.ints[i];
	if (groups <= 0)
		return fail(k, "groups must be positive");
	DType acct = dtype_is_float(out->dt) ? float_ct(out->dt)
					     : out->dt == DT_BOOL ? DT_I64 : out->dt;
	bool fl = dtype_is_float(acct);
	LLVMTypeRef at = ctype(k, acct);
	LLVMValueRef C = x->dim[1], H = x->dim[2], W = x->dim[3];
	LLVMValueRef O = w->dim[0], Cg = w->dim[1], KH = w->dim[2], KW = w->dim[3];
	LLVMValueRef OH = out->dim[2], OW = out->dim[3];
	LLVMValueRef Og = LLVMBuildSDiv(k->b, O, ci(k, groups), "");
	LLVMValueRef items = prod(k, out->dim, 0, 3);
	LLVMValueRef work = mul(k, mul(k, items, OW), mul(k, Cg, mul(k, KH, KW)));
	LLVMValueRef acc = slot(k, at, 1);
	Loop lp, lw, lc, lh, lk;
	LLVMValueRef f = par_begin(k, &lp, items, work);
	LLVMValueRef oh = LLVMBuildURem(k->b, f, OH, "");
	f = LLVMBuildUDiv(k->b, f, OH, "");
	LLVMValueRef o = LLVMBuildURem(k->b, f, O, "");
	LLVMValueRef n = LLVMBuildUDiv(k->b, f, O, "");
	LLVMValueRef c0 = mul(k, LLVMBuildSDiv(k->b, o, Og, ""), Cg);
	LLVMValueRef obase = mul(k, add(k, mul(k, add(k, mul(k, n, O), o), OH), oh), OW);
	LLVMValueRef h0 = LLVMBuildSub(k->b, mul(k, oh, ci(k, st2[0])), ci(k, pad[0]), "");
	LLVMValueRef ow = loop_begin(k, &lw, OW);
	LLVMValueRef w0 = LLVMBuildSub(k->b, mul(k, ow, ci(k, st2[1])), ci(k, pad[1]), "");
	LLVMBuildStore(k->b, cconst(k, acct, 0), acc);
	LLVMValueRef c = loop_begin(k, &lc, Cg);
	LLVMValueRef xc = mul(k, add(k, mul(k, n, C), add(k, c0, c)), H);
	LLVMValueRef wc = mul(k, add(k, mul(k, o, Cg), c), KH);
	LLVMValueRef kh = loop_begin(k, &lh, KH);
	LLVMValueRef ih = add(k, h0, mul(k, kh, ci(k, dil[0])));
	/* rows outside x add nothing: skip them */
	LLVMBasicBlockRef in_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "inh");
	LLVMBasicBlockRef next_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "nexth");
	LLVMBuildCondBr(k->b, LLVMBuildICmp(k->b, LLVMIntULT, ih, H, ""), in_h, next_h);
	LLVMPositionBuilderAtEnd(k->b, in_h);
	LLVMValueRef xr = mul(k, add(k, xc, ih), W);
	LLVMValueRef wr = mul(k, add(k, wc, kh), KW);
	LLVMValueRef kw = loop_begin(k, &lk, KW);
	LLVMValueRef iw = add(k, w0, mul(k, kw, ci(k, dil[1])));
	LLVMValueRef inw = LLVMBuildICmp(k->b, LLVMIntULT, iw, W, "");
	LLVMValueRef xo = add(k, xr, LLVMBuildSelect(k->b, inw, iw, ci(k, 0), ""));
	LLVMValueRef xv = cvt(k, ld(k, x, xo), x->dt, acct);
	xv = LLVMBuildSelect(k->b, inw, xv, cconst(k, acct, 0), "");
	LLVMValueRef wv = cvt(k, ld(k, w, add(k, wr, kw)), w->dt, acct);
	LLVMValueRef cur = LLVMBuildLoad2(k->b, at, acc, "");
	LLVMValueRef sum = fl ? contract(LLVMBuildFAdd(k->b, cur,
					contract(LLVMBuildFMul(k->b, xv, wv, "")), ""))
			      : LLVMBuildAdd(k->b, cur, LLVMBuildMul(k->b, xv, wv, ""), "");
	LLVMBuildStore(k->b, sum, acc);
	loop_end(k, &lk);
	LLVMBuildBr(k->b, next_h);
	LLVMPositionBuilderAtEnd(k->b, next_h);
	loop_end(k, &lh);
	loop_end(k, &lc);
	st(k, out, add(k, obase, ow), cvt(k, LLVMBuildLoad2(k->b, at, acc, ""), acct, out->dt));
	loop_end(k, &lw);
	loop_end(k, &lp);
	return true;
}

/* ------------------------------------------------------------ dispatch */

/* Emits the body of k's kernel; false with a diagnostic. */
static bool
gen_body(K *k)
{
	OpKind op = k->e->call.op;
	if (has_nested_call(k->e)) {
		if (k->nout != 1)
			return fail(k, "a fused kernel has one output");
		if (cg_reduce_fusable(op))
			return gen_reduce(k);
		if (!elem_class(op))
			return fail(k, "cannot take a fused operand");
		return gen_elementwise(k, elem_fused);
	}
	if (op == OP_FULL || op == OP_FULL_LIKE) {
		if (k->e->call.args[param(k, "fill_value")->slot]->kind == E_PRIM) {
			double v;
			if (k->nout != 1 || !prim_arg(k, "fill_value", &v))
				return fail(k, "fill_value must be a tensor or a constant");
			/* a constant fill value: no input */
			Buf *out = &k->buf[k->nin];
			Loop l;
			LLVMValueRef i = loop_begin(k, &l, prod(k, out->dim, 0, out->nd));
			st(k, out, i, cconst(k, out->dt == DT_F16 || out->dt == DT_BF16 ? DT_F32 : out->dt, v));
			loop_end(k, &l);
			return true;
		}
		return gen_elementwise(k, elem_binary);
	}
	if (op == OP_CLIP) {
		double v;
		if (k->nin != 1 || !prim_arg(k, "min", &v) || !prim_arg(k, "max", &v))
			return fail(k, "min and max must be constants");
		return gen_elementwise(k, elem_unary);
	}
	switch (op_info(op)->cls) {
	case OC_BROADCAST: {
		OpSig sig;
		op_sig(op, &sig);
		if (k->nin != sig.nargs || k->nout != 1)
			return fail(k, "expects tensor operands");
		return gen_elementwise(k, elem_binary);
	}
	case OC_ELEMWISE: case OC_FILL_LIKE:
		if (k->nin != 1 || k->nout != 1)
			return fail(k, "expects one tensor");
		return gen_elementwise(k, elem_unary);
	default:
		break;
	}
	switch (op) {
	case OP_BROADCAST_TO: case OP_STOP_LIFT_PARAMS:
		if (k->nin != 1 || k->nout != 1)
			return fail(k, "expects one tensor");
		return gen_elementwise(k, elem_unary);
	case OP_ZEROS: case OP_ONES:
		return gen_elementwise(k, elem_unary);
	case OP_RESHAPE: case OP_EXPAND_DIMS: case OP_SQUEEZE: case OP_FLATTEN:
		return gen_copy(k);
	case OP_PERMUTE_DIMS:
		return gen_permute(k);
	case OP_CONCAT:
		return gen_concat(k);
	case OP_SPLIT:
		return gen_split(k);
	case OP_TAKE:
		return gen_take(k);
	case OP_STRIDED_SLICE:
		return gen_strided_slice(k);
	case OP_ARANGE:
		return gen_arange(k);
	case OP_MATMUL:
		return gen_matmul(k);
	case OP_SUM: case OP_MEAN: case OP_MAX: case OP_MIN: case OP_PROD:
	case OP_ARGMAX: case OP_ARGMIN:
		return gen_reduce(k);
	case OP_SOFTMAX: case OP_LOG_SOFTMAX:
		return gen_softmax(k);
	case OP_RMS_NORM: case OP_LAYER_NORM:
		return gen_norm(k);
	case OP_CONV2D:
		return gen_conv2d(k);
	default:
		return fail(k, "no code generation for this op yet");
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
	static const char *ops = "+-*/%<>=!lLgG"; /* ORDER: PExprKind from PE_ADD */
	if (pe_const(x, &c)) {
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
	case AV_DIMS: case AV_SINFO: /* no kernel reads these yet */
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

static bool sig_args(const Expr *e, Diags *d, const SInfo **sis, int *n,
		     StrBuf *key, VarNames *vn);

/* A call argument of a fused kernel into the key: "(op args -> dtype[dims]
 * attrs)"; its tensors join the buffers. */
static bool
sig_nested(const Expr *x, Diags *d, const SInfo **sis, int *n, StrBuf *key,
	   VarNames *vn)
{
	const SInfo *si = x->sinfo;
	if (!cg_fusable(x) || !si || si->kind != SI_TENSOR || !si->shape ||
	    si->dtype == DT_UNKNOWN) {
		diag_error(d, x->span, "%s: cannot be fused into its user",
			   op_info(x->call.op)->name);
		return false;
	}
	sb_printf(key, " (%s", op_info(x->call.op)->name);
	if (!sig_args(x, d, sis, n, key, vn))
		return false;
	sb_printf(key, " -> %s[", dtype_name(si->dtype));
	for (int j = 0; j < si->ndim; j++) {
		if (j)
			sb_putc(key, ',');
		key_dim(key, si->shape[j], vn);
	}
	sb_putc(key, ']');
	for (int i = 0; i < x->call.nattrs; i++) {
		sb_putc(key, ' ');
		key_attr(key, &x->call.attrs[i]);
	}
	sb_putc(key, ')');
	return true;
}

/* The arguments of call e into the key and their tensors into sis. */
static bool
sig_args(const Expr *e, Diags *d, const SInfo **sis, int *n, StrBuf *key,
	 VarNames *vn)
{
	for (int i = 0; i < e->call.nargs; i++) {
		const Expr *x = e->call.args[i];
		if (x->kind == E_CALL) {
			if (!sig_nested(x, d, sis, n, key, vn))
				return false;
			continue;
		}
		const SInfo *si = ir_expr_sinfo(x);
		if (x->kind == E_PRIM) {
			if (dtype_is_float(x->prim.dtype))
				sb_printf(key, " p%.17g", x->prim.f);
			else if (x->prim.value) {
				sb_puts(key, " p");
				key_dim(key, x->prim.value, vn);
			}
			continue;
		}
		if (!si || si->kind == SI_SHAPE || si->kind == SI_PRIM)
			continue;
		if (!push_tensors(si, sis, n)) {
			diag_error(d, x->span, "%s: argument %d is not a tensor of "
				   "known dtype and rank", op_info(e->call.op)->name, i);
			return false;
		}
	}
	return true;
}

/*
 * The buffers of call e (their struct infos, inputs then outputs) and its
 * key; false with a diagnostic when an operand is not a known tensor.
 */
static bool
signature(Module *m, Expr *e, Diags *d, const SInfo **sis, int *nin,
	  int *nout, StrBuf *key)
{
	int n = 0;
	VarNames vn = {.n = 0};
	sb_puts(key, op_info(e->call.op)->name);
	if (!sig_args(e, d, sis, &n, key, &vn))
		return false;
	*nin = n;
	if (!push_tensors(e->sinfo, sis, &n) || n == *nin) {
		diag_error(d, e->span, "%s: the result's dtype and rank must be "
			   "known", op_info(e->call.op)->name);
		return false;
	}
	*nout = n - *nin;
	for (int b = 0; b < n; b++) {
		sb_printf(key, " %s[", dtype_name(sis[b]->dtype));
		for (int j = 0; j < sis[b]->ndim; j++) {
			if (j)
				sb_putc(key, ',');
			if (sis[b]->shape)
				key_dim(key, sis[b]->shape[j], &vn);
			else
				sb_printf(key, "?%d.%d", b, j);
		}
		sb_putc(key, ']');
	}
	for (int i = 0; i < e->call.nattrs; i++) {
		sb_putc(key, ' ');
		key_attr(key, &e->call.attrs[i]);
	}
	(void)m;
	return true;
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
fn_attr(K *k, LLVMValueRef f, unsigned i, const char *name, uint64_t v)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
	LLVMAddAttributeAtIndex(f, i, LLVMCreateEnumAttribute(k->c, kind, v));
}

/*
 * Builds a kernel: the impl function (one noalias pointer per buffer, the
 * dims, the outer loop's range and whether it may split; see par_begin),
 * the external wrapper of the kernel ABI that calls it over the whole
 * range, and NAME.par, the chunk entry the pool calls, when the body has
 * a parallel loop.
 */
static bool
build_kernel(Codegen *cg, K *k, const SInfo **sis, const char *name)
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
	k->pool = LLVMConstIntToPtr(
		LLVMConstInt(k->i64, (unsigned long long)(uintptr_t)jit_pool(cg->jit), 0),
		k->ptr);
	k->entry = LLVMAppendBasicBlockInContext(k->c, f, "entry");
	LLVMPositionBuilderAtEnd(k->b, k->entry);
	LLVMValueRef dims = LLVMGetParam(f, (unsigned)nb);
	int doff = 0;
	VarNames vn = {.n = 0};
	for (int i = 0; i < nb; i++) {
		Buf *b = &k->buf[i];
		const SInfo *si = sis[i];
		b->dt = si->dtype;
		b->nd = si->ndim;
		b->ptr = LLVMGetParam(f, (unsigned)i);
		for (int j = 0; j < b->nd; j++, doff++) {
			int64_t c;
			StrBuf tok = {0};
			if (si->shape)
				key_dim(&tok, si->shape[j], &vn);
			else
				sb_printf(&tok, "?%d.%d", i, j);
			b->tok[j] = arena_strdup(&k->m->arena, tok.p);
			sb_free(&tok);
			if (si->shape && pe_const(si->shape[j], &c)) {
				b->dim[j] = ci(k, c);
				continue;
			}
			LLVMValueRef o = ci(k, doff);
			LLVMValueRef p = LLVMBuildInBoundsGEP2(k->b, k->i64, dims, &o, 1, "");
			b->dim[j] = LLVMBuildLoad2(k->b, k->i64, p, "");
		}
	}
	if (!gen_body(k)) {
		LLVMDeleteFunction(f);
		LLVMDeleteFunction(tramp);
		return false;
	}
	LLVMBuildRetVoid(k->b);

	LLVMValueRef args[MAXBUF + 4];
	if (k->par_used) {
		/* NAME.par(ctx, lo, hi): ctx holds the buffers, then dims */
		LLVMPositionBuilderAtEnd(k->b,
			LLVMAppendBasicBlockInContext(k->c, tramp, "entry"));
		LLVMValueRef ctx = LLVMGetParam(tramp, 0);
		for (int i = 0; i <= nb; i++) {
			LLVMValueRef o = ci(k, i);
			args[i] = LLVMBuildLoad2(k->b, k->ptr,
				LLVMBuildInBoundsGEP2(k->b, k->ptr, ctx, &o, 1, ""), "");
		}
		args[nb + 1] = LLVMGetParam(tramp, 1);
		args[nb + 2] = LLVMGetParam(tramp, 2);
		args[nb + 3] = LLVMConstInt(k->i1, 0, 0);
		LLVMBuildCall2(k->b, LLVMGlobalGetValueType(f), f, args,
			       (unsigned)nb + 4, "");
		LLVMBuildRetVoid(k->b);
	} else {
		LLVMDeleteFunction(tramp);
	}

	LLVMTypeRef wt[2] = {k->ptr, k->ptr};
	LLVMValueRef w = LLVMAddFunction(k->mod, name,
		LLVMFunctionType(k->vd, wt, 2, false));
	fn_attr(k, w, LLVMAttributeFunctionIndex, "nounwind", 0);
	LLVMPositionBuilderAtEnd(k->b, LLVMAppendBasicBlockInContext(k->c, w, "entry"));
	LLVMValueRef bufs = LLVMGetParam(w, 0);
	for (int i = 0; i < nb; i++) {
		LLVMValueRef o = ci(k, i);
		args[i] = LLVMBuildLoad2(k->b, k->ptr,
			LLVMBuildInBoundsGEP2(k->b, k->ptr, bufs, &o, 1, ""), "");
	}
	args[nb] = LLVMGetParam(w, 1);
	args[nb + 1] = ci(k, 0);
	args[nb + 2] = ci(k, INT64_MAX);
	args[nb + 3] = LLVMConstInt(k->i1, 1, 0);
	LLVMBuildCall2(k->b, LLVMGlobalGetValueType(f), f, args, (unsigned)nb + 4, "");
	LLVMBuildRetVoid(k->b);
	return true;
}

CgKernel *
cg_kernel(Codegen *cg, Module *m, Expr *e, Diags *d)
{
	if (e->kind != E_CALL)
		ir_bug("cg_kernel on a %s", ir_expr_kind_name(e->kind));
	OpClass oc = op_info(e->call.op)->cls;
	if (oc == OC_EXTERN || oc == OC_IMPURE) {
		diag_error(d, e->span, "R.%s cannot be run by rlx: it is outside "
			   "the operators rlx computes (packed functions, memory "
			   "planning, effects)", op_info(e->call.op)->name);
		return NULL;
	}
	const SInfo *sis[MAXBUF];
	int nin, nout;
	StrBuf key = {0};
	if (!signature(m, e, d, sis, &nin, &nout, &key)) {
		sb_free(&key);
		return NULL;
	}
	char *ks = sb_take(&key);
	const int *have = namemap_get(&cg->index, ks);
	if (have) {
		free(ks);
		return cg->kernels[*have];
	}
	if (!cg->pending)
		cg->pending = LLVMModuleCreateWithNameInContext(
			"rlx_kernels", jit_context(cg->jit));
	K k = {0};
	k.c = jit_context(cg->jit);
	k.mod = cg->pending;
	k.b = LLVMCreateBuilderInContext(k.c);
	k.i1 = LLVMInt1TypeInContext(k.c);
	k.i8 = LLVMInt8TypeInContext(k.c);
	k.i16 = LLVMInt16TypeInContext(k.c);
	k.i32 = LLVMInt32TypeInContext(k.c);
	k.i64 = LLVMInt64TypeInContext(k.c);
	k.f16 = LLVMHalfTypeInContext(k.c);
	k.f32 = LLVMFloatTypeInContext(k.c);
	k.f64 = LLVMDoubleTypeInContext(k.c);
	k.ptr = LLVMPointerTypeInContext(k.c, 0);
	k.vd = LLVMVoidTypeInContext(k.c);
	k.nin = nin;
	k.nout = nout;
	k.m = m;
	k.e = e;
	k.d = d;
	op_sig(e->call.op, &k.sig);

	/* a name that says what it is: rlx_c0_k12_nn_softmax; the Codegen's
	 * number keeps names of several Codegens on one Jit apart */
	char name[128];
	int len = snprintf(name, sizeof name, "rlx_c%u_k%d_%s", cg->id, cg->n,
			   op_info(e->call.op)->name);
	for (int i = 0; i < len && i < (int)sizeof name; i++)
		if (name[i] == '.')
			name[i] = '_';
	bool ok = build_kernel(cg, &k, sis, name);
	LLVMDisposeBuilder(k.b);
	if (!ok) {
		free(ks);
		return NULL;
	}
	CgKernel *kn = calloc(1, sizeof *kn);
	if (!kn)
		ir_bug("out of memory");
	kn->name = strdup(name);
	kn->key = ks;
	kn->nin = nin;
	kn->nout = nout;
	for (int i = 0; i < nin + nout; i++)
		kn->ndims += sis[i]->ndim;
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

bool
cg_flush(Codegen *cg, char *err, size_t errlen)
{
	if (!cg->pending)
		return true;
	LLVMModuleRef mod = cg->pending;
	cg->pending = NULL;
	if (!jit_add_module(cg->jit, mod, err, errlen))
		return false;
	for (int i = 0; i < cg->n; i++) {
		CgKernel *kn = cg->kernels[i];
		if (kn->fn)
			continue;
		void *p = jit_lookup(cg->jit, kn->name);
		if (!p) {
			snprintf(err, errlen, "kernel %s not found in the JIT", kn->name);
			return false;
		}
		kn->fn = (CgFn)(uintptr_t)p;
	}
	return true;
}
