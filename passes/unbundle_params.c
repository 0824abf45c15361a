/*
 * unbundle_params.c — a transform's weights by name: the calling convention
 * of TVM's F_transform_params (one parameter, a tuple of every weight in
 * parameter order) turned into one named parameter per weight, for the
 * commands that bind a checkpoint by name (`rlx transform`, `rlx run --func
 * F_transform_params`). Not a pipeline pass: the module printed keeps TVM's
 * form; the runtime sees this one.
 *
 * Weight i is named, in order of preference: by the caller (the original
 * F's parameter names when rlx lifted F itself); by the binding `NAME =
 * params[i]` that TVM's BundleModelParams leaves before each use (it keeps
 * the weight's name); when the transform returns `params` unchanged, by F's
 * parameter that receives field i. A weight none of these names is not read
 * by the transform, and gets the name `params_i`.
 *
 * Rewrites T in place: `params[i]` reads the new parameter i, any other use
 * of `params` reads the tuple literal of the new parameters; then T is
 * canonicalized, so `w = params[i]` bindings fold into the parameters.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

bool
pass_is_bundled(const Func *t)
{
	return t->nparams == 1 && t->params[0]->sinfo &&
	       t->params[0]->sinfo->kind == SI_TUPLE;
}

/* The first `NAME = params[i]` of seq (nested blocks included). */
static const char *
get_name(const Expr *seq, const Var *p, int i)
{
	for (int b = 0; b < seq->seq.nblocks; b++)
		for (int k = 0; k < seq->seq.blocks[b]->n; k++) {
			const Binding *bd = seq->seq.blocks[b]->bindings[k];
			const Expr *v = bd->value;
			if (v->kind == E_TUPLE_GET && v->tget.index == i &&
			    v->tget.tuple->kind == E_VAR && v->tget.tuple->var == p)
				return bd->var->name;
			if (v->kind == E_IF) {
				const char *n = get_name(v->if_.then_, p, i);
				if (!n)
					n = get_name(v->if_.else_, p, i);
				if (n)
					return n;
			}
		}
	return NULL;
}

void
pass_weight_names(const Module *m, const Func *t, const char **names)
{
	const Var *p = t->params[0];
	int n = p->sinfo->nfields;
	const Expr *res = t->body->seq.body;
	/* `return params`: F's parameters after its inputs receive them */
	const Func *f = NULL;
	size_t sl = strlen("_transform_params"), tl = strlen(t->name);
	if (res->kind == E_VAR && res->var == p && tl > sl) {
		char *fname = memcpy(xmalloc(tl - sl + 1), t->name, tl - sl);
		fname[tl - sl] = 0;
		f = ir_find_func(m, fname);
		free(fname);
	}
	int nin = f ? ir_func_num_input(f) : -1;
	for (int i = 0; i < n; i++) {
		if (names[i])
			continue;
		names[i] = get_name(t->body, p, i);
		if (!names[i] && f && nin >= 0 && f->nparams - nin == n)
			names[i] = f->params[nin + i]->name;
	}
}

typedef struct {
	Module *m;
	Var *p;
	Var **w;
	int n;
	Diags *d;
} Unbundle;

static void unbundle_slot(Unbundle *u, Expr **slot);

static bool
unbundle_child(Expr **child, void *ctx)
{
	unbundle_slot(ctx, child);
	return true;
}

static void
unbundle_slot(Unbundle *u, Expr **slot)
{
	Expr *e = *slot;
	switch (e->kind) {
	case E_TUPLE_GET:
		if (e->tget.tuple->kind == E_VAR && e->tget.tuple->var == u->p &&
		    e->tget.index >= 0 && e->tget.index < u->n) {
			*slot = ir_var_ref(u->m, u->w[e->tget.index], e->span);
			(*slot)->sinfo = u->w[e->tget.index]->sinfo;
			return;
		}
		unbundle_slot(u, &e->tget.tuple);
		break;
	case E_VAR:
		if (e->var == u->p) {
			Expr *t = ir_expr(u->m, E_TUPLE, e->span);
			t->tuple.n = u->n;
			t->tuple.items = ARENA_ARRAY(&u->m->arena, Expr *, u->n + 1);
			for (int i = 0; i < u->n; i++)
				t->tuple.items[i] = ir_var_ref(u->m, u->w[i], e->span);
			infer_expr(u->m, t, u->d);
			*slot = t;
		}
		break;
	default:
		ir_each_child(e, unbundle_child, u);
		break;
	}
}

void
pass_unbundle_params(Module *m, Func *t, const char **names, Diags *d)
{
	Var *p = t->params[0];
	int n = p->sinfo->nfields;
	Var **w = ARENA_ARRAY(&m->arena, Var *, n + 1);
	for (int i = 0; i < n; i++) {
		const char *name = names && names[i]
					   ? names[i]
					   : arena_printf(&m->arena, "%s_%d", p->name, i);
		w[i] = ir_var(m, arena_strdup(&m->arena, name), p->sinfo->fields[i],
			      false, p->span);
	}
	Unbundle u = {m, p, w, n, d};
	unbundle_slot(&u, &t->body);
	t->params = w;
	t->nparams = n;
	/* `NAME = params[i]` is now `NAME = w_i`: fold it, so that a weight
	 * returned as it is reads the parameter itself */
	pass_canonicalize_funcs(m, &t, 1, d);
}
