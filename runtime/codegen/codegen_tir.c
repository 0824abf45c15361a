/*
 * codegen_tir.c — lowers a prim_func (compiler/tir.h) to an LLVM kernel of
 * the kernel ABI (codegen.c), so that R.call_tir runs.
 *
 * The kernel's buffers are the prim_func's buffer parameters in parameter
 * order (for call_tir: the inputs, then the outputs); its dims are each
 * buffer's dims in that order, then one int64 per scalar parameter (a
 * float's as the bits of a double). The executor checks the buffers
 * against the call's tensors before calling (runtime/exec/exec.c: rank,
 * dtype, dims, each symbolic variable bound at its first bare occurrence
 * and checked at the others), so the kernel binds a symbolic variable
 * from the first buffer dim that is that bare variable and trusts the rest.
 *
 * The statements are lowered as TVM's LLVM backend runs them: a block's
 * body with its iteration variables bound to their bindings; its T.init
 * when every reduction variable is at its minimum; its T.where guarding
 * it; block allocations (and the root block's) are scratch, not zeroed
 * (on the stack when small and constant, else malloc'ed for the scope);
 * lets, if/else, T.evaluate, attr statements (their bodies). Expressions
 * keep their declared type: an int32 index is computed in 32 bits, then
 * widened for the address. `//` and `%` are floordiv/floormod (toward
 * minus infinity), truncdiv/truncmod round toward zero; an integer
 * division by zero gives 0 rather than a trap. T.if_then_else evaluates
 * only the taken side, T.Select both. T.round rounds half to even.
 * float16 is computed in LLVM's half type (each operation rounded, as TVM
 * on the CPU); bfloat16 in float32, rounded at stores and casts (TVM's
 * BF16 legalization); float8 likewise. Loops get LLVM hints: T.vectorized
 * asks the vectorizer, T.unroll the unroller; T.thread_binding runs
 * serially. In a reduction block (a T.init and a reduction variable) the
 * float32/float64 + and * may reassociate, and a T.init whose reduction
 * loops are the innermost of a loop chain runs once before them (not as a
 * branch in their body), so that reduction loops vectorize as rlx's own
 * reductions do.
 *
 * Parallelism: an outer loop whose iterations are independent (every
 * block under it binds the loop variable into spatial iteration variables
 * only, and nothing under it stores outside a block), and T.parallel
 * loops, are split over the Jit's thread pool when the work is large: the
 * loop body is outlined into NAME.tK(ctx, lo, hi), the values it uses (the
 * bound variables, the buffers' pointers and strides) packed into ctx,
 * which calls NAME.tK.b with the buffers as noalias parameters.
 *
 * Matrix products: a loop nest whose block is C[bt.., i, j] = 0 at init
 * and C[bt.., i, j] += A[bt.., i, k] * B[bt.., k, j] (or B[.., j, k]; A
 * and B 2-D or batched like C; float32/float16/bfloat16, casts to C's
 * dtype allowed), its loops over exactly its iteration variables, runs
 * rlx_gemm (runtime/kernels/gemm.h: products summed in float32, rounded
 * once) when it has work, else its loops. A B given swapped (the plan
 * folded the transposing prim_func that computed it: cg_tir_fused_kernel)
 * is the transpose's input, its last two axes' strides exchanged for every
 * access; rlx_gemm reads it with transb the other way round.
 *
 * Indices: every index of a load or a store that compiler/tir_bounds.c
 * cannot prove inside its dimension (from the loops' ranges, the blocks'
 * bindings, the T.where and if conditions around it; in an else branch
 * or on if_then_else's false side, the condition's negation) is compared
 * with the dimension when it runs; one outside branches to a cold block that
 * records it in the kernel's RlxIndexRec (its site: the buffer, the axis,
 * the index's span; the value and the dimension) and goes on with the
 * nearest index inside, so the kernel never touches memory outside its
 * buffers; the executor turns the record into a located error unless
 * index checks are off (rlx run --no-index-check: TVM's result wherever
 * the value read outside is not used). Proven accesses cost nothing:
 * LegalizeOps' elementwise ops, reductions and matrix products have none
 * checked.
 *
 * What is not lowered (asserts, handles, calls to external functions,
 * strided or offset buffers, a return value) is refused with an error at
 * its source location naming the construct.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h> /* temporary metadata nodes for loop hints */

#include "codegen_impl.h"
#include "gemm.h"
#include "index_error.h"

enum {
	STACK_MAX = 64 << 10, /* scratch bytes on the stack at most */
};

/* A bound variable. */
typedef struct {
	const TVar *v;
	LLVMValueRef val;
} TBind;

/* A buffer in scope: its data pointer and strides (i64): C order, or,
 * swapped, those of the transpose's input whose data it is (its last two
 * axes' strides exchanged: cg_tir_fused_kernel). */
typedef struct {
	const TBuf *b;
	LLVMValueRef ptr;
	LLVMValueRef st[MAXD];
	bool swapped;
} TBufB;

typedef struct {
	KernelBuilder *k;
	const PrimFunc *f;
	uint64_t swap;      /* bit p: buffer parameter p is given swapped */
	TBind *vars;
	int nv, cv;
	TBufB *bufs;
	int nb, cb;
	LLVMValueRef *heap; /* malloc'ed scratch to free, a stack */
	int nh, ch;
	int nouts;          /* outlined parallel bodies made */
	LLVMValueRef outs[64]; /* the first of them (deleted on failure) */
	LLVMValueRef bodies[64]; /* and their bodies */
	int nbody;
	int par_depth;      /* inside a loop split over the pool */
	bool reassoc;       /* in a reduction block's body: float + and *
			     * may reassociate (so the loop vectorizes) */
	const TStmt *hoisted[16]; /* blocks whose T.init ran before their
				   * reduction loops */
	int nhoisted;
	int no_gemm;        /* lowering a matrix product's loops as written */
	const char *name;   /* the kernel's symbol */
	TirBounds *tb;      /* what is proven about the variables bound */
	TBuf recb;          /* the index record's pseudo-buffer (its pointer
			     * travels with the buffers into outlined bodies) */
	CgSite *sites;      /* the indices checked at run time */
	int nsites, csites;
} T;

/* ------------------------------------------------------------ helpers */

static bool
refuse(T *t, Span sp, const char *fmt, const char *what)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, what);
	diag_error(t->k->d, sp, "prim_func %s: %s", t->f->name, msg);
	return false;
}

static void
bind(T *t, const TVar *v, LLVMValueRef val)
{
	if (t->nv == t->cv) {
		t->cv = t->cv ? 2 * t->cv : 32;
		t->vars = realloc(t->vars, sizeof *t->vars * (size_t)t->cv);
		if (!t->vars)
			ir_bug("out of memory");
	}
	t->vars[t->nv++] = (TBind){v, val};
}

static LLVMValueRef
lookup(T *t, const TVar *v)
{
	for (int i = t->nv - 1; i >= 0; i--)
		if (t->vars[i].v == v)
			return t->vars[i].val;
	return NULL;
}

static TBufB *
push_buf(T *t, const TBuf *b)
{
	if (t->nb == t->cb) {
		t->cb = t->cb ? 2 * t->cb : 16;
		t->bufs = realloc(t->bufs, sizeof *t->bufs * (size_t)t->cb);
		if (!t->bufs)
			ir_bug("out of memory");
	}
	TBufB *x = &t->bufs[t->nb++];
	memset(x, 0, sizeof *x);
	x->b = b;
	return x;
}

static TBufB *
find_buf(T *t, const TBuf *b)
{
	for (int i = t->nb - 1; i >= 0; i--)
		if (t->bufs[i].b == b)
			return &t->bufs[i];
	return NULL;
}

static bool
is_int(TType ty)
{
	return ty != TT_HANDLE && (dtype_is_int((DType)ty) || ty == DT_BOOL);
}

static bool
is_float(TType ty)
{
	return ty != TT_HANDLE && dtype_is_float((DType)ty);
}

static bool
is_unsigned(TType ty)
{
	return ty != TT_HANDLE && dtype_is_unsigned((DType)ty);
}

/* The type a value of ty is computed in: float16 as half, bfloat16 and
 * float8 as float, bool as i1. */
static LLVMTypeRef
vtype(KernelBuilder *k, TType ty)
{
	if (ty == TT_HANDLE)
		return k->ptr;
	if (ty == DT_F16)
		return k->f16;
	return cg_ctype(k, (DType)ty);
}

/* v of type from as type to (TVM's Cast). */
static LLVMValueRef
cvt(KernelBuilder *k, LLVMValueRef v, TType from, TType to)
{
	if (from == to)
		return v;
	LLVMBuilderRef b = k->b;
	if (from == DT_F16) { /* through float: exact */
		v = LLVMBuildFPExt(b, v, k->f32, "");
		from = DT_F32;
	}
	if (to == DT_F16) {
		if (is_float(from))
			return LLVMTypeOf(v) == k->f64 ? LLVMBuildFPTrunc(b, v, k->f16, "")
			       : LLVMBuildFPTrunc(b, v, k->f16, "");
		if (from == DT_BOOL)
			return LLVMBuildUIToFP(b, v, k->f16, "");
		return is_unsigned(from) ? LLVMBuildUIToFP(b, v, k->f16, "")
					 : LLVMBuildSIToFP(b, v, k->f16, "");
	}
	LLVMValueRef r = cg_cvt(k, v, (DType)from, (DType)to);
	if (to == DT_BF16 || dtype_is_float8((DType)to))
		r = cg_round_narrow(k, r, (DType)to);
	return r;
}

/* A constant of type ty. */
static LLVMValueRef
cconst(KernelBuilder *k, TType ty, double f, int64_t i, bool isf)
{
	LLVMTypeRef lt = vtype(k, ty);
	if (is_float(ty)) {
		double v = isf ? f : (double)i;
		if (ty == DT_BF16) { /* rounded to bfloat16 */
			float x = (float)v;
			uint32_t u;
			memcpy(&u, &x, 4);
			if (x == x)
				u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
			memcpy(&x, &u, 4);
			v = x;
		}
		return LLVMConstReal(lt, v);
	}
	if (ty == DT_BOOL)
		return LLVMConstInt(k->i1, isf ? f != 0 : i != 0, 0);
	return LLVMConstInt(lt, (unsigned long long)(isf ? (int64_t)f : i), 1);
}

/* A libm function of n float arguments (f32 or f64; half goes through
 * float). */
static LLVMValueRef
libm(KernelBuilder *k, const char *name, LLVMValueRef *x, int n)
{
	LLVMTypeRef t = LLVMTypeOf(x[0]);
	bool half = t == k->f16;
	LLVMValueRef a[2];
	for (int i = 0; i < n; i++)
		a[i] = half ? LLVMBuildFPExt(k->b, x[i], k->f32, "") : x[i];
	LLVMTypeRef ct = half ? k->f32 : t;
	char full[32];
	snprintf(full, sizeof full, "%s%s", name, ct == k->f32 ? "f" : "");
	LLVMTypeRef pt[2] = {ct, ct};
	LLVMTypeRef ft = LLVMFunctionType(ct, pt, (unsigned)n, false);
	LLVMValueRef f = LLVMGetNamedFunction(k->mod, full);
	if (!f)
		f = LLVMAddFunction(k->mod, full, ft);
	LLVMValueRef r = LLVMBuildCall2(k->b, ft, f, a, (unsigned)n, "");
	return half ? LLVMBuildFPTrunc(k->b, r, k->f16, "") : r;
}

/* An LLVM intrinsic overloaded on its first argument's type. */
static LLVMValueRef
intrin(KernelBuilder *k, const char *name, LLVMValueRef *args, int n)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ir_bug("no intrinsic %s", name);
	LLVMTypeRef t = LLVMTypeOf(args[0]);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(k->mod, id, &t, 1);
	LLVMTypeRef ft = LLVMIntrinsicGetType(k->c, id, &t, 1);
	return LLVMBuildCall2(k->b, ft, f, args, (unsigned)n, "");
}

/* Integer a / b (floor: toward minus infinity; else toward zero) or the
 * remainder; a zero divisor gives 0, as does INT_MIN / -1's overflow. */
static LLVMValueRef
idiv(KernelBuilder *k, LLVMValueRef a, LLVMValueRef b, bool uns, bool floor, bool rem)
{
	LLVMBuilderRef bd = k->b;
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMValueRef zero = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0);
	LLVMValueRef bz = LLVMBuildICmp(bd, LLVMIntEQ, b, zero, "");
	LLVMValueRef bad = bz;
	if (!uns) {
		unsigned w = LLVMGetIntTypeWidth(t);
		LLVMValueRef mn = LLVMConstInt(t, 1ULL << (w - 1), 0);
		LLVMValueRef ovf = LLVMBuildAnd(bd,
			LLVMBuildICmp(bd, LLVMIntEQ, a, mn, ""),
			LLVMBuildICmp(bd, LLVMIntEQ, b, LLVMConstAllOnes(t), ""), "");
		bad = LLVMBuildOr(bd, bz, ovf, "");
	}
	LLVMValueRef bs = LLVMBuildSelect(bd, bad, one, b, "");
	LLVMValueRef r;
	if (uns) {
		r = rem ? LLVMBuildURem(bd, a, bs, "") : LLVMBuildUDiv(bd, a, bs, "");
	} else if (!floor) {
		r = rem ? LLVMBuildSRem(bd, a, bs, "") : LLVMBuildSDiv(bd, a, bs, "");
	} else {
		LLVMValueRef q = LLVMBuildSDiv(bd, a, bs, "");
		LLVMValueRef m = LLVMBuildSRem(bd, a, bs, "");
		/* the remainder's sign differs from the divisor's: adjust */
		LLVMValueRef adj = LLVMBuildAnd(bd,
			LLVMBuildICmp(bd, LLVMIntNE, m, zero, ""),
			LLVMBuildICmp(bd, LLVMIntSLT, LLVMBuildXor(bd, m, bs, ""), zero, ""), "");
		r = rem ? LLVMBuildSelect(bd, adj, LLVMBuildAdd(bd, m, bs, ""), m, "")
			: LLVMBuildSelect(bd, adj, LLVMBuildSub(bd, q, one, ""), q, "");
	}
	return LLVMBuildSelect(bd, bad, zero, r, "");
}

