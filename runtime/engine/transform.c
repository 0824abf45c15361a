/*
 * transform.c — rlx_transform (rlx_runtime.h): a model's weight transform
 * run streaming on a checkpoint into a tensor cache.
 *
 * The module is lifted (unless it has F_transform_params), the transform
 * JIT-compiled and run by rt_run_stream: each weight is read from the
 * checkpoint when the executor first needs it (with pread, into buffers
 * a pool reuses: on a VM, touching the file's pages through a mapping
 * could cost several times the copy; a tensor cache's records are
 * mapped, their pages dropped by madvise once the executor lets go of
 * them), and each output goes to the cache writers (cache_queue.c) as
 * soon as it is final, so resident memory stays bounded by the tensors
 * computed together. The
 * cache carries the hashes of what it was computed from (ckpt_hash.c); a
 * second run with the same inputs finds it up to date and does nothing.
 * The weights are checked against the transform's parameters first
 * (check.c). Only this thread touches the values' reference counts.
 *
 * The cache's layout is planned before anything runs when the outputs'
 * shapes follow from the checkpoint header (rt_cache_plan: records in
 * parameter order, worker 0's then each further worker's own): the writer
 * puts each output at its planned place whenever it comes. Under mpirun
 * (opts->distributed) the plan's shards are split among the processes:
 * each runs the transform for the outputs of its shards only (the rest
 * pruned: rt_run_stream_some), reading only the weights those need, and
 * writes only its shards into the temporary directory that process 0
 * created; the checkpoint's hash is shared the same way (each weight
 * hashed by the first process that reads it). Process 0 gathers the shard
 * hashes, writes tensor-cache.json and renames the directory into place;
 * a failure anywhere is agreed on by all and leaves nothing. Without a
 * plan (an output whose shape only running tells), process 0 does it all.
 * The cache is the same, byte for byte, for any number of processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pass.h"
#include "transform.h"
#include "rlx_runtime.h"
#include "xxh.h"

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
	RtCkptHash *hash;    /* the checkpoint's: what its thread read ahead */
	RtValue **held;      /* per parameter of T: our reference, until dropped */
	RtBufPool *inpool;      /* the buffers weights are read into, reused */
	const char **names;  /* T's parameter names */
	RtWeightInfo *info;
	uint64_t total_in, bytes_in, bytes_out;
	uint64_t peak_anon;  /* most anonymous memory seen at an output */
	int nemitted;
	int ntotal;          /* outputs written by the whole run */
	int nskipped;        /* shared outputs of workers after 0 */
	int tp, rank;        /* --tensor-parallel N, the worker being run */
	bool *dep;           /* per output: rank-dependent (tp only) */
	/* the planned layout, and the processes sharing the work */
	RtPlanRec *precs;    /* in cache order */
	int *rec_worker, *rec_out; /* per record: its worker K and output k */
	int nrecs;
	RtCachePlan plan;
	bool planned;
	RtComm *comm;
	int nprocs, me;
	/* a collective failed: the processes can no longer meet; none is
	 * tried again and rlx_transform returns RLX_EABORT */
	bool lost;
	uint64_t bytes_read; /* checkpoint bytes this process read */
	const rlx_transform_options *o;
	double t0, last;
	char *model_text;    /* the lifted module, printed before unbundling */
} Xf;

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
	double t = rt_now_s();
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
	if (!x->inpool && !(x->inpool = rt_bufpool_new())) {
		rt_error(e, "out of memory");
		return NULL;
	}
	/* read and hashed by the hashing thread, else read (and hashed) here */
	RtTensor *t = rt_ckpt_hash_take(x->hash, param);
	if (!t) {
		if (!(t = rt_weights_read(x->src, x->names[param], x->inpool, e)))
			return NULL;
		rt_advise_tensor(t, MADV_WILLNEED); /* a cache's mapped record */
		rt_ckpt_hash_offer(x->hash, param, t);
	}
	x->bytes_in += t->nbytes;
	x->bytes_read += t->nbytes;
	RtValue *v = rt_value_weight(t);
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
		if (rt_lift_tidy(x->m, o->shared, o->shared_funcs,
				 o->nshared_funcs, o->tensor_parallel > 0, d))
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

