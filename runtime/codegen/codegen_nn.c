/*
 * codegen_nn.c — the kernel generators of the neural-network op families:
 * scans, statistics (variance, std), pooling, convolutions, norms,
 * dropout, attention, sorting and einsum. Dispatched by gen_body
 * (codegen.c); the kernel ABI and the helpers are described at the top of
 * codegen.c and declared in codegen_impl.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_impl.h"

/* ----------------------------------------------------------- scans */

/* cumsum / cumprod along axis (None: the flattened data), inclusive or
 * exclusive; rows of (outer, inner) across the pool, the scan serial. */
bool
gen_scan(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	AttrVal av = cg_attr(o, P_axis), ex = cg_attr(o, P_exclusive);
	bool exclusive = ex.kind == AV_BOOL && ex.i;
	bool prodop = o->e->call.op == OP_CUMPROD;
	LLVMValueRef outer, n, inner;
	if (!cg_axis_extents(k, x, av, &outer, &n, &inner))
		return cg_fail(o, "axis out of range");
	DType t = out->dt == DT_BOOL ? DT_I64 : cg_cdt(out->dt);
	LLVMTypeRef at = cg_ctype(k, t);
	LLVMValueRef acc = cg_slot(k, at, 1);
	Loop lp, ls;
	LLVMValueRef rows = cg_mul(k, outer, inner);
	LLVMValueRef f = cg_par_begin(k, &lp, rows, cg_mul(k, rows, n));
	LLVMValueRef oi = LLVMBuildUDiv(k->b, f, inner, ""), i = LLVMBuildURem(k->b, f, inner, "");
	LLVMValueRef base = cg_add(k, cg_mul(k, cg_mul(k, oi, n), inner), i);
	LLVMBuildStore(k->b, cg_cconst(k, t, prodop ? 1 : 0), acc);
	LLVMValueRef j = cg_loop_begin(k, &ls, n);
	LLVMValueRef off = cg_add(k, base, cg_mul(k, j, inner));
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, off), x->dt, t);
	LLVMValueRef cur = LLVMBuildLoad2(k->b, at, acc, "");
	bool fl = dtype_is_float(t);
	LLVMValueRef nv = prodop ? (fl ? LLVMBuildFMul(k->b, cur, v, "") : LLVMBuildMul(k->b, cur, v, ""))
				 : (fl ? LLVMBuildFAdd(k->b, cur, v, "") : LLVMBuildAdd(k->b, cur, v, ""));
	LLVMBuildStore(k->b, nv, acc);
	cg_st(k, out, off, cg_cvt(k, exclusive ? cur : nv, t, out->dt));
	cg_loop_end(k, &ls);
	cg_loop_end(k, &lp);
	return true;
}

/* ------------------------------------------------------ statistics */

/*
 * variance / std over axes (None: all), population (divide by the count),
 * two passes per kept position: the mean, then the mean squared deviation;
 * in f32 (f64 for f64).
 */
bool
gen_variance(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	bool red[MAXD] = {0};
	AttrVal av = cg_attr(o, P_axis);
	int nd = x->nd;
	for (int i = 0; i < (av.kind == AV_NONE ? nd : av.n); i++) {
		int a = i;
		if (av.kind != AV_NONE && !cg_norm_axis(av.ints[i], nd, &a))
			return cg_fail(o, "axis out of range");
		if (nd)
			red[a] = true;
	}
	LLVMValueRef xs[MAXD], kd[MAXD], rd[MAXD], kst[MAXD], rst[MAXD], kidx[MAXD], ridx[MAXD];
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
	DType ct = cg_float_ct(out->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMValueRef count = LLVMBuildSIToFP(k->b, cg_prod(k, rd, 0, nr), t, "");
	LLVMValueRef acc = cg_slot(k, t, 1);
	Loop lk;
	Nest n1, n2;
	LLVMValueRef nkept = cg_prod(k, kd, 0, nk);
	LLVMValueRef f = cg_par_begin(k, &lk, nkept, cg_mul(k, nkept, cg_prod(k, rd, 0, nr)));
	for (int i = nk - 1; i >= 0; i--) {
		kidx[i] = i ? LLVMBuildURem(k->b, f, kd[i], "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, kd[i], "");
	}
	LLVMValueRef base = cg_dot(k, kidx, kst, nk);
	LLVMBuildStore(k->b, cg_cconst(k, ct, 0), acc);
	cg_nest_begin(k, &n1, rd, nr, ridx);
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, cg_dot(k, ridx, rst, nr))), x->dt, ct);
	LLVMBuildStore(k->b, cg_reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""), v, "")), acc);
	cg_nest_end(k, &n1);
	LLVMValueRef mean = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), count, "");
	LLVMBuildStore(k->b, cg_cconst(k, ct, 0), acc);
	cg_nest_begin(k, &n2, rd, nr, ridx);
	v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, cg_dot(k, ridx, rst, nr))), x->dt, ct);
	v = LLVMBuildFSub(k->b, v, mean, "");
	LLVMBuildStore(k->b, cg_reassoc(LLVMBuildFAdd(k->b, LLVMBuildLoad2(k->b, t, acc, ""),
						    cg_contract(LLVMBuildFMul(k->b, v, v, "")), "")), acc);
	cg_nest_end(k, &n2);
	LLVMValueRef r = LLVMBuildFDiv(k->b, LLVMBuildLoad2(k->b, t, acc, ""), count, "");
	if (o->e->call.op == OP_STD)
		r = cg_fn1(k, "llvm.sqrt", r);
	/* the kept index in the output: the same C order */
	LLVMValueRef oi = cg_ci(k, 0), s = cg_ci(k, 1);
	for (int i = nk - 1; i >= 0; i--) {
		oi = cg_add(k, oi, cg_mul(k, kidx[i], s));
		s = cg_mul(k, s, kd[i]);
	}
	cg_st(k, out, oi, cg_cvt(k, r, ct, out->dt));
	cg_loop_end(k, &lk);
	return true;
}

/* --------------------------------------------------------- pooling */

/* Int-list attribute `name` as n values, fewer repeated (1 or 2 of 4). */
static bool
ints_n(OpKernel *o, ParamName name, int n, int64_t *out)
{
	AttrVal v = cg_attr(o, name);
	if (v.kind != AV_INTS || v.n < 1 || v.n > n || n % v.n)
		return false;
	for (int i = 0; i < n; i++)
		out[i] = v.ints[i % v.n];
	return true;
}


/*
 * max_pool2d / avg_pool2d in any layout (NCHW canonical strides): a
 * parallel loop over (n, c, oh), then ow, then the window. avg divides by
 * the window's positions inside the input, or with count_include_pad
 * inside the padded input; max of an all-padding window is -inf (the
 * dtype's lowest for integers).
 */
