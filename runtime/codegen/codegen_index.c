/*
 * codegen_index.c — the kernels that compute every output element from its
 * index (gen_index_map): masks and creation (tril, triu, eye, one_hot),
 * layout_transform, prelu, quantize/dequantize, and the data movement of
 * tile, repeat, flip, pad, gather, dynamic_strided_slice, stack and
 * scatter. Dispatched by gen_body (codegen.c); the kernel ABI and the
 * helpers are described at the top of codegen.c and declared in
 * codegen_impl.h.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_impl.h"

/* =================================================================
 * Most of these kernels are an index map: every
 * output element computed from its index (gen_index_map), split across
 * the pool over the outer dims, the last dim innermost; constant
 * parameters are kept in o->pi / o->pf by the op's gen_ function. The
 * families that are loop nests of their own (scans, pooling,
 * convolutions, norms, attention, sorting, einsum) are codegen_nn.c's.
 * ================================================================= */

/* The value of output element idx (compute value of dtype *rdt). */
typedef LLVMValueRef (*IdxFn)(OpKernel *o, LLVMValueRef *idx, DType *rdt);

/* out[idx] = f(idx) over the first output. */
static bool
gen_index_map(OpKernel *o, IdxFn f)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[k->nin];
	int nd = out->nd;
	LLVMValueRef idx[MAXD], ost[MAXD];
	DType rdt;
	cg_strides(k, out, ost);
	if (nd == 0) {
		LLVMValueRef v = f(o, idx, &rdt);
		cg_st(k, out, cg_ci(k, 0), cg_cvt(k, v, rdt, out->dt));
		return true;
	}
	Loop lo, li;
	cg_par_nest(k, &lo, out->dim, nd, idx, cg_prod(k, out->dim, 0, nd));
	idx[nd - 1] = cg_loop_begin(k, &li, out->dim[nd - 1]);
	LLVMValueRef v = f(o, idx, &rdt);
	cg_st(k, out, cg_dot(k, idx, ost, nd), cg_cvt(k, v, rdt, out->dt));
	cg_loop_end(k, &li);
	cg_loop_end(k, &lo);
	return true;
}

/* i clamped into [0, n). */
LLVMValueRef
cg_clampi(KernelBuilder *k, LLVMValueRef i, LLVMValueRef n)
{
	return cg_imax(k, cg_imin(k, i, LLVMBuildSub(k->b, n, cg_ci(k, 1), "")), cg_ci(k, 0));
}

/* 0 <= i < n */
LLVMValueRef
cg_inside(KernelBuilder *k, LLVMValueRef i, LLVMValueRef n)
{
	return LLVMBuildICmp(k->b, LLVMIntULT, i, n, "");
}

/* The dtype loads of t compute in: f32 for f16/bf16/float8. */
DType
cg_cdt(DType t)
{
	return dtype_is_narrow_float(t) ? DT_F32 : t;
}

/* Element of b at index idx (b's own C-order strides). */
static LLVMValueRef
ld_at(KernelBuilder *k, const Buf *b, LLVMValueRef *idx)
{
	LLVMValueRef s[MAXD];
	cg_strides(k, b, s);
	return cg_ld(k, b, cg_dot(k, idx, s, b->nd));
}

/* The permutation of layout attribute `name` (None: the data's layout,
 * attribute `dflt`) against canonical letters canon; perm[i] is the
 * buffer dim of canonical axis i. */
bool
cg_layout_of(OpKernel *o, ParamName name, ParamName dflt, const char *canon, int *perm)
{
	AttrVal v = cg_attr(o, name);
	if (v.kind == AV_NONE && dflt != P_NONE)
		v = cg_attr(o, dflt);
	const char *s = v.kind == AV_STR && v.s ? v.s : "";
	size_t n = strlen(canon);
	if (strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *q = strchr(s, canon[i]);
		if (!q)
			return false;
		perm[i] = (int)(q - s);
	}
	return true;
}

/* Canonical dims and strides of b under perm (n canonical axes; b may
 * have fewer dims when lead canonical axes are absent: pad == n - b->nd
 * leading axes of extent 1). */
void
cg_canon_buf(KernelBuilder *k, const Buf *b, const int *perm, int n, LLVMValueRef *dims, LLVMValueRef *sts)
{
	LLVMValueRef s[MAXD] = {0};
	cg_strides(k, b, s);
	for (int i = 0; i < n; i++) {
		dims[i] = b->dim[perm[i]];
		sts[i] = s[perm[i]];
	}
}

/* ---------------------------------------------------- masks, creation */

/* tril / triu: x where the column minus the row is <= k (>= k), else 0. */
static LLVMValueRef
tril_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	int nd = x->nd;
	*rdt = cg_cdt(x->dt);
	LLVMValueRef v = ld_at(k, x, idx);
	LLVMValueRef d = LLVMBuildSub(k->b, idx[nd - 1], idx[nd - 2], "");
	LLVMValueRef keep = LLVMBuildICmp(k->b, o->e->call.op == OP_TRIL ? LLVMIntSLE : LLVMIntSGE,
					  d, o->pv[0], "");
	return LLVMBuildSelect(k->b, keep, v, cg_cconst(k, *rdt, 0), "");
}