/* ---------------------------------------------------------- the plan */

/* The symbolic variable a binding of T matches the worker's rank to
 * (`wid1 = R.match_cast(wid, R.Shape([r]))` over the worker_id call), or
 * NULL. */
static SymVar *
rank_var(const Func *T)
{
	const Expr *body = T->body;
	for (int i = 0; i < body->seq.nblocks; i++) {
		Block *bl = body->seq.blocks[i];
		for (int j = 0; j < bl->n; j++) {
			Binding *b = bl->bindings[j];
			const SInfo *c = b->cast;
			if (!c || c->kind != SI_SHAPE || c->ndim != 1 ||
			    !c->shape || c->shape[0]->kind != PE_VAR)
				continue;
			const Expr *v = b->value;
			for (int k = 0; v->kind == E_VAR && k <= i; k++)
				for (int q = 0; q < body->seq.blocks[k]->n; q++)
					if (body->seq.blocks[k]->bindings[q]->var ==
					    v->var) {
						v = body->seq.blocks[k]->bindings[q]->value;
						break;
					}
			if (ir_is_worker_id(v))
				return c->shape[0]->var;
		}
	}
	return NULL;
}

/* Record i of the plan: output k of worker K, its shape from T's result
 * annotation under env; false when the annotation does not tell it. */
static bool
plan_one(Xf *x, RtSymEnv *env, const SInfo *f, int K, int k, RtPlanRec *r)
{
	const char *name = x->F->params[x->ninput + k]->name;
	if (x->tp && x->dep[k])
		name = arena_printf(&x->m->arena, "%s_shard-%d", name, K);
	*r = (RtPlanRec){.name = name};
	const SymVar *u;
	if (f->kind == SI_SHAPE) {
		if (f->ndim < 0)
			return false;
		*r = (RtPlanRec){.name = name, .dtype = DT_I64, .ndim = 1,
				 .shape = {f->ndim}, .is_shape = true};
		return true;
	}
	if (f->kind != SI_TENSOR || f->dtype == DT_UNKNOWN || f->ndim < 0 ||
	    f->ndim > RT_MAX_DIMS || (f->ndim && !f->shape))
		return false;
	r->dtype = f->dtype;
	r->ndim = f->ndim;
	for (int d = 0; d < f->ndim; d++)
		if (!rt_env_eval(env, f->shape[d], &r->shape[d], &u) ||
		    r->shape[d] < 0)
			return false;
	return true;
}

/* The cache's records in order, with their shapes from T's annotations
 * and the checkpoint's; x->planned when every one is known. */
static void
plan_records(Xf *x)
{
	const SInfo *ret = x->T->ret ? x->T->ret : x->T->body->sinfo;
	int nw = x->tp ? x->tp : 1;
	x->precs = calloc((size_t)x->ntotal + 1, sizeof *x->precs);
	x->rec_worker = calloc((size_t)x->ntotal + 1, sizeof *x->rec_worker);
	x->rec_out = calloc((size_t)x->ntotal + 1, sizeof *x->rec_out);
	if (!x->precs || !x->rec_worker || !x->rec_out)
		return;
	RtSymEnv env = {.arena = &x->m->arena};
	for (int i = 0; i < x->T->nparams; i++) {
		const SInfo *si = x->T->params[i]->sinfo;
		if (!si || si->kind != SI_TENSOR || !si->shape)
			continue;
		for (int d = 0; d < si->ndim && d < x->info[i].ndim; d++)
			if (si->shape[d]->kind == PE_VAR &&
			    !rt_env_has(&env, si->shape[d]->var))
				rt_env_bind(&env, si->shape[d]->var,
					    x->info[i].shape[d]);
	}
	SymVar *r = x->tp ? rank_var(x->T) : NULL;
	int base = env.n, n = 0;
	bool ok = ret && ret->kind == SI_TUPLE && ret->nfields == x->nout;
	for (int K = 0; ok && K < nw; K++) {
		env.n = base; /* the rank's binding is the last one */
		if (r)
			rt_env_bind(&env, r, K);
		for (int k = 0; ok && k < x->nout; k++) {
			if (K > 0 && !x->dep[k])
				continue;
			ok = plan_one(x, &env, ret->fields[k], K, k,
				      &x->precs[n]);
			x->rec_worker[n] = K;
			x->rec_out[n++] = k;
		}
	}
	rt_env_free(&env);
	x->nrecs = n;
	x->planned = ok && n == x->ntotal;
}