bool
gen_pool2d(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	int lp[4], op[4];
	int64_t ks[2], stv[2], dil[2], pads[4];
	if (x->nd != 4 || !cg_layout_of(o, P_layout, P_NONE, "NCHW", lp) ||
	    !cg_layout_of(o, P_out_layout, P_layout, "NCHW", op))
		return cg_fail(o, "expects 4-D data in a permutation of NCHW");
	if (!ints_n(o, P_pool_size, 2, ks) || !ints_n(o, P_strides, 2, stv) ||
	    !ints_n(o, P_dilation, 2, dil) || !ints_n(o, P_padding, 4, pads))
		return cg_fail(o, "bad pool_size, strides, dilation or padding");
	struct { int64_t *ints; } pv = {pads};
	bool avg = o->e->call.op == OP_AVG_POOL2D, cip = cg_attr(o, P_count_include_pad).i;
	LLVMValueRef xd[4], xs[4], od[4], os[4];
	cg_canon_buf(k, x, lp, 4, xd, xs);
	cg_canon_buf(k, out, op, 4, od, os);
	DType ct = dtype_is_float(x->dt) ? cg_float_ct(x->dt) : x->dt;
	bool fl = dtype_is_float(ct);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMValueRef lowest;
	if (fl) {
		lowest = cg_cconst(k, ct, -INFINITY);
	} else {
		unsigned w = LLVMGetIntTypeWidth(t);
		lowest = LLVMConstInt(t, cg_is_unsigned(ct) ? 0 : 1ull << (w - 1), false);
	}
	if (avg && !fl)
		return cg_fail(o, "avg_pool2d needs float data");
	LLVMValueRef acc = cg_slot(k, t, 1), cnt = cg_slot(k, k->i64, 1);
	LLVMBuilderRef b = k->b;
	LLVMValueRef items = cg_mul(k, cg_mul(k, od[0], od[1]), od[2]);
	Loop lp_, lw, lh, lq;
	LLVMValueRef f = cg_par_begin(k, &lp_, items, cg_mul(k, cg_mul(k, items, od[3]), cg_ci(k, ks[0] * ks[1])));
	LLVMValueRef oh = LLVMBuildURem(b, f, od[2], "");
	f = LLVMBuildUDiv(b, f, od[2], "");
	LLVMValueRef c = LLVMBuildURem(b, f, od[1], ""), n = LLVMBuildUDiv(b, f, od[1], "");
	LLVMValueRef xbase = cg_add(k, cg_mul(k, n, xs[0]), cg_mul(k, c, xs[1]));
	LLVMValueRef obase = cg_add(k, cg_add(k, cg_mul(k, n, os[0]), cg_mul(k, c, os[1])), cg_mul(k, oh, os[2]));
	LLVMValueRef h0 = LLVMBuildSub(b, cg_mul(k, oh, cg_ci(k, stv[0])), cg_ci(k, pv.ints[0]), "");
	LLVMValueRef ow = cg_loop_begin(k, &lw, od[3]);
	LLVMValueRef w0 = LLVMBuildSub(b, cg_mul(k, ow, cg_ci(k, stv[1])), cg_ci(k, pv.ints[1]), "");
	LLVMBuildStore(b, avg ? cg_cconst(k, ct, 0) : lowest, acc);
	LLVMBuildStore(b, cg_ci(k, 0), cnt);
	LLVMValueRef ph = cg_loop_begin(k, &lh, cg_ci(k, ks[0]));
	LLVMValueRef ih = cg_add(k, h0, cg_mul(k, ph, cg_ci(k, dil[0])));
	LLVMValueRef pq = cg_loop_begin(k, &lq, cg_ci(k, ks[1]));
	LLVMValueRef iw = cg_add(k, w0, cg_mul(k, pq, cg_ci(k, dil[1])));
	LLVMValueRef in = LLVMBuildAnd(b, cg_inside(k, ih, xd[2]), cg_inside(k, iw, xd[3]), "");
	LLVMValueRef off = cg_add(k, xbase, cg_add(k, cg_mul(k, cg_clampi(k, ih, xd[2]), xs[2]),
					     cg_mul(k, cg_clampi(k, iw, xd[3]), xs[3])));
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, off), x->dt, ct);
	LLVMValueRef cur = LLVMBuildLoad2(b, t, acc, "");
	LLVMValueRef nv = avg ? LLVMBuildFAdd(b, cur, v, "") : cg_vmax(k, cur, v, ct, true);
	LLVMBuildStore(b, LLVMBuildSelect(b, in, nv, cur, ""), acc);
	LLVMValueRef counted = in;
	if (cip) /* inside the padded input */
		counted = LLVMBuildAnd(b,
			LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, ih, cg_ci(k, -pv.ints[0]), ""),
				     LLVMBuildICmp(b, LLVMIntSLT, ih, cg_add(k, xd[2], cg_ci(k, pv.ints[2])), ""), ""),
			LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, iw, cg_ci(k, -pv.ints[1]), ""),
				     LLVMBuildICmp(b, LLVMIntSLT, iw, cg_add(k, xd[3], cg_ci(k, pv.ints[3])), ""), ""), "");
	LLVMBuildStore(b, cg_add(k, LLVMBuildLoad2(b, k->i64, cnt, ""), LLVMBuildZExt(b, counted, k->i64, "")), cnt);
	cg_loop_end(k, &lq);
	cg_loop_end(k, &lh);
	LLVMValueRef r = LLVMBuildLoad2(b, t, acc, "");
	if (avg) {
		LLVMValueRef nc = cg_imax(k, LLVMBuildLoad2(b, k->i64, cnt, ""), cg_ci(k, 1));
		r = LLVMBuildFDiv(b, r, LLVMBuildSIToFP(b, nc, t, ""), "");
	}
	cg_st(k, out, cg_add(k, obase, cg_mul(k, ow, os[3])), cg_cvt(k, r, ct, out->dt));
	cg_loop_end(k, &lw);
	cg_loop_end(k, &lp_);
	return true;
}

/* adaptive_avg_pool2d: window [floor(o H / OH), ceil((o + 1) H / OH)). */
bool
gen_adaptive_pool2d(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	int lp[4], op[4];
	if (x->nd != 4 || !cg_layout_of(o, P_layout, P_NONE, "NCHW", lp) ||
	    !cg_layout_of(o, P_out_layout, P_layout, "NCHW", op) || !dtype_is_float(x->dt))
		return cg_fail(o, "expects 4-D float data in a permutation of NCHW");
	LLVMValueRef xd[4], xs[4], od[4], os[4];
	cg_canon_buf(k, x, lp, 4, xd, xs);
	cg_canon_buf(k, out, op, 4, od, os);
	DType ct = cg_float_ct(x->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMBuilderRef b = k->b;
	LLVMValueRef acc = cg_slot(k, t, 1);
	LLVMValueRef items = cg_mul(k, cg_mul(k, od[0], od[1]), od[2]);
	Loop lp_, lw, lh, lq;
	LLVMValueRef f = cg_par_begin(k, &lp_, items, cg_mul(k, cg_mul(k, items, od[3]),
				   LLVMBuildUDiv(b, cg_mul(k, xd[2], xd[3]), cg_imax(k, cg_mul(k, od[2], od[3]), cg_ci(k, 1)), "")));
	LLVMValueRef oh = LLVMBuildURem(b, f, od[2], "");
	f = LLVMBuildUDiv(b, f, od[2], "");
	LLVMValueRef c = LLVMBuildURem(b, f, od[1], ""), n = LLVMBuildUDiv(b, f, od[1], "");
	LLVMValueRef xbase = cg_add(k, cg_mul(k, n, xs[0]), cg_mul(k, c, xs[1]));
	LLVMValueRef obase = cg_add(k, cg_add(k, cg_mul(k, n, os[0]), cg_mul(k, c, os[1])), cg_mul(k, oh, os[2]));
	/* floor(a * H / OH) and ceil((a + 1) * H / OH) */
	LLVMValueRef hs = LLVMBuildUDiv(b, cg_mul(k, oh, xd[2]), od[2], "");
	LLVMValueRef he = LLVMBuildUDiv(b, cg_add(k, cg_mul(k, cg_add(k, oh, cg_ci(k, 1)), xd[2]),
					      LLVMBuildSub(b, od[2], cg_ci(k, 1), "")), od[2], "");
	LLVMValueRef ow = cg_loop_begin(k, &lw, od[3]);
	LLVMValueRef ws = LLVMBuildUDiv(b, cg_mul(k, ow, xd[3]), od[3], "");
	LLVMValueRef we = LLVMBuildUDiv(b, cg_add(k, cg_mul(k, cg_add(k, ow, cg_ci(k, 1)), xd[3]),
					      LLVMBuildSub(b, od[3], cg_ci(k, 1), "")), od[3], "");
	LLVMBuildStore(b, cg_cconst(k, ct, 0), acc);
	LLVMValueRef ih = cg_add(k, hs, cg_loop_begin(k, &lh, LLVMBuildSub(b, he, hs, "")));
	LLVMValueRef iw = cg_add(k, ws, cg_loop_begin(k, &lq, LLVMBuildSub(b, we, ws, "")));
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, xbase, cg_add(k, cg_mul(k, ih, xs[2]), cg_mul(k, iw, xs[3])))), x->dt, ct);
	LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, acc, ""), v, "")), acc);
	cg_loop_end(k, &lq);
	cg_loop_end(k, &lh);
	LLVMValueRef cntv = cg_mul(k, LLVMBuildSub(b, he, hs, ""), LLVMBuildSub(b, we, ws, ""));
	LLVMValueRef r = LLVMBuildFDiv(b, LLVMBuildLoad2(b, t, acc, ""),
				       LLVMBuildSIToFP(b, cg_imax(k, cntv, cg_ci(k, 1)), t, ""), "");
	cg_st(k, out, cg_add(k, obase, cg_mul(k, ow, os[3])), cg_cvt(k, r, ct, out->dt));
	cg_loop_end(k, &lw);
	cg_loop_end(k, &lp_);
	return true;
}

