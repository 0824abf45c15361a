/*
 * convert_ssa.c — convert-ssa: make any module well-formed SSA, module-wide,
 * without changing what it computes.
 *
 * Rewrites:
 *  - a Var defined twice (bound twice, or a parameter of two functions, as
 *    the C API allows) gets a fresh Var at each later definition, and the
 *    uses that follow see the fresh one;
 *  - symbolic variables shared between functions are made fresh per
 *    function, in every annotation and shape of that function;
 *  - within a function, distinct variables that share a name get unique
 *    names: the first keeps it, later ones become `y_1`, `y_2`, ... (the
 *    first free suffix), so the names stay close to the user's.
 *
 * Leaves alone: a module already in SSA with unique names is unchanged.
 * TVM has only a TIR version of this pass (and a TODO for Relax).
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	Module *m;
	int n;           /* next_id before the pass: the tables' size */
	bool *defined;   /* per original Var.id / SymVar.id: seen as a def */
	Var **var_map;   /* per original Var.id: the Var uses now refer to */
	IntVec mapped;   /* the ids var_map holds for the current function */
	SymVar **sv_from; /* symbolic substitution of the current function */
	PExpr **sv_to;
	int nsv;
	NameMap names;    /* names taken in the current function, each with
			   * the next suffix N to try for NAME_N (so that n
			   * rebindings of one name are renamed in O(n)) */
	NameMap reserved; /* every name the function's variables have */
	const Var *forced_var; /* this definition takes forced_name */
	const char *forced_name;
} Ssa;

static bool
name_taken(Ssa *s, const char *name)
{
	return namemap_get(&s->names, name) != NULL;
}

static bool
name_reserved(Ssa *s, const char *name)
{
	return namemap_get(&s->reserved, name) != NULL;
}

/*
 * A name for a new definition: the original if free, else name_N with the
 * first N that no variable of the function has (so a user's own `y_1` is
 * never taken from it).
 */
static const char *
unique_name(Ssa *s, const char *name)
{
	const char *n = name;
	if (name_taken(s, n)) {
		/* The suffixes below the one tried last are all taken for good. */
		int *next = namemap_add(&s->names, name, 1);
		int k = *next;
		do {
			n = arena_printf(&s->m->arena, "%s_%d", name, k++);
		} while (name_taken(s, n) || name_reserved(s, n));
		*next = k;
	}
	namemap_add(&s->names, n, 1);
	return n;
}

static PExpr *
subst_pe(Ssa *s, PExpr *x)
{
	return x && s->nsv ? pe_subst(&s->m->arena, x, s->sv_from, s->sv_to,
				      s->nsv)
			   : x;
}

static SInfo *
subst_sinfo(Ssa *s, SInfo *si)
{
	return ir_subst_sinfo(s->m, si, s->sv_from, s->sv_to, s->nsv);
}

/* A definition of v: fresh when v was defined before, renamed if needed. */
static Var *
define(Ssa *s, Var *v)
{
	Var *nv = v;
	if (s->defined[v->id]) {
		nv = ARENA_NEW(&s->m->arena, Var);
		*nv = *v;
		nv->id = s->m->next_id++; /* ids above the tables' size: never looked up */
	}
	s->defined[v->id] = true;
	if (v == s->forced_var)
		nv->name = s->forced_name; /* an if's result: named like the if */
	else
		nv->name = unique_name(s, v->name);
	nv->sinfo = subst_sinfo(s, v->sinfo);
	ivec_push(&s->mapped, v->id);
	s->var_map[v->id] = nv;
	return nv;
}

static void rewrite_expr(Ssa *s, Expr *e);
static void rewrite_seq(Ssa *s, Expr *seq);

/* The variable a branch's last binding defines as its result, or NULL. */
static Var *
branch_result(Expr *branch)
{
	Expr *body = branch->seq.body;
	if (body->kind != E_VAR || !branch->seq.nblocks)
		return NULL;
	Block *b = branch->seq.blocks[branch->seq.nblocks - 1];
	if (!b->n || b->bindings[b->n - 1]->var != body->var)
		return NULL;
	return body->var;
}

/*
 * `y = if c: ... y = v ... else: ... y = w`: the branches' result variables
 * share the if's name on purpose (that is how the text writes an if), so
 * they take the if variable's unique name instead of one of their own.
 */
static void
rewrite_if(Ssa *s, Binding *bd)
{
	Expr *e = bd->value;
	const char *yname = unique_name(s, bd->var->name);
	e->sinfo = subst_sinfo(s, e->sinfo);
	rewrite_expr(s, e->if_.cond);
	Expr *branches[2] = {e->if_.then_, e->if_.else_};
	for (int i = 0; i < 2; i++) {
		s->forced_var = branch_result(branches[i]);
		s->forced_name = yname;
		rewrite_seq(s, branches[i]);
	}
	s->forced_var = bd->var;
	s->forced_name = yname;
	bd->var = define(s, bd->var);
	s->forced_var = NULL;
}