/* ---------------------------------------------------------- expressions */

static LLVMValueRef ex(T *t, const TExpr *e);
static LLVMValueRef ex_i64(T *t, const TExpr *e);

/* e as type ty. */
static LLVMValueRef
ex_as(T *t, const TExpr *e, TType ty)
{
	LLVMValueRef v = ex(t, e);
	return v ? cvt(t->k, v, e->ty, ty) : NULL;
}

/* The number of a new checked index: idx of axis `axis` of b. */
static int
add_site(T *t, Span sp, const TBuf *b, int axis)
{
	if (t->nsites == t->csites) {
		t->csites = t->csites ? 2 * t->csites : 16;
		t->sites = realloc(t->sites, sizeof *t->sites * (size_t)t->csites);
		if (!t->sites)
			ir_bug("out of memory");
	}
	t->sites[t->nsites] = (CgSite){sp, b, axis};
	return t->nsites++;
}

/*
 * Index x (i64) of axis `axis` of bb, not proven inside its dimension d,
 * checked: outside, a cold block records it (rlx_index_error) and goes on
 * with the nearest index inside (0 when d <= 0, *empty then true, so that
 * the access goes to the record's spare bytes). Returns the index to use.
 */
static LLVMValueRef
checked(T *t, TBufB *bb, int axis, LLVMValueRef x, Span sp, LLVMValueRef *empty)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	LLVMValueRef d = ex_i64(t, bb->b->shape[axis]);
	if (!d)
		return NULL;
	int site = add_site(t, sp, bb->b, axis);
	LLVMValueRef in = LLVMBuildAnd(b,
		LLVMBuildICmp(b, LLVMIntSGE, x, cg_ci(k, 0), ""),
		LLVMBuildICmp(b, LLVMIntSLT, x, d, ""), "");
	LLVMBasicBlockRef hot = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef cold = LLVMAppendBasicBlockInContext(k->c, k->fn, "oob");
	LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(k->c, k->fn, "oob.cont");
	LLVMBuildCondBr(b, in, cont, cold);
	LLVMPositionBuilderAtEnd(b, cold);
	LLVMTypeRef pt[4] = {k->ptr, k->i64, k->i64, k->i64};
	LLVMTypeRef ft = LLVMFunctionType(k->vd, pt, 4, false);
	LLVMValueRef fn = LLVMGetNamedFunction(k->mod, "rlx_index_error");
	if (!fn) {
		fn = LLVMAddFunction(k->mod, "rlx_index_error", ft);
		const char *attrs[] = {"cold", "nounwind"};
		for (size_t i = 0; i < ARRAY_LEN(attrs); i++)
			LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(k->c,
					LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
	}
	LLVMValueRef args[4] = {find_buf(t, &t->recb)->ptr, cg_ci(k, site), x, d};
	LLVMBuildCall2(b, ft, fn, args, 4, "");
	LLVMValueRef xc = cg_clampi(k, x, d);
	LLVMValueRef e = LLVMBuildICmp(b, LLVMIntSLE, d, cg_ci(k, 0), "");
	LLVMBasicBlockRef cold_end = LLVMGetInsertBlock(b);
	LLVMBuildBr(b, cont);
	LLVMPositionBuilderAtEnd(b, cont);
	LLVMValueRef px = LLVMBuildPhi(b, k->i64, "");
	LLVMValueRef vx[2] = {x, xc};
	LLVMBasicBlockRef from[2] = {hot, cold_end};
	LLVMAddIncoming(px, vx, from, 2);
	LLVMValueRef pe = LLVMBuildPhi(b, k->i1, "");
	LLVMValueRef ve[2] = {LLVMConstInt(k->i1, 0, 0), e};
	LLVMAddIncoming(pe, ve, from, 2);
	*empty = *empty ? LLVMBuildOr(b, *empty, pe, "") : pe;
	return px;
}

/* The element offset (i64) of buf[idx[0..n)] and the address it is an
 * offset from (*base): each index not proven inside its dimension is
 * checked. */
static LLVMValueRef
offset(T *t, TBufB *bb, TExpr *const *idx, int n, Span sp, LLVMValueRef *base)
{
	KernelBuilder *k = t->k;
	LLVMValueRef empty = NULL;
	*base = bb->ptr;
	if (n != bb->b->ndim) {
		char what[96];
		snprintf(what, sizeof what, "%s (%d dimensions) indexed with %d indices",
			 bb->b->name, bb->b->ndim, n);
		refuse(t, sp, "buffer %s", what);
		return NULL;
	}
	LLVMValueRef off = cg_ci(k, 0);
	for (int i = 0; i < n; i++) {
		LLVMValueRef x = ex(t, idx[i]);
		if (!x)
			return NULL;
		if (!is_int(idx[i]->ty)) {
			refuse(t, idx[i]->span, "an index of type %s",
			       tir_type_name(idx[i]->ty));
			return NULL;
		}
		if (LLVMTypeOf(x) != k->i64)
			x = is_unsigned(idx[i]->ty) ? LLVMBuildZExt(k->b, x, k->i64, "")
						    : LLVMBuildSExt(k->b, x, k->i64, "");
		if (!tir_bounds_inside(t->tb, idx[i], bb->b->shape[i]) &&
		    !(x = checked(t, bb, i, x, idx[i]->span.line ? idx[i]->span : sp,
				  &empty)))
			return NULL;
		off = cg_add(k, off, cg_mul(k, x, bb->st[i]));
	}
	if (empty) { /* an empty buffer: the record's spare bytes */
		LLVMValueRef spare = LLVMBuildGEP2(k->b, k->i8, find_buf(t, &t->recb)->ptr,
			(LLVMValueRef[]){cg_ci(k, offsetof(RlxIndexRec, spare))}, 1, "");
		*base = LLVMBuildSelect(k->b, empty, spare, bb->ptr, "");
		off = LLVMBuildSelect(k->b, empty, cg_ci(k, 0), off, "");
	}
	return off;
}

static TBufB *
need_buf(T *t, const TBuf *b, Span sp)
{
	TBufB *bb = find_buf(t, b);
	if (!bb)
		refuse(t, sp, "buffer %s is not allocated here", b->name);
	return bb;
}

/* Loads element off of bb (at base) as a value of its dtype. */
static LLVMValueRef
load(T *t, TBufB *bb, LLVMValueRef base, LLVMValueRef off)
{
	KernelBuilder *k = t->k;
	if (bb->b->dtype == DT_F16)
		return LLVMBuildLoad2(k->b, k->f16,
			LLVMBuildInBoundsGEP2(k->b, k->f16, base, &off, 1, ""), "");
	Buf b = {.dt = bb->b->dtype, .ptr = base};
	return cg_ld(k, &b, off);
}

static void
store(T *t, TBufB *bb, LLVMValueRef base, LLVMValueRef off, LLVMValueRef v)
{
	KernelBuilder *k = t->k;
	if (bb->b->dtype == DT_F16) {
		LLVMBuildStore(k->b, v,
			LLVMBuildInBoundsGEP2(k->b, k->f16, base, &off, 1, ""));
		return;
	}
	Buf b = {.dt = bb->b->dtype, .ptr = base};
	cg_st(k, &b, off, v);
}

/* if_then_else(c, a, b): only the taken side evaluated. */
static LLVMValueRef
ex_ite(T *t, const TExpr *e)
{
	KernelBuilder *k = t->k;
	LLVMValueRef c = ex_as(t, e->args[0], DT_BOOL);
	if (!c)
		return NULL;
	LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(k->c, k->fn, "ite.then");
	LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(k->c, k->fn, "ite.else");
	LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(k->c, k->fn, "ite.join");
	LLVMBuildCondBr(k->b, c, bt, bf);
	LLVMPositionBuilderAtEnd(k->b, bt);
	TirBoundsMark m = tir_bounds_mark(t->tb);
	tir_bounds_assume(t->tb, e->args[0], true);
	LLVMValueRef a = ex_as(t, e->args[1], e->ty);
	tir_bounds_pop(t->tb, m);
	if (!a)
		return NULL;
	LLVMBasicBlockRef at = LLVMGetInsertBlock(k->b);
	LLVMBuildBr(k->b, bj);
	LLVMPositionBuilderAtEnd(k->b, bf);
	tir_bounds_assume(t->tb, e->args[0], false);
	LLVMValueRef b = ex_as(t, e->args[2], e->ty);
	tir_bounds_pop(t->tb, m);
	if (!b)
		return NULL;
	LLVMBasicBlockRef bfe = LLVMGetInsertBlock(k->b);
	LLVMBuildBr(k->b, bj);
	LLVMPositionBuilderAtEnd(k->b, bj);
	LLVMValueRef phi = LLVMBuildPhi(k->b, vtype(k, e->ty), "");
	LLVMValueRef vals[2] = {a, b};
	LLVMBasicBlockRef bbs[2] = {at, bfe};
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

/* A float intrinsic of one argument x (of type ty). */
static LLVMValueRef
fmath1(T *t, const char *name, LLVMValueRef x, TType ty)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	LLVMValueRef one = LLVMConstReal(LLVMTypeOf(x), 1);
	static const char *const llvm1[][2] = {
		{"exp2", "llvm.exp2"}, {"exp10", "llvm.exp10"}, {"log", "llvm.log"},
		{"log2", "llvm.log2"}, {"log10", "llvm.log10"}, {"sqrt", "llvm.sqrt"},
		{"floor", "llvm.floor"}, {"ceil", "llvm.ceil"}, {"trunc", "llvm.trunc"},
		{"nearbyint", "llvm.nearbyint"}, {"round", "llvm.roundeven"},
		{"fabs", "llvm.fabs"}, {"abs", "llvm.fabs"}, {"cos", "llvm.cos"},
		{"sin", "llvm.sin"},
	};
	for (size_t i = 0; i < ARRAY_LEN(llvm1); i++)
		if (!strcmp(name, llvm1[i][0]))
			return intrin(k, llvm1[i][1], &x, 1);
	if (!strcmp(name, "exp"))
		return ty == DT_F32 || ty == DT_BF16 ? cg_fexp(k, x)
						     : intrin(k, "llvm.exp", &x, 1);
	if (!strcmp(name, "rsqrt"))
		return LLVMBuildFDiv(b, one, intrin(k, "llvm.sqrt", &x, 1), "");
	if (!strcmp(name, "sigmoid")) {
		LLVMValueRef nx = LLVMBuildFNeg(b, x, "");
		LLVMValueRef ex_ = ty == DT_F32 || ty == DT_BF16 ? cg_fexp(k, nx)
					: intrin(k, "llvm.exp", &nx, 1);
		return LLVMBuildFDiv(b, one, LLVMBuildFAdd(b, one, ex_, ""), "");
	}
	if (!strcmp(name, "isnan"))
		return LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
	if (!strcmp(name, "isinf"))
		return LLVMBuildFCmp(b, LLVMRealOEQ, intrin(k, "llvm.fabs", &x, 1),
				     LLVMConstReal(LLVMTypeOf(x), INFINITY), "");
	if (!strcmp(name, "isfinite"))
		return LLVMBuildFCmp(b, LLVMRealOLT, intrin(k, "llvm.fabs", &x, 1),
				     LLVMConstReal(LLVMTypeOf(x), INFINITY), "");
	static const char *const libm1[] = {
		"log1p", "tanh", "erf", "tan", "acos", "asin", "atan", "cosh",
		"sinh", "acosh", "asinh", "atanh",
	};
	for (size_t i = 0; i < ARRAY_LEN(libm1); i++)
		if (!strcmp(name, libm1[i]))
			return libm(k, libm1[i], &x, 1);
	return NULL;
}

/* An integer intrinsic of one argument x (of type ty). */
static LLVMValueRef
imath1(T *t, const char *name, LLVMValueRef x, TType ty)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	LLVMTypeRef lt = LLVMTypeOf(x);
	if (!strcmp(name, "round") || !strcmp(name, "floor") || !strcmp(name, "ceil") ||
	    !strcmp(name, "trunc") || !strcmp(name, "nearbyint"))
		return x;
	if (!strcmp(name, "abs") || !strcmp(name, "fabs")) {
		if (is_unsigned(ty))
			return x;
		LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, LLVMConstInt(lt, 0, 0), "");
		return LLVMBuildSelect(b, neg, LLVMBuildNeg(b, x, ""), x, "");
	}
	if (!strcmp(name, "isnan") || !strcmp(name, "isinf"))
		return LLVMConstInt(k->i1, 0, 0);
	if (!strcmp(name, "isfinite"))
		return LLVMConstInt(k->i1, 1, 0);
	if (!strcmp(name, "bitwise_not"))
		return LLVMBuildNot(b, x, "");
	if (!strcmp(name, "popcount"))
		return intrin(k, "llvm.ctpop", &x, 1);
	if (!strcmp(name, "clz")) {
		LLVMValueRef a[2] = {x, LLVMConstInt(k->i1, 0, 0)};
		return intrin(k, "llvm.ctlz", a, 2);
	}
	return NULL;
}

