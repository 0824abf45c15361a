/*
 * codegen_move.c — the data-movement kernels that are loop nests of their
 * own: views copied (gen_copy), permute_dims (register-tiled transposes),
 * concat, split, take, strided_slice, and arange. Dispatched by gen_body
 * (codegen.c); the kernel ABI and the helpers are described at the top of
 * codegen.c and declared in codegen_impl.h.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen_impl.h"

/* ------------------------------------------------------ data movement */

/* A view op (OC_VIEW: reshape, squeeze, ...): the bytes, unchanged. */
bool
gen_copy(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *in = &k->buf[0], *out = &k->buf[1];
	if (in->dt != out->dt)
		return cg_fail(o, "changes the dtype");
	LLVMValueRef n = cg_mul(k, cg_prod(k, out->dim, 0, out->nd),
			     cg_ci(k, (dtype_bits(out->dt) + 7) / 8));
	LLVMBuildMemCpy(k->b, out->ptr, 64, in->ptr, 64, n);
	return true;
}

/* A constant <n x i32> shuffle mask. */
static LLVMValueRef
shuffle_mask(KernelBuilder *k, const int *m, int n)
{
	LLVMValueRef v[64];
	for (int i = 0; i < n; i++)
		v[i] = LLVMConstInt(k->i32, (unsigned long long)m[i], 0);
	return LLVMConstVector(v, (unsigned)n);
}

