/*
 * rlx_runtime.h — the public interface of librlx_runtime: running what rlx
 * compiles on weights.
 *
 *   rlx_transform     a model's weight transform, streamed from a checkpoint
 *                     into a tensor cache (`rlx transform`)
 *   rlx_init_weights  seeded random weights for a function (`rlx init-weights`)
 *   rlx_verify_lift   the original function on raw weights against the lifted
 *                     one on transformed weights (`rlx verify`)
 *   rlx_run           a function on weights and inputs, its result handed
 *                     out field by field or kept (`rlx run`)
 *   rlx_lift          the lift pipeline with --bind values, some read from
 *                     .npy files (`rlx lift`)
 *   rlx_run_passes_with  passes by name with those --bind values and a look
 *                     at the module after each (`rlx dump`)
 *   rlx_write_file    a file written whole or not at all (`rlx lift -o`)
 *   rlx_install_signal_handlers  for a program: what the library's files
 *                     need of signals
 *
 * Each takes the module's text (as rlx_parse does), reports every error and
 * warning into an rlx_diags (rlx.h), and returns a status: RLX_OK, RLX_EINPUT
 * (the input is wrong: the module, the checkpoint, a file), RLX_EOPTIONS
 * (an option names what the module does not have; its error is the last
 * of d, rlx_diags_take_last_error) or, under mpirun only, RLX_EABORT
 * (below). Nothing here prints, exits or changes process-wide settings
 * (but rlx_install_signal_handlers, which a program calls when it wants
 * them); the caller decides what to show and when the process ends.
 *
 * MPI. rlx_transform (distributed) and rlx_run under mpirun initialize MPI
 * and leave it initialized when they return, so that the caller can print
 * its report before the processes part: the caller then calls
 * rlx_transform_end / rlx_run_end, which finalize it (Open MPI's finalize
 * waits for every process). RLX_EABORT says that this process failed where
 * the others may be waiting for it in a collective (a collective failed,
 * or a step only this process took): the run cannot end together. The
 * caller shows d and ends the whole run itself (MPI_Abort on
 * MPI_COMM_WORLD; `rlx` exits 1 so), instead of calling the _end function.
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

enum { RLX_OK = 0, RLX_EINPUT = 1, RLX_EOPTIONS = 2, RLX_EABORT = 3 };

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
	 * among its processes (the library initializes MPI; see MPI at the
	 * top for who finalizes it). The outputs are split by a plan every process
	 * computes from the module and the checkpoint header; each process
	 * reads the weights its outputs need and writes its shard files into
	 * the temporary directory of process 0, which writes the JSON and
	 * moves the cache into place. DIR must be on a file system all of
	 * them see. The cache is the one process's, byte for byte. Without
	 * mpirun: one process, as when false. */
	bool distributed;
	/* Called at most 10 times a second while tensors stream, and once
	 * with final set at the end of the run. NULL: none. */
	void (*progress)(const rlx_progress *p, bool final, void *ctx);
	void *progress_ctx;
	/* Only lift and compile the transform, and put the executor's plan
	 * of it in stats->plan (`--print-plan`): no checkpoint is read
	 * (weights may be NULL) and nothing is written (out may be NULL). */
	bool plan_only;
	/* Skip the check of index values, as rlx_run_options'. */
	bool no_index_check;
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
 * finalizes MPI (MPI, at the top). Nothing when MPI was not started. */
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
	bool shared;                /* lift one shared transform_params */
	const char *const *shared_funcs; /* ...of these (NULL: all), func */
	int nshared_funcs;               /* among them */
	bool no_index_check;        /* as in rlx_run_options */
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

/* ------------------------------------------------------------------ lift */

