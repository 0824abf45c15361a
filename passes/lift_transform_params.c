/*
 * lift_transform_params.c — lift-transform-params: split weight
 * pre-processing from inference, as TVM's LiftTransformParams.
 *
 * For each function F with a `num_input` attribute (not itself a
 * `*transform_params`), the parameters after the first num_input are
 * weights. A binding of a top-level dataflow block is computable at compile
 * time when it is not `R.builtin.stop_lift_params`, its value is pure and
 * reads only weights and computable variables, and every symbolic variable
 * of its value and struct info is defined by a weight's annotation. Rewrites:
 *
 *  - F_transform_params(params: R.Tuple(weights...)) with `num_input: 0`:
 *    each use of weight i reads `params[i]` in a binding of its own just
 *    before the use (TVM's BundleModelParams); the computable bindings follow
 *    in order, and it returns (an R.shape of symbolic variables when needed,
 *    the weights F still uses in parameter order, then the computable values
 *    that depend on a weight and that F still uses, in binding order). The
 *    function is then canonicalized (canonicalize-bindings) and its dead
 *    bindings removed, so `(params[0], ..., params[n-1])` is `return params`.
 *    Nothing is deduplicated: a weight used twice may be returned twice.
 *  - F keeps its runtime inputs, then one `symbolic_vars: R.Shape([...])`
 *    parameter when needed, then one parameter per transform output, named
 *    as the output; the computable bindings that depend on a weight go,
 *    `R.builtin.stop_lift_params(x)` becomes `x`, and F is canonicalized
 *    (no dead-code elimination: unused bindings and weights read only by
 *    them stay). Its attributes are kept as they are.
 *
 * Symbolic variables that F needs at run time, that a weight's annotation
 * defines and that neither a runtime input nor a transform output defines
 * are the `symbolic_vars` shape. An existing F_transform_params is composed
 * with the new one as TVM's ComposeFunctions: the old body runs, its result
 * is matched (`R.match_cast`) to the new transform's parameter, then the new
 * body; the whole is canonicalized, so an identity old transform disappears.
 *
 * Beyond TVM: a computable value that F returns is passed to F (TVM #17231);
 * a weight whose annotation uses symbolic variables from the runtime inputs
 * is an R.Tensor(ndim=...) in the transform; `--shared` with nothing in
 * common lifts the union (what TVM's test of the case expects, an xfail);
 * with rank_known (`rlx transform --tensor-parallel N`, which runs the
 * transform once per worker), the worker's rank counts as a weight, so a
 * slice at the rank is lifted however it is spelt. See the shared
 * transform section.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lift.h"


/* lift.h */
bool
lift_init(Lift *l, Module *m, Func *f)
{
	*l = (Lift){.m = m, .f = f, .ninput = ir_func_num_input(f),
		    .nids = m->next_id};
	if (l->ninput < 0 || l->ninput > f->nparams)
		return false;
	size_t n = (size_t)l->nids + 1;
	l->v = xcalloc(n, sizeof *l->v);
	l->sv_defined = xcalloc(n, sizeof(bool));
	l->sv_rt = xcalloc(n, sizeof(bool));
	return true;
}

void
lift_free(Lift *l)
{
	free(l->v);
	free(l->sv_defined);
	free(l->sv_rt);
	vec_free(&l->rank_vars);
	vec_free(&l->rank_syms);
}

/* ------------------------------------------------------------- analysis */

/* Marks the symbolic variables that si defines: its bare dimensions. */
static void
mark_defined(bool *defined, const SInfo *si)
{
	if (!si)
		return;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			if (si->shape[i]->kind == PE_VAR)
				defined[si->shape[i]->var->id] = true;
	if (si->value && si->value->kind == PE_VAR)
		defined[si->value->var->id] = true;
	for (int i = 0; i < si->nfields; i++)
		mark_defined(defined, si->fields[i]);
}

/* Appends the symbolic variables si defines, in order, to out (unique). */
static void
definable(const SInfo *si, Vec *out)
{
	if (!si)
		return;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			if (si->shape[i]->kind == PE_VAR)
				pe_collect_vars(si->shape[i], out);
	if (si->value && si->value->kind == PE_VAR)
		pe_collect_vars(si->value, out);
	for (int i = 0; i < si->nfields; i++)
		definable(si->fields[i], out);
}

static bool
is_stop_lift(const Expr *e)
{
	return e->kind == E_CALL && e->call.op == OP_STOP_LIFT_PARAMS;
}

typedef struct {
	Lift *l;
	bool ok;   /* every use is a weight or a computable variable */
	bool dep;  /* some use depends on a weight */
} UseScan;

/* The var v stands for once canonicalization folds runtime aliases. */
static Var *
resolve(const Lift *l, Var *v)
{
	while (v->id < l->nids && l->v[v->id].alias)
		v = l->v[v->id].alias;
	return v;
}

