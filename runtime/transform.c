/*
 * transform.c — rlx_transform (rlx_runtime.h): a model's weight transform
 * run streaming on a checkpoint into a tensor cache.
 *
 * The module is lifted (unless it has F_transform_params), the transform
 * JIT-compiled and run by rt_run_stream: each weight is read from the
 * checkpoint when the executor first needs it, each output goes to the
 * cache writers (cache_queue.c) as soon as it is final, and the mapped
 * pages of an input are dropped (madvise) once the executor lets go of it,
 * so resident memory stays bounded by the tensors computed together. The
 * cache carries the hashes of what it was computed from (ckpt_hash.c); a
 * second run with the same inputs finds it up to date and does nothing.
 * The weights are checked against the transform's parameters first
 * (check.c). Only this thread touches the values' reference counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <xxhash.h>

#include "pass.h"
#include "transform.h"
#include "rlx_runtime.h"

/* Queued for the writers at most, beyond one job per writer. */
enum { WRITER_BYTES = 16 << 20, NWRITERS = 2 };

/* The state of one streaming transform. */
typedef struct {
	Module *m;
	Func *F, *T;
	int ninput;          /* F's num_input */
	int nout;            /* outputs of T = F's parameters after num_input */
	RtWeights *src;      /* the checkpoint: file, index or tensor cache */
	RtCacheQueue *q;
	RtValue **held;      /* per parameter of T: our reference, until dropped */
	const char **names;  /* T's parameter names */
	RtWeightInfo *info;
	uint64_t total_in, bytes_in, bytes_out;
	uint64_t peak_anon;  /* most anonymous memory seen at an output */
	int nemitted;
	int ntotal;          /* outputs written by the whole run */
	int nskipped;        /* shared outputs of workers after 0 */
	int tp, rank;        /* --tensor-parallel N, the worker being run */
	bool *dep;           /* per output: rank-dependent (tp only) */
	const rlx_transform_options *o;
	double t0, last;
	char *model_text;    /* the lifted module, printed before unbundling */
} Xf;

/* Monotonic time in seconds. */
static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Releases the inputs the executor no longer holds, dropping their pages. */
static void
xf_sweep(Xf *x, bool all)
{
	for (int i = 0; i < x->T->nparams; i++) {
		RtValue *v = x->held[i];
		if (!v || (!all && v->refs > 1))
			continue;
		if (v->refs == 1 && v->kind == RV_TENSOR)
			rt_advise_tensor(v->t, MADV_DONTNEED);
		rt_value_release(v);
		x->held[i] = NULL;
	}
}

/* The progress callback, at most 10 times a second (and once at the end). */
static void
xf_progress(Xf *x, bool final)
{
	if (!x->o->progress)
		return;
	double t = now_s();
	if (!final && t - x->last < 0.1)
		return;
	x->last = t;
	rlx_progress p = {x->nemitted, x->ntotal, x->bytes_in, x->total_in,
			  t - x->t0};
	x->o->progress(&p, final, x->o->progress_ctx);
}

/* RtStream.load: weight `param` of T, by name from the checkpoint. */
static RtValue *
xf_load(void *ctx, int param, RtError *e)
{
	Xf *x = ctx;
	rt_cache_queue_poll(x->q);
	xf_sweep(x, false);
	if (param < 0 || param >= x->T->nparams) {
		rt_error(e, "%s: the executor asked for parameter %d of %d",
			 x->T->name, param, x->T->nparams);
		return NULL;
	}
	RtTensor *t = rt_weights_load(x->src, x->names[param], e);
	if (!t)
		return NULL;
	rt_advise_tensor(t, MADV_WILLNEED);
	x->bytes_in += t->nbytes;
	RtValue *v = rt_value_tensor(t);
	if (!v) {
		rt_error(e, "out of memory");
		return NULL;
	}
	if (x->held[param])
		rt_value_release(x->held[param]);
	x->held[param] = rt_value_retain(v);
	xf_progress(x, false);
	return v;
}

/* RtStream.emit: output k of T goes to the cache under the name of F's
 * corresponding parameter. */
static bool
xf_emit(void *ctx, int k, RtValue *v, RtError *e)
{
	Xf *x = ctx;
	if (k < 0 || k >= x->nout) {
		rt_error(e, "%s: output %d of %d", x->T->name, k, x->nout);
		return false;
	}
	const char *name = x->F->params[x->ninput + k]->name;
	bool ok;
	if (x->tp && !x->dep[k] && x->rank > 0) {
		/* a shared output: written by worker 0's run */
		x->nskipped++;
		xf_sweep(x, false);
		return true;
	}
	if (x->tp && x->dep[k])
		name = arena_printf(&x->m->arena, "%s_shard-%d", name, x->rank);
	if (v->kind == RV_TENSOR || v->kind == RV_SHAPE) {
		ok = rt_cache_queue_push(x->q, v, name, e);
		x->bytes_out += v->kind == RV_TENSOR ? v->t->nbytes
						     : (uint64_t)v->n * 8;
	} else {
		rt_error(e, "%s: output %d ('%s') is a %s; a tensor cache holds "
			 "tensors and shape tuples", x->T->name, k, name,
			 v->kind == RV_TUPLE ? "tuple" : "scalar");
		ok = false;
	}
	x->nemitted++;
	/* the working set, without the checkpoint's mapped pages */
	uint64_t anon = rt_mem_anon();
	if (anon > x->peak_anon)
		x->peak_anon = anon;
	xf_sweep(x, false);
	xf_progress(x, false);
	return ok;
}