/* ------------------------------------------------------ the processes */

/* A collective failed (why): the run is lost, said into d. */
static void
lose(Xf *x, const char *why, Diags *d)
{
	diag_file(d, DIAG_ERROR, x->m ? x->m->src.name : "transform", "%s",
		  why);
	x->lost = true;
}

/*
 * Every process says whether it got this far; true when all did. Process 0
 * reports for all: the others drop their diagnostics, and when another
 * process failed first, process 0 gives its first error (one process: its
 * own, kept).
 */
static bool
agree(Xf *x, bool ok, Diags *d)
{
	if (x->nprocs == 1)
		return ok;
	if (x->lost)
		return false;
	uint64_t *w = calloc((size_t)x->nprocs, sizeof *w);
	RtError e;
	if (!w) {
		lose(x, "out of memory", d);
		return false;
	}
	w[x->me] = !ok;
	if (!rt_comm_sum_u64(x->comm, w, (size_t)x->nprocs, &e)) {
		free(w);
		lose(x, e.msg, d);
		return false;
	}
	int nfail = 0, first = -1;
	for (int q = 0; q < x->nprocs; q++)
		if (w[q]) {
			nfail++;
			if (first < 0)
				first = q;
		}
	free(w);
	if (!nfail)
		return true;
	/* process 0 reports for all: the first failure's message goes to it
	 * (a process's own output could be lost when mpirun ends the job) */
	char msg[768] = "", file[256] = "";
	for (int i = 0; x->me == first && i < d->n; i++)
		if (d->items[i].level == DIAG_ERROR) {
			snprintf(msg, sizeof msg, "%s", d->items[i].msg);
			snprintf(file, sizeof file, "%s", d->items[i].file
				 ? d->items[i].file : x->m ? x->m->src.name : "");
			break;
		}
	if (first > 0 && (!rt_comm_bcast(x->comm, msg, sizeof msg, first, &e) ||
			  !rt_comm_bcast(x->comm, file, sizeof file, first, &e))) {
		lose(x, e.msg, d);
		return false;
	}
	if (x->me == 0 && first > 0)
		diag_file(d, DIAG_ERROR, *file ? file : "transform",
			  "process %d of the %d%s failed, so nothing was "
			  "written: %s", first, x->nprocs,
			  nfail > 1 ? " and others" : "", msg);
	if (x->me > 0)
		diag_clear(d);
	return false;
}

/* The most of this value over the processes (one: itself). */
static uint64_t
most(Xf *x, uint64_t v, Diags *d)
{
	if (x->nprocs == 1 || x->lost)
		return v;
	uint64_t *w = calloc((size_t)x->nprocs, sizeof *w), m = v;
	RtError e;
	if (!w)
		return v;
	w[x->me] = v;
	if (!rt_comm_sum_u64(x->comm, w, (size_t)x->nprocs, &e))
		lose(x, e.msg, d);
	for (int q = 0; !x->lost && q < x->nprocs; q++)
		if (w[q] > m)
			m = w[q];
	free(w);
	return m;
}

/* Runs T for worker K with the outputs of want (all: NULL) streaming to
 * the queue. */