/* A call to an intrinsic (TE_CALL). */
static LLVMValueRef
ex_call(T *t, const TExpr *e)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	const char *n = e->s;
	if (!strcmp(n, "if_then_else") && e->n == 3)
		return ex_ite(t, e);
	if ((!strcmp(n, "likely") || !strcmp(n, "tvm_thread_invariant")) && e->n == 1)
		return ex_as(t, e->args[0], e->ty);
	if (!strcmp(n, "assume"))
		return LLVMConstInt(vtype(k, e->ty), 0, 0);
	if (!strcmp(n, "reinterpret") && e->n == 2) {
		const TExpr *x = e->args[1];
		if (x->ty == TT_HANDLE || e->ty == TT_HANDLE || x->ty == DT_BOOL ||
		    e->ty == DT_BOOL || dtype_bits((DType)x->ty) != dtype_bits((DType)e->ty) ||
		    x->ty == DT_BF16 || e->ty == DT_BF16 || dtype_is_float8((DType)x->ty) ||
		    dtype_is_float8((DType)e->ty)) {
			refuse(t, e->span, "T.reinterpret to %s", tir_type_name(e->ty));
			return NULL;
		}
		LLVMValueRef v = ex(t, x);
		return v ? LLVMBuildBitCast(b, v, vtype(k, e->ty), "") : NULL;
	}
	if (e->n == 1 && e->ty != TT_HANDLE && e->args[0]->ty != TT_HANDLE) {
		TType at = e->args[0]->ty;
		if (is_float(e->ty) || (is_float(at) && e->ty == DT_BOOL)) {
			LLVMValueRef x = ex(t, e->args[0]);
			if (!x)
				return NULL;
			if (is_float(at)) {
				LLVMValueRef r = fmath1(t, n, x, at);
				if (r)
					return r;
			}
		} else if (is_int(at)) {
			LLVMValueRef x = ex(t, e->args[0]);
			if (!x)
				return NULL;
			LLVMValueRef r = imath1(t, n, x, at);
			if (r)
				return r;
		}
	}
	if (e->n == 2 && e->ty != TT_HANDLE && is_int(e->ty) &&
	    e->args[0]->ty != TT_HANDLE && e->args[1]->ty != TT_HANDLE) {
		static const char *const ib[] = {"bitwise_and", "bitwise_or", "bitwise_xor",
						 "shift_left", "shift_right", "ceildiv"};
		for (size_t i = 0; i < ARRAY_LEN(ib); i++) {
			if (strcmp(n, ib[i]))
				continue;
			LLVMValueRef x = ex_as(t, e->args[0], e->ty);
			LLVMValueRef y = x ? ex_as(t, e->args[1], e->ty) : NULL;
			if (!y)
				return NULL;
			bool uns = is_unsigned(e->ty);
			switch (i) {
			case 0: return LLVMBuildAnd(b, x, y, "");
			case 1: return LLVMBuildOr(b, x, y, "");
			case 2: return LLVMBuildXor(b, x, y, "");
			case 3: return LLVMBuildShl(b, x, y, "");
			case 4: return uns ? LLVMBuildLShr(b, x, y, "") : LLVMBuildAShr(b, x, y, "");
			default: { /* ceildiv: -floordiv(-a, b) */
				LLVMValueRef one = LLVMConstInt(LLVMTypeOf(x), 1, 0);
				LLVMValueRef s = LLVMBuildSub(b, LLVMBuildAdd(b, x, y, ""), one, "");
				return idiv(k, s, y, uns, true, false);
			}
			}
		}
	}
	if (e->n == 2 && is_float(e->ty)) {
		static const char *const fb[] = {"pow", "atan2", "fmod", "hypot",
						 "copysign", "nextafter", "ceildiv"};
		for (size_t i = 0; i < ARRAY_LEN(fb); i++) {
			if (strcmp(n, fb[i]))
				continue;
			LLVMValueRef a[2];
			a[0] = ex_as(t, e->args[0], e->ty);
			a[1] = a[0] ? ex_as(t, e->args[1], e->ty) : NULL;
			if (!a[1])
				return NULL;
			switch (i) {
			case 0: return intrin(k, "llvm.pow", a, 2);
			case 2: return LLVMBuildFRem(b, a[0], a[1], "");
			case 4: return intrin(k, "llvm.copysign", a, 2);
			case 6: return intrin(k, "llvm.ceil", (LLVMValueRef[]){
					LLVMBuildFDiv(b, a[0], a[1], "")}, 1);
			default: return libm(k, fb[i], a, 2);
			}
		}
	}
	refuse(t, e->span, "T.%s is not lowered by rlx", n);
	return NULL;
}

/* A binary operator. */
static LLVMValueRef
ex_bin(T *t, const TExpr *e)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	bool cmp = TE_IS_CMP(e->kind);
	/* operands in the result's type; a comparison's in the wider of
	 * its operands' (TVM makes them equal) */
	TType ot = e->ty;
	if (cmp || e->kind == TE_AND || e->kind == TE_OR)
		ot = cmp ? e->a->ty : DT_BOOL;
	if (cmp && e->a->ty != e->b->ty && e->b->ty != TT_HANDLE && e->a->ty != TT_HANDLE &&
	    (is_float(e->b->ty) ||
	     (!is_float(e->a->ty) && dtype_bits((DType)e->b->ty) > dtype_bits((DType)e->a->ty))))
		ot = e->b->ty;
	if (ot == TT_HANDLE) {
		refuse(t, e->span, "%s on handles", tir_op_text(e->kind, &(bool){0}));
		return NULL;
	}
	LLVMValueRef x = ex_as(t, e->a, ot);
	LLVMValueRef y = x ? ex_as(t, e->b, ot) : NULL;
	if (!y)
		return NULL;
	bool fl = is_float(ot), uns = is_unsigned(ot);
	/* float32 and float64 only: a float16 sum reassociated would round
	 * differently from TVM's, in order, by more than its tolerance */
	if ((ot == DT_F32 || ot == DT_F64) && t->reassoc &&
	    (e->kind == TE_ADD || e->kind == TE_MUL))
		return cg_reassoc(e->kind == TE_ADD ? LLVMBuildFAdd(b, x, y, "")
						    : LLVMBuildFMul(b, x, y, ""));
	switch (e->kind) {
	case TE_ADD: return fl ? LLVMBuildFAdd(b, x, y, "") : LLVMBuildAdd(b, x, y, "");
	case TE_SUB: return fl ? LLVMBuildFSub(b, x, y, "") : LLVMBuildSub(b, x, y, "");
	case TE_MUL: return fl ? LLVMBuildFMul(b, x, y, "") : LLVMBuildMul(b, x, y, "");
	case TE_DIV: /* tir.Div: truncating for integers */
	case TE_TRUNCDIV:
		return fl ? LLVMBuildFDiv(b, x, y, "") : idiv(k, x, y, uns, false, false);
	case TE_TRUNCMOD:
		return fl ? LLVMBuildFRem(b, x, y, "") : idiv(k, x, y, uns, false, true);
	case TE_FLOORDIV:
		if (fl)
			return intrin(k, "llvm.floor", (LLVMValueRef[]){
				LLVMBuildFDiv(b, x, y, "")}, 1);
		return idiv(k, x, y, uns, true, false);
	case TE_FLOORMOD:
		if (fl) {
			LLVMValueRef q = intrin(k, "llvm.floor", (LLVMValueRef[]){
				LLVMBuildFDiv(b, x, y, "")}, 1);
			return LLVMBuildFSub(b, x, LLVMBuildFMul(b, q, y, ""), "");
		}
		return idiv(k, x, y, uns, true, true);
	case TE_MIN:
	case TE_MAX: {
		bool mx = e->kind == TE_MAX;
		LLVMValueRef c = fl ? LLVMBuildFCmp(b, mx ? LLVMRealOGT : LLVMRealOLT, x, y, "")
			: LLVMBuildICmp(b, uns ? (mx ? LLVMIntUGT : LLVMIntULT)
					       : (mx ? LLVMIntSGT : LLVMIntSLT), x, y, "");
		return LLVMBuildSelect(b, c, x, y, "");
	}
	case TE_EQ: case TE_NE: case TE_LT: case TE_LE: case TE_GT: case TE_GE: {
		static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealONE, LLVMRealOLT,
						       LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
		static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT,
						      LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
		static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT,
						      LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
		int i = e->kind - TE_EQ;
		return fl ? LLVMBuildFCmp(b, fp[i], x, y, "")
			  : LLVMBuildICmp(b, uns ? up[i] : sp[i], x, y, "");
	}
	case TE_AND: return LLVMBuildAnd(b, x, y, "");
	case TE_OR: return LLVMBuildOr(b, x, y, "");
	default:
		ir_bug("binary op %d", e->kind);
	}
}

static LLVMValueRef
ex(T *t, const TExpr *e)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	if (e->ty == TT_HANDLE && e->kind != TE_CALL) {
		refuse(t, e->span, "%s", "a handle value is not lowered by rlx");
		return NULL;
	}
	switch (e->kind) {
	case TE_INT:
		return cconst(k, e->ty, 0, e->i, false);
	case TE_FLOAT:
		return cconst(k, e->ty, e->f, 0, true);
	case TE_STR:
		refuse(t, e->span, "a string (\"%s\") outside an intrinsic's arguments", e->s);
		return NULL;
	case TE_VAR: {
		LLVMValueRef v = lookup(t, e->var);
		if (!v)
			refuse(t, e->span, "variable %s has no value here (no buffer's "
			       "shape binds it)", e->var->name);
		return v;
	}
	case TE_LOAD: {
		TBufB *bb = need_buf(t, e->buf, e->span);
		LLVMValueRef base;
		LLVMValueRef off = bb ? offset(t, bb, e->args, e->n, e->span, &base) : NULL;
		if (!off)
			return NULL;
		return cvt(k, load(t, bb, base, off), e->buf->dtype, e->ty);
	}
	case TE_NOT: {
		LLVMValueRef a = ex_as(t, e->a, DT_BOOL);
		return a ? LLVMBuildNot(b, a, "") : NULL;
	}
	case TE_NEG: {
		LLVMValueRef a = ex_as(t, e->a, e->ty);
		if (!a)
			return NULL;
		return is_float(e->ty) ? LLVMBuildFNeg(b, a, "") : LLVMBuildNeg(b, a, "");
	}
	case TE_CAST: {
		if (e->a->ty == TT_HANDLE) {
			refuse(t, e->span, "a cast of a handle to %s", tir_type_name(e->ty));
			return NULL;
		}
		LLVMValueRef a = ex(t, e->a);
		return a ? cvt(k, a, e->a->ty, e->ty) : NULL;
	}
	case TE_SELECT: {
		LLVMValueRef c = ex_as(t, e->c, DT_BOOL);
		LLVMValueRef x = c ? ex_as(t, e->a, e->ty) : NULL;
		LLVMValueRef y = x ? ex_as(t, e->b, e->ty) : NULL;
		return y ? LLVMBuildSelect(b, c, x, y, "") : NULL;
	}
	case TE_CALL:
		return ex_call(t, e);
	default:
		if (TE_IS_BIN(e->kind))
			return ex_bin(t, e);
		ir_bug("TExpr kind %d", e->kind);
	}
}

/* An integer expression as an i64. */
static LLVMValueRef
ex_i64(T *t, const TExpr *e)
{
	if (!is_int(e->ty)) {
		refuse(t, e->span, "a %s where an integer is needed",
		       tir_type_name(e->ty));
		return NULL;
	}
	LLVMValueRef v = ex(t, e);
	if (!v || LLVMTypeOf(v) == t->k->i64)
		return v;
	return is_unsigned(e->ty) ? LLVMBuildZExt(t->k->b, v, t->k->i64, "")
				  : LLVMBuildSExt(t->k->b, v, t->k->i64, "");
}

/* ----------------------------------------------------------- statements */

/* The strides of buffer bb from its shape (evaluated now). */
static bool
buf_strides(T *t, TBufB *bb, LLVMValueRef *size)
{
	const TBuf *b = bb->b;
	if (b->ndim > MAXD)
		return refuse(t, b->span, "buffer %s has more than 8 dimensions", b->name);
	if (b->nstrides)
		return refuse(t, b->span, "buffer %s has strides (rlx runs compact buffers)",
			      b->name);
	if (b->elem_offset && !(b->elem_offset->kind == TE_INT && b->elem_offset->i == 0))
		return refuse(t, b->span, "buffer %s has an elem_offset", b->name);
	if (b->dtype == DT_UNKNOWN)
		return refuse(t, b->span, "buffer %s has no dtype rlx knows", b->name);
	LLVMValueRef s = cg_ci(t->k, 1), d[MAXD];
	for (int i = b->ndim - 1; i >= 0; i--) {
		bb->st[i] = s;
		LLVMValueRef x = ex_i64(t, b->shape[i]);
		if (!x)
			return false;
		d[i] = cg_imax(t->k, x, cg_ci(t->k, 0));
		s = cg_mul(t->k, s, d[i]);
	}
	if (bb->swapped) { /* B[.., k, j] is A[.., j, k] of A [.., N, K] */
		bb->st[b->ndim - 2] = cg_ci(t->k, 1);
		bb->st[b->ndim - 1] = d[b->ndim - 2];
	}
	if (size)
		*size = s;
	return true;
}