static void
scan_use(Var *v, void *ctx)
{
	UseScan *u = ctx;
	v = resolve(u->l, v);
	int k = v->id < u->l->nids ? u->l->v[v->id].kind : K_RUNTIME;
	if (k != K_WEIGHT && k != K_LIFT)
		u->ok = false;
	else if (u->l->v[v->id].param_dep)
		u->dep = true;
}

static void
mark_rt(Var *v, void *ctx)
{
	Lift *l = ctx;
	if (v->id < l->nids)
		l->v[v->id].rt = l->v[v->id].rt_use = true;
}

/*
 * The var a binding trivially equals, as canonicalize-bindings will fold
 * it: `y = x`, or `y = t[i]` of a tuple literal t whose item i is a var (no
 * cast, no annotation that says more than the value's struct info); NULL
 * otherwise.
 */
static Var *
alias_target(const Lift *l, const Binding *b)
{
	if (b->cast)
		return NULL;
	const Expr *v = b->value;
	Var *x = NULL;
	if (v->kind == E_VAR) {
		x = v->var;
	} else if (v->kind == E_TUPLE_GET && v->tget.tuple->kind == E_VAR) {
		Var *t = resolve(l, v->tget.tuple->var);
		const Expr *lit = t->id < l->nids ? l->v[t->id].tuple_of : NULL;
		if (lit && v->tget.index >= 0 && v->tget.index < lit->tuple.n &&
		    lit->tuple.items[v->tget.index]->kind == E_VAR)
			x = lit->tuple.items[v->tget.index]->var;
		/* a DataflowVar item is not visible where y may be */
		if (x && resolve(l, x)->dataflow)
			x = NULL;
	}
	if (!x)
		return NULL;
	const SInfo *xs = x->sinfo;
	if (b->annotated &&
	    !(xs && b->var->sinfo && si_check(l->m, b->var->sinfo, xs) == SI_PROVEN))
		return NULL;
	return resolve(l, x);
}

static void
mark_sv_rt(Lift *l, const Vec *svs)
{
	for (int i = 0; i < svs->n; i++)
		l->sv_rt[((SymVar *)svs->items[i])->id] = true;
}

/* TVM's CanLiftBinding, for a binding of a top-level dataflow block. */
static bool
can_lift(Lift *l, const Binding *b, bool *dep)
{
	if (is_stop_lift(b->value) || !ir_expr_is_pure(l->m, b->value))
		return false;
	UseScan u = {l, true, false};
	ir_visit_uses(b->value, scan_use, &u);
	if (!u.ok)
		return false;
	Vec svs = {0};
	ir_expr_symvars(b->value, &svs);
	ir_sinfo_symvars(b->var->sinfo, &svs);
	ir_sinfo_symvars(b->cast, &svs);
	bool ok = true;
	for (int i = 0; i < svs.n; i++)
		ok &= l->sv_defined[((SymVar *)svs.items[i])->id];
	vec_free(&svs);
	*dep = u.dep;
	return ok;
}

/* With rank_known: whether bd binds the worker's rank (the worker_id call,
 * or a var or match_cast of one); the symbolic variables such a match_cast
 * binds are then defined as a weight's are. */
static bool
binds_rank(Lift *l, const Binding *bd)
{
	if (!l->rank_known)
		return false;
	const Expr *v = bd->value;
	bool rank = ir_is_worker_id(v);
	for (int i = 0; !rank && v->kind == E_VAR && i < l->rank_vars.n; i++)
		rank = l->rank_vars.items[i] == resolve(l, v->var);
	if (!rank)
		return false;
	vec_push(&l->rank_vars, bd->var);
	mark_defined(l->sv_defined, bd->cast);
	definable(bd->cast, &l->rank_syms);
	return true;
}

/* With rank_known: whether b's value reads a symbolic variable cast from
 * the rank (`begin=[r * 64]`, `R.arange(r * 64, ...)`): it depends on the
 * rank as on a weight. */
static bool
reads_rank_sym(const Lift *l, const Binding *b)
{
	if (!l->rank_syms.n)
		return false;
	Vec svs = {0};
	ir_expr_symvars(b->value, &svs);
	bool r = false;
	for (int i = 0; i < svs.n && !r; i++)
		for (int k = 0; k < l->rank_syms.n && !r; k++)
			r = svs.items[i] == l->rank_syms.items[k];
	vec_free(&svs);
	return r;
}

