/*
 * canonicalize_bindings.c — canonicalize-bindings, as TVM's
 * CanonicalizeBindings (CanonicalizeTIRVariables, then the binding
 * canonicalizer), in each function.
 *
 * Symbolic variables. A match_cast whose pattern has a bare symbolic
 * variable where its value's struct info has a known dimension tells that
 * variable's value; the annotations, casts and shapes after it read the value
 * instead (what an if branch learns holds in that branch only). Prim values
 * (R.prim_value(n), and strided_slice's begin/end attributes, prim values in
 * TVM) keep the variable: they are runtime uses, and a match_cast that
 * defines a variable used that way keeps its pattern; inference still reads
 * the value (the slice's length). Two casts that give one variable provably
 * different values are an error ("MatchCast statements must be
 * consistent"). A cast made trivial this way goes with the trivial bindings
 * below. A branch whose struct info changed so ends in a match_cast to the
 * if's struct info (TVM's re-cast at the if exit). Inner functions are
 * canonicalized with their enclosing function.
 *
 * Bindings. `y = x` (x a variable; for a match_cast, when the cast equals
 * x's struct info; for an annotated binding, when x's struct info implies
 * the annotation) is trivial, also after looking through known values:
 * `t[i]` of a tuple literal t is its item i, and (t[0], ..., t[n-1]) of an
 * n-tuple t is t. A trivial binding is removed and its uses read x
 * (following chains), except when y is used outside its dataflow block and x
 * is a DataflowVar: then x's binding defines y (the outer name survives).
 * A variable bound to a constant (directly or through a tuple item) keeps its
 * binding; its uses read the constant. A Var defined in a dataflow block and
 * used only there becomes a DataflowVar (also inside if branches). In a
 * dataflow block, an output `y = x` of a DataflowVar x used nowhere else
 * takes x's value, and x's binding goes.
 *
 * A binding whose value changed takes the value's inferred struct info (a
 * weaker annotation gives way, as when TVM's ExprMutator re-emits it), and so
 * do the bindings that read a variable whose struct info changed. Empty blocks
 * go and adjacent blocks of one kind merge (TVM's normalizer); the function's
 * return takes the body's struct info when that is more specific.
 *
 * Beyond TVM: an annotated `y: S = x` whose x does not imply S is a runtime
 * check in rlx and stays.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	SymVar **from;
	PExpr **to;
	Binding **src; /* the match_cast that told the value */
	int n, cap;
	int ver;       /* changes whenever the list does */
} Known;

/* How a variable is an output of its dataflow block (fold_outputs). */
typedef enum {
	OUT_NOT,   /* not one */
	OUT_VAR,   /* `y = x` */
	OUT_CAST,  /* `y = R.match_cast(x, ...)` */
} OutForm;

/* What the pass knows and decides of one variable (per Var.id). */
typedef struct {
	/* planner */
	Expr *known;      /* its value, known values looked through */
	Var *trivial;     /* y = x: x */
	Expr *konst;      /* the constant it is bound to */
	Block *def_block; /* the block of its binding */
	bool outside;     /* used outside its home dataflow block */
	/* the plan */
	Var *use_as;      /* uses read this var instead */
	Var *def_as;      /* its binding defines this var instead */
	bool to_df;       /* becomes a DataflowVar */
	bool removed;     /* its binding goes */
	bool si_changed;  /* its struct info changed */
	bool a_changed;   /* symbolic canonicalization changed its binding */
	/* fold_outputs */
	bool disq;
	OutForm is_out;   /* how it is a dataflow block's output */
	Binding *cand;
	bool is_touched;  /* in Canon.touched: reset after the function */
	Known *snap;      /* the values known at its binding */
} VarState;

typedef struct {
	Module *m;
	Diags *d;
	int nids;
	VarState *vs;      /* per Var.id */
	IntVec touched;    /* ids whose VarState is not all zero */
	IntVec trivials;   /* ids with trivial set, in definition order */
	IntVec dfdefs;     /* ids defined in dataflow blocks, in order */
	Known *last_snap;  /* the latest snapshot, of version last_ver */
	int last_ver;
	bool *sv_runtime;  /* per SymVar.id: used by a prim value */
	IntVec sv_marked;  /* the ids set in sv_runtime */
	const Block *cur;  /* NULL outside blocks and in a sequence's result */
} Canon;

static void
touch(Canon *c, int id)
{
	if (id >= c->nids || c->vs[id].is_touched)
		return;
	c->vs[id].is_touched = true;
	ivec_push(&c->touched, id);
}