static LLVMValueRef
heap_fn(KernelBuilder *k, const char *name, LLVMTypeRef ret, LLVMTypeRef arg, LLVMTypeRef *ft)
{
	*ft = LLVMFunctionType(ret, &arg, 1, false);
	LLVMValueRef f = LLVMGetNamedFunction(k->mod, name);
	return f ? f : LLVMAddFunction(k->mod, name, *ft);
}

/* Scratch for buffer b (an allocation: not zeroed), in scope. */
static bool
scratch(T *t, const TBuf *b)
{
	KernelBuilder *k = t->k;
	TBufB *bb = push_buf(t, b);
	LLVMValueRef n;
	if (!buf_strides(t, bb, &n))
		return false;
	int esz = dtype_bits(b->dtype) / 8;
	if (esz < 1)
		esz = 1;
	if (LLVMIsAConstantInt(n) && LLVMConstIntGetSExtValue(n) * esz <= STACK_MAX) {
		int64_t c = LLVMConstIntGetSExtValue(n);
		bb->ptr = cg_slot(k, k->i8, (c > 0 ? c : 1) * esz);
		return true;
	}
	LLVMTypeRef ft;
	LLVMValueRef mf = heap_fn(k, "malloc", k->ptr, k->i64, &ft);
	LLVMValueRef bytes = cg_add(k, cg_mul(k, n, cg_ci(k, esz)), cg_ci(k, 64));
	bb->ptr = LLVMBuildCall2(k->b, ft, mf, &bytes, 1, "");
	if (t->nh == t->ch) {
		t->ch = t->ch ? 2 * t->ch : 8;
		t->heap = realloc(t->heap, sizeof *t->heap * (size_t)t->ch);
		if (!t->heap)
			ir_bug("out of memory");
	}
	t->heap[t->nh++] = bb->ptr;
	return true;
}

/* Frees the malloc'ed scratch made since mark. */
static void
free_to(T *t, int mark)
{
	KernelBuilder *k = t->k;
	LLVMTypeRef ft;
	while (t->nh > mark) {
		LLVMValueRef ff = heap_fn(k, "free", k->vd, k->ptr, &ft);
		LLVMValueRef p = t->heap[--t->nh];
		LLVMBuildCall2(k->b, ft, ff, &p, 1, "");
	}
}

static bool st(T *t, const TStmt *s);
static bool st_for(T *t, const TStmt *s);

/* Loop metadata: vectorize (T.vectorized) or unroll (T.unroll). */
static void
loop_hint(KernelBuilder *k, LLVMValueRef br, TForKind kind, bool full)
{
	const char *key = kind == TF_VECTORIZED ? "llvm.loop.vectorize.enable"
			  : full ? "llvm.loop.unroll.full" : "llvm.loop.unroll.enable";
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(k->c, NULL, 0);
	LLVMMetadataRef hint[2] = {LLVMMDStringInContext2(k->c, key, strlen(key)),
		LLVMValueAsMetadata(LLVMConstInt(k->i1, 1, 0))};
	LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(k->c, hint,
		kind == TF_VECTORIZED ? 2 : 1)};
	LLVMMetadataRef node = LLVMMDNodeInContext2(k->c, ops, 2);
	LLVMMetadataReplaceAllUsesWith(tmp, node);
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(k->c, "llvm.loop", 9),
			LLVMMetadataAsValue(k->c, node));
}

/* ------------------------------------------------------ parallel loops */

/* Does e read variable v? */
static bool
expr_uses(const TExpr *e, const TVar *v)
{
	if (!e)
		return false;
	if (e->kind == TE_VAR)
		return e->var == v;
	if (expr_uses(e->a, v) || expr_uses(e->b, v) || expr_uses(e->c, v))
		return true;
	for (int i = 0; e->args && i < e->n; i++)
		if (expr_uses(e->args[i], v))
			return true;
	return false;
}

/* Can e be computed from the variables bound now (no loads, no calls)? */
static bool
expr_bound(T *t, const TExpr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case TE_INT:
		return true;
	case TE_VAR:
		return lookup(t, e->var) != NULL;
	case TE_LOAD: case TE_CALL: case TE_STR: case TE_FLOAT:
		return false;
	default:
		return is_int(e->ty) && expr_bound(t, e->a) && expr_bound(t, e->b) &&
		       expr_bound(t, e->c);
	}
}

typedef struct {
	const TVar *v;
	bool ok;
	int blocks;
	int depth; /* blocks around the statement */
} ParCheck;

static void
par_check(ParCheck *pc, const TStmt *s)
{
	if (!s || !pc->ok)
		return;
	switch (s->kind) {
	case TS_SEQ:
		for (int i = 0; i < s->n; i++)
			par_check(pc, s->body[i]);
		return;
	case TS_BLOCK: {
		bool spatial = false;
		for (int i = 0; i < s->niters; i++) {
			bool u = expr_uses(s->iters[i].value, pc->v);
			if (u && s->iters[i].kind != TI_SPATIAL)
				pc->ok = false;
			spatial |= u;
		}
		if (pc->depth == 0) {
			if (!spatial)
				pc->ok = false;
			pc->blocks++;
		}
		pc->depth++;
		par_check(pc, s->init);
		par_check(pc, s->inner);
		pc->depth--;
		return;
	}
	case TS_STORE:
	case TS_EVAL:
	case TS_ALLOC:
		if (pc->depth == 0)
			pc->ok = false;
		par_check(pc, s->inner);
		return;
	case TS_ASSERT:
		pc->ok = false;
		return;
	case TS_IF:
		par_check(pc, s->inner);
		par_check(pc, s->else_);
		return;
	default:
		par_check(pc, s->inner);
		return;
	}
}

/* May the iterations of loop s run concurrently? T.parallel says so; a
 * serial loop whose variable every block under it binds into spatial
 * iteration variables only (TVM's promise: distinct spatial values write
 * distinct elements), with no store outside a block, too. */
static bool
parallel_ok(const TStmt *s)
{
	if (s->for_kind == TF_PARALLEL)
		return true;
	if (s->for_kind != TF_SERIAL)
		return false;
	ParCheck pc = {s->var, true, 0, 0};
	par_check(&pc, s->inner);
	return pc.ok && pc.blocks > 0;
}

/* An estimate (i64) of the statements run by s: loop extents multiplied,
 * an extent not computable here counted as 16. */
static LLVMValueRef
work_of(T *t, const TStmt *s, int depth)
{
	KernelBuilder *k = t->k;
	if (!s || depth > 12)
		return cg_ci(k, 1);
	switch (s->kind) {
	case TS_FOR: {
		LLVMValueRef e = expr_bound(t, s->extent) && expr_bound(t, s->min)
				 ? ex_i64(t, s->extent) : cg_ci(k, 16);
		return cg_mul(k, cg_imax(k, e, cg_ci(k, 0)), work_of(t, s->inner, depth + 1));
	}
	case TS_SEQ: {
		LLVMValueRef n = cg_ci(k, 0);
		for (int i = 0; i < s->n && i < 16; i++)
			n = cg_add(k, n, work_of(t, s->body[i], depth + 1));
		return n;
	}
	case TS_IF:
	case TS_BLOCK:
	case TS_LET:
	case TS_ATTR:
	case TS_ALLOC:
		return work_of(t, s->inner, depth + 1);
	default:
		return cg_ci(k, 1);
	}
}

static bool st_loop_body(T *t, const TStmt *s, LLVMValueRef i);
static bool tile_ok(const TStmt *s);
static bool st_tiled(T *t, const TStmt *s, LLVMValueRef jlo, LLVMValueRef jhi);

/*
 * Loop s over [lo, lo + n) with its body outlined into NAME.tK(ctx, from,
 * to): every value bound now (variables, buffers' pointers and strides)
 * goes through ctx as a 64-bit word. Split over the pool when big, else
 * called once over the whole range.
 */
static bool
st_par_for(T *t, const TStmt *s, LLVMValueRef lo, LLVMValueRef n, LLVMValueRef big)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	LLVMTypeRef vt = vtype(k, s->var->ty);
	int nw = t->nv + 1;
	for (int i = 0; i < t->nb; i++)
		nw += 1 + t->bufs[i].b->ndim;
	LLVMValueRef ctx = cg_slot(k, k->i64, nw);
	int w = 0;
	LLVMValueRef idx;
#define PUT(v) \
	do { \
		LLVMValueRef v_ = (v); \
		idx = cg_ci(k, w++); \
		LLVMBuildStore(b, v_, LLVMBuildInBoundsGEP2(b, k->i64, ctx, &idx, 1, "")); \
	} while (0)
	PUT(LLVMBuildSExt(b, lo, k->i64, ""));
	for (int i = 0; i < t->nv; i++)
		PUT(t->vars[i].val);
	for (int i = 0; i < t->nb; i++) {
		PUT(t->bufs[i].ptr);
		for (int j = 0; j < t->bufs[i].b->ndim; j++)
			PUT(t->bufs[i].st[j]);
	}
#undef PUT
	char name[200];
	snprintf(name, sizeof name, "%s.t%d", t->name, t->nouts++);
	LLVMTypeRef pt[3] = {k->ptr, k->i64, k->i64};
	LLVMTypeRef fty = LLVMFunctionType(k->vd, pt, 3, false);
	LLVMValueRef fn = LLVMAddFunction(k->mod, name, fty);
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	if (t->nouts <= 64)
		t->outs[t->nouts - 1] = fn;
	/* the call: on the pool when big, else here over [0, n) */
	LLVMTypeRef ft4[4] = {k->ptr, k->ptr, k->i64, k->ptr};
	LLVMTypeRef ft = LLVMFunctionType(k->vd, ft4, 4, false);
	LLVMValueRef pf = LLVMGetNamedFunction(k->mod, "rlx_parallel_for");
	if (!pf)
		pf = LLVMAddFunction(k->mod, "rlx_parallel_for", ft);
	LLVMValueRef n64 = LLVMBuildSExt(b, n, k->i64, "");
	LLVMBasicBlockRef bp = LLVMAppendBasicBlockInContext(k->c, k->fn, "tpar");
	LLVMBasicBlockRef bs = LLVMAppendBasicBlockInContext(k->c, k->fn, "tser");
	LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(k->c, k->fn, "tjoin");
	LLVMBuildCondBr(b, big, bp, bs);
	LLVMPositionBuilderAtEnd(b, bp);
	LLVMValueRef args[4] = {k->pool, ctx, n64, fn};
	LLVMBuildCall2(b, ft, pf, args, 4, "");
	LLVMBuildBr(b, bj);
	LLVMPositionBuilderAtEnd(b, bs);
	LLVMValueRef sargs[3] = {ctx, cg_ci(k, 0), n64};
	LLVMBuildCall2(b, fty, fn, sargs, 3, "");
	LLVMBuildBr(b, bj);
	LLVMBasicBlockRef cont = bj;

	/* the outlined function: the values reloaded from ctx */
	LLVMValueRef sfn = k->fn, spool = k->pool;
	LLVMBasicBlockRef sentry = k->entry;
	int snv = t->nv, snb = t->nb, snh = t->nh;
	TBind *svars = malloc(sizeof *svars * (size_t)(t->nv + 1));
	TBufB *sbufs = malloc(sizeof *sbufs * (size_t)(t->nb + 1));
	if (!svars || !sbufs)
		ir_bug("out of memory");
	if (t->nv)
		memcpy(svars, t->vars, sizeof *svars * (size_t)t->nv);
	if (t->nb)
		memcpy(sbufs, t->bufs, sizeof *sbufs * (size_t)t->nb);
	/* NAME.tK(ctx, from, to) calls NAME.tK.b(buffers..., ctx, from, to)
	 * whose buffer pointers are noalias parameters, as the impl's: the
	 * optimizer then keeps a reduction's accumulator in a register and
	 * vectorizes */
	int nbp = t->nb;
	LLVMTypeRef *bt = malloc(sizeof *bt * (size_t)(nbp + 3));
	LLVMValueRef *ba = malloc(sizeof *ba * (size_t)(nbp + 3));
	if (!bt || !ba)
		ir_bug("out of memory");
	for (int i = 0; i < nbp; i++)
		bt[i] = k->ptr;
	bt[nbp] = k->ptr;
	bt[nbp + 1] = k->i64;
	bt[nbp + 2] = k->i64;
	char bname[220];
	snprintf(bname, sizeof bname, "%s.b", name);
	LLVMValueRef bfn = LLVMAddFunction(k->mod, bname,
		LLVMFunctionType(k->vd, bt, (unsigned)nbp + 3, false));
	LLVMSetLinkage(bfn, LLVMInternalLinkage);
	unsigned kna = LLVMGetEnumAttributeKindForName("noalias", 7);
	unsigned knc = LLVMGetEnumAttributeKindForName("nocapture", 9);
	for (int i = 0; i < nbp; i++) {
		LLVMAddAttributeAtIndex(bfn, (unsigned)i + 1, LLVMCreateEnumAttribute(k->c, kna, 0));
		LLVMAddAttributeAtIndex(bfn, (unsigned)i + 1, LLVMCreateEnumAttribute(k->c, knc, 0));
	}
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(k->c, fn, "entry"));
	{
		LLVMValueRef c0 = LLVMGetParam(fn, 0);
		int pos = 1 + t->nv;
		for (int i = 0; i < nbp; i++) {
			idx = cg_ci(k, pos);
			ba[i] = LLVMBuildLoad2(b, k->ptr,
				LLVMBuildInBoundsGEP2(b, k->i64, c0, &idx, 1, ""), "");
			pos += 1 + t->bufs[i].b->ndim;
		}
		ba[nbp] = c0;
		ba[nbp + 1] = LLVMGetParam(fn, 1);
		ba[nbp + 2] = LLVMGetParam(fn, 2);
		LLVMBuildCall2(b, LLVMGlobalGetValueType(bfn), bfn, ba, (unsigned)nbp + 3, "");
		LLVMBuildRetVoid(b);
	}
	free(bt);
	free(ba);
	if (t->nbody < 64)
		t->bodies[t->nbody++] = bfn;
	k->fn = bfn;
	k->entry = LLVMAppendBasicBlockInContext(k->c, bfn, "entry");
	LLVMPositionBuilderAtEnd(b, k->entry);
	LLVMValueRef c = LLVMGetParam(bfn, (unsigned)nbp);
	w = 0;
