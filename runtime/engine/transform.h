/*
 * transform.h — the pieces of the transform engine (runtime/engine/transform.c,
 * the public rlx_transform of rlx_runtime.h), each in a file of its own and
 * unit-tested alone (tests/unit/test_transform.c). Internal: librlx_runtime
 * exports only rlx_runtime.h. A section per file.
 */
#ifndef RLX_TRANSFORM_H
#define RLX_TRANSFORM_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "pass.h"
#include "rt_exec.h"

/* ---------------------------------------------------------------- check.c */

/*
 * Tensors of the checkpoint w that are no weight of f (no parameter
 * [first, f->nparams) of that name), the one policy of `run`, `transform`
 * and `verify`: one warning naming them (the first 8), "w.safetensors: 2
 * tensors are not a weight of main, ignored: 'bn.num_batches_tracked',
 * ..."; an error instead when strict. Returns how many there are.
 */
int rt_check_extra(const Func *f, int first, RtWeights *w, const char *wname,
		   bool strict, Diags *d);

/* ---------------------------------------------------------- cache_queue.c */

/*
 * The writers of a tensor cache: values pushed in order are appended to an
 * RtCacheWriter by up to `nthreads` threads. Each value's place in the
 * cache is fixed when a thread takes it (so the layout is the push order,
 * never the threads' timing); a tensor with a shard of its own is then
 * written outside the lock, beside the other thread's. A push waits while
 * every thread is busy and more than `max_bytes` are queued. The queue
 * holds a reference to each value and releases it once written (out of
 * order: a finished value gives its memory back at once). Only the thread
 * that pushes touches reference counts. Without threads (nthreads 0 or
 * none could start) values are written as they are pushed.
 */
typedef struct RtCacheQueue RtCacheQueue;

/* A queue for at most max_jobs values; NULL when out of memory. */
RtCacheQueue *rt_cache_queue_new(RtCacheWriter *cw, int max_jobs,
				 int nthreads, size_t max_bytes);
/* Queues v (a shape tuple or a tensor) under name (which must outlive the
 * queue); false + e once any write has failed. */
bool rt_cache_queue_push(RtCacheQueue *q, RtValue *v, const char *name,
			 RtError *e);
/* Releases the values written so far, without waiting. */
void rt_cache_queue_poll(RtCacheQueue *q);
/* Stops the threads (after writing what is queued when drain, else
 * skipping it), releases every value and frees q. false + e when a write
 * failed (drain only). NULL q is fine. */
bool rt_cache_queue_finish(RtCacheQueue *q, bool drain, RtError *e);

/* ------------------------------------------------------------ ckpt_hash.c */

/*
 * The checkpoint's hash, as a tensor cache records what it was computed
 * from: the names, dtypes, shapes and bytes of the named tensors, in order.
 * A thread hashes them in order from its own view of the checkpoint and
 * keeps what it read (a bounded amount) for the executor to take
 * (rt_ckpt_hash_take) instead of reading it again; the executor hashes
 * what it reads itself (rt_ckpt_hash_offer). rt_ckpt_hash_rest hashes on
 * the calling thread what neither has done.
 */
typedef struct RtCkptHash RtCkptHash;

/* For the n tensors `names` (which must outlive it) of the checkpoint at
 * path; NULL when out of memory. */
RtCkptHash *rt_ckpt_hash_new(const char *path, const char *const *names,
			     int n);
/* Starts the thread (nothing happens when it cannot be). */
void rt_ckpt_hash_start(RtCkptHash *h);
/* Stops the thread after the tensor it is on. */
void rt_ckpt_hash_stop(RtCkptHash *h);
/* Tensor i as the thread read it (hashed; the caller's to free), NULL
 * when the thread has not kept it (waits while the thread reads it). NULL
 * h is fine. */
RtTensor *rt_ckpt_hash_take(RtCkptHash *h, int i);
/* Tensor i, t, read by the caller: hashed here (on the calling thread)
 * unless the thread or an earlier offer has taken it. NULL h is fine. */
