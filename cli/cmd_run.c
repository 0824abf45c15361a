/*
 * cmd_run.c — `rlx run FILE --params PATH [--input NAME=FILE.npy]...
 * [--func NAME] [-o OUT.npy | -o DIR]`.
 *
 * The function's parameters before num_input are inputs, read from .npy
 * files; the others are weights, bound by exact name from the checkpoint
 * (without num_input, every parameter is an input). Everything that can be
 * checked before running is: each input and weight against its annotation
 * (dtype, rank, constant dims), missing and extra tensors, the output path.
 * Then the function is compiled and run as a stream, weights loaded at
 * first use and released after their last; the executor checks the
 * symbolic dims. The result goes to .npy files written under temporary
 * names and renamed into place, or to standard output without -o.
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
#include "pass.h"
#include "rt.h"

enum { MAX_REPORT = 20 };

static const char run_help[] =
	"usage: rlx run FILE|DIR [--params PATH] [--input NAME=FILE.npy]...\n"
	"               [--func NAME] [--rank K] [--strict] [-o OUT.npy | -o DIR]\n"
	"               [--time] [--no-cache] [--print-plan]\n"
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
	"  --print-plan         print how the executor runs the function (per\n"
	"                       binding: its kernel, or the kernel it is fused\n"
	"                       into) on stdout, and stop: no weights or\n"
	"                       inputs needed\n"
	"\n"
	"Without -o the result is printed. Shapes are written as int64 arrays,\n"
	"bfloat16 tensors as float32 (.npy has no bfloat16). Every mismatch\n"
	"between the function and the files is reported with the tensor's\n"
	"name, its expected and its actual shape and dtype; exit status 1.\n";

/* One --input. */
typedef struct {
	const char *name, *path;
	bool used;
} InputArg;

/* What a run needs. */
typedef struct {
	const char *file, *params, *func, *out;
	bool strict;         /* extra checkpoint tensors are an error */
	InputArg *inputs;
	int ninputs;
	rlx_module *m;
	const Func *f;
	int ninput;          /* parameters that are inputs */
	RtValue **values;    /* per input parameter */
	RtWeights *w;
	RtValue **result;    /* per result field (kept unless streamed) */
	int nresult;
	bool tuple;          /* the result is a tuple */
	bool stream_out;     /* tuple fields go to tmp as they come */
	RtTmpDir tmp;        /* the temporary directory, once created */
	bool out_dir;        /* -o ended in a slash: a directory */
	char *out_buf;       /* -o without trailing slashes */
	char *written;       /* per field: 0 not yet, 1 a file, 2 a dir */
	int rank;            /* --rank K, or the MPI rank */
	bool rank_given;
	bool quiet_out;      /* MPI ranks but 0 write no result */
	RtComm *comm;        /* the workers */
	FILE *err;           /* messages about the inputs (not repeated by
			      * every MPI rank: only rank 0's) */
	bool time;           /* --time */
	bool print_plan;     /* --print-plan */
	/* --time: seconds of each phase */
	double t_parse, t_compile, t_jit, t_load, t_run, t_write;
	int jit_compiled, jit_cached;
} Run;

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A .npy input. Under mpirun rank 0 reads the file and broadcasts its
 * bytes, and every rank parses them: the inputs need to exist only where
 * rank 0 runs. NULL + e (e empty on the ranks that only received).
 */