/* ---------------------------------------------------- convolutions */

/* floor(a / s) for a constant s > 0 */
static LLVMValueRef
floordiv_c(KernelBuilder *k, LLVMValueRef a, int64_t s)
{
	LLVMValueRef q = LLVMBuildSDiv(k->b, a, cg_ci(k, s), "");
	LLVMValueRef r = LLVMBuildSRem(k->b, a, cg_ci(k, s), "");
	return LLVMBuildSelect(k->b, LLVMBuildICmp(k->b, LLVMIntSLT, r, cg_ci(k, 0), ""),
			       LLVMBuildSub(k->b, q, cg_ci(k, 1), ""), q, "");
}

/*
 * The regular convolution when the result's dtype is the accumulator's
 * and its W dim is innermost: each output row (n, o, oh) is zeroed, then
 * for every (c, kh, kw) the row gets x's row times one weight added over
 * the range of ow whose input column is inside x, a unit-stride loop the
 * optimizer vectorizes (for stride 1 and x's W innermost).
 */
static bool
conv_rows(KernelBuilder *k, LLVMValueRef *xd, LLVMValueRef *xs, LLVMValueRef *wd, LLVMValueRef *ws,
	  LLVMValueRef *od, LLVMValueRef *os, const int64_t *st2, const int64_t *dil,
	  const int64_t *pad, LLVMValueRef Og, LLVMValueRef Cg)
{
	Buf *x = &k->buf[0], *w = &k->buf[1], *out = &k->buf[2];
	LLVMBuilderRef b = k->b;
	DType acct = out->dt;
	bool fl = dtype_is_float(acct);
	LLVMValueRef items = cg_mul(k, cg_mul(k, od[0], od[1]), od[2]);
	LLVMValueRef work = cg_mul(k, cg_mul(k, items, od[3]), cg_mul(k, Cg, cg_mul(k, wd[2], wd[3])));
	Loop lp, lz, lc, lh, lk, lw;
	LLVMValueRef f = cg_par_begin(k, &lp, items, work);
	LLVMValueRef oh = LLVMBuildURem(b, f, od[2], "");
	f = LLVMBuildUDiv(b, f, od[2], "");
	LLVMValueRef o = LLVMBuildURem(b, f, od[1], ""), n = LLVMBuildUDiv(b, f, od[1], "");
	LLVMValueRef c0 = cg_mul(k, LLVMBuildSDiv(b, o, Og, ""), Cg);
	LLVMValueRef obase = cg_add(k, cg_add(k, cg_mul(k, n, os[0]), cg_mul(k, o, os[1])), cg_mul(k, oh, os[2]));
	LLVMValueRef z = cg_loop_begin(k, &lz, od[3]);
	cg_st(k, out, cg_add(k, obase, z), cg_cconst(k, acct, 0));
	cg_loop_end(k, &lz);
	LLVMValueRef c = cg_loop_begin(k, &lc, Cg);
	LLVMValueRef xc = cg_add(k, cg_mul(k, n, xs[0]), cg_mul(k, cg_add(k, c0, c), xs[1]));
	LLVMValueRef wc = cg_add(k, cg_mul(k, o, ws[0]), cg_mul(k, c, ws[1]));
	LLVMValueRef kh = cg_loop_begin(k, &lh, wd[2]);
	LLVMValueRef ih = cg_add(k, LLVMBuildSub(b, cg_mul(k, oh, cg_ci(k, st2[0])), cg_ci(k, pad[0]), ""),
			      cg_mul(k, kh, cg_ci(k, dil[0])));
	LLVMBasicBlockRef in_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "inh");
	LLVMBasicBlockRef next_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "nexth");
	LLVMBuildCondBr(b, cg_inside(k, ih, xd[2]), in_h, next_h);
	LLVMPositionBuilderAtEnd(b, in_h);
	LLVMValueRef xr = cg_add(k, xc, cg_mul(k, ih, xs[2]));
	LLVMValueRef wr = cg_add(k, wc, cg_mul(k, kh, ws[2]));
	LLVMValueRef kw = cg_loop_begin(k, &lk, wd[3]);
	/* columns iw = ow*s - pl + kw*d inside [0, W) */
	LLVMValueRef off = LLVMBuildSub(b, cg_mul(k, kw, cg_ci(k, dil[1])), cg_ci(k, pad[1]), "");
	/* lo = max(0, ceil(-off / s)) = max(0, -floor(off / s)) */
	LLVMValueRef lo = cg_imax(k, cg_ci(k, 0), LLVMBuildSub(b, cg_ci(k, 0), floordiv_c(k, off, st2[1]), ""));
	LLVMValueRef hi = cg_imin(k, od[3], cg_add(k, floordiv_c(k, LLVMBuildSub(b, LLVMBuildSub(b, xd[3], cg_ci(k, 1), ""),
							       off, ""), st2[1]), cg_ci(k, 1)));
	LLVMValueRef wv = cg_cvt(k, cg_ld(k, w, cg_add(k, wr, cg_mul(k, kw, ws[3]))), w->dt, acct);
	LLVMValueRef ow = cg_loop_from(k, &lw, lo, hi);
	lw.keep = true;
	LLVMValueRef iw = cg_add(k, cg_mul(k, ow, cg_ci(k, st2[1])), off);
	LLVMValueRef xv = cg_cvt(k, cg_ld(k, x, cg_add(k, xr, cg_mul(k, iw, xs[3]))), x->dt, acct);
	LLVMValueRef oo = cg_add(k, obase, ow);
	LLVMValueRef cur = cg_ld(k, out, oo);
	LLVMValueRef sum = fl ? cg_contract(LLVMBuildFAdd(b, cur, cg_contract(LLVMBuildFMul(b, xv, wv, "")), ""))
			      : LLVMBuildAdd(b, cur, LLVMBuildMul(b, xv, wv, ""), "");
	cg_st(k, out, oo, sum);
	cg_loop_end(k, &lw);
	cg_loop_end(k, &lk);
	LLVMBuildBr(b, next_h);
	LLVMPositionBuilderAtEnd(b, next_h);
	cg_loop_end(k, &lh);
	cg_loop_end(k, &lc);
	cg_loop_end(k, &lp);
	return true;
}

/* A buffer's dims and strides on the canonical axes of perm, 4-D: a 1-D
 * convolution's (N, C, W) as (N, C, 1, W). */
static void
conv_canon(KernelBuilder *k, Buf *bf, const int *perm, bool one, LLVMValueRef *d, LLVMValueRef *s)
{
	if (!one) {
		cg_canon_buf(k, bf, perm, 4, d, s);
		return;
	}
	LLVMValueRef d3[3], s3[3];
	cg_canon_buf(k, bf, perm, 3, d3, s3);
	d[0] = d3[0]; d[1] = d3[1]; d[2] = cg_ci(k, 1); d[3] = d3[2];
	s[0] = s3[0]; s[1] = s3[1]; s[2] = cg_ci(k, 0); s[3] = s3[2];
}

/* The position along a spatial axis of x (extent ext, stride st, dilation
 * dil, leading padding pad) that output position o and kernel position kk
 * read, and in *ok whether it is inside x: o st - pad + kk dil, or for a
 * transposed convolution (o + pad - kk dil) / st when st divides it. */
static LLVMValueRef
conv_in_pos(KernelBuilder *k, bool tr, LLVMValueRef o, LLVMValueRef kk, int64_t st, int64_t dil,
	    int64_t pad, LLVMValueRef ext, LLVMValueRef *ok)
{
	LLVMBuilderRef b = k->b;
	if (!tr) {
		LLVMValueRef i = cg_add(k, LLVMBuildSub(b, cg_mul(k, o, cg_ci(k, st)), cg_ci(k, pad), ""),
					cg_mul(k, kk, cg_ci(k, dil)));
		*ok = cg_inside(k, i, ext);
		return i;
	}
	LLVMValueRef num = LLVMBuildSub(b, cg_add(k, o, cg_ci(k, pad)), cg_mul(k, kk, cg_ci(k, dil)), "");
	LLVMValueRef i = LLVMBuildSDiv(b, num, cg_ci(k, st), "");
	*ok = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, num, cg_ci(k, 0), ""),
			   LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildSRem(b, num, cg_ci(k, st), ""), cg_ci(k, 0), ""), "");
	*ok = LLVMBuildAnd(b, *ok, cg_inside(k, i, ext), "");
	return i;
}

