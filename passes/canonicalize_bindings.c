/*
 * canonicalize_bindings.c — canonicalize-bindings: remove trivial bindings
 * while keeping the names a human gave, as TVM's CanonicalizeBindings.
 *
 * Rewrites, in each function:
 *  - `y = x` (x a variable, same struct info) is removed and the uses of y
 *    read x, following chains (`b = a; c = b`);
 *  - a tuple round trip `y = (t[0], t[1])` of a 2-tuple t is `y = t`, and
 *    `y = t[i]` of a tuple literal t is `y = (its item i)`;
 *  - `y = R.match_cast(x, S)` where x already has struct info S is `y = x`;
 *  - for `y = x` with y a Var (a block output) and x a DataflowVar:
 *    when y is used only inside its block, x's name survives (as above);
 *    when y is used after the block, x's definition is rewritten to define
 *    y, so the outer name survives;
 *  - a constant bound to a variable is inlined at its uses;
 *  - a dataflow block output that nothing after the block uses becomes a
 *    DataflowVar.
 *
 * Leaves alone: bindings whose annotation says more or less than the value's
 * struct info (they are casts), everything that is not a trivial binding.
 */
#include <stdlib.h>

#include "pass.h"

typedef struct {
	Module *m;
	int nids;
	Expr **repl;        /* per Var.id: the leaf that replaces its uses */
	Binding **def;      /* per Var.id: its binding (dataflow blocks only) */
	Block **def_block;  /* per Var.id */
	bool *outside;      /* per Var.id: used outside its defining block */
	bool *dead;         /* per Var.id: its binding is removed */
	const Block *cur;   /* the block being scanned, NULL outside blocks */
	/* the ids written for the current function, cleared after it (the
	 * tables are the module's: clearing them whole per function made the
	 * pass O(functions x variables)) */
	bool *is_touched;
	IntVec touched;
} Canon;

/* Notes that the tables' entries for id are about to be written. */
static void
touch(Canon *c, int id)
{
	if (c->is_touched[id])
		return;
	c->is_touched[id] = true;
	ivec_push(&c->touched, id);
}

/* The leaf that a use of v finally reads. */
static Expr *
resolve(Canon *c, Expr *e)
{
	while (e->kind == E_VAR && e->var->id < c->nids && c->repl[e->var->id])
		e = c->repl[e->var->id];
	return e;
}

static void
note_use(Var *v, void *ctx)
{
	Canon *c = ctx;
	if (v->id < c->nids && c->def_block[v->id] != c->cur) {
		touch(c, v->id);
		c->outside[v->id] = true;
	}
}

/* Which variables are used outside the block that defines them. */
static void
scan_uses(Canon *c, Expr *body)
{
	for (int i = 0; i < c->touched.n; i++)
		c->outside[c->touched.items[i]] = false;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		c->cur = b;
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			/* inside an if, everything counts as outside */
			if (bd->value->kind == E_IF)
				c->cur = NULL;
			ir_visit_uses(bd->value, note_use, c);
			c->cur = b;
		}
	}
	c->cur = NULL;
	ir_visit_uses(body->seq.body, note_use, c);
}

static bool
same_sinfo(Canon *c, const SInfo *a, const SInfo *b)
{
	return a && b && si_equal(c->m, a, b);
}

/* If value is a tuple round trip (t[0], ..., t[n-1]) of t, returns t. */
static Expr *
round_trip(Canon *c, Expr *value)
{
	if (value->kind != E_TUPLE || value->tuple.n == 0)
		return NULL;
	Var *t = NULL;
	for (int i = 0; i < value->tuple.n; i++) {
		Expr *it = value->tuple.items[i];
		if (it->kind != E_VAR)
			return NULL;
		Binding *b = it->var->id < c->nids ? c->def[it->var->id] : NULL;
		if (!b || b->value->kind != E_TUPLE_GET ||
		    b->value->tget.index != i ||
		    b->value->tget.tuple->kind != E_VAR)
			return NULL;
		Var *src = resolve(c, b->value->tget.tuple)->var;
		if (t && src != t)
			return NULL;
		t = src;
	}
	if (!t || !t->sinfo || t->sinfo->kind != SI_TUPLE ||
	    t->sinfo->nfields != value->tuple.n)
		return NULL;
	return ir_var_ref(c->m, t, value->span);
}

/* The leaf a binding trivially equals, or NULL when it is not trivial. */
static Expr *
trivial_value(Canon *c, Binding *b)
{
	Expr *v = b->value;
	if (v->kind == E_VAR) {
		Expr *r = resolve(c, v);
		if (b->cast && !same_sinfo(c, b->cast, r->sinfo))
			return NULL;
		if (b->annotated && !b->cast &&
		    !same_sinfo(c, b->var->sinfo, r->sinfo))
			return NULL;
		return r;
	}
	if (b->cast)
		return NULL;
	if (v->kind == E_CONST)
		return v;
	if (v->kind == E_TUPLE_GET && v->tget.tuple->kind == E_VAR) {
		Var *t = resolve(c, v->tget.tuple)->var;
		Binding *tb = t->id < c->nids ? c->def[t->id] : NULL;
		if (tb && tb->value->kind == E_TUPLE &&
		    v->tget.index < tb->value->tuple.n) {
			Expr *it = tb->value->tuple.items[v->tget.index];
			if (it->kind == E_VAR || it->kind == E_CONST)
				return resolve(c, it);
		}
		return NULL;
	}
	Expr *rt = round_trip(c, v);
	if (rt && (!b->annotated || same_sinfo(c, b->var->sinfo, rt->sinfo)))
		return rt;
	return NULL;
}

