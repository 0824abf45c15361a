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

#include "pass.h"

enum { K_NONE, K_INPUT, K_WEIGHT, K_LIFT, K_RUNTIME };

/* What lifting knows of one variable (per Var.id). */
typedef struct {
	unsigned char kind; /* K_* */
	bool param_dep;     /* a weight, or computed from one */
	bool rt;            /* required at run time */
	bool rt_use;        /* read at run time */
	Var *alias;         /* the var a runtime `y = x` or `y = t[i]` (t a
			     * tuple literal) stands for */
	Expr *tuple_of;     /* its value when a tuple literal */
} LiftVar;

typedef struct {
	Module *m;
	Func *f;
	int ninput;
	int nids;            /* table size: m->next_id when the function started */
	LiftVar *v;          /* per Var.id */
	/* sets of symbolic variables (per SymVar.id), as mark_defined and
	 * erase_undefined take them */
	bool *sv_defined;    /* defined by a weight annotation */
	bool *sv_rt;         /* required at run time */
	const bool *allow;   /* per Var.id: may be computable (NULL: all) */
	bool rank_known;     /* PassLiftOptions.rank_known */
	Vec rank_vars;       /* with rank_known: the vars bound to the rank */
	Vec rank_syms;       /* ... and the symbolic variables cast from them */
} Lift;

/* Sets up l for f (tables sized by the module's ids now); false when f has
 * no usable num_input. */
static bool
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

static void
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

/* Classifies the parameters and top-level bindings of l->f and what the
 * run time needs; returns the number of computable bindings that depend on
 * a weight. */
static int
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

/*
 * The symbolic variables passed in `symbolic_vars`: defined by a parameter's
 * annotation, needed at run time, defined neither by a runtime input nor by
 * the struct info of an output (TVM's GetPropagatedSymbolicVariables).
 */
static void
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

static Var *
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

static Expr *
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

/*
 * The transform of l->f (TVM's MakeCompileTimeFunction): parameter
 * `params`, a tuple of f's weights; one dataflow block with the computable
 * bindings (copied) and `w = params[i]` before each use of a weight; the
 * result (shape of `extra` when non-empty, outs...). Canonicalized, its dead
 * bindings removed. `given` (NULL: none) maps a var of f, by id, to a var
 * that already computes it (another function's, in the union): its binding
 * is not copied and its uses read that var; the copies made are recorded in
 * it.
 */
static Func *
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

/*
 * The runtime part of l->f (TVM's MakeRuntimeFunction): parameters are the
 * runtime inputs, `shape` (may be NULL), then `outp` (one per transform
 * output); the computable bindings that depend on a weight go,
 * `y = R.builtin.stop_lift_params(x)` becomes `y = x`, and a first dataflow
 * block binds each of f's variables bindv[i] to parameter outp[bindp[i]].
 * The caller canonicalizes f.
 */
static void
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

/*
 * F keeps the symbolic variables it mentions: first those of its
 * parameters, in their order of appearance (the order in which the printed
 * text defines them, so that printing is a fixed point), then the others in
 * their old order, then `more` (new ones, e.g. a composed function's).
 */
static void
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

/* canonicalize-bindings, then (transforms) dead-code elimination, on fs. */
static int
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

/* ------------------------------------------------------ shared transform */

/*
 * With --shared, one `transform_params` serves several functions. Their
 * weights are matched by position (same count, shapes and dtypes, else a
 * located error). A binding is lifted when every function lifts a binding
 * that computes the same thing from the same weight positions: bindings are
 * compared through keys, strings that spell a computation with weights as
 * `W<i>` and other lifted values as `#<n>` (their interned key number), so
 * the order of bindings does not matter. The transform follows the first
 * function's binding order and returns the weights any function still uses
 * (in parameter order), then the lifted values any function uses; every
 * function takes all of them, with the names the first function gives them.
 *
 * When the functions share no pre-processing at all, the intersection is
 * empty and a shared transform would only pass the weights through, each
 * function losing its own lifting (TVM's pass does this; its own test of the
 * case, an xfail, expects the union instead). rlx then lifts the union: every
 * binding that some function lifts is computed by the one transform, each
 * function's outputs after the previous function's, and every function takes
 * all of them; a note says so. See build_union for the transform's order.
 */