static RtTensor *
read_npy(Run *r, const char *path, RtError *e)
{
	if (!rt_comm_is_mpi(r->comm) || rt_comm_size(r->comm) == 1)
		return rt_npy_read(path, e);
	size_t len = 0;
	char *buf = NULL;
	int64_t n = -1;
	e->msg[0] = 0;
	if (rt_comm_rank(r->comm) == 0) {
		FILE *f = fopen(path, "rb");
		struct stat sb;
		if (!f || fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
			rt_error(e, "%s: cannot open: %s", path,
				 f ? "not a regular file" : strerror(errno));
		} else if (!(buf = malloc((size_t)sb.st_size + 1))) {
			rt_error(e, "%s: out of memory", path);
		} else if ((len = fread(buf, 1, (size_t)sb.st_size, f)) !=
			   (size_t)sb.st_size) {
			rt_error(e, "%s: cannot read: %s", path,
				 strerror(errno));
			free(buf);
			buf = NULL;
		} else {
			n = (int64_t)len;
		}
		if (f)
			fclose(f);
	}
	RtError be;
	if (!rt_comm_bcast(r->comm, &n, sizeof n, 0, &be))
		rt_comm_abort(r->comm, EXIT_INPUT);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	if (!buf && !(buf = malloc((size_t)n + 1))) {
		rt_error(e, "out of memory");
		rt_comm_abort(r->comm, EXIT_INPUT);
	}
	if (!rt_comm_bcast(r->comm, buf, (size_t)n, 0, &be))
		rt_comm_abort(r->comm, EXIT_INPUT);
	RtTensor *t = rt_npy_parse(buf, (size_t)n, path, e);
	free(buf);
	return t;
}

/* ------------------------------------------------------------ checks */

/* Reads the --input for parameter v into a value; NULL after a message. */
static RtValue *
read_input(Run *r, const Var *v, const char *path)
{
	RtError e;
	RtTensor *t = read_npy(r, path, &e);
	if (!t) {
		if (e.msg[0])
			fprintf(r->err, "rlx run: error: input '%s': %s\n",
				v->name, e.msg);
		return NULL;
	}
	RtValue *val = rt_value_from_npy(v->name, v->sinfo, t, path, &e);
	if (!val)
		fprintf(r->err, "rlx run: error: %s\n", e.msg);
	return val;
}

/* Reads every input; false after messages. */
static bool
read_inputs(Run *r)
{
	bool ok = true;
	r->values = calloc((size_t)r->ninput + 1, sizeof *r->values);
	for (int i = 0; i < r->ninputs; i++) {
		int p = 0;
		while (p < r->ninput && strcmp(r->f->params[p]->name, r->inputs[i].name))
			p++;
		if (p == r->ninput) {
			StrBuf b = {0};
			for (int k = 0; k < r->ninput; k++)
				sb_printf(&b, "%s'%s'", k ? ", " : "", r->f->params[k]->name);
			fprintf(r->err, "rlx run: error: %s has no input '%s' "
				"(inputs: %s)\n", r->f->name, r->inputs[i].name,
				b.p ? b.p : "none");
			sb_free(&b);
			ok = false;
			continue;
		}
		if (r->values[p]) {
			fprintf(r->err, "rlx run: error: input '%s' given twice\n",
				r->inputs[i].name);
			ok = false;
			continue;
		}
		if (!(r->values[p] = read_input(r, r->f->params[p], r->inputs[i].path)))
			ok = false;
	}
	for (int p = 0; p < r->ninput; p++)
		if (!r->values[p] && ok) {
			const Var *v = r->f->params[p];
			StrBuf b = {0};
			print_sinfo(&b, v->sinfo);
			fprintf(r->err, "rlx run: error: missing input '%s' (%s): "
				"give it with --input %s=FILE.npy\n", v->name, b.p,
				v->name);
			sb_free(&b);
			ok = false;
		}
	return ok;
}

/* Opens --params and checks it against the weight parameters: every one
 * present with its dtype and shape, nothing else in the file. */