/* --------------------------------------------- symbolic canonicalization */

static void
known_push(Known *k, SymVar *v, PExpr *to, Binding *src)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->from = xrealloc(k->from, sizeof *k->from * (size_t)k->cap);
		k->to = xrealloc(k->to, sizeof *k->to * (size_t)k->cap);
		k->src = xrealloc(k->src, sizeof *k->src * (size_t)k->cap);
	}
	k->from[k->n] = v;
	k->to[k->n] = to;
	k->src[k->n] = src;
	k->n++;
	k->ver++;
}

/* Forgets what was learned after the first n values (a scope ends). */
static void
known_cut(Known *k, int n)
{
	if (k->n != n) {
		k->n = n;
		k->ver++;
	}
}

/* The values known now, for the rewrite stage (shared while unchanged). */
static Known *
known_snapshot(Canon *c, const Known *k)
{
	if (!k->n)
		return NULL;
	if (c->last_snap && c->last_ver == k->ver)
		return c->last_snap;
	Known *s = ARENA_NEW(&c->m->arena, Known);
	s->from = ARENA_ARRAY(&c->m->arena, SymVar *, k->n);
	s->to = ARENA_ARRAY(&c->m->arena, PExpr *, k->n);
	memcpy(s->from, k->from, sizeof(SymVar *) * (size_t)k->n);
	memcpy(s->to, k->to, sizeof(PExpr *) * (size_t)k->n);
	s->n = s->cap = k->n;
	c->last_snap = s;
	c->last_ver = k->ver;
	return s;
}

static int
known_find(const Known *k, const SymVar *v)
{
	for (int i = 0; i < k->n; i++)
		if (k->from[i] == v)
			return i;
	return -1;
}

static bool
pe_mentions(const PExpr *x, const Known *k)
{
	if (!x)
		return false;
	if (x->kind == PE_VAR)
		return known_find(k, x->var) >= 0;
	return pe_mentions(x->a, k) || pe_mentions(x->b, k);
}

static bool
si_mentions(const SInfo *si, const Known *k)
{
	if (!si)
		return false;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			if (pe_mentions(si->shape[i], k))
				return true;
	if (pe_mentions(si->value, k))
		return true;
	for (int i = 0; i < si->nfields; i++)
		if (si_mentions(si->fields[i], k))
			return true;
	return si_mentions(si->ret, k);
}

/* Whether a call's dims attributes (strided_slice's begin/end: runtime
 * uses, as TVM's prim values) mention a known variable. */
static bool
attrs_mention(const Expr *e, const Known *k)
{
	if (!k || e->kind != E_CALL)
		return false;
	for (int i = 0; i < e->call.nattrs; i++) {
		const AttrVal *a = &e->call.attrs[i];
		if (a->kind == AV_DIMS)
			for (int j = 0; j < a->n; j++)
				if (pe_mentions(a->dims[j], k))
					return true;
	}
	return false;
}

static SInfo *
subst_si(Canon *c, SInfo *si, const Known *k)
{
	if (!si || !k || !si_mentions(si, k))
		return si;
	return ir_subst_sinfo(c->m, si, k->from, k->to, k->n);
}

static PExpr *
subst_pe(Canon *c, PExpr *x, const Known *k)
{
	if (!pe_mentions(x, k))
		return x;
	return pe_subst(&c->m->arena, x, k->from, k->to, k->n);
}

/*
 * The struct info of value where the known values hold: the attributes
 * keep their variables (runtime uses) but inference reads the values, as
 * TVM's inference followed by the substitution of the known values.
 */
static SInfo *
infer_known(Canon *c, Expr *e, const Known *k)
{
	if (!k || !attrs_mention(e, k))
		return subst_si(c, infer_expr(c->m, e, c->d), k);
	Expr x = *e;
	x.call.attrs = ARENA_ARRAY(&c->m->arena, AttrVal, e->call.nattrs);
	for (int i = 0; i < e->call.nattrs; i++) {
		AttrVal a = e->call.attrs[i];
		if (a.kind == AV_DIMS) {
			PExpr **d = ARENA_ARRAY(&c->m->arena, PExpr *, a.n ? a.n : 1);
			for (int j = 0; j < a.n; j++)
				d[j] = subst_pe(c, a.dims[j], k);
			a.dims = d;
		}
		x.call.attrs[i] = a;
	}
	SInfo *si = subst_si(c, infer_expr(c->m, &x, c->d), k);
	if (si)
		e->sinfo = si;
	return si;
}

static void sym_seq(Canon *c, Expr *seq, Known *k);