static void
rewrite_seq(Ssa *s, Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		Block *b = seq->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			Binding *bd = b->bindings[k];
			if (bd->value->kind == E_IF) {
				rewrite_if(s, bd);
				continue;
			}
			rewrite_expr(s, bd->value);
			bd->cast = subst_sinfo(s, bd->cast);
			bd->var = define(s, bd->var);
		}
	}
	rewrite_expr(s, seq->seq.body);
	seq->sinfo = subst_sinfo(s, seq->sinfo);
}

static bool
rewrite_child(Expr **child, void *ctx)
{
	rewrite_expr(ctx, *child);
	return true;
}

static void
rewrite_expr(Ssa *s, Expr *e)
{
	if (!e)
		return;
	e->sinfo = subst_sinfo(s, e->sinfo);
	switch (e->kind) {
	case E_VAR:
		if (e->var->id < s->n && s->var_map[e->var->id])
			e->var = s->var_map[e->var->id];
		break;
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			e->shape.values[i] = subst_pe(s, e->shape.values[i]);
		break;
	case E_PRIM:
		e->prim.value = subst_pe(s, e->prim.value);
		break;
	case E_TUPLE:
	case E_TUPLE_GET:
	case E_CALL:
	case E_CALL_FN:
	case E_CALL_VAR:
		ir_each_child(e, rewrite_child, s);
		break;
	case E_FUNC: /* its parameters are its own: only the body's uses */
		rewrite_seq(s, e->fn->body);
		break;
	case E_IF:
		rewrite_expr(s, e->if_.cond);
		rewrite_seq(s, e->if_.then_);
		rewrite_seq(s, e->if_.else_);
		break;
	case E_SEQ:
		rewrite_seq(s, e);
		break;
	case E_CONST:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
}

static void
collect_seq_names(Ssa *s, const Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *b = seq->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			namemap_add(&s->reserved, b->bindings[k]->var->name, 0);
			const Expr *v = b->bindings[k]->value;
			if (v->kind == E_IF) {
				collect_seq_names(s, v->if_.then_);
				collect_seq_names(s, v->if_.else_);
			}
		}
	}
}

/* Every name the variables of f have, before any renaming. */
static void
collect_names(Ssa *s, const Func *f)
{
	for (int i = 0; i < f->nparams; i++)
		namemap_add(&s->reserved, f->params[i]->name, 0);
	for (int i = 0; i < f->nsymvars; i++)
		namemap_add(&s->reserved, f->symvars[i]->name, 0);
	collect_seq_names(s, f->body);
}

/* Gives f fresh copies of the symbolic variables seen in earlier functions. */
static void
fresh_symvars(Ssa *s, Func *f)
{
	s->nsv = 0;
	s->sv_from = ARENA_ARRAY(&s->m->arena, SymVar *, f->nsymvars + 1);
	s->sv_to = ARENA_ARRAY(&s->m->arena, PExpr *, f->nsymvars + 1);
	for (int i = 0; i < f->nsymvars; i++) {
		SymVar *v = f->symvars[i];
		if (!s->defined[v->id]) {
			s->defined[v->id] = true;
			continue;
		}
		SymVar *nv = ir_symvar(s->m, v->name, v->span);
		s->sv_from[s->nsv] = v;
		s->sv_to[s->nsv++] = pe_var(&s->m->arena, nv);
		f->symvars[i] = nv;
	}
}

int
pass_convert_ssa(Module *m, Diags *d)
{
	(void)d;
	int n = m->next_id;
	Ssa s = {.m = m,
		 .n = n,
		 .defined = xcalloc((size_t)n + 1, sizeof(bool)),
		 .var_map = xcalloc((size_t)n + 1, sizeof(Var *))};
	for (int i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		/* the previous function's entries only: a memset of the whole
		 * table per function made the pass O(functions x variables) */
		for (int k = 0; k < s.mapped.n; k++)
			s.var_map[s.mapped.items[k]] = NULL;
		s.mapped.n = 0;
		namemap_free(&s.names);
		namemap_free(&s.reserved);
		collect_names(&s, f);
		fresh_symvars(&s, f);
		for (int k = 0; k < f->nsymvars; k++)
			namemap_add(&s.names, f->symvars[k]->name, 1);
		for (int k = 0; k < f->nparams; k++)
			f->params[k] = define(&s, f->params[k]);
		rewrite_seq(&s, f->body);
		f->ret = subst_sinfo(&s, f->ret);
	}
	namemap_free(&s.names);
	namemap_free(&s.reserved);
	free(s.defined);
	free(s.var_map);
	ivec_free(&s.mapped);
	return 0;
}
