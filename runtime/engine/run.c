/*
 * run.c — rlx_run (rlx_runtime.h): a function of a module on a checkpoint
 * and .npy inputs, as `rlx run` runs it.
 *
 * The function's parameters before num_input are inputs, read from .npy
 * files; the others are weights, bound by exact name from the checkpoint
 * (without num_input, every parameter is an input). Everything that can be
 * checked before running is: each input against its annotation, the
 * weights with the one weights check of every engine (rt_check_weights:
 * missing and mis-shaped weights, extra tensors a warning or --strict an
 * error). Then the function is compiled and run as a stream, weights
 * loaded at first use and released after their last; the executor checks
 * the symbolic dims. Under mpirun each process is a worker: process 0
 * reads the .npy files and broadcasts them, every process checks its own
 * weights, one failing stops them all, and only process 0 keeps or hands
 * out the result: to the caller (emit, or kept) or written as .npy files
 * (out: under temporary names, a tuple's fields as they come, renamed into
 * place at the end). Nothing here prints or exits. A process that fails
 * where the others wait for it returns RLX_EABORT for the program to end
 * the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "transform.h"
#include "rlx_runtime.h"

/* What rlx_run_result.priv holds: what the kept fields may borrow. */
typedef struct {
	Module *m;
	RtWeights *w;
} RunPriv;

/* What out has received of a result field so far. */
typedef enum {
	WRITTEN_NOT,  /* nothing yet */
	WRITTEN_FILE, /* a .npy file */
	WRITTEN_DIR,  /* a folder (a tuple field) */
} Written;

/* The result written to rlx_run_options.out. */
typedef struct {
	char *path;       /* out without trailing slashes; NULL: no out */
	bool dir;         /* out ended in a slash: a directory */
	RtTmpDir tmp;     /* the temporary directory, once created */
	Written *written; /* per field */
} Out;

/* The state of one run. */
typedef struct {
	const rlx_run_options *o;
	rlx_run_result *res;
	Diags *d;
	Module *m;
	Func *f;
	const char *wname;   /* the checkpoint's path, for messages */
	int ninput;          /* parameters that are inputs */
	RtValue **values;    /* per input parameter */
	RtWeights *w;
	RtComm *comm;
	bool stream;         /* tuple fields go to o->emit */
	bool emit_failed;    /* o->emit said why in d */
	/* under mpirun: this process can no longer meet the others (a
	 * collective failed, or it failed where they wait for it); no
	 * collective is tried again and rlx_run returns RLX_EABORT */
	bool lost;
	bool *produced;      /* per result field */
	RtValue **kept;      /* per result field, unless streamed */
	Out out;             /* the writer's o->out */
} Run;

/* This process can no longer meet the others: why, into d. */
static void
lose(Run *r, const char *why)
{
	diag_file(r->d, DIAG_ERROR, r->m->src.name, "%s", why);
	r->lost = true;
}

/* An error about the run's inputs, reported by process 0 only (the others
 * read the same broadcast bytes and would repeat it). */
static void
input_error(Run *r, const char *msg)
{
	if (rt_comm_rank(r->comm) == 0 || !rt_comm_is_mpi(r->comm))
		diag_file(r->d, DIAG_ERROR, r->m->src.name, "%s", msg);
}

/* ---------------------------------------------------------------- inputs */

/*
 * A .npy input. Under mpirun process 0 reads the file and broadcasts its
 * bytes, and every process parses them: the inputs need to exist only
 * where process 0 runs. NULL + e (e empty on the processes that only
 * received, and when the run is lost).
 */