/* Appends binding b to seq's last block (a new one after a dataflow block). */
static void
append_binding(Module *m, Expr *seq, Binding *b)
{
	Block *last = seq->seq.nblocks ? seq->seq.blocks[seq->seq.nblocks - 1]
				       : NULL;
	if (!last || last->dataflow) {
		last = ARENA_NEW(&m->arena, Block);
		last->span = b->span;
		Block **bs = ARENA_ARRAY(&m->arena, Block *, seq->seq.nblocks + 1);
		if (seq->seq.nblocks)
			memcpy(bs, seq->seq.blocks,
			       sizeof(Block *) * (size_t)seq->seq.nblocks);
		bs[seq->seq.nblocks++] = last;
		seq->seq.blocks = bs;
	}
	Binding **nb = ARENA_ARRAY(&m->arena, Binding *, last->n + 1);
	if (last->n)
		memcpy(nb, last->bindings, sizeof(Binding *) * (size_t)last->n);
	nb[last->n++] = b;
	last->bindings = nb;
}

/*
 * TVM's re-cast at an if exit: a branch that learned the value of a
 * variable of the if's struct info, and whose struct info now differs from
 * the if's, ends in a match_cast to the if's struct info (a result that is
 * not a variable is bound first), so the variable is symbolic again after
 * the if. learned: the values the branch learned.
 */
static void
recast_branch(Canon *c, const Expr *e, Expr *seq, const Known *learned)
{
	Module *m = c->m;
	Expr *res = seq->seq.body;
	const SInfo *bs = ir_expr_sinfo(res);
	if (!e->sinfo || !bs || !si_mentions(e->sinfo, learned) ||
	    res->kind == E_CONST || si_equal(m, e->sinfo, bs))
		return;
	if (res->kind != E_VAR) {
		Var *tv = ir_var(m, "lv", (SInfo *)bs, false, res->span);
		append_binding(m, seq, ir_binding(m, tv, res, res->span));
		res = ir_var_ref(m, tv, res->span);
	}
	Var *nv = ir_var(m, res->var->name, e->sinfo, false, res->span);
	Binding *b = ir_binding(m, nv, ir_var_ref(m, res->var, res->span),
				res->span);
	b->cast = e->sinfo;
	append_binding(m, seq, b);
	seq->seq.body = ir_var_ref(m, nv, res->span);
	seq->sinfo = e->sinfo;
}

static void sym_expr(Canon *c, Expr *e, Known *k);

/* sym_expr over ir_each_child */
typedef struct {
	Canon *c;
	Known *k;
} SymWalk;

static bool
sym_child(Expr **child, void *ctx)
{
	SymWalk *w = ctx;
	sym_expr(w->c, *child, w->k);
	return true;
}

/* Substitutes the known values into e's struct info and shapes (not into
 * prim values: those are runtime uses); recurses into if branches. */