/*
 * nn.conv1d, nn.conv2d (any layouts: strides by canonical axis) and
 * nn.conv2d_transpose. A 1-D convolution is a 2-D one of height 1.
 *   regular:    out[n, o, oh, ow] = Σ_{c, kh, kw} x[n, g Cg + c, oh sh - pt +
 *               kh dh, ow sw - pl + kw dw] w[o, c, kh, kw], g = o / (O/groups)
 *   transposed: out[n, o, oh, ow] = Σ_{c in group g, kh, kw} x[n, c, ih, iw]
 *               w[c, o mod Og, kh, kw] where ih sh = oh + pt - kh dh (exactly)
 * A parallel loop over (n, o, oh), then ow, then the reduction,
 * accumulated in f32 (f64 for f64; the result's dtype for integers);
 * positions outside x read nothing.
 */
bool
gen_conv(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *w = &k->buf[1], *out = &k->buf[2];
	OpKind op = o->e->call.op;
	bool tr = op == OP_CONV2D_TRANSPOSE, one = op == OP_CONV1D;
	int nsp = one ? 1 : 2, nd = nsp + 2;
	if (k->nin != 2 || x->nd != nd || w->nd != nd || out->nd != nd)
		return cg_fail(o, "expects data and weight of the layout's rank");
	int dp[4], kp[4], opm[4];
	const char *dc = one ? "NCW" : "NCHW", *kc = one ? "OIW" : tr ? "IOHW" : "OIHW";
	if (!cg_layout_of(o, P_data_layout, P_NONE, dc, dp) || !cg_layout_of(o, P_kernel_layout, P_NONE, kc, kp) ||
	    !cg_layout_of(o, P_out_layout, P_data_layout, dc, opm))
		return cg_fail(o, arena_printf(&k->m->arena, "layouts must be permutations of %s "
					    "(data, result) and %s (weight)", dc, kc));
	int64_t st2[2] = {1, 1}, dil[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
	int64_t groups = cg_attr(o, P_groups).i, sv[2], dv[2], pv[4];
	if (!ints_n(o, P_strides, nsp, sv) || !ints_n(o, P_dilation, nsp, dv) ||
	    !ints_n(o, P_padding, 2 * nsp, pv) || groups <= 0)
		return cg_fail(o, "bad strides, dilation, padding or groups");
	for (int i = 0; i < nsp; i++) {
		int j = i + 2 - nsp; /* the canonical spatial slot: 1-D uses W */
		st2[j] = sv[i];
		dil[j] = dv[i];
		pad[j] = pv[i];
		pad[j + 2] = pv[i + nsp];
	}
	/* (output_padding only widens the result, whose shape is given) */
	LLVMValueRef xd[4], xs[4], wd[4], ws[4], od[4], os[4];
	conv_canon(k, x, dp, one, xd, xs);
	conv_canon(k, w, kp, one, wd, ws);
	conv_canon(k, out, opm, one, od, os);
	DType acct = dtype_is_float(out->dt) ? cg_float_ct(out->dt)
					     : out->dt == DT_BOOL ? DT_I64 : out->dt;
	bool fl = dtype_is_float(acct);
	LLVMTypeRef at = cg_ctype(k, acct);
	LLVMBuilderRef b = k->b;
	/* weight canonical axes: (O, I) regular, (I, O) transposed */
	LLVMValueRef Og = tr ? wd[1] : LLVMBuildSDiv(b, wd[0], cg_ci(k, groups), "");
	LLVMValueRef Cg = tr ? LLVMBuildSDiv(b, xd[1], cg_ci(k, groups), "") : wd[1];
	LLVMValueRef KH = wd[2], KW = wd[3];
	LLVMValueRef items = cg_mul(k, cg_mul(k, od[0], od[1]), od[2]);
	LLVMValueRef work = cg_mul(k, cg_mul(k, items, od[3]), cg_mul(k, Cg, cg_mul(k, KH, KW)));
	LLVMValueRef acc = cg_slot(k, at, 1);
	bool wlast = one ? opm[2] == 2 : opm[3] == 3;
	if (!tr && acct == out->dt && wlast)
		return conv_rows(k, xd, xs, wd, ws, od, os, st2, dil, pad, Og, Cg);
	Loop lp, lw, lc, lh, lk;
	LLVMValueRef f = cg_par_begin(k, &lp, items, work);
	LLVMValueRef oh = LLVMBuildURem(b, f, od[2], "");
	f = LLVMBuildUDiv(b, f, od[2], "");
	LLVMValueRef oi = LLVMBuildURem(b, f, od[1], "");
	LLVMValueRef n = LLVMBuildUDiv(b, f, od[1], "");
	LLVMValueRef g = LLVMBuildSDiv(b, oi, Og, "");
	LLVMValueRef c0 = cg_mul(k, g, Cg);
	LLVMValueRef wo = tr ? LLVMBuildSRem(b, oi, Og, "") : oi;
	LLVMValueRef obase = cg_add(k, cg_add(k, cg_mul(k, n, os[0]), cg_mul(k, oi, os[1])), cg_mul(k, oh, os[2]));
	LLVMValueRef ow = cg_loop_begin(k, &lw, od[3]);
	LLVMBuildStore(b, cg_cconst(k, acct, 0), acc);
	LLVMValueRef c = cg_loop_begin(k, &lc, Cg);
	LLVMValueRef xc = cg_add(k, cg_mul(k, n, xs[0]), cg_mul(k, cg_add(k, c0, c), xs[1]));
	LLVMValueRef wc = tr ? cg_add(k, cg_mul(k, cg_add(k, c0, c), ws[0]), cg_mul(k, wo, ws[1]))
			     : cg_add(k, cg_mul(k, wo, ws[0]), cg_mul(k, c, ws[1]));
	LLVMValueRef kh = cg_loop_begin(k, &lh, KH);
	LLVMValueRef okh, ih = conv_in_pos(k, tr, oh, kh, st2[0], dil[0], pad[0], xd[2], &okh);
	/* rows outside x add nothing: skip them */
	LLVMBasicBlockRef in_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "inh");
	LLVMBasicBlockRef next_h = LLVMAppendBasicBlockInContext(k->c, k->fn, "nexth");
	LLVMBuildCondBr(b, okh, in_h, next_h);
	LLVMPositionBuilderAtEnd(b, in_h);
	LLVMValueRef xr = cg_add(k, xc, cg_mul(k, ih, xs[2]));
	LLVMValueRef wr = cg_add(k, wc, cg_mul(k, kh, ws[2]));
	LLVMValueRef kw = cg_loop_begin(k, &lk, KW);
	LLVMValueRef inw, iw = conv_in_pos(k, tr, ow, kw, st2[1], dil[1], pad[1], xd[3], &inw);
	LLVMValueRef xo = cg_add(k, xr, cg_mul(k, LLVMBuildSelect(b, inw, iw, cg_ci(k, 0), ""), xs[3]));
	LLVMValueRef xv = cg_cvt(k, cg_ld(k, x, xo), x->dt, acct);
	xv = LLVMBuildSelect(b, inw, xv, cg_cconst(k, acct, 0), "");
	LLVMValueRef wv = cg_cvt(k, cg_ld(k, w, cg_add(k, wr, cg_mul(k, kw, ws[3]))), w->dt, acct);
	LLVMValueRef cur = LLVMBuildLoad2(b, at, acc, "");
	LLVMValueRef sum = fl ? cg_contract(LLVMBuildFAdd(b, cur, cg_contract(LLVMBuildFMul(b, xv, wv, "")), ""))
			      : LLVMBuildAdd(b, cur, LLVMBuildMul(b, xv, wv, ""), "");
	LLVMBuildStore(b, sum, acc);
	cg_loop_end(k, &lk);
	LLVMBuildBr(b, next_h);
	LLVMPositionBuilderAtEnd(b, next_h);
	cg_loop_end(k, &lh);
	cg_loop_end(k, &lc);
	cg_st(k, out, cg_add(k, obase, cg_mul(k, ow, os[3])), cg_cvt(k, LLVMBuildLoad2(b, at, acc, ""), acct, out->dt));
	cg_loop_end(k, &lw);
	cg_loop_end(k, &lp);
	return true;
}

