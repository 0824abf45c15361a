/*
 * exec_plan.c — the executor's planning (rt_compile): each binding of the
 * function and of every function it calls becomes a Step (its kernel, its
 * branches or its callee), each Var a slot of a frame, each SymVar a slot
 * of the frame's symbolic values; elementwise chains, transposed matmul
 * operands and int8 weights' dequantize are fused (a Step's fu: the calls
 * its kernel computes, as data codegen reads; the IR is left as it is),
 * and so are call_tir transposes of a prim_func's matrix product's b;
 * liveness is computed up front (for every position of a sequence, the
 * slots whose last use it is); the streaming plan says which parameters
 * and result fields each step loads and emits.
 * rt_program_plan prints the plan (--print-plan). Running is exec.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "op_attr.h"

/* ------------------------------------------------------------- planning */

/* A zeroed allocation owned by the program. */
static void *
palloc(RtProgram *p, size_t n)
{
	void *x = calloc(1, n ? n : 1);
	if (!x)
		ir_bug("out of memory");
	vec_push(&p->allocs, x);
	return x;
}

/* The slot of a Var or SymVar id, -1 when it has none. */
int
exec_slot_of(const RtProgram *p, int id)
{
	return id >= 0 && id < p->nidx ? p->idx[id] : -1;
}

/* The plan of f, NULL when not planned yet. */
static FnPlan *
find_plan(RtProgram *p, const Func *f)
{
	for (int i = 0; i < p->nplans; i++)
		if (p->plans[i]->f == f)
			return p->plans[i];
	return NULL;
}

static bool plan_fn(RtProgram *p, Func *f, FnPlan **out, Diags *d);

/* Does a statement hold a block with T.init? (ctx: a bool) */
static void
has_init(TStmt *s, void *ctx)
{
	if (s->kind == TS_BLOCK && s->init)
		*(bool *)ctx = true;
}

/* Is op one of the call_tir family (its kernel is the prim_func's)? */
static bool
is_call_tir(OpKind op)
{
	return op == OP_CALL_TIR || op == OP_CALL_TIR_INPLACE ||
	       op == OP_CALL_TIR_WITH_GRAD;
}

/* Does op run without a kernel (a view: an alias of its input)? */
static bool
is_view_op(OpKind op)
{
	return op_info(op)->cls == OC_VIEW;
}

/* Counts a use of v (ctx: the uses per var id). */
static void
count_use(Var *v, void *ctx)
{
	((int *)ctx)[v->id]++;
}

/* The tensor operands of fusion fu: its nodes' arguments, as written,
 * that are vars or constants. */
static int
count_leaves(const CgFusion *fu)
{
	int n = 0;
	for (int j = 0; j < fu->n; j++) {
		const Expr *e = fu->node[j].call;
		for (int i = 0; i < e->call.nargs; i++) {
			const Expr *x = e->call.args[i];
			n += cg_from(fu, j, i) < 0 &&
			     (x->kind == E_VAR || x->kind == E_CONST);
		}
	}
	return n;
}

/* Does a value of dtype dt read back exactly as computed (see
 * cg_fusable)? */
static bool
exact_dtype(DType dt)
{
	return dt == DT_F32 || dt == DT_F64 || dt == DT_I32 || dt == DT_I64;
}

/* Are the shapes of a and b (tensors with shapes) the same: equal
 * constants or the same symbolic var, dim by dim? */
static bool
same_shape(const SInfo *a, const SInfo *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++) {
		const PExpr *x = a->shape[i], *y = b->shape[i];
		if (x->kind == PE_INT && y->kind == PE_INT && x->value == y->value)
			continue;
		if (x->kind == PE_VAR && y->kind == PE_VAR && x->var == y->var)
			continue;
		return false;
	}
	return true;
}

/* Is call e's result a tensor of known shape? */
static const SInfo *
shaped(const Expr *e)
{
	const SInfo *si = e->sinfo;
	return si && si->kind == SI_TENSOR && si->shape && si->ndim >= 0 &&
	       si->dtype != DT_UNKNOWN ? si : NULL;
}

/* Do all tensor operands of fusion fu have shape si? */
static bool
leaves_shaped(const CgFusion *fu, const SInfo *si)
{
	for (int j = 0; j < fu->n; j++) {
		const Expr *e = fu->node[j].call;
		for (int i = 0; i < e->call.nargs; i++) {
			const Expr *x = e->call.args[i];
			if (cg_from(fu, j, i) >= 0 ||
			    (x->kind != E_VAR && x->kind != E_CONST))
				continue;
			const SInfo *xs = x->kind == E_VAR ? x->var->sinfo : x->sinfo;
			if (!xs || xs->kind != SI_TENSOR || !xs->shape ||
			    !same_shape(xs, si))
				return false;
		}
	}
	return true;
}

/* Must the value of binding b be checked at run time: a match_cast, or an
 * annotation that inference could not prove the value satisfies? (A
 * proven one, as TVM's printer writes on every binding, checks nothing.)
 * A binding that must be checked is not fused away. */
static bool
checked(RtProgram *p, const Binding *b)
{
	if (b->cast)
		return true;
	if (!b->annotated)
		return false;
	const SInfo *v = b->value->sinfo;
	return !v || si_check(p->m, b->var->sinfo, v) != SI_PROVEN;
}

/* The step before j of sp that binds x, a var used only there, when its
 * value may be fused into that use; else NULL. */
static Step *
single_def(RtProgram *p, FnPlan *fp, SeqPlan *sp, int j, const Expr *x)
{
	if (x->kind != E_VAR || fp->uses[x->var->id] != 1)
		return NULL;
	for (int i = j - 1; i >= 0; i--)
		if (sp->steps[i].b->var == x->var) {
			Step *s = &sp->steps[i];
			return s->x && s->x->kind == E_CALL && !checked(p, s->b)
			       ? s : NULL;
		}
	return NULL;
}