static void
sym_expr(Canon *c, Expr *e, Known *k)
{
	/* a use reads its variable's struct info (a kept cast's pattern) */
	if (e->kind == E_VAR && e->var->sinfo)
		e->sinfo = e->var->sinfo;
	else
		e->sinfo = subst_si(c, e->sinfo, k);
	switch (e->kind) {
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			e->shape.values[i] = subst_pe(c, e->shape.values[i], k);
		break;
	case E_FUNC: {
		/* what its body learns stays in it */
		int n = k->n;
		sym_seq(c, e->fn->body, k);
		known_cut(k, n);
		break;
	}
	case E_IF: {
		sym_expr(c, e->if_.cond, k);
		int n = k->n;
		for (int br = 0; br < 2; br++) {
			Expr *seq = br ? e->if_.else_ : e->if_.then_;
			sym_seq(c, seq, k);
			if (k->n > n) {
				Known learned = {.from = k->from + n,
						 .to = k->to + n, .n = k->n - n};
				recast_branch(c, e, seq, &learned);
			}
			known_cut(k, n);
		}
		break;
	}
	case E_SEQ:
		sym_seq(c, e, k);
		break;
	case E_TUPLE: /* tuples, calls: their operands */
	case E_TUPLE_GET:
	case E_CALL:
	case E_CALL_FN:
	case E_CALL_VAR:
		ir_each_child(e, sym_child, &(SymWalk){c, k});
		break;
	case E_VAR:
	case E_CONST:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
}

/* Whether a value (its shapes, prim values, struct info) mentions a known
 * variable: then symbolic canonicalization changes it. */
typedef struct {
	const Known *k;
	bool found;
} MentionWalk;

static bool expr_mentions(const Expr *e, const Known *k);

static bool
mention_child(Expr **slot, void *ctx)
{
	MentionWalk *w = ctx;
	w->found = expr_mentions(*slot, w->k);
	return !w->found;
}

static bool
expr_mentions(const Expr *e, const Known *k)
{
	if (!e || !k->n)
		return false;
	if (si_mentions(e->sinfo, k))
		return true;
	switch (e->kind) {
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			if (pe_mentions(e->shape.values[i], k))
				return true;
		return false;
	case E_CALL: /* its attributes, then its arguments */
		if (attrs_mention(e, k))
			return true;
		/* fall through */
	case E_TUPLE:
	case E_TUPLE_GET:
	case E_CALL_FN:
	case E_CALL_VAR: {
		MentionWalk w = {k, false};
		ir_each_child((Expr *)e, mention_child, &w);
		return w.found;
	}
	case E_IF: /* if values: their bindings are tracked */
	case E_SEQ:
	case E_FUNC:
	case E_VAR:
	case E_CONST:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		return false;
	}
	return false;
}

/* Whether the symbolic variables of pattern si include a runtime use. */
static bool
pattern_runtime(const Canon *c, const SInfo *si)
{
	if (!si)
		return false;
	Vec vs = {0};
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			pe_collect_vars(si->shape[i], &vs);
	if (si->value)
		pe_collect_vars(si->value, &vs);
	bool r = false;
	for (int i = 0; i < vs.n; i++)
		r |= c->sv_runtime[((SymVar *)vs.items[i])->id];
	vec_free(&vs);
	for (int i = 0; i < si->nfields && !r; i++)
		r = pattern_runtime(c, si->fields[i]);
	return r;
}

static void
note_value(Canon *c, Known *k, Binding *b, SymVar *v, PExpr *val)
{
	if (val->kind == PE_VAR && val->var == v)
		return;
	int i = known_find(k, v);
	if (i < 0) {
		known_push(k, v, val, b);
		return;
	}
	if (infer_dim_rel(c->m, k->to[i], val) == DIM_DIFFER) {
		StrBuf a = {0}, bb = {0};
		pe_print(&a, k->to[i]);
		pe_print(&bb, val);
		diag_error(c->d, b->span,
			   "MatchCast statements must be consistent: the definition "
			   "of %s implies that %s is %s, while the later definition "
			   "of %s implies that %s is %s",
			   k->src[i]->var->name, v->name, a.p, b->var->name,
			   v->name, bb.p);
		sb_free(&a);
		sb_free(&bb);
	}
}

/* The values that pattern pat (a match_cast's) gives its bare variables
 * when matched against struct info val (TVM's InferSymbolicVarMap). */
static void
match_pattern(Canon *c, Known *k, Binding *b, const SInfo *pat,
	      const SInfo *val)
{
	if (!pat || !val || pat->kind != val->kind)
		return;
	if (pat->shape && val->shape && pat->ndim == val->ndim)
		for (int i = 0; i < pat->ndim; i++)
			if (pat->shape[i]->kind == PE_VAR)
				note_value(c, k, b, pat->shape[i]->var,
					   val->shape[i]);
	if (pat->value && val->value && pat->value->kind == PE_VAR)
		note_value(c, k, b, pat->value->var, val->value);
	if (pat->kind == SI_TUPLE && pat->nfields == val->nfields)
		for (int i = 0; i < pat->nfields; i++)
			match_pattern(c, k, b, pat->fields[i], val->fields[i]);
}

static void
sym_seq(Canon *c, Expr *seq, Known *k)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		for (int j = 0; j < bl->n; j++) {
			Binding *b = bl->bindings[j];
			Var *v = b->var;
			SInfo *pat = b->cast;
			bool keep_pattern = pat && pattern_runtime(c, pat);
			if (pat)
				match_pattern(c, k, b, pat, ir_expr_sinfo(b->value));
			if (v->id < c->nids) {
				touch(c, v->id);
				c->vs[v->id].snap = known_snapshot(c, k);
			}
			if (!keep_pattern) {
				bool ch = expr_mentions(b->value, k) ||
					  si_mentions(b->cast, k);
				SInfo *old = v->sinfo;
				sym_expr(c, b->value, k);
				b->cast = subst_si(c, b->cast, k);
				v->sinfo = subst_si(c, v->sinfo, k);
				if (ch && !pat && b->value->kind == E_CALL) {
					SInfo *vs = infer_known(c, b->value, k);
					if (vs)
						v->sinfo = vs;
				}
				if (v->id < c->nids) {
					c->vs[v->id].a_changed |= ch;
					c->vs[v->id].si_changed |= old != v->sinfo;
				}
			}
		}
	}
	sym_expr(c, seq->seq.body, k);
}

