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
 * Dead bindings are removed first (dead-code-elimination), so that a weight
 * read only by dead code does not become a parameter.
 *
 * With PassOptions.shared, see the shared transform section below.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

enum { K_NONE, K_INPUT, K_WEIGHT, K_CONST, K_LIFT, K_RUNTIME };

#define NO_LIFT_ATTR "rlx.no_lift"

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
	l->kind = calloc(n, 1);
	l->sv_defined = calloc(n, sizeof(bool));
	l->needed = calloc(n, sizeof(bool));
	l->const_used = calloc(n, sizeof(bool));
	l->repl = calloc(n, sizeof(Var *));
	return true;
}

static void
lift_free(Lift *l)
{
	free(l->kind);
	free(l->sv_defined);
	free(l->needed);
	free(l->const_used);
	free(l->repl);
}

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

/*
 * The names listed in F's "rlx.no_lift" attribute: parameters that were
 * the argument of an R.builtin.stop_lift_params that lifting removed. They
 * stay runtime values when F is lifted again, so lifting is idempotent.
 */
static bool
in_no_lift(const Func *f, const char *name)
{
	const FuncAttr *a = ir_func_attr(f, NO_LIFT_ATTR);
	if (!a || a->val.kind != AV_STR)
		return false;
	size_t n = strlen(name);
	for (const char *p = a->val.s; *p;) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		if (!q)
			break;
		p = q + 1;
	}
	return false;
}

/* Adds name to F's "rlx.no_lift" attribute. */
static void
add_no_lift(Module *m, Func *f, const char *name)
{
	if (in_no_lift(f, name))
		return;
	for (int i = 0; i < f->nattrs; i++)
		if (!strcmp(f->attrs[i].key, NO_LIFT_ATTR)) {
			f->attrs[i].val.s = arena_printf(&m->arena, "%s,%s",
							 f->attrs[i].val.s, name);
			return;
		}
	FuncAttr *attrs = ARENA_ARRAY(&m->arena, FuncAttr, f->nattrs + 1);
	memcpy(attrs, f->attrs, sizeof(FuncAttr) * (size_t)f->nattrs);
	attrs[f->nattrs].key = NO_LIFT_ATTR;
	attrs[f->nattrs].val.kind = AV_STR;
	attrs[f->nattrs].val.s = arena_strdup(&m->arena, name);
	f->attrs = attrs;
	f->nattrs++;
}

/* Classifies the parameters and top-level bindings of l->f; returns the
 * number of bindings to lift. */
static int
classify_func(Lift *l)
{
	Func *f = l->f;
	for (int i = 0; i < f->nparams; i++) {
		bool w = i >= l->ninput;
		l->kind[f->params[i]->id] =
			!w ? K_INPUT
			   : in_no_lift(f, f->params[i]->name) ? K_RUNTIME : K_WEIGHT;
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
	Lift l;
	if (!lift_init(&l, m, f))
		return false;
	classify_func(&l);
	for (int i = 0; i < l.nids; i++)
		lifted[i] = l.kind[i] == K_LIFT || l.kind[i] == K_WEIGHT;
	lift_free(&l);
	return true;
}

/*
 * What the runtime part of l->f uses (l->needed) and which constant
 * bindings the lifted part uses, transitively (l->const_used).
 */
static void
mark_uses(Lift *l)
{
	Expr *body = l->f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			if (l->kind[bd->var->id] == K_LIFT)
				ir_visit_uses(bd->value, mark_const_used, l);
			else
				ir_visit_uses(bd->value, mark_needed, l);
		}
	}
	ir_visit_uses(body->seq.body, mark_needed, l);
	for (int i = body->seq.nblocks - 1; i >= 0; i--) {
		Block *b = body->seq.blocks[i];
		for (int k = b->n - 1; k >= 0; k--)
			if (l->const_used[b->bindings[k]->var->id])
				ir_visit_uses(b->bindings[k]->value,
					      mark_const_used, l);
	}
}

/*
 * The symbolic variables the runtime bindings of l->f mention (appended to
 * used); marks in defined those their match_casts define.
 */