typedef struct {
	Lift l;
	Vec keys;       /* per binding in order: interned key id, or -1 */
	int *key_of;    /* per Var.id: interned key id of a lifted var, or -1 */
} SharedFn;

typedef struct {
	Module *m;
	Vec keys;       /* interned key strings (malloc'ed) */
} KeyTab;

static int
intern(KeyTab *kt, char *s)
{
	for (int i = 0; i < kt->keys.n; i++)
		if (!strcmp(kt->keys.items[i], s)) {
			free(s);
			return i;
		}
	vec_push(&kt->keys, s);
	return kt->keys.n - 1;
}

static bool key_expr(StrBuf *b, const SharedFn *sf, const Expr *e);

static void
key_sinfo(StrBuf *b, const SInfo *si)
{
	if (si)
		print_sinfo(b, si);
}

/* Appends the key text of e; false when e reads a non-weight value. */
static bool
key_expr(StrBuf *b, const SharedFn *sf, const Expr *e)
{
	const Lift *l = &sf->l;
	switch (e->kind) {
	case E_VAR: {
		const Var *v = e->var;
		if (v->id < l->nids && l->v[v->id].kind == K_WEIGHT) {
			for (int i = l->ninput; i < l->f->nparams; i++)
				if (l->f->params[i] == v)
					sb_printf(b, "W%d", i - l->ninput);
			return true;
		}
		if (v->id < l->nids && sf->key_of[v->id] >= 0) {
			sb_printf(b, "#%d", sf->key_of[v->id]);
			return true;
		}
		return false;
	}
	case E_CONST:
	case E_SHAPE:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		print_expr(b, e);
		return true;
	case E_TUPLE:
		sb_putc(b, '(');
		for (int i = 0; i < e->tuple.n; i++) {
			if (!key_expr(b, sf, e->tuple.items[i]))
				return false;
			sb_putc(b, ',');
		}
		sb_putc(b, ')');
		return true;
	case E_TUPLE_GET:
		if (!key_expr(b, sf, e->tget.tuple))
			return false;
		sb_printf(b, "[%d]", e->tget.index);
		return true;
	case E_CALL:
		sb_printf(b, "%s(", op_info(e->call.op)->name);
		for (int i = 0; i < e->call.nargs; i++) {
			if (!key_expr(b, sf, e->call.args[i]))
				return false;
			sb_putc(b, ',');
		}
		for (int i = 0; i < e->call.nattrs; i++) {
			print_attrval(b, &e->call.attrs[i]);
			sb_putc(b, ',');
		}
		sb_putc(b, ')');
		return true;
	default:
		return false;
	}
}

/* Computes the key of every lifted binding of sf's function, in order. */
static void
shared_keys(KeyTab *kt, SharedFn *sf)
{
	Expr *body = sf->l.f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			int id = -1;
			int kind = sf->l.v[bd->var->id].kind;
			bool cnst = kind == K_LIFT && !sf->l.v[bd->var->id].param_dep;
			if (kind == K_LIFT) {
				StrBuf s = {0};
				sb_puts(&s, cnst ? "C:" : "L:");
				bool ok = key_expr(&s, sf, bd->value);
				sb_puts(&s, "->");
				key_sinfo(&s, bd->var->sinfo);
				if (ok)
					id = intern(kt, sb_take(&s));
				else
					sb_free(&s);
			}
			if (cnst)
				id = -1; /* constants stay at run time, never shared */
			sf->key_of[bd->var->id] = id;
			vec_push(&sf->keys, (void *)(intptr_t)id);
		}
	}
}