/* Symbolic variables used by prim values (runtime uses). */
static void prim_uses(Canon *c, const Expr *e);

static bool
prim_uses_child(Expr **child, void *ctx)
{
	prim_uses(ctx, *child);
	return true;
}

static void
prim_uses(Canon *c, const Expr *e)
{
	if (!e)
		return;
	Vec vs = {0};
	if (e->kind == E_PRIM && e->prim.value)
		pe_collect_vars(e->prim.value, &vs);
	ir_each_child((Expr *)e, prim_uses_child, c);
	for (int i = 0; e->kind == E_CALL && i < e->call.nattrs; i++) {
		const AttrVal *a = &e->call.attrs[i];
		if (a->kind == AV_DIMS) /* strided_slice's begin/end: prim values */
			for (int j = 0; j < a->n; j++)
				pe_collect_vars(a->dims[j], &vs);
	}
	for (int i = 0; i < vs.n; i++) {
		int id = ((SymVar *)vs.items[i])->id;
		if (!c->sv_runtime[id])
			ivec_push(&c->sv_marked, id);
		c->sv_runtime[id] = true;
	}
	vec_free(&vs);
}

/* ------------------------------------------------------------- planning */

static Expr *
look_through(Canon *c, Expr *e)
{
	while (e->kind == E_VAR && e->var->id < c->nids && c->vs[e->var->id].known)
		e = c->vs[e->var->id].known;
	return e;
}

static bool
same_expr(const Expr *a, const Expr *b)
{
	return a == b ||
	       (a->kind == E_VAR && b->kind == E_VAR && a->var == b->var);
}

/* TVM's UnwrapKnownValue: what value reads once known values are looked
 * through, or NULL when that is value itself. */
static Expr *
unwrap(Canon *c, Expr *e)
{
	if (e->kind == E_TUPLE_GET) {
		Expr *t = look_through(c, e->tget.tuple);
		if (t->kind == E_TUPLE && e->tget.index >= 0 &&
		    e->tget.index < t->tuple.n)
			return t->tuple.items[e->tget.index];
		return NULL;
	}
	if (e->kind != E_TUPLE || e->tuple.n == 0)
		return NULL;
	Expr *first = look_through(c, e->tuple.items[0]);
	if (first->kind != E_TUPLE_GET)
		return NULL;
	const SInfo *ts = ir_expr_sinfo(first->tget.tuple);
	if (!ts || ts->kind != SI_TUPLE || ts->nfields != e->tuple.n)
		return NULL;
	Expr *earlier = look_through(c, first->tget.tuple);
	for (int i = 0; i < e->tuple.n; i++) {
		Expr *el = look_through(c, e->tuple.items[i]);
		if (el->kind != E_TUPLE_GET || el->tget.index != i ||
		    !same_expr(earlier, look_through(c, el->tget.tuple)))
			return NULL;
	}
	return earlier;
}

static void plan_expr(Canon *c, Expr *e);

static void
plan_use(Canon *c, Var *v)
{
	if (v->id >= c->nids)
		return;
	if (!c->cur || !c->cur->dataflow ||
	    (c->vs[v->id].def_block && c->vs[v->id].def_block != c->cur)) {
		touch(c, v->id);
		c->vs[v->id].outside = true;
	}
}

static void
plan_binding(Canon *c, Block *bl, Binding *b)
{
	Module *m = c->m;
	Var *v = b->var;
	int id = v->id;
	if (id >= c->nids) { /* made by this pass (an if exit's re-cast) */
		plan_expr(c, b->value);
		return;
	}
	touch(c, id);
	const SInfo *vs = ir_expr_sinfo(b->value);
	bool same_ty;
	if (b->cast)
		same_ty = vs && si_equal(m, v->sinfo, vs);
	else
		same_ty = !b->annotated || (vs && v->sinfo &&
					    si_check(m, v->sinfo, vs) == SI_PROVEN);
	Expr *value = b->value;
	Expr *u = unwrap(c, value);
	if (u)
		value = u;
	if (value->kind == E_VAR && same_ty && value->var->id < c->nids) {
		c->vs[id].trivial = value->var;
		ivec_push(&c->trivials, id);
	}
	if (value->kind == E_CONST)
		c->vs[id].konst = value;
	c->vs[id].known = value;
	c->vs[id].def_block = bl;
	plan_expr(c, b->value);
	if (bl->dataflow)
		ivec_push(&c->dfdefs, id);
}