/* The fusion of step s: the calls its kernel computes (s->fu), or its
 * call alone (program memory). */
static const CgFusion *
fusion_of(RtProgram *p, const Step *s)
{
	if (s->fu)
		return s->fu;
	CgNode *n = palloc(p, sizeof *n);
	*n = (CgNode){s->x, s->b->var, NULL};
	CgFusion *f = palloc(p, sizeof *f);
	*f = (CgFusion){1, n};
	return f;
}

/* Fusion f with g computing argument a of f's node u: g's nodes (g's root
 * last), then f's, their links moved past g's (program memory; f and g
 * are left as they are). */
static const CgFusion *
fuse_arg(RtProgram *p, const CgFusion *f, int u, int a, const CgFusion *g)
{
	CgNode *nd = palloc(p, sizeof *nd * (size_t)(f->n + g->n));
	memcpy(nd, g->node, sizeof *nd * (size_t)g->n);
	for (int j = 0; j < f->n; j++) {
		const CgNode *x = &f->node[j];
		int na = cg_node_nargs(x->call);
		int *from = palloc(p, sizeof *from * (size_t)(na ? na : 1));
		for (int i = 0; i < na; i++) {
			int y = cg_from(f, j, i);
			from[i] = y >= 0 ? y + g->n : -1;
		}
		if (j == u)
			from[a] = g->n - 1;
		nd[g->n + j] = (CgNode){x->call, x->var, from};
	}
	CgFusion *r = palloc(p, sizeof *r);
	*r = (CgFusion){f->n + g->n, nd};
	return r;
}

/* Step si is computed inside sj's kernel: it runs nothing, and so do the
 * steps that were computed inside its own (their `into` follows). */
static void
fused_into(SeqPlan *sp, Step *si, Step *sj)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->steps[i].into == si->b)
			sp->steps[i].into = sj->b;
	si->x = NULL;
	si->fu = NULL;
	si->into = sj->b;
}

/*
 * Elementwise fusion: a var bound in sp to an elementwise call, used once
 * in the whole function, as a direct operand of a later elementwise call
 * of sp with the same shape, is computed inside that call's kernel
 * (cg_fusable) instead of into a tensor of its own: it becomes a producer
 * of the later step's fusion (with its own producers) and its step
 * computes nothing. The data operand of a reduction fuses the same way
 * when the producers' operands all have its shape (cg_reduce_fusable).
 * Liveness follows the fusion, so the producers' operands live until the
 * kernel that reads them.
 */
static void
fuse_seq(RtProgram *p, FnPlan *fp, SeqPlan *sp)
{
	for (int j = 0; j < sp->n; j++) {
		Step *sj = &sp->steps[j];
		Expr *e = sj->x;
		bool red = e && e->kind == E_CALL && cg_reduce_fusable(e->call.op);
		const SInfo *rs = e && (red || cg_fusable(e)) ? shaped(e) : NULL;
		if (!rs)
			continue;
		const CgFusion *f = fusion_of(p, sj);
		int leaves = count_leaves(f);
		for (int a = 0; a < (red ? 1 : e->call.nargs); a++) {
			Step *si = single_def(p, fp, sp, j, e->call.args[a]);
			Expr *pe = si ? si->x : NULL;
			const SInfo *ps = pe && cg_fusable(pe) ? shaped(pe) : NULL;
			if (!ps)
				continue;
			const CgFusion *g = fusion_of(p, si);
			if (!exact_dtype(ps->dtype) ||
			    !(red ? leaves_shaped(g, ps) : same_shape(ps, rs)) ||
			    leaves - 1 + count_leaves(g) > FUSE_LEAVES)
				continue;
			f = fuse_arg(p, f, f->n - 1, a, g);
			leaves += count_leaves(g) - 1;
			fused_into(sp, si, sj);
		}
		if (f->n > 1)
			sj->fu = f;
	}
}

/*
 * Transposed-b fusion: a matmul whose b is a var bound earlier in sp to a
 * permute_dims that swaps the last two dims (cg_matmul_transpose), used
 * only there, reads the permute's input directly (x @ w.T without a
 * transposed copy of w): the permute becomes a producer of the matmul's
 * fusion and its step computes nothing.
 */
static void
fuse_transpose(RtProgram *p, FnPlan *fp, SeqPlan *sp)
{
	for (int j = 0; j < sp->n; j++) {
		Step *sj = &sp->steps[j];
		Expr *e = sj->x;
		if (!e || e->kind != E_CALL || e->call.op != OP_MATMUL ||
		    e->call.nargs < 2 || !shaped(e))
			continue;
		Step *si = single_def(p, fp, sp, j, e->call.args[1]);
		Expr *pe = si ? si->x : NULL;
		if (!pe || !cg_matmul_transpose(pe) ||
		    pe->call.args[0]->kind != E_VAR)
			continue;
		const CgFusion *f = fusion_of(p, sj);
		sj->fu = fuse_arg(p, f, f->n - 1, 1, fusion_of(p, si));
		fused_into(sp, si, sj);
	}
}

/*
 * Dequantize fusion (after fuse_transpose): a matmul reading its b
 * transposed from w = reshape(multiply(astype(q, "float32"), s), [N, K])
 * (the run-time half of int8 group quantization, as examples/llama_q8.py
 * writes it: q int8 [N, G, gs], s float32 [N, G, 1]; or without the
 * reshape, q [N, K] and s [N, 1]), every intermediate used only there,
 * reads q and s themselves (cg_matmul_qweight): the reshape and the
 * multiply (with its astype) become producers of the matmul's fusion,
 * their steps compute nothing and the f32 weights are never stored.
 */
