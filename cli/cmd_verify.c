/*
 * cmd_verify.c — `rlx verify FILE --weights PATH`: the original function on
 * raw weights against the lifted one on transformed weights
 * (rlx_verify_lift, runtime/engine/verify_lift.c); prints the comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char verify_help[] =
	"usage: rlx verify FILE --weights PATH [--func NAME] [--input NAME=FILE.npy]...\n"
	"                  [--dim NAME=VALUE]... [--seed N] [--strict] [--shared[=F1,F2,...]]\n"
	"                  [--time] [--no-index-check]\n"
	"\n"
	"Runs the function F of FILE on the raw weights of PATH, then lifts FILE,\n"
	"runs F_transform_params on the same weights and the lifted F on its\n"
	"outputs (all in memory), on the same inputs, and prints the largest\n"
	"absolute and relative difference of each output. Exit 0 when every\n"
	"output agrees within its dtype's tolerance (relative 1e-5 for float32,\n"
	"1e-12 for float64, 1e-2 for float16 and bfloat16, 0.125 and 0.25 for\n"
	"float8_e4m3fn and float8_e5m2, exact for integers;\n"
	"an element passes when |a - b| <= tol * (|b| + max|b|)), else 1.\n"
	"\n"
	"  --weights PATH          the checkpoint (safetensors or an index)\n"
	"  --func NAME             the function (default: main)\n"
	"  --input NAME=FILE.npy   an input; inputs not given are random\n"
	"                          (floats N(0, 1), integers in [0, 4))\n"
	"  --dim NAME=VALUE        a symbolic input dimension (default 4)\n"
	"  --seed N                the seed of the random inputs (default 0)\n"
	"  --strict                checkpoint tensors that are no weight of the\n"
	"                          function are an error (else a warning)\n"
	"  --shared[=F1,F2,...]    lift as `rlx lift --shared`: F against the one\n"
	"                          transform_params (F among the listed functions)\n"
	"  --time                  print how long the verification took on stderr\n"
	"  --no-index-check        do not check that index tensors (R.take in mode\n"
	"                          \"fast\", the gather and scatter ops) are in range\n"
	"                          before they are used (as `rlx run --no-index-check`)\n";

typedef struct {
	const char *file, *ckpt;
	CliDims dims;
	bool time;
	CliList names, paths, shared; /* --input NAME=FILE, --shared=F1,... */
	rlx_verify_options o;
} Args;

/* Parses argv into a; an exit status when the command is done already. */
static int
parse_args(Args *a, int argc, char **argv)
{
	const char *v;
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(verify_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--strict")) {
			a->o.strict = true;
		} else if (!strcmp(argv[i], "--time")) {
			a->time = true;
		} else if (!strcmp(argv[i], "--no-index-check")) {
			a->o.no_index_check = true;
		} else if (cli_shared_option(argv[i], &a->o.shared, &a->shared)) {
			continue;
		} else if ((v = cli_weights_value(argc, argv, &i))) {
			if (!*v)
				return cli_usage_error("verify", "%s", "--weights needs a PATH");
			a->ckpt = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				return cli_usage_error("verify", "%s", "--func needs a NAME");
			a->o.func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--input"))) {
			char *eq = strchr(v, '=');
			if (!eq || eq == v || !eq[1])
				return cli_usage_error("verify",
					"--input needs NAME=FILE.npy, not '%s'", v);
			*eq = 0;
			cli_list_push(&a->names, v);
			cli_list_push(&a->paths, eq + 1);
		} else if ((v = cli_opt_value(argc, argv, &i, "--dim"))) {
			if (!cli_dim_add(&a->dims, (char *)v))
				return cli_usage_error("verify",
					"--dim needs NAME=VALUE (a non-negative integer), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--seed"))) {
			if (!cli_parse_u64(v, &a->o.seed))
				return cli_usage_error("verify",
					"--seed needs a non-negative integer, not '%s'", v);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_unknown_option("verify", verify_help, argv[i]);
		} else if (a->file) {
			return cli_usage_error("verify", "unexpected argument %s", argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return cli_usage_error("verify", "%s", "needs a FILE");
	if (!a->ckpt)
		return cli_usage_error("verify", "%s", "needs --weights PATH");
	return -1;
}

int
cmd_verify(int argc, char **argv)
{
	Args a = {0};
	int status = parse_args(&a, argc, argv);
	rlx_diags *d = status < 0 ? cli_diags("verify") : NULL;
	size_t len;
	const char *name;
	char *text = d ? cli_read_text(d, a.file, &len, &name) : NULL;
	if (d && !text)
		status = cli_finish("verify", EXIT_INPUT, d, true);
	if (status < 0) {
		a.o.dims = (rlx_dims){a.dims.names, a.dims.values, a.dims.n};
		a.o.input_names = a.names.items;
		a.o.input_paths = a.paths.items;
		a.o.ninputs = a.names.n;
		a.o.shared_funcs = a.shared.items;
		a.o.nshared_funcs = a.shared.n;
		rlx_verify_result res;
		double t0 = cli_now();
		status = rlx_verify_lift(name, text, len, a.ckpt, &a.o, &res, d);
		double t_all = cli_now() - t0;
		status = cli_finish("verify", status, d, true);
		if (a.time)
			fprintf(stderr, "rlx verify --time:\n"
				"  total    %8.3f s  (parse, lift, both runs, "
				"compare)\n", t_all);
		if (status == EXIT_OK) {
			fputs(res.report ? res.report : "", stdout);
			printf("%s\n", res.agree
			       ? "verify: the lifted module agrees with the original"
			       : "verify: the lifted module DIFFERS from the original");
			status = res.agree ? EXIT_OK : EXIT_INPUT;
		}
		free(res.report);
	}
	free(text);
	cli_dims_free(&a.dims);
	cli_list_free(&a.names);
	cli_list_free(&a.paths);
	cli_list_free(&a.shared);
	return status;
}