#define GET(ty) \
	(idx = cg_ci(k, w++), \
	 LLVMBuildLoad2(b, (ty), LLVMBuildInBoundsGEP2(b, k->i64, c, &idx, 1, ""), ""))
	LLVMValueRef lo2 = GET(k->i64);
	for (int i = 0; i < t->nv; i++)
		t->vars[i].val = GET(LLVMTypeOf(svars[i].val));
	for (int i = 0; i < t->nb; i++) {
		t->bufs[i].ptr = LLVMGetParam(bfn, (unsigned)i);
		w++;
		for (int j = 0; j < t->bufs[i].b->ndim; j++)
			t->bufs[i].st[j] = GET(k->i64);
	}
#undef GET
	k->pool = LLVMBuildLoad2(b, k->ptr, LLVMGetNamedGlobal(k->mod, "rlx_jit_pool"), "pool");
	LLVMValueRef from = LLVMBuildAdd(b, lo2, LLVMGetParam(bfn, (unsigned)nbp + 1), "");
	LLVMValueRef to = LLVMBuildAdd(b, lo2, LLVMGetParam(bfn, (unsigned)nbp + 2), "");
	if (vt != k->i64) {
		from = LLVMBuildTrunc(b, from, vt, "");
		to = LLVMBuildTrunc(b, to, vt, "");
	}
	bool ok;
	if (tile_ok(s)) {
		if ((ok = st_tiled(t, s, from, to)))
			LLVMBuildRetVoid(b);
		goto done;
	}
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(k->c, bfn, "pbody");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(k->c, bfn, "pexit");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, from, to, ""), body, exit);
	LLVMPositionBuilderAtEnd(b, body);
	LLVMValueRef i = LLVMBuildPhi(b, vt, "pi");
	LLVMAddIncoming(i, &from, &pre, 1);
	ok = st_loop_body(t, s, i);
	if (ok) {
		LLVMValueRef next = LLVMBuildNSWAdd(b, i, LLVMConstInt(vt, 1, 0), "");
		LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
		LLVMAddIncoming(i, &next, &latch, 1);
		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, next, to, ""), body, exit);
		LLVMPositionBuilderAtEnd(b, exit);
		LLVMBuildRetVoid(b);
	}
done:
	t->nv = snv;
	t->nb = snb;
	t->nh = snh;
	if (snv)
		memcpy(t->vars, svars, sizeof *svars * (size_t)snv);
	if (snb)
		memcpy(t->bufs, sbufs, sizeof *sbufs * (size_t)snb);
	free(svars);
	free(sbufs);
	k->fn = sfn;
	k->entry = sentry;
	k->pool = spool;
	LLVMPositionBuilderAtEnd(b, cont);
	return ok;
}

/* -------------------------------------------------------------- loops */

/* The body of loop s with its variable bound to i; its scratch freed. */
static bool
st_loop_body(T *t, const TStmt *s, LLVMValueRef i)
{
	int nv = t->nv, nb = t->nb, nh = t->nh;
	TirBoundsMark m = tir_bounds_mark(t->tb);
	bind(t, s->var, i);
	tir_bounds_loop(t->tb, s->var, s->min, s->extent);
	bool ok = st(t, s->inner);
	tir_bounds_pop(t->tb, m);
	if (ok)
		free_to(t, nh);
	t->nv = nv;
	t->nb = nb;
	t->nh = nh;
	return ok;
}

/* The block a chain of loops from s ends in (each loop's body the next
 * loop or the block), NULL when there is none. */
static const TStmt *
chain_block(const TStmt *s)
{
	while (s && s->kind == TS_FOR)
		s = s->inner;
	return s && s->kind == TS_BLOCK ? s : NULL;
}

/* Does e read a variable bound now (outside the loops being entered)? */
static bool
uses_bound(T *t, const TExpr *e)
{
	if (!e)
		return false;
	if (e->kind == TE_VAR)
		return lookup(t, e->var) != NULL;
	if (uses_bound(t, e->a) || uses_bound(t, e->b) || uses_bound(t, e->c))
		return true;
	for (int i = 0; e->args && i < e->n; i++)
		if (uses_bound(t, e->args[i]))
			return true;
	return false;
}

/*
 * Can block b's T.init run once before loop s, the first of the loops
 * over its reduction variables? When every loop of the chain from s feeds
 * reduction variables only, and every reduction variable is bound from
 * those loops alone: then "every reduction variable at its minimum" is
 * the first iteration of the chain (TVM's reductions bind them
 * bijectively), and the loop body is left without the branch, so it
 * vectorizes. (Over an empty reduction the init runs: the result is the
 * reduction's identity rather than uninitialized memory.)
 */
static bool
init_hoistable(T *t, const TStmt *s, const TStmt *b)
{
	if (!b || !b->init || b->pred || b->nallocs || t->nhoisted == 16)
		return false;
	bool any = false;
	for (const TStmt *l = s; l->kind == TS_FOR; l = l->inner)
		for (int i = 0; i < b->niters; i++) {
			bool u = expr_uses(b->iters[i].value, l->var);
			if (u && b->iters[i].kind != TI_REDUCE)
				return false;
			any |= u;
		}
	for (int i = 0; i < b->niters; i++) {
		const TIter *it = &b->iters[i];
		if (!it->value)
			return false;
		if (it->kind == TI_REDUCE && uses_bound(t, it->value))
			return false;
		if (it->kind != TI_REDUCE && it->kind != TI_SPATIAL)
			return false;
	}
	return any;
}

/* Runs b's T.init now: spatial variables bound to their bindings, the
 * reduction ones to their minimum. */
static bool
run_init(T *t, const TStmt *b)
{
	int nv = t->nv;
	TirBoundsMark m = tir_bounds_mark(t->tb);
	for (int i = 0; i < b->niters; i++) {
		const TIter *it = &b->iters[i];
		LLVMValueRef v;
		if (it->kind == TI_REDUCE)
			v = it->min ? ex_as(t, it->min, it->var->ty)
				    : LLVMConstInt(vtype(t->k, it->var->ty), 0, 0);
		else
			v = ex_as(t, it->value, it->var->ty);
		if (!v)
			return false;
		bind(t, it->var, v);
		if (it->kind != TI_REDUCE)
			tir_bounds_let(t->tb, it->var, it->value);
		else if (it->min)
			tir_bounds_let(t->tb, it->var, it->min);
		else
			tir_bounds_point(t->tb, it->var, 0);
	}
	bool ok = st(t, b->init);
	tir_bounds_pop(t->tb, m);
	t->nv = nv;
	return ok;
}

/* ------------------------------------------------------ matrix products */

/* A matrix product found in a loop chain: C[bt.., i, j] (=) 0 at init,
 * C[bt.., i, j] += A[bt.., i, k] * B[bt.., k, j] (or B[bt.., j, k]). */
typedef struct {
	const TBuf *a, *b, *c;
	bool transb;
	int nb;          /* batch dims of C */
	bool abatch, bbatch; /* A, B have C's batch dims (else 2-D) */
} Mm;

static const TBuf *
strip_load(const TExpr *x, TType want, const TExpr **load)
{
	bool cast = false;
	if (x->kind == TE_CAST && x->ty == want) {
		x = x->a;
		cast = true;
	}
	if (x->kind != TE_LOAD || cg_gemm_dtype(x->buf->dtype) < 0 ||
	    (!cast && x->ty != want))
		return NULL;
	*load = x;
	return x->buf;
}

static bool
is_zero(const TExpr *x)
{
	if (x->kind == TE_CAST)
		x = x->a;
	return (x->kind == TE_FLOAT && x->f == 0) || (x->kind == TE_INT && x->i == 0);
}

/* Are the indices idx[0..n) exactly the variables vs[0..n)? */
static bool
idx_vars(TExpr *const *idx, int n, const TVar *const *vs)
{
	for (int i = 0; i < n; i++)
		if (idx[i]->kind != TE_VAR || idx[i]->var != vs[i])
			return false;
	return true;
}

/*
 * Is the loop chain from s a matrix product rlx_gemm can run? Every loop
 * of the chain serial from 0, over a variable binding exactly one
 * iteration variable of the block, its extent the dim it runs over; the
 * block unpredicated, without allocations, its init storing 0 into C,
 * its body C[s..] = C[s..] + A[..] * B[..] with float32, float16 or
 * bfloat16 buffers (casts to C's dtype allowed on A and B).
 */
static bool
match_gemm(const TStmt *s, Mm *mm)
{
	const TStmt *b = chain_block(s);
	if (!b || !b->init || b->pred || b->nallocs || b->niters > MAXD + 1)
		return false;
	const TVar *loopv[MAXD + 1];
	const TExpr *loopx[MAXD + 1];
	int nl = 0;
	for (const TStmt *l = s; l->kind == TS_FOR; l = l->inner) {
		if (nl == MAXD + 1 || l->for_kind == TF_VECTORIZED ||
		    !(l->min->kind == TE_INT && l->min->i == 0))
			return false;
		loopv[nl] = l->var;
		loopx[nl++] = l->extent;
	}
	if (nl != b->niters)
		return false;
	/* the iteration variables: spatial ones in order, one reduction */
	const TVar *sp[MAXD];
	const TExpr *spx[MAXD];
	int ns = 0;
	const TVar *rv = NULL;
	const TExpr *rx = NULL;
	for (int i = 0; i < b->niters; i++) {
		const TIter *it = &b->iters[i];
		if (!it->value || it->value->kind != TE_VAR ||
		    (it->min && !is_zero(it->min)))
			return false;
		int l = 0;
		while (l < nl && loopv[l] != it->value->var)
			l++;
		if (l == nl)
			return false;
		if (it->kind == TI_SPATIAL && ns < MAXD) {
			sp[ns] = it->var;
			spx[ns++] = loopx[l];
		} else if (it->kind == TI_REDUCE && !rv) {
			rv = it->var;
			rx = loopx[l];
		} else {
			return false;
		}
	}
	if (!rv || ns < 2 || ns - 2 > RTG_MAXB)
		return false;
	/* init: C[sp] = 0 */
	const TStmt *in = b->init;
	if (in->kind == TS_SEQ && in->n == 1)
		in = in->body[0];
	if (in->kind != TS_STORE || in->nidx != ns || !idx_vars(in->idx, ns, sp) ||
	    !is_zero(in->value))
		return false;
	const TBuf *c = in->buf;
	if (cg_gemm_dtype(c->dtype) < 0 || c->ndim != ns)
		return false;
	for (int i = 0; i < ns; i++)
		if (!tir_expr_same(c->shape[i], spx[i]))
			return false;
	/* body: C[sp] = C[sp] + X * Y */
	const TStmt *bd = b->inner;
	if (bd->kind == TS_SEQ && bd->n == 1)
		bd = bd->body[0];
	if (bd->kind != TS_STORE || bd->buf != c || bd->nidx != ns ||
	    !idx_vars(bd->idx, ns, sp) || bd->value->kind != TE_ADD)
		return false;
	const TExpr *acc = bd->value->a, *prod = bd->value->b;
	if (prod->kind == TE_LOAD && prod->buf == c) {
		const TExpr *tmp = acc;
		acc = prod;
		prod = tmp;
	}
	if (acc->kind != TE_LOAD || acc->buf != c || !idx_vars(acc->args, ns, sp) ||
	    prod->kind != TE_MUL)
		return false;
	const TExpr *xa, *xb;
	const TBuf *ba = strip_load(prod->a, (TType)c->dtype, &xa);
	const TBuf *bb = strip_load(prod->b, (TType)c->dtype, &xb);
	if (!ba || !bb || ba == c || bb == c)
		return false;
	int nb = ns - 2;
	const TVar *vi = sp[nb], *vj = sp[nb + 1];
	/* A[bt.., i, k]; B[bt.., k, j] or B[bt.., j, k]; either may be the
	 * other way round in the product */
	for (int swap = 0; swap < 2; swap++) {
		const TExpr *la = swap ? xb : xa, *lb = swap ? xa : xb;
		const TBuf *A = la->buf, *B = lb->buf;
		bool ab = A->ndim == ns, bbt = B->ndim == ns;
		if ((A->ndim != 2 && !ab) || (B->ndim != 2 && !bbt))
			continue;
		if (ab && !idx_vars(la->args, nb, sp))
			continue;
		if (bbt && !idx_vars(lb->args, nb, sp))
			continue;
		TExpr *const *ia = la->args + (ab ? nb : 0);
		TExpr *const *ib = lb->args + (bbt ? nb : 0);
		const TVar *ik[2] = {vi, rv};
		if (!idx_vars(ia, 2, ik))
			continue;
		const TVar *kj[2] = {rv, vj}, *jk[2] = {vj, rv};
		bool tb;
		if (idx_vars(ib, 2, kj))
			tb = false;
		else if (idx_vars(ib, 2, jk))
			tb = true;
		else
			continue;
		/* the reduction runs over A's last dim; i, j over C's, and
		 * over A's and B's (rlx_gemm reads them all: they must be
		 * the loops' extents) */
		if (!tir_expr_same(A->shape[A->ndim - 1], rx) ||
		    !tir_expr_same(B->shape[B->ndim - (tb ? 1 : 2)], rx) ||
		    !tir_expr_same(A->shape[A->ndim - 2], spx[nb]) ||
		    !tir_expr_same(B->shape[B->ndim - (tb ? 2 : 1)], spx[nb + 1]))
			continue;
		bool same = true;
		for (int d = 0; d < nb; d++)
			same = same && (!ab || tir_expr_same(A->shape[d], spx[d])) &&
			       (!bbt || tir_expr_same(B->shape[d], spx[d]));
		if (!same)
			continue;
		*mm = (Mm){A, B, c, tb, nb, ab, bbt};
		return true;
	}
	return false;
}

