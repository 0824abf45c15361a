/*
 * cmd_run.c — `rlx run FILE --params PATH [--input NAME=FILE.npy]...
 * [--func NAME] [-o OUT.npy | -o DIR]`: the arguments, then rlx_run
 * (runtime/engine/run.c: checks, binding, execution, and the result
 * written as .npy files under temporary names renamed into place), or the
 * result printed without -o.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char run_help[] =
	"usage: rlx run FILE|DIR [--params PATH] [--input NAME=FILE.npy]...\n"
	"               [--func NAME] [--rank K] [--strict] [-o OUT.npy | -o DIR]\n"
	"               [--time] [--no-cache] [--print-plan] [--no-index-check]\n"
	"\n"
	"Runs a function of FILE (default main) on weights and .npy inputs.\n"
	"Parameters after the num_input attribute are weights, bound by exact\n"
	"name from --params; the others are inputs (all of them without\n"
	"num_input). A DIR written by `rlx transform` holds its lifted module\n"
	"(DIR/model.py) and its weights: `rlx run DIR` runs them.\n"
	"\n"
	"  --params PATH        a safetensors file, a sharded checkpoint\n"
	"                       (*.safetensors.index.json) or a tensor-cache\n"
	"                       directory; needed when the function has weights\n"
	"  --input NAME=FILE    the input parameter NAME from a .npy file\n"
	"                       (an R.Shape input from a 1-d int64 array, an\n"
	"                       R.Prim input from a 0-d array); repeatable\n"
	"  --func NAME          the function to run (default main)\n"
	"  --strict             checkpoint tensors that are no weight of the\n"
	"                       function are an error (else a warning)\n"
	"  --rank K             run as worker K of a tensor-parallel model\n"
	"                       (its NAME_shard-K weights; collectives over\n"
	"                       this one process); under mpirun the worker is\n"
	"                       the MPI rank\n"
	"  -o OUT.npy           write a tensor result to OUT.npy\n"
	"  -o DIR               write a tuple result as DIR/0.npy, DIR/1.npy,\n"
	"                       ... (a nested tuple as DIR/1/0.npy ...) and\n"
	"                       DIR/fields.json, each field's file and name\n"
	"  --time               print where the run went on stderr: parse,\n"
	"                       plan, JIT (compiled or from the code cache),\n"
	"                       load, execute, write\n"
	"  --no-cache           compile every kernel, neither reading nor\n"
	"                       writing the code cache (as RLX_NO_CACHE=1)\n"
	"  --no-index-check     do not check that index tensors (R.take in mode\n"
	"                       \"fast\", the gather and scatter ops) and the\n"
	"                       indices of prim_funcs are in range: faster; an\n"
	"                       index out of range then reads a clamped position\n"
	"  --print-plan         print how the executor runs the function (per\n"
	"                       binding: its kernel, or the kernel it is fused\n"
	"                       into) on stdout, and stop: no weights or\n"
	"                       inputs needed\n"
	"\n"
	"Without -o the result is printed. Shapes are written as int64 arrays,\n"
	"bfloat16 tensors as float32 (.npy has no bfloat16). Every mismatch\n"
	"between the function and the files is reported with the tensor's\n"
	"name, its expected and its actual shape and dtype; exit status 1.\n";

/* What the command needs. */
typedef struct {
	const char *file, *params;
	char *dir_model;      /* FILE/model.py when FILE is a cache */
	CliList names, paths; /* --input NAME=PATH */
	bool rank_given;
	bool time;            /* --time */
	rlx_run_options o;
} Cmd;

/* ------------------------------------------------------------ arguments */