void rt_ckpt_hash_offer(RtCkptHash *h, int i, const RtTensor *t);
/* Waits for the thread (what it kept and nobody took is freed); then
 * hashes the rest from w (on this thread).
 * false + e when a tensor could not be read. */
bool rt_ckpt_hash_rest(RtCkptHash *h, RtWeights *w, RtError *e);
/* Several processes share the hashing: this one hashes only the tensors
 * mine[i] (rt_ckpt_hash_rest included). rt_ckpt_hash_words gives the
 * 128-bit hashes of this process's as two words each (zeros for the
 * others', n * 2 words), so that their sum over the processes is every
 * tensor's; rt_ckpt_hash_set_words takes that sum for the tensors hashed
 * elsewhere (their dtypes and shapes from info, the checkpoint header's
 * as rt_check_weights found it; declared after RtWeightInfo below). */
void rt_ckpt_hash_only(RtCkptHash *h, const bool *mine);
void rt_ckpt_hash_words(const RtCkptHash *h, uint64_t *words);
/* The hash (after rt_ckpt_hash_rest succeeded), as 16 hex digits. */
void rt_ckpt_hash_hex(const RtCkptHash *h, char hex[17]);
void rt_ckpt_hash_free(RtCkptHash *h); /* stops the thread; NULL is fine */

/* madvise over the whole pages of a borrowed tensor's bytes (mapped
 * read-only, so dropping pages neighbours share only costs a refault). */
void rt_advise_tensor(const RtTensor *t, int advice);

/* ---------------------------------------------------------------- check.c */

/* Values of symbolic variables while shapes are checked or made. The
 * values live in the arena. */
typedef struct {
	Arena *arena;
	SymVar **vars;
	PExpr **vals;
	int n, cap;
} RtSymEnv;

void rt_env_bind(RtSymEnv *env, SymVar *v, int64_t value);
bool rt_env_has(const RtSymEnv *env, const SymVar *v);
/* The value of x; false with *unbound naming a free variable. */
bool rt_env_eval(RtSymEnv *env, PExpr *x, int64_t *out,
		 const SymVar **unbound);
void rt_env_free(RtSymEnv *env);

/* What rt_check_weights found about each parameter it checked. */
typedef struct {
	DType dt;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	uint64_t nbytes;
} RtWeightInfo;

/*
 * The weights check: parameters [first, f->nparams) of f against the
 * checkpoint w (named `wname` in messages): each present, a tensor, with
 * its annotation's dtype and shape (a symbolic dimension binds at its first
 * bare occurrence and must agree where it recurs), or for an R.Shape
 * parameter a shape tuple of a tensor cache with its count of values. Errors into d, each
 * naming the file and tensor; checkpoint tensors f does not take are
 * rt_check_extra's warning (an error when strict). info (f->nparams - first
 * entries, may be NULL) receives what was found. Returns the errors.
 */
/* (ckpt_hash.c, see rt_ckpt_hash_only) */
void rt_ckpt_hash_set_words(RtCkptHash *h, const uint64_t *words,
			    const RtWeightInfo *info);

int rt_check_weights(Module *m, const Func *f, int first, RtWeights *w,
		     const char *wname, bool strict, RtWeightInfo *info,
		     Diags *d);

/* ----------------------------------------------------------- provenance.c */

/* The metadata fields of a cache that decide whether it is up to date
 * (rlxModuleHash, rlxFunc, rlxTransform, rlxShardSize, rlxShared,
 * rlxModel); the checkpoint's hash is added once known. */
json_t *rt_provenance(uint64_t module_hash, const char *func,
		      const char *transform, uint64_t shard_bytes,
		      bool shared);
/*
 * True when dir holds a sound cache (every shard's hash checked) made by
 * this rlx version with the fields of want, from the checkpoint w whose
 * hash h computes (hashing it only when all the rest matches; h keeps the
 * hashes for the run that may follow). *failed + e when the checkpoint
 * could not be read.
 */