static bool
weights_match(Module *m, Func **fs, int n, Diags *d)
{
	Func *f0 = fs[0];
	int nin0 = ir_func_num_input(f0);
	int nw0 = f0->nparams - nin0;
	bool ok = true;
	for (int i = 1; i < n; i++) {
		Func *f = fs[i];
		int nw = f->nparams - ir_func_num_input(f);
		if (nw != nw0) {
			diag_error(d, f->span,
				   "--shared: %s has %d weights but %s has %d; "
				   "a shared transform matches weights by position",
				   f->name, nw, f0->name, nw0);
			ok = false;
			continue;
		}
		for (int k = 0; k < nw; k++) {
			Var *a = f0->params[nin0 + k];
			Var *b = f->params[ir_func_num_input(f) + k];
			if (!a->sinfo || !b->sinfo || !si_equal(m, a->sinfo, b->sinfo)) {
				StrBuf sa = {0}, sb = {0};
				print_sinfo(&sa, a->sinfo);
				print_sinfo(&sb, b->sinfo);
				if (sa.p && sb.p && !strcmp(sa.p, sb.p))
					/* same text: symbolic dimensions, one
					 * variable per function */
					diag_error(d, b->span,
						   "--shared: weight %d is %s in "
						   "both %s and %s, but its symbolic "
						   "dimensions are each function's "
						   "own; a shared transform needs "
						   "static weight shapes (lift "
						   "without --shared)",
						   k, sb.p, f0->name, f->name);
				else
					diag_error(d, b->span,
						   "--shared: weight %d of %s is %s, "
						   "but weight %d of %s is %s",
						   k, f->name, sb.p ? sb.p : "?", k,
						   f0->name, sa.p ? sa.p : "?");
				sb_free(&sa);
				sb_free(&sb);
				ok = false;
			}
		}
	}
	return ok;
}

/* Clears what classify_func wrote, for a second classification. */
static void
lift_reset(Lift *l)
{
	size_t n = (size_t)l->nids + 1;
	memset(l->v, 0, n * sizeof *l->v);
	memset(l->sv_defined, 0, n * sizeof(bool));
	memset(l->sv_rt, 0, n * sizeof(bool));
	l->rank_vars.n = 0;
	l->rank_syms.n = 0;
}

/* A use of `from` (a transform's tuple parameter) becomes a use of `to`. */
typedef struct {
	Var *from, *to;
} Rename;

static Expr *
rename_use(Expr *use, void *ctx)
{
	Rename *r = ctx;
	if (use->var == r->from)
		use->var = r->to;
	return use;
}

/* While ordering the union: the last weight position that uses read. */
typedef struct {
	const int *lastw; /* per Var.id: last weight position read, or -1 */
	int max;
} LastW;

static Expr *
last_weight_use(Expr *use, void *ctx)
{
	LastW *lw = ctx;
	if (lw->lastw[use->var->id] > lw->max)
		lw->max = lw->lastw[use->var->id];
	return use;
}

/* Orders the bindings bs of the union transform by the last weight
 * position each reads (a field of params, the tuple of weights, directly
 * or through earlier bindings), stably. */
static void
sort_by_last_weight(Module *m, Vec *bs, Var *params)
{
	int *lastw = xmalloc(sizeof(int) * ((size_t)m->next_id + 1));
	int *key = xmalloc(sizeof(int) * ((size_t)bs->n + 1));
	for (int v = 0; v <= m->next_id; v++)
		lastw[v] = -1;
	for (int k = 0; k < bs->n; k++) {
		Binding *bd = bs->items[k];
		LastW lw = {lastw, -1};
		if (bd->value->kind == E_TUPLE_GET &&
		    bd->value->tget.tuple->kind == E_VAR &&
		    bd->value->tget.tuple->var == params)
			lw.max = bd->value->tget.index;
		else
			ir_map_uses(&bd->value, last_weight_use, &lw);
		lastw[bd->var->id] = key[k] = lw.max;
	}
	for (int k = 1; k < bs->n; k++) /* insertion sort: stable, n small */
		for (int j = k; j > 0 && key[j - 1] > key[j]; j--) {
			int tk = key[j];
			key[j] = key[j - 1];
			key[j - 1] = tk;
			void *tb = bs->items[j];
			bs->items[j] = bs->items[j - 1];
			bs->items[j - 1] = tb;
		}
	free(lastw);
	free(key);
}

