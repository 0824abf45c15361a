/*
 * cmd_dump.c — `rlx dump FILE [--passes P,...] [--print-after-all] [--format F]`:
 * the module as parsed, or after passes, as TVMScript, Graphviz or JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "pass.h"
#include "rt_io.h"
#include "transform.h"
#include "cli.h"

static const char dump_help[] =
	"usage: rlx dump FILE [--passes P1,P2,...] [--print-after-all]\n"
	"                [--bind NAME=VALUE]... [--format script|dot|json] [--tvm-names]\n"
	"                [--tir-spelling main|release]\n"
	"\n"
	"Prints the module as parsed: normalized (nested calls bound to\n"
	"variables), with every binding's struct info, in canonical TVMScript.\n"
	"\n"
	"  --passes P1,P2,...  run these passes in order, then print\n"
	"  --print-after-all   print the module after each pass, under a line\n"
	"                      `# after PASS-NAME` (without --passes: once, as\n"
	"                      parsed)\n"
	"  --bind NAME=VALUE   the value bind-params gives a scalar parameter or a\n"
	"                      symbolic variable (repeatable); VALUE @FILE.npy binds\n"
	"                      a tensor parameter to the array in FILE.npy\n"
	"  --format FORMAT     script (TVMScript, the default), dot (the dataflow\n"
	"                      graph for Graphviz, with the bindings that\n"
	"                      lift-transform-params would move drawn apart) or\n"
	"                      json (the IR for tools)\n"
	"  --tvm-names         write names TVM's parser accepts (dots become _)\n"
	"  --tir-spelling S    prim_funcs as TVM main writes them (main, the\n"
	"                      default: T.sblock, s_tir=True) or as TVM releases\n"
	"                      do (release: T.block, T.alloc_buffer)\n"
	"\n"
	"passes:\n";

static void
print_help_with_passes(const char *text)
{
	fputs(text, stdout);
	int n;
	const Pass *p = pass_table(&n);
	for (int i = 0; i < n; i++)
		printf("  %-24s %s\n", p[i].name, p[i].doc);
}

typedef enum { FMT_SCRIPT, FMT_DOT, FMT_JSON } Format;

typedef struct {
	rlx_print_options opts;
	Format format;
	bool print_each;
	TirSpelling tir;
} DumpCtx;

/* Prints m to stdout in the chosen format. */
static void
print_as(const Module *m, const DumpCtx *c)
{
	StrBuf b = {0};
	if (c->format == FMT_JSON) {
		print_module_json(&b, m);
	} else if (c->format == FMT_DOT) {
		graph_dot(&b, (Module *)m);
	} else {
		PrintOpts o = {.tvm_names = c->opts.tvm_names, .tir = c->tir};
		print_module(&b, m, &o);
	}
	fputs(b.p ? b.p : "", stdout);
	sb_free(&b);
}

static void
print_after(const Pass *p, const Module *m, void *ctx)
{
	DumpCtx *c = ctx;
	if (!c->print_each)
		return;
	printf("# after %s\n", p->name);
	print_as(m, c);
}

/* Splits "a,b,c" into pass pointers; reports unknown names. */
static int
parse_pass_list(const char *cmd, char *list, const Pass **out, int max)
{
	int n = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		const Pass *p = pass_lookup(tok);
		if (!p) {
			const char *near = pass_suggest(tok);
			if (near)
				cli_usage_error(cmd, "unknown pass '%s'; did you mean '%s'?",
						tok, near);
			else
				cli_usage_error(cmd, "unknown pass '%s'", tok);
			return -1;
		}
		if (n == max) {
			cli_usage_error(cmd, "%s", "too many passes");
			return -1;
		}
		out[n++] = p;
	}
	return n;
}

int
cmd_dump(int argc, char **argv)
{
	const char *file = NULL;
	DumpCtx ctx = {0};
	const Pass *list[64];
	int npasses = 0;
	const char *val;
	Vec names = {0}, values = {0}; /* --bind NAME=VALUE */
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			print_help_with_passes(dump_help);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			ctx.opts.tvm_names = true;
		} else if (!strcmp(argv[i], "--print-after-all")) {
			ctx.print_each = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--tir-spelling"))) {
			if (!strcmp(val, "main"))
				ctx.tir = TIR_MAIN;
			else if (!strcmp(val, "release"))
				ctx.tir = TIR_RELEASE;
			else
				return cli_usage_error("dump", "unknown TIR spelling '%s' "
						   "(main or release)", val);
		} else if ((val = cli_opt_value(argc, argv, &i, "--bind"))) {
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1])
				return cli_usage_error("dump", "%s", "--bind needs NAME=VALUE");
			*eq = 0;
			vec_push(&names, (void *)val);
			vec_push(&values, eq + 1);
		} else if ((val = cli_opt_value(argc, argv, &i, "--format"))) {
			if (!strcmp(val, "script"))
				ctx.format = FMT_SCRIPT;
			else if (!strcmp(val, "dot"))
				ctx.format = FMT_DOT;
			else if (!strcmp(val, "json"))
				ctx.format = FMT_JSON;
			else
				return cli_usage_error("dump", "unknown format '%s' "
						   "(script, dot or json)", val);
		} else if ((val = cli_opt_value(argc, argv, &i, "--passes"))) {
			if (!*val)
				return cli_usage_error("dump", "%s", "--passes needs a list");
			npasses = parse_pass_list("dump", (char *)val, list, 64);
			if (npasses < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_unknown_option("dump", dump_help, argv[i]);
		} else if (file) {
			return cli_usage_error("dump", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return cli_usage_error("dump", "%s", "needs a FILE");
	rlx_module *m = cli_load_module("dump", file);
	if (!m)
		return EXIT_INPUT;
	int status = EXIT_OK;
	if (npasses) {
		rlx_diags *d = rlx_diags_new();
		PassBinding *bv = calloc((size_t)names.n + 1, sizeof *bv);
		RtTensor **arrays = calloc((size_t)names.n + 1, sizeof *arrays);
		PassOptions o = {.verify_each = true, .bind = {bv, names.n}};
		if (!bv || !arrays ||
		    !rt_binds_load((const char *const *)names.items,
				   (const char *const *)values.items, names.n, bv,
				   arrays, d) ||
		    pass_run(m, list, npasses, &o, d, print_after, &ctx))
			status = EXIT_INPUT;
		rlx_diags_print(d, stderr);
		rlx_diags_free(d);
		for (int i = 0; arrays && i < names.n; i++)
			rt_tensor_free(arrays[i]);
		free(arrays);
		free(bv);
	}
	/* with --print-after-all each pass printed it; without passes,
	 * the module as parsed, once */
	if (status == EXIT_OK && (!ctx.print_each || !npasses))
		print_as(m, &ctx);
	rlx_module_free(m);
	vec_free(&names);
	vec_free(&values);
	return status;
}