static void
runtime_symvars(const Lift *l, bool *defined, Vec *used)
{
	Expr *body = l->f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			if (l->kind[bd->var->id] == K_LIFT)
				continue;
			if (bd->cast)
				mark_defined(defined, bd->cast);
			collect_expr_symvars(bd->value, used);
			collect_sinfo_symvars(bd->var->sinfo, used);
		}
	}
}

/* ------------------------------------------------------------ rewriting */

/* A use of a replaced var reads its replacement (ir_map_uses callback). */
static Expr *
lift_use(Expr *use, void *ctx)
{
	const Lift *l = ctx;
	if (use->var->id < l->nids && l->repl[use->var->id])
		use->var = l->repl[use->var->id];
	return use;
}

/* Points every use under *slot at its replacement (l->repl). */
static void
replace_uses(Lift *l, Expr **slot)
{
	ir_map_uses(slot, lift_use, l);
}

/*
 * Rewrites the runtime part of l->f once its new parameters are in place
 * (l->repl maps weights and lifted values to them): the lifted bindings go,
 * `y = R.builtin.stop_lift_params(x)` becomes `y = x`, uses read their
 * replacements, empty blocks go. With record_no_lift, a parameter that a
 * removed stop_lift_params read is listed in "rlx.no_lift".
 */
static void
rewrite_runtime(Lift *l, bool record_no_lift)
{
	Func *f = l->f;
	Expr *body = f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		int kept = 0;
		for (int j = 0; j < b->n; j++) {
			Binding *bd = b->bindings[j];
			if (l->kind[bd->var->id] == K_LIFT)
				continue;
			bool stop = is_stop_lift(bd->value);
			if (stop)
				bd->value = bd->value->call.args[0];
			replace_uses(l, &bd->value);
			if (stop && record_no_lift && bd->value->kind == E_VAR)
				for (int p = l->ninput; p < f->nparams; p++)
					if (f->params[p] == bd->value->var)
						add_no_lift(l->m, f, f->params[p]->name);
			b->bindings[kept++] = bd;
		}
		b->n = kept;
	}
	replace_uses(l, &body->seq.body);
	int nb = 0;
	for (int i = 0; i < body->seq.nblocks; i++)
		if (body->seq.blocks[i]->n)
			body->seq.blocks[nb++] = body->seq.blocks[i];
	body->seq.nblocks = nb;
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

/*
 * Builds the transform function `name` of l->f: its parameters are f's
 * weights; its one dataflow block copies the constant bindings the lifted
 * part uses, then takes the lifted bindings (moved out of f when `move`,
 * else copied, so f stays untouched); it returns (shape of `extra` when
 * non-empty, outs...), outs being f's weights and lifted variables.
 */
static Func *
build_transform(Lift *l, const char *name, const Vec *outs, const Vec *extra,
		bool move, Diags *d)
{
	Module *m = l->m;
	Func *f = l->f;
	Expr *body = f->body;
	Func *t = ARENA_NEW(&m->arena, Func);
	t->name = name;
	t->span = f->span;
	t->pure = true;
	t->nparams = f->nparams - l->ninput;
	t->params = ARENA_ARRAY(&m->arena, Var *, t->nparams + 1);
	Lift tl = *l;
	tl.repl = calloc((size_t)l->nids + 1, sizeof(Var *)); /* f's var -> t's */
	for (int i = 0; i < t->nparams; i++) {
		Var *w = f->params[l->ninput + i];
		SInfo *si = erase_undefined(m, w->sinfo, l->sv_defined);
		t->params[i] = w;
		if (si != w->sinfo) {
			t->params[i] = ir_var(m, w->name, si, false, w->span);
			tl.repl[w->id] = t->params[i];
		}
	}
	t->symvars = ARENA_ARRAY(&m->arena, SymVar *, f->nsymvars + 1);
	for (int i = 0; i < f->nsymvars; i++)
		if (l->sv_defined[f->symvars[i]->id])
			t->symvars[t->nsymvars++] = f->symvars[i];
	t->attrs = attrs_num_input_zero(m, &t->nattrs);

	Block *tb = ARENA_NEW(&m->arena, Block);
	tb->dataflow = true;
	tb->span = f->span;
	int cap = 2;
	for (int i = 0; i < body->seq.nblocks; i++)
		cap += body->seq.blocks[i]->n;
	tb->bindings = ARENA_ARRAY(&m->arena, Binding *, cap);
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			Var *v = bd->var;
			bool lifted = l->kind[v->id] == K_LIFT;
			if (lifted && move) {
				replace_uses(&tl, &bd->value);
				v->dataflow = true;
				tb->bindings[tb->n++] = bd;
			} else if (lifted || l->const_used[v->id]) {
				Var *c = copy_var(m, v, true);
				Expr *val = ir_copy_expr(m, bd->value);
				replace_uses(&tl, &val);
				Binding *nb = ir_binding(m, c, val, bd->span);
				nb->annotated = bd->annotated;
				tb->bindings[tb->n++] = nb;
				tl.repl[v->id] = c;
			}
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
		Var *tv = tl.repl[v->id] ? tl.repl[v->id] : v;
		tup->tuple.items[tup->tuple.n++] = ir_var_ref(m, tv, f->span);
	}
	free(tl.repl);
	infer_expr(m, tup, d);
	Var *gv = ir_var(m, "gv", tup->sinfo, false, f->span);
	tb->bindings[tb->n++] = ir_binding(m, gv, tup, f->span);
	Block **tblocks = ARENA_ARRAY(&m->arena, Block *, 1);
	tblocks[0] = tb;
	t->body = seq_of(m, tblocks, 1, ir_var_ref(m, gv, f->span), f->span);
	t->ret = tup->sinfo;
	return t;
}

