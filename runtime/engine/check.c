/*
 * check.c — the weights check: a checkpoint against the parameters of a
 * function, before anything runs. Every parameter present, a tensor, with
 * the dtype and shape of its annotation (symbolic dimensions bound from the
 * first tensor that has them as a bare dimension, checked where they
 * recur; a shape tuple of a tensor cache for an R.Shape parameter, with its
 * count of values); tensors the function does not take are one warning
 * naming them (TVM ignores them too). Also the symbolic-variable environment the check
 * and the weight and input makers share.
 */
#include <stdlib.h>
#include <string.h>

#include "transform.h"

void
rt_env_bind(RtSymEnv *env, SymVar *v, int64_t value)
{
	if (env->n == env->cap) {
		env->cap = env->cap ? 2 * env->cap : 16;
		env->vars = realloc(env->vars, sizeof *env->vars * (size_t)env->cap);
		env->vals = realloc(env->vals, sizeof *env->vals * (size_t)env->cap);
		if (!env->vars || !env->vals)
			ir_bug("out of memory");
	}
	env->vars[env->n] = v;
	env->vals[env->n++] = pe_int(env->arena, value);
}

bool
rt_env_has(const RtSymEnv *env, const SymVar *v)
{
	for (int i = 0; i < env->n; i++)
		if (env->vars[i] == v)
			return true;
	return false;
}

void
rt_env_free(RtSymEnv *env)
{
	free(env->vars);
	free(env->vals);
	env->vars = NULL;
	env->vals = NULL;
	env->n = env->cap = 0;
}

bool
rt_env_eval(RtSymEnv *env, PExpr *x, int64_t *out, const SymVar **unbound)
{
	PExpr *y = pe_subst(env->arena, x, env->vars, env->vals, env->n);
	if (pe_is_const(y, out))
		return true;
	Vec vs = {0};
	pe_collect_vars(y, &vs);
	*unbound = vs.n ? vs.items[0] : NULL;
	vec_free(&vs);
	return false;
}

/* Whether the tensor found matches annotation si, binding symbolic dims. */
static bool
matches(RtSymEnv *env, const SInfo *si, const RtWeightInfo *w)
{
	bool match = (si->dtype == DT_UNKNOWN || si->dtype == w->dt) &&
		     (si->ndim < 0 || si->ndim == w->ndim);
	for (int k = 0; match && si->shape && k < si->ndim; k++) {
		PExpr *x = si->shape[k];
		if (x->kind == PE_VAR && !rt_env_has(env, x->var))
			rt_env_bind(env, x->var, w->shape[k]);
		int64_t want;
		const SymVar *u;
		if (rt_env_eval(env, x, &want, &u) && want != w->shape[k])
			match = false;
	}
	return match;
}

/* A shape tuple of a tensor cache (a transform's output) for R.Shape
 * parameter p: as many values as the annotation has. */
static void
check_shape(Module *m, const Func *f, const Var *p, RtWeights *w,
	    const char *wname, RtWeightInfo *info, Diags *d)
{
	RtWeightInfo wi = {.dt = DT_I64, .ndim = 1};
	RtError e;
	if (!rt_weights_info(w, p->name, NULL, &wi.ndim, wi.shape, &e)) {
		diag_file(d, DIAG_ERROR, wname, "%s", e.msg);
		return;
	}
	wi.ndim = 1;
	wi.nbytes = (uint64_t)wi.shape[0] * sizeof(int64_t);
	if (info)
		*info = wi;
	if (p->sinfo->ndim >= 0 && wi.shape[0] != p->sinfo->ndim)
		diag_file(d, DIAG_ERROR, wname, "shape tuple '%s' has %lld "
			  "values, but %s expects %s", p->name,
			  (long long)wi.shape[0], f->name,
			  infer_sinfo_str(m, p->sinfo));
}

/* qsort/bsearch of strings. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The one policy of run, transform and verify for checkpoint tensors that
 * are no weight of f (see transform.h). */
int
rt_check_extra(const Func *f, int first, RtWeights *w, const char *wname,
	       bool strict, Diags *d)
{
	int nextra = 0;
	StrBuf extra = {0};
	int n = rt_weights_count(w);
	/* the weight parameters' names sorted, so that a checkpoint of many
	 * records costs n log p, not n * p */
	int np = f->nparams > first ? f->nparams - first : 0;
	const char **names = malloc(sizeof *names * (size_t)(np ? np : 1));
	if (!names)
		ir_bug("out of memory");
	for (int k = 0; k < np; k++)
		names[k] = f->params[first + k]->name;
	qsort(names, (size_t)np, sizeof *names, cmp_str);
	for (int i = 0; i < n; i++) {
		const char *name = rt_weights_name(w, i);
		bool used = np && bsearch(&name, names, (size_t)np,
					  sizeof *names, cmp_str);
		if (!used && nextra++ < 8)
			sb_printf(&extra, "%s'%s'", nextra > 1 ? ", " : "", name);
	}
	free(names);
	if (nextra)
		diag_file(d, strict ? DIAG_ERROR : DIAG_WARNING, wname,
			  "%d tensor%s not a weight of %s%s: %s%s", nextra,
			  nextra > 1 ? "s are" : " is", f->name,
			  strict ? " (--strict)" : ", ignored", extra.p,
			  nextra > 8 ? ", ..." : "");
	sb_free(&extra);
	return nextra;
}

/* The checkpoint name closest to a missing weight's, for "did you
 * mean", or NULL: one that is want under a prefix ("model.w" for "w"),
 * else the closest spelling. */