bool
gen_tril(OpKernel *o)
{
	KernelBuilder *k = o->k;
	if (k->nin != 1 || k->buf[0].nd < 2)
		return cg_fail(o, "expects a tensor of at least two dimensions");
	/* k: a constant, or read at run time */
	return (o->pv[0] = cg_prim_i64(o, P_k)) && gen_index_map(o, tril_elem);
}

/* eye: 1 where column - row == k. */
static LLVMValueRef
eye_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	*rdt = DT_BOOL;
	return LLVMBuildICmp(k->b, LLVMIntEQ, LLVMBuildSub(k->b, idx[1], idx[0], ""),
			     o->pv[0], "");
}

bool
gen_eye(OpKernel *o)
{
	return (o->pv[0] = cg_prim_i64(o, P_k)) && gen_index_map(o, eye_elem);
}

/* one_hot: on_value where indices[idx without axis] == idx[axis]. */
static LLVMValueRef
one_hot_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *ix = &k->buf[0], *out = &k->buf[1];
	int ax = (int)o->pi[0];
	LLVMValueRef ii[MAXD];
	for (int i = 0, j = 0; i < out->nd; i++)
		if (i != ax)
			ii[j++] = idx[i];
	LLVMValueRef v = cg_cvt(k, ld_at(k, ix, ii), ix->dt, DT_I64);
	*rdt = DT_F64;
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntEQ, v, idx[ax], ""),
			       LLVMConstReal(k->f64, o->pf[0]), LLVMConstReal(k->f64, o->pf[1]), "");
}

bool
gen_one_hot(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[1];
	int ax;
	if (!cg_prim_arg(o, P_on_value, &o->pf[0]) || !cg_prim_arg(o, P_off_value, &o->pf[1]))
		return cg_fail(o, "on_value and off_value must be constants");
	if (!cg_norm_axis(cg_attr(o, P_axis).i, out->nd, &ax))
		return cg_fail(o, "axis out of range");
	o->pi[0] = ax;
	return gen_index_map(o, one_hot_elem);
}

/* ---------------------------------------------------- layout_transform */

/*
 * layout_transform(x, index_map, pad_value): out[f(i)] = x[i] for every
 * index i of x, and pad_value at the output indices f misses (the padding
 * of a split that does not divide, the holes of i -> 2 * i).
 *
 * Generated as a gather over the output through the inverse of f, so that
 * every output element is written once and padding needs no second pass:
 * each final index of f is read as a mixed-radix sum of digits of the
 * input indices (the subset of TVM's iter maps rlx takes):
 *
 *     final index = sum of c * ((v // a) % b)    (b absent: v // a)
 *
 * with c > 0, a, b positive constants and v an input index. f is
 * one-to-one when every input index's digits tile it exactly (a = 1 for
 * the first, each next a the previous a * b, the last unbounded or
 * covering a constant extent) and the terms of one final index do not
 * overlap (each c at least the previous c times its digit's extent). Then
 * the inverse is exact: an output index splits into its digits from the
 * largest c down, a digit out of its range or a remainder left over means
 * padding, and the input index sum of digit * a must lie inside x (the
 * last block of an uneven split). A map that is not one-to-one (TVM's
 * legalization refuses it too: DetectIterMap, bijective inverse) or not
 * of this form is refused with a located error.
 */
enum { IM_TERMS = 2 * MAXD };

typedef struct {
	int v;             /* the input index */
	int64_t a, b;      /* digit (v // a) % b; b == 0: v // a, unbounded */
	int64_t c;         /* its coefficient in the final index */
} ImTerm;

typedef struct {
	ImTerm t[MAXD][IM_TERMS]; /* per final index, by c ascending */
	int nt[MAXD];
	int nout, nin;
} ImInv;

/* x * scale into terms t[*n..] and the constant *off; false when x is not
 * of the form above. */
