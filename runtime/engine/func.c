/*
 * func.c — what the engines (transform.c, init_weights.c, verify_lift.c,
 * run.c) do with a module before running it: pick the function, lift it,
 * bind its transform's weights by name, compile it, each reporting into a
 * Diags; and rlx_lift (rlx_runtime.h), the lift of `rlx lift` with its
 * --bind arrays read from .npy files, and rlx_run_passes_with, the passes
 * of `rlx dump` with the same.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "transform.h"
#include "rlx_runtime.h"

Func *
rt_pick_func(Module *m, const char *name, const char *cmd, Diags *d)
{
	Func *f = NULL;
	const char *file = m->src.name;
	if (name) {
		f = ir_find_func(m, name);
		if (!f) {
			diag_file(d, DIAG_ERROR, file,
				  "no function '%s' in the module", name);
			return NULL;
		}
	} else if ((f = ir_find_func(m, "main")) == NULL) {
		for (int i = 0; i < m->nfuncs; i++) {
			Func *g = m->funcs[i];
			if (ir_func_num_input(g) < 0 || pass_is_transform(g))
				continue;
			if (f) {
				diag_file(d, DIAG_ERROR, file,
					  "several functions with num_input (%s, "
					  "%s): choose one with `rlx %s --func "
					  "NAME`", f->name, g->name, cmd);
				return NULL;
			}
			f = g;
		}
		if (!f) {
			diag_file(d, DIAG_ERROR, file, "no function `main` and "
				  "none with a num_input attribute");
			return NULL;
		}
	}
	if (ir_func_num_input(f) < 0) {
		diag_file(d, DIAG_ERROR, file,
			  "function '%s' has no num_input attribute: its inputs "
			  "cannot be told from its weights "
			  "(R.func_attr({\"num_input\": N}))", f->name);
		return NULL;
	}
	return f;
}

int
rt_lift_module(Module *m, const PassOptions *o, bool tidy, Diags *d)
{
	const Pass *list[8];
	int n = pass_lift_pipeline(list, o->bind.nbinds > 0, tidy);
	return pass_run(m, list, n, o, d, NULL, NULL);
}

int
rt_lift_tidy(Module *m, bool shared, const char *const *shared_funcs,
	     int nshared, bool rank_known, Diags *d)
{
	PassOptions o = {.lift = {shared, (const char **)shared_funcs, nshared,
				  rank_known},
			 .verify_each = true};
	return rt_lift_module(m, &o, true, d);
}

bool
rt_shared_serves(const char *const *list, int n, const char *fname, Diags *d)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], fname))
			return true;
	if (n)
		diag_file(d, DIAG_ERROR, NULL, "--shared: '%s' is not one of the "
			  "functions listed; the shared transform serves only "
			  "those", fname);
	return !n;
}

bool
rt_binds_load(const char *const *names, const char *const *values, int n,
	      PassBinding *bv, RtTensor **arrays, Diags *d)
{
	for (int i = 0; i < n; i++) {
		bv[i] = (PassBinding){.name = names[i], .value = values[i]};
		if (bv[i].value[0] != '@')
			continue;
		RtError e;
		if (!(arrays[i] = rt_npy_read(bv[i].value + 1, &e))) {
			diag_file(d, DIAG_ERROR, NULL, "--bind %s: %s", bv[i].name,
				  e.msg);
			return false;
		}
		bv[i].data = arrays[i]->data;
		bv[i].dtype = arrays[i]->dtype;
		bv[i].ndim = arrays[i]->ndim;
		bv[i].shape = arrays[i]->shape;
	}
	return true;
}

rlx_module *
rlx_lift(const char *filename, const char *text, size_t len,
	 const rlx_lift_options *o, rlx_diags *d)
{
	static const rlx_lift_options none = {0};
	o = o ? o : &none;
	PassBinding *bv = calloc((size_t)o->nbinds + 1, sizeof *bv);
	RtTensor **arrays = calloc((size_t)o->nbinds + 1, sizeof *arrays);
	if (!bv || !arrays)
		ir_bug("out of memory");
	Module *m = NULL;
	if (rt_binds_load(o->bind_names, o->bind_values, o->nbinds, bv, arrays, d) &&
	    (m = rlx_parse(filename, text, len, d))) {
		PassOptions po = {
			.lift = {.shared = o->shared,
				 .shared_funcs = (const char **)o->shared_funcs,
				 .nshared_funcs = o->nshared_funcs,
				 .consume_params = o->consume_params},
			.bind = {bv, o->nbinds},
			.verify_each = true};
		if (rt_lift_module(m, &po, o->tidy, d)) {
			rlx_module_free(m);
			m = NULL;
		}
	}
	for (int i = 0; i < o->nbinds; i++)
		rt_tensor_free(arrays[i]);
	free(arrays);
	free(bv);
	return m;
}

/* pass_run's `after` (ctx: the rlx_passes_options) as the caller's. */
static void
after_pass(const Pass *p, const Module *m, void *ctx)
{
	const rlx_passes_options *o = ctx;
	o->after(p->name, m, o->ctx);
}