static void
fuse_dequant(RtProgram *p, FnPlan *fp, SeqPlan *sp)
{
	for (int j = 0; j < sp->n; j++) {
		Step *sj = &sp->steps[j];
		Expr *e = sj->x;
		const CgFusion *f = sj->fu;
		if (!e || e->kind != E_CALL || e->call.op != OP_MATMUL || !f ||
		    cg_from(f, f->n - 1, 1) < 0)
			continue;
		int pn = cg_from(f, f->n - 1, 1);
		Expr *pe = f->node[pn].call;
		Step *sr = single_def(p, fp, sp, j, pe->call.args[0]), *sm = sr;
		if (!sr)
			continue;
		const CgFusion *g = fusion_of(p, sr);
		const CgFusion *c = fuse_arg(p, f, pn, 0, g);
		if (sr->x->call.op == OP_RESHAPE && sr->x->call.nargs >= 1) {
			sm = single_def(p, fp, sp, j, sr->x->call.args[0]);
			if (!sm)
				continue;
			c = fuse_arg(p, c, g->n - 1, 0, fusion_of(p, sm));
		}
		if (sm->x->call.op != OP_MULTIPLY || sm->x->call.nargs != 2 ||
		    !cg_matmul_qweight(c, cg_from(c, c->n - 1, 1), NULL, NULL))
			continue;
		sj->fu = c;
		fused_into(sp, sr, sj);
		if (sm != sr)
			fused_into(sp, sm, sj);
	}
}

/*
 * Transposes folded into prim_func matmuls: an input of an R.call_tir
 * (its argument tuple's item i, a var used only there) bound earlier in
 * sp to R.call_tir of a transposing prim_func (cg_tir_transpose: the last
 * two axes swapped, nothing else), with a known shape and no tir_vars,
 * whose input is a var or a constant, when the callee reads input i only
 * as the b of a matrix product rlx_gemm runs (cg_tir_gemm_b): the
 * matmul's kernel reads the transpose's input with b transposed
 * (cg_tir_fused_kernel), the transpose becomes a producer of its fusion
 * and its step computes nothing. The prim_func transposing an
 * LegalizeOps'd weight ([out, in] to [in, out]) then costs no copy, as
 * permute_dims into R.matmul (fuse_transpose).
 */
static void
fuse_tir_transpose(RtProgram *p, FnPlan *fp, SeqPlan *sp)
{
	for (int j = 0; j < sp->n; j++) {
		Step *sj = &sp->steps[j];
		const PrimFunc *f = cg_tir_callee(p->m, sj->x);
		if (!f || sj->x->call.args[1]->kind != E_TUPLE)
			continue;
		for (int i = 0; i < cg_node_nargs(sj->x); i++) {
			Step *si = single_def(p, fp, sp, j, cg_node_arg(sj->x, i));
			Expr *pe = si ? si->x : NULL;
			const PrimFunc *g = cg_tir_callee(p->m, pe);
			const Expr *tv = g && pe->call.nargs > 2 ? pe->call.args[2] : NULL;
			if (!g || (tv && (tv->kind != E_TUPLE || tv->tuple.n)) ||
			    pe->call.args[1]->kind != E_TUPLE || cg_node_nargs(pe) != 1 ||
			    !shaped(pe) ||
			    (cg_node_arg(pe, 0)->kind != E_VAR &&
			     cg_node_arg(pe, 0)->kind != E_CONST) ||
			    !cg_tir_transpose(g) || !cg_tir_gemm_b(f, i))
				continue;
			const CgFusion *fu = fusion_of(p, sj);
			sj->fu = fuse_arg(p, fu, fu->n - 1, i, fusion_of(p, si));
			fused_into(sp, si, sj);
		}
	}
}

/* strided_slice whose begin or strides are symbolic (r * 64, the worker's
 * slice), or whose result's dims the rule could not say (constant bounds
 * on a symbolic dim): run by the executor, which knows the values and
 * computes Python's slice lengths; the kernels take constant bounds and a
 * known result. */
bool
exec_is_dyn_slice(const Expr *e)
{
	if (e->kind != E_CALL || e->call.op != OP_STRIDED_SLICE)
		return false;
	if (e->sinfo && e->sinfo->kind == SI_TENSOR && e->sinfo->ndim >= 0 &&
	    !e->sinfo->shape)
		return true;
	for (int i = 0; i < e->call.nattrs; i++)
		if (e->call.attrs[i].kind == AV_DIMS)
			return true;
	return false;
}

/* The first function reference (cls.f as a value) in tuple value e. */
static const Expr *
find_global(const Expr *e)
{
	if (e && e->kind == E_GLOBAL)
		return e;
	if (e && e->kind == E_TUPLE)
		for (int i = 0; i < e->tuple.n; i++) {
			const Expr *g = find_global(e->tuple.items[i]);
			if (g)
				return g;
		}
	return NULL;
}

/* Does seq (or a branch in it) call a prim_func directly, writing into the
 * tensors it gives (lowered code)? */
static bool
seq_mutates(const Module *m, const Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *bl = seq->seq.blocks[i];
		for (int j = 0; j < bl->n; j++) {
			const Expr *e = bl->bindings[j]->value;
			if ((e->kind == E_CALL_FN && !ir_find_func(m, e->callfn.callee) &&
			     tir_find(m, e->callfn.callee)) ||
			    (e->kind == E_CALL && e->call.op == OP_VM_CALL_TIR_DYN) ||
			    (e->kind == E_IF && (seq_mutates(m, e->if_.then_) ||
						 seq_mutates(m, e->if_.else_))))
				return true;
		}
	}
	return false;
}

