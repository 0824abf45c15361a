/*
 * verify_lift.c — rlx_verify_lift (rlx_runtime.h): the original function
 * on the raw weights against the lifted function on the transformed
 * weights, in memory, on the same inputs, with the dtype's tolerance
 * (compare.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transform.h"
#include "rlx_runtime.h"

/* The state of one verification: three programs and their values. */
typedef struct {
	const rlx_verify_options *o;
	Module *m0, *m1;
	Func *F0, *F1, *T1;
	RtSymEnv env;
	RtValue **args0, **argst, **args1;
	int nargs0, nargst, nargs1;
} Vf;

/* Releases an array of n values (NULL entries allowed). */
static void
release_all(RtValue **vs, int n)
{
	for (int i = 0; vs && i < n; i++)
		rt_value_release(vs[i]);
	free(vs);
}

/* The value given for input p (--input, read as `rlx run` reads it),
 * binding its symbolic dims for the inputs that follow; NULL with *given
 * false when there is none. */
static RtValue *
given_input(Vf *v, const Var *p, bool *given, Diags *d)
{
	const rlx_verify_options *o = v->o;
	*given = false;
	for (int k = o->ninputs - 1; k >= 0; k--) {
		if (strcmp(o->input_names[k], p->name))
			continue;
		*given = true;
		RtError e;
		RtValue *val = rt_value_read_npy(p->name, p->sinfo,
						 o->input_paths[k], &e);
		if (!val) {
			diag_file(d, DIAG_ERROR, v->m0->src.name, "%s", e.msg);
			return NULL;
		}
		/* bind its symbolic dims for the inputs that follow */
		const SInfo *si = p->sinfo;
		const RtTensor *t = val->kind == RV_TENSOR ? val->t : NULL;
		for (int i = 0; t && si->kind == SI_TENSOR && si->shape &&
		     i < si->ndim && i < t->ndim; i++)
			if (si->shape[i]->kind == PE_VAR &&
			    !rt_env_has(&v->env, si->shape[i]->var))
				rt_env_bind(&v->env, si->shape[i]->var, t->shape[i]);
		return val;
	}
	return NULL;
}

/* A random or given value for input parameter p of F. */
static RtValue *
make_input(Vf *v, const Var *p, Diags *d)
{
	bool given;
	RtValue *val = given_input(v, p, &given, d);
	if (given)
		return val;
	const rlx_dims *dims = &v->o->dims;
	const SInfo *si = p->sinfo;
	RtError err;
	if (si && si->kind == SI_SHAPE && si->shape) {
		int64_t vals[RT_MAX_DIMS * 4];
		SInfo tmp = {.kind = SI_TENSOR, .ndim = si->ndim, .shape = si->shape};
		if (si->ndim > (int)ARRAY_LEN(vals))
			rt_error(&err, "a shape of more than %d values", (int)ARRAY_LEN(vals));
		else if (rt_resolve_shape(&v->env, dims->names, dims->values, dims->n,
					  4, &tmp, vals, &err))
			return rt_value_shape(vals, si->ndim);
	} else if (!si || si->kind != SI_TENSOR || si->ndim < 0 || !si->shape ||
		   si->dtype == DT_UNKNOWN || si->ndim > RT_MAX_DIMS) {
		rt_error(&err, "cannot make a random %s; give it with "
			 "--input %s=FILE.npy",
			 si ? infer_sinfo_str(v->m0, si) : "value", p->name);
	} else {
		int64_t shape[RT_MAX_DIMS];
		RtTensor *t = NULL;
		if (rt_resolve_shape(&v->env, dims->names, dims->values, dims->n,
				     4, si, shape, &err))
			t = rt_tensor_new(si->dtype, si->ndim, shape, &err);
		if (t) {
			RtRng r = rt_rng_for(v->o->seed, p->name);
			rt_fill_random(t, &r, 1.0, 4);
			return rt_value_tensor(t);
		}
	}
	diag_file(d, DIAG_ERROR, v->m0->src.name, "input '%s': %s", p->name, err.msg);
	return NULL;
}

/* The original and the lifted module, F, F_transform_params and the
 * lifted F; the options checked against F. A status. */