/* lift.h */
int
classify_func(Lift *l)
{
	Func *f = l->f;
	for (int i = 0; i < f->nparams; i++) {
		Var *p = f->params[i];
		bool w = i >= l->ninput;
		l->v[p->id].kind = w ? K_WEIGHT : K_INPUT;
		l->v[p->id].param_dep = w;
		if (w)
			mark_defined(l->sv_defined, p->sinfo);
	}
	Expr *body = f->body;
	int nlift = 0;
	Vec aliases = {0}; /* the runtime aliases, in order */
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			bool dep = false;
			bool allowed = !l->allow || l->allow[bd->var->id];
			Var *tgt = NULL;
			if (bd->value->kind == E_TUPLE)
				l->v[bd->var->id].tuple_of = bd->value;
			Vec svs = {0};
			bool rank = b->dataflow && allowed && binds_rank(l, bd);
			if (b->dataflow && allowed && can_lift(l, bd, &dep)) {
				/* the rank is as a weight */
				dep |= rank || reads_rank_sym(l, bd);
				l->v[bd->var->id].kind = K_LIFT;
				l->v[bd->var->id].param_dep = dep;
				nlift += dep;
				if (dep)
					continue;
				/* it also stays at run time, where its symbolic
				 * variables must be defined (TVM leaves them
				 * undefined) */
			} else if ((tgt = alias_target(l, bd))) {
				/* canonicalization folds it: later bindings read
				 * what it stands for (they may be computable), and
				 * it reads that only where it is read (below), so
				 * that lifting again changes nothing */
				l->v[bd->var->id].kind = K_RUNTIME;
				l->v[bd->var->id].alias = tgt;
				vec_push(&aliases, bd);
			} else {
				l->v[bd->var->id].kind = K_RUNTIME;
				l->v[bd->var->id].rt = true;
				ir_visit_uses(bd->value, mark_rt, l);
			}
			ir_expr_symvars(bd->value, &svs);
			ir_sinfo_symvars(bd->var->sinfo, &svs);
			ir_sinfo_symvars(bd->cast, &svs);
			mark_sv_rt(l, &svs);
			vec_free(&svs);
		}
	}
	/* What F returns is needed at run time (TVM #17231 loses it). */
	ir_visit_uses(body->seq.body, mark_rt, l);
	for (int i = aliases.n - 1; i >= 0; i--) {
		Binding *bd = aliases.items[i];
		if (l->v[bd->var->id].rt_use)
			mark_rt(l->v[bd->var->id].alias, l);
	}
	vec_free(&aliases);
	Vec svs = {0};
	ir_expr_symvars(body->seq.body, &svs);
	ir_sinfo_symvars(f->ret, &svs);
	mark_sv_rt(l, &svs);
	vec_free(&svs);
	return nlift;
}

bool
lift_plan(Module *m, Func *f, bool *lifted)
{
	Lift l;
	if (!lift_init(&l, m, f))
		return false;
	classify_func(&l);
	for (int i = 0; i < l.nids; i++)
		lifted[i] = (l.v[i].kind == K_LIFT && l.v[i].param_dep) ||
			    l.v[i].kind == K_WEIGHT;
	lift_free(&l);
	return true;
}

/* The transform outputs of l->f: the weights needed at run time in
 * parameter order, then the computable values that depend on a weight and
 * are needed at run time, in binding order. */
static void
lift_outputs(const Lift *l, Vec *outs)
{
	Func *f = l->f;
	for (int i = l->ninput; i < f->nparams; i++)
		if (l->v[f->params[i]->id].rt)
			vec_push(outs, f->params[i]);
	Expr *body = f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Var *v = b->bindings[k]->var;
			if (l->v[v->id].kind == K_LIFT && l->v[v->id].param_dep &&
			    l->v[v->id].rt)
				vec_push(outs, v);
		}
	}
}

/* lift.h */
void
lift_extra(const Lift *l, const Vec *outs, Vec *extra)
{
	Func *f = l->f;
	size_t n = (size_t)l->nids + 1;
	bool *by_rt = xcalloc(n, sizeof(bool));
	for (int i = 0; i < l->ninput; i++)
		mark_defined(by_rt, f->params[i]->sinfo);
	for (int i = 0; i < outs->n; i++)
		mark_defined(by_rt, ((Var *)outs->items[i])->sinfo);
	Vec all = {0};
	for (int i = 0; i < f->nparams; i++)
		definable(f->params[i]->sinfo, &all);
	for (int i = 0; i < all.n; i++) {
		SymVar *s = all.items[i];
		if (l->sv_rt[s->id] && !by_rt[s->id])
			vec_push(extra, s);
	}
	vec_free(&all);
	free(by_rt);
}

/* ------------------------------------------------------------ rewriting */

Var *
copy_var(Module *m, const Var *v, bool dataflow)
{
	return ir_var(m, v->name, v->sinfo, dataflow, v->span);
}

static FuncAttr *
attrs_num_input_zero(Module *m, int *n)
{
	FuncAttr *a = ARENA_NEW(&m->arena, FuncAttr);
	a->key = "num_input";
	a->val.kind = AV_INT;
	a->val.i = 0;
	*n = 1;
	return a;
}