/* ----------------------------------------------------------- norms */

/*
 * nn.batch_norm: per channel c of axis (the parallel loop), over the
 * other dims (outer x inner): training computes the batch mean and
 * (population) variance, normalizes with them and returns the moving
 * statistics updated by momentum, as TVM's topi does; inference
 * normalizes with the moving statistics and returns them unchanged.
 */
bool
gen_batch_norm(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[5];
	int ax;
	if (k->nin != 5 || k->nout != 3 || !cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax) || x->nd == 0)
		return cg_fail(o, "expects data, 4 parameters, an axis in range and 3 results");
	bool training = cg_attr(o, P_training).i, center = cg_attr(o, P_center).i, scale = cg_attr(o, P_scale).i;
	double eps = cg_attr(o, P_epsilon).f, mom = cg_attr(o, P_momentum).f;
	DType ct = cg_float_ct(x->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMBuilderRef b = k->b;
	LLVMValueRef outer = cg_prod(k, x->dim, 0, ax), C = x->dim[ax], inner = cg_prod(k, x->dim, ax + 1, x->nd);
	LLVMValueRef cnt = LLVMBuildSIToFP(b, cg_mul(k, outer, inner), t, "");
	LLVMValueRef acc = cg_slot(k, t, 1);
	Loop lc, lo, li, lo2, li2;
	LLVMValueRef c = cg_par_begin(k, &lc, C, cg_mul(k, cg_mul(k, outer, inner), C));
	LLVMValueRef pv[4];
	for (int i = 0; i < 4; i++)
		pv[i] = cg_cvt(k, cg_ld(k, &k->buf[1 + i], c), k->buf[1 + i].dt, ct);
	LLVMValueRef mean = pv[2], var = pv[3];
	if (training) {
		LLVMBuildStore(b, cg_cconst(k, ct, 0), acc);
		LLVMValueRef oi = cg_loop_begin(k, &lo, outer);
		LLVMValueRef i = cg_loop_begin(k, &li, inner);
		LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, oi, C), c), inner), i)), x->dt, ct);
		LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, acc, ""), v, "")), acc);
		cg_loop_end(k, &li);
		cg_loop_end(k, &lo);
		mean = LLVMBuildFDiv(b, LLVMBuildLoad2(b, t, acc, ""), cnt, "");
		LLVMBuildStore(b, cg_cconst(k, ct, 0), acc);
		oi = cg_loop_begin(k, &lo2, outer);
		i = cg_loop_begin(k, &li2, inner);
		v = cg_cvt(k, cg_ld(k, x, cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, oi, C), c), inner), i)), x->dt, ct);
		v = LLVMBuildFSub(b, v, mean, "");
		LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, acc, ""),
							 cg_contract(LLVMBuildFMul(b, v, v, "")), "")), acc);
		cg_loop_end(k, &li2);
		cg_loop_end(k, &lo2);
		var = LLVMBuildFDiv(b, LLVMBuildLoad2(b, t, acc, ""), cnt, "");
	}
	LLVMValueRef r = LLVMBuildFDiv(b, cg_cconst(k, ct, 1),
				       cg_fn1(k, "llvm.sqrt", LLVMBuildFAdd(b, var, cg_cconst(k, ct, eps), "")), "");
	LLVMValueRef sc = scale ? LLVMBuildFMul(b, r, pv[0], "") : r;
	LLVMValueRef sh = center ? pv[1] : cg_cconst(k, ct, 0);
	Loop lo3, li3;
	LLVMValueRef oi = cg_loop_begin(k, &lo3, outer);
	LLVMValueRef i = cg_loop_begin(k, &li3, inner);
	LLVMValueRef off = cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, oi, C), c), inner), i);
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, off), x->dt, ct);
	v = LLVMBuildFAdd(b, LLVMBuildFMul(b, LLVMBuildFSub(b, v, mean, ""), sc, ""), sh, "");
	cg_st(k, out, off, cg_cvt(k, v, ct, out->dt));
	cg_loop_end(k, &li3);
	cg_loop_end(k, &lo3);
	LLVMValueRef nm = pv[2], nv = pv[3];
	if (training) {
		LLVMValueRef m1 = cg_cconst(k, ct, 1 - mom), m = cg_cconst(k, ct, mom);
		nm = LLVMBuildFAdd(b, LLVMBuildFMul(b, m1, pv[2], ""), LLVMBuildFMul(b, m, mean, ""), "");
		nv = LLVMBuildFAdd(b, LLVMBuildFMul(b, m1, pv[3], ""), LLVMBuildFMul(b, m, var, ""), "");
	}
	cg_st(k, &k->buf[6], c, cg_cvt(k, nm, ct, k->buf[6].dt));
	cg_st(k, &k->buf[7], c, cg_cvt(k, nv, ct, k->buf[7].dt));
	cg_loop_end(k, &lc);
	return true;
}

/*
 * nn.group_norm / nn.instance_norm (one channel per group): the data's
 * dims are batch-like (neither the channel axis nor normalized), the
 * channel axis, or normalized; for each batch position and group (the
 * parallel loop) the mean and variance over the group's channels and the
 * normalized dims, then y = (x - mean) / sqrt(var + eps) * gamma + beta.
 */