/* Marks in ctx (a StoreCtx) the parameters whose buffer a store writes. */
typedef struct {
	const PrimFunc *f;
	bool *stores;
} StoreCtx;

static void
mark_store(TStmt *s, void *ctx)
{
	StoreCtx *c = ctx;
	if (s->kind != TS_STORE)
		return;
	for (int i = 0; i < c->f->nparams; i++)
		if (c->f->params[i].buf == s->buf)
			c->stores[i] = true;
}

/* Plans st as a direct call of prim_func f (cls.f(args) in lowered code,
 * or R.vm.call_tir_dyn at call): f's kernel and the buffers it writes. */
static bool
plan_direct(RtProgram *p, Step *st, const PrimFunc *f, const Expr *call,
	    Diags *d)
{
	st->prim = f;
	st->direct = true;
	bool *stores = palloc(p, sizeof *stores * (size_t)(f->nparams + 1));
	StoreCtx c = {f, stores};
	TWalk w = {mark_store, NULL, &c};
	tir_walk_stmt(f->body, &w);
	st->stores = stores;
	st->k = cg_tir_kernel(p->cg, p->m, f, d);
	if (!st->k) {
		diag_note(d, call->span, "called here");
		return false;
	}
	return true;
}

/* Refuses a function reference: rlx does not run functions as values. */
static void
refuse_global(const Expr *g, Diags *d, bool *ok)
{
	diag_error(d, g->span, "a function as a value (cls.%s) cannot be run by rlx "
		   "yet: call it as cls.%s(...)", g->str, g->str);
	*ok = false;
}

/* Plans the sequence seq of fp: slots for its vars, kernels, branches and
 * callees, with elementwise chains fused (fuse_seq). Liveness comes later
 * (live_seq). */
static SeqPlan *
plan_seq(RtProgram *p, FnPlan *fp, Expr *seq, Diags *d, bool *ok)
{
	SeqPlan *sp = palloc(p, sizeof *sp);
	sp->id = p->nseqs++;
	sp->seq = seq;
	int n = 0;
	for (int i = 0; i < seq->seq.nblocks; i++)
		n += seq->seq.blocks[i]->n;
	sp->steps = palloc(p, sizeof *sp->steps * (size_t)n);
	sp->n = n;
	int k = 0;
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		for (int j = 0; j < bl->n; j++) {
			Step *st = &sp->steps[k++];
			st->b = bl->bindings[j];
			int id = st->b->var->id;
			if (id < 0 || id >= p->nidx)
				ir_bug("var %s has id %d", st->b->var->name, id);
			if (p->idx[id] < 0)
				p->idx[id] = fp->nslots++;
			st->slot = p->idx[id];
			Expr *e = st->b->value;
			st->x = e;
			/* what its rule assumed, for the module as it is now
			 * (exec.c checks it before the step) */
			if (e->kind == E_CALL)
				infer_assumptions(p->m, e);
			switch (e->kind) {
			case E_IF:
				st->then_ = plan_seq(p, fp, e->if_.then_, d, ok);
				st->else_ = plan_seq(p, fp, e->if_.else_, d, ok);
				break;
			case E_CALL_FN: {
				Func *g = ir_find_func(p->m, e->callfn.callee);
				const PrimFunc *pf = g ? NULL
					: tir_find(p->m, e->callfn.callee);
				if (pf) {
					if (!plan_direct(p, st, pf, e, d))
						*ok = false;
				} else if (!g) {
					diag_error(d, e->span, "no function '%s'",
						   e->callfn.callee);
					*ok = false;
				} else if (!plan_fn(p, g, &st->callee, d)) {
					*ok = false;
				}
				break;
			}
			case E_FUNC:
			case E_CALL_VAR:
				diag_error(d, e->span, "a local function cannot "
					   "be run by rlx yet: define it in the "
					   "module and call it as cls.%s",
					   e->kind == E_FUNC && e->fn->name ? e->fn->name : "f");
				*ok = false;
				break;
			case E_STR:
			case E_EXTERN:
				diag_error(d, e->span, e->kind == E_STR
					   ? "a string value cannot be computed at run time"
					   : "R.ExternFunc cannot be run by rlx: it names a "
					     "function outside the module");
				*ok = false;
				break;
			case E_GLOBAL:
			case E_TUPLE:
				if (find_global(e))
					refuse_global(find_global(e), d, ok);
				break;
			default:
				break;
			}
		}
	}
	if (find_global(seq->seq.body))
		refuse_global(find_global(seq->seq.body), d, ok);
	/* fusion moves a producer to its consumer's kernel: not past a call
	 * that may write what the producer reads */
	if (!fp->mutates) {
		fuse_seq(p, fp, sp);
		fuse_transpose(p, fp, sp);
		fuse_dequant(p, fp, sp);
		fuse_tir_transpose(p, fp, sp);
	}
	for (int i = 0; i < n; i++) {
		Step *st = &sp->steps[i];
		Expr *e = st->x;
		if (e && e->kind == E_CALL && e->call.op == OP_VM_CALL_TIR_DYN) {
			const Expr *g = e->call.args[0];
			const PrimFunc *pf = g->kind == E_GLOBAL ? tir_find(p->m, g->str)
				: NULL;
			if (!pf) {
				diag_error(d, g->span, "R.vm.call_tir_dyn: %s is not a "
					   "prim_func of the module",
					   g->kind == E_GLOBAL ? g->str : "the callee");
				*ok = false;
			} else if (!plan_direct(p, st, pf, e, d)) {
				*ok = false;
			}
			continue;
		}
		if (!e || e->kind != E_CALL ||
		    (op_info(e->call.op)->flags & OF_NATIVE) ||
		    exec_is_memory_op(e->call.op) || e->call.op == OP_NULL_VALUE ||
		    exec_is_noop_packed(e) ||
		    is_view_op(e->call.op) ||
		    op_info(e->call.op)->cls == OC_COMM || ir_is_worker_id(e) ||
		    exec_is_dyn_slice(e))
			continue;
		if (is_call_tir(e->call.op)) {
			const Expr *g = e->call.args[0];
			st->prim = g->kind == E_GLOBAL ? tir_find(p->m, g->str) : NULL;
			if (!st->prim) {
				diag_error(d, g->span, "R.%s: %s is not a prim_func of "
					   "the module", op_info(e->call.op)->name,
					   g->kind == E_GLOBAL ? g->str : "the callee");
				*ok = false;
				continue;
			}
			st->k = st->fu ? cg_tir_fused_kernel(p->cg, p->m, st->fu, d)
				       : cg_tir_kernel(p->cg, p->m, st->prim, d);
			TWalk w = {has_init, NULL, &st->zero_out};
			tir_walk_stmt(st->prim->body, &w);
			if (!st->k) {
				diag_note(d, e->span, "called here");
				*ok = false;
			}
			continue;
		}
		if (!st->fu) {
			st->k = cg_kernel(p->cg, p->m, e, d);
			if (!st->k)
				*ok = false;
			continue;
		}
		st->k = cg_fused_kernel(p->cg, p->m, st->fu, d);
		if (!st->k) {
			*ok = false;
			continue;
		}
		const Expr *ins[MAX_BUFS];
		int nins = cg_fused_inputs(st->fu, ins, MAX_BUFS);
		if (nins != st->k->nin)
			ir_bug("kernel %s: %d inputs for %d buffers", st->k->name,
			       nins, st->k->nin);
		st->ins = palloc(p, sizeof *st->ins * (size_t)nins);
		memcpy(st->ins, ins, sizeof *ins * (size_t)nins);
		st->nins = nins;
	}
	return sp;
}

