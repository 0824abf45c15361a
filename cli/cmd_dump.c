/*
 * cmd_dump.c — `rlx dump FILE [--passes P,...] [--print-after-all] [--format F]`:
 * the module as parsed, or after passes, as TVMScript, Graphviz or JSON.
 */
#include <stdlib.h>
#include <string.h>

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
	for (int i = 0; rlx_pass_name(i); i++)
		printf("  %-24s %s\n", rlx_pass_name(i), rlx_pass_doc(i));
}

typedef enum { FMT_SCRIPT, FMT_DOT, FMT_JSON } Format;

typedef struct {
	rlx_print_options opts;
	Format format;
	bool print_each;
} DumpCtx;

/* Prints m to stdout in the chosen format. */
static void
print_as(const rlx_module *m, const DumpCtx *c)
{
	char *text = c->format == FMT_JSON ? rlx_print_json(m)
		     : c->format == FMT_DOT ? rlx_print_dot(m)
					    : rlx_print(m, &c->opts);
	fputs(text, stdout);
	free(text);
}

static void
print_after(const char *pass, const rlx_module *m, void *ctx)
{
	DumpCtx *c = ctx;
	if (!c->print_each)
		return;
	printf("# after %s\n", pass);
	print_as(m, c);
}

/* Checks the pass names of "a,b,c": how many there are, or -1 after a
 * usage error naming the first unknown one. */
static int
check_pass_list(const char *cmd, const char *list)
{
	const char *known[64];
	int nknown = 0;
	while (nknown < 64 && rlx_pass_name(nknown)) {
		known[nknown] = rlx_pass_name(nknown);
		nknown++;
	}
	int n = 0;
	for (const char *p = list; *p; ) {
		size_t len = strcspn(p, ",");
		if (len) {
			char *name = strndup(p, len);
			bool found = false;
			for (int i = 0; name && i < nknown && !found; i++)
				found = !strcmp(known[i], name);
			const char *near = found || !name ? NULL
					   : rlx_suggest(name, known, nknown);
			if (!found && near)
				cli_usage_error(cmd, "unknown pass '%s'; did you mean '%s'?",
						name, near);
			else if (!found)
				cli_usage_error(cmd, "unknown pass '%s'",
						name ? name : "?");
			free(name);
			if (!found)
				return -1;
			if (n++ == 64) {
				cli_usage_error(cmd, "%s", "too many passes");
				return -1;
			}
		}
		p += len + (p[len] == ',');
	}
	return n;
}

int
cmd_dump(int argc, char **argv)
{
	const char *file = NULL, *passes = NULL;
	DumpCtx ctx = {0};
	const char *val;
	CliList names = {0}, values = {0}; /* --bind NAME=VALUE */
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			print_help_with_passes(dump_help);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			ctx.opts.tvm_names = true;
		} else if (!strcmp(argv[i], "--print-after-all")) {
			ctx.print_each = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--tir-spelling"))) {
			if (!strcmp(val, "main") || !strcmp(val, "release"))
				ctx.opts.tir_release = !strcmp(val, "release");
			else
				return cli_usage_error("dump", "unknown TIR spelling '%s' "
						   "(main or release)", val);
		} else if ((val = cli_opt_value(argc, argv, &i, "--bind"))) {
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1])
				return cli_usage_error("dump", "%s", "--bind needs NAME=VALUE");
			*eq = 0;
			cli_list_push(&names, val);
			cli_list_push(&values, eq + 1);
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
			int n = check_pass_list("dump", val);
			if (n < 0)
				return EXIT_USAGE;
			passes = n ? val : NULL;
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
	if (passes) {
		rlx_diags *d = cli_diags("dump");
		rlx_passes_options o = {names.items, values.items, names.n,
					print_after, &ctx};
		if (rlx_run_passes_with(m, passes, &o, d))
			status = EXIT_INPUT;
		status = cli_finish("dump", status, d, true);
	}
	/* with --print-after-all each pass printed it; without passes,
	 * the module as parsed, once */
	if (status == EXIT_OK && (!ctx.print_each || !passes))
		print_as(m, &ctx);
	rlx_module_free(m);
	cli_list_free(&names);
	cli_list_free(&values);
	return status;
}