static bool
run_worker(Xf *x, RtProgram *prog, int K, const bool *want, RtError *e)
{
	RtStream s = {.load = xf_load, .emit = xf_emit, .ctx = x};
	e->span = (Span){0};
	x->rank = K;
	RtComm *c = rt_comm_single(K, e);
	bool ok = c != NULL;
	if (ok) {
		rt_program_set_comm(prog, c);
		ok = rt_run_stream_some(prog, &s, want, e);
		rt_program_set_comm(prog, NULL);
	}
	rt_comm_close(c);
	xf_sweep(x, true);
	if (!ok && x->tp) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		rt_error(e, "worker %d of %d: %s", K, x->tp, msg);
	}
	return ok;
}

/* After the run: the writers drained, every output there, the checkpoint
 * hashed (this process's part) and unchanged; false after reporting. */
static bool
run_end(Xf *x, bool run_ok, const RtError *re, int want, const char *weights,
	const char *out, RtCkptHash *h, Diags *d)
{
	RtError we, e;
	bool wok = rt_cache_queue_finish(x->q, run_ok, &we);
	x->q = NULL;
	xf_sweep(x, true);
	xf_progress(x, true);
	if (!run_ok)
		rt_error_report(d, x->m, re);
	else if (!wok)
		diag_file(d, DIAG_ERROR, out, "%s", we.msg);
	else if (x->nemitted + x->nskipped != want)
		diag_file(d, DIAG_ERROR, x->m->src.name,
			  "%s produced %d of its %d outputs", x->T->name,
			  x->nemitted + x->nskipped, want);
	else if (!rt_ckpt_hash_rest(h, x->src, &e))
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
	/* a checkpoint truncated while it was read: nothing computed
	 * from it is kept (the guard made the fault zeros and this) */
	else if (!rt_weights_check(x->src, &e))
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
	else
		return true;
	return false;
}

/* Writes the metadata and the module, and renames the cache into place. */
static bool
finish(Xf *x, RtCacheWriter *cw, const char *out, json_t *prov,
       RtCkptHash *h, Diags *d)
{
	char ch[17];
	RtError e;
	rt_ckpt_hash_hex(h, ch);
	json_object_set_new(prov, "rlxCheckpointHash", json_string(ch));
	char *extra = json_dumps(prov, JSON_COMPACT | JSON_PRESERVE_ORDER);
	bool ok = rt_cache_add_file(cw, RT_CACHE_MODEL, x->model_text,
				    strlen(x->model_text), &e);
	if (ok)
		ok = rt_cache_finish(cw, extra, &e);
	else
		rt_cache_abort(cw);
	free(extra);
	if (!ok)
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	return ok;
}

/* Runs T streaming into a cache laid out as it comes, worker by worker
 * (one process: no plan could be made) and finishes it. */
static bool
run_into(Xf *x, RtProgram *prog, const char *weights, const char *out,
	 json_t *prov, RtCkptHash *h, Diags *d)
{
	uint64_t shard = x->o->shard_bytes ? x->o->shard_bytes : 32 << 20;
	RtCacheOptions co = {.shard_bytes = (size_t)shard};
	RtError e;
	RtCacheWriter *cw = rt_cache_begin(out, &co, &e);
	if (!cw) {
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
		return false;
	}
	if (!(x->q = rt_cache_queue_new(cw, x->ntotal, NWRITERS,
					WRITER_BYTES))) {
		diag_file(d, DIAG_ERROR, out, "out of memory");
		rt_cache_abort(cw);
		return false;
	}
	bool run_ok = true;
	for (int K = 0; run_ok && K < (x->tp ? x->tp : 1); K++)
		run_ok = run_worker(x, prog, K, NULL, &e);
	if (!run_end(x, run_ok, &e, x->nout * (x->tp ? x->tp : 1), weights,
		     out, h, d)) {
		rt_cache_abort(cw);
		return false;
	}
	return finish(x, cw, out, prov, h, d);
}

/* Process 0's temporary directory, to the others (NULL: it has none, or
 * the run is lost). */