/* Can rlx_gemm read mm's buffers as they are laid out? A and C must be
 * in C order; a B given swapped (the input of its transpose) is read with
 * transb the other way round. */
static bool
gemm_layout(T *t, Mm *mm)
{
	const TBufB *a = find_buf(t, mm->a), *b = find_buf(t, mm->b), *c = find_buf(t, mm->c);
	if (!a || !b || !c || a->swapped || c->swapped)
		return false;
	if (b->swapped)
		mm->transb = !mm->transb;
	return true;
}

/* Runs the matrix product mm with rlx_gemm (f32 sums, rounded once):
 * when the loops have work; else the loops as written (an empty product
 * is the init's zeros). */
static bool
st_gemm(T *t, const TStmt *s, const Mm *mm)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	TBufB *A = need_buf(t, mm->a, s->span), *B = need_buf(t, mm->b, s->span);
	TBufB *C = need_buf(t, mm->c, s->span);
	if (!A || !B || !C)
		return false;
	const TBuf *c = mm->c;
	LLVMValueRef cd[MAXD];
	for (int i = 0; i < c->ndim; i++)
		if (!(cd[i] = ex_i64(t, c->shape[i])))
			return false;
	LLVMValueRef Kd = ex_i64(t, mm->a->shape[mm->a->ndim - 1]);
	if (!Kd)
		return false;
	LLVMValueRef M = cd[mm->nb], N = cd[mm->nb + 1];
	LLVMValueRef work = cg_mul(k, cg_mul(k, M, N), Kd);
	for (int i = 0; i < mm->nb; i++)
		work = cg_mul(k, work, cd[i]);
	LLVMBasicBlockRef bg = LLVMAppendBasicBlockInContext(k->c, k->fn, "gemm");
	LLVMBasicBlockRef bl = LLVMAppendBasicBlockInContext(k->c, k->fn, "gemm.loops");
	LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(k->c, k->fn, "gemm.join");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, work, cg_ci(k, 0), ""), bg, bl);
	LLVMPositionBuilderAtEnd(b, bg);
	LLVMValueRef g = cg_slot(k, k->i64, RTG_SLOTS);
	LLVMTypeRef gt = LLVMArrayType2(k->i64, RTG_SLOTS);
#define FIELD(i, v) do { \
		LLVMValueRef ix[2] = {cg_ci(k, 0), cg_ci(k, (i))}; \
		LLVMBuildStore(b, (v), LLVMBuildInBoundsGEP2(b, gt, g, ix, 2, "")); \
	} while (0)
	FIELD(RTG_M, M);
	FIELD(RTG_N, N);
	FIELD(RTG_K, Kd);
	FIELD(RTG_A, A->ptr);
	FIELD(RTG_B, B->ptr);
	FIELD(RTG_C, C->ptr);
	FIELD(RTG_ADT, cg_ci(k, cg_gemm_dtype(mm->a->dtype)));
	FIELD(RTG_BDT, cg_ci(k, cg_gemm_dtype(mm->b->dtype)));
	FIELD(RTG_CDT, cg_ci(k, cg_gemm_dtype(c->dtype)));
	FIELD(RTG_TRANSB, cg_ci(k, mm->transb));
	FIELD(RTG_NB, cg_ci(k, mm->nb));
	FIELD(RTG_BSCALE, cg_ci(k, 0));
	FIELD(RTG_BGROUP, cg_ci(k, 0));
	for (int j = 0; j < mm->nb; j++) {
		FIELD(RTG_BDIM + j, cd[j]);
		FIELD(RTG_AS + j, mm->abatch ? A->st[j] : cg_ci(k, 0));
		FIELD(RTG_BS + j, mm->bbatch ? B->st[j] : cg_ci(k, 0));
	}
#undef FIELD
	LLVMTypeRef pt[3] = {k->ptr, k->i64, k->ptr};
	LLVMTypeRef ft = LLVMFunctionType(k->vd, pt, 3, false);
	LLVMValueRef fn = LLVMGetNamedFunction(k->mod, "rlx_gemm");
	if (!fn)
		fn = LLVMAddFunction(k->mod, "rlx_gemm", ft);
	LLVMValueRef args[3] = {k->pool, cg_ci(k, k->gemm_isa), g};
	LLVMBuildCall2(b, ft, fn, args, 3, "");
	LLVMBuildBr(b, bj);
	LLVMPositionBuilderAtEnd(b, bl);
	t->no_gemm++;
	bool ok = st_for(t, s);
	t->no_gemm--;
	if (!ok)
		return false;
	LLVMBuildBr(b, bj);
	LLVMPositionBuilderAtEnd(b, bj);
	return true;
}

/* ------------------------------------------------- transposing copies */

enum { TILE = 16 }; /* a transposing copy runs TILE x TILE elements at a time */

/* Does e load with vj as its last index and vl in another (a read that
 * strides along vl)? */
static bool
strided_load(const TExpr *e, const TVar *vj, const TVar *vl)
{
	if (!e)
		return false;
	if (e->kind == TE_LOAD && e->n >= 2) {
		const TExpr *last = e->args[e->n - 1];
		if (last->kind == TE_VAR && last->var == vj)
			for (int i = 0; i < e->n - 1; i++)
				if (expr_uses(e->args[i], vl))
					return true;
	}
	if (strided_load(e->a, vj, vl) || strided_load(e->b, vj, vl) ||
	    strided_load(e->c, vj, vl))
		return true;
	for (int i = 0; e->args && i < e->n; i++)
		if (strided_load(e->args[i], vj, vl))
			return true;
	return false;
}

/*
 * Is loop s (over j) a transposing copy: its body a loop over l whose
 * body is one spatial block (no init, T.where or allocation) binding j
 * and l to iteration variables vj and vl as they are, storing with vl as
 * its last index and loading with vj as a last index and vl in another
 * (T_transpose[v0, v1] = A[v1, v0], topi's 2-D transpose; also
 * [1, 2, 0] of 3-D)? Run as written, each load of the inner loop is in
 * another row of A (another page, once rows are 4 KiB); in TILE x TILE
 * tiles the rows a tile reads stay in L1. Reordering the iterations is
 * TVM's promise for spatial blocks (distinct values write distinct
 * elements), as for the parallel split.
 */
static bool
tile_ok(const TStmt *s)
{
	const TStmt *l = s->inner;
	if (s->kind != TS_FOR || s->for_kind != TF_SERIAL || !l || l->kind != TS_FOR ||
	    l->for_kind != TF_SERIAL || expr_uses(l->min, s->var) ||
	    expr_uses(l->extent, s->var))
		return false;
	const TStmt *b = l->inner;
	if (!b || b->kind != TS_BLOCK || b->init || b->pred || b->nallocs)
		return false;
	const TVar *vj = NULL, *vl = NULL;
	for (int i = 0; i < b->niters; i++) {
		const TIter *it = &b->iters[i];
		if (it->kind != TI_SPATIAL || !it->value)
			return false;
		if (it->value->kind == TE_VAR && it->value->var == s->var)
			vj = it->var;
		else if (it->value->kind == TE_VAR && it->value->var == l->var)
			vl = it->var;
		else if (expr_uses(it->value, s->var) || expr_uses(it->value, l->var))
			return false;
	}
	const TStmt *x = b->inner;
	if (x && x->kind == TS_SEQ && x->n == 1)
		x = x->body[0];
	if (!vj || !vl || !x || x->kind != TS_STORE || x->nidx < 1)
		return false;
	const TExpr *last = x->idx[x->nidx - 1];
	return last->kind == TE_VAR && last->var == vl && strided_load(x->value, vj, vl);
}

/* The block statement of a transposing copy s (tile_ok): its store. */
static const TStmt *
tile_store(const TStmt *s)
{
	const TStmt *x = s->inner->inner->inner;
	return x->kind == TS_SEQ ? x->body[0] : x;
}

/* The load a transposing copy s stores as it is (a copy of an element of
 * 1, 2 or 4 bytes, same dtype), else NULL: its full tiles are then moved
 * as TILE vectors. */
static const TExpr *
tile_copy(const TStmt *s)
{
	const TStmt *x = tile_store(s);
	const TExpr *v = x->value;
	int bytes = (dtype_bits(x->buf->dtype) + 7) / 8;
	if (v->kind != TE_LOAD || v->buf->dtype != x->buf->dtype || x->buf->dtype == DT_BOOL ||
	    (bytes != 1 && bytes != 2 && bytes != 4))
		return NULL;
	return v;
}

/* The element offsets of the load x and of the store of transposing copy
 * s at j, i (i64) for its loops' variables: the block's iteration
 * variables bound from them. */
static bool
tile_offsets(T *t, const TStmt *s, const TExpr *x, LLVMValueRef j, LLVMValueRef i,
	     LLVMValueRef *loff, LLVMValueRef *soff)
{
	KernelBuilder *k = t->k;
	const TStmt *l = s->inner, *b = l->inner, *st_ = tile_store(s);
	int nv = t->nv;
	bind(t, s->var, LLVMBuildTrunc(k->b, j, vtype(k, s->var->ty), ""));
	bind(t, l->var, LLVMBuildTrunc(k->b, i, vtype(k, l->var->ty), ""));
	for (int q = 0; q < b->niters; q++) {
		LLVMValueRef v = ex_as(t, b->iters[q].value, b->iters[q].var->ty);
		if (!v)
			return false;
		bind(t, b->iters[q].var, v);
	}
	TBufB *ib = need_buf(t, x->buf, x->span), *ob = need_buf(t, st_->buf, st_->span);
	LLVMValueRef base; /* the buffer's own: tile_proven holds */
	*loff = ib ? offset(t, ib, x->args, x->n, x->span, &base) : NULL;
	*soff = ob && *loff ? offset(t, ob, st_->idx, st_->nidx, st_->span, &base) : NULL;
	t->nv = nv;
	return *soff != NULL;
}

/* A full TILE x TILE tile of the copy s at j0, i0: TILE vector loads
 * along j (a row of the input each), transposed in registers (for d =
 * TILE/2 .. 1, rows r and r + d swap their off-diagonal d-blocks, one
 * two-input shuffle per row), TILE vector stores along i. */
static bool
tile_vectors(T *t, const TStmt *s, const TExpr *x, LLVMValueRef j0, LLVMValueRef i0)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	unsigned bytes = (unsigned)(dtype_bits(x->buf->dtype) + 7) / 8;
	LLVMTypeRef et = LLVMIntTypeInContext(k->c, bytes * 8);
	LLVMTypeRef vt = LLVMVectorType(et, TILE);
	TBufB *ib = find_buf(t, x->buf), *ob = find_buf(t, tile_store(s)->buf);
	LLVMValueRef r[TILE], lo, so;
	for (int v = 0; v < TILE; v++) {
		if (!tile_offsets(t, s, x, j0, cg_add(k, i0, cg_ci(k, v)), &lo, &so))
			return false;
		r[v] = LLVMBuildLoad2(b, vt, LLVMBuildInBoundsGEP2(b, et, ib->ptr, &lo, 1, ""), "");
		LLVMSetAlignment(r[v], bytes);
	}
	for (int d = TILE / 2; d >= 1; d /= 2) {
		LLVMValueRef ma[TILE], mb[TILE];
		for (int p = 0; p < TILE; p++) {
			ma[p] = LLVMConstInt(k->i32, (unsigned)((p & d) ? TILE + p - d : p), 0);
			mb[p] = LLVMConstInt(k->i32, (unsigned)((p & d) ? TILE + p : p + d), 0);
		}
		LLVMValueRef mav = LLVMConstVector(ma, TILE), mbv = LLVMConstVector(mb, TILE);
		for (int v = 0; v < TILE; v++) {
			if (v & d)
				continue;
			LLVMValueRef a = r[v], c = r[v + d];
			r[v] = LLVMBuildShuffleVector(b, a, c, mav, "");
			r[v + d] = LLVMBuildShuffleVector(b, a, c, mbv, "");
		}
	}
	for (int v = 0; v < TILE; v++) {
		if (!tile_offsets(t, s, x, cg_add(k, j0, cg_ci(k, v)), i0, &lo, &so))
			return false;
		LLVMValueRef st_ = LLVMBuildStore(b, r[v],
			LLVMBuildInBoundsGEP2(b, et, ob->ptr, &so, 1, ""));
		LLVMSetAlignment(st_, bytes);
	}
	return true;
}