static bool
im_terms(const PExpr *x, SymVar *const *iv, int nin, int64_t scale, ImTerm *t, int *n,
	 int64_t *off)
{
	int64_t c;
	switch (x->kind) {
	case PE_INT:
		*off += scale * x->value;
		return true;
	case PE_VAR:
		for (int i = 0; i < nin; i++)
			if (x->var == iv[i]) {
				if (*n == IM_TERMS)
					return false;
				t[(*n)++] = (ImTerm){i, 1, 0, scale};
				return true;
			}
		return false;
	case PE_ADD:
	case PE_SUB:
		return im_terms(x->a, iv, nin, scale, t, n, off) &&
		       im_terms(x->b, iv, nin, x->kind == PE_ADD ? scale : -scale, t, n, off);
	case PE_MUL:
		if (cg_pe_const(x->b, &c))
			return im_terms(x->a, iv, nin, scale * c, t, n, off);
		if (cg_pe_const(x->a, &c))
			return im_terms(x->b, iv, nin, scale * c, t, n, off);
		return false;
	case PE_FLOORDIV:
	case PE_FLOORMOD: {
		ImTerm one[IM_TERMS];
		int m = 0;
		int64_t o = 0;
		if (!cg_pe_const(x->b, &c) || c <= 0 ||
		    !im_terms(x->a, iv, nin, 1, one, &m, &o) || m != 1 || o != 0 ||
		    one[0].c != 1 || *n == IM_TERMS)
			return false;
		ImTerm d = one[0];
		if (x->kind == PE_FLOORDIV) {
			if (d.b && d.b % c)
				return false;
			d.a *= c;
			d.b = d.b ? d.b / c : 0;
		} else if (!d.b || d.b % c == 0) {
			d.b = c;
		} else if (c < d.b) {
			return false;
		}
		d.c = scale;
		t[(*n)++] = d;
		return true;
	}
	default:
		return false;
	}
}

/* The constant extent of input index v, or -1 when symbolic. */
static int64_t
im_extent(KernelBuilder *k, int v)
{
	LLVMValueRef d = k->buf[0].dim[v];
	return LLVMIsAConstantInt(d) ? LLVMConstIntGetSExtValue(d) : -1;
}

/* The extent of digit t: b, or for an unbounded digit of a constant
 * extent E, ceil(E / a); -1 when unknown. */
static int64_t
im_digit_extent(KernelBuilder *k, const ImTerm *t)
{
	int64_t e = t->b ? t->b : im_extent(k, t->v);
	return t->b || e < 0 ? e : (e + t->a - 1) / t->a;
}

static int
im_cmp_c(const void *x, const void *y)
{
	const ImTerm *a = x, *b = y;
	return (a->c > b->c) - (a->c < b->c);
}

static int
im_cmp_a(const void *x, const void *y)
{
	const ImTerm *a = x, *b = y;
	return (a->a > b->a) - (a->a < b->a);
}

/* Reads k's index map into im; false with a diagnostic when it is not a
 * one-to-one map rlx can invert. */
static bool
im_inverse(OpKernel *o, ImInv *im)
{
	KernelBuilder *k = o->k;
	AttrVal m = cg_attr(o, P_index_map);
	Arena *ar = &k->m->arena;
	if (m.kind != AV_IMAP || m.nin != k->buf[0].nd || m.n != k->buf[1].nd || m.n > MAXD)
		return cg_fail(o, "the index map does not fit the tensors");
	im->nout = m.n;
	im->nin = m.nin;
	ImTerm byvar[MAXD][IM_TERMS];
	int nv[MAXD] = {0};
	for (int f = 0; f < m.n; f++) {
		int64_t off = 0;
		int n = 0;
		if (!im_terms(m.dims[f], m.ivars, m.nin, 1, im->t[f], &n, &off))
			return cg_fail(o, arena_printf(ar, "final index %d of the index map is not a "
				"sum of c * (i // a %% b) of the input indices", f));
		if (off != 0)
			return cg_fail(o, arena_printf(ar, "final index %d of the index map starts at "
				"%lld, not 0", f, (long long)off));
		int w = 0;
		for (int j = 0; j < n; j++) {
			if (im->t[f][j].c < 0)
				return cg_fail(o, arena_printf(ar, "final index %d of the index map has a "
					"negative coefficient", f));
			if (im->t[f][j].c)
				im->t[f][w++] = im->t[f][j];
		}
		n = im->nt[f] = w;
		qsort(im->t[f], (size_t)n, sizeof im->t[f][0], im_cmp_c);
		for (int j = 0; j + 1 < n; j++) {
			int64_t e = im_digit_extent(k, &im->t[f][j]);
			if (e < 0)
				return cg_fail(o, arena_printf(ar, "final index %d of the index map "
					"adds to an index whose extent is symbolic", f));
			if (im->t[f][j + 1].c < im->t[f][j].c * e)
				return cg_fail(o, arena_printf(ar, "the index map is not one-to-one: the "
					"terms of final index %d overlap", f));
		}
		for (int j = 0; j < n; j++) {
			int v = im->t[f][j].v;
			if (nv[v] == IM_TERMS)
				return cg_fail(o, "the index map is too long");
			byvar[v][nv[v]++] = im->t[f][j];
		}
	}
	for (int v = 0; v < m.nin; v++) {
		int64_t e = im_extent(k, v), a = 1;
		const char *name = m.ivars[v]->name;
		qsort(byvar[v], (size_t)nv[v], sizeof byvar[v][0], im_cmp_a);
		for (int j = 0; j < nv[v]; j++) {
			const ImTerm *t = &byvar[v][j];
			if (t->a != a || (j + 1 < nv[v] && !t->b))
				return cg_fail(o, arena_printf(ar, "the index map is not one-to-one: "
					"the parts of input index %s overlap or leave a gap", name));
			a = t->b ? a * t->b : 0;
		}
		if (a && !(e >= 0 && e <= a))
			return cg_fail(o, arena_printf(ar, "the index map is not one-to-one: it "
				"drops %s of input index %s", nv[v] ? "the high part" : "all",
				name));
	}
	return true;
}