static char *
share_tmp(Xf *x, RtCacheWriter *cw, Diags *d)
{
	RtError e;
	const char *t = x->me == 0 && cw ? rt_cache_tmpdir(cw) : NULL;
	uint64_t n = t ? strlen(t) : 0;
	if (x->nprocs > 1 && !rt_comm_bcast(x->comm, &n, sizeof n, 0, &e)) {
		lose(x, e.msg, d);
		return NULL;
	}
	char *s = n ? calloc(n + 1, 1) : NULL;
	if (!s)
		return NULL;
	if (t)
		memcpy(s, t, n);
	if (x->nprocs > 1 && !rt_comm_bcast(x->comm, s, n, 0, &e)) {
		free(s);
		lose(x, e.msg, d);
		return NULL;
	}
	return s;
}

/* want[K * nout + k]: whether process q writes output k of worker K. */
static void
wanted_by(const Xf *x, int q, bool *want)
{
	int nw = x->tp ? x->tp : 1;
	memset(want, 0, (size_t)nw * (size_t)x->nout * sizeof *want);
	for (int i = 0; i < x->nrecs; i++)
		if (x->plan.owner[x->precs[i].shard] == q)
			want[x->rec_worker[i] * x->nout + x->rec_out[i]] = true;
}

/*
 * Who hashes each weight (tmine: this process): the first process that
 * reads it (every process works this out for all, identically), else one
 * in turn; x->total_in gets what this process reads, for the progress.
 * want, used and towner are scratch. false + e when a run cannot be
 * planned.
 */
static bool
plan_hashers(Xf *x, RtProgram *prog, bool *want, bool *used, int *towner,
	     bool *tmine, RtError *e)
{
	int nw = x->tp ? x->tp : 1, np = x->T->nparams;
	for (int i = 0; i < np; i++)
		towner[i] = -1;
	x->total_in = 0;
	for (int q = 0; q < x->nprocs; q++) {
		wanted_by(x, q, want);
		for (int K = 0; K < nw; K++) {
			if (!rt_stream_params(prog, want + K * x->nout, used, e))
				return false;
			for (int i = 0; i < np; i++)
				if (used[i] && towner[i] < 0)
					towner[i] = q;
			for (int i = 0; q == x->me && i < np; i++)
				if (used[i] && !tmine[i]) {
					tmine[i] = true; /* read here */
					x->total_in += x->info[i].nbytes;
				}
		}
	}
	for (int i = 0; i < np; i++)
		tmine[i] = (towner[i] < 0 ? i % x->nprocs : towner[i]) == x->me;
	return true;
}

/* Runs this process's records, worker by worker, each run pruned to
 * them (want: scratch); false + e after a failure. */
static bool
run_mine(Xf *x, RtProgram *prog, bool *want, RtError *e)
{
	int nw = x->tp ? x->tp : 1;
	wanted_by(x, x->me, want);
	for (int K = 0; K < nw; K++) {
		bool any = false;
		for (int k = 0; k < x->nout; k++)
			any |= want[K * x->nout + k];
		if (any && !run_worker(x, prog, K, want + K * x->nout, e))
			return false;
	}
	return true;
}

/*
 * Runs this process's part of the planned cache: the records of its
 * shards, worker by worker, each run pruned to them; process 0 finishes
 * the cache once all have written theirs. Every process calls it (the
 * collectives are in the same order on all).
 */
