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

/*
 * A set of names (open addressing), each with the next suffix to try for
 * it, so that a function of n bindings (or n rebindings of one name) is
 * renamed in about O(n), not O(n^2).
 */
typedef struct {
	const char **keys;
	int *next; /* per slot: the next N to try for key_N */
	size_t cap, n;
} NameSet;

typedef struct {
	Module *m;
	int n;           /* next_id before the pass: the tables' size */
	bool *defined;   /* per original Var.id / SymVar.id: seen as a def */
	Var **var_map;   /* per original Var.id: the Var uses now refer to */
	int *mapped;     /* the ids var_map holds for the current function */
	int nmapped, cmapped;
	SymVar **sv_from; /* symbolic substitution of the current function */
	PExpr **sv_to;
	int nsv;
	NameSet names;    /* names taken in the current function */
	NameSet reserved; /* every name the function's variables have */
	const Var *forced_var; /* this definition takes forced_name */
	const char *forced_name;
} Ssa;

/* FNV-1a. */
static size_t
name_hash(const char *s)
{
	size_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in set: where it is, or the empty one it would take. */
static size_t
set_slot(const NameSet *set, const char *name)
{
	size_t i = name_hash(name) & (set->cap - 1);
	while (set->keys[i] && strcmp(set->keys[i], name))
		i = (i + 1) & (set->cap - 1);
	return i;
}

static bool
set_has(const NameSet *set, const char *name)
{
	return set->cap && set->keys[set_slot(set, name)];
}

/* Adds name (kept by pointer: an arena string) if absent; its slot. */
static size_t
set_add(NameSet *set, const char *name)
{
	if ((set->n + 1) * 2 > set->cap) {
		NameSet big = {0};
		big.cap = set->cap ? set->cap * 2 : 64;
		big.keys = calloc(big.cap, sizeof *big.keys);
		big.next = calloc(big.cap, sizeof *big.next);
		if (!big.keys || !big.next)
			ir_bug("out of memory");
		for (size_t i = 0; i < set->cap; i++)
			if (set->keys[i]) {
				size_t k = set_slot(&big, set->keys[i]);
				big.keys[k] = set->keys[i];
				big.next[k] = set->next[i];
			}
		big.n = set->n;
		free(set->keys);
		free(set->next);
		*set = big;
	}
	size_t k = set_slot(set, name);
	if (!set->keys[k]) {
		set->keys[k] = name;
		set->next[k] = 1;
		set->n++;
	}
	return k;
}

static void
set_free(NameSet *set)
{
	free(set->keys);
	free(set->next);
	*set = (NameSet){0};
}

static bool
name_taken(Ssa *s, const char *name)
{
	return set_has(&s->names, name);
}

static bool
name_reserved(Ssa *s, const char *name)
{
	return set_has(&s->reserved, name);
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
		size_t slot = set_add(&s->names, name);
		int k = s->names.next[slot];
		do {
			n = arena_printf(&s->m->arena, "%s_%d", name, k++);
		} while (name_taken(s, n) || name_reserved(s, n));
		s->names.next[set_slot(&s->names, name)] = k;
	}
	set_add(&s->names, n);
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
	if (s->nmapped == s->cmapped) {
		s->cmapped = s->cmapped ? 2 * s->cmapped : 64;
		s->mapped = realloc(s->mapped, sizeof *s->mapped * (size_t)s->cmapped);
		if (!s->mapped)
			ir_bug("out of memory");
	}
	s->mapped[s->nmapped++] = v->id;
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
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			rewrite_expr(s, e->tuple.items[i]);
		break;
	case E_TUPLE_GET:
		rewrite_expr(s, e->tget.tuple);
		break;
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			e->shape.values[i] = subst_pe(s, e->shape.values[i]);
		break;
	case E_PRIM:
		e->prim.value = subst_pe(s, e->prim.value);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			rewrite_expr(s, e->call.args[i]);
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			rewrite_expr(s, e->callfn.args[i]);
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
		break;
	}
}

static void
collect_seq_names(Ssa *s, const Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *b = seq->seq.blocks[i];
		for (int k = 0; k < b->n; k++) {
			set_add(&s->reserved, b->bindings[k]->var->name);
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
		set_add(&s->reserved, f->params[i]->name);
	for (int i = 0; i < f->nsymvars; i++)
		set_add(&s->reserved, f->symvars[i]->name);
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
pass_convert_ssa(Module *m, const PassOptions *o, Diags *d)
{
	(void)o;
	(void)d;
	int n = m->next_id;
	Ssa s = {.m = m,
		 .n = n,
		 .defined = calloc((size_t)n + 1, sizeof(bool)),
		 .var_map = calloc((size_t)n + 1, sizeof(Var *))};
	for (int i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		/* the previous function's entries only: a memset of the whole
		 * table per function made the pass O(functions x variables) */
		for (int k = 0; k < s.nmapped; k++)
			s.var_map[s.mapped[k]] = NULL;
		s.nmapped = 0;
		set_free(&s.names);
		set_free(&s.reserved);
		collect_names(&s, f);
		fresh_symvars(&s, f);
		for (int k = 0; k < f->nsymvars; k++)
			set_add(&s.names, f->symvars[k]->name);
		for (int k = 0; k < f->nparams; k++)
			f->params[k] = define(&s, f->params[k]);
		rewrite_seq(&s, f->body);
		f->ret = subst_sinfo(&s, f->ret);
	}
	set_free(&s.names);
	set_free(&s.reserved);
	free(s.defined);
	free(s.var_map);
	free(s.mapped);
	return 0;
}