static void
plan_seq(Canon *c, Expr *seq)
{
	const Block *saved = c->cur;
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		c->cur = bl;
		for (int j = 0; j < bl->n; j++)
			plan_binding(c, bl, bl->bindings[j]);
	}
	c->cur = NULL;
	plan_expr(c, seq->seq.body);
	c->cur = saved;
}

static bool
plan_child(Expr **slot, void *ctx)
{
	plan_expr(ctx, *slot);
	return true;
}

static void
plan_expr(Canon *c, Expr *e)
{
	switch (e->kind) {
	case E_VAR:
		plan_use(c, e->var);
		break;
	case E_FUNC: {
		/* a function's blocks are its own: what it reads of the
		 * enclosing function is used outside that variable's block */
		const Block *saved = c->cur;
		c->cur = NULL;
		plan_seq(c, e->fn->body);
		c->cur = saved;
		break;
	}
	case E_IF:
		plan_expr(c, e->if_.cond);
		plan_seq(c, e->if_.then_);
		plan_seq(c, e->if_.else_);
		break;
	case E_SEQ:
		plan_seq(c, e);
		break;
	case E_TUPLE:
	case E_TUPLE_GET:
	case E_CALL:
	case E_CALL_FN:
	case E_CALL_VAR:
		ir_each_child(e, plan_child, c);
		break;
	case E_CONST:
	case E_SHAPE:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
}

/* ------------------------------------------------------------- mutation */

static Var *
use_of(Canon *c, Var *v)
{
	while (v->id < c->nids && c->vs[v->id].use_as)
		v = c->vs[v->id].use_as;
	return v;
}

static Var *
def_of(Canon *c, Var *v)
{
	while (v->id < c->nids && c->vs[v->id].def_as)
		v = c->vs[v->id].def_as;
	return v;
}

static bool rewrite_seq(Canon *c, Expr *seq);

typedef struct {
	Canon *c;
	bool changed;
} RewriteWalk;

static bool rewrite(Canon *c, Expr **slot);

static bool
rewrite_child(Expr **slot, void *ctx)
{
	RewriteWalk *w = ctx;
	w->changed |= rewrite(w->c, slot);
	return true;
}

/* Rewrites the uses under *slot; true when anything changed (a use now
 * reads another var or a constant, or reads a var whose struct info
 * changed). Each use gets its own node: later passes edit uses in place. */
static bool
rewrite(Canon *c, Expr **slot)
{
	Expr *e = *slot;
	bool ch = false;
	switch (e->kind) {
	case E_VAR: {
		Var *v = use_of(c, e->var);
		if (v->id < c->nids && c->vs[v->id].konst) {
			Expr *k = ir_copy_expr(c->m, c->vs[v->id].konst);
			k->span = e->span;
			*slot = k;
			return true;
		}
		if (v != e->var) {
			*slot = ir_var_ref(c->m, v, e->span);
			return true;
		}
		return v->id < c->nids && c->vs[v->id].si_changed;
	}
	case E_TUPLE:
	case E_TUPLE_GET:
	case E_CALL:
	case E_CALL_FN:
	case E_CALL_VAR: {
		RewriteWalk w = {c, false};
		ir_each_child(e, rewrite_child, &w);
		ch = w.changed;
		break;
	}
	case E_FUNC:
		ch |= rewrite_seq(c, e->fn->body);
		break;
	case E_IF:
		ch |= rewrite(c, &e->if_.cond);
		ch |= rewrite_seq(c, e->if_.then_);
		ch |= rewrite_seq(c, e->if_.else_);
		break;
	case E_SEQ:
		ch |= rewrite_seq(c, e);
		break;
	case E_CONST:
	case E_SHAPE:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
	return ch;
}

static void
mark_disq(Var *v, void *ctx)
{
	Canon *c = ctx;
	if (v->dataflow && v->id < c->nids) {
		touch(c, v->id);
		c->vs[v->id].disq = true;
	}
}

/*
 * In a dataflow block, an output `y = x` of a DataflowVar x that nothing
 * else reads takes x's value, and x's binding goes. A match_cast output
 * takes only a variable (rlx's normal form keeps a cast's value a leaf).
 */
static bool
fold_outputs(Canon *c, Block *bl)
{
	for (int i = bl->n - 1; i >= 0; i--) {
		Binding *b = bl->bindings[i];
		Var *v = b->var;
		if (v->id >= c->nids)
			continue;
		touch(c, v->id);
		if (v->dataflow) {
			ir_visit_uses(b->value, mark_disq, c);
			bool leaf = c->vs[v->id].is_out == OUT_VAR || b->value->kind == E_VAR;
			if (!c->vs[v->id].disq && c->vs[v->id].is_out && leaf)
				c->vs[v->id].cand = b;
		} else if (b->value->kind == E_VAR && b->value->var->dataflow &&
			   b->value->var->id < c->nids) {
			Var *x = b->value->var;
			touch(c, x->id);
			if (c->vs[x->id].is_out)
				c->vs[x->id].disq = true;
			c->vs[x->id].is_out = b->cast ? OUT_CAST : OUT_VAR;
		} else {
			ir_visit_uses(b->value, mark_disq, c);
		}
	}
	bool ch = false;
	int kept = 0;
	for (int i = 0; i < bl->n; i++) {
		Binding *b = bl->bindings[i];
		Var *v = b->var;
		if (v->dataflow && v->id < c->nids && c->vs[v->id].cand) {
			ch = true;
			continue;
		}
		if (!v->dataflow && b->value->kind == E_VAR &&
		    b->value->var->id < c->nids && c->vs[b->value->var->id].cand) {
			b->value = c->vs[b->value->var->id].cand->value;
			ch = true;
		}
		bl->bindings[kept++] = b;
	}
	bl->n = kept;
	return ch;
}

static bool
rewrite_seq(Canon *c, Expr *seq)
{
	Module *m = c->m;
	bool changed = false;
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		int kept = 0;
		for (int j = 0; j < bl->n; j++) {
			Binding *b = bl->bindings[j];
			int id = b->var->id;
			if (id < c->nids && c->vs[id].removed) {
				changed = true;
				continue;
			}
			Var *nv = def_of(c, b->var);
			bool ch = nv != b->var;
			b->var = nv;
			ch |= rewrite(c, &b->value);
			ch |= id < c->nids && c->vs[id].a_changed;
			if (ch && id >= c->nids) {
				changed = true; /* made by this pass: final */
			} else if (ch) {
				changed = true;
				SInfo *vs = infer_known(
					c, b->value, id < c->nids ? c->vs[id].snap : NULL);
				if (!b->cast && vs &&
				    !(nv->sinfo && si_equal(m, nv->sinfo, vs))) {
					nv->sinfo = vs;
					if (nv->id < c->nids) {
						touch(c, nv->id);
						c->vs[nv->id].si_changed = true;
					}
				}
				if (b->cast)
					nv->sinfo = b->cast;
			}
			bl->bindings[kept++] = b;
		}
		bl->n = kept;
		if (bl->dataflow && bl->n)
			changed |= fold_outputs(c, bl);
	}
	if (rewrite(c, &seq->seq.body)) {
		changed = true;
	}
	/* TVM's normalizer: empty blocks go, neighbours of one kind merge */
	int nb = 0;
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		if (!bl->n) {
			changed = true;
			continue;
		}
		if (nb && seq->seq.blocks[nb - 1]->dataflow == bl->dataflow) {
			Block *p = seq->seq.blocks[nb - 1];
			Binding **bs = ARENA_ARRAY(&m->arena, Binding *, p->n + bl->n);
			memcpy(bs, p->bindings, sizeof(Binding *) * (size_t)p->n);
			memcpy(bs + p->n, bl->bindings, sizeof(Binding *) * (size_t)bl->n);
			p->bindings = bs;
			p->n += bl->n;
			changed = true;
			continue;
		}
		seq->seq.blocks[nb++] = bl;
	}
	seq->seq.nblocks = nb;
	if (changed) {
		SInfo *s = infer_expr(m, seq->seq.body, c->d);
		if (s)
			seq->sinfo = s;
	}
	return changed;
}