/*
 * The union transform (--shared, nothing in common): function i's own
 * transform is built for the outputs it contributes (owner[o] == i; the
 * weights needed raw are the first function's), then the transforms are
 * merged over one `params`. Bindings are ordered by the last weight position
 * they read, directly (`w = params[i]`) or through what they use, ties in
 * function and binding order: a binding never reads an earlier position than
 * the bindings it uses, so the order is valid, and it does not depend on
 * which function computed what. The result is the outputs in order. The
 * weight shapes are static (weights_match), so no transform defines
 * symbolic variables and one `params` serves all.
 */
static Func *
build_union(Module *m, SharedFn *sf, int n, const Vec *outs, const int *owner,
	    Diags *d)
{
	Vec none = {0}, bs = {0}, items = {0};
	Func *t = NULL;
	Var *params = NULL;
	int nids = sf[0].l.nids, nk = 0;
	for (int v = 0; v < nids; v++)
		for (int i = 0; i < n; i++)
			if (sf[i].key_of[v] >= nk)
				nk = sf[i].key_of[v] + 1;
	Var **given = xcalloc((size_t)nids + 1, sizeof(Var *));
	Var **by_key = xcalloc((size_t)nk + 1, sizeof(Var *));
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		/* What an earlier function computes is not computed again. */
		for (int v = 0; v < nids; v++)
			if (l->v[v].kind == K_LIFT && sf[i].key_of[v] >= 0)
				given[v] = by_key[sf[i].key_of[v]];
		Vec mine = {0};
		for (int o = 0; o < outs->n; o++)
			if (owner[o] == i)
				vec_push(&mine, outs->items[o]);
		Func *ti = NULL;
		if (i == 0 || mine.n)
			ti = build_transform(l, "transform_params", &mine, &none,
					     given, d);
		vec_free(&mine);
		for (int v = 0; v < nids; v++)
			if (l->v[v].kind == K_LIFT && sf[i].key_of[v] >= 0 &&
			    given[v] && !by_key[sf[i].key_of[v]])
				by_key[sf[i].key_of[v]] = given[v];
		if (!ti)
			continue;
		if (!t) {
			t = ti;
			params = ti->params[0];
		}
		Rename r = {ti->params[0], params};
		Block *b = ti->body->seq.blocks[0];
		int nb = b->n;
		if (ti->body->seq.body->kind == E_VAR) { /* gv = (outs...) last */
			Expr *tup = b->bindings[--nb]->value;
			for (int k = 0; k < tup->tuple.n; k++)
				vec_push(&items, tup->tuple.items[k]);
		}
		for (int k = 0; k < nb; k++) {
			ir_map_uses(&b->bindings[k]->value, rename_use, &r);
			vec_push(&bs, b->bindings[k]);
		}
	}
	free(given);
	free(by_key);
	sort_by_last_weight(m, &bs, params);
	Expr *tup = ir_expr(m, E_TUPLE, t->span);
	tup->tuple.n = items.n;
	tup->tuple.items = (Expr **)vec_to_arena(&items, &m->arena);
	infer_expr(m, tup, d);
	t->ret = tup->sinfo;
	Expr *result = tup;
	if (tup->tuple.n) {
		Var *gv = ir_var(m, "gv", tup->sinfo, false, t->span);
		vec_push(&bs, ir_binding(m, gv, tup, t->span));
		result = ir_var_ref(m, gv, t->span);
	}
	Block *tb = t->body->seq.blocks[0];
	tb->n = bs.n;
	tb->bindings = (Binding **)vec_to_arena(&bs, &m->arena);
	t->body = seq_of(m, t->body->seq.blocks, 1, result, t->span);
	return t;
}

/* How many functions lift each key: count[key] (nk keys), malloc'ed. */
static int *
key_counts(const SharedFn *sf, int n, int nk)
{
	int *count = xcalloc((size_t)nk + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
		bool *seen = xcalloc((size_t)nk + 1, sizeof(bool));
		for (int k = 0; k < sf[i].keys.n; k++) {
			int id = (int)(intptr_t)sf[i].keys.items[k];
			if (id >= 0 && !seen[id]) {
				seen[id] = true;
				count[id]++;
			}
		}
		free(seen);
	}
	return count;
}

/* Classifies each function again: only the shared bindings (keys lifted
 * in all n functions; in the union, every lifted one) are computable. */