typedef struct {
	bool shared;               /* as in rlx_transform_options */
	const char *const *shared_funcs;
	int nshared_funcs;
	bool tidy;                 /* rlx's clean-ups around the lift (not
				    * TVM's), as rlx_transform lifts */
	bool consume_params;       /* each *transform_params releases a weight
				    * after reading it (vm.builtin.
				    * tuple_reset_item), as TVM's
				    * relax.lift_transform_params.consume_params */
	/* bind-params before lifting: NAME=VALUE, VALUE a number or
	 * "@FILE.npy" (a tensor parameter bound to the array) */
	const char *const *bind_names;
	const char *const *bind_values;
	int nbinds;
} rlx_lift_options;

/*
 * Parses the module and runs the lift pipeline on it: convert-ssa,
 * bind-params (with binds), lift-transform-params, and with tidy
 * canonicalize-bindings and dead-code-elimination around it. The lifted
 * module (rlx_print it; rlx_module_free), or NULL after errors in d.
 */
rlx_module *rlx_lift(const char *filename, const char *text, size_t len,
		     const rlx_lift_options *o, rlx_diags *d);

/*
 * rlx_run_passes (rlx.h) with options: bind-params' values (as
 * rlx_lift_options', "@FILE.npy" arrays read before any pass runs) and
 * `after`, called after each pass with its name and the module (`rlx dump
 * --print-after-all`). The verifier runs after each pass. Returns the
 * number of errors (unknown pass names included). o may be NULL.
 */
typedef struct {
	const char *const *bind_names;
	const char *const *bind_values;
	int nbinds;
	void (*after)(const char *pass, const rlx_module *m, void *ctx);
	void *ctx;
} rlx_passes_options;

int rlx_run_passes_with(rlx_module *m, const char *passes,
			const rlx_passes_options *o, rlx_diags *d);

/* ----------------------------------------------------------------- files */

/*
 * Writes the len bytes at data as the file path, whole or not at all:
 * under a temporary name next to it, created exclusively, renamed into
 * place (docs/cli.md; a link at path is followed as a shell's `>` follows
 * it, a device or a FIFO is written into directly). RLX_OK, or RLX_EINPUT
 * with the error, naming the file, in d.
 */
int rlx_write_file(const char *path, const void *data, size_t len,
		   rlx_diags *d);

/*
 * For a program that wants them (`rlx` does; the library never installs
 * them itself): on SIGINT, SIGTERM and SIGHUP the temporaries the library
 * is writing are removed and the process exits 128 + the signal (signals
 * ignored when the process started stay ignored); a mapped checkpoint
 * truncated while it is read gives an error instead of SIGBUS; SIGXFSZ is
 * ignored, so that a write over a file-size limit (ulimit -f, a quota)
 * fails with an error naming the file instead of killing the process.
 */
void rlx_install_signal_handlers(void);

/* ------------------------------------------------------------------- run */

/* A value of a result: a tensor, a shape tuple, a scalar or a tuple of
 * them (runtime/exec/rt_exec.h's RtValue). */
typedef struct rlx_value rlx_value;

/* What the function returns, known before anything runs. */
typedef struct {
	const char *func;          /* the function's name */
	bool tuple;                /* the result is a tuple */
	int nresult;               /* its fields (1 when no tuple) */
	const char *const *names;  /* per field: the variable the function
				    * returns there, or NULL */
	int process, processes;    /* this process of the run (mpirun) */
	bool writer;               /* this process writes the result (all
				    * but process 0 under mpirun keep none) */
} rlx_run_info;