Expr *
seq_of(Module *m, Block **blocks, int nblocks, Expr *body, Span sp)
{
	Expr *s = ir_expr(m, E_SEQ, sp);
	s->seq.blocks = blocks;
	s->seq.nblocks = nblocks;
	s->seq.body = body;
	s->sinfo = body->sinfo;
	return s;
}

static Block *
block_new(Module *m, bool dataflow, int cap, Span sp)
{
	Block *b = ARENA_NEW(&m->arena, Block);
	b->dataflow = dataflow;
	b->span = sp;
	b->bindings = ARENA_ARRAY(&m->arena, Binding *, cap + 1);
	return b;
}

/* Inserts g into the module right after f. */
static void
insert_after(Module *m, Func *f, Func *g)
{
	Func **fs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	int k = 0;
	for (int i = 0; i < m->nfuncs; i++) {
		fs[k++] = m->funcs[i];
		if (m->funcs[i] == f)
			fs[k++] = g;
	}
	m->funcs = fs;
	m->nfuncs = k;
}

/* True when every symbolic variable of x is marked in defined. */
static bool
pe_defined(const PExpr *x, const bool *defined)
{
	Vec vs = {0};
	pe_collect_vars(x, &vs);
	bool ok = true;
	for (int i = 0; i < vs.n; i++)
		ok &= defined[((SymVar *)vs.items[i])->id];
	vec_free(&vs);
	return ok;
}

/*
 * si with every dim or value that mentions a symbolic variable the weights
 * do not define forgotten (a tensor keeps its ndim); si itself when there is
 * none. A weight annotated R.Tensor(["m * n"]), m and n defined by the
 * inputs, is an R.Tensor(ndim=1) in the transform, where m and n are not.
 */
static SInfo *
erase_undefined(Module *m, SInfo *si, const bool *defined)
{
	if (!si)
		return NULL;
	bool dims_ok = true;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			dims_ok &= pe_defined(si->shape[i], defined);
	bool value_ok = !si->value || pe_defined(si->value, defined);
	SInfo **fields = NULL;
	for (int i = 0; i < si->nfields; i++) {
		SInfo *fi = erase_undefined(m, si->fields[i], defined);
		if (fi != si->fields[i] && !fields) {
			fields = ARENA_ARRAY(&m->arena, SInfo *, si->nfields);
			memcpy(fields, si->fields, sizeof(SInfo *) * (size_t)si->nfields);
		}
		if (fields)
			fields[i] = fi;
	}
	SInfo *ret = erase_undefined(m, si->ret, defined);
	if (dims_ok && value_ok && !fields && ret == si->ret)
		return si;
	SInfo *c = ARENA_NEW(&m->arena, SInfo);
	*c = *si;
	if (!dims_ok)
		c->shape = NULL;
	if (!value_ok)
		c->value = NULL;
	if (fields)
		c->fields = fields;
	c->ret = ret;
	return c;
}

/* While building a transform: weights become `w = params[i]` bindings. */
typedef struct {
	Module *m;
	const Lift *l;
	Var *params;     /* the tuple parameter */
	int *widx;       /* per Var.id of f: weight position + 1, or 0 */
	Var **copy;      /* per Var.id of f: its copy in the transform */
	Vec bs;          /* the bindings, in order */
	Diags *d;
} Bundle;

/* The binding `name = params[i]` appended before the binding being built;
 * returns a use of its var. */
static Expr *
bundle_get(Bundle *bu, Var *w, Span sp)
{
	Module *m = bu->m;
	int i = bu->widx[w->id] - 1;
	Expr *get = ir_expr(m, E_TUPLE_GET, sp);
	get->tget.tuple = ir_var_ref(m, bu->params, sp);
	get->tget.index = i;
	infer_expr(m, get, bu->d);
	Var *v = ir_var(m, w->name, get->sinfo, true, w->span);
	vec_push(&bu->bs, ir_binding(m, v, get, sp));
	return ir_var_ref(m, v, sp);
}

static Expr *
bundle_use(Expr *use, void *ctx)
{
	Bundle *bu = ctx;
	Var *v = resolve(bu->l, use->var);
	use->var = v;
	if (v->id < bu->l->nids && bu->widx[v->id])
		return bundle_get(bu, v, use->span);
	if (v->id < bu->l->nids && bu->copy[v->id])
		use->var = bu->copy[v->id];
	return use;
}

