/*
 * lift_transform_params.c — lift-transform-params: split weight
 * pre-processing from inference (TVM's LiftTransformParams).
 *
 * For each function F with a `num_input` attribute, the parameters after
 * the first num_input are weights. A binding of a dataflow block is lifted
 * when its value is pure, depends on at least one weight or lifted value and
 * otherwise only on weights, lifted values and constants, and every symbolic
 * variable it mentions is defined by the weights' annotations. Rewrites:
 *
 *  - a new function F_transform_params(weights...) -> R.Tuple(...), with
 *    `num_input: 0`, computes the lifted bindings (copying the constant
 *    bindings they use, which also stay at run time) and returns, in order:
 *    an R.shape of symbolic variables (when needed, see below), the weights
 *    the runtime part still uses (in parameter order), and the lifted values
 *    the runtime part uses (in binding order);
 *  - F keeps its runtime inputs, then takes those outputs as parameters,
 *    each keeping its name (`symbolic_vars` for the shape), and loses the
 *    lifted bindings. Unused weights disappear from F.
 *
 * Symbolic variables that the runtime part needs and that no runtime input,
 * pass-through weight or lifted value defines (as a bare dimension) are
 * passed in one `symbolic_vars: R.Shape([...])` parameter right after the
 * inputs. `R.builtin.stop_lift_params(x)` is never lifted (its argument may
 * be): in F it becomes the trivial binding `y = x`, which the clean-up
 * (canonicalize-bindings) folds away. Bindings that depend on nothing
 * (R.zeros, constants) stay at run time. Nothing outside dataflow blocks is
 * lifted.
 *
 * Beyond TVM: the transform takes the weights as named parameters (TVM: one
 * `params` tuple) so that a checkpoint binds by name; a lifted value that F
 * returns stays defined (TVM #17231); lifting a lifted module changes
 * nothing; an existing F_transform_params is composed with the new lift
 * rather than duplicated.
 *
 * With PassOptions.shared, see lift_shared() below.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

enum { K_NONE, K_INPUT, K_WEIGHT, K_CONST, K_LIFT, K_RUNTIME };

typedef struct {
	Module *m;
	Func *f;
	int ninput;
	int nids;       /* table size: m->next_id when the function started */
	unsigned char *kind; /* per Var.id */
	bool *sv_defined;    /* per SymVar.id: defined by a weight annotation */
	bool *needed;        /* per Var.id: a runtime use (weights, lifted) */
	bool *const_used;    /* per Var.id: a constant binding the lift uses */
	Var **repl;          /* per Var.id: what runtime uses now refer to */
} Lift;

/* ------------------------------------------------------------- analysis */

static void
collect_sinfo_symvars(const SInfo *si, Vec *out)
{
	if (!si)
		return;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			pe_collect_vars(si->shape[i], out);
	if (si->value)
		pe_collect_vars(si->value, out);
	for (int i = 0; i < si->nfields; i++)
		collect_sinfo_symvars(si->fields[i], out);
	collect_sinfo_symvars(si->ret, out);
}

/* Every symbolic variable an expression mentions (shapes, prim values). */
static void
collect_expr_symvars(const Expr *e, Vec *out)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			pe_collect_vars(e->shape.values[i], out);
		break;
	case E_PRIM:
		if (e->prim.value)
			pe_collect_vars(e->prim.value, out);
		break;
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			collect_expr_symvars(e->tuple.items[i], out);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			collect_expr_symvars(e->call.args[i], out);
		break;
	default:
		break;
	}
	collect_sinfo_symvars(e->sinfo, out);
}

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

typedef struct {
	Lift *l;
	int nlift, nconst, nother; /* uses by kind */
} UseScan;

static void
scan_use(Var *v, void *ctx)
{
	UseScan *u = ctx;
	int k = v->id < u->l->nids ? u->l->kind[v->id] : K_RUNTIME;
	if (k == K_WEIGHT || k == K_LIFT)
		u->nlift++;
	else if (k == K_CONST)
		u->nconst++;
	else
		u->nother++;
}

static bool
is_stop_lift(const Expr *e)
{
	return e->kind == E_CALL && e->call.op == OP_STOP_LIFT_PARAMS;
}