typedef struct {
	const char *func;          /* NULL: main */
	const char *const *input_names; /* inputs from .npy files (an R.Shape
				    * from a 1-d int64 array, an R.Prim from
				    * a 0-d array, bfloat16 from float32) */
	const char *const *input_paths;
	int ninputs;
	bool strict;               /* as in rlx_transform_options */
	/* Worker `rank` of a tensor-parallel model, in this one process (its
	 * NAME_shard-K weights; collectives over itself); -1: the MPI rank
	 * under mpirun (MPI, at the top), else worker 0 of 1. A rank under
	 * mpirun is RLX_EOPTIONS. */
	int rank;
	/* Write the result to the file system (`rlx run -o`) instead of
	 * keeping it or handing it to emit: a tensor (a shape, a scalar: as
	 * .npy writes them, docs/formats.md) to the .npy file `out`, or to
	 * out/0.npy when out ends in '/' or is a directory; a tuple as the
	 * directory out: out/0.npy, out/1.npy, ... (a nested tuple as
	 * out/1/0.npy ...) and out/fields.json, each field written as soon as
	 * it is final. All under temporary names, renamed into place once
	 * everything is written (into an existing directory field by field,
	 * its other files left alone): a failed run leaves nothing. A tuple
	 * with out named *.npy is an error before anything is read. Only the
	 * process that writes results writes. NULL: none. */
	const char *out;
	/* Called once the function is known, before any input or weight is
	 * read: false stops the run (RLX_EINPUT; the callback says why). */
	bool (*start)(const rlx_run_info *info, void *ctx, rlx_diags *d);
	/* When set and the result is a tuple (and out is NULL): each field
	 * as soon as it is final (v borrowed for the call), and none is kept.
	 * false stops the run (the callback reports why into d). Called only
	 * on the process that writes results (process 0 under mpirun). */
	bool (*emit)(void *ctx, int field, rlx_value *v, rlx_diags *d);
	void *ctx;
	/* Only compile the function and put the executor's plan in res->plan
	 * (`--print-plan`): nothing is read (weights may be NULL). */
	bool plan_only;
	/* Skip the check of index values (rt_program_set_index_check): an
	 * index out of range then reads a clamped position. */
	bool no_index_check;
	/* `rlx run DIR`: the module is the file model.py of the tensor cache
	 * `weights` (text is NULL; filename names it in messages), read from
	 * the directory the weights come from, so that a cache replaced
	 * meanwhile (rlx transform -o DIR) gives the old model and weights or
	 * the new ones, never one's model and the other's weights. */
	bool model_in_cache;
} rlx_run_options;

typedef struct {
	rlx_run_info info;
	/* The result's fields (info.nresult) when the writer has not taken
	 * them through emit or out; owned by res (rlx_run_result_free), they
	 * may borrow the checkpoint's memory, which stays open until then. */
	rlx_value **fields;
	char *plan;                /* plan_only: the plan (as rlx_transform) */
	/* where the time went, in seconds (t_emit: emit or writing out) */
	double t_parse, t_plan, t_jit, t_load, t_run, t_emit;
	int jit_compiled, jit_cached; /* kernel modules compiled, cached */
	void *priv;                /* the module and the checkpoint */
} rlx_run_result;

/*
 * Runs function opts->func of the module on the checkpoint `weights` (as
 * rlx_transform reads it, or a tensor cache; NULL when the function has
 * no weights) and the inputs. The parameters before num_input are inputs,
 * the others weights bound by name (without num_input, all are inputs; a
 * transform in TVM's convention, one tuple of weights, takes them by the
 * names the module gives them). Everything that can be checked before
 * running is, with the weights check of rlx_transform; then the function
 * runs as a stream, each weight loaded at first use and released after
 * its last. RLX_OK when it ran; weights missing for a function that has
 * some is RLX_EOPTIONS. res is filled in any case: free it with
 * rlx_run_result_free.
 */
int rlx_run(const char *filename, const char *text, size_t len,
	    const char *weights, const rlx_run_options *opts,
	    rlx_run_result *res, rlx_diags *d);
void rlx_run_result_free(rlx_run_result *res);
/* The kept result as text (`rlx run` without -o prints it): for each
 * tensor "NAME: dtype (shape)" and, up to 1000 elements, its values as
 * nested lists; a tuple field by field as NAME[K]; NAME the function's.
 * Malloc'ed, the caller frees; NULL when res keeps no result. */
char *rlx_run_result_text(const rlx_run_result *res);
/* After an rlx_run under mpirun (and after printing its report): as
 * rlx_transform_end. */
void rlx_run_end(void);

#ifdef __cplusplus
}
#endif
#endif
