/*
 * cmd_lift.c — `rlx lift FILE [--shared...] [--bind NAME=VALUE]... [--tidy]
 * [-o OUT]`: the lift pipeline (rlx_lift, runtime/engine/func.c), then the module
 * printed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char lift_help[] =
	"usage: rlx lift FILE [--shared | --shared=F1,F2,...] [--bind NAME=VALUE]... [--tidy] [--consume-params] [-o OUT]\n"
	"\n"
	"Splits weight pre-processing from inference, as TVM's LiftTransformParams:\n"
	"for every function with a num_input attribute, the bindings computable\n"
	"from weights alone move into F_transform_params(params), params being one\n"
	"tuple of the weights, and F takes its results as parameters. Runs\n"
	"convert-ssa, bind-params (with --bind) and lift-transform-params, then\n"
	"prints the module.\n"
	"\n"
	"  --tidy             rlx's clean-ups around the lift (not TVM's):\n"
	"                     canonicalize-bindings and dead-code-elimination\n"
	"                     before, dead-code-elimination after (as `rlx\n"
	"                     transform` lifts)\n"
	"  --consume-params   each *transform_params releases a weight after\n"
	"                     reading it (R.call_pure_packed(\"vm.builtin.\n"
	"                     tuple_reset_item\", params, i)), as TVM's\n"
	"                     relax.lift_transform_params.consume_params\n"
	"  --shared           one transform_params shared by all lifted functions\n"
	"  --shared=F1,F2     one shared transform for the named functions\n"
	"  --bind NAME=VALUE  fix a scalar parameter or a symbolic variable at\n"
	"                     compile time (repeatable); VALUE @FILE.npy binds a\n"
	"                     tensor parameter to the array in FILE.npy\n"
	"  -o OUT             write the module to OUT instead of standard output\n"
	"  --tvm-names        write names TVM's parser accepts (dots become _)\n";

/* What the command needs. */
typedef struct {
	const char *file, *out;
	rlx_print_options popts;
	rlx_lift_options o;
	CliList names, values, shared; /* --bind NAME=VALUE, --shared=F1,... */
} Args;

/* Parses argv into a; an exit status when the command is done already. */
static int
parse_args(Args *a, int argc, char **argv)
{
	const char *val;
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(lift_help, stdout);
			return EXIT_OK;
		} else if (cli_shared_option(argv[i], &a->o.shared, &a->shared)) {
			continue;
		} else if (!strcmp(argv[i], "--tidy")) {
			a->o.tidy = true;
		} else if (!strcmp(argv[i], "--consume-params")) {
			a->o.consume_params = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--bind"))) {
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1])
				return cli_usage_error("lift", "%s", "--bind needs NAME=VALUE");
			*eq = 0;
			cli_list_push(&a->names, val);
			cli_list_push(&a->values, eq + 1);
		} else if ((val = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*val)
				return cli_usage_error("lift", "%s", "-o needs a file");
			a->out = val;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			a->popts.tvm_names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_unknown_option("lift", lift_help, argv[i]);
		} else if (a->file) {
			return cli_usage_error("lift", "unexpected argument %s", argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return cli_usage_error("lift", "%s", "needs a FILE");
	return -1;
}

/* Writes the lifted module to a->out (atomically) or standard output. */
static int
put_module(const Args *a, const rlx_module *m, rlx_diags *d)
{
	char *text = rlx_print(m, &a->popts);
	int status = EXIT_OK;
	if (!a->out)
		fputs(text, stdout);
	else
		status = rlx_write_file(a->out, text, strlen(text), d);
	free(text);
	return status;
}

int
cmd_lift(int argc, char **argv)
{
	Args a = {0};
	int status = parse_args(&a, argc, argv);
	if (status < 0) {
		rlx_diags *d = cli_diags("lift");
		size_t len;
		const char *name;
		char *text = cli_read_text(d, a.file, &len, &name);
		a.o.bind_names = a.names.items;
		a.o.bind_values = a.values.items;
		a.o.nbinds = a.names.n;
		a.o.shared_funcs = a.shared.items;
		a.o.nshared_funcs = a.shared.n;
		rlx_module *m = text ? rlx_lift(name, text, len, &a.o, d) : NULL;
		status = cli_finish("lift", m ? EXIT_OK : EXIT_INPUT, d, true);
		if (m) { /* after the lift's warnings */
			d = cli_diags("lift");
			status = cli_finish("lift", put_module(&a, m, d), d, true);
		}
		rlx_module_free(m);
		free(text);
	}
	cli_list_free(&a.names);
	cli_list_free(&a.values);
	cli_list_free(&a.shared);
	return status;
}