/* ------------------------------------------------------------ functions */

/* f keeps the symbolic variables it still mentions. */
static void
prune_symvars(Func *f)
{
	Vec used = {0};
	for (int i = 0; i < f->nparams; i++)
		ir_sinfo_symvars(f->params[i]->sinfo, &used);
	ir_sinfo_symvars(f->ret, &used);
	ir_expr_symvars(f->body, &used);
	int ns = 0;
	for (int i = 0; i < f->nsymvars; i++) {
		bool u = false;
		for (int k = 0; k < used.n && !u; k++)
			u = used.items[k] == f->symvars[i];
		if (u)
			f->symvars[ns++] = f->symvars[i];
	}
	f->nsymvars = ns;
	vec_free(&used);
}

static void
plan_apply(Canon *c, Var **vars)
{
	for (int i = 0; i < c->dfdefs.n; i++) {
		int id = c->dfdefs.items[i];
		if (!vars[id]->dataflow && !c->vs[id].outside)
			c->vs[id].to_df = true;
	}
	for (int i = 0; i < c->trivials.n; i++) {
		int id = c->trivials.items[i];
		Var *y = vars[id];
		Var *x = c->vs[id].trivial;
		while (x->id < c->nids && c->vs[x->id].trivial)
			x = c->vs[x->id].trivial;
		while (x->id < c->nids && c->vs[x->id].def_as)
			x = c->vs[x->id].def_as;
		bool x_df = x->dataflow || (x->id < c->nids && c->vs[x->id].to_df);
		if (y->dataflow || !x_df || !c->vs[id].outside) {
			c->vs[id].use_as = x;
		} else {
			touch(c, x->id);
			c->vs[x->id].def_as = y;
			c->vs[x->id].use_as = y;
		}
		c->vs[id].removed = true;
	}
	for (int i = 0; i < c->dfdefs.n; i++) {
		int id = c->dfdefs.items[i];
		if (c->vs[id].to_df)
			vars[id]->dataflow = true;
	}
}