int64_t
exec_inplace_input(const Expr *e, int k)
{
	const AttrVal *ip = e->call.op == OP_CALL_TIR_INPLACE
			    ? op_attr_opt(e, P_inplace_indices) : NULL;
	return !ip ? -1 : ip->kind == AV_INT ? ip->i
	       : ip->kind == AV_INTS && k < ip->n ? ip->ints[k] : -1;
}

bool
exec_is_noop_packed(const Expr *e)
{
	return e->kind == E_CALL && (e->call.op == OP_CALL_PURE_PACKED ||
				     e->call.op == OP_CALL_PACKED) &&
	       e->call.nargs > 0 && (e->call.args[0]->kind == E_STR ||
				     e->call.args[0]->kind == E_EXTERN) &&
	       !strcmp(e->call.args[0]->str, "vm.builtin.tuple_reset_item");
}

void
exec_step_uses(const Step *st, void (*fn)(Var *v, void *ctx), void *ctx)
{
	if (st->x && exec_is_noop_packed(st->x))
		return; /* it reads nothing: no use keeps a weight alive */
	if (!st->fu) {
		ir_visit_uses(st->x, fn, ctx);
		return;
	}
	for (int j = 0; j < st->fu->n; j++) {
		Expr *e = st->fu->node[j].call;
		for (int i = 0; i < cg_node_nargs(e); i++)
			if (cg_from(st->fu, j, i) < 0)
				ir_visit_uses(cg_node_arg(e, i), fn, ctx);
		/* a call_tir's callee and tir_vars are not inputs */
		for (int i = 0; is_call_tir(e->call.op) && i < e->call.nargs; i++)
			if (i != 1)
				ir_visit_uses(e->call.args[i], fn, ctx);
	}
}

/* Liveness bookkeeping of one sequence. */
typedef struct {
	RtProgram *p;
	const int *def_seq; /* per slot: the sequence that defines it */
	int seq;
	int *last;          /* per slot: last position using it */
	int pos;
} LiveCtx;

/* Records a use of v at the current position. */
static void
live_use(Var *v, void *ctx)
{
	LiveCtx *c = ctx;
	int s = exec_slot_of(c->p, v->id);
	if (s >= 0 && c->def_seq[s] == c->seq && c->last[s] < c->pos)
		c->last[s] = c->pos;
}

/* Builds the release lists of sp from last-use positions. Slots defined
 * at position def[] and never used are released right there. */
static void
build_rel(RtProgram *p, Rel *r, const int *last, int nslots, int npos)
{
	r->off = palloc(p, sizeof *r->off * (size_t)(npos + 1));
	int count = 0;
	for (int s = 0; s < nslots; s++)
		if (last[s] >= 0)
			r->off[last[s] + 1]++, count++;
	for (int i = 0; i < npos; i++)
		r->off[i + 1] += r->off[i];
	r->slots = palloc(p, sizeof *r->slots * (size_t)count);
	int *fill = calloc((size_t)npos, sizeof *fill);
	if (!fill)
		ir_bug("out of memory");
	for (int s = 0; s < nslots; s++)
		if (last[s] >= 0)
			r->slots[r->off[last[s]] + fill[last[s]]++] = s;
	free(fill);
}

/*
 * Liveness of sp (and, recursively, its branches). skip is a step whose
 * value's uses do not count and skip_body whether the result's do not
 * (streaming). Positions: 0 before the first binding, i + 1 after step i,
 * n + 1 after the result.
 */