/* Whether out[idx] comes from x (*valid), and from where (*src). */
static void
im_source(KernelBuilder *k, const ImInv *im, LLVMValueRef *idx, LLVMValueRef *valid, LLVMValueRef *src)
{
	Buf *x = &k->buf[0];
	LLVMValueRef iv[MAXD], ok = LLVMConstInt(k->i1, 1, 0), xs[MAXD];
	for (int v = 0; v < im->nin; v++)
		iv[v] = cg_ci(k, 0);
	for (int f = 0; f < im->nout; f++) {
		LLVMValueRef r = idx[f];
		for (int j = im->nt[f] - 1; j >= 0; j--) {
			const ImTerm *t = &im->t[f][j];
			LLVMValueRef d = r;
			if (t->c != 1) {
				d = LLVMBuildUDiv(k->b, r, cg_ci(k, t->c), "");
				r = LLVMBuildSub(k->b, r, cg_mul(k, d, cg_ci(k, t->c)), "");
			} else {
				r = cg_ci(k, 0);
			}
			if (t->b)
				ok = LLVMBuildAnd(k->b, ok, cg_inside(k, d, cg_ci(k, t->b)), "");
			iv[t->v] = cg_add(k, iv[t->v], t->a == 1 ? d : cg_mul(k, d, cg_ci(k, t->a)));
		}
		if (im->nt[f] == 0 || im->t[f][0].c != 1)
			ok = LLVMBuildAnd(k->b, ok, LLVMBuildICmp(k->b, LLVMIntEQ, r, cg_ci(k, 0), ""), "");
	}
	for (int v = 0; v < im->nin; v++)
		ok = LLVMBuildAnd(k->b, ok, cg_inside(k, iv[v], x->dim[v]), "");
	cg_strides(k, x, xs);
	*valid = ok;
	*src = cg_dot(k, iv, xs, im->nin);
}

bool
gen_layout_transform(OpKernel *o)
{
	KernelBuilder *k = o->k;
	if (k->nin != 1 || k->nout != 1)
		return cg_fail(o, "expects one tensor");
	ImInv im;
	if (!im_inverse(o, &im))
		return false;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	AttrVal pv = cg_attr(o, P_pad_value);
	DType ct = cg_cdt(x->dt);
	LLVMValueRef pad = cg_cconst(k, ct, pv.kind == AV_FLOAT ? pv.f
				  : pv.kind == AV_INT ? (double)pv.i : 0.0);
	int nd = out->nd;
	LLVMValueRef idx[MAXD], ost[MAXD], valid, src;
	cg_strides(k, out, ost);
	if (nd == 0) {
		cg_st(k, out, cg_ci(k, 0), cg_ld(k, x, cg_ci(k, 0)));
		return true;
	}
	Loop lo, li;
	cg_par_nest(k, &lo, out->dim, nd, idx, cg_prod(k, out->dim, 0, nd));
	idx[nd - 1] = cg_loop_begin(k, &li, out->dim[nd - 1]);
	im_source(k, &im, idx, &valid, &src);
	/* a branch, not a select: x may be empty where all is padding */
	LLVMBasicBlockRef from = LLVMGetInsertBlock(k->b);
	LLVMBasicBlockRef load = LLVMAppendBasicBlockInContext(k->c, k->fn, "lt.load");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(k->c, k->fn, "lt.join");
	LLVMBuildCondBr(k->b, valid, load, join);
	LLVMPositionBuilderAtEnd(k->b, load);
	LLVMValueRef v = cg_ld(k, x, src);
	LLVMBuildBr(k->b, join);
	LLVMPositionBuilderAtEnd(k->b, join);
	LLVMValueRef phi = LLVMBuildPhi(k->b, cg_ctype(k, ct), "");
	LLVMValueRef vals[2] = {v, pad};
	LLVMBasicBlockRef bbs[2] = {load, from};
	LLVMAddIncoming(phi, vals, bbs, 2);
	cg_st(k, out, cg_dot(k, idx, ost, nd), phi);
	cg_loop_end(k, &li);
	cg_loop_end(k, &lo);
	return true;
}

/* ------------------------------------------------------- elementwise */