static RtTensor *
read_npy(Run *r, const char *path, RtError *e)
{
	if (!rt_comm_is_mpi(r->comm) || rt_comm_size(r->comm) == 1)
		return rt_npy_read(path, e);
	char *buf = NULL;
	int64_t n = -1;
	e->msg[0] = 0;
	if (r->lost)
		return NULL;
	if (rt_comm_rank(r->comm) == 0) {
		size_t len;
		if ((buf = rt_read_whole(path, UINT64_MAX, &len, e))) /* a FIFO: refused */
			n = (int64_t)len;
	}
	RtError be;
	if (!rt_comm_bcast(r->comm, &n, sizeof n, 0, &be)) {
		lose(r, be.msg);
		n = -1;
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	if (!buf && !(buf = malloc((size_t)n + 1))) {
		lose(r, "out of memory");
		return NULL;
	}
	if (!rt_comm_bcast(r->comm, buf, (size_t)n, 0, &be)) {
		lose(r, be.msg);
		free(buf);
		return NULL;
	}
	RtTensor *t = rt_npy_parse(buf, (size_t)n, path, e);
	free(buf);
	return t;
}

/* The input for parameter v from the .npy at path; NULL after an error. */
static RtValue *
read_input(Run *r, const Var *v, const char *path)
{
	RtError e;
	RtTensor *t = read_npy(r, path, &e);
	if (!t) {
		if (e.msg[0]) {
			char msg[sizeof e.msg + 300];
			snprintf(msg, sizeof msg, "input '%s': %s", v->name, e.msg);
			input_error(r, msg);
		}
		return NULL;
	}
	RtValue *val = rt_value_from_npy(v->name, v->sinfo, t, path, &e);
	if (!val)
		input_error(r, e.msg);
	return val;
}

/* The input parameter named name, or -1 after an error naming them all. */
static int
input_param(Run *r, const char *name)
{
	for (int p = 0; p < r->ninput; p++)
		if (!strcmp(r->f->params[p]->name, name))
			return p;
	StrBuf b = {0};
	for (int k = 0; k < r->ninput; k++)
		sb_printf(&b, "%s'%s'", k ? ", " : "", r->f->params[k]->name);
	StrBuf msg = {0};
	sb_printf(&msg, "%s has no input '%s' (inputs: %s)", r->f->name, name,
		  b.p ? b.p : "none");
	input_error(r, msg.p);
	sb_free(&msg);
	sb_free(&b);
	return -1;
}

/* Reads every input; false after errors. */
static bool
read_inputs(Run *r)
{
	const rlx_run_options *o = r->o;
	bool ok = true;
	r->values = calloc((size_t)r->ninput + 1, sizeof *r->values);
	if (!r->values)
		ir_bug("out of memory");
	for (int i = 0; i < o->ninputs; i++) {
		int p = input_param(r, o->input_names[i]);
		if (p < 0) {
			ok = false;
		} else if (r->values[p]) {
			StrBuf msg = {0};
			sb_printf(&msg, "input '%s' given twice", o->input_names[i]);
			input_error(r, msg.p);
			sb_free(&msg);
			ok = false;
		} else if (!(r->values[p] = read_input(r, r->f->params[p],
							o->input_paths[i]))) {
			ok = false;
		}
	}
	for (int p = 0; ok && p < r->ninput; p++)
		if (!r->values[p]) {
			const Var *v = r->f->params[p];
			StrBuf msg = {0};
			sb_printf(&msg, "missing input '%s' (%s): give it with "
				  "--input %s=FILE.npy", v->name,
				  infer_sinfo_str(r->m, v->sinfo), v->name);
			input_error(r, msg.p);
			sb_free(&msg);
			ok = false;
		}
	return ok;
}

/* --------------------------------------------------------------- weights */

/* Opens the checkpoint (this worker's records of a tensor-parallel cache)
 * and checks it against the weight parameters; false after errors. */
static bool
open_weights(Run *r)
{
	if (!r->wname)
		return true;
	RtError e;
	if (!r->w && !(r->w = rt_weights_open(r->wname, &e))) {
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
		return false;
	}
	int tp = rt_weights_tensor_parallel(r->w);
	int rank = rt_comm_rank(r->comm);
	if (rt_comm_is_mpi(r->comm) && tp && tp != rt_comm_size(r->comm)) {
		diag_file(r->d, DIAG_ERROR, r->wname, "the cache holds the "
			  "weights of %d workers, but mpirun started %d: run it "
			  "with mpirun -np %d", tp, rt_comm_size(r->comm), tp);
		return false;
	}
	/* one process without a launcher would answer with worker 0's
	 * partial sums: never a partial answer with exit 0 */
	if (tp > 1 && !rt_comm_is_mpi(r->comm) && r->o->rank < 0) {
		diag_file(r->d, DIAG_ERROR, r->wname, "the cache holds the "
			  "weights of %d workers (--tensor-parallel %d): run it "
			  "with mpirun -np %d, or one worker alone with --rank K "
			  "(0 to %d)", tp, tp, tp, tp - 1);
		return false;
	}
	if ((tp || rank) && !rt_weights_set_rank(r->w, rank, &e)) {
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
		return false;
	}
	return rt_check_weights(r->m, r->f, r->ninput, r->w, r->wname,
				r->o->strict, NULL, r->d) == 0;
}

/* ---------------------------------------------------------------- output */

/* o->out on the process that writes results, the result known: a tuple
 * goes to a directory. false after an error. */
static bool
out_start(Run *r)
{
	const rlx_run_info *info = &r->res->info;
	Out *out = &r->out;
	const char *o = r->o->out;
	out->dir = o[0] && o[strlen(o) - 1] == '/'; /* `-o tp/`: the directory tp */
	out->path = rt_path_strip(o);
	size_t n = strlen(out->path);
	if (info->tuple && n > 4 && !strcmp(out->path + n - 4, ".npy")) {
		diag_file(r->d, DIAG_ERROR, NULL, "%s returns a tuple of %d "
			  "fields, written as a directory: -o %s looks like a "
			  ".npy file", info->func, info->nresult, out->path);
		return false;
	}
	out->written = xcalloc((size_t)info->nresult + 1, sizeof *out->written);
	return true;
}

/* A field of the result into the temporary directory of out (a tuple's
 * fields as they come, and a tensor written into a directory). */
static bool
out_field(Run *r, int field, const RtValue *v)
{
	Out *out = &r->out;
	RtError e;
	bool ok = out->tmp.tmp || rt_dir_begin(&out->tmp, out->path, &e);
	if (ok) {
		char *path = rt_field_path(out->tmp.tmp, field, v->kind == RV_TUPLE);
		ok = rt_value_write(path, v, &e);
		free(path);
	}
	if (!ok)
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
	else
		out->written[field] = v->kind == RV_TUPLE ? WRITTEN_DIR : WRITTEN_FILE;
	return ok;
}

/* Is path an existing directory? */
static bool
is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Renames a to b; false after an error. */
static bool
rename_to(Run *r, const char *a, const char *b)
{
	if (rename(a, b) == 0)
		return true;
	diag_file(r->d, DIAG_ERROR, NULL, "cannot rename %s to %s: %s", a, b,
		  strerror(errno));
	return false;
}

/*
 * Moves the fields written to the temporary directory into out: the
 * directory renamed into place when out does not exist, else each field
 * renamed into the existing directory (each rename atomic). false after
 * an error.
 */
static bool
move_into_place(Run *r)
{
	Out *out = &r->out;
	if (!is_dir(out->path)) {
		RtError e;
		if (rt_dir_commit(&out->tmp, false, &e))
			return true;
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
		return false;
	}
	for (int k = 0; k < r->res->info.nresult; k++) {
		bool nested = out->written[k] == WRITTEN_DIR;
		char *a = rt_field_path(out->tmp.tmp, k, nested);
		char *b = rt_field_path(out->path, k, nested);
		bool ok = rename_to(r, a, b);
		free(a);
		free(b);
		if (!ok)
			return false;
	}
	if (r->res->info.tuple) { /* the manifest, last: it describes the fields */
		StrBuf a = {0}, b = {0};
		sb_printf(&a, "%s/fields.json", out->tmp.tmp);
		sb_printf(&b, "%s/fields.json", out->path);
		bool ok = rename_to(r, a.p, b.p);
		sb_free(&a);
		sb_free(&b);
		if (!ok)
			return false;
	}
	rt_dir_abort(&out->tmp);
	return true;
}

/* A tuple result's directory, its fields written: DIR/fields.json (each
 * field's file and the name the function gives it), then into place. */
static bool
out_tuple(Run *r)
{
	Out *out = &r->out;
	if (!out->tmp.tmp) { /* an empty tuple: an empty directory */
		if (mkdir(out->path, 0777) == 0 || errno == EEXIST)
			return true;
		diag_file(r->d, DIAG_ERROR, NULL, "cannot create %s: %s",
			  out->path, strerror(errno));
		return false;
	}
	int n = r->res->info.nresult;
	bool *nested = xcalloc((size_t)n + 1, sizeof *nested);
	for (int k = 0; k < n; k++)
		nested[k] = out->written[k] == WRITTEN_DIR;
	RtError e;
	bool ok = rt_write_fields_manifest(out->tmp.tmp, r->res->info.names,
					   nested, n, &e);
	if (!ok)
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
	free(nested);
	return ok && move_into_place(r);
}

/*
 * A tensor result v to out: to OUT, or to DIR/0.npy when OUT is (or is
 * written as) a directory, through the temporary directory as the fields
 * of a tuple. Nothing is half-written.
 */
static bool
out_tensor(Run *r, const RtValue *v)
{
	Out *out = &r->out;
	if (is_dir(out->path) || out->dir)
		return out_field(r, 0, v) && move_into_place(r);
	RtError e;
	RtTensor *t = rt_value_npy_tensor(v, &e);
	bool ok = t && rt_npy_write(out->path, t, &e);
	if (!ok)
		diag_file(r->d, DIAG_ERROR, NULL, "cannot write %s: %s",
			  out->path, e.msg);
	rt_tensor_free(t);
	return ok;
}

/* The temporary directory removed (when a run failed), out freed. */
static void
out_free(Out *out)
{
	if (out->tmp.tmp)
		rt_dir_abort(&out->tmp);
	free(out->path);
	free(out->written);
}

/* --------------------------------------------------------------- running */

/* The stream's load: an input, or a weight from the checkpoint. */
static RtValue *
run_load(void *ctx, int param, RtError *e)
{
	Run *r = ctx;
	if (param < r->ninput)
		return rt_value_retain(r->values[param]);
	double t0 = rt_now_s();
	const char *name = r->f->params[param]->name;
	RtValue *v = NULL;
	RtError le;
	if (r->f->params[param]->sinfo->kind == SI_SHAPE) {
		int64_t vals[64];
		int n = 64;
		if (rt_weights_load_shape(r->w, name, vals, &n, &le))
			v = rt_value_shape(vals, n);
		else
			rt_error(e, "weight '%s': %s", name, le.msg);
	} else {
		RtTensor *t = rt_weights_load(r->w, name, &le);
		if (!t)
			rt_error(e, "weight '%s': %s", name, le.msg);
		else if (!(v = rt_value_weight(t)))
			rt_error(e, "out of memory");
	}
	r->res->t_load += rt_now_s() - t0;
	return v;
}

/* The stream's emit: a field to o->emit, kept, or (a process that writes
 * no result) dropped. */
static bool
run_emit(void *ctx, int field, RtValue *v, RtError *e)
{
	Run *r = ctx;
	int n = r->res->info.nresult;
	if (field < 0 || field >= n) {
		rt_error(e, "result field %d of %d", field, n);
		return false;
	}
	r->produced[field] = true;
	if (r->stream) {
		double t0 = rt_now_s();
		bool ok = r->out.path ? out_field(r, field, v)
				      : r->o->emit(r->o->ctx, field, v, r->d);
		r->res->t_emit += rt_now_s() - t0;
		if (!ok) {
			r->emit_failed = true;
			rt_error(e, "result field %d not written", field);
		}
		return ok;
	}
	if (r->res->info.writer) {
		rt_value_release(r->kept[field]);
		r->kept[field] = rt_value_retain(v);
	}
	return true;
}

/* Compiles and runs r->f as a stream; false after errors. */
static bool
execute(Run *r)
{
	rlx_run_result *res = r->res;
	double t0 = rt_now_s();
	RtProgram *p = rt_compile_func(r->m, r->f->name, r->d);
	double t_compile = rt_now_s() - t0;
	if (!rt_comm_all(r->comm, p != NULL)) {
		rt_program_free(p);
		return false;
	}
	rt_program_jit_stats(p, &res->jit_compiled, &res->jit_cached, &res->t_jit);
	res->t_plan = t_compile - res->t_jit;
	rt_program_set_comm(p, r->comm);
	rt_program_set_index_check(p, !r->o->no_index_check);
	RtStream s = {run_load, run_emit, r};
	RtError e;
	double t1 = rt_now_s(), l0 = res->t_load, w0 = res->t_emit;
	bool ok = rt_run_stream(p, &s, &e);
	res->t_run = rt_now_s() - t1 - (res->t_load - l0) - (res->t_emit - w0);
	/* a checkpoint truncated while it was read: no output from it */
	if (ok && r->w)
		ok = rt_weights_check(r->w, &e);
	if (!ok && !r->emit_failed)
		rt_error_report(r->d, r->m, &e);
	/* the others may wait for this process in a collective */
	if (!ok && rt_comm_is_mpi(r->comm) && rt_comm_size(r->comm) > 1)
		r->lost = true;
	for (int k = 0; ok && k < res->info.nresult; k++)
		if (!r->produced[k]) {
			diag_file(r->d, DIAG_ERROR, r->m->src.name, "result field "
				  "%d was not produced", k);
			ok = false;
		}
	rt_program_free(p);
	return ok;
}

/* ------------------------------------------------------------ preparing */

/* The function to run (opts->func, default main); NULL after an error
 * naming the module's functions. */
static Func *
find_func(Run *r)
{
	const char *name = r->o->func ? r->o->func : "main";
	Func *f = ir_find_func(r->m, name);
	if (f)
		return f;
	StrBuf b = {0};
	for (int i = 0; i < r->m->nfuncs; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", r->m->funcs[i]->name);
	diag_file(r->d, DIAG_ERROR, r->m->src.name, "the module has no function "
		  "'%s' (functions: %s)", name, b.p ? b.p : "none");
	sb_free(&b);
	return NULL;
}

/* What f returns: the inferred result (more precise than an R.Object
 * annotation), its fields and their names. */
static void
result_info(Run *r)
{
	rlx_run_info *in = &r->res->info;
	const Func *f = r->f;
	const SInfo *ret = f->body->seq.body->sinfo;
	if (!ret || ret->kind == SI_OBJECT)
		ret = f->body->sinfo;
	if (!ret || ret->kind == SI_OBJECT)
		ret = f->ret;
	in->func = f->name;
	in->tuple = ret && ret->kind == SI_TUPLE;
	in->nresult = in->tuple ? ret->nfields : 1;
	const char **names = ARENA_ARRAY(&r->m->arena, const char *,
					 in->nresult + 1);
	rt_result_field_names(f, names, in->nresult);
	in->names = names;
	in->process = rt_comm_rank(r->comm);
	in->processes = rt_comm_is_mpi(r->comm) ? rt_comm_size(r->comm) : 1;
	r->res->info.writer = !rt_comm_is_mpi(r->comm) || in->process == 0;
	r->stream = in->tuple && (r->o->emit || r->o->out) &&
		    r->res->info.writer;
	r->produced = calloc((size_t)in->nresult + 1, sizeof *r->produced);
	r->kept = calloc((size_t)in->nresult + 1, sizeof *r->kept);
	if (!r->produced || !r->kept)
		ir_bug("out of memory");
}

/* The module parsed, the function picked, its transform convention
 * unbundled, its inputs and weights told apart. A status. */
static int
prepare(Run *r, const char *filename, const char *text, size_t len)
{
	double t0 = rt_now_s();
	r->m = rlx_parse(filename, text, len, r->d);
	r->res->t_parse = rt_now_s() - t0;
	if (!r->m || !(r->f = find_func(r)))
		return RLX_EINPUT;
	r->ninput = ir_func_num_input(r->f);
	/* F_transform_params in TVM's convention: its weights by name */
	if (r->ninput == 0) {
		int errors = r->d->nerrors;
		rt_unbundle(r->m, r->f, NULL, r->d);
		if (r->d->nerrors != errors)
			return RLX_EINPUT;
	}
	if (r->ninput < 0 || r->ninput > r->f->nparams)
		r->ninput = r->f->nparams;
	return RLX_OK;
}

/* The workers: this process alone as worker o->rank, or mpirun's. */
static bool
open_comm(Run *r)
{
	RtError e;
	r->comm = r->o->rank >= 0 ? rt_comm_single(r->o->rank, &e)
				  : rt_comm_open(&e);
	if (!r->comm)
		diag_file(r->d, DIAG_ERROR, NULL, "%s", e.msg);
	return r->comm != NULL;
}

/* The weights given against the weights the function has. A status. */
static int
weights_given(Run *r)
{
	int nweights = r->f->nparams - r->ninput;
	if (r->wname && nweights == 0) {
		diag_file(r->d, DIAG_NOTE, NULL, "%s has no weight parameters; "
			  "%s is not read", r->f->name, r->wname);
		r->wname = NULL;
	} else if (!r->wname && nweights > 0) {
		diag_file(r->d, DIAG_ERROR, NULL, "%s has %d weight parameter%s "
			  "(the first is '%s'): give them with --params PATH",
			  r->f->name, nweights, nweights == 1 ? "" : "s",
			  r->f->params[r->ninput]->name);
		return RLX_EOPTIONS;
	}
	return RLX_OK;
}

int
rlx_run(const char *filename, const char *text, size_t len,
	const char *weights, const rlx_run_options *opts, rlx_run_result *res,
	rlx_diags *d)
{
	static const rlx_run_options none = {0};
	memset(res, 0, sizeof *res);
	Run r = {.o = opts ? opts : &none, .res = res, .d = d, .wname = weights};
	char *own = NULL;
	int status = RLX_OK;
	if (opts && opts->rank >= 0 && rt_comm_launched()) {
		diag_file(d, DIAG_ERROR, NULL, "--rank is for one process; "
			  "under mpirun the worker is the MPI rank");
		return RLX_EOPTIONS;
	}
	if (r.o->model_in_cache) {
		/* the model and its weights from one opened directory */
		RtError e;
		if (!weights || !(r.w = rt_weights_open(weights, &e)) ||
		    !(own = rt_weights_read_model(r.w, &len, &e))) {
			diag_file(d, DIAG_ERROR, NULL, "%s", weights ? e.msg :
				  "model_in_cache without a cache");
			status = RLX_EINPUT;
		}
		text = own;
	}
	if (status == RLX_OK)
		status = prepare(&r, filename, text, len);
	free(own);
	if (status == RLX_OK && r.o->plan_only) {
		RtProgram *p = rt_compile_func(r.m, r.f->name, d);
		StrBuf b = {0};
		if (p)
			rt_program_plan(p, &b);
		res->plan = p ? sb_take(&b) : NULL;
		status = p ? RLX_OK : RLX_EINPUT;
		rt_program_free(p);
	} else if (status == RLX_OK && !open_comm(&r)) {
		status = RLX_EINPUT;
	} else if (status == RLX_OK) {
		result_info(&r);
		if (r.o->out && res->info.writer && !out_start(&r))
			status = RLX_EINPUT;
		else if (r.o->start && !r.o->start(&res->info, r.o->ctx, d))
			status = RLX_EINPUT;
		else
			status = weights_given(&r);
	}
	if (status == RLX_OK && r.comm) {
		double t0 = rt_now_s();
		bool ok = read_inputs(&r);
		ok = open_weights(&r) && ok;
		res->t_load = rt_now_s() - t0;
		/* every process checks its own weights; one failing stops all */
		if (r.lost || !rt_comm_all(r.comm, ok) || !execute(&r))
			status = r.lost ? RLX_EABORT : RLX_EINPUT;
	}
	for (int i = 0; r.values && i < r.ninput; i++)
		rt_value_release(r.values[i]);
	free(r.values);
	free(r.produced);
	bool written = r.out.path != NULL; /* by this process */
	if (status == RLX_OK && written) {
		double t0 = rt_now_s();
		if (!(res->info.tuple ? out_tuple(&r) : out_tensor(&r, r.kept[0])))
			status = RLX_EINPUT;
		res->t_emit += rt_now_s() - t0;
	}
	out_free(&r.out);
	if (status == RLX_OK && res->info.writer && !r.stream && !written) {
		res->fields = r.kept;
	} else {
		for (int k = 0; r.kept && k < res->info.nresult; k++)
			rt_value_release(r.kept[k]);
		free(r.kept);
	}
	RunPriv *priv = malloc(sizeof *priv);
	if (!priv)
		ir_bug("out of memory");
	*priv = (RunPriv){r.m, r.w};
	res->priv = priv;
	if (r.comm && rt_comm_is_mpi(r.comm))
		rt_comm_release(r.comm); /* MPI ends in rlx_run_end */
	else
		rt_comm_close(r.comm);
	return status;
}

void
rlx_run_result_free(rlx_run_result *res)
{
	/* the fields may borrow the checkpoint: released before closing it */
	for (int k = 0; res->fields && k < res->info.nresult; k++)
		rt_value_release(res->fields[k]);
	free(res->fields);
	free(res->plan);
	RunPriv *priv = res->priv;
	if (priv) {
		rt_weights_close(priv->w);
		rlx_module_free(priv->m);
		free(priv);
	}
	memset(res, 0, sizeof *res);
}

char *
rlx_run_result_text(const rlx_run_result *res)
{
	if (!res->fields)
		return NULL;
	int n = res->info.nresult;
	RtValue *v;
	if (res->info.tuple) {
		for (int k = 0; k < n; k++)
			rt_value_retain(res->fields[k]);
		v = rt_value_tuple(res->fields, n);
		if (!v)
			ir_bug("out of memory");
	} else {
		v = rt_value_retain(res->fields[0]);
	}
	StrBuf b = {0};
	rt_value_print(&b, res->info.func, v);
	rt_value_release(v);
	return sb_take(&b);
}

void
rlx_run_end(void)
{
	rt_comm_finalize();
}