static bool
check_weights(Run *r)
{
	int nweights = r->f->nparams - r->ninput;
	if (!r->params || nweights == 0) {
		if (r->params)
			fprintf(stderr, "rlx run: note: %s has no weight parameters; "
				"--params %s is not read\n", r->f->name, r->params);
		return true;
	}
	RtError e;
	/* rt_weights_open dispatches: a safetensors file, a sharded index, or
	 * (hook for the tensor cache) a tensor-cache directory. */
	r->w = rt_weights_open(r->params, &e);
	if (!r->w) {
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		return false;
	}
	/* a tensor-parallel cache: this worker's records (NAME_shard-K as
	 * NAME, and the shared ones) */
	int tp = rt_weights_tensor_parallel(r->w);
	if (rt_comm_is_mpi(r->comm) && tp && tp != rt_comm_size(r->comm)) {
		fprintf(stderr, "rlx run: error: %s holds the weights of %d "
			"workers, but mpirun started %d: run it with mpirun -np "
			"%d\n", r->params, tp, rt_comm_size(r->comm), tp);
		return false;
	}
	if ((tp || r->rank) && !rt_weights_set_rank(r->w, r->rank, &e)) {
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		return false;
	}
	int nerr = 0;
	for (int p = r->ninput; p < r->f->nparams; p++) {
		const Var *v = r->f->params[p];
		char what[512];
		snprintf(what, sizeof what, "weight '%s' in %s", v->name, r->params);
		if (v->sinfo->kind == SI_SHAPE && rt_weights_is_shape(r->w, v->name)) {
			int nd;
			int64_t shape[RT_MAX_DIMS];
			rt_weights_info(r->w, v->name, NULL, &nd, shape, &e);
			if (v->sinfo->ndim >= 0 && shape[0] != v->sinfo->ndim) {
				fprintf(stderr, "rlx run: error: %s: a shape tuple of "
					"%lld values, but the parameter has %d\n", what,
					(long long)shape[0], v->sinfo->ndim);
				nerr++;
			}
			continue;
		}
		if (v->sinfo->kind != SI_TENSOR) {
			StrBuf b = {0};
			print_sinfo(&b, v->sinfo);
			fprintf(stderr, "rlx run: error: %s: the parameter is %s; "
				"only tensors can come from a checkpoint\n", what, b.p);
			sb_free(&b);
			nerr++;
			continue;
		}
		if (!rt_weights_has(r->w, v->name)) {
			StrBuf b = {0};
			print_sinfo(&b, v->sinfo);
			fprintf(stderr, "rlx run: error: missing weight '%s' (%s) in "
				"%s\n", v->name, b.p, r->params);
			sb_free(&b);
			nerr++;
			continue;
		}
		DType dt;
		int nd;
		int64_t shape[RT_MAX_DIMS];
		if (!rt_weights_info(r->w, v->name, &dt, &nd, shape, &e)) {
			fprintf(stderr, "rlx run: error: %s\n", e.msg);
			nerr++;
			continue;
		}
		if (!rt_annot_matches(what, v->sinfo, dt, nd, shape, &e)) {
			fprintf(stderr, "rlx run: error: %s\n", e.msg);
			nerr++;
		}
	}
	/* the policy of run, transform and verify: a warning, --strict error */
	Diags d = {0};
	int extra = rt_check_extra(r->f, r->ninput, r->w, r->params, r->strict,
				   &d);
	diag_print(&d, stderr);
	diag_clear(&d);
	free(d.items);
	return nerr == 0 && !(extra && r->strict);
}

/* ------------------------------------------------------------ running */

static RtValue *run_load_weight(Run *r, int param, RtError *e);

/* The stream's load: an input, or a weight from the checkpoint. */
static RtValue *
run_load(void *ctx, int param, RtError *e)
{
	Run *r = ctx;
	if (param < r->ninput)
		return rt_value_retain(r->values[param]);
	double t0 = now_s();
	RtValue *v = run_load_weight(r, param, e);
	r->t_load += now_s() - t0;
	return v;
}

/* A weight from the checkpoint (run_load). */
static RtValue *
run_load_weight(Run *r, int param, RtError *e)
{
	const char *name = r->f->params[param]->name;
	RtError le;
	if (r->f->params[param]->sinfo->kind == SI_SHAPE) {
		int64_t vals[64];
		int n = 64;
		if (!rt_weights_load_shape(r->w, name, vals, &n, &le)) {
			rt_error(e, "weight '%s': %s", name, le.msg);
			return NULL;
		}
		return rt_value_shape(vals, n);
	}
	RtTensor *t = rt_weights_load(r->w, name, &le);
	if (!t) {
		rt_error(e, "weight '%s': %s", name, le.msg);
		return NULL;
	}
	RtValue *v = rt_value_tensor(t);
	if (!v)
		rt_error(e, "out of memory");
	return v;
}

