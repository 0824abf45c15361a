/*
 * tp.c — which outputs of a weight transform depend on the worker's rank
 * (`rlx transform --tensor-parallel N`, runtime/engine/transform.h).
 *
 * A value is rank-dependent when it is computed by an op that reads the
 * worker's rank (R.dist.redistribute_replica_to_shard, the part a worker
 * keeps of R.ccl.scatter_from_worker0, the runtime.disco.worker_id call) or
 * from a rank-dependent value (a var, or a symbolic variable that a
 * match_cast binds from one, as r in begin=[r * 16]),
 * through nested blocks, branches and calls of module functions that do.
 * Collectives between workers (allreduce, allgather, broadcast) cannot run
 * in a transform that computes one worker at a time, and an op's
 * num_workers must be N: both are located errors.
 */
#include <string.h>

#include "op_attr.h"
#include "transform.h"

typedef struct {
	Module *m;
	int n;          /* the workers */
	bool *tainted;  /* by Var id */
	bool *tsym;     /* by SymVar id: bound from a rank-dependent value */
	Diags *d;
	int depth;
	bool hit;       /* the expression being visited uses a tainted var */
} Tp;

static bool expr_rank(Tp *t, const Expr *e);

static void
use_var(Var *v, void *ctx)
{
	Tp *t = ctx;
	if (v->id >= 0 && v->id <= t->m->next_id && t->tainted[v->id])
		t->hit = true;
}

/* Whether the op call e itself reads the rank; errors for what cannot run
 * in a per-worker transform. */
static bool
call_rank(Tp *t, const Expr *e)
{
	if (ir_is_worker_id(e))
		return true; /* the rank itself */
	if (e->kind != E_CALL || op_info(e->call.op)->cls != OC_COMM)
		return false;
	OpKind op = e->call.op;
	const char *name = op_info(op)->name;
	if (!(op_info(op)->flags & OF_WORKER_SLICE)) {
		diag_error(t->d, e->span, "R.%s in the weight transform: with "
			   "--tensor-parallel the transform runs one worker "
			   "at a time, so it cannot talk to the others (keep "
			   "collectives in the model, after the weights)",
			   name);
		return true;
	}
	const AttrVal *nw = op_attr_opt(e, P_num_workers);
	if (nw && nw->i != t->n)
		diag_error(t->d, e->span, "R.%s over %lld workers, but "
			   "--tensor-parallel is %d", name, (long long)nw->i, t->n);
	return true;
}

/* Marks the bindings of seq; true when its result is rank-dependent. */
static bool
seq_rank(Tp *t, const Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *bl = seq->seq.blocks[i];
		for (int j = 0; j < bl->n; j++) {
			Binding *b = bl->bindings[j];
			if (!expr_rank(t, b->value))
				continue;
			t->tainted[b->var->id] = true;
			/* `R.match_cast(wid, R.Shape([r]))`: r is the rank */
			if (b->cast) {
				Vec vs = {0};
				ir_sinfo_symvars(b->cast, &vs);
				for (int k = 0; k < vs.n; k++) {
					SymVar *sv = vs.items[k];
					if (sv->id >= 0 && sv->id <= t->m->next_id)
						t->tsym[sv->id] = true;
				}
				vec_free(&vs);
			}
		}
	}
	return expr_rank(t, seq->seq.body);
}

static bool
expr_rank(Tp *t, const Expr *e)
{
	if (!e)
		return false;
	bool r = call_rank(t, e);
	if (e->kind == E_IF) {
		r |= expr_rank(t, e->if_.cond);
		r |= seq_rank(t, e->if_.then_);
		r |= seq_rank(t, e->if_.else_);
	} else if (e->kind == E_CALL_FN && t->depth < 64) {
		Func *g = ir_find_func(t->m, e->callfn.callee);
		if (g && g->body) {
			t->depth++;
			r |= seq_rank(t, g->body);
			t->depth--;
		}
	}
	t->hit = false;
	ir_visit_uses(e, use_var, t);
	/* begin=[r * 16]: the attributes and shapes over the rank */
	Vec vs = {0};
	ir_expr_symvars(e, &vs);
	for (int k = 0; k < vs.n; k++) {
		SymVar *sv = vs.items[k];
		if (sv->id >= 0 && sv->id <= t->m->next_id && t->tsym[sv->id])
			t->hit = true;
	}
	vec_free(&vs);
	return r || t->hit;
}

bool *
rt_rank_dependent(Module *m, const Func *T, int nout, int n, Diags *d)
{
	Tp t = {.m = m, .n = n, .d = d};
	t.tainted = calloc((size_t)m->next_id + 2, sizeof *t.tainted);
	t.tsym = calloc((size_t)m->next_id + 2, sizeof *t.tsym);
	bool *dep = calloc((size_t)nout + 1, sizeof *dep);
	if (!t.tainted || !t.tsym || !dep)
		ir_bug("out of memory");
	int nerr = d->nerrors;
	seq_rank(&t, T->body);
	/* the result: a tuple of vars (F_transform_params' form) */
	const Expr *res = T->body->seq.body;
	if (res->kind == E_VAR) {
		/* gv = (a, b, ...) bound at the top level */
		for (int i = 0; i < T->body->seq.nblocks; i++) {
			Block *bl = T->body->seq.blocks[i];
			for (int j = 0; j < bl->n; j++)
				if (bl->bindings[j]->var == res->var &&
				    bl->bindings[j]->value->kind == E_TUPLE)
					res = bl->bindings[j]->value;
		}
	}
	for (int k = 0; k < nout; k++) {
		if (res->kind == E_TUPLE && k < res->tuple.n)
			dep[k] = expr_rank(&t, res->tuple.items[k]);
		else
			dep[k] = expr_rank(&t, res);
	}
	free(t.tainted);
	free(t.tsym);
	if (d->nerrors > nerr) {
		free(dep);
		return NULL;
	}
	return dep;
}