/* Decides the kind of one dataflow binding. */
static int
classify(Lift *l, const Binding *b)
{
	if (b->cast || is_stop_lift(b->value) || !ir_expr_is_pure(l->m, b->value))
		return K_RUNTIME;
	UseScan u = {l, 0, 0, 0};
	ir_visit_uses(b->value, scan_use, &u);
	if (u.nother)
		return K_RUNTIME;
	Vec svs = {0};
	collect_expr_symvars(b->value, &svs);
	collect_sinfo_symvars(b->var->sinfo, &svs);
	bool symbolic_ok = true;
	for (int i = 0; i < svs.n; i++)
		if (!l->sv_defined[((SymVar *)svs.items[i])->id])
			symbolic_ok = false;
	vec_free(&svs);
	if (!symbolic_ok)
		return K_RUNTIME;
	return u.nlift ? K_LIFT : K_CONST;
}

static void
mark_needed(Var *v, void *ctx)
{
	Lift *l = ctx;
	if (v->id < l->nids)
		l->needed[v->id] = true;
}

static void
mark_const_used(Var *v, void *ctx)
{
	Lift *l = ctx;
	if (v->id < l->nids && l->kind[v->id] == K_CONST)
		l->const_used[v->id] = true;
}

/* Classifies the parameters and top-level bindings of l->f; returns the
 * number of bindings to lift. */
static int
classify_func(Lift *l)
{
	Func *f = l->f;
	for (int i = 0; i < f->nparams; i++) {
		bool w = i >= l->ninput;
		l->kind[f->params[i]->id] = w ? K_WEIGHT : K_INPUT;
		if (w)
			mark_defined(l->sv_defined, f->params[i]->sinfo);
	}
	Expr *body = f->body;
	int nlift = 0;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			int kind = b->dataflow ? classify(l, bd) : K_RUNTIME;
			l->kind[bd->var->id] = (unsigned char)kind;
			nlift += kind == K_LIFT;
		}
	}
	return nlift;
}

bool
lift_plan(Module *m, Func *f, bool *lifted)
{
	Lift l = {.m = m, .f = f, .ninput = ir_func_num_input(f)};
	if (l.ninput < 0 || l.ninput > f->nparams)
		return false;
	l.nids = m->next_id;
	l.kind = calloc((size_t)l.nids + 1, 1);
	l.sv_defined = calloc((size_t)l.nids + 1, sizeof(bool));
	classify_func(&l);
	for (int i = 0; i < l.nids; i++)
		lifted[i] = l.kind[i] == K_LIFT || l.kind[i] == K_WEIGHT;
	free(l.kind);
	free(l.sv_defined);
	return true;
}

/* ------------------------------------------------------------ rewriting */

/* Points every use in e at its replacement (l->repl), recursively. */
static void
replace_uses(Lift *l, Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_VAR:
		if (e->var->id < l->nids && l->repl[e->var->id])
			e->var = l->repl[e->var->id];
		break;
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			replace_uses(l, e->tuple.items[i]);
		break;
	case E_TUPLE_GET:
		replace_uses(l, e->tget.tuple);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			replace_uses(l, e->call.args[i]);
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			replace_uses(l, e->callfn.args[i]);
		break;
	case E_IF:
		replace_uses(l, e->if_.cond);
		replace_uses(l, e->if_.then_);
		replace_uses(l, e->if_.else_);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++)
			for (int k = 0; k < e->seq.blocks[i]->n; k++)
				replace_uses(l, e->seq.blocks[i]->bindings[k]->value);
		replace_uses(l, e->seq.body);
		break;
	default:
		break;
	}
}

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

/*
 * Composes an existing transform `old` (weights -> F's current weights) with
 * `next` (F's current weights -> new weights): the result keeps old's
 * parameters, runs old's body, binds next's parameters to the elements of
 * old's result with match_cast (which also defines next's symbolic
 * variables), then runs next's bindings.
 */
