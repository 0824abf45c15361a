/*
 * pipeline.c — the pass table and the loop that runs passes in order.
 *
 * As in QBE and MLIR: the pipeline is data, a plain array of {name, fn};
 * there is no dependency solver. Analyses are recomputed by the passes that
 * need them.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* Each pass with its own options out of the pipeline's. */
static int
convert_ssa(Module *m, const PassOptions *o, Diags *d)
{
	(void)o;
	return pass_convert_ssa(m, d);
}

static int
canonicalize_bindings(Module *m, const PassOptions *o, Diags *d)
{
	(void)o;
	return pass_canonicalize_bindings(m, d);
}

static int
bind_params(Module *m, const PassOptions *o, Diags *d)
{
	return pass_bind_params(m, &o->bind, d);
}

static int
lift_transform_params(Module *m, const PassOptions *o, Diags *d)
{
	return pass_lift_transform_params(m, &o->lift, d);
}

static int
dead_code_elimination(Module *m, const PassOptions *o, Diags *d)
{
	(void)o;
	return pass_dead_code_elimination(m, d);
}

static const Pass passes[] = {
	{"convert-ssa", convert_ssa,
	 "make every variable and symbolic variable defined once, module-wide"},
	{"canonicalize-bindings", canonicalize_bindings,
	 "remove trivial bindings, keeping the human-readable names"},
	{"bind-params", bind_params,
	 "bind parameters or symbolic variables to constants (--bind)"},
	{"lift-transform-params", lift_transform_params,
	 "move weight pre-processing into F_transform_params"},
	{"dead-code-elimination", dead_code_elimination,
	 "remove unused pure bindings and uncalled private functions"},
};

const Pass *
pass_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(passes); i++)
		if (!strcmp(passes[i].name, name))
			return &passes[i];
	return NULL;
}

const char *
pass_suggest(const char *name)
{
	Suggest s = {.want = name};
	for (size_t i = 0; i < ARRAY_LEN(passes); i++)
		suggest_offer(&s, passes[i].name);
	return s.best;
}

const Pass *
pass_table(int *n)
{
	*n = (int)ARRAY_LEN(passes);
	return passes;
}

int
pass_run(Module *m, const Pass *const *list, int n, const PassOptions *o,
	 Diags *d, void (*after)(const Pass *p, const Module *m, void *ctx),
	 void *ctx)
{
	const Source *old = d->src;
	d->src = &m->src;
	int errors = 0;
	for (int i = 0; i < n && !errors; i++) {
		errors = list[i]->fn(m, o, d);
		if (errors)
			break;
		if (o->verify_each) {
			Diags vd = {.src = &m->src};
			if (verify_module(m, &vd)) {
				diag_error(d, (Span){0, 0, 0},
					   "internal error: the module is not "
					   "well formed after pass %s:",
					   list[i]->name);
				for (int k = 0; k < vd.n; k++)
					diag_note(d, vd.items[k].span, "%s",
						  vd.items[k].msg);
				diag_clear(&vd);
				free(vd.items);
				errors = 1;
				break;
			}
			free(vd.items);
		}
		if (after)
			after(list[i], m, ctx);
	}
	d->src = old;
	return errors;
}

int
pass_lift_pipeline(const Pass **out, bool with_bind, bool tidy)
{
	int n = 0;
	out[n++] = pass_lookup("convert-ssa");
	if (tidy) {
		out[n++] = pass_lookup("canonicalize-bindings");
		out[n++] = pass_lookup("dead-code-elimination");
	}
	if (with_bind)
		out[n++] = pass_lookup("bind-params");
	out[n++] = pass_lookup("lift-transform-params");
	if (tidy)
		out[n++] = pass_lookup("dead-code-elimination");
	return n;
}

int
pass_run_names(Module *m, const char *names, const PassOptions *o, Diags *d,
	       void (*after)(const Pass *p, const Module *m, void *ctx),
	       void *ctx)
{
	const Pass *list[64];
	int n = 0;
	size_t len = names ? strlen(names) : 0;
	char *copy = memcpy(xmalloc(len + 1), names ? names : "", len);
	copy[len] = 0;
	int errors = 0;
	for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "lift")) {
			const Pass *pl[8];
			int k = pass_lift_pipeline(pl, false, false);
			for (int i = 0; i < k && n < 64; i++)
				list[n++] = pl[i];
			continue;
		}
		const Pass *p = pass_lookup(tok);
		if (!p || n == 64) {
			const char *near = pass_suggest(tok);
			diag_error(d, (Span){0, 0, 0}, "unknown pass '%s'%s%s%s", tok,
				   near ? "; did you mean '" : "", near ? near : "",
				   near ? "'?" : "");
			errors++;
			continue;
		}
		list[n++] = p;
	}
	free(copy);
	if (errors)
		return errors;
	return pass_run(m, list, n, o, d, after, ctx);
}

/* rlx.h: passes by name, comma-separated; "lift" is the lift pipeline. */
int
rlx_run_passes(rlx_module *m, const char *names, rlx_diags *d)
{
	PassOptions o = {.verify_each = true};
	return pass_run_names(m, names, &o, d, NULL, NULL);
}

const char *
rlx_pass_name(int i)
{
	return i >= 0 && i < (int)ARRAY_LEN(passes) ? passes[i].name : NULL;
}

const char *
rlx_pass_doc(int i)
{
	return i >= 0 && i < (int)ARRAY_LEN(passes) ? passes[i].doc : NULL;
}