/* Are the load x and the store of transposing copy s proven inside their
 * buffers (tir_bounds.c; its loops and block registered)? A vector moves
 * TILE elements from one index computed: only proven indices may. */
static bool
tile_proven(T *t, const TStmt *s, const TExpr *x)
{
	const TStmt *st_ = tile_store(s);
	for (int i = 0; i < x->n && i < x->buf->ndim; i++)
		if (!tir_bounds_inside(t->tb, x->args[i], x->buf->shape[i]))
			return false;
	for (int i = 0; i < st_->nidx && i < st_->buf->ndim; i++)
		if (!tir_bounds_inside(t->tb, st_->idx[i], st_->buf->shape[i]))
			return false;
	return x->n == x->buf->ndim && st_->nidx == st_->buf->ndim;
}

/* The transposing copy s (tile_ok) over j in [jlo, jhi): tiles of TILE
 * j by TILE l, j outer in a tile, l inner (the stores contiguous); a full
 * tile of a plain copy as vectors (tile_vectors). */
static bool
st_tiled(T *t, const TStmt *s, LLVMValueRef jlo, LLVMValueRef jhi)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	const TStmt *l = s->inner;
	LLVMValueRef llo = ex_as(t, l->min, l->var->ty);
	LLVMValueRef lext = llo ? ex_as(t, l->extent, l->var->ty) : NULL;
	if (!lext)
		return false;
	LLVMValueRef j0 = LLVMBuildSExt(b, jlo, k->i64, "");
	LLVMValueRef j1 = LLVMBuildSExt(b, jhi, k->i64, "");
	LLVMValueRef l0 = LLVMBuildSExt(b, llo, k->i64, "");
	LLVMValueRef l1 = cg_add(k, l0, LLVMBuildSExt(b, lext, k->i64, ""));
	LLVMValueRef tile = cg_ci(k, TILE);
#define TILES(lo, hi) LLVMBuildSDiv(b, cg_add(k, LLVMBuildSub(b, hi, lo, ""), \
					    cg_ci(k, TILE - 1)), tile, "")
	Loop lj, ll, li, lk;
	LLVMValueRef jt = cg_loop_begin(k, &lj, TILES(j0, j1));
	LLVMValueRef ja = cg_add(k, j0, cg_mul(k, jt, tile));
	LLVMValueRef jb = cg_imin(k, cg_add(k, ja, tile), j1);
	LLVMValueRef lt = cg_loop_begin(k, &ll, TILES(l0, l1));
	LLVMValueRef la = cg_add(k, l0, cg_mul(k, lt, tile));
	LLVMValueRef lb = cg_imin(k, cg_add(k, la, tile), l1);
#undef TILES
	/* what the bounds know over the loops (j runs in a part of s's range) */
	TirBoundsMark m = tir_bounds_mark(t->tb);
	tir_bounds_loop(t->tb, s->var, s->min, s->extent);
	tir_bounds_loop(t->tb, l->var, l->min, l->extent);
	for (int q = 0; q < l->inner->niters; q++)
		tir_bounds_let(t->tb, l->inner->iters[q].var, l->inner->iters[q].value);
	const TExpr *cp = tile_copy(s);
	const TBufB *cb = cp ? find_buf(t, cp->buf) : NULL;
	if (cp && (!tile_proven(t, s, cp) || !cb || cb->swapped))
		cp = NULL; /* vectors move rows of C-order buffers */
	LLVMBasicBlockRef join = NULL;
	if (cp) { /* a full tile: vectors; else element by element */
		LLVMBasicBlockRef bv = LLVMAppendBasicBlockInContext(k->c, k->fn, "tile.v");
		LLVMBasicBlockRef be = LLVMAppendBasicBlockInContext(k->c, k->fn, "tile.e");
		join = LLVMAppendBasicBlockInContext(k->c, k->fn, "tile.j");
		LLVMValueRef full = LLVMBuildAnd(b,
			LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildSub(b, jb, ja, ""), tile, ""),
			LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildSub(b, lb, la, ""), tile, ""), "");
		LLVMBuildCondBr(b, full, bv, be);
		LLVMPositionBuilderAtEnd(b, bv);
		if (!tile_vectors(t, s, cp, ja, la))
			return false;
		LLVMBuildBr(b, join);
		LLVMPositionBuilderAtEnd(b, be);
	}
	LLVMValueRef j = cg_loop_from(k, &li, ja, jb);
	int nv = t->nv, nb = t->nb, nh = t->nh;
	bind(t, s->var, LLVMBuildTrunc(b, j, vtype(k, s->var->ty), ""));
	LLVMValueRef i = cg_loop_from(k, &lk, la, lb);
	bind(t, l->var, LLVMBuildTrunc(b, i, vtype(k, l->var->ty), ""));
	if (!st(t, l->inner))
		return false;
	free_to(t, nh);
	t->nv = nv;
	t->nb = nb;
	cg_loop_end(k, &lk);
	cg_loop_end(k, &li);
	if (join) {
		LLVMBuildBr(b, join);
		LLVMPositionBuilderAtEnd(b, join);
	}
	cg_loop_end(k, &ll);
	cg_loop_end(k, &lj);
	tir_bounds_pop(t->tb, m);
	return true;
}

static bool st_for_loop(T *t, const TStmt *s);

static bool
st_for(T *t, const TStmt *s)
{
	Mm mm;
	if (!t->no_gemm && match_gemm(s, &mm) && gemm_layout(t, &mm))
		return st_gemm(t, s, &mm);
	const TStmt *b = chain_block(s);
	if (!init_hoistable(t, s, b))
		return st_for_loop(t, s);
	if (!run_init(t, b))
		return false;
	t->hoisted[t->nhoisted++] = b;
	bool ok = st_for_loop(t, s);
	t->nhoisted--;
	return ok;
}

static bool
st_for_loop(T *t, const TStmt *s)
{
	KernelBuilder *k = t->k;
	LLVMBuilderRef b = k->b;
	if (!is_int(s->var->ty) || s->var->ty == DT_BOOL)
		return refuse(t, s->span, "a loop over a %s variable", tir_type_name(s->var->ty));
	LLVMValueRef lo = ex_as(t, s->min, s->var->ty);
	LLVMValueRef ext = lo ? ex_as(t, s->extent, s->var->ty) : NULL;
	if (!ext)
		return false;
	LLVMTypeRef vt = LLVMTypeOf(lo);
	if (t->par_depth == 0 && parallel_ok(s)) {
		LLVMValueRef n64 = LLVMBuildSExt(b, ext, k->i64, "");
		LLVMValueRef work = cg_mul(k, n64, work_of(t, s->inner, 0));
		LLVMValueRef big = LLVMBuildAnd(b,
			LLVMBuildICmp(b, LLVMIntSGT, n64, cg_ci(k, 1), ""),
			LLVMBuildICmp(b, LLVMIntSGE, work, cg_ci(k, PAR_MIN), ""), "");
		t->par_depth++;
		bool ok = st_par_for(t, s, lo, ext, big);
		t->par_depth--;
		return ok;
	}
	LLVMValueRef hi = LLVMBuildNSWAdd(b, lo, ext, "");
	if (tile_ok(s))
		return st_tiled(t, s, lo, hi);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(k->c, k->fn, "tbody");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(k->c, k->fn, "texit");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, lo, hi, ""), body, exit);
	LLVMPositionBuilderAtEnd(b, body);
	LLVMValueRef i = LLVMBuildPhi(b, vt, "ti");
	LLVMAddIncoming(i, &lo, &pre, 1);
	if (!st_loop_body(t, s, i))
		return false;
	LLVMValueRef next = LLVMBuildNSWAdd(b, i, LLVMConstInt(vt, 1, 0), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
	LLVMAddIncoming(i, &next, &latch, 1);
	LLVMValueRef br = LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, next, hi, ""),
					  body, exit);
	if (s->for_kind == TF_VECTORIZED || s->for_kind == TF_UNROLL)
		loop_hint(k, br, s->for_kind, s->extent->kind == TE_INT && s->extent->i <= 64);
	LLVMPositionBuilderAtEnd(b, exit);
	return true;
}

/* ---------------------------------------------------------- statements */

/* Runs then_ under cond c, else_ (when not NULL) otherwise (c an i1; cx
 * its expression when it has one: known to hold in then_, not to hold in
 * else_): a branch around them. */
static bool
guarded(T *t, LLVMValueRef c, const TExpr *cx, const TStmt *then_, const TStmt *else_)
{
	KernelBuilder *k = t->k;
	LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(k->c, k->fn, "if.then");
	LLVMBasicBlockRef bf = else_ ? LLVMAppendBasicBlockInContext(k->c, k->fn, "if.else") : NULL;
	LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(k->c, k->fn, "if.join");
	LLVMBuildCondBr(k->b, c, bt, bf ? bf : bj);
	LLVMPositionBuilderAtEnd(k->b, bt);
	TirBoundsMark m = tir_bounds_mark(t->tb);
	tir_bounds_assume(t->tb, cx, true);
	bool ok = st(t, then_);
	tir_bounds_pop(t->tb, m);
	if (!ok)
		return false;
	LLVMBuildBr(k->b, bj);
	if (bf) {
		LLVMPositionBuilderAtEnd(k->b, bf);
		tir_bounds_assume(t->tb, cx, false);
		ok = st(t, else_);
		tir_bounds_pop(t->tb, m);
		if (!ok)
			return false;
		LLVMBuildBr(k->b, bj);
	}
	LLVMPositionBuilderAtEnd(k->b, bj);
	return true;
}

/* A block realize: iteration variables bound, T.where around it, T.init
 * when every reduction variable is at its minimum, its allocations
 * scratch for its extent. */
static bool
st_block(T *t, const TStmt *s)
{
	KernelBuilder *k = t->k;
	int nv = t->nv, nb = t->nb, nh = t->nh;
	TirBoundsMark m = tir_bounds_mark(t->tb);
	for (int i = 0; i < s->niters; i++) {
		const TIter *it = &s->iters[i];
		if (!it->value) {
			if (!lookup(t, it->var))
				return refuse(t, it->span, "block iteration variable %s has "
					      "no binding", it->var->name);
			continue;
		}
		LLVMValueRef v = ex_as(t, it->value, it->var->ty);
		if (!v)
			return false;
		bind(t, it->var, v);
		tir_bounds_let(t->tb, it->var, it->value);
	}
	tir_bounds_assume(t->tb, s->pred, true);
	LLVMBasicBlockRef skip = NULL;
	if (s->pred) {
		LLVMValueRef c = ex_as(t, s->pred, DT_BOOL);
		if (!c)
			return false;
		LLVMBasicBlockRef in = LLVMAppendBasicBlockInContext(k->c, k->fn, "where");
		skip = LLVMAppendBasicBlockInContext(k->c, k->fn, "where.skip");
		LLVMBuildCondBr(k->b, c, in, skip);
		LLVMPositionBuilderAtEnd(k->b, in);
	}
	for (int i = 0; i < s->nallocs; i++)
		if (!scratch(t, s->allocs[i]))
			return false;
	bool hoisted = false;
	for (int i = 0; i < t->nhoisted; i++)
		hoisted |= t->hoisted[i] == s;
	bool reduce = false;
	for (int i = 0; i < s->niters; i++)
		reduce |= s->iters[i].kind == TI_REDUCE;
	if (s->init && !hoisted) {
		LLVMValueRef c = LLVMConstInt(k->i1, 1, 0);
		for (int i = 0; i < s->niters; i++) {
			const TIter *it = &s->iters[i];
			if (it->kind != TI_REDUCE)
				continue;
			LLVMValueRef v = lookup(t, it->var);
			LLVMValueRef mn = it->min ? ex_as(t, it->min, it->var->ty)
					  : LLVMConstInt(LLVMTypeOf(v), 0, 0);
			if (!mn)
				return false;
			c = LLVMBuildAnd(k->b, c, LLVMBuildICmp(k->b, LLVMIntEQ, v, mn, ""), "");
		}
		if (!guarded(t, c, NULL, s->init, NULL))
			return false;
	}
	bool ra = t->reassoc;
	t->reassoc = reduce && s->init;
	bool ok = st(t, s->inner);
	t->reassoc = ra;
	if (!ok)
		return false;
	free_to(t, nh);
	if (skip) {
		LLVMBuildBr(k->b, skip);
		LLVMPositionBuilderAtEnd(k->b, skip);
	}
	tir_bounds_pop(t->tb, m);
	t->nv = nv;
	t->nb = nb;
	return true;
}

