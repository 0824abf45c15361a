/*
 * api.c — the public interface (rlx.h) over the stages.
 */
#include <stdlib.h>

#include <string.h>

#include "ir.h"
#include "pass.h"

rlx_module *
rlx_parse(const char *filename, const char *text, size_t len, rlx_diags *d)
{
	Module *m = parse_module(filename, text, len, d);
	if (!m)
		return NULL;
	d->src = &m->src;
	int errors = infer_module(m, d);
	if (!errors)
		errors = verify_module(m, d);
	d->src = NULL;
	if (errors) {
		ir_module_free(m);
		return NULL;
	}
	return m;
}

void
rlx_module_free(rlx_module *m)
{
	ir_module_free(m);
}

int
rlx_verify(rlx_module *m, rlx_diags *d)
{
	const Source *old = d->src;
	d->src = &m->src;
	int n = verify_module(m, d);
	d->src = old;
	return n;
}

char *
rlx_print(const rlx_module *m, const rlx_print_options *opts)
{
	PrintOpts o = {0};
	if (opts)
		o.tvm_names = opts->tvm_names;
	StrBuf b = {0};
	print_module(&b, m, &o);
	return sb_take(&b);
}

bool
rlx_equal(const rlx_module *a, const rlx_module *b, bool names, char **why)
{
	Span sa, sb;
	char *msg = NULL;
	bool eq = equal_modules(a, b, names, &sa, &sb, &msg);
	if (!eq && why) {
		StrBuf s = {0};
		sb_printf(&s, "%s:%d:%d: differs from %s:%d:%d: %s", a->src.name,
			  sa.line, sa.col, b->src.name, sb.line, sb.col,
			  msg ? msg : "modules differ");
		*why = sb_take(&s);
	}
	free(msg);
	return eq;
}

const char *
rlx_version(void)
{
	return RLX_VERSION;
}

int
rlx_run_passes(rlx_module *m, const char *passes, rlx_diags *d)
{
	const Pass *list[64];
	int n = 0;
	char *copy = strdup(passes ? passes : "");
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
			diag_error(d, (Span){0, 0, 0}, "unknown pass '%s'", tok);
			errors++;
			continue;
		}
		list[n++] = p;
	}
	free(copy);
	if (errors)
		return errors;
	PassOptions o = {.verify_each = true};
	return pass_run(m, list, n, &o, d, NULL, NULL);
}