static int
prepare(Vf *v, const char *filename, const char *text, size_t len, Diags *d)
{
	const rlx_verify_options *o = v->o;
	if (!(v->m0 = rlx_parse(filename, text, len, d)) ||
	    !(v->F0 = rt_pick_func(v->m0, o->func, "verify", d)))
		return RLX_EINPUT;
	const char *name = v->m0->src.name;
	const char *tname = o->shared ? "transform_params"
		: arena_printf(&v->m0->arena, "%s_transform_params", v->F0->name);
	if (o->shared && !rt_shared_serves(o->shared_funcs, o->nshared_funcs,
					   v->F0->name, d))
		return RLX_EOPTIONS;
	if (ir_find_func(v->m0, tname)) {
		diag_file(d, DIAG_ERROR, name, "the module already has %s; verify "
			  "needs the module before lifting", tname);
		return RLX_EINPUT;
	}
	rlx_diags *scratch = rlx_diags_new();
	v->m1 = rlx_parse(filename, text, len, scratch);
	rlx_diags_free(scratch);
	if (!v->m1 || rt_lift_tidy(v->m1, o->shared, o->shared_funcs,
				   o->nshared_funcs, false, d))
		return RLX_EINPUT;
	v->F1 = ir_find_func(v->m1, v->F0->name);
	v->T1 = ir_find_func(v->m1, tname);
	if (!v->F1 || !v->T1) {
		diag_file(d, DIAG_ERROR, name, "lifting '%s' made no %s",
			  v->F0->name, tname);
		return RLX_EINPUT;
	}
	/* the transform's tuple of weights, bound by F's weight names */
	int errors = d->nerrors;
	rt_unbundle(v->m1, v->T1,
		    rt_lift_weight_names(v->m0, v->F0, o->shared, o->shared_funcs,
					 o->nshared_funcs), d);
	if (d->nerrors != errors)
		return RLX_EINPUT;
	const char *bad = rt_unknown_dim(v->F0, o->dims.names, o->dims.n);
	if (bad) {
		diag_file(d, DIAG_ERROR, NULL, "--dim: '%s' is not a symbolic "
			  "variable of the function", bad);
		return RLX_EOPTIONS;
	}
	for (int k = 0; k < o->ninputs; k++) {
		bool known = false;
		for (int j = 0; j < ir_func_num_input(v->F0); j++)
			known |= !strcmp(v->F0->params[j]->name, o->input_names[k]);
		if (!known) {
			diag_file(d, DIAG_ERROR, NULL, "--input %s=%s: not an input "
				  "of the function", o->input_names[k],
				  o->input_paths[k]);
			return RLX_EOPTIONS;
		}
	}
	return RLX_OK;
}

/* F's arguments: its inputs, then its weights from w. */
static bool
original_args(Vf *v, RtWeights *w, const char *wname, Diags *d)
{
	Func *F0 = v->F0;
	int nin = ir_func_num_input(F0);
	v->nargs0 = F0->nparams;
	v->args0 = calloc((size_t)v->nargs0 + 1, sizeof *v->args0);
	for (int i = 0; i < nin; i++)
		if (!(v->args0[i] = make_input(v, F0->params[i], d)))
			return false;
	if (rt_check_extra(F0, nin, w, wname, v->o->strict, d) && v->o->strict)
		return false;
	for (int i = nin; i < v->nargs0; i++) {
		const char *name = F0->params[i]->name;
		if (!rt_weights_has(w, name)) {
			diag_file(d, DIAG_ERROR, wname, "weight '%s' of %s is "
				  "missing from the checkpoint", name, F0->name);
			return false;
		}
		RtError e;
		RtTensor *t = rt_weights_load(w, name, &e);
		if (!t) {
			diag_file(d, DIAG_ERROR, wname, "%s", e.msg);
			return false;
		}
		v->args0[i] = rt_value_tensor(t);
	}
	return true;
}

/* Compiles function `name` of m and runs it on args; NULL + d. */
static RtValue *
run_func(Module *m, const char *name, const char *what, RtValue **args,
	 bool index_check, RtProgram **prog, Diags *d)
{
	RtValue *r = NULL;
	RtError e;
	if (!(*prog = rt_compile_func(m, name, d)))
		return NULL;
	rt_program_set_index_check(*prog, index_check);
	if (!rt_run(*prog, args, &r, &e)) {
		RtError w = {.span = e.span};
		rt_error(&w, "%s%s: %s", what, name, e.msg);
		rt_error_report(d, m, &w);
		return NULL;
	}
	return r;
}