/* lift.h */
Func *
build_transform(Lift *l, const char *name, const Vec *outs, const Vec *extra,
		Var **given, Diags *d)
{
	Module *m = l->m;
	Func *f = l->f;
	Expr *body = f->body;
	Func *t = ARENA_NEW(&m->arena, Func);
	t->name = name;
	t->span = f->span;
	t->pure = true;
	int nw = f->nparams - l->ninput;
	SInfo **fields = ARENA_ARRAY(&m->arena, SInfo *, nw + 1);
	for (int i = 0; i < nw; i++)
		fields[i] = erase_undefined(m, f->params[l->ninput + i]->sinfo,
					    l->sv_defined);
	Var *params = ir_var(m, "params", si_tuple(&m->arena, fields, nw), false,
			     f->span);
	t->nparams = 1;
	t->params = ARENA_ARRAY(&m->arena, Var *, 1);
	t->params[0] = params;
	t->symvars = ARENA_ARRAY(&m->arena, SymVar *, f->nsymvars + 1);
	for (int i = 0; i < f->nsymvars; i++)
		if (l->sv_defined[f->symvars[i]->id])
			t->symvars[t->nsymvars++] = f->symvars[i];
	t->attrs = attrs_num_input_zero(m, &t->nattrs);

	Bundle bu = {m, l, params, xcalloc((size_t)l->nids + 1, sizeof(int)),
		     given ? given : xcalloc((size_t)l->nids + 1, sizeof(Var *)),
		     {0}, d};
	for (int i = 0; i < nw; i++)
		bu.widx[f->params[l->ninput + i]->id] = i + 1;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			if (l->v[bd->var->id].kind != K_LIFT || bu.copy[bd->var->id])
				continue;
			Var *c = copy_var(m, bd->var, true);
			Expr *val = ir_copy_expr(m, bd->value);
			ir_map_uses(&val, bundle_use, &bu);
			Binding *nb = ir_binding(m, c, val, bd->span);
			nb->annotated = bd->annotated;
			nb->cast = bd->cast;
			vec_push(&bu.bs, nb);
			bu.copy[bd->var->id] = c;
		}
	}
	Expr *tup = ir_expr(m, E_TUPLE, f->span);
	tup->tuple.items = ARENA_ARRAY(&m->arena, Expr *, outs->n + 2);
	if (extra->n) {
		Expr *sh = ir_expr(m, E_SHAPE, f->span);
		sh->shape.n = extra->n;
		sh->shape.values = ARENA_ARRAY(&m->arena, PExpr *, extra->n);
		for (int i = 0; i < extra->n; i++)
			sh->shape.values[i] = pe_var(&m->arena, extra->items[i]);
		infer_expr(m, sh, d);
		tup->tuple.items[tup->tuple.n++] = sh;
	}
	for (int i = 0; i < outs->n; i++) {
		Var *v = outs->items[i];
		Expr *use = ir_var_ref(m, v, f->span);
		tup->tuple.items[tup->tuple.n++] = bundle_use(use, &bu);
	}
	free(bu.widx);
	if (!given)
		free(bu.copy);
	infer_expr(m, tup, d);
	t->ret = tup->sinfo;
	Expr *result = tup; /* the empty tuple stays inline (TVM's normal form) */
	if (tup->tuple.n) {
		Var *gv = ir_var(m, "gv", tup->sinfo, false, f->span);
		vec_push(&bu.bs, ir_binding(m, gv, tup, f->span));
		result = ir_var_ref(m, gv, f->span);
	}
	Block *tb = block_new(m, true, 0, f->span);
	tb->n = bu.bs.n;
	tb->bindings = (Binding **)vec_to_arena(&bu.bs, &m->arena);
	Block **tblocks = ARENA_ARRAY(&m->arena, Block *, 1);
	tblocks[0] = tb;
	t->body = seq_of(m, tblocks, 1, result, f->span);
	return t;
}

/* lift.h */
void
rewrite_runtime(Lift *l, Var *shape, Var **outp, int nout, Var **bindv,
		const int *bindp, int nbind)
{
	Module *m = l->m;
	Func *f = l->f;
	Expr *body = f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		int kept = 0;
		for (int j = 0; j < b->n; j++) {
			Binding *bd = b->bindings[j];
			if (l->v[bd->var->id].kind == K_LIFT &&
			    l->v[bd->var->id].param_dep)
				continue;
			if (is_stop_lift(bd->value))
				bd->value = bd->value->call.args[0];
			else if (l->v[bd->var->id].alias)
				/* `y = t[i]` reads the item itself (t may be gone) */
				bd->value = ir_var_ref(m, l->v[bd->var->id].alias,
						       bd->value->span);
			b->bindings[kept++] = bd;
		}
		b->n = kept;
	}
	Var **params = ARENA_ARRAY(&m->arena, Var *, l->ninput + nout + 2);
	int k = 0;
	for (int i = 0; i < l->ninput; i++)
		params[k++] = f->params[i];
	if (shape)
		params[k++] = shape;
	Block *pre = block_new(m, true, nbind, f->span);
	for (int i = 0; i < nout; i++)
		params[k++] = outp[i];
	for (int i = 0; i < nbind; i++)
		pre->bindings[pre->n++] = ir_binding(
			m, bindv[i], ir_var_ref(m, outp[bindp[i]], f->span),
			f->span);
	f->params = params;
	f->nparams = k;
	Block **blocks = ARENA_ARRAY(&m->arena, Block *, body->seq.nblocks + 1);
	blocks[0] = pre;
	for (int i = 0; i < body->seq.nblocks; i++)
		blocks[i + 1] = body->seq.blocks[i];
	body->seq.blocks = blocks;
	body->seq.nblocks++;
}