/* nn.prelu: x > 0 ? x : alpha[channel] * x (alpha of 1 value: shared). */
static LLVMValueRef
prelu_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *a = &k->buf[1];
	DType ct = cg_float_ct(x->dt);
	*rdt = ct;
	LLVMValueRef v = cg_cvt(k, ld_at(k, x, idx), x->dt, ct);
	LLVMValueRef one = LLVMBuildICmp(k->b, LLVMIntEQ, a->dim[0], cg_ci(k, 1), "");
	LLVMValueRef ai = LLVMBuildSelect(k->b, one, cg_ci(k, 0), idx[o->pi[0]], "");
	LLVMValueRef av = cg_cvt(k, cg_ld(k, a, ai), a->dt, ct);
	LLVMValueRef pos = LLVMBuildFCmp(k->b, LLVMRealOGT, v, cg_cconst(k, ct, 0), "");
	return LLVMBuildSelect(k->b, pos, v, LLVMBuildFMul(k->b, v, av, ""), "");
}

bool
gen_prelu(OpKernel *o)
{
	KernelBuilder *k = o->k;
	int ax;
	if (k->nin != 2 || k->buf[1].nd != 1 || !cg_norm_axis(cg_attr(o, P_axis).i, k->buf[0].nd, &ax))
		return cg_fail(o, "expects data and a 1-D alpha, and an axis in range");
	o->pi[0] = ax;
	return gen_index_map(o, prelu_elem);
}

/* quantize: clamp(round(x / scale) + zero_point); dequantize: (x -
 * zero_point) * scale; scale and zero_point per element of axis (or one). */
static LLVMValueRef
qdq_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *s = &k->buf[1], *z = &k->buf[2], *out = &k->buf[3];
	LLVMBuilderRef b = k->b;
	LLVMValueRef sv[2];
	for (int i = 0; i < 2; i++) {
		Buf *p = i ? z : s;
		LLVMValueRef n = cg_prod(k, p->dim, 0, p->nd);
		LLVMValueRef pi = x->nd ? LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, n, cg_ci(k, 1), ""),
							  cg_ci(k, 0), idx[o->pi[0]], "")
					: cg_ci(k, 0);
		sv[i] = cg_cvt(k, cg_ld(k, p, pi), p->dt, DT_F32);
	}
	LLVMValueRef v = cg_cvt(k, ld_at(k, x, idx), x->dt, DT_F32);
	*rdt = DT_F32;
	if (o->e->call.op == OP_DEQUANTIZE)
		return LLVMBuildFMul(b, LLVMBuildFSub(b, v, sv[1], ""), sv[0], "");
	LLVMValueRef q = cg_fn1(k, "llvm.roundeven", LLVMBuildFDiv(b, v, sv[0], ""));
	q = LLVMBuildFAdd(b, q, sv[1], "");
	double lo = out->dt == DT_U8 ? 0 : out->dt == DT_I8 ? -128 : -32768;
	double hi = out->dt == DT_U8 ? 255 : out->dt == DT_I8 ? 127 : 32767;
	q = cg_vmax(k, q, LLVMConstReal(k->f32, lo), DT_F32, true);
	return cg_vmax(k, q, LLVMConstReal(k->f32, hi), DT_F32, false);
}

bool
gen_qdq(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	int ax = 0;
	if (k->nin != 3 || (x->nd && !cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax)))
		return cg_fail(o, "expects data, scale and zero_point, and an axis in range");
	o->pi[0] = ax;
	return gen_index_map(o, qdq_elem);
}

/* ------------------------------------------------------ data movement */

/* tile: out[i] = x[i mod dim] (x aligned on the right). */
static LLVMValueRef
tile_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	LLVMValueRef xi[MAXD];
	int lead = out->nd - x->nd;
	for (int i = 0; i < x->nd; i++)
		xi[i] = LLVMBuildURem(k->b, idx[lead + i], cg_imax(k, x->dim[i], cg_ci(k, 1)), "");
	*rdt = cg_cdt(x->dt);
	return ld_at(k, x, xi);
}

/* repeat: along axis out[i] = x[i / repeats]; axis None: flattened. */
static LLVMValueRef
repeat_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	LLVMValueRef r = cg_ci(k, o->pi[0] > 0 ? o->pi[0] : 1);
	*rdt = cg_cdt(x->dt);
	if (o->pi[1] < 0)
		return cg_ld(k, x, LLVMBuildUDiv(k->b, idx[0], r, ""));
	LLVMValueRef xi[MAXD];
	for (int i = 0; i < x->nd; i++)
		xi[i] = i == o->pi[1] ? LLVMBuildUDiv(k->b, idx[i], r, "") : idx[i];
	return ld_at(k, x, xi);
}

/* flip: along axis out[i] = x[n - 1 - i]. */
static LLVMValueRef
flip_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	LLVMValueRef xi[MAXD];
	int ax = (int)o->pi[0];
	for (int i = 0; i < x->nd; i++)
		xi[i] = i == ax ? LLVMBuildSub(k->b, LLVMBuildSub(k->b, x->dim[i], cg_ci(k, 1), ""),
					       idx[i], "") : idx[i];
	*rdt = cg_cdt(x->dt);
	return ld_at(k, x, xi);
}

/* nn.pad: modes constant (pad_value), edge or replicate (clamp), reflect
 * (mirror without repeating the edge), circular (wrap around). */