/*
 * The stream's emit. A tuple result written with -o goes to the
 * temporary directory field by field as the executor hands the fields
 * out, so that none is kept longer than needed; otherwise the field is
 * kept for the end.
 */
static bool
run_emit(void *ctx, int field, RtValue *v, RtError *e)
{
	Run *r = ctx;
	if (field < 0 || field >= r->nresult) {
		rt_error(e, "result field %d of %d", field, r->nresult);
		return false;
	}
	if (!r->stream_out) {
		rt_value_release(r->result[field]);
		r->result[field] = rt_value_retain(v);
		return true;
	}
	double t0 = now_s();
	if (!r->tmp.tmp && !rt_dir_begin(&r->tmp, r->out, e))
		return false;
	char *path = rt_field_path(r->tmp.tmp, field, v->kind == RV_TUPLE);
	bool ok = rt_value_write(path, v, e);
	free(path);
	r->t_write += now_s() - t0;
	if (ok)
		r->written[field] = v->kind == RV_TUPLE ? 2 : 1;
	return ok;
}

/* ------------------------------------------------------------ output */

/* Is path an existing directory? */
static bool
is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/*
 * Moves the fields written to r->tmp into r->out: the directory renamed
 * into place when r->out does not exist, else each field renamed into the
 * existing directory (each rename atomic). false after a message.
 */
static bool
move_into_place(Run *r)
{
	if (!is_dir(r->out)) {
		RtError e;
		if (rt_dir_commit(&r->tmp, false, &e))
			return true;
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		return false;
	}
	for (int k = 0; k < r->nresult; k++) {
		char *a = rt_field_path(r->tmp.tmp, k, r->written[k] == 2);
		char *b = rt_field_path(r->out, k, r->written[k] == 2);
		bool ok = rename(a, b) == 0;
		if (!ok)
			fprintf(stderr, "rlx run: error: cannot rename %s to %s: "
				"%s\n", a, b, strerror(errno));
		free(a);
		free(b);
		if (!ok)
			return false;
	}
	if (r->tuple) { /* the manifest, last: it describes the fields */
		StrBuf a = {0}, b = {0};
		sb_printf(&a, "%s/fields.json", r->tmp.tmp);
		sb_printf(&b, "%s/fields.json", r->out);
		bool ok = rename(a.p, b.p) == 0;
		if (!ok)
			fprintf(stderr, "rlx run: error: cannot rename %s to %s: "
				"%s\n", a.p, b.p, strerror(errno));
		sb_free(&a);
		sb_free(&b);
		if (!ok)
			return false;
	}
	rt_dir_abort(&r->tmp);
	return true;
}

/* DIR/fields.json in the temporary directory: each field's file and the
 * name the function gives it. */
static bool
write_manifest(Run *r)
{
	const char **names = calloc((size_t)r->nresult + 1, sizeof *names);
	bool *nested = calloc((size_t)r->nresult + 1, sizeof *nested);
	RtError e;
	bool ok = names && nested;
	if (ok) {
		rt_result_field_names(r->f, names, r->nresult);
		for (int k = 0; k < r->nresult; k++)
			nested[k] = r->written[k] == 2;
		ok = rt_write_fields_manifest(r->tmp.tmp, names, nested,
					      r->nresult, &e);
		if (!ok)
			fprintf(stderr, "rlx run: error: %s\n", e.msg);
	}
	free(names);
	free(nested);
	return ok;
}

/*
 * Writes a kept result to r->out: a tensor to OUT, or to DIR/0.npy when
 * OUT is an existing directory (through the temporary directory, as the
 * fields of a tuple). Nothing is half-written.
 */
static bool
write_result(Run *r, RtValue *res)
{
	RtError e;
	if (!is_dir(r->out) && !r->out_dir) {
		RtTensor *t = rt_value_npy_tensor(res, &e);
		bool ok = t && rt_npy_write(r->out, t, &e);
		if (!ok)
			fprintf(stderr, "rlx run: error: cannot write %s: %s\n",
				r->out, e.msg);
		rt_tensor_free(t);
		return ok;
	}
	r->stream_out = true;
	if (!run_emit(r, 0, res, &e)) {
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
		return false;
	}
	return move_into_place(r);
}