static void
compose(Module *m, Func *old, Func *next, Diags *d)
{
	Expr *ob = old->body, *nb = next->body;
	Block *link = ARENA_NEW(&m->arena, Block);
	link->dataflow = true;
	link->span = old->span;
	link->bindings = ARENA_ARRAY(&m->arena, Binding *, next->nparams + 1);
	for (int i = 0; i < next->nparams; i++) {
		Var *p = next->params[i];
		Expr *get = ir_expr(m, E_TUPLE_GET, p->span);
		get->tget.tuple = ob->seq.body;
		get->tget.index = i;
		infer_expr(m, get, d);
		Binding *b = ir_binding(m, p, get, p->span);
		b->cast = p->sinfo;
		b->annotated = true;
		p->dataflow = true;
		link->bindings[link->n++] = b;
	}
	int n = ob->seq.nblocks + 1 + nb->seq.nblocks;
	Block **blocks = ARENA_ARRAY(&m->arena, Block *, n);
	int k = 0;
	for (int i = 0; i < ob->seq.nblocks; i++)
		blocks[k++] = ob->seq.blocks[i];
	blocks[k++] = link;
	for (int i = 0; i < nb->seq.nblocks; i++)
		blocks[k++] = nb->seq.blocks[i];
	old->body = seq_of(m, blocks, k, nb->seq.body, old->span);
	/* old's result var must now be visible to the link block */
	if (ob->seq.body->kind == E_VAR)
		ob->seq.body->var->dataflow = false;
	SymVar **svs = ARENA_ARRAY(&m->arena, SymVar *,
				   old->nsymvars + next->nsymvars + 1);
	int ns = 0;
	for (int i = 0; i < old->nsymvars; i++)
		svs[ns++] = old->symvars[i];
	for (int i = 0; i < next->nsymvars; i++)
		svs[ns++] = next->symvars[i];
	old->symvars = svs;
	old->nsymvars = ns;
	old->ret = next->ret;
}