/* lift.h */
void
order_symvars(Module *m, Func *f, SymVar **more, int nmore)
{
	Vec inparams = {0}, used = {0};
	for (int i = 0; i < f->nparams; i++)
		ir_sinfo_symvars(f->params[i]->sinfo, &inparams);
	for (int i = 0; i < f->nparams; i++)
		ir_sinfo_symvars(f->params[i]->sinfo, &used);
	ir_sinfo_symvars(f->ret, &used);
	ir_expr_symvars(f->body, &used);
	int cap = f->nsymvars + nmore + 1;
	SymVar **all = ARENA_ARRAY(&m->arena, SymVar *, cap);
	int na = 0;
	for (int i = 0; i < f->nsymvars; i++)
		all[na++] = f->symvars[i];
	for (int i = 0; i < nmore; i++)
		all[na++] = more[i];
	SymVar **svs = ARENA_ARRAY(&m->arena, SymVar *, cap);
	int ns = 0;
	for (int j = 0; j < inparams.n; j++) {
		bool dup = false;
		for (int i = 0; i < ns; i++)
			dup |= svs[i] == inparams.items[j];
		if (!dup)
			svs[ns++] = inparams.items[j];
	}
	for (int i = 0; i < na; i++) {
		bool have = false, u = false;
		for (int j = 0; j < ns; j++)
			have |= svs[j] == all[i];
		for (int j = 0; j < used.n && !have; j++)
			u |= used.items[j] == all[i];
		if (!have && u)
			svs[ns++] = all[i];
	}
	f->symvars = svs;
	f->nsymvars = ns;
	vec_free(&inparams);
	vec_free(&used);
}

/* lift.h */
int
clean(Module *m, Func **fs, int n, bool dce, Diags *d)
{
	int errors = pass_canonicalize_funcs(m, fs, n, d);
	if (dce)
		for (int i = 0; i < n; i++)
			pass_dce_func(m, fs[i]);
	return errors;
}

/*
 * Composes an existing transform `old` (weights -> F's current weights) with
 * `next` (one tuple parameter: F's current weights -> new weights), as TVM's
 * ComposeFunctions: old's body, then `next_params = R.match_cast(old's
 * result, ...)`, then next's body, in old's last dataflow block when it ends
 * in one. The result replaces old's body; canonicalized, dead bindings gone.
 */
static int
compose(Module *m, Func *old, Func *next, const char *fname, Diags *d)
{
	Expr *ob = old->body, *nb = next->body;
	Var *np = next->params[0];
	int nold = ob->seq.nblocks;
	Block *last = nold ? ob->seq.blocks[nold - 1] : NULL;
	bool join = !last || last->dataflow;
	int cap = 2 + (join && last ? last->n : 0);
	for (int i = 0; i < nb->seq.nblocks; i++)
		cap += nb->seq.blocks[i]->n;
	Block *link = block_new(m, true, cap, old->span);
	if (join && last)
		for (int i = 0; i < last->n; i++)
			link->bindings[link->n++] = last->bindings[i];
	Expr *res = ob->seq.body;
	infer_expr(m, res, d);
	if (res->sinfo && np->sinfo && si_check(m, np->sinfo, res->sinfo) == SI_FAIL) {
		/* the cast below could never match (its return annotation,
		 * unchecked as in TVM, may say otherwise) */
		diag_error(d, old->span,
			   "%s gives %s, which can never be the weights %s "
			   "takes (%s): a new lift cannot compose with it",
			   old->name, infer_sinfo_str(m, res->sinfo), fname,
			   infer_sinfo_str(m, np->sinfo));
		return 1;
	}
	Var *out = ir_var(m, "func_a_output", res->sinfo, false, old->span);
	link->bindings[link->n++] = ir_binding(m, out, res, old->span);
	Binding *mc = ir_binding(m, np, ir_var_ref(m, out, old->span), old->span);
	mc->cast = np->sinfo;
	mc->annotated = true;
	link->bindings[link->n++] = mc;
	Block **blocks = ARENA_ARRAY(&m->arena, Block *, nold + nb->seq.nblocks + 1);
	int k = 0;
	for (int i = 0; i < nold - (join && last ? 1 : 0); i++)
		blocks[k++] = ob->seq.blocks[i];
	blocks[k++] = link;
	for (int i = 0; i < nb->seq.nblocks; i++) {
		Block *b = nb->seq.blocks[i];
		if (b->dataflow && i == 0) {
			for (int j = 0; j < b->n; j++)
				link->bindings[link->n++] = b->bindings[j];
			continue;
		}
		blocks[k++] = b;
	}
	old->body = seq_of(m, blocks, k, nb->seq.body, old->span);
	old->ret = next->ret;
	order_symvars(m, old, next->symvars, next->nsymvars);
	int errors = clean(m, &old, 1, true, d);
	/* next's result spoke of F's symbolic variables; the cast told their
	 * values in terms of old's parameters: the body's struct info does */
	Vec pv = {0};
	for (int i = 0; i < old->nparams; i++)
		ir_sinfo_symvars(old->params[i]->sinfo, &pv);
	old->ret = si_erase(m, old->body->sinfo, (SymVar **)pv.items, pv.n);
	vec_free(&pv);
	order_symvars(m, old, NULL, 0);
	return errors;
}

