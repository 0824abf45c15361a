/*
 * func.c — what the engines (transform.c, init_weights.c, verify_lift.c)
 * do with a module before running it: pick the function, lift it, compile
 * it, each reporting into a Diags.
 */
#include <string.h>

#include "pass.h"
#include "transform.h"

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
rt_lift_module(Module *m, bool shared, const char *const *shared_funcs,
	       int nshared, Diags *d)
{
	PassOptions o = {.verify_each = true, .shared = shared,
			 .shared_funcs = (const char **)shared_funcs,
			 .nshared_funcs = nshared};
	const Pass *list[8];
	int n = pass_lift_pipeline(list, false);
	return pass_run(m, list, n, &o, d, NULL, NULL);
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