static void
live_seq(RtProgram *p, FnPlan *fp, SeqPlan *sp, const int *def_seq, Rel *r,
	 int skip, bool skip_body, bool top)
{
	int *last = malloc(sizeof *last * (size_t)(fp->nslots ? fp->nslots : 1));
	if (!last)
		ir_bug("out of memory");
	for (int s = 0; s < fp->nslots; s++)
		last[s] = -1;
	if (top)
		for (int i = 0; i < fp->f->nparams; i++)
			last[exec_slot_of(p, fp->f->params[i]->id)] = 0;
	for (int i = 0; i < sp->n; i++)
		last[sp->steps[i].slot] = i + 1;
	LiveCtx c = {p, def_seq, sp->id, last, 0};
	for (int i = 0; i < sp->n; i++) {
		c.pos = i + 1;
		if (i != skip)
			exec_step_uses(&sp->steps[i], live_use, &c);
	}
	c.pos = sp->n + 1;
	if (!skip_body)
		ir_visit_uses(sp->seq->seq.body, live_use, &c);
	else /* streaming: the fields that are evaluated at the end */
		for (int k = 0; k < fp->nend; k++)
			ir_visit_uses(fp->fields[fp->end_fields[k]], live_use, &c);
	build_rel(p, r, last, fp->nslots, sp->n + 2);
	free(last);
}

/* Is slot s released right after step i of sp (its last use)? */
static bool
dies_at(const SeqPlan *sp, int i, int s)
{
	for (int j = sp->rel.off[i + 1]; j < sp->rel.off[i + 2]; j++)
		if (sp->rel.slots[j] == s)
			return true;
	return false;
}

/*
 * call_tir_inplace steps of sp (and its branches) whose in-place input is a
 * var used for the last time there: st->donate says so, and the executor
 * writes into that tensor instead of a copy when nothing else holds it.
 */
static void
plan_donate(RtProgram *p, SeqPlan *sp)
{
	for (int i = 0; i < sp->n; i++) {
		Step *st = &sp->steps[i];
		if (st->then_) {
			plan_donate(p, st->then_);
			plan_donate(p, st->else_);
		}
		const Expr *e = st->x;
		if (!e || e->kind != E_CALL || e->call.op != OP_CALL_TIR_INPLACE ||
		    !st->prim || e->call.args[1]->kind != E_TUPLE)
			continue;
		const Expr *t = e->call.args[1];
		const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
		int nout = rs->kind == SI_TUPLE ? rs->nfields : 1;
		for (int k = 0; k < nout && k < 32; k++) {
			int64_t w = exec_inplace_input(e, k);
			if (w < 0 || w >= t->tuple.n || t->tuple.items[w]->kind != E_VAR)
				continue;
			int s = exec_slot_of(p, t->tuple.items[w]->var->id);
			if (s >= 0 && dies_at(sp, i, s))
				st->donate |= 1u << k;
		}
	}
}

/* Liveness of every sequence of fp, branches included. */
static void
live_all(RtProgram *p, FnPlan *fp, SeqPlan *sp, const int *def_seq)
{
	live_seq(p, fp, sp, def_seq, &sp->rel, -1, false, sp == fp->top);
	for (int i = 0; i < sp->n; i++)
		if (sp->steps[i].then_) {
			live_all(p, fp, sp->steps[i].then_, def_seq);
			live_all(p, fp, sp->steps[i].else_, def_seq);
		}
}

/* Fills def_seq for the vars bound in sp and its branches. */
static void
mark_defs(RtProgram *p, SeqPlan *sp, int *def_seq)
{
	for (int i = 0; i < sp->n; i++) {
		def_seq[sp->steps[i].slot] = sp->id;
		if (sp->steps[i].then_) {
			mark_defs(p, sp->steps[i].then_, def_seq);
			mark_defs(p, sp->steps[i].else_, def_seq);
		}
	}
}

/* Does any use in e refer to var? */
typedef struct {
	const Var *v;
	bool found;
} FindCtx;

static void
find_use(Var *v, void *ctx)
{
	FindCtx *c = ctx;
	if (v == c->v)
		c->found = true;
}

/* Appends field k to the int list *l of *n entries (program memory). */
static void
push_int(RtProgram *p, int **l, int *n, int k)
{
	int *nl = palloc(p, sizeof *nl * (size_t)(*n + 1));
	if (*n)
		memcpy(nl, *l, sizeof *nl * (size_t)*n);
	nl[(*n)++] = k;
	*l = nl;
}

/*
 * Streaming: finds the result tuple literal (the result itself, or a var
 * bound to a tuple at the top level and used nowhere else) and where each
 * field comes from; then the streaming liveness of the top sequence.
 */