static LLVMValueRef
pad_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	LLVMBuilderRef b = k->b;
	LLVMValueRef xi[MAXD], in = LLVMConstInt(k->i1, 1, 0);
	for (int i = 0; i < x->nd; i++) {
		LLVMValueRef n = x->dim[i];
		LLVMValueRef j = LLVMBuildSub(b, idx[i], cg_ci(k, o->pi[2 * i]), "");
		if (o->pi[2 * MAXD] == 2) { /* reflect */
			j = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, j, cg_ci(k, 0), ""),
					    LLVMBuildSub(b, cg_ci(k, 0), j, ""), j, "");
			LLVMValueRef over = LLVMBuildICmp(b, LLVMIntSGE, j, n, "");
			LLVMValueRef m = LLVMBuildSub(b, cg_mul(k, cg_ci(k, 2), LLVMBuildSub(b, n, cg_ci(k, 1), "")), j, "");
			j = LLVMBuildSelect(b, over, m, j, "");
		} else if (o->pi[2 * MAXD] == 3) { /* circular: j mod n, in [0, n) */
			LLVMValueRef sn = cg_imax(k, n, cg_ci(k, 1));
			LLVMValueRef r = LLVMBuildSRem(b, j, sn, "");
			LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, r, cg_ci(k, 0), "");
			j = LLVMBuildSelect(b, neg, cg_add(k, r, sn), r, "");
		} else if (o->pi[2 * MAXD] == 0) {
			in = LLVMBuildAnd(b, in, cg_inside(k, j, n), "");
		}
		xi[i] = cg_clampi(k, j, n);
	}
	*rdt = cg_cdt(x->dt);
	LLVMValueRef v = ld_at(k, x, xi);
	if (o->pi[2 * MAXD] != 0)
		return v;
	return LLVMBuildSelect(b, in, v, cg_cconst(k, *rdt, o->pf[0]), "");
}

/* gather_elements: out[i] = x[i with axis replaced by indices[i]]. */
static LLVMValueRef
gather_elements_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *ix = &k->buf[1];
	int ax = (int)o->pi[0];
	LLVMValueRef p = cg_cvt(k, ld_at(k, ix, idx), ix->dt, DT_I64);
	LLVMValueRef n = x->dim[ax];
	p = LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, p, cg_ci(k, 0), ""), cg_add(k, p, n), p, "");
	LLVMValueRef xi[MAXD];
	for (int i = 0; i < x->nd; i++)
		xi[i] = i == ax ? cg_clampi(k, p, n) : idx[i];
	*rdt = cg_cdt(x->dt);
	return ld_at(k, x, xi);
}

/* gather_nd: out[b.., j.., t..] = x[b.., indices[b.., j.., :], t..]. */
static LLVMValueRef
gather_nd_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *ix = &k->buf[1];
	int bd = (int)o->pi[0], l = (int)o->pi[1], lead = ix->nd - 1;
	LLVMValueRef ii[MAXD], xi[MAXD];
	for (int i = 0; i < lead; i++)
		ii[i] = idx[i];
	int n = 0;
	for (int i = 0; i < bd; i++)
		xi[n++] = idx[i];
	for (int c = 0; c < l; c++) {
		ii[lead] = cg_ci(k, c);
		LLVMValueRef p = cg_cvt(k, ld_at(k, ix, ii), ix->dt, DT_I64);
		LLVMValueRef d = x->dim[n];
		p = LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, p, cg_ci(k, 0), ""), cg_add(k, p, d), p, "");
		xi[n++] = cg_clampi(k, p, d);
	}
	for (int i = lead; n < x->nd; i++)
		xi[n++] = idx[i];
	*rdt = cg_cdt(x->dt);
	return ld_at(k, x, xi);
}

/* dynamic_strided_slice: begins normalized at run time as strided_slice's
 * (the output's dims were computed from the same values by the executor). */
static LLVMValueRef
dyn_slice_elem(OpKernel *o, LLVMValueRef *idx, DType *rdt)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *bb = &k->buf[1], *sb = &k->buf[3];
	LLVMBuilderRef b = k->b;
	LLVMValueRef xi[MAXD];
	for (int d = 0; d < x->nd; d++) {
		LLVMValueRef n = x->dim[d];
		LLVMValueRef bg = cg_cvt(k, cg_ld(k, bb, cg_ci(k, d)), bb->dt, DT_I64);
		LLVMValueRef s = cg_cvt(k, cg_ld(k, sb, cg_ci(k, d)), sb->dt, DT_I64);
		bg = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, bg, cg_ci(k, 0), ""), cg_add(k, bg, n), bg, "");
		LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntSGT, s, cg_ci(k, 0), "");
		LLVMValueRef bp = cg_imin(k, cg_imax(k, bg, cg_ci(k, 0)), n);
		LLVMValueRef bn = cg_imin(k, cg_imax(k, bg, cg_ci(k, -1)), LLVMBuildSub(b, n, cg_ci(k, 1), ""));
		bg = LLVMBuildSelect(b, pos, bp, bn, "");
		xi[d] = cg_clampi(k, cg_add(k, bg, cg_mul(k, idx[d], s)), n);
	}
	*rdt = cg_cdt(x->dt);
	return ld_at(k, x, xi);
}