static void
reclassify_shared(SharedFn *sf, int n, const int *count, bool uni, int nids)
{
	bool *allow = xcalloc((size_t)nids + 1, sizeof(bool));
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		for (int v = 0; v < nids; v++)
			allow[v] = sf[i].key_of[v] >= 0 &&
				   (uni || count[sf[i].key_of[v]] == n);
		lift_reset(l);
		l->allow = allow;
		classify_func(l);
		l->allow = NULL;
	}
	free(allow);
}

/* The transform's outputs: weight positions any function needs (key
 * -1 - position), then shared keys any function needs, in binding order,
 * function by function (all of them are the first function's but in the
 * union); owner[o] is the function whose var outs[o] is. */
static void
shared_outputs(SharedFn *sf, int n, int nk, int nids, Vec *outs,
	       Vec *out_keys, Vec *owner)
{
	Lift *l0 = &sf[0].l;
	Func *f0 = l0->f;
	int nw = f0->nparams - l0->ninput;
	bool *wneed = xcalloc((size_t)nw + 1, sizeof(bool));
	bool *kneed = xcalloc((size_t)nk + 1, sizeof(bool));
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		for (int k = 0; k < nw; k++)
			wneed[k] |= l->v[l->f->params[l->ninput + k]->id].rt;
		for (int v = 0; v < nids; v++)
			if (l->v[v].rt && l->v[v].kind == K_LIFT && l->v[v].param_dep)
				kneed[sf[i].key_of[v]] = true;
	}
	for (int k = 0; k < nw; k++)
		if (wneed[k]) {
			vec_push(outs, f0->params[l0->ninput + k]);
			vec_push(out_keys, (void *)(intptr_t)(-1 - k));
			vec_push(owner, (void *)(intptr_t)0);
		}
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		Expr *body = l->f->body;
		for (int b = 0; b < body->seq.nblocks; b++)
			for (int k = 0; k < body->seq.blocks[b]->n; k++) {
				Var *v = body->seq.blocks[b]->bindings[k]->var;
				int key = sf[i].key_of[v->id];
				if (l->v[v->id].kind == K_LIFT &&
				    l->v[v->id].param_dep && kneed[key]) {
					kneed[key] = false; /* once per key */
					vec_push(outs, v);
					vec_push(out_keys, (void *)(intptr_t)key);
					vec_push(owner, (void *)(intptr_t)i);
				}
			}
	}
	free(wneed);
	free(kneed);
}

/* Symbolic variables needed at run time must be carried by outputs: an
 * error for each function that needs one only its weights define. */
static int
check_shared_symvars(SharedFn *sf, int n, Vec *outs, Diags *d)
{
	int errors = 0;
	for (int i = 0; i < n; i++) {
		Vec extra = {0};
		lift_extra(&sf[i].l, outs, &extra);
		if (extra.n) {
			diag_error(d, sf[i].l.f->span,
				   "--shared: %s needs at run time a symbolic "
				   "dimension that only its weights define; lift "
				   "it without --shared",
				   sf[i].l.f->name);
			errors++;
		}
		vec_free(&extra);
	}
	return errors;
}

/* The shared transform, built from the first function (the union: from
 * each, outs[o] from function owner[o]). */
static Func *
shared_transform(Module *m, SharedFn *sf, int n, bool uni, Vec *outs,
		 const Vec *owner, Diags *d)
{
	if (!uni) {
		Vec none = {0};
		return build_transform(&sf[0].l, "transform_params", outs, &none,
				       NULL, d);
	}
	int *own = xmalloc(sizeof(int) * ((size_t)owner->n + 1));
	for (int o = 0; o < owner->n; o++)
		own[o] = (int)(intptr_t)owner->items[o];
	Func *t = build_union(m, sf, n, outs, own, d);
	free(own);
	diag_note(d, sf[0].l.f->span,
		  "--shared: the functions share no pre-processing; the "
		  "shared transform computes what each of them lifts");
	return t;
}

/* Rewrites one function to take every output of the shared transform,
 * named as in the first function: its weights and its bindings of each
 * output's key read the parameter instead. */