/* ------------------------------------------------------------ command */

/* --time: the phases of the run on stderr (total: since the command
 * started). */
static void
print_times(const Run *r, double total)
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
		r->t_parse, r->t_compile - r->t_jit, r->t_jit, r->jit_compiled,
		r->jit_compiled == 1 ? "" : "s", r->jit_cached, r->t_load,
		r->t_run, r->t_write, total);
}

/* Parses the command line into r; an exit status, or -1 to go on. */
static int
parse_args(Run *r, int argc, char **argv)
{
	r->func = "main";
	r->inputs = calloc((size_t)argc + 1, sizeof *r->inputs);
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
			if (r->params)
				return cli_usage_error("run", "%s", "--params given twice");
			r->params = val;
		} else if (!strcmp(a, "--strict")) {
			r->strict = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "--func");
			r->func = val;
		} else if ((val = cli_opt_value(argc, argv, &i, "--rank"))) {
			char *end;
			long k = strtol(val, &end, 10);
			if (!*val || *end || k < 0 || k > 1000000)
				return cli_usage_error("run", "--rank needs a worker "
						       "number, not '%s'", val);
			if (r->rank_given)
				return cli_usage_error("run", "%s", "--rank given twice");
			r->rank = (int)k;
			r->rank_given = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "-o");
			if (r->out)
				return cli_usage_error("run", "%s", "-o given twice");
			/* `-o tp/`: the directory tp */
			r->out_dir = val[strlen(val) - 1] == '/';
			r->out = r->out_buf = rt_path_strip(val);
		} else if ((val = cli_opt_value(argc, argv, &i, "--input"))) {
			if (!*val)
				return cli_usage_error("run", "%s needs a value", "--input");
			const char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1])
				return cli_usage_error("run", "--input needs NAME=FILE.npy, "
						       "not '%s'", val);
			InputArg *in = &r->inputs[r->ninputs++];
			in->name = strndup(val, (size_t)(eq - val));
			in->path = eq + 1;
			for (int k = 0; k < r->ninputs - 1; k++)
				if (!strcmp(r->inputs[k].name, in->name))
					return cli_usage_error("run", "input '%s' given twice",
							       in->name);
		} else if (!strcmp(a, "--time")) {
			r->time = true;
		} else if (!strcmp(a, "--print-plan")) {
			r->print_plan = true;
		} else if (!strcmp(a, "--no-cache")) {
			setenv("RLX_NO_CACHE", "1", 1); /* read by the JIT */
		} else if (a[0] == '-' && a[1]) {
			return cli_unknown_option("run", run_help, a);
		} else if (r->file) {
			return cli_usage_error("run", "unexpected argument %s", a);
		} else {
			r->file = a;
		}
	}
	if (!r->file)
		return cli_usage_error("run", "%s", "needs a FILE");
	return -1;
}

/* Frees what parse_args and the run allocated. */
static void
run_free(Run *r)
{
	for (int i = 0; i < r->ninputs; i++)
		free((char *)r->inputs[i].name);
	free(r->inputs);
	for (int i = 0; r->values && i < r->ninput; i++)
		rt_value_release(r->values[i]);
	free(r->values);
	for (int i = 0; r->result && i < r->nresult; i++)
		rt_value_release(r->result[i]);
	free(r->result);
	if (r->tmp.tmp)
		rt_dir_abort(&r->tmp);
	free(r->out_buf);
	free(r->written);
	rt_weights_close(r->w);
	rlx_module_free(r->m);
}

/* --print-plan: compiles f and prints the executor's plan of it. */
static int
print_plan(rlx_module *m, const char *func)
{
	Diags d = {0};
	d.src = &m->src;
	RtProgram *p = rt_compile(m, func, &d);
	diag_print(&d, stderr);
	diag_clear(&d);
	free(d.items);
	if (!p)
		return EXIT_INPUT;
	StrBuf b = {0};
	rt_program_plan(p, &b);
	fputs(b.p ? b.p : "", stdout);
	sb_free(&b);
	rt_program_free(p);
	return EXIT_OK;
}