bool
gen_group_norm(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[3];
	int nd = x->nd, ca;
	bool gn = o->e->call.op == OP_GROUP_NORM;
	AttrVal axes = cg_attr(o, P_axes);
	if (k->nin != 3 || !cg_norm_axis(cg_attr(o, P_channel_axis).i, nd, &ca) || axes.kind != AV_INTS)
		return cg_fail(o, "expects data, gamma, beta, a channel axis and axes");
	bool normd[MAXD] = {0};
	for (int i = 0; i < axes.n; i++) {
		int a;
		if (!cg_norm_axis(axes.ints[i], nd, &a))
			return cg_fail(o, "axes out of range");
		normd[a] = true;
	}
	int64_t G = gn ? cg_attr(o, P_num_groups).i : 0;
	bool center = cg_attr(o, P_center).i, scale = cg_attr(o, P_scale).i;
	double eps = cg_attr(o, P_epsilon).f;
	LLVMValueRef xs[MAXD], bd[MAXD], bs[MAXD], rd[MAXD + 1], rs[MAXD + 1];
	cg_strides(k, x, xs);
	int nb = 0, nr = 0;
	LLVMValueRef C = x->dim[ca];
	LLVMValueRef groups = gn ? cg_ci(k, G) : C;
	LLVMValueRef Cg = LLVMBuildSDiv(k->b, C, cg_imax(k, groups, cg_ci(k, 1)), "");
	rd[nr] = Cg; /* the group's channels first */
	rs[nr++] = xs[ca];
	for (int i = 0; i < nd; i++) {
		if (i == ca)
			continue;
		if (normd[i]) {
			rd[nr] = x->dim[i];
			rs[nr++] = xs[i];
		} else {
			bd[nb] = x->dim[i];
			bs[nb++] = xs[i];
		}
	}
	DType ct = cg_float_ct(x->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMBuilderRef b = k->b;
	LLVMValueRef count = cg_prod(k, rd, 0, nr);
	LLVMValueRef cntf = LLVMBuildSIToFP(b, count, t, "");
	LLVMValueRef acc = cg_slot(k, t, 1);
	LLVMValueRef items = cg_mul(k, cg_prod(k, bd, 0, nb), groups);
	Loop lp;
	Nest n1, n2, n3;
	LLVMValueRef f = cg_par_begin(k, &lp, items, cg_mul(k, items, count));
	LLVMValueRef g = LLVMBuildURem(b, f, groups, "");
	f = LLVMBuildUDiv(b, f, groups, "");
	LLVMValueRef base = cg_mul(k, cg_mul(k, g, Cg), xs[ca]);
	for (int i = nb - 1; i >= 0; i--) {
		LLVMValueRef ii = i ? LLVMBuildURem(b, f, bd[i], "") : f;
		if (i)
			f = LLVMBuildUDiv(b, f, bd[i], "");
		base = cg_add(k, base, cg_mul(k, ii, bs[i]));
	}
	LLVMValueRef ridx[MAXD + 1];
	LLVMBuildStore(b, cg_cconst(k, ct, 0), acc);
	cg_nest_begin(k, &n1, rd, nr, ridx);
	LLVMValueRef v = cg_cvt(k, cg_ld(k, x, cg_add(k, base, cg_dot(k, ridx, rs, nr))), x->dt, ct);
	LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, acc, ""), v, "")), acc);
	cg_nest_end(k, &n1);
	LLVMValueRef mean = LLVMBuildFDiv(b, LLVMBuildLoad2(b, t, acc, ""), cntf, "");
	LLVMBuildStore(b, cg_cconst(k, ct, 0), acc);
	cg_nest_begin(k, &n2, rd, nr, ridx);
	v = LLVMBuildFSub(b, cg_cvt(k, cg_ld(k, x, cg_add(k, base, cg_dot(k, ridx, rs, nr))), x->dt, ct), mean, "");
	LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, acc, ""),
						 cg_contract(LLVMBuildFMul(b, v, v, "")), "")), acc);
	cg_nest_end(k, &n2);
	LLVMValueRef var = LLVMBuildFDiv(b, LLVMBuildLoad2(b, t, acc, ""), cntf, "");
	LLVMValueRef r = LLVMBuildFDiv(b, cg_cconst(k, ct, 1),
				       cg_fn1(k, "llvm.sqrt", LLVMBuildFAdd(b, var, cg_cconst(k, ct, eps), "")), "");
	cg_nest_begin(k, &n3, rd, nr, ridx);
	LLVMValueRef off = cg_add(k, base, cg_dot(k, ridx, rs, nr));
	LLVMValueRef ch = cg_add(k, cg_mul(k, g, Cg), ridx[0]);
	v = LLVMBuildFMul(b, LLVMBuildFSub(b, cg_cvt(k, cg_ld(k, x, off), x->dt, ct), mean, ""), r, "");
	if (scale)
		v = LLVMBuildFMul(b, v, cg_cvt(k, cg_ld(k, &k->buf[1], ch), k->buf[1].dt, ct), "");
	if (center)
		v = LLVMBuildFAdd(b, v, cg_cvt(k, cg_ld(k, &k->buf[2], ch), k->buf[2].dt, ct), "");
	cg_st(k, out, off, cg_cvt(k, v, ct, out->dt));
	cg_nest_end(k, &n3);
	cg_loop_end(k, &lp);
	return true;
}

/* ------------------------------------------------------- attention */

/*
 * nn.attention(q (B, Sq, Hq, D), k (B, Sk, Hk, D), v (B, Sk, Hk, Dv)
 * [, bias broadcasting to (B, Hq, Sq, Sk)]): for each (b, h, i) (the
 * parallel loop) the scores s_j = scale q.k_j + bias over the keys the
 * causal mask keeps (TopLeft: j <= i; BottomRight: j <= i + Sk - Sq),
 * a first pass for their max, a second for exp(s_j - max) summed and
 * weighting v_j into Dv accumulators; in f32 (f64 for f64). Query heads
 * share key heads in groups of Hq / Hk. Dv must be static.
 */
bool
gen_attention(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *q = &k->buf[0], *kk = &k->buf[1], *v = &k->buf[2], *out = &k->buf[k->nin];
	bool has_bias = k->nin == 4;
	if (q->nd != 4 || kk->nd != 4 || v->nd != 4 || out->nd != 4)
		return cg_fail(o, "expects 4-D query, key and value");
	if (cg_attr(o, P_window_size).kind != AV_NONE)
		return cg_fail(o, "window_size is not supported (TVM's own CPU legalization refuses it too)");
	int64_t dvc;
	const SInfo *vs = o->e->call.args[2]->sinfo;
	if (!vs || !vs->shape || !cg_pe_const(vs->shape[3], &dvc) || dvc < 1 || dvc > 1024)
		return cg_fail(o, "the value's head dim must be static (at most 1024)");
	AttrVal cm = cg_attr(o, P_causal_mask), sc = cg_attr(o, P_scale);
	int causal = cm.kind == AV_STR ? (!strcmp(cm.s, "TopLeft") ? 1 : 2) : 0;
	DType ct = cg_float_ct(out->dt);
	LLVMTypeRef t = cg_ctype(k, ct);
	LLVMBuilderRef b = k->b;
	LLVMValueRef B = q->dim[0], Sq = q->dim[1], Hq = q->dim[2], D = q->dim[3];
	LLVMValueRef Sk = kk->dim[1], Hk = kk->dim[2], Dv = cg_ci(k, dvc);
	LLVMValueRef scale = sc.kind == AV_FLOAT ? cg_cconst(k, ct, sc.f)
		: LLVMBuildFDiv(b, cg_cconst(k, ct, 1), cg_fn1(k, "llvm.sqrt", LLVMBuildSIToFP(b, D, t, "")), "");
	LLVMValueRef grp = LLVMBuildSDiv(b, Hq, cg_imax(k, Hk, cg_ci(k, 1)), "");
	LLVMValueRef accv = cg_slot(k, t, dvc), mx = cg_slot(k, t, 1), sum = cg_slot(k, t, 1), dsum = cg_slot(k, t, 1);
	LLVMValueRef items = cg_mul(k, cg_mul(k, B, Hq), Sq);
	Loop lp, l1, ld1, l2, ld2, lz, lo;
	LLVMValueRef f = cg_par_begin(k, &lp, items, cg_mul(k, cg_mul(k, items, Sk), cg_add(k, D, Dv)));
	LLVMValueRef i = LLVMBuildURem(b, f, Sq, "");
	f = LLVMBuildUDiv(b, f, Sq, "");
	LLVMValueRef h = LLVMBuildURem(b, f, Hq, ""), bb = LLVMBuildUDiv(b, f, Hq, "");
	LLVMValueRef hk = LLVMBuildSDiv(b, h, cg_imax(k, grp, cg_ci(k, 1)), "");
	LLVMValueRef qoff = cg_mul(k, cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, bb, Sq), i), Hq), h), D);
	LLVMValueRef jn = Sk;
	if (causal)
		jn = cg_imax(k, cg_imin(k, Sk, cg_add(k, cg_add(k, i, cg_ci(k, 1)),
					   causal == 2 ? LLVMBuildSub(b, Sk, Sq, "") : cg_ci(k, 0))), cg_ci(k, 0));
	/* the bias element of (bb, h, i, j), dims of 1 broadcast */
	LLVMValueRef bbase = NULL, bsj = NULL;
	Buf *bs = has_bias ? &k->buf[3] : NULL;
	if (bs) {
		LLVMValueRef st_[MAXD], ix[4] = {bb, h, i, cg_ci(k, 0)};
		cg_strides(k, bs, st_);
		bbase = cg_ci(k, 0);
		for (int d = 0; d < 3; d++) {
			LLVMValueRef one = LLVMBuildICmp(b, LLVMIntEQ, bs->dim[d], cg_ci(k, 1), "");
			bbase = cg_add(k, bbase, cg_mul(k, LLVMBuildSelect(b, one, cg_ci(k, 0), ix[d], ""), st_[d]));
		}
		bsj = st_[3];
	}
	/* score j: scale * q . k_j (+ bias) */
	LLVMValueRef kbase = cg_mul(k, cg_add(k, cg_mul(k, bb, cg_mul(k, Sk, Hk)), hk), D);
	LLVMValueRef krow = cg_mul(k, Hk, D); /* key j's offset step */