bool
gen_move(OpKernel *o)
{
	KernelBuilder *k = o->k;
	OpKind op = o->e->call.op;
	Buf *x = &k->buf[0], *out = &k->buf[k->nin];
	int ax;
	switch (op) {
	case OP_TILE:
		return gen_index_map(o, tile_elem);
	case OP_REPEAT: {
		AttrVal a = cg_attr(o, P_axis);
		o->pi[0] = cg_attr(o, P_repeats).i;
		o->pi[1] = -1;
		if (a.kind != AV_NONE) {
			if (!cg_norm_axis(a.i, x->nd, &ax))
				return cg_fail(o, "axis out of range");
			o->pi[1] = ax;
		}
		return gen_index_map(o, repeat_elem);
	}
	case OP_FLIP:
		if (!cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax))
			return cg_fail(o, "axis out of range");
		o->pi[0] = ax;
		return gen_index_map(o, flip_elem);
	case OP_PAD: {
		AttrVal pw = cg_attr(o, P_pad_width), mode = cg_attr(o, P_pad_mode);
		if (pw.kind != AV_INTS || pw.n != 2 * x->nd)
			return cg_fail(o, "pad_width must have two values per dimension");
		for (int i = 0; i < pw.n; i++)
			o->pi[i] = pw.ints[i];
		o->pi[2 * MAXD] = !strcmp(mode.s, "edge") || !strcmp(mode.s, "replicate") ? 1
				: !strcmp(mode.s, "reflect") ? 2 : !strcmp(mode.s, "circular") ? 3 : 0;
		o->pf[0] = cg_attr(o, P_pad_value).f;
		return gen_index_map(o, pad_elem);
	}
	case OP_GATHER_ELEMENTS:
		if (!cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax))
			return cg_fail(o, "axis out of range");
		o->pi[0] = ax;
		return gen_index_map(o, gather_elements_elem);
	case OP_GATHER_ND: {
		Buf *ix = &k->buf[1];
		int64_t l;
		if (ix->nd < 1 || !cg_pe_const(ix->nd && o->e->call.args[1]->sinfo &&
					   o->e->call.args[1]->sinfo->shape
					   ? o->e->call.args[1]->sinfo->shape[ix->nd - 1] : NULL, &l))
			return cg_fail(o, "the last dim of indices must be static");
		o->pi[0] = cg_attr(o, P_batch_dims).i;
		o->pi[1] = l;
		return gen_index_map(o, gather_nd_elem);
	}
	case OP_DYNAMIC_STRIDED_SLICE:
		if (out->nd != x->nd)
			return cg_fail(o, "malformed");
		return gen_index_map(o, dyn_slice_elem);
	default:
		return cg_fail(o, "not a movement op");
	}
}

/* stack: out[.., i, ..] = tensors[i][..]: each input's rows (the dims
 * from axis on) copied into place. */
bool
gen_stack(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[k->nin];
	int ax;
	if (!cg_norm_axis(cg_attr(o, P_axis).i, out->nd, &ax))
		return cg_fail(o, "axis out of range");
	Buf *in0 = &k->buf[0];
	LLVMValueRef outer = cg_prod(k, in0->dim, 0, ax), row = cg_prod(k, in0->dim, ax, in0->nd);
	LLVMValueRef nin = cg_ci(k, k->nin);
	for (int i = 0; i < k->nin; i++) {
		Buf *in = &k->buf[i];
		Loop lo, li;
		LLVMValueRef oi = cg_loop_begin(k, &lo, outer);
		LLVMValueRef j = cg_loop_begin(k, &li, row);
		LLVMValueRef v = cg_ld(k, in, cg_add(k, cg_mul(k, oi, row), j));
		LLVMValueRef dst = cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, oi, nin), cg_ci(k, i)), row), j);
		cg_st(k, out, dst, cg_cvt(k, v, in->dt, out->dt));
		cg_loop_end(k, &li);
		cg_loop_end(k, &lo);
	}
	return true;
}

/* The reduction of scatter_*: update, add, mul, max, min, and mean, which
 * is TVM's running average (old + u) / 2 in index order, not the mean of
 * all updates of a position (integers: the sum divided toward zero). */