static const char *
closest_name(RtWeights *w, const char *want)
{
	Suggest s = {.want = want};
	size_t nw = strlen(want);
	int n = rt_weights_count(w);
	for (int i = 0; i < n; i++) {
		const char *name = rt_weights_name(w, i);
		size_t k = strlen(name);
		if (k > nw && name[k - nw - 1] == '.' &&
		    !strcmp(name + k - nw, want))
			return name;
		suggest_offer(&s, name);
	}
	return s.best;
}

/* Whether w is what si says but for its dtype (a checkpoint in another
 * precision: every tensor differs the same way, one error says it). */
static bool
only_dtype(const SInfo *si, const RtWeightInfo *w)
{
	if (si->dtype == DT_UNKNOWN || si->dtype == w->dt ||
	    (si->ndim >= 0 && si->ndim != w->ndim))
		return false;
	for (int k = 0; si->shape && k < si->ndim; k++) {
		int64_t v;
		if (pe_is_const(si->shape[k], &v) && v != w->shape[k])
			return false;
	}
	return true;
}

/* Tensors whose only mismatch is the same pair of dtypes, named in one
 * error. */
enum { MAX_DT_GROUPS = 8 };
typedef struct {
	DType have, want;
	int n;
	StrBuf names; /* the first 8, quoted */
	const Var *first; /* the first, told whole when it is the only one */
	RtWeightInfo info;
} DtGroup;

/* Adds name to the group of (have, want), opening it when there is room;
 * false when there is none. */
static bool
dtype_group(DtGroup *g, int *ng, const Var *p, const RtWeightInfo *w)
{
	int i = 0;
	while (i < *ng && (g[i].have != w->dt || g[i].want != p->sinfo->dtype))
		i++;
	if (i == *ng) {
		if (*ng == MAX_DT_GROUPS)
			return false;
		g[i] = (DtGroup){.have = w->dt, .want = p->sinfo->dtype,
				 .first = p, .info = *w};
		++*ng;
	}
	if (g[i].n++ < 8)
		sb_printf(&g[i].names, "%s'%s'", g[i].n > 1 ? ", " : "", p->name);
	return true;
}

/* The error of a tensor that is not what its parameter says. */
static void
mismatch(Module *m, const Func *f, const Var *p, const RtWeightInfo *w,
	 const char *wname, Diags *d)
{
	StrBuf b = {0};
	rt_type_text(&b, w->dt, w->ndim, w->shape);
	diag_file(d, DIAG_ERROR, wname, "tensor '%s' is %s, but %s expects %s",
		  p->name, b.p, f->name, infer_sinfo_str(m, p->sinfo));
	sb_free(&b);
}

int
rt_check_weights(Module *m, const Func *f, int first, RtWeights *w,
		 const char *wname, bool strict, RtWeightInfo *info, Diags *d)
{
	int errors = d->nerrors, nmissing = 0, ndt = 0;
	DtGroup dtg[MAX_DT_GROUPS];
	RtSymEnv env = {.arena = &m->arena};
	StrBuf missing = {0};
	for (int i = first; i < f->nparams; i++) {
		const Var *p = f->params[i];
		const SInfo *si = p->sinfo;
		RtWeightInfo wi = {0};
		if (si && si->kind == SI_SHAPE && rt_weights_is_shape(w, p->name)) {
			check_shape(m, f, p, w, wname, info ? &info[i - first] : NULL,
				    d);
			continue;
		}
		if (!rt_weights_has(w, p->name)) {
			if (nmissing++ < 8) {
				const char *near = closest_name(w, p->name);
				sb_printf(&missing, "%s'%s'", nmissing > 1 ? ", " : "",
					  p->name);
				if (near)
					sb_printf(&missing, " (did you mean '%s'?)",
						  near);
			}
			continue;
		}
		RtError e;
		if (!rt_weights_info(w, p->name, &wi.dt, &wi.ndim, wi.shape, &e)) {
			diag_file(d, DIAG_ERROR, wname, "%s", e.msg);
			continue;
		}
		size_t nb = 0;
		rt_size(wi.dt, wi.ndim, wi.shape, &nb);
		wi.nbytes = nb;
		if (info)
			info[i - first] = wi;
		if (!si || si->kind != SI_TENSOR) {
			diag_file(d, DIAG_ERROR, m->src.name,
				  "parameter '%s' of %s is %s, not a tensor: it "
				  "cannot come from a checkpoint", p->name,
				  f->name,
				  si ? infer_sinfo_str(m, si) : "unannotated");
			continue;
		}
		if (!matches(&env, si, &wi)) {
			if (!only_dtype(si, &wi) ||
			    !dtype_group(dtg, &ndt, p, &wi))
				mismatch(m, f, p, &wi, wname, d);
		}
	}
	for (int g = 0; g < ndt; g++) {
		DtGroup *gr = &dtg[g];
		if (gr->n == 1)
			mismatch(m, f, gr->first, &gr->info, wname, d);
		else
			diag_file(d, DIAG_ERROR, wname,
				  "%d tensors are %s, but %s expects %s: %s%s",
				  gr->n, dtype_name(gr->have), f->name,
				  dtype_name(gr->want), gr->names.p,
				  gr->n > 8 ? ", ..." : "");
		sb_free(&gr->names);
	}
	if (nmissing)
		diag_file(d, DIAG_ERROR, wname,
			  "%d weight%s of %s %s missing from the checkpoint: %s%s",
			  nmissing, nmissing > 1 ? "s" : "", f->name,
			  nmissing > 1 ? "are" : "is", missing.p,
			  nmissing > 8 ? ", ..." : "");
	sb_free(&missing);
	rt_env_free(&env);
	if (d->nerrors != errors)
		return d->nerrors - errors;
	if (rt_check_extra(f, first, w, wname, strict, d) && strict)
		return 1;
	return 0;
}