/* The Var of every binding of seq (and nested ones), by id. */
static void
index_vars(Canon *c, Expr *seq, Var **vars)
{
	for (int i = 0; i < seq->seq.nblocks; i++)
		for (int j = 0; j < seq->seq.blocks[i]->n; j++) {
			Binding *b = seq->seq.blocks[i]->bindings[j];
			if (b->var->id < c->nids)
				vars[b->var->id] = b->var;
			if (b->value->kind == E_IF) {
				index_vars(c, b->value->if_.then_, vars);
				index_vars(c, b->value->if_.else_, vars);
			} else if (b->value->kind == E_FUNC) {
				index_vars(c, b->value->fn->body, vars);
			}
		}
}

static void
canon_func(Canon *c, Func *f, Var **vars)
{
	Module *m = c->m;
	Known k = {0};
	c->last_snap = NULL; /* versions count from 0 in each function */
	prim_uses(c, f->body);
	sym_seq(c, f->body, &k);
	/* a return annotation may name a variable only a cast defined */
	f->ret = subst_si(c, f->ret, &k);
	free(k.from);
	free(k.to);
	free(k.src);

	plan_seq(c, f->body);
	index_vars(c, f->body, vars);
	plan_apply(c, vars);
	rewrite_seq(c, f->body);

	/* The return takes the body's struct info when more specific. */
	SInfo *body = f->body->sinfo;
	if (body && f->ret && si_check(m, f->ret, body) == SI_PROVEN &&
	    !si_equal(m, f->ret, body)) {
		Vec pv = {0};
		for (int i = 0; i < f->nparams; i++)
			ir_sinfo_symvars(f->params[i]->sinfo, &pv);
		f->ret = si_erase(m, body, (SymVar **)pv.items, pv.n);
		vec_free(&pv);
	}
	prune_symvars(f);

	for (int i = 0; i < c->touched.n; i++) {
		int id = c->touched.items[i];
		c->vs[id] = (VarState){0};
		vars[id] = NULL;
	}
	c->touched.n = c->trivials.n = c->dfdefs.n = 0;
	for (int i = 0; i < c->sv_marked.n; i++)
		c->sv_runtime[c->sv_marked.items[i]] = false;
	c->sv_marked.n = 0;
}

int
pass_canonicalize_bindings(Module *m, Diags *d)
{
	return pass_canonicalize_funcs(m, m->funcs, m->nfuncs, d);
}

int
pass_canonicalize_funcs(Module *m, Func **fs, int nfs, Diags *d)
{
	int before = d->nerrors;
	Canon c = {.m = m, .d = d, .nids = m->next_id};
	size_t n = (size_t)c.nids + 1;
	c.vs = xcalloc(n, sizeof *c.vs);
	c.sv_runtime = xcalloc(n, sizeof *c.sv_runtime);
	Var **vars = xcalloc(n, sizeof(Var *));
	for (int i = 0; i < nfs && d->nerrors == before; i++)
		canon_func(&c, fs[i], vars);
	free(vars);
	free(c.vs);
	free(c.sv_runtime);
	ivec_free(&c.touched);
	ivec_free(&c.trivials);
	ivec_free(&c.dfdefs);
	ivec_free(&c.sv_marked);
	return d->nerrors - before;
}