#define SCORE(lj, ldl, out_s) do { \
		LLVMValueRef ko_ = cg_add(k, kbase, cg_mul(k, (lj), krow)); \
		LLVMBuildStore(b, cg_cconst(k, ct, 0), dsum); \
		LLVMValueRef d_ = cg_loop_begin(k, &(ldl), D); \
		LLVMValueRef qv_ = cg_cvt(k, cg_ld(k, q, cg_add(k, qoff, d_)), q->dt, ct); \
		LLVMValueRef kv_ = cg_cvt(k, cg_ld(k, kk, cg_add(k, ko_, d_)), kk->dt, ct); \
		LLVMBuildStore(b, cg_reassoc(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, dsum, ""), \
			cg_reassoc(LLVMBuildFMul(b, qv_, kv_, "")), "")), dsum); \
		cg_loop_end(k, &(ldl)); \
		(out_s) = LLVMBuildFMul(b, LLVMBuildLoad2(b, t, dsum, ""), scale, ""); \
		if (bs) \
			(out_s) = LLVMBuildFAdd(b, (out_s), cg_cvt(k, cg_ld(k, bs, cg_add(k, bbase, \
				cg_mul(k, (lj), bsj))), bs->dt, ct), ""); \
	} while (0)
	LLVMBuildStore(b, cg_cconst(k, ct, -INFINITY), mx);
	LLVMValueRef j = cg_loop_begin(k, &l1, jn), s = NULL;
	SCORE(j, ld1, s);
	LLVMBuildStore(b, cg_vmax(k, LLVMBuildLoad2(b, t, mx, ""), s, ct, true), mx);
	cg_loop_end(k, &l1);
	LLVMValueRef m = LLVMBuildLoad2(b, t, mx, "");
	LLVMBuildStore(b, cg_cconst(k, ct, 0), sum);
	LLVMValueRef z = cg_loop_begin(k, &lz, Dv);
	LLVMBuildStore(b, cg_cconst(k, ct, 0), LLVMBuildInBoundsGEP2(b, t, accv, &z, 1, ""));
	cg_loop_end(k, &lz);
	j = cg_loop_begin(k, &l2, jn);
	SCORE(j, ld2, s);
#undef SCORE
	LLVMValueRef p = cg_fexp(k, LLVMBuildFSub(b, s, m, ""));
	LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, sum, ""), p, ""), sum);
	LLVMValueRef vo = cg_mul(k, cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, bb, Sk), j), Hk), hk), Dv);
	Loop lv;
	LLVMValueRef dd = cg_loop_begin(k, &lv, Dv);
	LLVMValueRef ap = LLVMBuildInBoundsGEP2(b, t, accv, &dd, 1, "");
	LLVMValueRef vv = cg_cvt(k, cg_ld(k, v, cg_add(k, vo, dd)), v->dt, ct);
	LLVMBuildStore(b, cg_contract(LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, ap, ""),
						  cg_contract(LLVMBuildFMul(b, p, vv, "")), "")), ap);
	cg_loop_end(k, &lv);
	cg_loop_end(k, &l2);
	LLVMValueRef rl = LLVMBuildFDiv(b, cg_cconst(k, ct, 1), LLVMBuildLoad2(b, t, sum, ""), "");
	LLVMValueRef ooff = cg_mul(k, cg_add(k, cg_mul(k, cg_add(k, cg_mul(k, bb, Sq), i), Hq), h), Dv);
	dd = cg_loop_begin(k, &lo, Dv);
	LLVMValueRef av = LLVMBuildLoad2(b, t, LLVMBuildInBoundsGEP2(b, t, accv, &dd, 1, ""), "");
	cg_st(k, out, cg_add(k, ooff, dd), cg_cvt(k, LLVMBuildFMul(b, av, rl, ""), ct, out->dt));
	cg_loop_end(k, &lo);
	cg_loop_end(k, &lp);
	return true;
}

/* nn.dropout in inference: the data, and a mask of ones. */
bool
gen_dropout(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *ob = &k->buf[1], *mk = &k->buf[2];
	LLVMValueRef n = cg_prod(k, x->dim, 0, x->nd);
	Loop l;
	LLVMValueRef i = cg_loop_begin(k, &l, n);
	cg_st(k, ob, i, cg_cvt(k, cg_ld(k, x, i), x->dt, ob->dt));
	cg_st(k, mk, i, cg_cconst(k, cg_cdt(mk->dt), 1));
	cg_loop_end(k, &l);
	return true;
}

/* --------------------------------------------------------- sorting */

/* A call to the runtime's rlx_sort_row (runtime/kernels/sort.c): the row sorted,
 * its first kk values written to vals (unless NULL), its first kk
 * positions returned in a malloc'ed int64 array when want_idx (else
 * NULL). */
static LLVMValueRef
sort_row(KernelBuilder *k, LLVMValueRef row, LLVMValueRef stride, DType dt, LLVMValueRef n, bool desc,
	 LLVMValueRef kk, LLVMValueRef vals, LLVMValueRef vstride, bool want_idx)
{
	LLVMTypeRef pt[9] = {k->ptr, k->i64, k->i32, k->i64, k->i32, k->i64, k->ptr, k->i64,
			     k->i32};
	LLVMTypeRef ft = LLVMFunctionType(k->ptr, pt, 9, false);
	LLVMValueRef fn = LLVMGetNamedFunction(k->mod, "rlx_sort_row");
	if (!fn)
		fn = LLVMAddFunction(k->mod, "rlx_sort_row", ft);
	LLVMValueRef args[9] = {row, stride, LLVMConstInt(k->i32, (unsigned)dt, 0), n,
				LLVMConstInt(k->i32, desc, 0), kk,
				vals ? vals : LLVMConstPointerNull(k->ptr), vstride,
				LLVMConstInt(k->i32, want_idx, 0)};
	return LLVMBuildCall2(k->b, ft, fn, args, 9, "");
}

/* free(p) */
static void
call_free(KernelBuilder *k, LLVMValueRef p)
{
	LLVMTypeRef ft = LLVMFunctionType(k->vd, &k->ptr, 1, false);
	LLVMValueRef fn = LLVMGetNamedFunction(k->mod, "free");
	if (!fn)
		fn = LLVMAddFunction(k->mod, "free", ft);
	LLVMBuildCall2(k->b, ft, fn, &p, 1, "");
}

/*
 * sort / argsort / topk along axis: rows of (outer, inner) across the
 * pool; each row sorted by rlx_sort_row (stable; NaN after every
 * number, as numpy), which writes the first kk values; the first kk
 * positions it returns are written here in the index dtype. topk's largest and sort's descending sort descending.
 */
bool
gen_sort(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0];
	OpKind op = o->e->call.op;
	int ax;
	if (x->nd == 0 || !cg_norm_axis(cg_attr(o, P_axis).i, x->nd, &ax))
		return cg_fail(o, "axis out of range");
	bool desc = op == OP_TOPK ? cg_attr(o, P_largest).i : cg_attr(o, P_descending).i;
	Buf *vals = NULL, *idxs = NULL;
	if (op == OP_SORT) {
		vals = &k->buf[1];
	} else if (op == OP_ARGSORT) {
		idxs = &k->buf[1];
	} else {
		const char *rt = cg_attr(o, P_ret_type).s;
		if (!strcmp(rt, "both")) {
			vals = &k->buf[1];
			idxs = &k->buf[2];
		} else if (!strcmp(rt, "values")) {
			vals = &k->buf[1];
		} else {
			idxs = &k->buf[1];
		}
	}
	Buf *o0 = vals ? vals : idxs;
	LLVMBuilderRef b = k->b;
	LLVMValueRef outer = cg_prod(k, x->dim, 0, ax), n = x->dim[ax];
	LLVMValueRef inner = cg_prod(k, x->dim, ax + 1, x->nd), kk = o0->dim[ax];
	LLVMValueRef rows = cg_mul(k, outer, inner);
	Loop lp, lj;
	LLVMValueRef f = cg_par_begin(k, &lp, rows, cg_mul(k, rows, n));
	LLVMValueRef oi = LLVMBuildUDiv(b, f, inner, ""), i = LLVMBuildURem(b, f, inner, "");
	LLVMValueRef base = cg_add(k, cg_mul(k, cg_mul(k, oi, n), inner), i);
	LLVMValueRef obase = cg_add(k, cg_mul(k, cg_mul(k, oi, kk), inner), i);
	LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(k->c, k->fn, "sortrow");
	LLVMBasicBlockRef skip = LLVMAppendBasicBlockInContext(k->c, k->fn, "sortskip");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, n, cg_ci(k, 0), ""), go, skip);
	LLVMPositionBuilderAtEnd(b, go);
	if (vals && vals->dt != x->dt)
		return cg_fail(o, "the values must have the data's dtype");
	LLVMValueRef order = sort_row(k, cg_addr(k, x, base), inner, x->dt, n, desc, kk,
				      vals ? cg_addr(k, vals, obase) : NULL, inner, idxs != NULL);
	if (idxs) {
		LLVMValueRef j = cg_loop_begin(k, &lj, kk);
		LLVMValueRef pos = LLVMBuildLoad2(b, k->i64,
			LLVMBuildInBoundsGEP2(b, k->i64, order, &j, 1, ""), "");
		cg_st(k, idxs, cg_add(k, obase, cg_mul(k, j, inner)), cg_cvt(k, pos, DT_I64, idxs->dt));
		cg_loop_end(k, &lj);
		call_free(k, order);
	}
	LLVMBuildBr(b, skip);
	LLVMPositionBuilderAtEnd(b, skip);
	cg_loop_end(k, &lp);
	return true;
}

