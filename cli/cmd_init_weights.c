/*
 * cmd_init_weights.c — `rlx init-weights FILE -o OUT.safetensors`: seeded
 * random weights for a function's parameters (rlx_init_weights,
 * runtime/engine/init_weights.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char init_help[] =
	"usage: rlx init-weights FILE [--func NAME] [--seed N] [--dim NAME=VALUE]...\n"
	"                        -o OUT.safetensors\n"
	"\n"
	"Writes deterministic random weights for the weight parameters of a\n"
	"function (those after num_input), named exactly as the parameters\n"
	"(dots included), with their dtypes and shapes. Floats are N(0, 0.02),\n"
	"integers uniform in [0, 16), bool 0 or 1. Each tensor's values depend\n"
	"only on the seed and its name. The file is written atomically.\n"
	"\n"
	"  --func NAME       the function (default: main, or the only function\n"
	"                    with num_input)\n"
	"  --seed N          the seed (default 0)\n"
	"  --dim NAME=VALUE  the value of a symbolic weight dimension (repeatable)\n"
	"  -o OUT            the safetensors file to write\n";

int
cmd_init_weights(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *v;
	rlx_init_options o = {0};
	CliDims dims = {0};
	int status = -1;
	for (int i = 1; i < argc && status < 0; i++) {
		if (cli_is_help(argv[i])) {
			fputs(init_help, stdout);
			status = EXIT_OK;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				status = cli_usage_error("init-weights", "%s", "--func needs a NAME");
			o.func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--seed"))) {
			if (!cli_parse_u64(v, &o.seed))
				status = cli_usage_error("init-weights",
					"--seed needs a non-negative integer, not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--dim"))) {
			if (!cli_dim_add(&dims, (char *)v))
				status = cli_usage_error("init-weights",
					"--dim needs NAME=VALUE (a non-negative integer), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*v)
				status = cli_usage_error("init-weights", "%s", "-o needs a file");
			out = v;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_unknown_option("init-weights", init_help, argv[i]);
		} else if (file) {
			status = cli_usage_error("init-weights", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status < 0 && !file)
		status = cli_usage_error("init-weights", "%s", "needs a FILE");
	if (status < 0 && !out)
		status = cli_usage_error("init-weights", "%s", "needs -o OUT.safetensors");
	if (status < 0) {
		rlx_diags *d = cli_diags("init-weights");
		size_t len;
		const char *name;
		char *text = cli_read_text(d, file, &len, &name);
		o.dims = (rlx_dims){dims.names, dims.values, dims.n};
		status = text ? rlx_init_weights(name, text, len, out, &o, d)
			      : EXIT_INPUT;
		status = cli_finish("init-weights", status, d, true);
		free(text);
	}
	cli_dims_free(&dims);
	return status;
}