static bool
st(T *t, const TStmt *s)
{
	KernelBuilder *k = t->k;
	if (!s)
		return true;
	switch (s->kind) {
	case TS_SEQ:
		for (int i = 0; i < s->n; i++)
			if (!st(t, s->body[i]))
				return false;
		return true;
	case TS_FOR:
		return st_for(t, s);
	case TS_BLOCK:
		return st_block(t, s);
	case TS_STORE: {
		TBufB *bb = need_buf(t, s->buf, s->span);
		LLVMValueRef v = bb ? ex_as(t, s->value, s->buf->dtype) : NULL;
		LLVMValueRef base;
		LLVMValueRef off = v ? offset(t, bb, s->idx, s->nidx, s->span, &base) : NULL;
		if (!off)
			return false;
		store(t, bb, base, off, v);
		return true;
	}
	case TS_LET: {
		if (s->var->ty == TT_HANDLE)
			return refuse(t, s->span, "a let of handle %s", s->var->name);
		LLVMValueRef v = ex_as(t, s->value, s->var->ty);
		if (!v)
			return false;
		int nv = t->nv;
		TirBoundsMark m = tir_bounds_mark(t->tb);
		bind(t, s->var, v);
		tir_bounds_let(t->tb, s->var, s->value);
		bool ok = st(t, s->inner);
		tir_bounds_pop(t->tb, m);
		t->nv = nv;
		return ok;
	}
	case TS_IF: {
		LLVMValueRef c = ex_as(t, s->cond, DT_BOOL);
		return c && guarded(t, c, s->cond, s->inner, s->else_);
	}
	case TS_EVAL:
		if (s->value->kind == TE_INT || s->value->kind == TE_FLOAT)
			return true;
		return ex(t, s->value) != NULL;
	case TS_ATTR:
		return st(t, s->inner);
	case TS_ALLOC: {
		int nb = t->nb, nh = t->nh;
		if (s->nallocs < 1 || !scratch(t, s->allocs[0]))
			return s->nallocs < 1 ? refuse(t, s->span, "%s", "an allocation without a buffer")
					      : false;
		if (!st(t, s->inner))
			return false;
		free_to(t, nh);
		t->nb = nb;
		return true;
	}
	case TS_ASSERT:
		return refuse(t, s->span, "%s", "assert is not run by rlx");
	}
	(void)k;
	ir_bug("TStmt kind %d", s->kind);
}

/* ------------------------------------------------------------ the kernel */

/* The kernel's body: buffer parameters bound to the impl's pointers,
 * symbolic variables to their first bare dim, scalars to the words after
 * the dims; the root allocations; the body. */
static bool
gen_tir(KernelBuilder *k, void *ctx)
{
	T *t = ctx;
	const PrimFunc *f = t->f;
	t->k = k;
	if (f->ret != DT_UNKNOWN)
		return refuse(t, f->span, "%s returns a value (rlx runs prim_funcs "
			      "that write their buffers)", f->name);
	LLVMValueRef dims = LLVMGetParam(k->fn, (unsigned)(k->nin + k->nout));
	int bi = 0, off = 0;
	for (int i = 0; i < f->nparams; i++) {
		const TBuf *b = f->params[i].buf;
		if (!b)
			continue;
		if (b->ndim > MAXD)
			return refuse(t, b->span, "buffer %s has more than 8 dimensions",
				      b->name);
		TBufB *bb = push_buf(t, b);
		bb->ptr = LLVMGetParam(k->fn, (unsigned)bi++);
		bb->swapped = i < 64 && (t->swap >> i & 1) && b->ndim >= 2;
		for (int j = 0; j < b->ndim; j++, off++) {
			const TExpr *x = b->shape[j];
			if (x->kind != TE_VAR || lookup(t, x->var))
				continue;
			if (!is_int(x->var->ty))
				return refuse(t, x->span, "shape variable %s is not an integer",
					      x->var->name);
			LLVMValueRef o = cg_ci(k, off);
			LLVMValueRef v = LLVMBuildLoad2(k->b, k->i64,
				LLVMBuildInBoundsGEP2(k->b, k->i64, dims, &o, 1, ""), "");
			bind(t, x->var, cvt(k, v, DT_I64, x->var->ty));
			tir_bounds_dim(t->tb, x->var);
		}
	}
	/* the index record: a pseudo-buffer, so outlined bodies get it */
	t->recb = (TBuf){.name = "(index record)", .dtype = DT_I8, .ndim = 0};
	push_buf(t, &t->recb)->ptr = LLVMGetParam(k->fn, (unsigned)bi);
	for (int i = 0; i < f->nparams; i++) {
		const TVar *v = f->params[i].var;
		/* a handle no buffer matches: the body cannot read it (a
		 * stub's), it takes no dim */
		if (f->params[i].buf || v->ty == TT_HANDLE)
			continue;
		LLVMValueRef o = cg_ci(k, off++);
		LLVMValueRef w = LLVMBuildLoad2(k->b, k->i64,
			LLVMBuildInBoundsGEP2(k->b, k->i64, dims, &o, 1, ""), "");
		if (is_float(v->ty))
			w = cvt(k, LLVMBuildBitCast(k->b, w, k->f64, ""), DT_F64, v->ty);
		else
			w = cvt(k, w, DT_I64, v->ty);
		bind(t, v, w);
		if (is_int(v->ty))
			tir_bounds_sym(t->tb, v);
	}
	/* strides once every variable is bound */
	for (int i = 0; i < t->nb; i++)
		if (!buf_strides(t, &t->bufs[i], NULL))
			return false;
	for (int i = 0; i < f->nroot_allocs; i++)
		if (!scratch(t, f->root_allocs[i]))
			return false;
	if (!st(t, f->body))
		return false;
	free_to(t, 0);
	return true;
}

/* The kernel of f with the buffer parameters of mask swap given swapped
 * (cg_tir_fused_kernel; 0: cg_tir_kernel). */
static CgKernel *
tir_kernel(Codegen *cg, Module *m, const PrimFunc *f, uint64_t swap, Diags *d)
{
	StrBuf key = {0};
	sb_puts(&key, "tir\n");
	if (swap) { /* the fold is part of what the kernel computes */
		sb_puts(&key, "swapped");
		for (int i = 0; i < 64; i++)
			if (swap >> i & 1)
				sb_printf(&key, " %d", i);
		sb_putc(&key, '\n');
	}
	print_prim_func(&key, f, 0, TIR_MAIN);
	char *ks = sb_take(&key);
	CgKernel *have = cg_find(cg, ks);
	if (have) {
		free(ks);
		return have;
	}
	KernelBuilder k;
	cg_k_init(cg, &k, m, d);
	int nbuf = 0, ndims = 0;
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].buf) {
			nbuf++;
			ndims += f->params[i].buf->ndim;
		} else if (f->params[i].var->ty != TT_HANDLE) {
			ndims++;
		}
	if (nbuf > MAXBUF) {
		diag_error(d, f->span, "prim_func %s: more than %d buffers", f->name, MAXBUF);
		LLVMDisposeBuilder(k.b);
		free(ks);
		return NULL;
	}
	k.nin = nbuf;
	k.nout = 1; /* the RlxIndexRec */
	char what[96], name[128];
	snprintf(what, sizeof what, "tir_%s", f->name);
	cg_kernel_name(cg, what, name, sizeof name);
	T t = {.f = f, .swap = swap, .name = name, .tb = tir_bounds_new()};
	bool ok = cg_build(&k, name, gen_tir, &t);
	LLVMDisposeBuilder(k.b);
	free(t.vars);
	free(t.bufs);
	free(t.heap);
	tir_bounds_free(t.tb);
	if (!ok) {
		for (int i = 0; i < t.nouts && i < 64; i++)
			LLVMDeleteFunction(t.outs[i]);
		for (int i = 0; i < t.nbody; i++)
			LLVMDeleteFunction(t.bodies[i]);
		free(t.sites);
		free(ks);
		return NULL;
	}
	CgKernel *kn = cg_register(cg, &k, ks, name, ndims);
	kn->sites = t.sites;
	kn->nsites = t.nsites;
	return kn;
}

CgKernel *
cg_tir_kernel(Codegen *cg, Module *m, const PrimFunc *f, Diags *d)
{
	return tir_kernel(cg, m, f, 0, d);
}

const PrimFunc *
cg_tir_callee(const Module *m, const Expr *e)
{
	if (!e || e->kind != E_CALL || e->call.op != OP_CALL_TIR || e->call.nargs < 2 ||
	    e->call.args[0]->kind != E_GLOBAL)
		return NULL;
	return tir_find(m, e->call.args[0]->str);
}

CgKernel *
cg_tir_fused_kernel(Codegen *cg, Module *m, const CgFusion *fu, Diags *d)
{
	int r = fu->n - 1;
	const Expr *e = fu->node[r].call;
	const PrimFunc *f = cg_tir_callee(m, e);
	if (!f)
		ir_bug("cg_tir_fused_kernel: the root is not a call_tir of the module");
	uint64_t swap = 0;
	for (int i = 0; i < cg_node_nargs(e); i++) {
		int from = cg_from(fu, r, i);
		if (from < 0)
			continue;
		const Expr *pe = fu->node[from].call;
		const PrimFunc *g = cg_tir_callee(m, pe);
		if (i >= 64 || !g || !cg_tir_transpose(g) || !cg_tir_gemm_b(f, i)) {
			diag_error(d, pe->span, "R.call_tir(%s): cannot be fused into "
				   "its user (prim_func %s)", g ? g->name : "?", f->name);
			return NULL;
		}
		swap |= (uint64_t)1 << i;
	}
	return tir_kernel(cg, m, f, swap, d);
}

/* ------------------------------------------------- folds of transposes */

/* The statement under s, a one-statement sequence unwrapped. */
static const TStmt *
unseq(const TStmt *s)
{
	return s && s->kind == TS_SEQ && s->n == 1 ? s->body[0] : s;
}

/* Is the buffer a compact one with no offset? */
static bool
plain_buf(const TBuf *b)
{
	return b && !b->nstrides && b->ndim >= 2 && b->ndim <= MAXD &&
	       (!b->elem_offset || (b->elem_offset->kind == TE_INT && b->elem_offset->i == 0));
}

bool
cg_tir_transpose(const PrimFunc *f)
{
	if (f->nparams != 2 || f->nroot_allocs || f->ret != DT_UNKNOWN)
		return false;
	const TBuf *a = f->params[0].buf, *o = f->params[1].buf;
	if (!plain_buf(a) || !plain_buf(o) || a == o || a->dtype != o->dtype ||
	    a->dtype == DT_UNKNOWN || a->ndim != o->ndim)
		return false;
	int nd = a->ndim;
	/* perm[d]: the input's axis that the output's axis d reads */
	int perm[MAXD];
	for (int d = 0; d < nd; d++) {
		perm[d] = d < nd - 2 ? d : d == nd - 2 ? nd - 1 : nd - 2;
		if (!tir_expr_same(o->shape[d], a->shape[perm[d]]))
			return false;
	}
	/* one loop nest of nd loops from 0 ending in one block */
	const TStmt *l = unseq(f->body);
	const TStmt *loops[MAXD];
	int nl = 0;
	for (; l && l->kind == TS_FOR; l = unseq(l->inner)) {
		if (nl == nd || !(l->min->kind == TE_INT && l->min->i == 0))
			return false;
		loops[nl++] = l;
	}
	const TStmt *b = l;
	if (nl != nd || !b || b->kind != TS_BLOCK || b->init || b->pred || b->nallocs ||
	    b->niters != nd)
		return false;
	const TStmt *x = unseq(b->inner);
	if (!x || x->kind != TS_STORE || x->buf != o || x->nidx != nd)
		return false;
	const TExpr *v = x->value;
	if (v->kind != TE_LOAD || v->buf != a || v->n != nd || v->ty != (TType)o->dtype)
		return false;
	/* the store's index d: a spatial iteration variable bound to a loop
	 * over the output's dim d, each loop bound once; the load's index d
	 * the one of the store's index perm[d] */
	bool used[MAXD] = {false};
	for (int d = 0; d < nd; d++) {
		const TExpr *ix = x->idx[d];
		const TIter *it = NULL;
		for (int q = 0; q < b->niters && ix->kind == TE_VAR; q++)
			if (b->iters[q].var == ix->var)
				it = &b->iters[q];
		if (!it || it->kind != TI_SPATIAL || !it->value || it->value->kind != TE_VAR)
			return false;
		int li = 0;
		while (li < nl && loops[li]->var != it->value->var)
			li++;
		if (li == nl || used[li] || !tir_expr_same(loops[li]->extent, o->shape[d]))
			return false;
		used[li] = true;
	}
	for (int d = 0; d < nd; d++) {
		const TExpr *ix = v->args[d], *sx = x->idx[perm[d]];
		if (ix->kind != TE_VAR || ix->var != sx->var)
			return false;
	}
	return true;
}

/* What cg_tir_gemm_b learns of a prim_func's uses of one buffer. */
typedef struct {
	const TBuf *b;
	const TVar *h;  /* its handle */
	bool gemm_b;    /* read as a matrix product's b */
	bool other;     /* written, or its handle used as a value */
} GemmB;

static void
gemm_b_stmt(TStmt *s, void *ctx)
{
	GemmB *g = ctx;
	Mm mm;
	if (s->kind == TS_FOR && match_gemm(s, &mm) && mm.b == g->b && mm.a != g->b)
		g->gemm_b = true;
	if (s->kind == TS_STORE && s->buf == g->b)
		g->other = true;
}

static void
gemm_b_expr(TExpr *e, void *ctx)
{
	GemmB *g = ctx;
	if (e->kind == TE_VAR && g->h && e->var == g->h)
		g->other = true;
}

bool
cg_tir_gemm_b(const PrimFunc *f, int p)
{
	if (p < 0 || p >= f->nparams || !plain_buf(f->params[p].buf))
		return false;
	GemmB g = {f->params[p].buf, f->params[p].var, false, false};
	TWalk w = {gemm_b_stmt, gemm_b_expr, &g};
	tir_walk_stmt(f->body, &w);
	return g.gemm_b && !g.other;
}