static bool
run_planned(Xf *x, RtProgram *prog, const char *weights, const char *out,
	    json_t *prov, RtCkptHash *h, Diags *d)
{
	RtError e;
	const RtCachePlan *pl = &x->plan;
	int nw = x->tp ? x->tp : 1, np = x->T->nparams, mine = 0;
	bool *want = calloc((size_t)nw * (size_t)x->nout + 1, sizeof *want);
	bool *used = calloc((size_t)np + 1, sizeof *used);
	int *towner = calloc((size_t)np + 1, sizeof *towner);
	bool *tmine = calloc((size_t)np + 1, sizeof *tmine);
	uint64_t *words = calloc((size_t)(2 * np + pl->nshards) + 1,
				 sizeof *words);
	bool ok = want && used && towner && tmine && words, done = false;
	RtCacheWriter *cw = NULL;
	snprintf(e.msg, sizeof e.msg, "out of memory");
	if (ok)
		ok = plan_hashers(x, prog, want, used, towner, tmine, &e);
	if (!ok)
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	for (int i = 0; ok && i < x->nrecs; i++)
		if (pl->owner[x->precs[i].shard] == x->me)
			mine++;
	x->ntotal = mine;
	/* the writer: process 0 begins, the others join its directory */
	if (ok && x->me == 0 && !(cw = rt_cache_begin_planned(out, pl, &e)))
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	if (!agree(x, ok, d))
		goto fail;
	char *tmp = share_tmp(x, cw, d);
	if (x->lost)
		goto fail;
	if (x->me > 0 && !(cw = rt_cache_join(out, tmp, pl, x->me, &e)))
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
	free(tmp);
	if (cw && !(x->q = rt_cache_queue_new(cw, mine ? mine : 1, NWRITERS,
					      WRITER_BYTES))) {
		diag_file(d, DIAG_ERROR, out, "out of memory");
		rt_cache_abort(cw);
		cw = NULL;
	}
	if (!agree(x, cw != NULL, d))
		goto fail;
	if (x->nprocs > 1) { /* one process: hashing all since compiling */
		rt_ckpt_hash_only(h, tmine);
		rt_ckpt_hash_start(h);
	}
	ok = run_end(x, run_mine(x, prog, want, &e), &e, mine, weights, out, h,
		     d);
	/* this process's shards and weights, summed over all */
	if (ok && !rt_cache_hashes(cw, words + 2 * np, &e)) {
		diag_file(d, DIAG_ERROR, out, "%s", e.msg);
		ok = false;
	}
	if (ok)
		rt_ckpt_hash_words(h, words);
	if (!agree(x, ok, d))
		goto fail;
	if (!rt_comm_sum_u64(x->comm, words, (size_t)(2 * np + pl->nshards),
			     &e)) {
		lose(x, e.msg, d);
		goto fail;
	}
	x->bytes_read = most(x, x->bytes_read, d);
	if (x->lost)
		goto fail;
	done = true;
	if (x->me == 0) {
		rt_ckpt_hash_set_words(h, words, x->info);
		if (!rt_cache_set_hashes(cw, words + 2 * np, &e)) {
			diag_file(d, DIAG_ERROR, out, "%s", e.msg);
			rt_cache_abort(cw);
			done = false;
		} else {
			done = finish(x, cw, out, prov, h, d);
		}
	} else {
		rt_cache_abort(cw); /* joined: closes its files */
	}
	cw = NULL;
	done = agree(x, done, d);
fail:
	rt_cache_queue_finish(x->q, false, &e);
	x->q = NULL;
	rt_cache_abort(cw); /* process 0's removes the directory */
	free(want);
	free(used);
	free(towner);
	free(tmine);
	free(words);
	return done;
}

/* Opens the checkpoint and checks it against the transform's weights
 * (x->info gets what was found); false after errors. */
static bool
open_checkpoint(Xf *x, const char *weights, Diags *d)
{
	RtError e;
	if (!(x->src = rt_weights_open(weights, &e))) {
		diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
		return false;
	}
	size_t np = (size_t)x->T->nparams + 1;
	x->held = calloc(np, sizeof *x->held);
	x->names = calloc(np, sizeof *x->names);
	x->info = calloc(np, sizeof *x->info);
	if (!x->held || !x->names || !x->info)
		ir_bug("out of memory");
	for (int i = 0; i < x->T->nparams; i++)
		x->names[i] = x->T->params[i]->name;
	if (rt_check_weights(x->m, x->T, 0, x->src, weights, x->o->strict,
			     x->info, d))
		return false;
	x->ntotal = x->nout;
	return true;
}

