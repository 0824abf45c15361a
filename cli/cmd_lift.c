/*
 * cmd_lift.c — `rlx lift FILE [--shared...] [--bind NAME=VALUE]... [--tidy]
 * [-o OUT]`: the lift pipeline, then the module printed.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "pass.h"
#include "rt.h"
#include "cli.h"

static const char lift_help[] =
	"usage: rlx lift FILE [--shared | --shared=F1,F2,...] [--bind NAME=VALUE]... [--tidy] [-o OUT]\n"
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
	"  --shared           one transform_params shared by all lifted functions\n"
	"  --shared=F1,F2     one shared transform for the named functions\n"
	"  --bind NAME=VALUE  fix a scalar parameter or a symbolic variable at\n"
	"                     compile time (repeatable); VALUE @FILE.npy binds a\n"
	"                     tensor parameter to the array in FILE.npy\n"
	"  -o OUT             write the module to OUT instead of standard output\n"
	"  --tvm-names        write names TVM's parser accepts (dots become _)\n";

/* Writes text to path atomically (temporary file, then rename). */
static bool
write_file_atomic(const char *path, const char *text)
{
	RtError e;
	bool ok = rt_file_put(path, text, strlen(text), &e);
	if (!ok)
		fprintf(stderr, "rlx: error: %s\n", e.msg);
	return ok;
}

int
cmd_lift(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	rlx_print_options popts = {0};
	PassOptions o = {.verify_each = true};
	Vec binds = {0}, shared = {0};
	bool tidy = false;
	int status = EXIT_OK;
	const char *val;
	for (int i = 1; i < argc && status == EXIT_OK; i++) {
		if (cli_is_help(argv[i])) {
			fputs(lift_help, stdout);
			goto done;
		} else if (!strcmp(argv[i], "--shared")) {
			o.shared = true;
		} else if (!strcmp(argv[i], "--tidy")) {
			tidy = true;
		} else if (!strncmp(argv[i], "--shared=", 9)) {
			o.shared = true;
			for (char *t = strtok(argv[i] + 9, ","); t; t = strtok(NULL, ","))
				vec_push(&shared, t);
		} else if ((val = cli_opt_value(argc, argv, &i, "--bind"))) {
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1]) {
				status = cli_usage_error("lift", "%s", "--bind needs NAME=VALUE");
				break;
			}
			*eq = 0;
			PassBinding *b = malloc(sizeof *b);
			*b = (PassBinding){.name = val, .value = eq + 1};
			vec_push(&binds, b);
		} else if ((val = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*val) {
				status = cli_usage_error("lift", "%s", "-o needs a file");
				break;
			}
			out = val;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			popts.tvm_names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_unknown_option("lift", lift_help, argv[i]);
		} else if (file) {
			status = cli_usage_error("lift", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status == EXIT_OK && !file)
		status = cli_usage_error("lift", "%s", "needs a FILE");
	if (status != EXIT_OK)
		goto done;
	PassBinding *bv = calloc((size_t)binds.n + 1, sizeof *bv);
	RtTensor **arrays = calloc((size_t)binds.n + 1, sizeof *arrays);
	for (int i = 0; i < binds.n; i++) {
		bv[i] = *(PassBinding *)binds.items[i];
		if (bv[i].value[0] != '@')
			continue;
		RtError e;
		arrays[i] = rt_npy_read(bv[i].value + 1, &e);
		if (!arrays[i]) {
			fprintf(stderr, "rlx lift: error: --bind %s: %s\n", bv[i].name,
				e.msg);
			status = EXIT_INPUT;
			goto free_arrays;
		}
		bv[i].data = arrays[i]->data;
		bv[i].dtype = arrays[i]->dtype;
		bv[i].ndim = arrays[i]->ndim;
		bv[i].shape = arrays[i]->shape;
	}
	o.binds = bv;
	o.nbinds = binds.n;
	o.shared_funcs = (const char **)shared.items;
	o.nshared_funcs = shared.n;

	rlx_module *m = cli_load_module(file);
	if (!m) {
		status = EXIT_INPUT;
	} else {
		const Pass *list[8];
		int n = pass_lift_pipeline(list, o.nbinds > 0, tidy);
		rlx_diags *d = rlx_diags_new();
		if (pass_run(m, list, n, &o, d, NULL, NULL))
			status = EXIT_INPUT;
		rlx_diags_print(d, stderr);
		rlx_diags_free(d);
		if (status == EXIT_OK) {
			char *text = rlx_print(m, &popts);
			if (out) {
				if (!write_file_atomic(out, text))
					status = EXIT_INPUT;
			} else {
				fputs(text, stdout);
			}
			free(text);
		}
		rlx_module_free(m);
	}
free_arrays:
	for (int i = 0; i < binds.n; i++)
		rt_tensor_free(arrays[i]);
	free(arrays);
	free(bv);
done:
	for (int i = 0; i < binds.n; i++)
		free(binds.items[i]);
	vec_free(&binds);
	vec_free(&shared);
	return status;
}