static void
plan_stream(RtProgram *p, FnPlan *fp, const int *def_seq)
{
	SeqPlan *top = fp->top;
	Expr *body = top->seq->seq.body;
	Func *f = fp->f;
	fp->skip_step = -1;
	if (body->kind == E_TUPLE) {
		fp->fields = body->tuple.items;
		fp->nfields = body->tuple.n;
		fp->tuple_mode = true;
	} else if (body->kind == E_VAR) {
		for (int i = 0; i < top->n; i++) {
			Binding *b = top->steps[i].b;
			if (b->var != body->var || b->value->kind != E_TUPLE ||
			    b->cast)
				continue;
			FindCtx c = {b->var, false};
			for (int j = 0; j < top->n; j++)
				ir_visit_uses(top->steps[j].b->value, find_use, &c);
			if (!c.found) {
				fp->fields = b->value->tuple.items;
				fp->nfields = b->value->tuple.n;
				fp->skip_step = i;
				fp->tuple_mode = true;
			}
			break;
		}
	}
	fp->param_fields = palloc(p, sizeof *fp->param_fields * (size_t)(f->nparams + 1));
	int *npf = palloc(p, sizeof *npf * (size_t)(f->nparams + 1));
	fp->param_used = palloc(p, sizeof *fp->param_used * (size_t)(f->nparams + 1));
	for (int k = 0; k < fp->nfields; k++) {
		Expr *x = fp->fields[k];
		int s = x->kind == E_VAR ? exec_slot_of(p, x->var->id) : -1;
		bool done = false;
		for (int i = 0; s >= 0 && i < f->nparams && !done && !fp->mutates; i++)
			if (f->params[i] == x->var) {
				push_int(p, &fp->param_fields[i], &npf[i], k);
				done = true;
			}
		/* a var a later call may still write: at the end */
		for (int i = 0; s >= 0 && i < top->n && !done && !fp->mutates; i++)
			if (top->steps[i].b->var == x->var) {
				Step *st = &top->steps[i];
				push_int(p, &st->emit, &st->nemit, k);
				done = true;
			}
		if (!done)
			push_int(p, &fp->end_fields, &fp->nend, k);
	}
	for (int i = 0; i < f->nparams; i++) {
		push_int(p, &fp->param_fields[i], &npf[i], -1);
		FindCtx c = {f->params[i], false};
		for (int j = 0; j < top->n; j++)
			if (j != fp->skip_step && !exec_is_noop_packed(top->steps[j].b->value))
				ir_visit_uses(top->steps[j].b->value, find_use, &c);
		if (!fp->tuple_mode)
			ir_visit_uses(body, find_use, &c);
		for (int k = 0; fp->tuple_mode && k < fp->nend; k++)
			ir_visit_uses(fp->fields[fp->end_fields[k]], find_use, &c);
		fp->param_used[i] = c.found;
	}
	live_seq(p, fp, top, def_seq, &top->srel, fp->skip_step,
		 fp->tuple_mode, true);
}

/* Records in sym_param the first parameter with a bare occurrence of each
 * symbolic var in si. */
static void
sym_defs(RtProgram *p, FnPlan *fp, const SInfo *si, int param)
{
	if (!si)
		return;
	PExpr **dims = NULL;
	int n = 0;
	if (si->kind == SI_TENSOR && si->shape)
		dims = si->shape, n = si->ndim;
	else if (si->kind == SI_SHAPE && si->shape)
		dims = si->shape, n = si->ndim;
	else if (si->kind == SI_PRIM && si->value)
		dims = (PExpr **)&si->value, n = 1;
	else if (si->kind == SI_TUPLE)
		for (int i = 0; i < si->nfields; i++)
			sym_defs(p, fp, si->fields[i], param);
	for (int i = 0; i < n; i++)
		if (dims[i]->kind == PE_VAR) {
			int s = exec_slot_of(p, dims[i]->var->id);
			if (s >= 0 && s < fp->nsyms && fp->sym_param[s] < 0)
				fp->sym_param[s] = param;
		}
}

/* Plans f (once): its sequences, slots, kernels, liveness. */
static bool
plan_fn(RtProgram *p, Func *f, FnPlan **out, Diags *d)
{
	FnPlan *fp = find_plan(p, f);
	if (fp) {
		*out = fp;
		return true;
	}
	fp = palloc(p, sizeof *fp);
	fp->f = f;
	*out = fp;
	p->plans = realloc(p->plans, sizeof *p->plans * (size_t)(p->nplans + 1));
	if (!p->plans)
		ir_bug("out of memory");
	p->plans[p->nplans++] = fp;
	for (int i = 0; i < f->nparams; i++) {
		int id = f->params[i]->id;
		if (id < 0 || id >= p->nidx)
			ir_bug("param %s has id %d", f->params[i]->name, id);
		p->idx[id] = fp->nslots++;
	}
	for (int i = 0; i < f->nsymvars; i++) {
		int id = f->symvars[i]->id;
		if (id < 0 || id >= p->nidx)
			ir_bug("symvar %s has id %d", f->symvars[i]->name, id);
		p->idx[id] = fp->nsyms++;
	}
	bool ok = true;
	fp->uses = calloc((size_t)p->nidx, sizeof *fp->uses);
	if (!fp->uses)
		ir_bug("out of memory");
	ir_visit_uses(f->body, count_use, fp->uses);
	fp->mutates = seq_mutates(p->m, f->body);
	fp->top = plan_seq(p, fp, f->body, d, &ok);
	free(fp->uses);
	fp->uses = NULL;
	int *def_seq = calloc((size_t)(fp->nslots ? fp->nslots : 1), sizeof *def_seq);
	if (!def_seq)
		ir_bug("out of memory");
	for (int i = 0; i < f->nparams; i++)
		def_seq[exec_slot_of(p, f->params[i]->id)] = fp->top->id;
	mark_defs(p, fp->top, def_seq);
	live_all(p, fp, fp->top, def_seq);
	plan_donate(p, fp->top);
	plan_stream(p, fp, def_seq);
	free(def_seq);
	fp->sym_param = palloc(p, sizeof *fp->sym_param * (size_t)(fp->nsyms + 1));
	for (int i = 0; i < fp->nsyms; i++)
		fp->sym_param[i] = -1;
	for (int i = 0; i < f->nparams; i++)
		sym_defs(p, fp, f->params[i]->sinfo, i);
	return ok;
}