/* --tensor-parallel N: which outputs depend on the worker (stored once
 * per worker), the count of records; false after errors. */
static bool
plan_workers(Xf *x, Diags *d)
{
	if (x->o->tensor_parallel <= 0)
		return true;
	x->tp = x->o->tensor_parallel;
	if (!(x->dep = rt_rank_dependent(x->m, x->T, x->nout, x->tp, d)))
		return false;
	x->ntotal = 0;
	for (int k = 0; k < x->nout; k++)
		x->ntotal += x->dep[k] ? x->tp : 1;
	/* NAME_shard-K is a worker's: a shared output may not look so */
	bool ok = true;
	for (int k = 0; k < x->nout; k++) {
		const char *nm = x->F->params[x->ninput + k]->name;
		const char *u = strrchr(nm, '_');
		if (!x->dep[k] && u && !strncmp(u, "_shard-", 7)) {
			diag_file(d, DIAG_ERROR, x->m->src.name,
				  "'%s' is the same for every worker, but its "
				  "name says it is one worker's (NAME_shard-K): "
				  "rename it", nm);
			ok = false;
		}
	}
	return ok;
}

/* Does out already hold this transform? Process 0 looks and tells the
 * others: 0 no, 1 up to date, 2 the checkpoint could not be read. */
static uint64_t
up_to_date(Xf *x, const char *out, json_t *prov, RtCkptHash *h,
	   const char *weights, Diags *d)
{
	uint64_t utd = 0;
	RtError e;
	if (x->me == 0) {
		bool failed;
		/* what a killed transform of out left is swept even when this
		 * one finds the cache up to date and writes nothing */
		rt_sweep_stale(out);
		if (rt_cache_up_to_date(out, prov, h, x->src, &failed, &e))
			utd = 1;
		else if (failed) {
			diag_file(d, DIAG_ERROR, weights, "%s", e.msg);
			utd = 2;
		}
	}
	if (x->nprocs > 1 && !rt_comm_bcast(x->comm, &utd, sizeof utd, 0, &e)) {
		lose(x, e.msg, d);
		utd = 2;
	}
	return utd;
}

/* The counts of a transform that went well. */
static void
final_stats(const Xf *x, rlx_transform_stats *st)
{
	st->tensors = x->planned ? x->nrecs : x->ntotal;
	st->bytes_in = 0;
	for (int i = 0; i < x->T->nparams; i++)
		st->bytes_in += x->info[i].nbytes;
	st->bytes_out = x->bytes_out;
	if (x->planned) {
		st->bytes_out = 0;
		for (int i = 0; i < x->nrecs; i++)
			st->bytes_out += x->precs[i].nbytes;
	}
	st->peak_anon = x->peak_anon;
	st->bytes_read_max = x->bytes_read;
}

/* --print-plan: the transform function's plan as text (malloc'ed), NULL
 * after an error. */
static char *
plan_text(Xf *x, rlx_diags *d)
{
	RtProgram *pp = rt_compile_func(x->m, x->T->name, d);
	if (!pp)
		return NULL;
	StrBuf b = {0};
	rt_program_plan(pp, &b);
	rt_program_free(pp);
	return sb_take(&b);
}

/* Frees what a transform holds (its writers stopped without draining). */
static void
xf_free(Xf *x)
{
	RtError e;
	rt_cache_queue_finish(x->q, false, &e);
	if (x->held)
		xf_sweep(x, true);
	free(x->held);
	free(x->names);
	free(x->model_text);
	free(x->info);
	free(x->dep);
	free(x->precs);
	free(x->rec_worker);
	free(x->rec_out);
	rt_cache_plan_free(&x->plan);
	rt_bufpool_release(x->inpool); /* after the last input is freed */
	rt_weights_close(x->src);
	rlx_module_free(x->m);
	rt_comm_release(x->comm); /* MPI ends in rlx_transform_end */
}