/* ---------------------------------------------------------- einsum */

/* The letters of expanded einsum subscripts: each operand's dims as
 * indices into letters[] (in order of first appearance), and the output's;
 * without "->", the letters seen once, in alphabetical order, as NumPy. */
typedef struct {
	int8_t letter[MAXBUF][MAXD];
	char letters[64];
	int nl;
	int oletter[MAXD], no;
} EinsumSubs;

/* Reads subscripts s of k's operands into *es; NULL, or what is wrong. */
static const char *
einsum_subs(KernelBuilder *k, const char *s, EinsumSubs *es)
{
	const char *arrow = strstr(s, "->");
	int count[128] = {0};
	const char *p = s;
	es->nl = es->no = 0;
	for (int op = 0; op < k->nin; op++) {
		int n = 0;
		while (*p && *p != ',' && (!arrow || p < arrow)) {
			char ch = *p++;
			if (ch == ' ')
				continue;
			if (n >= k->buf[op].nd || (unsigned char)ch >= 128)
				return "bad subscripts";
			bool seen = false;
			for (int i = 0; i < es->nl; i++)
				seen |= es->letters[i] == ch;
			if (!seen) {
				if (es->nl >= 63)
					return "too many subscripts";
				es->letters[es->nl++] = ch;
			}
			count[(unsigned char)ch]++;
			int li = 0;
			while (es->letters[li] != ch)
				li++;
			es->letter[op][n++] = (int8_t)li;
		}
		if (n != k->buf[op].nd)
			return "subscripts do not match the operands";
		if (*p == ',')
			p++;
	}
	if (arrow) {
		for (const char *q = arrow + 2; *q; q++) {
			if (*q == ' ')
				continue;
			int li = -1;
			for (int i = 0; i < es->nl; i++)
				if (es->letters[i] == *q)
					li = i;
			if (li < 0 || es->no >= MAXD)
				return "bad output subscripts";
			es->oletter[es->no++] = li;
		}
	} else {
		for (int ch = 'A'; ch <= 'z'; ch++)
			if (count[ch] == 1)
				for (int i = 0; i < es->nl; i++)
					if (es->letters[i] == ch && es->no < MAXD)
						es->oletter[es->no++] = i;
	}
	return NULL;
}

/*
 * einsum: for each output element (the parallel loop over the output's
 * letters) the sum over the other letters of the product of the
 * operands' elements; a letter's extent is its largest dim among the
 * operands (dims of 1 broadcast). Accumulated as matmul does. An ellipsis
 * is written out as letters first (einsum_expand, as inference does).
 */
bool
gen_einsum(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[k->nin];
	int ndims[MAXBUF];
	char sx[256];
	const char *why = "";
	for (int i = 0; i < k->nin; i++)
		ndims[i] = k->buf[i].nd;
	if (!einsum_expand(cg_attr(o, P_subscripts).s, ndims, k->nin, sx, sizeof sx, &why))
		return cg_fail(o, why);
	EinsumSubs es;
	if ((why = einsum_subs(k, sx, &es)))
		return cg_fail(o, why);
	int nl = es.nl, no = es.no, *oletter = es.oletter;
	int8_t (*letter)[MAXD] = es.letter;
	if (no != out->nd)
		return cg_fail(o, "the output subscripts do not match the result");
	bool isout[64] = {0};
	for (int i = 0; i < no; i++)
		isout[oletter[i]] = true;
	/* extents and per-operand strides by letter */
	LLVMValueRef ext[64], lst[MAXBUF][64];
	for (int i = 0; i < nl; i++)
		ext[i] = cg_ci(k, 1);
	for (int op = 0; op < k->nin; op++) {
		Buf *bf = &k->buf[op];
		LLVMValueRef sts[MAXD];
		cg_strides(k, bf, sts);
		for (int i = 0; i < nl; i++)
			lst[op][i] = cg_ci(k, 0);
		for (int d = 0; d < bf->nd; d++) {
			int li = letter[op][d];
			ext[li] = cg_imax(k, ext[li], bf->dim[d]);
			LLVMValueRef one = LLVMBuildICmp(k->b, LLVMIntEQ, bf->dim[d], cg_ci(k, 1), "");
			lst[op][li] = cg_add(k, lst[op][li], LLVMBuildSelect(k->b, one, cg_ci(k, 0), sts[d], ""));
		}
	}
	for (int i = 0; i < no; i++)
		ext[oletter[i]] = out->dim[i];
	int rl[64], nr = 0;
	for (int i = 0; i < nl; i++)
		if (!isout[i])
			rl[nr++] = i;
	if (nr > MAXD)
		return cg_fail(o, "too many summed subscripts");
	DType acct = dtype_is_float(out->dt) ? cg_float_ct(out->dt) : out->dt == DT_BOOL ? DT_I64 : out->dt;
	bool fl = dtype_is_float(acct);
	LLVMTypeRef at = cg_ctype(k, acct);
	LLVMValueRef acc = cg_slot(k, at, 1);
	LLVMValueRef total = cg_prod(k, out->dim, 0, out->nd), rdims[MAXD];
	for (int i = 0; i < nr; i++)
		rdims[i] = ext[rl[i]];
	LLVMValueRef rtotal = cg_prod(k, rdims, 0, nr);
	Loop lp;
	LLVMValueRef f = cg_par_begin(k, &lp, total, cg_mul(k, total, cg_mul(k, rtotal, cg_ci(k, k->nin))));
	LLVMValueRef oidx[MAXD], flat = f;
	for (int i = no - 1; i >= 0; i--) {
		oidx[i] = i ? LLVMBuildURem(k->b, f, out->dim[i], "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, out->dim[i], "");
	}
	LLVMValueRef obase[MAXBUF];
	for (int op = 0; op < k->nin; op++) {
		obase[op] = cg_ci(k, 0);
		for (int i = 0; i < no; i++)
			obase[op] = cg_add(k, obase[op], cg_mul(k, oidx[i], lst[op][oletter[i]]));
	}
	LLVMBuildStore(k->b, cg_cconst(k, acct, 0), acc);
	Nest ns;
	LLVMValueRef ridx[MAXD];
	cg_nest_begin(k, &ns, rdims, nr, ridx);
	LLVMValueRef prodv = cg_cconst(k, acct, 1);
	for (int op = 0; op < k->nin; op++) {
		LLVMValueRef off = obase[op];
		for (int i = 0; i < nr; i++)
			off = cg_add(k, off, cg_mul(k, ridx[i], lst[op][rl[i]]));
		LLVMValueRef v = cg_cvt(k, cg_ld(k, &k->buf[op], off), k->buf[op].dt, acct);
		prodv = fl ? LLVMBuildFMul(k->b, prodv, v, "") : LLVMBuildMul(k->b, prodv, v, "");
	}
	LLVMValueRef cur = LLVMBuildLoad2(k->b, at, acc, "");
	LLVMBuildStore(k->b, fl ? cg_reassoc(LLVMBuildFAdd(k->b, cur, prodv, "")) : LLVMBuildAdd(k->b, cur, prodv, ""), acc);
	cg_nest_end(k, &ns);
	cg_st(k, out, flat, cg_cvt(k, LLVMBuildLoad2(k->b, at, acc, ""), acct, out->dt));
	cg_loop_end(k, &lp);
	return true;
}