/* Lifts one function; returns the error count. */
static int
lift_func(Module *m, Func *f, bool rank_known, Diags *d)
{
	Lift l;
	if (!lift_init(&l, m, f))
		return 0;
	l.rank_known = rank_known;
	int nlift = classify_func(&l);
	Vec outs = {0}, extra = {0};
	lift_outputs(&l, &outs);
	lift_extra(&l, &outs, &extra);

	const char *tname = arena_printf(&m->arena, "%s_transform_params", f->name);
	Func *old = ir_find_func(m, tname);
	/* Already lifted (nothing computable, every weight passed through in
	 * order): composing would give the same module. */
	bool identity = nlift == 0 && !extra.n && outs.n == f->nparams - l.ninput;
	for (int i = 0; identity && i < outs.n; i++)
		identity = outs.items[i] == f->params[l.ninput + i];
	int errors = 0;
	if (old && identity)
		goto out;

	Func *t = build_transform(&l, tname, &outs, &extra, NULL, d);

	Var *shape = NULL;
	if (extra.n) {
		PExpr **vals = ARENA_ARRAY(&m->arena, PExpr *, extra.n);
		for (int i = 0; i < extra.n; i++)
			vals[i] = pe_var(&m->arena, extra.items[i]);
		shape = ir_var(m, "symbolic_vars",
			       si_shape(&m->arena, extra.n, vals), false, f->span);
	}
	Var **outp = ARENA_ARRAY(&m->arena, Var *, outs.n + 1);
	int *bindp = ARENA_ARRAY(&m->arena, int, outs.n + 1);
	for (int i = 0; i < outs.n; i++) {
		outp[i] = copy_var(m, outs.items[i], false);
		bindp[i] = i;
	}
	rewrite_runtime(&l, shape, outp, outs.n, (Var **)outs.items, bindp,
			outs.n);
	order_symvars(m, f, NULL, 0);

	if (old && (old->nparams < 1 || !old->ret)) {
		diag_error(d, old->span,
			   "%s has no result to compose with a new lift of %s",
			   old->name, f->name);
		errors = 1;
		goto out;
	}
	errors = clean(m, &t, 1, true, d);
	errors += clean(m, &f, 1, false, d);
	if (errors)
		goto out;
	if (old)
		errors = compose(m, old, t, f->name, d);
	else
		insert_after(m, f, t);
out:
	vec_free(&outs);
	vec_free(&extra);
	lift_free(&l);
	return errors;
}

bool
pass_is_transform(const Func *f)
{
	size_t len = strlen(f->name), sl = strlen("transform_params");
	return len >= sl && !strcmp(f->name + len - sl, "transform_params");
}

/* ------------------------------------------------------ consume_params */

typedef struct {
	Module *m;
	Var *params;  /* the transform's tuple of weights */
	Var **first;  /* first[i]: the variable that read params[i] */
	int n;
} Consume;

static Binding *
reset_item(Consume *c, int i, bool dataflow, Span sp)
{
	Module *m = c->m;
	Expr *fn = ir_expr(m, E_EXTERN, sp);
	fn->str = "vm.builtin.tuple_reset_item";
	Expr *idx = ir_expr(m, E_PRIM, sp);
	idx->prim.dtype = DT_I32;
	idx->prim.value = pe_int(&m->arena, i);
	Expr *call = ir_expr(m, E_CALL, sp);
	call->call.op = OP_CALL_PURE_PACKED;
	call->call.nargs = 3;
	call->call.args = ARENA_ARRAY(&m->arena, Expr *, 3);
	call->call.args[0] = fn;
	call->call.args[1] = ir_var_ref(m, c->params, sp);
	call->call.args[2] = idx;
	call->call.nattrs = 1;
	call->call.attrs = ARENA_ARRAY(&m->arena, AttrVal, 1);
	call->call.attrs[0] = (AttrVal){.kind = AV_SINFO, .n = 1,
					.sis = ARENA_ARRAY(&m->arena, SInfo *, 1)};
	call->call.attrs[0].sis[0] = si_tuple(&m->arena, NULL, 0);
	Var *v = ir_var(m, "_", si_tuple(&m->arena, NULL, 0), dataflow, sp);
	Binding *b = ir_binding(m, v, call, sp);
	b->annotated = true;
	return b;
}