/* Compiles and runs r->f, then writes or prints the result. */
static int
run_it(Run *r)
{
	Diags d = {0};
	d.src = &r->m->src;
	double t0 = now_s();
	RtProgram *p = rt_compile(r->m, r->f->name, &d);
	r->t_compile = now_s() - t0;
	diag_print(&d, stderr);
	diag_clear(&d);
	free(d.items);
	if (!rt_comm_all(r->comm, p != NULL)) {
		rt_program_free(p);
		return EXIT_INPUT;
	}
	rt_program_jit_stats(p, &r->jit_compiled, &r->jit_cached, &r->t_jit);
	rt_program_set_comm(p, r->comm);
	r->stream_out = r->tuple && r->out;
	RtStream s = {run_load, run_emit, r};
	RtError e;
	double t1 = now_s(), l0 = r->t_load, w0 = r->t_write;
	bool ok = rt_run_stream(p, &s, &e);
	r->t_run = now_s() - t1 - (r->t_load - l0) - (r->t_write - w0);
	double t2 = now_s();
	/* a checkpoint truncated while it was read: no output from it */
	if (ok && r->w)
		ok = rt_weights_check(r->w, &e);
	if (!ok)
		fprintf(stderr, "rlx run: error: %s\n", e.msg);
	/* the others may wait for this rank in a collective */
	if (!ok && rt_comm_is_mpi(r->comm) && rt_comm_size(r->comm) > 1)
		rt_comm_abort(r->comm, EXIT_INPUT);
	for (int k = 0; ok && k < r->nresult; k++)
		if (!r->result[k] && !r->written[k]) {
			fprintf(stderr, "rlx run: error: result field %d was not "
				"produced\n", k);
			ok = false;
		}
	RtValue *res = NULL;
	if (ok && r->stream_out) {
		if (!r->tmp.tmp) { /* an empty tuple: an empty directory */
			if (mkdir(r->out, 0777) != 0 && errno != EEXIST) {
				fprintf(stderr, "rlx run: error: cannot create %s: "
					"%s\n", r->out, strerror(errno));
				ok = false;
			}
		} else {
			ok = write_manifest(r) && move_into_place(r);
		}
	} else if (ok) {
		if (r->tuple) {
			for (int k = 0; k < r->nresult; k++)
				rt_value_retain(r->result[k]);
			res = rt_value_tuple(r->result, r->nresult);
		} else {
			res = rt_value_retain(r->result[0]);
		}
		if (r->quiet_out) {
			/* an MPI rank but 0: rank 0 writes the result */
		} else if (r->out) {
			ok = write_result(r, res);
		} else {
			StrBuf b = {0};
			rt_value_print(&b, r->f->name, res);
			fputs(b.p ? b.p : "", stdout);
			sb_free(&b);
		}
	}
	if (!ok && r->tmp.tmp)
		rt_dir_abort(&r->tmp);
	r->t_write += now_s() - t2;
	rt_value_release(res);
	/* the result views may borrow the checkpoint: release before closing */
	for (int k = 0; k < r->nresult; k++) {
		rt_value_release(r->result[k]);
		r->result[k] = NULL;
	}
	rt_program_free(p);
	return ok ? EXIT_OK : EXIT_INPUT;
}