/* F and its transform T, lifting the module when it has no T yet. */
static bool
find_transform(Xf *x, Diags *d)
{
	const rlx_transform_options *o = x->o;
	const char *fname = x->F->name;
	char *tname = arena_printf(&x->m->arena, "%s_transform_params",
				   o->shared ? "" : fname);
	if (o->shared)
		tname += strlen("_");
	const char **wnames = NULL; /* the weights' names, when we lift */
	if (!ir_find_func(x->m, tname)) {
		wnames = rt_lift_weight_names(x->m, x->F, o->shared,
					      o->shared_funcs, o->nshared_funcs);
		if (rt_lift_module(x->m, o->shared, o->shared_funcs,
				   o->nshared_funcs, d))
			return false;
	}
	x->F = ir_find_func(x->m, fname);
	x->T = ir_find_func(x->m, tname);
	if (!x->F || !x->T) {
		diag_file(d, DIAG_ERROR, x->m->src.name,
			  "lifting '%s' made no %s", fname, tname);
		return false;
	}
	/* DIR/model.py keeps TVM's convention; the engine binds by name */
	x->model_text = rlx_print(x->m, NULL);
	int errors = d->nerrors;
	rt_unbundle(x->m, x->T, wnames, d);
	if (d->nerrors != errors)
		return false;
	x->ninput = ir_func_num_input(x->F);
	x->nout = x->F->nparams - x->ninput;
	const SInfo *ret = x->T->ret ? x->T->ret
			   : x->T->body ? x->T->body->sinfo : NULL;
	if (!ret || ret->kind != SI_TUPLE || ret->nfields != x->nout) {
		diag_file(d, DIAG_ERROR, x->m->src.name,
			  "%s must return a tuple of the %d parameters of %s "
			  "after its inputs", x->T->name, x->nout, fname);
		return false;
	}
	return true;
}

/* Compiles T, runs it streaming into the cache at out and finishes the
 * cache with its metadata; false after reporting into d. */
static bool
run_into(Xf *x, const char *weights, const char *out, json_t *prov,
	 RtCkptHash *h, Diags *d)
{
	RtProgram *prog = rt_compile_func(x->m, x->T->name, d);
	if (!prog)
		return false;
	const char *model_text = x->model_text;
	uint64_t shard = x->o->shard_bytes ? x->o->shard_bytes : 32 << 20;
	RtCacheOptions co = {.shard_bytes = (size_t)shard};
	RtError e;
	RtCacheWriter *cw = rt_cache_begin(out, &co, &e);
	bool ok = cw != NULL;
	if (!ok)
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	if (ok && !(x->q = rt_cache_queue_new(cw, x->ntotal, NWRITERS,
					      WRITER_BYTES))) {
		diag_file(d, DIAG_ERROR, out, "out of memory");
		ok = false;
	}
	if (ok) {
		RtStream s = {.load = xf_load, .emit = xf_emit, .ctx = x};
		/* tensor-parallel: worker by worker, the rank bound to K (one
		 * process playing worker K: its slices, no collectives) */
		bool run_ok = true;
		int nworkers = x->tp ? x->tp : 1;
		for (x->rank = 0; run_ok && x->rank < nworkers; x->rank++) {
			RtComm *c = rt_comm_single(x->rank, &e);
			run_ok = c != NULL;
			if (run_ok) {
				rt_program_set_comm(prog, c);
				run_ok = rt_run_stream(prog, &s, &e);
				rt_program_set_comm(prog, NULL);
			}
			rt_comm_close(c);
			xf_sweep(x, true);
		}
		RtError we;
		bool wok = rt_cache_queue_finish(x->q, run_ok, &we);
		x->q = NULL;
		xf_sweep(x, true);
		xf_progress(x, true);
		ok = false;
		if (!run_ok)
			diag_file(d, DIAG_ERROR, x->m->src.name, "%s", e.msg);
		else if (!wok)
			diag_file(d, DIAG_ERROR, out, "%s", we.msg);
		else if (x->nemitted + x->nskipped !=
			 x->nout * (x->tp ? x->tp : 1))
			diag_file(d, DIAG_ERROR, x->m->src.name,
				  "%s produced %d of its %d outputs", x->T->name,
				  x->nemitted + x->nskipped,
				  x->nout * (x->tp ? x->tp : 1));
		else if (!rt_ckpt_hash_rest(h, x->src, &e))
			diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		/* a checkpoint truncated while it was read: nothing computed
		 * from it is kept (the guard made the fault zeros and this) */
		else if (!rt_weights_check(x->src, &e))
			diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		else
			ok = true;
	}
	if (ok) {
		char ch[17];
		rt_ckpt_hash_hex(h, ch);
		json_object_set_new(prov, "rlxCheckpointHash", json_string(ch));
		char *extra = json_dumps(prov, JSON_COMPACT | JSON_PRESERVE_ORDER);
		ok = rt_cache_add_file(cw, "model.py", model_text,
				       strlen(model_text), &e);
		if (ok) {
			ok = rt_cache_finish(cw, extra, &e);
			cw = NULL;
		}
		free(extra);
		if (!ok)
			diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	}
	if (cw)
		rt_cache_abort(cw);
	rt_program_free(prog);
	return ok;
}

