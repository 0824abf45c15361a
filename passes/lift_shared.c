/*
 * lift_shared.c — lift-transform-params with --shared: one transform for
 * several functions (see the comment below); the per-function analysis it
 * builds on is lift_transform_params.c's (lift.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lift.h"

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
int
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

