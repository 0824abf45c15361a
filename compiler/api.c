/*
 * api.c — the public interface (rlx.h) over the IR: modules, the verifier,
 * the printers, equality. Each layer implements its own part of rlx.h:
 * rlx_parse is grammar/parse.c's, rlx_run_passes and the pass table
 * passes/pipeline.c's, rlx_print_dot passes/graph.c's; the diagnostics
 * are compiler/diag.c's, rlx_suggest compiler/util.c's.
 */
#include <stdlib.h>

#include "ir.h"

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
	if (opts) {
		o.tvm_names = opts->tvm_names;
		o.tir = opts->tir_release ? TIR_RELEASE : TIR_MAIN;
	}
	StrBuf b = {0};
	print_module(&b, m, &o);
	return sb_take(&b);
}

char *
rlx_print_json(const rlx_module *m)
{
	StrBuf b = {0};
	print_module_json(&b, m);
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