static int
take_shared(Module *m, SharedFn *sfi, const Vec *outs, const Vec *out_keys,
	    Diags *d)
{
	Lift *l = &sfi->l;
	Func *f = l->f;
	int nids = m->next_id;
	Var **outp = ARENA_ARRAY(&m->arena, Var *, outs->n + 1);
	Vec bindv = {0};
	int *bindp = ARENA_ARRAY(&m->arena, int, nids + outs->n + 1);
	for (int o = 0; o < outs->n; o++) {
		outp[o] = copy_var(m, outs->items[o], false);
		int key = (int)(intptr_t)out_keys->items[o];
		if (key < 0) {
			Var *w = f->params[l->ninput + (-1 - key)];
			if (l->v[w->id].rt) {
				bindp[bindv.n] = o;
				vec_push(&bindv, w);
			}
			continue;
		}
		Expr *body = f->body;
		for (int b = 0; b < body->seq.nblocks; b++)
			for (int k = 0; k < body->seq.blocks[b]->n; k++) {
				Var *v = body->seq.blocks[b]->bindings[k]->var;
				if (sfi->key_of[v->id] == key &&
				    l->v[v->id].kind == K_LIFT) {
					bindp[bindv.n] = o;
					vec_push(&bindv, v);
				}
			}
	}
	rewrite_runtime(l, NULL, outp, outs->n, (Var **)bindv.items, bindp,
			bindv.n);
	vec_free(&bindv);
	order_symvars(m, f, NULL, 0);
	return clean(m, &f, 1, false, d);
}

/* The shared transform t goes first in the module. */
static void
prepend_func(Module *m, Func *t)
{
	Func **nfs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	nfs[0] = t;
	for (int i = 0; i < m->nfuncs; i++)
		nfs[i + 1] = m->funcs[i];
	m->funcs = nfs;
	m->nfuncs++;
}

/* Lifts fs[0..n) into one shared transform_params; the number of errors
 * it reported. */
static int
lift_shared(Module *m, Func **fs, int n, bool rank_known, Diags *d)
{
	int before = d->nerrors;
	if (!weights_match(m, fs, n, d))
		return d->nerrors - before;
	int nids = m->next_id;
	size_t sz = (size_t)nids + 1;
	SharedFn *sf = xcalloc((size_t)n, sizeof *sf);
	KeyTab kt = {m, {0}};
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		lift_init(l, m, fs[i]); /* selected: num_input is valid */
		l->rank_known = rank_known;
		sf[i].key_of = xmalloc(sizeof(int) * sz);
		for (size_t k = 0; k < sz; k++)
			sf[i].key_of[k] = -1;
		classify_func(l);
		shared_keys(&kt, &sf[i]);
	}
	/* The intersection: keys lifted in every function. */
	int nk = kt.keys.n;
	int *count = key_counts(sf, n, nk);
	int shared_count = 0;
	for (int k = 0; k < nk; k++)
		shared_count += count[k] == n;
	bool uni = shared_count == 0; /* nothing in common: the union */
	Vec outs = {0}, out_keys = {0}, owner = {0};
	reclassify_shared(sf, n, count, uni, nids);
	shared_outputs(sf, n, nk, nids, &outs, &out_keys, &owner);
	if (!check_shared_symvars(sf, n, &outs, d)) {
		Func *t = shared_transform(m, sf, n, uni, &outs, &owner, d);
		clean(m, &t, 1, true, d);
		/* each function takes every output, named as in the first */
		for (int i = 0; i < n; i++)
			take_shared(m, &sf[i], &outs, &out_keys, d);
		prepend_func(m, t);
	}
	vec_free(&outs);
	vec_free(&out_keys);
	vec_free(&owner);
	free(count);
	for (int i = 0; i < n; i++) {
		lift_free(&sf[i].l);
		free(sf[i].key_of);
		vec_free(&sf[i].keys);
	}
	free(sf);
	for (int i = 0; i < kt.keys.n; i++)
		free(kt.keys.items[i]);
	vec_free(&kt.keys);
	return d->nerrors - before;
}

bool
pass_is_transform(const Func *f)
{
	size_t len = strlen(f->name), sl = strlen("transform_params");
	return len >= sl && !strcmp(f->name + len - sl, "transform_params");
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
	if (!errors)
		errors = pass_convert_ssa(m, d);
	return errors;
}
