/*
 * rlx_runtime.h — the public interface of librlx_runtime: running what rlx
 * compiles on weights.
 *
 *   rlx_transform     a model's weight transform, streamed from a checkpoint
 *                     into a tensor cache (`rlx transform`)
 *   rlx_init_weights  seeded random weights for a function (`rlx init-weights`)
 *   rlx_verify_lift   the original function on raw weights against the lifted
 *                     one on transformed weights (`rlx verify`)
 *
 * Each takes the module's text (as rlx_parse does), reports every error and
 * warning into an rlx_diags (rlx.h), and returns a status: RLX_OK, RLX_EINPUT
 * (the input is wrong: the module, the checkpoint, a file) or RLX_EOPTIONS
 * (an option names what the module does not have). Nothing here prints,
 * exits or changes process-wide settings; the caller decides what to show.
 */
#ifndef RLX_RUNTIME_H
#define RLX_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rlx.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RLX_OK = 0, RLX_EINPUT = 1, RLX_EOPTIONS = 2 };

/* ------------------------------------------------------------ transform */

/* Where a transform is, for a progress display. */
typedef struct {
	int tensors_done, tensors;    /* outputs written of all */
	uint64_t bytes_in, total_in;  /* checkpoint bytes read of all */
	double seconds;               /* since rlx_transform started */
} rlx_progress;

typedef struct {
	const char *func;          /* NULL: main, or the only function with
				    * num_input that is not a transform */
	bool shared;               /* lift one shared transform_params */
	const char *const *shared_funcs; /* ...of these functions (NULL: all) */
	int nshared_funcs;
	uint64_t shard_bytes;      /* the cache's shard cap; 0: 32 MiB */
	bool strict;               /* checkpoint tensors that are no weight of
				    * the transform: an error, not a warning */
	/* Pre-shard for N workers (0: not tensor-parallel): the transform
	 * runs once per worker K with the rank bound to K; outputs that
	 * depend on the rank are stored as NAME_shard-K, the others once;
	 * the metadata's rlxTensorParallel is N. */
	int tensor_parallel;
	/* Started by mpirun (Open MPI's environment says so): share the work
	 * among its processes (the library initializes MPI and finalizes it
	 * before it returns). The outputs are split by a plan every process
	 * computes from the module and the checkpoint header; each process
	 * reads the weights its outputs need and writes its shard files into
	 * the temporary directory of process 0, which writes the JSON and
	 * moves the cache into place. DIR must be on a file system all of
	 * them see. The cache is the one process's, byte for byte. Without
	 * mpirun: one process, as when false. MPI stays initialized when
	 * rlx_transform returns: call rlx_transform_end after reporting. */
	bool distributed;
	/* Called at most 10 times a second while tensors stream, and once
	 * with final set at the end of the run. NULL: none. */
	void (*progress)(const rlx_progress *p, bool final, void *ctx);
	void *progress_ctx;
	/* Only lift and compile the transform, and put the executor's plan
	 * of it in stats->plan (`--print-plan`): no checkpoint is read
	 * (weights may be NULL) and nothing is written (out may be NULL). */
	bool plan_only;
} rlx_transform_options;

typedef struct {
	bool up_to_date;           /* out already held this transform: nothing done */
	int tensors;               /* outputs written */
	uint64_t bytes_in, bytes_out;
	double seconds;
	uint64_t peak_anon;        /* the most anonymous resident memory (the
				    * working set, without mapped checkpoint
				    * pages) seen when an output was written
				    * (by this process) */
	char *plan;                /* plan_only: the plan, one line per
				    * binding (which kernel computes it, or
				    * the kernel it is fused into);
				    * malloc'ed, the caller frees; else NULL */
	int processes, process;    /* how many shared the work; which this is */
	uint64_t bytes_read_max;   /* the most checkpoint bytes one process read */
} rlx_transform_stats;

/*
 * Lifts the module (unless it has F_transform_params already), runs the
 * transform on the checkpoint `weights` (safetensors file, sharded index or
 * tensor cache) and writes the tensor cache `out` with the lifted module as
 * out/model.py. Inputs stream: a weight is read when first needed and its
 * pages dropped after its last use; outputs are written by two threads as
 * soon as they are final. out is replaced atomically; when it already holds
 * the same transform of the same checkpoint, nothing is written and
 * stats->up_to_date is set. Tensors of the checkpoint that the transform
 * does not take are a warning naming them (an error with strict). stats
 * may be NULL.
 */
int rlx_transform(const char *filename, const char *text, size_t len,
		  const char *weights, const char *out,
		  const rlx_transform_options *opts,
		  rlx_transform_stats *stats, rlx_diags *d);

/* After a distributed rlx_transform (and after printing its report):
 * finalizes MPI, which waits for every process of the run to get there.
 * Nothing when MPI was not started. */
void rlx_transform_end(void);

/* ---------------------------------------------------------- init-weights */

/* Values of symbolic variables given by name (`--dim NAME=VALUE`). */
typedef struct {
	const char *const *names;
	const int64_t *values;
	int n;
} rlx_dims;

typedef struct {
	const char *func;   /* as in rlx_transform_options */
	uint64_t seed;
	rlx_dims dims;      /* symbolic dims of the weights' shapes */
} rlx_init_options;

/*
 * Writes deterministic random weights for the weight parameters of the
 * function (those after num_input) to the safetensors file out, named as
 * the parameters, with their dtypes and shapes: floats N(0, 0.02),
 * integers uniform in [0, 16), bool 0 or 1; each tensor's values depend
 * only on the seed and its name. A dim naming no symbolic variable of the
 * function is RLX_EOPTIONS.
 */
int rlx_init_weights(const char *filename, const char *text, size_t len,
		     const char *out, const rlx_init_options *opts,
		     rlx_diags *d);

/* ---------------------------------------------------------------- verify */

typedef struct {
	const char *func;           /* as in rlx_transform_options */
	uint64_t seed;              /* of the random inputs */
	rlx_dims dims;              /* symbolic input dims (default 4) */
	const char *const *input_names; /* inputs given as .npy files */
	const char *const *input_paths;
	int ninputs;
	bool strict;                /* as in rlx_transform_options */
} rlx_verify_options;

typedef struct {
	bool agree;    /* every output within its dtype's tolerance */
	char *report;  /* a line per compared output; malloc'ed, caller frees */
} rlx_verify_result;

/*
 * Runs the function on the raw weights of `weights`, then lifts the module,
 * runs F_transform_params on the same weights and the lifted function on
 * its outputs (all in memory), on the same inputs (random where not given:
 * floats N(0, 1), integers in [0, 4)), and compares the outputs. RLX_OK
 * when both ran (whether they agree is in res); an input or dim naming
 * nothing of the function is RLX_EOPTIONS.
 */
int rlx_verify_lift(const char *filename, const char *text, size_t len,
		    const char *weights, const rlx_verify_options *opts,
		    rlx_verify_result *res, rlx_diags *d);

#ifdef __cplusplus
}
#endif
#endif