static bool
consume_seq(Consume *c, Expr *seq, Diags *d)
{
	for (int k = 0; k < seq->seq.nblocks; k++) {
		Block *bl = seq->seq.blocks[k];
		int extra = 0;
		for (int j = 0; j < bl->n; j++) {
			const Expr *v = bl->bindings[j]->value;
			extra += v->kind == E_TUPLE_GET && v->tget.tuple->kind == E_VAR &&
				 v->tget.tuple->var == c->params;
		}
		Binding **out = ARENA_ARRAY(&c->m->arena, Binding *, bl->n + extra + 1);
		int n = 0;
		for (int j = 0; j < bl->n; j++) {
			Binding *b = bl->bindings[j];
			Expr *v = b->value;
			out[n++] = b;
			if (v->kind == E_IF && (!consume_seq(c, v->if_.then_, d) ||
						!consume_seq(c, v->if_.else_, d)))
				return false;
			if (b->cast || v->kind != E_TUPLE_GET || v->tget.tuple->kind != E_VAR ||
			    v->tget.tuple->var != c->params)
				continue;
			int i = v->tget.index;
			if (i < 0 || i >= c->n)
				continue;
			if (c->first[i]) {
				b->value = ir_var_ref(c->m, c->first[i], v->span);
				b->value->sinfo = c->first[i]->sinfo;
				continue;
			}
			c->first[i] = b->var;
			out[n++] = reset_item(c, i, bl->dataflow, b->span);
			if (!infer_expr(c->m, out[n - 1]->value, d))
				return false;
		}
		bl->bindings = out;
		bl->n = n;
	}
	return true;
}

/* Rewrites every *transform_params function as TVM's ConsumeBundledParams
 * (consume_params): after TVM's post-processing, so an existing transform
 * is consumed too. */
static int
consume_params(Module *m, Diags *d)
{
	int errors = 0;
	for (int i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		if (!pass_is_transform(f))
			continue;
		int ni = ir_func_num_input(f);
		if (ni < 0 || f->nparams != ni + 1 || !f->params[ni]->sinfo ||
		    f->params[ni]->sinfo->kind != SI_TUPLE) {
			diag_error(d, f->span, "consume_params: %s must take its weights as one "
				   "tuple after its num_input inputs (as lift-transform-params "
				   "writes it)", f->name);
			errors++;
			continue;
		}
		Consume c = {.m = m, .params = f->params[ni],
			     .n = f->params[ni]->sinfo->nfields};
		c.first = xcalloc((size_t)c.n + 1, sizeof *c.first);
		if (f->body->kind == E_SEQ && !consume_seq(&c, f->body, d))
			errors++;
		free(c.first);
	}
	return errors;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp((*(Func *const *)a)->name, (*(Func *const *)b)->name);
}

int
pass_lift_transform_params(Module *m, const PassLiftOptions *o, Diags *d)
{
	int errors = 0;
	int nf = m->nfuncs;
	Func **sel = xmalloc(sizeof(Func *) * ((size_t)nf + 1));
	int ns = 0;
	if (o && o->shared && o->nshared_funcs) {
		/* --shared=F1,F2: exactly these, in this order */
		for (int k = 0; k < o->nshared_funcs; k++) {
			Func *f = ir_find_func(m, o->shared_funcs[k]);
			if (!f || ir_func_num_input(f) < 0) {
				diag_error(d, (Span){0, 0, 0}, "--shared=%s: %s",
					   o->shared_funcs[k],
					   f ? "has no num_input attribute"
					     : "no such function");
				errors++;
				continue;
			}
			sel[ns++] = f;
		}
	} else {
		/* every function with num_input that is not a transform, by
		 * name (TVM's order) */
		for (int i = 0; i < nf; i++)
			if (ir_func_num_input(m->funcs[i]) >= 0 &&
			    !pass_is_transform(m->funcs[i]))
				sel[ns++] = m->funcs[i];
		qsort(sel, (size_t)ns, sizeof *sel, by_name);
	}
	if (!errors && o && o->shared) {
		/* Already lifted with --shared: nothing changes. */
		if (ns > 0 && !ir_find_func(m, "transform_params"))
			errors += lift_shared(m, sel, ns, o->rank_known, d);
	} else {
		for (int i = 0; i < ns && !errors; i++)
			errors += lift_func(m, sel[i], o && o->rank_known, d);
	}
	free(sel);
	if (!errors && o && o->consume_params)
		errors = consume_params(m, d);
	if (!errors)
		errors = pass_convert_ssa(m, d);
	return errors;
}
