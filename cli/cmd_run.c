/*
 * cmd_run.c — `rlx run FILE --params PATH [--input NAME=FILE.npy]...
 * [--func NAME] [-o OUT.npy | -o DIR]`: the arguments, rlx_run
 * (runtime/engine/run.c: checks, binding, execution), and the result written as
 * .npy files under temporary names renamed into place (a tuple's fields as
 * they come), or printed without -o.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ir.h"
#include "rlx_runtime.h"
#include "rt_exec.h"

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

/* What -o has received of an output field so far. */
typedef enum {
	WRITTEN_NOT,  /* nothing yet */
	WRITTEN_FILE, /* a .npy file */
	WRITTEN_DIR,  /* a folder (a tuple field) */
} Written;

/* What the command needs. */
typedef struct {
	const char *file, *params, *out;
	bool out_dir;         /* -o ended in a slash: a directory */
	char *out_buf;        /* -o without trailing slashes */
	char *dir_model;      /* FILE/model.py when FILE is a cache */
	Vec names, paths;     /* --input NAME=PATH */
	bool rank_given;
	bool time;            /* --time */
	rlx_run_options o;
	const rlx_run_info *info; /* the result, once rlx_run knows it */
	RtTmpDir tmp;         /* the temporary directory, once created */
	Written *written;     /* per field */
	double t_write;
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
			if (c->out)
				return cli_usage_error("run", "%s", "-o given twice");
			/* `-o tp/`: the directory tp */
			c->out_dir = val[strlen(val) - 1] == '/';
			c->out = c->out_buf = rt_path_strip(val);
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
			vec_push(&c->names, (void *)val);
			vec_push(&c->paths, eq + 1);
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
	if (c->rank_given && rt_comm_launched())
		return cli_usage_error("run", "%s", "--rank is for one process; "
				       "under mpirun the worker is the MPI rank");
	/* `rlx run DIR`: a tensor cache that holds its module (rlx transform) */
	struct stat st;
	if (strcmp(c->file, "-") && stat(c->file, &st) == 0 && S_ISDIR(st.st_mode)) {
		StrBuf b = {0};
		sb_printf(&b, "%s/model.py", c->file);
		c->dir_model = sb_take(&b);
		if (!c->params)
			c->params = c->file;
		c->file = c->dir_model;
	}
	return -1;
}

/* ------------------------------------------------------------ output */

/* rlx_run's start: the result known, before anything is read. A tuple
 * goes to a directory; only process 0 of mpirun writes. */
static bool
on_start(const rlx_run_info *info, void *ctx, rlx_diags *d)
{
	Cmd *c = ctx;
	c->info = info;
	if (!info->writer)
		c->out = NULL;
	size_t n = c->out ? strlen(c->out) : 0;
	if (info->tuple && n > 4 && !strcmp(c->out + n - 4, ".npy")) {
		diag_file(d, DIAG_ERROR, NULL, "%s returns a tuple of %d fields, "
			  "written as a directory: -o %s looks like a .npy file",
			  info->func, info->nresult, c->out);
		return false;
	}
	c->written = calloc((size_t)info->nresult + 1, sizeof *c->written);
	return c->written != NULL;
}

/* A field of the result into the temporary directory of -o (rlx_run's
 * emit for a tuple, and a tensor written into a directory). */
static bool
on_emit(void *ctx, int field, rlx_value *v, rlx_diags *d)
{
	Cmd *c = ctx;
	double t0 = rt_now_s();
	RtError e;
	bool ok = c->tmp.tmp || rt_dir_begin(&c->tmp, c->out, &e);
	if (ok) {
		char *path = rt_field_path(c->tmp.tmp, field, v->kind == RV_TUPLE);
		ok = rt_value_write(path, v, &e);
		free(path);
	}
	c->t_write += rt_now_s() - t0;
	if (!ok)
		diag_file(d, DIAG_ERROR, NULL, "%s", e.msg);
	else
		c->written[field] = v->kind == RV_TUPLE ? WRITTEN_DIR : WRITTEN_FILE;
	return ok;
}

/* Is path an existing directory? */
static bool
is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Renames a to b; false after a message. */
static bool
rename_msg(const char *a, const char *b)
{
	if (rename(a, b) == 0)
		return true;
	fprintf(stderr, "rlx run: error: cannot rename %s to %s: %s\n", a, b,
		strerror(errno));
	return false;
}

/*
 * Moves the fields written to c->tmp into c->out: the directory renamed
 * into place when c->out does not exist, else each field renamed into the
 * existing directory (each rename atomic). false after a message.
 */
static bool
move_into_place(Cmd *c)
{
	if (!is_dir(c->out)) {
		RtError e;
		if (rt_dir_commit(&c->tmp, false, &e))
			return true;
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		return false;
	}
	for (int k = 0; k < c->info->nresult; k++) {
		char *a = rt_field_path(c->tmp.tmp, k, c->written[k] == WRITTEN_DIR);
		char *b = rt_field_path(c->out, k, c->written[k] == WRITTEN_DIR);
		bool ok = rename_msg(a, b);
		free(a);
		free(b);
		if (!ok)
			return false;
	}
	if (c->info->tuple) { /* the manifest, last: it describes the fields */
		StrBuf a = {0}, b = {0};
		sb_printf(&a, "%s/fields.json", c->tmp.tmp);
		sb_printf(&b, "%s/fields.json", c->out);
		bool ok = rename_msg(a.p, b.p);
		sb_free(&a);
		sb_free(&b);
		if (!ok)
			return false;
	}
	rt_dir_abort(&c->tmp);
	return true;
}