int
rlx_run_passes_with(rlx_module *m, const char *passes,
		    const rlx_passes_options *o, rlx_diags *d)
{
	static const rlx_passes_options none = {0};
	o = o ? o : &none;
	PassBinding *bv = xcalloc((size_t)o->nbinds + 1, sizeof *bv);
	RtTensor **arrays = xcalloc((size_t)o->nbinds + 1, sizeof *arrays);
	int errors = 1;
	if (rt_binds_load(o->bind_names, o->bind_values, o->nbinds, bv, arrays,
			  d)) {
		PassOptions po = {.bind = {bv, o->nbinds}, .verify_each = true};
		errors = pass_run_names(m, passes, &po, d,
					o->after ? after_pass : NULL, (void *)o);
	}
	for (int i = 0; i < o->nbinds; i++)
		rt_tensor_free(arrays[i]);
	free(arrays);
	free(bv);
	return errors;
}

const char **
rt_lift_weight_names(Module *m, Func *f, bool shared,
		     const char *const *list, int nlist)
{
	Func *first = f;
	if (shared && nlist) {
		first = ir_find_func(m, list[0]);
	} else if (shared) {
		first = NULL;
		for (int i = 0; i < m->nfuncs; i++) {
			Func *g = m->funcs[i];
			if (ir_func_num_input(g) >= 0 && !pass_is_transform(g) &&
			    (!first || strcmp(g->name, first->name) < 0))
				first = g;
		}
	}
	int nin = first ? ir_func_num_input(first) : -1;
	if (nin < 0 || nin > first->nparams)
		return NULL;
	const char **names = ARENA_ARRAY(&m->arena, const char *,
					 first->nparams - nin + 1);
	for (int i = nin; i < first->nparams; i++)
		names[i - nin] = first->params[i]->name;
	return names;
}

void
rt_unbundle(Module *m, Func *t, const char *const *given, Diags *d)
{
	if (!pass_is_bundled(t))
		return;
	int n = t->params[0]->sinfo->nfields;
	const char **names = ARENA_ARRAY(&m->arena, const char *, n + 1);
	for (int i = 0; i < n; i++)
		names[i] = given ? given[i] : NULL;
	pass_weight_names(m, t, names);
	pass_unbundle_params(m, t, names, d);
}

RtProgram *
rt_compile_func(Module *m, const char *name, Diags *d)
{
	int errors = d->nerrors;
	const Source *old = d->src;
	RtProgram *p = rt_compile(m, name, d);
	d->src = old;
	if (p && d->nerrors != errors) {
		rt_program_free(p);
		p = NULL;
	}
	if (!p && d->nerrors == errors)
		diag_file(d, DIAG_ERROR, m->src.name, "cannot compile '%s'", name);
	return p;
}