int
rlx_transform(const char *filename, const char *text, size_t len,
	      const char *weights, const char *out,
	      const rlx_transform_options *opts, rlx_transform_stats *stats,
	      rlx_diags *d)
{
	rlx_transform_options none = {0};
	Xf x = {.o = opts ? opts : &none, .t0 = now_s()};
	rlx_transform_stats st = {0};
	RtCkptHash *h = NULL;
	json_t *prov = NULL;
	int status = RLX_EINPUT;
	x.m = rlx_parse(filename, text, len, d);
	if (!x.m || !(x.F = rt_pick_func(x.m, x.o->func, "transform", d)) ||
	    !find_transform(&x, d))
		goto done;
	RtError e;
	if (x.o->plan_only) {
		RtProgram *prog = rt_compile_func(x.m, x.T->name, d);
		if (prog) {
			StrBuf b = {0};
			rt_program_plan(prog, &b);
			st.plan = sb_take(&b);
			status = RLX_OK;
		}
		rt_program_free(prog);
		goto done;
	}
	if (!(x.src = rt_weights_open(weights, &e))) {
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		goto done;
	}
	size_t np = (size_t)x.T->nparams + 1;
	x.held = calloc(np, sizeof *x.held);
	x.names = calloc(np, sizeof *x.names);
	x.info = calloc(np, sizeof *x.info);
	for (int i = 0; i < x.T->nparams; i++)
		x.names[i] = x.T->params[i]->name;
	if (rt_check_weights(x.m, x.T, 0, x.src, weights, x.o->strict, x.info, d))
		goto done;
	x.ntotal = x.nout;
	if (x.o->tensor_parallel > 0) {
		x.tp = x.o->tensor_parallel;
		if (!(x.dep = rt_rank_dependent(x.m, x.T, x.nout, x.tp, d)))
			goto done;
		x.ntotal = 0;
		for (int k = 0; k < x.nout; k++)
			x.ntotal += x.dep[k] ? x.tp : 1;
		/* NAME_shard-K is a worker's: a shared output may not look so */
		for (int k = 0; k < x.nout; k++) {
			const char *nm = x.F->params[x.ninput + k]->name;
			const char *u = strrchr(nm, '_');
			if (!x.dep[k] && u && !strncmp(u, "_shard-", 7)) {
				diag_file(d, DIAG_ERROR, x.m->src.name,
					  "'%s' is the same for every worker, but "
					  "its name says it is one worker's "
					  "(NAME_shard-K): rename it", nm);
				goto done;
			}
		}
	}
	for (int i = 0; i < x.T->nparams; i++)
		x.total_in += x.info[i].nbytes;
	h = rt_ckpt_hash_new(weights, x.names, x.T->nparams);
	uint64_t shard = x.o->shard_bytes ? x.o->shard_bytes : 32 << 20;
	prov = rt_provenance(XXH3_64bits(text, len), x.F->name, x.T->name, shard,
			     x.o->shared);
	if (x.tp)
		json_object_set_new(prov, "rlxTensorParallel", json_integer(x.tp));
	bool failed;
	if (rt_cache_up_to_date(out, prov, h, x.src, &failed, &e)) {
		st.up_to_date = true;
		status = RLX_OK;
		goto done;
	}
	if (failed) {
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		goto done;
	}
	rt_ckpt_hash_start(h);
	if (!run_into(&x, weights, out, prov, h, d))
		goto done;
	status = RLX_OK;
	st.tensors = x.ntotal;
	st.bytes_in = x.total_in;
	st.bytes_out = x.bytes_out;
	st.peak_anon = x.peak_anon;
done:
	st.seconds = now_s() - x.t0;
	if (stats)
		*stats = st;
	rt_ckpt_hash_free(h);
	rt_cache_queue_finish(x.q, false, &e);
	if (x.held)
		xf_sweep(&x, true);
	json_decref(prov);
	free(x.held);
	free(x.names);
	free(x.model_text);
	free(x.info);
	free(x.dep);
	rt_weights_close(x.src);
	rlx_module_free(x.m);
	return status;
}