bool rt_cache_up_to_date(const char *dir, json_t *want, RtCkptHash *h,
			 RtWeights *w, bool *failed, RtError *e);

/* ----------------------------------------------------------------- func.c */

/*
 * The function a command works on: name, else `main`, else the only
 * function with a num_input attribute that is not a transform; it must
 * have num_input. NULL with an error in d otherwise (`cmd` names the
 * command in the hint about choosing one).
 */
Func *rt_pick_func(Module *m, const char *name, const char *cmd, Diags *d);
/* The lift pipeline (pass_lift_pipeline, the one builder of it) on m with
 * each pass's options from o (bind-params when o->bind has values);
 * tidy: rlx's clean-ups around it, as `rlx lift --tidy` and `rlx
 * transform`. The errors. */
int rt_lift_module(Module *m, const PassOptions *o, bool tidy, Diags *d);
/* The --bind values (names[i]=values[i]) for bind-params in bv: a value
 * "@FILE.npy" is read into arrays[i] (the pass knows no files; the
 * caller frees them). false after an error naming the binding. */
bool rt_binds_load(const char *const *names, const char *const *values, int n,
		   PassBinding *bv, RtTensor **arrays, Diags *d);
/* Whether --shared=list (n names; n == 0: every function) serves the
 * function fname; else an error naming it. */
bool rt_shared_serves(const char *const *list, int n, const char *fname,
		      Diags *d);
/* Lifting as the engines do it: tidy, with o's --shared choice; rank_known
 * under --tensor-parallel (PassLiftOptions). */
int rt_lift_tidy(Module *m, bool shared, const char *const *shared_funcs,
		 int nshared, bool rank_known, Diags *d);
/* The names of the weights that lifting m bundles into the transform's
 * tuple: those of the first function lifted (TVM's order: the --shared list
 * as given, else by name; without shared, f). Arena strings; NULL when that
 * function has no num_input. */
const char **rt_lift_weight_names(Module *m, Func *f, bool shared,
				  const char *const *list, int nlist);
/* A transform in TVM's convention (one tuple of the weights) takes one
 * named parameter per weight instead (pass_unbundle_params): given[i] when
 * given is not NULL, else the names the module tells. */
void rt_unbundle(Module *m, Func *t, const char *const *given, Diags *d);
/* rt_compile with an error in d whatever the failure; NULL on failure. */
RtProgram *rt_compile_func(Module *m, const char *name, Diags *d);

/* ------------------------------------------------------------------- tp.c */

/*
 * Per output of the transform T (nout of them): whether it depends on the
 * worker's rank, so that `--tensor-parallel n` stores it once per worker
 * (NAME_shard-K) rather than once. NULL after located errors in d: a
 * collective in T (it runs one worker at a time), an op over another
 * number of workers than n. Malloc'ed.
 */
bool *rt_rank_dependent(Module *m, const Func *T, int nout, int n, Diags *d);

/* ---------------------------------------------------------- init_weights.c */

/* splitmix64: a PRNG whose state is one word. */
typedef struct {
	uint64_t s;
} RtRng;

/* The generator of one tensor, from the seed and the tensor's name, so a
 * tensor's values do not depend on the other parameters. */
RtRng rt_rng_for(uint64_t seed, const char *name);
/* Fills t: floats ~ N(0, std), integers uniform in [0, int_range), bool
 * 0/1. */
void rt_fill_random(RtTensor *t, RtRng *r, double std, int int_range);
/* Concrete dims of tensor annotation si: bare unbound variables take their
 * value in dims, or dflt when dflt >= 0; false with the message in err
 * otherwise. */
bool rt_resolve_shape(RtSymEnv *env, const char *const *names,
		      const int64_t *values, int n, int64_t dflt,
		      const SInfo *si, int64_t *shape, RtError *err);
/* Whether every name of the n names is a symbolic variable of f; else
 * the first that is not. */
const char *rt_unknown_dim(const Func *f, const char *const *names, int n);

#endif