int
rlx_transform(const char *filename, const char *text, size_t len,
	      const char *weights, const char *out,
	      const rlx_transform_options *opts, rlx_transform_stats *stats,
	      rlx_diags *d)
{
	rlx_transform_options none = {0};
	Xf x = {.o = opts ? opts : &none, .t0 = rt_now_s(), .nprocs = 1};
	rlx_transform_stats st = {0};
	RtCkptHash *h = NULL;
	json_t *prov = NULL;
	RtProgram *prog = NULL;
	int status = RLX_EINPUT;
	RtError e;
	if (x.o->distributed && rt_comm_launched()) {
		if (!(x.comm = rt_comm_open(&e))) {
			diag_file(d, DIAG_ERROR, filename, "%s", e.msg);
			goto done;
		}
		x.nprocs = rt_comm_size(x.comm);
		x.me = rt_comm_rank(x.comm);
	}
	bool ok = (x.m = rlx_parse(filename, text, len, d)) &&
		  (x.F = rt_pick_func(x.m, x.o->func, "transform", d));
	if (ok && x.o->shared && !rt_shared_serves(x.o->shared_funcs,
						   x.o->nshared_funcs,
						   x.F->name, d)) {
		status = RLX_EOPTIONS;
		goto done;
	}
	ok = ok && find_transform(&x, d);
	if (ok && x.o->plan_only) { /* each process alike: nothing is shared */
		status = (st.plan = plan_text(&x, d)) ? RLX_OK : RLX_EINPUT;
		goto done;
	}
	ok = ok && open_checkpoint(&x, weights, d) && plan_workers(&x, d);
	uint64_t shard = x.o->shard_bytes ? x.o->shard_bytes : 32 << 20;
	if (ok) {
		for (int i = 0; i < x.T->nparams; i++)
			x.total_in += x.info[i].nbytes;
		h = x.hash = rt_ckpt_hash_new(weights, x.names, x.T->nparams);
		prov = rt_provenance(XXH3_64bits(text, len), x.F->name,
				     x.T->name, shard, x.o->shared);
		if (x.tp)
			json_object_set_new(prov, "rlxTensorParallel",
					    json_integer(x.tp));
	}
	/* the same input on every process: process 0 says what is wrong */
	if (!agree(&x, ok, d))
		goto done;
	if (x.me > 0)
		diag_clear(d); /* warnings too are process 0's to give */
	uint64_t utd = up_to_date(&x, out, prov, h, weights, d);
	if (utd == 1) {
		st.up_to_date = true;
		status = RLX_OK;
		goto done;
	}
	if (utd == 2)
		goto done;
	plan_records(&x);
	/* one process hashes the checkpoint while the transform compiles
	 * (several: once the plan says which weights each reads first) */
	if (x.nprocs == 1 || (!x.planned && x.me == 0))
		rt_ckpt_hash_start(h);
	ok = (prog = rt_compile_func(x.m, x.T->name, d)) != NULL;
	if (ok)
		rt_program_set_index_check(prog, !x.o->no_index_check);
	if (ok) {
		if (x.planned && !rt_cache_plan(&x.plan, x.precs, x.nrecs, shard,
						x.nprocs, &e)) {
			diag_file(d, DIAG_ERROR, x.m->src.name, "%s", e.msg);
			ok = false;
		}
	}
	if (!agree(&x, ok, d))
		goto done;
	if (x.planned)
		ok = run_planned(&x, prog, weights, out, prov, h, d);
	else
		ok = agree(&x, x.me > 0 ||
			   run_into(&x, prog, weights, out, prov, h, d), d);
	if (!ok)
		goto done;
	status = RLX_OK;
	final_stats(&x, &st);
done:
	if (x.lost)
		status = RLX_EABORT;
	st.seconds = rt_now_s() - x.t0;
	st.processes = x.nprocs;
	st.process = x.me;
	if (stats)
		*stats = st;
	rt_program_free(prog);
	rt_ckpt_hash_free(h);
	json_decref(prov);
	xf_free(&x);
	return status;
}

void
rlx_transform_end(void)
{
	rt_comm_finalize();
}