static LLVMValueRef
scatter_combine(KernelBuilder *k, int red, LLVMValueRef old, LLVMValueRef u, DType t)
{
	bool fl = dtype_is_float(t);
	LLVMValueRef sum;
	switch (red) {
	case 5:
		if (fl)
			return LLVMBuildFMul(k->b, LLVMBuildFAdd(k->b, old, u, ""),
					     LLVMConstReal(LLVMTypeOf(old), 0.5), "");
		sum = LLVMBuildAdd(k->b, old, u, "");
		return dtype_is_unsigned(t)
			? LLVMBuildUDiv(k->b, sum, LLVMConstInt(LLVMTypeOf(old), 2, 0), "")
			: LLVMBuildSDiv(k->b, sum, LLVMConstInt(LLVMTypeOf(old), 2, 0), "");
	case 1: return fl ? LLVMBuildFAdd(k->b, old, u, "") : LLVMBuildAdd(k->b, old, u, "");
	case 2: return fl ? LLVMBuildFMul(k->b, old, u, "") : LLVMBuildMul(k->b, old, u, "");
	case 3: return cg_vmax(k, old, u, t, true);
	case 4: return cg_vmax(k, old, u, t, false);
	default: return u;
	}
}

/* scatter_elements / scatter_nd: out = data, then each update applied in
 * index order (serial: later updates of a position win, as in TVM). */
bool
gen_scatter(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *ix = &k->buf[1], *u = &k->buf[2], *out = &k->buf[3];
	const char *rs = cg_attr(o, P_reduction).s;
	static const char *const names[] = {"update", "add", "mul", "max", "min", "mean"};
	bool elems = o->e->call.op == OP_SCATTER_ELEMENTS;
	int red = -1;
	for (int i = 0; i < (elems ? 6 : 5); i++)
		if (!strcmp(rs, names[i]))
			red = i;
	if (red < 0)
		return cg_fail(o, elems ? "reduction must be update, add, mul, mean, max or min"
				     : "reduction must be update, add, mul, max or min");
	if (x->dt != out->dt || u->dt != out->dt)
		return cg_fail(o, "data, updates and the result must have one dtype");
	LLVMValueRef total = cg_prod(k, x->dim, 0, x->nd);
	LLVMBuildMemCpy(k->b, out->ptr, 64, x->ptr, 64,
			cg_mul(k, total, cg_ci(k, dtype_bits(x->dt) / 8)));
	DType t = cg_cdt(out->dt);
	LLVMValueRef os[MAXD];
	cg_strides(k, out, os);
	if (o->e->call.op == OP_SCATTER_ELEMENTS) {
		int ax;
		if (!cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax) || ix->nd != x->nd)
			return cg_fail(o, "axis out of range");
		LLVMValueRef idx[MAXD];
		Nest ns;
		cg_nest_begin(k, &ns, ix->dim, ix->nd, idx);
		LLVMValueRef p = cg_cvt(k, ld_at(k, ix, idx), ix->dt, DT_I64);
		LLVMValueRef n = x->dim[ax];
		p = LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, p, cg_ci(k, 0), ""), cg_add(k, p, n), p, "");
		LLVMValueRef oi[MAXD];
		for (int i = 0; i < x->nd; i++)
			oi[i] = i == ax ? cg_clampi(k, p, n) : idx[i];
		LLVMValueRef off = cg_dot(k, oi, os, x->nd);
		LLVMValueRef uv = cg_cvt(k, ld_at(k, u, idx), u->dt, t);
		cg_st(k, out, off, scatter_combine(k, red, cg_ld(k, out, off), uv, t));
		cg_nest_end(k, &ns);
		return true;
	}
	/* scatter_nd: indices (m.., l), updates (m.., rest of data) */
	int64_t l;
	const SInfo *isi = o->e->call.args[1]->sinfo;
	if (ix->nd < 1 || !isi || !isi->shape || !cg_pe_const(isi->shape[ix->nd - 1], &l) ||
	    l > x->nd)
		return cg_fail(o, "the last dim of indices must be static");
	int lead = ix->nd - 1;
	LLVMValueRef m = cg_prod(k, ix->dim, 0, lead), rest = cg_prod(k, x->dim, (int)l, x->nd);
	LLVMValueRef ist[MAXD];
	cg_strides(k, ix, ist);
	Loop lm, lr;
	LLVMValueRef j = cg_loop_begin(k, &lm, m);
	LLVMValueRef base = cg_ci(k, 0);
	for (int c = 0; c < l; c++) {
		LLVMValueRef p = cg_cvt(k, cg_ld(k, ix, cg_add(k, cg_mul(k, j, cg_ci(k, l)), cg_ci(k, c))), ix->dt, DT_I64);
		LLVMValueRef n = x->dim[c];
		p = LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, p, cg_ci(k, 0), ""), cg_add(k, p, n), p, "");
		base = cg_add(k, base, cg_mul(k, cg_clampi(k, p, n), os[c]));
	}
	LLVMValueRef r = cg_loop_begin(k, &lr, rest);
	LLVMValueRef off = cg_add(k, base, r);
	LLVMValueRef uv = cg_cvt(k, cg_ld(k, u, cg_add(k, cg_mul(k, j, rest), r)), u->dt, t);
	cg_st(k, out, off, scatter_combine(k, red, cg_ld(k, out, off), uv, t));
	cg_loop_end(k, &lr);
	cg_loop_end(k, &lm);
	(void)ist;
	return true;
}

