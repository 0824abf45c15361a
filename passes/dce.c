/*
 * dce.c — dead-code-elimination.
 *
 * Rewrites: removes bindings whose variable is never used when their value
 * is pure (op calls, tuples, constants, calls of pure functions, ifs whose
 * branches are pure), working backwards so that chains of dead bindings go
 * in one sweep; drops blocks left empty; removes private functions that no
 * public function reaches through calls.
 *
 * Leaves alone: impure bindings, match_cast bindings (a runtime check that
 * may define symbolic variables), anything the function returns, public
 * functions. As TVM's DeadCodeElimination, with match_cast kept.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	int *uses; /* per Var.id */
} Counts;

static void
count_use(Var *v, void *ctx)
{
	((Counts *)ctx)->uses[v->id]++;
}

static void
uncount_use(Var *v, void *ctx)
{
	((Counts *)ctx)->uses[v->id]--;
}

static void dce_seq(Module *m, Expr *seq, Counts *c);

/* Sweeps one block backwards; returns the number of bindings kept. */
static int
dce_block(Module *m, Block *b, Counts *c)
{
	int kept = b->n;
	for (int i = b->n - 1; i >= 0; i--) {
		Binding *bd = b->bindings[i];
		bool dead = c->uses[bd->var->id] == 0 && !bd->cast &&
			    ir_expr_is_pure(m, bd->value);
		if (!dead) {
			if (bd->value->kind == E_IF) {
				dce_seq(m, bd->value->if_.then_, c);
				dce_seq(m, bd->value->if_.else_, c);
			}
			continue;
		}
		ir_visit_uses(bd->value, uncount_use, c);
		b->bindings[i] = NULL;
		kept--;
	}
	int k = 0;
	for (int i = 0; i < b->n; i++)
		if (b->bindings[i])
			b->bindings[k++] = b->bindings[i];
	b->n = k;
	return kept;
}

/* Sweeps the blocks of a sequence from the last to the first. */
static void
dce_seq(Module *m, Expr *seq, Counts *c)
{
	int k = 0;
	for (int i = seq->seq.nblocks - 1; i >= 0; i--)
		dce_block(m, seq->seq.blocks[i], c);
	for (int i = 0; i < seq->seq.nblocks; i++)
		if (seq->seq.blocks[i]->n)
			seq->seq.blocks[k++] = seq->seq.blocks[i];
	seq->seq.nblocks = k;
}

/* The functions reached, by index into m->funcs: a worklist, so that a
 * chain of thousands of calls neither recurses that deep nor scans. */
typedef struct {
	const Module *m;
	bool *live;
	IntVec todo;
} Reach;

/* Marks function idx live and queues its body. */
static void
reach_func(Reach *r, int idx)
{
	if (idx < 0 || r->live[idx])
		return;
	r->live[idx] = true;
	ivec_push(&r->todo, idx);
}

static void reach_expr(Reach *r, const Expr *e);

static bool
reach_child(Expr **child, void *ctx)
{
	reach_expr(ctx, *child);
	return true;
}

/* Queues the functions e calls or refers to (cls.f as a value), in its
 * own sequences too. */
static void
reach_expr(Reach *r, const Expr *e)
{
	if (e && e->kind == E_CALL_FN)
		reach_func(r, ir_func_index(r->m, e->callfn.callee));
	if (e && e->kind == E_GLOBAL)
		reach_func(r, ir_func_index(r->m, e->str));
	ir_each_child((Expr *)e, reach_child, r); /* reads only */
}

void
pass_dce_func(Module *m, Func *f)
{
	Counts c = {xcalloc((size_t)m->next_id + 1, sizeof(int))};
	ir_visit_uses(f->body, count_use, &c);
	dce_seq(m, f->body, &c);
	free(c.uses);
}

int
pass_dead_code_elimination(Module *m, Diags *d)
{
	(void)d;
	Counts c = {xcalloc((size_t)m->next_id + 1, sizeof(int))};
	for (int i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		ir_visit_uses(f->body, count_use, &c);
		dce_seq(m, f->body, &c);
		/* the counts are now those of the body left: uncounting it
		 * zeroes them for the next function in O(its size), where a
		 * memset per function made a module of many functions O(n^2) */
		ir_visit_uses(f->body, uncount_use, &c);
	}
	free(c.uses);

	bool *live = xcalloc((size_t)m->nfuncs + 1, sizeof(bool));
	Reach r = {m, live, {0}};
	for (int i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i]->is_private)
			reach_func(&r, i);
	while (r.todo.n)
		reach_expr(&r, m->funcs[r.todo.items[--r.todo.n]]->body);
	ivec_free(&r.todo);
	int k = 0;
	for (int i = 0; i < m->nfuncs; i++)
		if (live[i])
			m->funcs[k++] = m->funcs[i];
	m->nfuncs = k;
	free(live);
	return 0;
}