static void
apply(Canon *c, Expr *e);

/* Each use gets its own node: later passes edit uses in place. */
static void
apply_slot(Canon *c, Expr **slot)
{
	if ((*slot)->kind != E_VAR) {
		apply(c, *slot);
		return;
	}
	Expr *r = resolve(c, *slot);
	if (r != *slot) {
		Expr *copy = ir_copy_expr(c->m, r);
		copy->span = (*slot)->span;
		*slot = copy;
	}
}

/* Rewrites every use in e through the replacement map. */
static void
apply(Canon *c, Expr *e)
{
	switch (e->kind) {
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			apply_slot(c, &e->tuple.items[i]);
		break;
	case E_TUPLE_GET:
		apply_slot(c, &e->tget.tuple);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			apply_slot(c, &e->call.args[i]);
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			apply_slot(c, &e->callfn.args[i]);
		break;
	case E_IF:
		apply_slot(c, &e->if_.cond);
		apply(c, e->if_.then_);
		apply(c, e->if_.else_);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++) {
			Block *b = e->seq.blocks[i];
			int kept = 0;
			for (int k = 0; k < b->n; k++) {
				Binding *bd = b->bindings[k];
				if (bd->var->id < c->nids && c->dead[bd->var->id])
					continue;
				apply_slot(c, &bd->value);
				b->bindings[kept++] = bd;
			}
			b->n = kept;
		}
		apply_slot(c, &e->seq.body);
		break;
	default:
		break;
	}
}

/* Finds the trivial bindings of one sequence (and nested ones). */
static void
find_trivial(Canon *c, Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *b = seq->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			Var *y = bd->var;
			if (bd->value->kind == E_IF) {
				find_trivial(c, bd->value->if_.then_);
				find_trivial(c, bd->value->if_.else_);
			}
			Expr *r = trivial_value(c, bd);
			if (!r)
				continue;
			bool y_out = !y->dataflow && b->dataflow;
			if (r->kind == E_VAR && r->var->dataflow && !y->dataflow) {
				Var *x = r->var;
				Binding *xb = x->id < c->nids ? c->def[x->id] : NULL;
				if (y_out && c->outside[y->id] && xb &&
				    c->def_block[x->id] == b) {
					/* the outer name survives */
					xb->var = y;
					touch(c, y->id);
					touch(c, x->id);
					c->def[y->id] = xb;
					c->repl[x->id] = ir_var_ref(c->m, y, x->span);
					/* xb now defines y; `y = x` goes, marked
					 * dead through the var it no longer needs */
					bd->var = x;
					c->dead[x->id] = true;
					continue;
				}
				if (c->outside[y->id])
					continue; /* x is not visible out there */
			}
			touch(c, y->id);
			c->repl[y->id] = r;
			c->dead[y->id] = true;
		}
	}
}

static void
canon_func(Canon *c, Func *f)
{
	Expr *body = f->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			int id = b->bindings[k]->var->id;
			touch(c, id);
			c->def[id] = b->bindings[k];
			c->def_block[id] = b;
		}
	}
	scan_uses(c, body);
	find_trivial(c, body);
	apply(c, body);
	/* Outputs no one reads after their block become DataflowVars. */
	scan_uses(c, body);
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *b = body->seq.blocks[i];
		if (!b->dataflow)
			continue;
		for (int k = 0; k < b->n; k++) {
			Var *v = b->bindings[k]->var;
			if (!v->dataflow && !c->outside[v->id])
				v->dataflow = true;
		}
	}
	int nb = 0;
	for (int i = 0; i < body->seq.nblocks; i++)
		if (body->seq.blocks[i]->n)
			body->seq.blocks[nb++] = body->seq.blocks[i];
	body->seq.nblocks = nb;
	for (int i = 0; i < c->touched.n; i++) {
		int id = c->touched.items[i];
		c->repl[id] = NULL;
		c->def[id] = NULL;
		c->def_block[id] = NULL;
		c->outside[id] = c->dead[id] = c->is_touched[id] = false;
	}
	c->touched.n = 0;
}

int
pass_canonicalize_bindings(Module *m, const PassOptions *o, Diags *d)
{
	(void)o;
	(void)d;
	Canon c = {.m = m, .nids = m->next_id};
	size_t n = (size_t)c.nids + 1;
	c.repl = calloc(n, sizeof(Expr *));
	c.def = calloc(n, sizeof(Binding *));
	c.def_block = calloc(n, sizeof(Block *));
	c.outside = calloc(n, sizeof(bool));
	c.dead = calloc(n, sizeof(bool));
	c.is_touched = calloc(n, sizeof(bool));
	if (!c.repl || !c.def || !c.def_block || !c.outside || !c.dead ||
	    !c.is_touched)
		ir_bug("out of memory");
	for (int i = 0; i < m->nfuncs; i++)
		canon_func(&c, m->funcs[i]);
	free(c.repl);
	free(c.def);
	free(c.def_block);
	free(c.outside);
	free(c.dead);
	free(c.is_touched);
	ivec_free(&c.touched);
	return 0;
}