RtProgram *
rt_compile(Module *m, const char *func, Diags *d)
{
	if (!d->src)
		d->src = &m->src;
	Func *f = ir_find_func(m, func);
	if (!f) {
		diag_error(d, (Span){0, 0, 0}, "no function '%s' in the module",
			   func);
		return NULL;
	}
	RtProgram *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->m = m;
	RtError err;
	p->jit = jit_new(&err);
	if (!p->jit) {
		/* about this process (RLX_ISA, the host), not the function */
		diag_file(d, DIAG_ERROR, NULL, "cannot start the JIT: %s", err.msg);
		free(p);
		return NULL;
	}
	if (jit_cache_warning(p->jit))
		diag_file(d, DIAG_WARNING, NULL, "%s", jit_cache_warning(p->jit));
	p->cg = cg_new(p->jit);
	p->pool = rt_bufpool_new(); /* NULL: plain allocations */
	p->nidx = m->next_id + 1;
	p->idx = malloc(sizeof *p->idx * (size_t)p->nidx);
	if (!p->cg || !p->idx)
		ir_bug("out of memory");
	for (int i = 0; i < p->nidx; i++)
		p->idx[i] = -1;
	bool ok = plan_fn(p, f, &p->main, d);
	if (ok && !cg_flush(p->cg, &err)) {
		diag_error(d, f->span, "JIT compilation failed: %s", err.msg);
		ok = false;
	}
	if (!ok) {
		rt_program_free(p);
		return NULL;
	}
	return p;
}

void
rt_program_free(RtProgram *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->cconsts; i++)
		rt_value_release(p->consts[i].val);
	free(p->consts);
	cg_free(p->cg);
	jit_free(p->jit);
	rt_bufpool_release(p->pool);
	for (int i = 0; i < p->allocs.n; i++)
		free(p->allocs.items[i]);
	vec_free(&p->allocs);
	free(p->plans);
	free(p->idx);
	free(p);
}

/* --print-plan: the producers step st's kernel computes, in the fusion's
 * order. */
static void
plan_producers(const Step *st, StrBuf *b)
{
	for (int i = 0; st->fu && i < st->fu->n - 1; i++)
		sb_printf(b, "%s%s", i ? ", " : ", computing ",
			  st->fu->node[i].var ? st->fu->node[i].var->name : "?");
}

/* --print-plan: what step st of a sequence does, after its expression. */
static void
plan_what(const Step *st, StrBuf *b)
{
	const Expr *e = st->x;
	if (!e) {
		sb_printf(b, "fused into %s", st->into ? st->into->var->name : "?");
		return;
	}
	if (st->prim) {
		sb_printf(b, "kernel %s (prim_func %s", st->k->name, st->prim->name);
		if (st->direct)
			sb_puts(b, ", called directly: writes into its arguments");
		if (st->donate)
			sb_puts(b, ", in place when its input is not shared");
		if (st->k->nsites)
			sb_printf(b, "; %d ind%s checked when it runs", st->k->nsites,
				  st->k->nsites == 1 ? "ex" : "ices");
		sb_putc(b, ')');
		plan_producers(st, b);
		return;
	}
	if (st->k) {
		sb_printf(b, "kernel %s", st->k->name);
		plan_producers(st, b);
		return;
	}
	switch (e->kind) {
	case E_CALL:
		sb_puts(b, is_view_op(e->call.op) ? "view of its input"
			   : op_info(e->call.op)->cls == OC_COMM ? "collective"
								 : "executor");
		return;
	case E_CALL_FN:
		sb_printf(b, "call %s", st->callee->f->name);
		return;
	case E_IF:
		sb_puts(b, "branch");
		return;
	default:
		sb_puts(b, "value");
		return;
	}
}

static void plan_seq_print(const SeqPlan *sp, int ind, StrBuf *b);

/* --print-plan: one step, its expression as run, then what runs it. */
static void
plan_step_print(const Step *st, int ind, StrBuf *b)
{
	size_t start = b->len;
	sb_printf(b, "%*s%s = ", ind, "", st->b->var->name);
	const Expr *e = st->b->value;
	if (e->kind == E_IF) {
		sb_puts(b, "if ");
		print_expr(b, e->if_.cond);
	} else {
		print_expr(b, e);
	}
	size_t w = b->len - start;
	sb_printf(b, "%*s# ", w < 60 ? (int)(60 - w) : 1, "");
	plan_what(st, b);
	sb_putc(b, '\n');
	if (e->kind == E_IF) {
		plan_seq_print(st->then_, ind + 4, b);
		sb_printf(b, "%*selse\n", ind, "");
		plan_seq_print(st->else_, ind + 4, b);
	}
}

static void
plan_seq_print(const SeqPlan *sp, int ind, StrBuf *b)
{
	for (int i = 0; i < sp->n; i++)
		plan_step_print(&sp->steps[i], ind, b);
}

void
rt_program_plan(const RtProgram *p, StrBuf *b)
{
	for (int i = 0; i < p->nplans; i++) {
		const FnPlan *fp = p->plans[i];
		int steps = 0, kernels = 0, fused = 0;
		for (int j = 0; j < fp->top->n; j++) {
			const Step *st = &fp->top->steps[j];
			steps++;
			kernels += st->k != NULL;
			fused += st->x == NULL;
		}
		sb_printf(b, "# plan of %s: %d binding%s, %d kernel call%s, %d "
			  "fused into a later kernel\n", fp->f->name, steps,
			  steps == 1 ? "" : "s", kernels, kernels == 1 ? "" : "s",
			  fused);
		plan_seq_print(fp->top, 4, b);
	}
}

void
rt_program_set_comm(RtProgram *p, RtComm *c)
{
	p->comm = c;
}

void
rt_program_set_index_check(RtProgram *p, bool on)
{
	p->no_index_check = !on;
}

const Func *
rt_program_func(const RtProgram *p)
{
	return p->main->f;
}

int
rt_program_num_kernels(const RtProgram *p)
{
	return cg_num_kernels(p->cg);
}

void
rt_program_jit_stats(const RtProgram *p, int *compiled, int *cached,
		     double *seconds)
{
	const JitStats *s = jit_stats(p->jit);
	*compiled = s->misses;
	*cached = s->hits;
	*seconds = s->seconds;
}