/* Parses the command line into c; an exit status, or -1 to go on. */
static int
parse_args(Cmd *c, int argc, char **argv)
{
	c->o.rank = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val;
		if (cli_is_help(a)) {
			fputs(run_help, stdout);
			return EXIT_OK;
		}
		if ((val = cli_weights_value(argc, argv, &i))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "--params");
			if (c->params)
				return cli_usage_error("run", "%s", "--params given twice");
			c->params = val;
		} else if (!strcmp(a, "--strict")) {
			c->o.strict = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "--func");
			c->o.func = val;
		} else if ((val = cli_opt_value(argc, argv, &i, "--rank"))) {
			char *end;
			long k = strtol(val, &end, 10);
			if (!*val || *end || k < 0 || k > 1000000)
				return cli_usage_error("run", "--rank needs a worker "
						       "number, not '%s'", val);
			if (c->rank_given)
				return cli_usage_error("run", "%s", "--rank given twice");
			c->o.rank = (int)k;
			c->rank_given = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "-o");
			if (c->o.out)
				return cli_usage_error("run", "%s", "-o given twice");
			c->o.out = val;
		} else if ((val = cli_opt_value(argc, argv, &i, "--input"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "--input");
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1])
				return cli_usage_error("run", "--input needs NAME=FILE.npy, "
						       "not '%s'", val);
			*eq = 0;
			for (int k = 0; k < c->names.n; k++)
				if (!strcmp(c->names.items[k], val))
					return cli_usage_error("run", "input '%s' given twice",
							       val);
			cli_list_push(&c->names, val);
			cli_list_push(&c->paths, eq + 1);
		} else if (!strcmp(a, "--time")) {
			c->time = true;
		} else if (!strcmp(a, "--print-plan")) {
			c->o.plan_only = true;
		} else if (!strcmp(a, "--no-index-check")) {
			c->o.no_index_check = true;
		} else if (!strcmp(a, "--no-cache")) {
			setenv("RLX_NO_CACHE", "1", 1); /* read by the JIT */
		} else if (a[0] == '-' && a[1]) {
			return cli_unknown_option("run", run_help, a);
		} else if (c->file) {
			return cli_usage_error("run", "unexpected argument %s", a);
		} else {
			c->file = a;
		}
	}
	if (!c->file)
		return cli_usage_error("run", "%s", "needs a FILE");
	/* `rlx run DIR`: a tensor cache that holds its module (rlx transform) */
	struct stat st;
	if (strcmp(c->file, "-") && stat(c->file, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (asprintf(&c->dir_model, "%s/model.py", c->file) < 0) {
			c->dir_model = NULL;
			fputs("rlx run: out of memory\n", stderr);
			return EXIT_INPUT;
		}
		if (!c->params)
			c->params = c->file;
		c->file = c->dir_model;
	}
	return -1;
}

/* ------------------------------------------------------------ command */

/* --time: the phases of the run on stderr (total: since the command
 * started). */
static void
print_times(const rlx_run_result *r, double t_read, double total)
{
	fprintf(stderr,
		"rlx run --time:\n"
		"  parse    %8.3f s  (read, parse, infer, verify)\n"
		"  plan     %8.3f s  (executor plan, kernel IR)\n"
		"  jit      %8.3f s  (%d module%s compiled, %d from the code cache)\n"
		"  load     %8.3f s  (inputs, weights)\n"
		"  execute  %8.3f s\n"
		"  write    %8.3f s\n"
		"  total    %8.3f s\n",
		t_read + r->t_parse, r->t_plan, r->t_jit, r->jit_compiled,
		r->jit_compiled == 1 ? "" : "s", r->jit_cached, r->t_load,
		r->t_run, r->t_emit, total);
}

/* Runs the parsed command: rlx_run (which writes -o), then the result
 * printed without -o. */
static int
run_cmd(Cmd *c, double t_start)
{
	rlx_diags *d = cli_diags("run");
	double t0 = cli_now();
	size_t len = 0;
	const char *name = c->file;
	/* DIR/model.py is read by rlx_run from the cache it opens, with the
	 * weights (model_in_cache); FILE here, which may be a pipe */
	char *text = NULL;
	if (c->dir_model)
		c->o.model_in_cache = true;
	else if (!(text = cli_read_text(d, c->file, &len, &name)))
		return cli_finish("run", EXIT_INPUT, d, true);
	double t_read = cli_now() - t0;
	c->o.input_names = c->names.items;
	c->o.input_paths = c->paths.items;
	c->o.ninputs = c->names.n;
	rlx_run_result res;
	int status = rlx_run(name, text, len, c->params, &c->o, &res, d);
	free(text);
	status = cli_finish("run", status, d, true);
	if (status == EXIT_OK && c->o.plan_only) {
		fputs(res.plan ? res.plan : "", stdout);
	} else if (status == EXIT_OK && !c->o.out) {
		char *out = rlx_run_result_text(&res);
		fputs(out ? out : "", stdout);
		free(out);
	}
	if (status == EXIT_OK && c->time && !c->o.plan_only)
		print_times(&res, t_read, cli_now() - t_start);
	rlx_run_result_free(&res);
	return status;
}

int
cmd_run(int argc, char **argv)
{
	double t_start = cli_now();
	Cmd c = {0};
	int status = parse_args(&c, argc, argv);
	if (status < 0)
		status = run_cmd(&c, t_start);
	cli_list_free(&c.names);
	cli_list_free(&c.paths);
	free(c.dir_model);
	rlx_run_end(); /* after every message: MPI ends here */
	return status;
}