int
cmd_run(int argc, char **argv)
{
	double t_start = now_s();
	Run r = {0};
	char *dir_model = NULL; /* FILE/model.py when FILE is a cache */
	r.err = stderr;
	int status = parse_args(&r, argc, argv);
	if (status >= 0)
		goto done;
	status = EXIT_INPUT;
	RtError ce;
	if (rt_comm_launched() && r.rank_given) {
		status = cli_usage_error("run", "%s", "--rank is for one process; "
					 "under mpirun the worker is the MPI rank");
		goto done;
	}
	r.comm = r.rank_given ? rt_comm_single(r.rank, &ce) : rt_comm_open(&ce);
	if (!r.comm) {
		fprintf(stderr, "rlx run: error: %s\n", ce.msg);
		goto done;
	}
	if (rt_comm_is_mpi(r.comm)) {
		r.rank = rt_comm_rank(r.comm);
		if (r.rank != 0) {
			/* rank 0 writes the result */
			r.quiet_out = true;
			r.out = NULL;
			r.err = fopen("/dev/null", "w");
			if (!r.err)
				r.err = stderr;
		}
	}
	/* `rlx run DIR`: a tensor cache that holds its module (rlx transform). */
	struct stat st;
	if (strcmp(r.file, "-") && stat(r.file, &st) == 0 && S_ISDIR(st.st_mode)) {
		StrBuf b = {0};
		sb_printf(&b, "%s/model.py", r.file);
		dir_model = sb_take(&b);
		if (!r.params)
			r.params = r.file;
		r.file = dir_model;
	}
	double t0 = now_s();
	r.m = cli_load_module(r.file);
	r.t_parse = now_s() - t0;
	if (!r.m)
		goto done;
	Func *fn = ir_find_func(r.m, r.func);
	r.f = fn;
	if (!r.f) {
		StrBuf b = {0};
		for (int i = 0; i < r.m->nfuncs; i++)
			sb_printf(&b, "%s%s", i ? ", " : "", r.m->funcs[i]->name);
		fprintf(stderr, "rlx run: error: %s has no function '%s' "
			"(functions: %s)\n", r.file, r.func, b.p ? b.p : "none");
		sb_free(&b);
		goto done;
	}
	r.ninput = ir_func_num_input(r.f);
	/* F_transform_params in TVM's convention: its weights by name */
	if (r.ninput == 0 && pass_is_bundled(fn)) {
		int n = fn->params[0]->sinfo->nfields;
		const char **names = ARENA_ARRAY(&r.m->arena, const char *, n + 1);
		pass_weight_names(r.m, fn, names);
		rlx_diags *d = rlx_diags_new();
		pass_unbundle_params(r.m, fn, names, d);
		bool bad = rlx_diags_errors(d) > 0;
		rlx_diags_print(d, stderr);
		rlx_diags_free(d);
		if (bad)
			goto done;
	}
	if (r.print_plan) {
		status = print_plan(r.m, r.f->name);
		goto done;
	}
	if (r.ninput < 0 || r.ninput > r.f->nparams)
		r.ninput = r.f->nparams;
	/* the inferred result (more precise than an R.Object annotation) */
	const SInfo *ret = r.f->body->seq.body->sinfo;
	if (!ret || ret->kind == SI_OBJECT)
		ret = r.f->body->sinfo;
	if (!ret || ret->kind == SI_OBJECT)
		ret = r.f->ret;
	r.tuple = ret && ret->kind == SI_TUPLE;
	r.nresult = r.tuple ? ret->nfields : 1;
	r.result = calloc((size_t)r.nresult + 1, sizeof *r.result);
	r.written = calloc((size_t)r.nresult + 1, 1);
	if (r.out && r.tuple && strlen(r.out) > 4 &&
	    !strcmp(r.out + strlen(r.out) - 4, ".npy")) {
		fprintf(stderr, "rlx run: error: %s returns a tuple of %d "
			"fields, written as a directory: -o %s looks like a "
			".npy file\n", r.f->name, r.nresult, r.out);
		goto done;
	}
	if (!r.params && r.ninput < r.f->nparams) {
		fprintf(stderr, "rlx run: %s has %d weight parameter%s (the first "
			"is '%s'): give them with --params PATH\n(see `rlx run "
			"--help`)\n", r.f->name, r.f->nparams - r.ninput,
			r.f->nparams - r.ninput == 1 ? "" : "s",
			r.f->params[r.ninput]->name);
		status = EXIT_USAGE;
		goto done;
	}
	t0 = now_s();
	bool ok = read_inputs(&r);
	ok = check_weights(&r) && ok;
	r.t_load = now_s() - t0;
	/* every rank checks its own weights; one failing stops them all */
	if (!rt_comm_all(r.comm, ok))
		goto done;
	status = run_it(&r);
	if (r.time)
		print_times(&r, now_s() - t_start);
done:
	run_free(&r);
	free(dir_model);
	if (r.err && r.err != stderr)
		fclose(r.err);
	rt_comm_close(r.comm);
	return status;
}