/* The transform's arguments, the weights of F by name. */
static bool
transform_args(Vf *v, Diags *d)
{
	int nin = ir_func_num_input(v->F0);
	v->nargst = v->T1->nparams;
	v->argst = calloc((size_t)v->nargst + 1, sizeof *v->argst);
	for (int i = 0; i < v->nargst; i++) {
		for (int k = nin; k < v->nargs0 && !v->argst[i]; k++)
			if (!strcmp(v->F0->params[k]->name, v->T1->params[i]->name))
				v->argst[i] = rt_value_retain(v->args0[k]);
		if (!v->argst[i]) {
			diag_file(d, DIAG_ERROR, v->m0->src.name,
				  "%s takes '%s', which is not a weight of %s",
				  v->T1->name, v->T1->params[i]->name,
				  v->F0->name);
			return false;
		}
	}
	return true;
}

/* The lifted F's arguments: F's inputs, then the transform's outputs. */
static bool
lifted_args(Vf *v, RtValue *tr, Diags *d)
{
	int nin1 = ir_func_num_input(v->F1);
	v->nargs1 = v->F1->nparams;
	if (tr->kind != RV_TUPLE || tr->n != v->nargs1 - nin1) {
		diag_file(d, DIAG_ERROR, v->m0->src.name, "%s returned %d values "
			  "for the %d weights of the lifted %s", v->T1->name,
			  tr->kind == RV_TUPLE ? tr->n : 1, v->nargs1 - nin1,
			  v->F1->name);
		return false;
	}
	v->args1 = calloc((size_t)v->nargs1 + 1, sizeof *v->args1);
	for (int i = 0; i < nin1; i++)
		v->args1[i] = rt_value_retain(v->args0[i]);
	for (int i = nin1; i < v->nargs1; i++)
		v->args1[i] = rt_value_retain(tr->fields[i - nin1]);
	return true;
}

/* Compares r1 against the reference r0, a line per output into a string. */
static bool
compare(const RtValue *r0, const RtValue *r1, char **report)
{
	size_t n = 0;
	FILE *f = open_memstream(report, &n);
	if (!f)
		return false;
	bool ok = true;
	if (r0->kind == RV_TUPLE && r1->kind == RV_TUPLE && r0->n == r1->n) {
		for (int i = 0; i < r0->n; i++) {
			char label[32];
			snprintf(label, sizeof label, "output %d", i);
			ok &= rt_value_compare(label, r0->fields[i], r1->fields[i], f);
		}
	} else {
		ok = rt_value_compare("output", r0, r1, f);
	}
	fclose(f);
	return ok;
}

int
rlx_verify_lift(const char *filename, const char *text, size_t len,
		const char *weights, const rlx_verify_options *opts,
		rlx_verify_result *res, rlx_diags *d)
{
	rlx_verify_options none = {0};
	Vf v = {.o = opts ? opts : &none};
	RtWeights *w = NULL;
	RtProgram *p0 = NULL, *pt = NULL, *p1 = NULL;
	RtValue *r0 = NULL, *tr = NULL, *r1 = NULL;
	*res = (rlx_verify_result){0};
	int status = prepare(&v, filename, text, len, d);
	if (status != RLX_OK)
		goto done;
	status = RLX_EINPUT;
	v.env.arena = &v.m0->arena;
	RtError e;
	if (!(w = rt_weights_open(weights, &e))) {
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		goto done;
	}
	if (!original_args(&v, w, weights, d) ||
	    !(r0 = run_func(v.m0, v.F0->name, "", v.args0,
				    !v.o->no_index_check, &p0, d)) ||
	    !transform_args(&v, d) ||
	    !(tr = run_func(v.m1, v.T1->name, "", v.argst,
				    !v.o->no_index_check, &pt, d)) ||
	    !lifted_args(&v, tr, d) ||
	    !(r1 = run_func(v.m1, v.F1->name, "lifted ", v.args1,
				    !v.o->no_index_check, &p1, d)))
		goto done;
	if (!rt_weights_check(w, &e)) { /* truncated while it was read */
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		goto done;
	}
	res->agree = compare(r0, r1, &res->report);
	status = RLX_OK;
done:
	rt_value_release(r0);
	rt_value_release(tr);
	rt_value_release(r1);
	release_all(v.args0, v.nargs0);
	release_all(v.argst, v.nargst);
	release_all(v.args1, v.nargs1);
	rt_program_free(p0);
	rt_program_free(pt);
	rt_program_free(p1);
	rt_weights_close(w);
	rt_env_free(&v.env);
	rlx_module_free(v.m0);
	rlx_module_free(v.m1);
	return status;
}