/*
 * Composes an existing transform `old` (weights -> F's current weights) with
 * `next` (F's current weights -> new weights).
 *
 * When old ends in `gv = (v0, v1, ...)` of variables and next has no
 * symbolic variables, the two fuse: next's parameters read old's vi
 * directly and next's bindings continue old's last dataflow block. Otherwise
 * next's parameters are bound to the elements of old's result with
 * match_cast (which also defines next's symbolic variables), in one dataflow
 * block together with next's bindings.
 */
static void
compose(Module *m, Func *old, Func *next, Diags *d)
{
	Expr *ob = old->body, *nb = next->body;
	Block *last = ob->seq.nblocks ? ob->seq.blocks[ob->seq.nblocks - 1] : NULL;
	Block *nblk = nb->seq.blocks[0]; /* next is built with one block */
	Binding *gvb = last && last->dataflow && last->n ? last->bindings[last->n - 1] : NULL;
	bool fuse = next->nsymvars == 0 && gvb && ob->seq.body->kind == E_VAR &&
		    gvb->var == ob->seq.body->var && gvb->value->kind == E_TUPLE &&
		    gvb->value->tuple.n == next->nparams;
	for (int i = 0; fuse && i < next->nparams; i++)
		fuse = gvb->value->tuple.items[i]->kind == E_VAR;
	if (fuse) {
		Lift tl = {.m = m, .nids = m->next_id};
		tl.repl = calloc((size_t)m->next_id + 1, sizeof(Var *));
		for (int i = 0; i < next->nparams; i++)
			tl.repl[next->params[i]->id] = gvb->value->tuple.items[i]->var;
		Binding **bs = ARENA_ARRAY(&m->arena, Binding *, last->n + nblk->n);
		int k = 0;
		for (int i = 0; i < last->n - 1; i++)
			bs[k++] = last->bindings[i];
		for (int i = 0; i < nblk->n; i++) {
			replace_uses(&tl, &nblk->bindings[i]->value);
			bs[k++] = nblk->bindings[i];
		}
		free(tl.repl);
		last->bindings = bs;
		last->n = k;
		ob->seq.body = nb->seq.body;
		ob->sinfo = nb->sinfo;
		old->ret = next->ret;
		return;
	}
	Block *link = ARENA_NEW(&m->arena, Block);
	link->dataflow = true;
	link->span = old->span;
	link->bindings = ARENA_ARRAY(&m->arena, Binding *, next->nparams + nblk->n + 1);
	for (int i = 0; i < next->nparams; i++) {
		Var *p = next->params[i];
		Expr *get = ir_expr(m, E_TUPLE_GET, p->span);
		get->tget.tuple = ir_var_ref(m, ob->seq.body->var, p->span);
		get->tget.index = i;
		infer_expr(m, get, d);
		Binding *b = ir_binding(m, p, get, p->span);
		b->cast = p->sinfo;
		b->annotated = true;
		p->dataflow = true;
		link->bindings[link->n++] = b;
	}
	for (int i = 0; i < nblk->n; i++)
		link->bindings[link->n++] = nblk->bindings[i];
	Block **blocks = ARENA_ARRAY(&m->arena, Block *, ob->seq.nblocks + 1);
	int k = 0;
	for (int i = 0; i < ob->seq.nblocks; i++)
		blocks[k++] = ob->seq.blocks[i];
	blocks[k++] = link;
	old->body = seq_of(m, blocks, k, nb->seq.body, old->span);
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
	Lift l;
	if (!lift_init(&l, m, f))
		return 0;
	size_t n = (size_t)l.nids + 1;
	int nlift = classify_func(&l);
	Expr *body = f->body;
	mark_uses(&l);

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
	runtime_symvars(&l, rt_defined, &used_sv);
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
	Vec outs = {0};
	for (int i = 0; i < pass.n; i++)
		vec_push(&outs, pass.items[i]);
	for (int i = 0; i < lifted.n; i++)
		vec_push(&outs, lifted.items[i]);
	Func *t = build_transform(&l, tname, &outs, &extra, true, d);
	vec_free(&outs);

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
	rewrite_runtime(&l, true);
	/*
	 * F keeps the symbolic variables it still mentions: first those of
	 * its new parameters, in their order of appearance (the order in
	 * which the printed text defines them, so that printing is a fixed
	 * point), then the others in their old order.
	 */
	{
		Vec inparams = {0}, keep = {0};
		for (int i = 0; i < f->nparams; i++)
			collect_sinfo_symvars(f->params[i]->sinfo, &inparams);
		for (int i = 0; i < used_sv.n; i++)
			vec_push(&keep, used_sv.items[i]);
		SymVar **svs = ARENA_ARRAY(&m->arena, SymVar *,
					   f->nsymvars + 1);
		int ns = 0;
		for (int j = 0; j < inparams.n; j++)
			for (int i = 0; i < f->nsymvars; i++)
				if (inparams.items[j] == f->symvars[i])
					svs[ns++] = f->symvars[i];
		for (int i = 0; i < f->nsymvars; i++) {
			bool inp = false, used = false;
			for (int j = 0; j < inparams.n; j++)
				inp |= inparams.items[j] == f->symvars[i];
			for (int j = 0; j < keep.n && !inp; j++)
				used |= keep.items[j] == f->symvars[i];
			if (!inp && used)
				svs[ns++] = f->symvars[i];
		}
		f->symvars = svs;
		f->nsymvars = ns;
		vec_free(&inparams);
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
 * When the functions share no pre-processing at all, a shared transform
 * would only pass the weights through and each function would lose its own
 * lifting (TVM raises "not implemented" here). rlx then lifts each function
 * on its own, as without --shared, and says so in a note.
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
		if (v->id < l->nids && l->kind[v->id] == K_WEIGHT) {
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
			int kind = sf->l.kind[bd->var->id];
			if (kind == K_LIFT || kind == K_CONST) {
				StrBuf s = {0};
				sb_puts(&s, kind == K_CONST ? "C:" : "L:");
				bool ok = key_expr(&s, sf, bd->value);
				sb_puts(&s, "->");
				key_sinfo(&s, bd->var->sinfo);
				if (ok)
					id = intern(kt, sb_take(&s));
				else
					sb_free(&s);
			}
			if (kind == K_CONST)
				id = -1; /* constants are copied, never shared */
			if (kind == K_LIFT && id < 0)
				sf->l.kind[bd->var->id] = K_RUNTIME;
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
				diag_error(d, b->span,
					   "--shared: weight %d of %s is %s, but "
					   "weight %d of %s is %s",
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

/* Lifts fs[0..n) into one shared transform_params. */
static int
lift_shared(Module *m, Func **fs, int n, Diags *d)
{
	if (!weights_match(m, fs, n, d))
		return d->nerrors;
	int nids = m->next_id;
	size_t sz = (size_t)nids + 1;
	SharedFn *sf = calloc((size_t)n, sizeof *sf);
	KeyTab kt = {m, {0}};
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		lift_init(l, m, fs[i]); /* selected: num_input is valid */
		sf[i].key_of = malloc(sizeof(int) * sz);
		for (size_t k = 0; k < sz; k++)
			sf[i].key_of[k] = -1;
		classify_func(l);
		shared_keys(&kt, &sf[i]);
	}
	/* The intersection: keys lifted in every function. */
	int nk = kt.keys.n;
	int *count = calloc((size_t)nk + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
		bool *seen = calloc((size_t)nk + 1, sizeof(bool));
		for (int k = 0; k < sf[i].keys.n; k++) {
			int id = (int)(intptr_t)sf[i].keys.items[k];
			if (id >= 0 && !seen[id]) {
				seen[id] = true;
				count[id]++;
			}
		}
		free(seen);
	}
	int shared_count = 0;
	for (int k = 0; k < nk; k++)
		shared_count += count[k] == n;
	int errors = 0;
	if (shared_count == 0) {
		diag_note(d, fs[0]->span,
			  "--shared: the functions share no pre-processing; each "
			  "is lifted into its own transform");
		for (int i = 0; i < n && !errors; i++)
			errors += lift_func(m, fs[i], d);
		goto out;
	}
	/* Demote what is not shared; then what each function needs. */
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		Expr *body = l->f->body;
		for (int b = 0; b < body->seq.nblocks; b++)
			for (int k = 0; k < body->seq.blocks[b]->n; k++) {
				Var *v = body->seq.blocks[b]->bindings[k]->var;
				if (l->kind[v->id] == K_LIFT &&
				    count[sf[i].key_of[v->id]] != n)
					l->kind[v->id] = K_RUNTIME;
			}
		mark_uses(l);
	}
	/* Outputs: weight positions any function needs, then shared keys any
	 * function needs, in the first function's binding order. */
	int nw = fs[0]->nparams - sf[0].l.ninput;
	bool *wneed = calloc((size_t)nw + 1, sizeof(bool));
	bool *kneed = calloc((size_t)nk + 1, sizeof(bool));
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		for (int k = 0; k < nw; k++)
			wneed[k] |= l->needed[l->f->params[l->ninput + k]->id];
		for (int v = 0; v < nids; v++)
			if (l->needed[v] && l->kind[v] == K_LIFT)
				kneed[sf[i].key_of[v]] = true;
	}
	/* Symbolic variables needed at run time must be carried by outputs. */
	Lift *l0 = &sf[0].l;
	Func *f0 = fs[0];
	Expr *body0 = f0->body;
	Vec outs = {0};      /* Var of f0 (weight or lifted) per output */
	Vec out_keys = {0};  /* -1 - weight index, or the key id */
	for (int k = 0; k < nw; k++)
		if (wneed[k]) {
			vec_push(&outs, f0->params[l0->ninput + k]);
			vec_push(&out_keys, (void *)(intptr_t)(-1 - k));
		}
	for (int b = 0; b < body0->seq.nblocks; b++)
		for (int k = 0; k < body0->seq.blocks[b]->n; k++) {
			Var *v = body0->seq.blocks[b]->bindings[k]->var;
			if (l0->kind[v->id] == K_LIFT && kneed[sf[0].key_of[v->id]]) {
				vec_push(&outs, v);
				vec_push(&out_keys,
					 (void *)(intptr_t)sf[0].key_of[v->id]);
			}
		}
	for (int i = 0; i < n; i++) {
		bool *def = calloc(sz, sizeof(bool));
		Lift *l = &sf[i].l;
		for (int k = 0; k < l->ninput; k++)
			mark_defined(def, l->f->params[k]->sinfo);
		for (int o = 0; o < outs.n; o++)
			mark_defined(def, ((Var *)outs.items[o])->sinfo);
		Vec used = {0};
		runtime_symvars(l, def, &used);
		bool missing = false;
		for (int k = 0; k < used.n; k++)
			missing |= !def[((SymVar *)used.items[k])->id] &&
				    !l->sv_defined[((SymVar *)used.items[k])->id];
		vec_free(&used);
		free(def);
		if (missing) {
			diag_error(d, l->f->span,
				   "--shared: %s needs at run time a symbolic "
				   "dimension that only its weights define; lift "
				   "it without --shared",
				   l->f->name);
			errors++;
		}
	}
	if (errors)
		goto out_outs;

	/* The transform, built from the first function. */
	Vec none = {0};
	Func *t = build_transform(l0, "transform_params", &outs, &none, false, d);

	/* Each function takes every output, named as in the first. */
	for (int i = 0; i < n; i++) {
		Lift *l = &sf[i].l;
		Func *f = l->f;
		Var **params = ARENA_ARRAY(&m->arena, Var *, l->ninput + outs.n + 1);
		int np = 0;
		for (int k = 0; k < l->ninput; k++)
			params[np++] = f->params[k];
		for (int o = 0; o < outs.n; o++) {
			Var *proto = outs.items[o];
			Var *p = copy_var(m, proto, false);
			params[np++] = p;
			int key = (int)(intptr_t)out_keys.items[o];
			if (key < 0) {
				l->repl[f->params[l->ninput + (-1 - key)]->id] = p;
				continue;
			}
			for (int v = 0; v < nids; v++)
				if (sf[i].key_of[v] == key && l->kind[v] == K_LIFT)
					l->repl[v] = p;
		}
		rewrite_runtime(l, false);
		f->params = params;
		f->nparams = np;
	}
	Func **nfs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	nfs[0] = t;
	for (int i = 0; i < m->nfuncs; i++)
		nfs[i + 1] = m->funcs[i];
	m->funcs = nfs;
	m->nfuncs++;
out_outs:
	vec_free(&outs);
	vec_free(&out_keys);
	free(wneed);
	free(kneed);
out:
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
	return errors + d->nerrors;
}

bool
pass_is_transform(const Func *f)
{
	size_t len = strlen(f->name), sl = strlen("transform_params");
	return len >= sl && !strcmp(f->name + len - sl, "transform_params");
}

int
pass_lift_transform_params(Module *m, const PassOptions *o, Diags *d)
{
	/* A weight read only by dead code must not become a parameter. */
	int errors = pass_dead_code_elimination(m, o, d);
	int nf = m->nfuncs;
	Func **fs = malloc(sizeof(Func *) * ((size_t)nf + 1));
	memcpy(fs, m->funcs, sizeof(Func *) * (size_t)nf);
	bool *in_shared = calloc((size_t)nf + 1, sizeof(bool));
	if (o && o->shared) {
		Func **sel = malloc(sizeof(Func *) * ((size_t)nf + 1));
		int ns = 0;
		if (o->nshared_funcs) {
			for (int k = 0; k < o->nshared_funcs; k++) {
				Func *f = ir_find_func(m, o->shared_funcs[k]);
				if (!f || ir_func_num_input(f) < 0) {
					diag_error(d, (Span){0, 0, 0},
						   "--shared=%s: %s", o->shared_funcs[k],
						   f ? "has no num_input attribute"
						     : "no such function");
					errors++;
					continue;
				}
				sel[ns++] = f;
			}
		} else {
			for (int i = 0; i < nf; i++)
				if (ir_func_num_input(fs[i]) >= 0 && !pass_is_transform(fs[i]))
					sel[ns++] = fs[i];
		}
		for (int i = 0; i < nf; i++)
			for (int k = 0; k < ns; k++)
				if (fs[i] == sel[k])
					in_shared[i] = true;
		/* Already lifted with --shared: nothing changes. */
		bool done = ir_find_func(m, "transform_params") != NULL;
		if (!errors && ns > 0 && !done)
			errors += lift_shared(m, sel, ns, d);
		free(sel);
	}
	for (int i = 0; i < nf && !errors; i++) {
		/* Transforms are not lifted again: they are the weights' side. */
		if (pass_is_transform(fs[i]) || in_shared[i])
			continue;
		errors += lift_func(m, fs[i], d);
	}
	free(in_shared);
	free(fs);
	if (!errors)
		errors = pass_convert_ssa(m, o, d);
	return errors;
}