/* Lifts one function; returns the error count. */
static int
lift_func(Module *m, Func *f, Diags *d)
{
	Lift l = {.m = m, .f = f, .ninput = ir_func_num_input(f)};
	if (l.ninput < 0 || l.ninput > f->nparams)
		return 0;
	l.nids = m->next_id;
	size_t n = (size_t)l.nids + 1;
	l.kind = calloc(n, 1);
	l.sv_defined = calloc(n, sizeof(bool));
	l.needed = calloc(n, sizeof(bool));
	l.const_used = calloc(n, sizeof(bool));
	l.repl = calloc(n, sizeof(Var *));

	int nlift = classify_func(&l);
	Expr *body = f->body;

	/* What the runtime part uses; what the lifted part uses of constants. */
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			int kind = l.kind[bd->var->id];
			if (kind == K_LIFT)
				ir_visit_uses(bd->value, mark_const_used, &l);
			else
				ir_visit_uses(bd->value, mark_needed, &l);
		}
	}
	ir_visit_uses(body->seq.body, mark_needed, &l);
	for (int i = body->seq.nblocks - 1; i >= 0; i--) {
		Block *b = body->seq.blocks[i];
		for (int k = b->n - 1; k >= 0; k--)
			if (l.const_used[b->bindings[k]->var->id])
				ir_visit_uses(b->bindings[k]->value,
					      mark_const_used, &l);
	}

	/* The weights still used at run time, and whether that is all. */
	Vec pass = {0}, lifted = {0};
	for (int i = l.ninput; i < f->nparams; i++)
		if (l.needed[f->params[i]->id])
			vec_push(&pass, f->params[i]);
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Var *v = b->bindings[k]->var;
			if (l.kind[v->id] == K_LIFT && l.needed[v->id])
				vec_push(&lifted, v);
		}
	}

	/* Symbolic variables the runtime part needs but cannot define. */
	bool *rt_defined = calloc(n, sizeof(bool));
	for (int i = 0; i < l.ninput; i++)
		mark_defined(rt_defined, f->params[i]->sinfo);
	for (int i = 0; i < pass.n; i++)
		mark_defined(rt_defined, ((Var *)pass.items[i])->sinfo);
	for (int i = 0; i < lifted.n; i++)
		mark_defined(rt_defined, ((Var *)lifted.items[i])->sinfo);
	Vec used_sv = {0};
	for (int i = 0; i < l.ninput; i++)
		collect_sinfo_symvars(f->params[i]->sinfo, &used_sv);
	for (int i = 0; i < pass.n; i++)
		collect_sinfo_symvars(((Var *)pass.items[i])->sinfo, &used_sv);
	for (int i = 0; i < lifted.n; i++)
		collect_sinfo_symvars(((Var *)lifted.items[i])->sinfo, &used_sv);
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			if (l.kind[bd->var->id] == K_LIFT)
				continue;
			if (bd->cast)
				mark_defined(rt_defined, bd->cast);
			collect_expr_symvars(bd->value, &used_sv);
			collect_sinfo_symvars(bd->var->sinfo, &used_sv);
		}
	}
	collect_sinfo_symvars(f->ret, &used_sv);
	Vec extra = {0};
	for (int i = 0; i < used_sv.n; i++)
		if (!rt_defined[((SymVar *)used_sv.items[i])->id])
			vec_push(&extra, used_sv.items[i]);
	/* A weight R.Shape that defines exactly these is passed through. */
	for (int i = l.ninput; i < f->nparams && extra.n; i++) {
		SInfo *si = f->params[i]->sinfo;
		if (!si || si->kind != SI_SHAPE || si->ndim != extra.n || !si->shape)
			continue;
		bool same = true;
		for (int k = 0; k < extra.n; k++)
			if (si->shape[k]->kind != PE_VAR ||
			    si->shape[k]->var != extra.items[k])
				same = false;
		if (!same)
			continue;
		Vec p2 = {0};
		vec_push(&p2, f->params[i]);
		for (int k = 0; k < pass.n; k++)
			if (pass.items[k] != f->params[i])
				vec_push(&p2, pass.items[k]);
		vec_free(&pass);
		pass = p2;
		vec_free(&extra);
	}
	free(rt_defined);

	Func *old = NULL;
	const char *tname = arena_printf(&m->arena, "%s_transform_params", f->name);
	old = ir_find_func(m, tname);
	bool identity = nlift == 0 && !extra.n && pass.n == f->nparams - l.ninput;
	for (int i = 0; identity && i < pass.n; i++)
		identity = pass.items[i] == f->params[l.ninput + i];
	int errors = 0;
	if (old && identity)
		goto out; /* already lifted: nothing changes */

	/* ---- the transform function ---- */
	Func *t = ARENA_NEW(&m->arena, Func);
	t->name = tname;
	t->span = f->span;
	t->pure = true;
	t->nparams = f->nparams - l.ninput;
	t->params = ARENA_ARRAY(&m->arena, Var *, t->nparams + 1);
	for (int i = 0; i < t->nparams; i++)
		t->params[i] = f->params[l.ninput + i];
	t->symvars = ARENA_ARRAY(&m->arena, SymVar *, f->nsymvars + 1);
	for (int i = 0; i < f->nsymvars; i++)
		if (l.sv_defined[f->symvars[i]->id])
			t->symvars[t->nsymvars++] = f->symvars[i];
	t->attrs = attrs_num_input_zero(m, &t->nattrs);

	Block *tb = ARENA_NEW(&m->arena, Block);
	tb->dataflow = true;
	tb->span = f->span;
	int cap = 2;
	for (int i = 0; i < body->seq.nblocks; i++)
		cap += body->seq.blocks[i]->n;
	tb->bindings = ARENA_ARRAY(&m->arena, Binding *, cap);
	Var **tcopy = calloc(n, sizeof(Var *)); /* constants copied into t */
	Lift tl = l;
	tl.repl = tcopy;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			Var *v = bd->var;
			if (l.const_used[v->id]) {
				Var *c = copy_var(m, v, true);
				Expr *val = ir_copy_expr(m, bd->value);
				replace_uses(&tl, val);
				Binding *nb = ir_binding(m, c, val, bd->span);
				nb->annotated = bd->annotated;
				tb->bindings[tb->n++] = nb;
				tcopy[v->id] = c;
			} else if (l.kind[v->id] == K_LIFT) {
				replace_uses(&tl, bd->value);
				v->dataflow = true;
				tb->bindings[tb->n++] = bd;
			}
		}
	}
	free(tcopy);

	/* The result tuple: [shape,] pass-through weights, lifted values. */
	Expr *tup = ir_expr(m, E_TUPLE, f->span);
	tup->tuple.items = ARENA_ARRAY(&m->arena, Expr *,
				       pass.n + lifted.n + 2);
	if (extra.n) {
		Expr *sh = ir_expr(m, E_SHAPE, f->span);
		sh->shape.n = extra.n;
		sh->shape.values = ARENA_ARRAY(&m->arena, PExpr *, extra.n);
		for (int i = 0; i < extra.n; i++)
			sh->shape.values[i] = pe_var(&m->arena, extra.items[i]);
		infer_expr(m, sh, d);
		tup->tuple.items[tup->tuple.n++] = sh;
	}
	for (int i = 0; i < pass.n; i++)
		tup->tuple.items[tup->tuple.n++] =
			ir_var_ref(m, pass.items[i], f->span);
	for (int i = 0; i < lifted.n; i++)
		tup->tuple.items[tup->tuple.n++] =
			ir_var_ref(m, lifted.items[i], f->span);
	infer_expr(m, tup, d);
	Var *gv = ir_var(m, "gv", tup->sinfo, false, f->span);
	tb->bindings[tb->n++] = ir_binding(m, gv, tup, f->span);
	Block **tblocks = ARENA_ARRAY(&m->arena, Block *, 1);
	tblocks[0] = tb;
	t->body = seq_of(m, tblocks, 1, ir_var_ref(m, gv, f->span), f->span);
	t->ret = tup->sinfo;

	/* ---- the runtime function ---- */
	int np = l.ninput + (extra.n ? 1 : 0) + pass.n + lifted.n;
	Var **params = ARENA_ARRAY(&m->arena, Var *, np + 1);
	int k = 0;
	for (int i = 0; i < l.ninput; i++)
		params[k++] = f->params[i];
	if (extra.n) {
		PExpr **vals = ARENA_ARRAY(&m->arena, PExpr *, extra.n);
		for (int i = 0; i < extra.n; i++)
			vals[i] = pe_var(&m->arena, extra.items[i]);
		params[k++] = ir_var(m, "symbolic_vars",
				     si_shape(&m->arena, extra.n, vals), false,
				     f->span);
	}
	for (int i = 0; i < pass.n; i++) {
		Var *w = pass.items[i];
		Var *c = copy_var(m, w, false);
		l.repl[w->id] = c;
		params[k++] = c;
	}
	for (int i = 0; i < lifted.n; i++) {
		Var *v = lifted.items[i];
		Var *c = copy_var(m, v, false);
		l.repl[v->id] = c;
		params[k++] = c;
	}
	f->params = params;
	f->nparams = k;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		int kept = 0;
		for (int j = 0; j < b->n; j++) {
			Binding *bd = b->bindings[j];
			if (l.kind[bd->var->id] == K_LIFT)
				continue;
			if (is_stop_lift(bd->value))
				bd->value = bd->value->call.args[0];
			replace_uses(&l, bd->value);
			b->bindings[kept++] = bd;
		}
		b->n = kept;
	}
	replace_uses(&l, body->seq.body);
	int nb = 0;
	for (int i = 0; i < body->seq.nblocks; i++)
		if (body->seq.blocks[i]->n)
			body->seq.blocks[nb++] = body->seq.blocks[i];
	body->seq.nblocks = nb;
	/* F keeps the symbolic variables it still mentions. */
	{
		Vec keep = {0};
		for (int i = 0; i < f->nparams; i++)
			collect_sinfo_symvars(f->params[i]->sinfo, &keep);
		for (int i = 0; i < used_sv.n; i++)
			vec_push(&keep, used_sv.items[i]);
		int ns = 0;
		for (int i = 0; i < f->nsymvars; i++) {
			bool used = false;
			for (int j = 0; j < keep.n; j++)
				used |= keep.items[j] == f->symvars[i];
			if (used)
				f->symvars[ns++] = f->symvars[i];
		}
		f->nsymvars = ns;
		vec_free(&keep);
	}

	if (old && (!old->ret || old->ret->kind != SI_TUPLE ||
		    old->ret->nfields != t->nparams)) {
		diag_error(d, old->span,
			   "%s does not return one value per weight of %s "
			   "(%d), so it cannot be composed with a new lift",
			   old->name, f->name, t->nparams);
		errors = 1;
		goto out;
	}
	if (old)
		compose(m, old, t, d);
	else
		insert_after(m, f, t);
	errors = d->nerrors;
out:
	vec_free(&pass);
	vec_free(&lifted);
	vec_free(&extra);
	vec_free(&used_sv);
	free(l.kind);
	free(l.sv_defined);
	free(l.needed);
	free(l.const_used);
	free(l.repl);
	return errors;
}

int
pass_lift_transform_params(Module *m, const PassOptions *o, Diags *d)
{
	int errors = 0;
	int nf = m->nfuncs;
	Func **fs = malloc(sizeof(Func *) * ((size_t)nf + 1));
	memcpy(fs, m->funcs, sizeof(Func *) * (size_t)nf);
	if (o && o->shared)
		diag_error(d, (Span){0, 0, 0},
			   "--shared is not implemented yet");
	for (int i = 0; i < nf && !errors; i++) {
		/* Transforms are not lifted again: they are the weights' side. */
		size_t len = strlen(fs[i]->name), sl = strlen("transform_params");
		if (len >= sl && !strcmp(fs[i]->name + len - sl, "transform_params"))
			continue;
		errors += lift_func(m, fs[i], d);
	}
	free(fs);
	if (!errors)
		errors = pass_convert_ssa(m, o, d);
	return errors;
}