/* A vector load of type t at p with the given alignment. */
static LLVMValueRef
vload(KernelBuilder *k, LLVMTypeRef t, LLVMValueRef p, unsigned align)
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
transpose_regs(KernelBuilder *k, LLVMValueRef *r, int n)
{
	int ma[64], mb[64];
	for (int d = n / 2; d >= 1; d /= 2) {
		for (int p = 0; p < n; p++) {
			ma[p] = (p & d) ? n + p - d : p;
			mb[p] = (p & d) ? n + p : p + d;
		}
		LLVMValueRef mav = shuffle_mask(k, ma, n), mbv = shuffle_mask(k, mb, n);
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
transpose_tiles(KernelBuilder *k, LLVMTypeRef vt, LLVMTypeRef et, int T, LLVMValueRef ntile,
		LLVMValueRef nqt, LLVMValueRef ibase, LLVMValueRef obase,
		LLVMValueRef q0, LLVMValueRef sr, LLVMValueRef oq, bool nt)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	unsigned bytes = LLVMGetIntTypeWidth(et) / 8;
	LLVMValueRef tv = cg_ci(k, T);
	Loop lt, lq;
	LLVMValueRef r0 = cg_mul(k, cg_loop_begin(k, &lt, ntile), tv);
	LLVMValueRef q = cg_add(k, q0, cg_mul(k, cg_loop_begin(k, &lq, nqt), tv));
	LLVMValueRef rows[64];
	LLVMValueRef ib = cg_add(k, ibase, q), ob = cg_add(k, obase, r0);
	for (int v = 0; v < T; v++) {
		LLVMValueRef o = cg_add(k, ib, cg_mul(k, cg_add(k, r0, cg_ci(k, v)), sr));
		rows[v] = vload(k, vt, LLVMBuildInBoundsGEP2(k->b, et, in->ptr, &o, 1, ""),
				bytes);
	}
	transpose_regs(k, rows, T);
	for (int v = 0; v < T; v++) {
		LLVMValueRef o = cg_add(k, ob, cg_mul(k, cg_add(k, q, cg_ci(k, v)), oq));
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
	cg_loop_end(k, &lq);
	cg_loop_end(k, &lt);
}

/* Element-by-element copy of a transpose's rows q in [qa, qb) of q, cols
 * r in [ra, Dr) (the edges of a strip). */
static void
transpose_edge(KernelBuilder *k, LLVMTypeRef et, LLVMValueRef qa, LLVMValueRef qb,
	       LLVMValueRef ra, LLVMValueRef Dr, LLVMValueRef ibase,
	       LLVMValueRef obase, LLVMValueRef sr, LLVMValueRef oq)
{
	Buf *in = &k->buf[0], *out = &k->buf[1];
	Loop lq, lr;
	LLVMValueRef q = cg_loop_from(k, &lq, qa, qb);
	LLVMValueRef r = cg_loop_from(k, &lr, ra, Dr);
	LLVMValueRef io = cg_add(k, cg_add(k, ibase, q), cg_mul(k, r, sr));
	LLVMValueRef oo = cg_add(k, cg_add(k, obase, r), cg_mul(k, q, oq));
	LLVMBuildStore(k->b, LLVMBuildLoad2(k->b, et,
		LLVMBuildInBoundsGEP2(k->b, et, in->ptr, &io, 1, ""), ""),
		LLVMBuildInBoundsGEP2(k->b, et, out->ptr, &oo, 1, ""));
	lq.plain = lr.plain = true;
	cg_loop_end(k, &lr);
	cg_loop_end(k, &lq);
}

/* permute_dims' axes over nd dims, normalized (none given: reversed);
 * false with a diagnostic. */
static bool
permute_axes(OpKernel *o, int nd, int *axes)
{
	AttrVal av = cg_attr(o, P_axes);
	if (av.kind != AV_INTS) {
		for (int i = 0; i < nd; i++)
			axes[i] = nd - 1 - i;
		return true;
	}
	if (av.n != nd)
		return cg_fail(o, "axes must name every dim");
	for (int i = 0; i < nd; i++)
		if (!cg_norm_axis(av.ints[i], nd, &axes[i]))
			return cg_fail(o, "axis out of range");
	return true;
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
bool
gen_permute(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *in = &k->buf[0], *out = &k->buf[1];
	int nd = in->nd, axes[MAXD];
	if (in->dt != out->dt)
		return cg_fail(o, "changes the dtype");
	if (!permute_axes(o, nd, axes))
		return false;
	LLVMValueRef ist[MAXD], s[MAXD], ost[MAXD], idx[MAXD];
	cg_strides(k, in, ist);
	cg_strides(k, out, ost);
	for (int j = 0; j < nd; j++)
		s[j] = ist[axes[j]];
	LLVMValueRef total = cg_prod(k, out->dim, 0, nd);
	if (nd == 0) {
		cg_st(k, out, cg_ci(k, 0), cg_ld(k, in, cg_ci(k, 0)));
		return true;
	}
	if (axes[nd - 1] == nd - 1) {
		Loop lo, li;
		cg_par_nest(k, &lo, out->dim, nd, idx, total);
		idx[nd - 1] = cg_loop_begin(k, &li, out->dim[nd - 1]);
		cg_st(k, out, cg_dot(k, idx, ost, nd), cg_ld(k, in, cg_dot(k, idx, s, nd)));
		cg_loop_end(k, &li);
		cg_loop_end(k, &lo);
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
	LLVMValueRef tv = cg_ci(k, T), qs = cg_ci(k, QT * T);
	LLVMValueRef Dq = out->dim[q], Dr = out->dim[r];
	LLVMValueRef nbq = LLVMBuildSDiv(k->b, cg_add(k, Dq, cg_ci(k, QT * T - 1)), qs, "");
	LLVMValueRef nitems = nbq;
	for (int i = 0; i < no; i++)
		nitems = cg_mul(k, nitems, out->dim[oth[i]]);
	Loop lp;
	LLVMValueRef f = cg_par_begin(k, &lp, nitems, total);
	LLVMValueRef bq = LLVMBuildURem(k->b, f, nbq, "");
	f = LLVMBuildUDiv(k->b, f, nbq, "");
	LLVMValueRef ibase = cg_ci(k, 0), obase = cg_ci(k, 0);
	for (int i = no - 1; i >= 0; i--) {
		LLVMValueRef d = out->dim[oth[i]];
		LLVMValueRef x = i ? LLVMBuildURem(k->b, f, d, "") : f;
		if (i)
			f = LLVMBuildUDiv(k->b, f, d, "");
		ibase = cg_add(k, ibase, cg_mul(k, x, s[oth[i]]));
		obase = cg_add(k, obase, cg_mul(k, x, ost[oth[i]]));
	}
	LLVMValueRef q0 = cg_mul(k, bq, qs);
	LLVMValueRef qn = cg_imin(k, qs, LLVMBuildSub(k->b, Dq, q0, ""));
	LLVMValueRef nqt = LLVMBuildSDiv(k->b, qn, tv, "");
	LLVMValueRef qt_end = cg_add(k, q0, cg_mul(k, nqt, tv));
	LLVMValueRef ntile = LLVMBuildSDiv(k->b, Dr, tv, "");
	LLVMValueRef sr = s[r], oq = ost[q];
	/* When each tile row is a whole aligned cache line (Dr % T == 0,
	 * T elements of 64 bytes) and the output is larger than the caches,
	 * the stores are non-temporal: no read for ownership, no cache
	 * filled with lines this kernel never reads again. */
	if (bytes * T == 64) {
		LLVMValueRef nt = LLVMBuildAnd(k->b,
			LLVMBuildICmp(k->b, LLVMIntEQ, LLVMBuildSRem(k->b, Dr, tv, ""),
				      cg_ci(k, 0), ""),
			LLVMBuildICmp(k->b, LLVMIntSGE, total,
				      cg_ci(k, NT_MIN_BYTES / bytes), ""), "");
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
	transpose_edge(k, et, q0, qt_end, cg_mul(k, ntile, tv), Dr, ibase, obase, sr, oq);
	transpose_edge(k, et, qt_end, cg_add(k, q0, qn), cg_ci(k, 0), Dr, ibase, obase, sr, oq);
	cg_loop_end(k, &lp);
	return true;
}

/*
 * concat: each input's rows land side by side along axis. Each input row
 * (the dims from axis on, contiguous in input and output) is cut into
 * blocks of CC_BLK elements; the parallel loop runs over (outer index,
 * block of any input), finding the input by a chain of compares. A block
 * of the output's dtype is a memcpy.
 */
bool
gen_concat(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[k->nin];
	AttrVal av = cg_attr(o, P_axis);
	int axis = 0;
	if (av.kind == AV_NONE)
		return cg_fail(o, "axis=None is not supported");
	if (!cg_norm_axis(av.i, out->nd, &axis))
		return cg_fail(o, "axis out of range");
	LLVMBuilderRef b = k->b;
	LLVMValueRef outer = cg_prod(k, out->dim, 0, axis);
	LLVMValueRef orow = cg_prod(k, out->dim, axis, out->nd);
	LLVMValueRef rows[MAXBUF], nblk[MAXBUF], offs[MAXBUF];
	LLVMValueRef nb = cg_ci(k, 0), off = cg_ci(k, 0);
	for (int i = 0; i < k->nin; i++) {
		Buf *in = &k->buf[i];
		rows[i] = cg_prod(k, in->dim, axis, in->nd);
		nblk[i] = LLVMBuildSDiv(b, cg_add(k, rows[i], cg_ci(k, CC_BLK - 1)),
					cg_ci(k, CC_BLK), "");
		offs[i] = off;
		off = cg_add(k, off, rows[i]);
		nb = cg_add(k, nb, nblk[i]);
	}
	Loop lp;
	LLVMValueRef f = cg_par_begin(k, &lp, cg_mul(k, outer, nb), cg_mul(k, outer, orow));
	LLVMValueRef oi = LLVMBuildUDiv(b, f, nb, "");
	LLVMValueRef blk = LLVMBuildURem(b, f, nb, "");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(k->c, k->fn, "cdone");
	LLVMValueRef first = cg_ci(k, 0);
	for (int i = 0; i < k->nin; i++) {
		Buf *in = &k->buf[i];
		LLVMValueRef last = cg_add(k, first, nblk[i]);
		LLVMBasicBlockRef here = LLVMAppendBasicBlockInContext(k->c, k->fn, "cin");
		LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(k->c, k->fn, "cnext");
		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, blk, last, ""),
				here, next);
		LLVMPositionBuilderAtEnd(b, here);
		LLVMValueRef j0 = cg_mul(k, LLVMBuildSub(b, blk, first, ""), cg_ci(k, CC_BLK));
		LLVMValueRef j1 = cg_imin(k, cg_add(k, j0, cg_ci(k, CC_BLK)), rows[i]);
		LLVMValueRef ioff = cg_add(k, cg_mul(k, oi, rows[i]), j0);
		LLVMValueRef ooff = cg_add(k, cg_add(k, cg_mul(k, oi, orow), offs[i]), j0);
		if (in->dt == out->dt && dtype_bits(in->dt) % 8 == 0) {
			int bytes = dtype_bits(in->dt) / 8;
			LLVMBuildMemCpy(b, cg_addr(k, out, ooff), 1, cg_addr(k, in, ioff), 1,
					cg_mul(k, LLVMBuildSub(b, j1, j0, ""), cg_ci(k, bytes)));
		} else {
			Loop li;
			LLVMValueRef j = cg_loop_begin(k, &li, LLVMBuildSub(b, j1, j0, ""));
			LLVMValueRef v = cg_ld(k, in, cg_add(k, ioff, j));
			cg_st(k, out, cg_add(k, ooff, j), cg_cvt(k, v, in->dt, out->dt));
			cg_loop_end(k, &li);
		}
		LLVMBuildBr(b, done);
		LLVMPositionBuilderAtEnd(b, next);
		first = last;
	}
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	cg_loop_end(k, &lp);
	return true;
}

/* split: the reverse of concat, one output per section. */
bool
gen_split(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *in = &k->buf[0];
	int axis;
	if (!cg_norm_axis(cg_attr(o, P_axis).i, in->nd, &axis))
		return cg_fail(o, "axis out of range");
	LLVMValueRef outer = cg_prod(k, in->dim, 0, axis);
	LLVMValueRef irow = cg_prod(k, in->dim, axis, in->nd);
	LLVMValueRef off = cg_ci(k, 0);
	for (int i = 0; i < k->nout; i++) {
		Buf *b = &k->buf[k->nin + i];
		LLVMValueRef row = cg_prod(k, b->dim, axis, b->nd);
		Loop lo, li;
		LLVMValueRef oi = cg_loop_begin(k, &lo, outer);
		LLVMValueRef j = cg_loop_begin(k, &li, row);
		LLVMValueRef v = cg_ld(k, in, cg_add(k, cg_add(k, cg_mul(k, oi, irow), off), j));
		cg_st(k, b, cg_add(k, cg_mul(k, oi, row), j), cg_cvt(k, v, in->dt, b->dt));
		cg_loop_end(k, &li);
		cg_loop_end(k, &lo);
		off = cg_add(k, off, row);
	}
	return true;
}

/* take: out[o, t, i] = x[o, wrap(indices[t]), i] along axis. */
bool
gen_take(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *ix = &k->buf[1], *out = &k->buf[2];
	LLVMValueRef outer, n, inner;
	if (!cg_axis_extents(k, x, cg_attr(o, P_axis), &outer, &n, &inner))
		return cg_fail(o, "axis out of range");
	if (!dtype_is_int(ix->dt))
		return cg_fail(o, "indices must be integers");
	LLVMValueRef ni = cg_prod(k, ix->dim, 0, ix->nd);
	Loop lo, li;
	LLVMValueRef rows = cg_mul(k, outer, ni);
	LLVMValueRef f = cg_par_begin(k, &lo, rows, cg_mul(k, rows, inner));
	LLVMValueRef oi = LLVMBuildUDiv(k->b, f, ni, "");
	LLVMValueRef t = LLVMBuildURem(k->b, f, ni, "");
	LLVMValueRef p = cg_cvt(k, cg_ld(k, ix, t), ix->dt, DT_I64);
	AttrVal mode = cg_attr(o, P_mode);
	if (mode.kind == AV_STR && !strcmp(mode.s, "wrap")) {
		/* p mod n, the sign of n (n > 0 when there is a row) */
		LLVMValueRef sn = cg_imax(k, n, cg_ci(k, 1));
		LLVMValueRef r = LLVMBuildSRem(k->b, p, sn, "");
		LLVMValueRef neg = LLVMBuildICmp(k->b, LLVMIntSLT, r, cg_ci(k, 0), "");
		p = LLVMBuildSelect(k->b, neg, cg_add(k, r, sn), r, "");
	} else if (!(mode.kind == AV_STR && !strcmp(mode.s, "clip"))) {
		/* fast: in range by contract; negative counts from the end */
		LLVMValueRef neg = LLVMBuildICmp(k->b, LLVMIntSLT, p, cg_ci(k, 0), "");
		p = LLVMBuildSelect(k->b, neg, cg_add(k, p, n), p, "");
	}
	/* clip (and, for safety, fast): into [0, n) */
	p = cg_imax(k, cg_imin(k, p, LLVMBuildSub(k->b, n, cg_ci(k, 1), "")), cg_ci(k, 0));
	LLVMValueRef src = cg_mul(k, cg_add(k, cg_mul(k, oi, n), p), inner);
	LLVMValueRef dst = cg_mul(k, cg_add(k, cg_mul(k, oi, ni), t), inner);
	LLVMValueRef i = cg_loop_begin(k, &li, inner);
	cg_st(k, out, cg_add(k, dst, i), cg_cvt(k, cg_ld(k, x, cg_add(k, src, i)), x->dt, out->dt));
	cg_loop_end(k, &li);
	cg_loop_end(k, &lo);
	return true;
}

/* strided_slice: out[i..] = x[begin + i * stride ..]; begins normalized at
 * run time against the actual dims, extents taken from the output. */
bool
gen_strided_slice(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *x = &k->buf[0], *out = &k->buf[1];
	AttrVal axes = cg_attr(o, P_axes), beg = cg_attr(o, P_begin);
	AttrVal strv = cg_attr(o, P_strides);
	LLVMValueRef start[MAXD], step[MAXD], xs[MAXD], idx[MAXD];
	if (out->nd != x->nd || axes.kind != AV_INTS || beg.kind != AV_INTS ||
	    beg.n < axes.n || (strv.kind == AV_INTS && strv.n < axes.n))
		return cg_fail(o, "malformed attributes");
	for (int d = 0; d < x->nd; d++) {
		start[d] = cg_ci(k, 0);
		step[d] = cg_ci(k, 1);
	}
	for (int p = 0; p < axes.n; p++) {
		int d;
		if (!cg_norm_axis(axes.ints[p], x->nd, &d))
			return cg_fail(o, "axis out of range");
		int64_t s = strv.kind == AV_INTS ? strv.ints[p] : 1;
		if (s == 0)
			return cg_fail(o, "a stride is 0");
		LLVMValueRef n = x->dim[d], b = cg_ci(k, beg.ints[p]);
		b = beg.ints[p] < 0 ? cg_add(k, b, n) : b;
		if (s > 0)
			b = cg_imin(k, cg_imax(k, b, cg_ci(k, 0)), n);
		else
			b = cg_imin(k, cg_imax(k, b, cg_ci(k, -1)),
				 LLVMBuildSub(k->b, n, cg_ci(k, 1), ""));
		start[d] = b;
		step[d] = cg_ci(k, s);
	}
	cg_strides(k, x, xs);
	LLVMValueRef ost[MAXD];
	cg_strides(k, out, ost);
	if (out->nd == 0) {
		cg_st(k, out, cg_ci(k, 0), cg_ld(k, x, cg_ci(k, 0)));
		return true;
	}
	Loop lo, li;
	int nd = out->nd;
	cg_par_nest(k, &lo, out->dim, nd, idx, cg_prod(k, out->dim, 0, nd));
	idx[nd - 1] = cg_loop_begin(k, &li, out->dim[nd - 1]);
	LLVMValueRef src = cg_ci(k, 0);
	for (int d = 0; d < x->nd; d++)
		src = cg_add(k, src, cg_mul(k, cg_add(k, start[d], cg_mul(k, idx[d], step[d])), xs[d]));
	cg_st(k, out, cg_dot(k, idx, ost, nd), cg_ld(k, x, src));
	cg_loop_end(k, &li);
	cg_loop_end(k, &lo);
	return true;
}

/* arange: out[i] = start + i * step; an integer start or step known only
 * at run time (`R.arange(r * 64, ...)`) is a scalar of the kernel. */
bool
gen_arange(OpKernel *o)
{
	KernelBuilder *k = o->k;
	Buf *out = &k->buf[0];
	double s0, s1;
	LLVMValueRef v0 = NULL, v1 = NULL;
	if (!cg_prim_arg(o, P_start, &s0) && !(v0 = cg_prim_i64(o, P_start)))
		return false;
	if (!cg_prim_arg(o, P_step, &s1) && !(v1 = cg_prim_i64(o, P_step)))
		return false;
	Loop l;
	LLVMValueRef i = cg_loop_begin(k, &l, out->dim[0]);
	LLVMValueRef v;
	if (dtype_is_float(out->dt)) {
		LLVMValueRef f0 = v0 ? LLVMBuildSIToFP(k->b, v0, k->f64, "")
				     : LLVMConstReal(k->f64, s0);
		LLVMValueRef f1 = v1 ? LLVMBuildSIToFP(k->b, v1, k->f64, "")
				     : LLVMConstReal(k->f64, s1);
		v = LLVMBuildSIToFP(k->b, i, k->f64, "");
		v = LLVMBuildFAdd(k->b, f0, LLVMBuildFMul(k->b, v, f1, ""), "");
		v = cg_cvt(k, v, DT_F64, out->dt);
	} else {
		v = cg_add(k, v0 ? v0 : cg_ci(k, (int64_t)s0),
			   cg_mul(k, i, v1 ? v1 : cg_ci(k, (int64_t)s1)));
		v = cg_cvt(k, v, DT_I64, out->dt);
	}
	cg_st(k, out, i, v);
	cg_loop_end(k, &l);
	return true;
}