/* A tuple result's directory, its fields written: DIR/fields.json (each
 * field's file and the name the function gives it), then into place. */
static bool
finish_dir(Cmd *c)
{
	if (!c->tmp.tmp) { /* an empty tuple: an empty directory */
		if (mkdir(c->out, 0777) == 0 || errno == EEXIST)
			return true;
		fprintf(stderr, "rlx run: error: cannot create %s: %s\n", c->out,
			strerror(errno));
		return false;
	}
	int n = c->info->nresult;
	bool *nested = calloc((size_t)n + 1, sizeof *nested);
	RtError e;
	bool ok = nested != NULL;
	for (int k = 0; ok && k < n; k++)
		nested[k] = c->written[k] == WRITTEN_DIR;
	if (ok && !rt_write_fields_manifest(c->tmp.tmp, (const char **)c->info->names,
					    nested, n, &e)) {
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		ok = false;
	}
	free(nested);
	return ok && move_into_place(c);
}

/*
 * Writes a kept result to c->out: a tensor to OUT, or to DIR/0.npy when
 * OUT is (or is written as) a directory, through the temporary directory
 * as the fields of a tuple. Nothing is half-written.
 */
static bool
write_result(Cmd *c, RtValue *res)
{
	RtError e;
	if (!is_dir(c->out) && !c->out_dir) {
		RtTensor *t = rt_value_npy_tensor(res, &e);
		bool ok = t && rt_npy_write(c->out, t, &e);
		if (!ok)
			fprintf(stderr, "rlx run: error: cannot write %s: %s\n",
				c->out, e.msg);
		rt_tensor_free(t);
		return ok;
	}
	rlx_diags *d = rlx_diags_new();
	bool ok = on_emit(c, 0, res, d);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	return ok && move_into_place(c);
}

/* The result of a run that went well: written or printed. */
static bool
output(Cmd *c, const rlx_run_result *res)
{
	if (c->out && c->info->tuple)
		return finish_dir(c); /* the fields were emitted */
	if (!res->info.writer)
		return true;
	RtValue *v;
	if (c->info->tuple) {
		for (int k = 0; k < c->info->nresult; k++)
			rt_value_retain(res->fields[k]);
		v = rt_value_tuple(res->fields, c->info->nresult);
	} else {
		v = rt_value_retain(res->fields[0]);
	}
	bool ok = true;
	if (c->out) {
		ok = write_result(c, v);
	} else {
		StrBuf b = {0};
		rt_value_print(&b, c->info->func, v);
		fputs(b.p ? b.p : "", stdout);
		sb_free(&b);
	}
	rt_value_release(v);
	return ok;
}

/* --time: the phases of the run on stderr (total: since the command
 * started). */
static void
print_times(const Cmd *c, const rlx_run_result *r, double t_read,
	    double total)
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
		r->t_run, c->t_write, total);
}

/* ------------------------------------------------------------ command */

/* Runs the parsed command: rlx_run, then the result written or printed. */
static int
run_cmd(Cmd *c, double t_start)
{
	double t0 = rt_now_s();
	size_t len = 0;
	const char *name = c->file;
	/* DIR/model.py is read by rlx_run from the cache it opens, with the
	 * weights (model_in_cache); FILE here, which may be a pipe */
	char *text = NULL;
	if (c->dir_model)
		c->o.model_in_cache = true;
	else if (!(text = cli_read_text("run", c->file, &len, &name)))
		return EXIT_INPUT;
	double t_read = rt_now_s() - t0;
	c->o.input_names = (const char *const *)c->names.items;
	c->o.input_paths = (const char *const *)c->paths.items;
	c->o.ninputs = c->names.n;
	c->o.start = on_start;
	c->o.emit = c->out ? on_emit : NULL;
	c->o.ctx = c;
	rlx_run_result res;
	rlx_diags *d = rlx_diags_new();
	int status = rlx_run(name, text, len, c->params, &c->o, &res, d);
	free(text);
	status = cli_finish("run", status, d, true);
	if (status == EXIT_OK && c->o.plan_only)
		fputs(res.plan ? res.plan : "", stdout);
	else if (status == EXIT_OK) {
		t0 = rt_now_s();
		if (!output(c, &res))
			status = EXIT_INPUT;
		c->t_write += rt_now_s() - t0;
	}
	if (c->tmp.tmp)
		rt_dir_abort(&c->tmp);
	if (status == EXIT_OK && c->time && !c->o.plan_only)
		print_times(c, &res, t_read, rt_now_s() - t_start);
	rlx_run_result_free(&res);
	return status;
}

int
cmd_run(int argc, char **argv)
{
	double t_start = rt_now_s();
	Cmd c = {0};
	int status = parse_args(&c, argc, argv);
	if (status < 0)
		status = run_cmd(&c, t_start);
	vec_free(&c.names);
	vec_free(&c.paths);
	free(c.out_buf);
	free(c.dir_model);
	free(c.written);
	rlx_run_end(); /* after every message: MPI ends here */
	return status;
}
