/*
 * rt_exec.h — the runtime's executor (runtime/exec/): values, a function
 * compiled for execution (RtProgram) and its runs, whole or streamed;
 * comparing values; the workers of a tensor-parallel run. Stands on
 * runtime/io/ (rt_io.h: values to and from .npy) and, inside, on
 * runtime/codegen/ (the kernels), which this header does not show: the
 * engines above see programs and values, never a kernel. A section per
 * file, prefix rt_.
 */
#ifndef RLX_RT_EXEC_H
#define RLX_RT_EXEC_H

#include "rt_io.h"

/* ---- exec_plan.c (planning), exec.c (running) */

/*
 * Values at run time: tensors, tuples, shape tuples and scalars. Values are
 * reference counted so that a tuple and its fields can share tensors; a value
 * is freed when its last reference goes (rt_value_release). Tensors are
 * never written once made, so values can be shared freely -- except by the
 * prim_funcs lowered code calls directly (cls.f(x, out)), which write into
 * the tensors they are given, as TVM's VM does: never into a read-only
 * one (a constant, a weight, a tensor mapped from a file).
 */
typedef enum { RV_TENSOR, RV_TUPLE, RV_SHAPE, RV_PRIM } RtValueKind;

typedef struct rlx_value { /* rlx_runtime.h calls it rlx_value */
	RtValueKind kind;
	int refs;
	RtTensor *t;             /* TENSOR */
	struct rlx_value **fields; /* TUPLE */
	int n;                   /* TUPLE fields, SHAPE values */
	int64_t *values;         /* SHAPE */
	DType dtype;             /* PRIM */
	int64_t i;               /* PRIM (ints, bool) */
	double f;                /* PRIM (floats) */
	struct rlx_value *base;    /* TENSOR views: the value owning the data */
	bool readonly;           /* TENSOR: no prim_func writes into it (a
				  * constant of the program, a weight) */
} RtValue;

/* Each returns a value with one reference, NULL when out of memory. */
RtValue *rt_value_tensor(RtTensor *t); /* takes ownership of t (even on
					* failure) */
/* The same for a checkpoint's weight: read-only (no prim_func writes into
 * it; it may be mapped, or read by the checkpoint hasher meanwhile). */
RtValue *rt_value_weight(RtTensor *t);
RtValue *rt_value_tuple(RtValue **fields, int n); /* takes the references */
RtValue *rt_value_shape(const int64_t *values, int n);
RtValue *rt_value_prim(DType dt, int64_t i, double f);
/* A tensor of another shape (same dtype and byte size) sharing base's data;
 * keeps base alive. NULL + e when the sizes differ. */
RtValue *rt_value_view(RtValue *base, int ndim, const int64_t *shape,
		       RtError *e);
/* A tensor of dtype dt and shape at byte offset off of base's data
 * (R.memory.alloc_tensor in a storage, R.memory.view); keeps base alive.
 * NULL + e when it does not fit in base. */
RtValue *rt_value_view_at(RtValue *base, size_t off, DType dt, int ndim,
			  const int64_t *shape, RtError *e);
/* Whether v's data may be written: not, through any view, read-only nor a
 * tensor mapped from a file. */
bool rt_value_writable(const RtValue *v);
RtValue *rt_value_retain(RtValue *v);  /* NULL is fine */
void rt_value_release(RtValue *v);     /* NULL is fine */

/* ---- value.c */

/* "(3, 4)", "(3,)" for a 1-d shape: the shape formatter of messages. */
void rt_shape_text(StrBuf *b, int ndim, const int64_t *shape);
/* "(3, 4) float32" */
void rt_type_text(StrBuf *b, DType dt, int ndim, const int64_t *shape);
/* Whether a tensor of dt/ndim/shape fits annotation si (a tensor with its
 * dtype, rank and constant dims; symbolic dims are the executor's); false
 * with "WHAT: expected ANNOTATION, got shape (..) dtype D" in e. */
bool rt_annot_matches(const char *what, const SInfo *si, DType dt, int ndim,
		      const int64_t *shape, RtError *e);
/* The value of parameter `name` annotated si from the .npy file at path:
 * an R.Shape from a 1-d int64 array, an R.Prim from a 0-d array, a
 * tensor (a bfloat16 one from float32, rounded to nearest even) checked
 * with rt_annot_matches. NULL + e naming the input and the file. */
RtValue *rt_value_read_npy(const char *name, const SInfo *si,
			   const char *path, RtError *e);
/* The same for an array already read from path (rlx run under mpirun:
 * rank 0's file, broadcast); takes t. */
RtValue *rt_value_from_npy(const char *name, const SInfo *si, RtTensor *t,
			   const char *path, RtError *e);
/* A tensor of v for .npy: shapes as int64, scalars as 0-d, bfloat16 as
 * float32; always a new tensor (owned, or a view of v's data). */
RtTensor *rt_value_npy_tensor(const RtValue *v, RtError *e);
/* dir/K.npy, or dir/K for a tuple field (malloc'ed). */
char *rt_field_path(const char *dir, int k, bool is_tuple);
/* v under path: a .npy file, or a directory of its fields for a tuple. */
bool rt_value_write(const char *path, const RtValue *v, RtError *e);
/* The names of the fields of f's tuple result, where the function names
 * them: names[k] is the variable (or parameter) the result tuple literal
 * holds at k, NULL for a field that is no variable or when the result is
 * no tuple literal (directly or through a binding). n fields. */
void rt_result_field_names(const Func *f, const char **names, int n);
/* dir/fields.json, the manifest of a tuple result written as dir/K.npy:
 * {"fields": [{"index": K, "path": "K.npy" (or "K" for a nested tuple),
 * "name": NAME or null}, ...]} (docs/formats.md). */
bool rt_write_fields_manifest(const char *dir, const char *const *names,
			      const bool *is_tuple, int n, RtError *e);
/* "NAME: dtype (shape)" and, up to 1000 elements, the values as nested
 * lists; a tuple field by field as NAME[K]. */
void rt_value_print(StrBuf *b, const char *name, const RtValue *v);

/* runtime/exec/compare.c: does value a agree with the reference b, as `rlx
 * verify` decides? Same kinds, arities, shapes and dtypes; integers and
 * shape tuples exact; floats within rt_tolerance(dtype) relative to the
 * reference (|a - b| <= tol * (|b| + max|b|) per element); NaN where b has
 * NaN, infinities equal. Writes a line per tensor, shape tuple or scalar
 * (named label, label.0, ... for tuple fields) to out. */
bool rt_value_compare(const char *label, const RtValue *a, const RtValue *b,
		      FILE *out);
/* The relative tolerance of a dtype: 1e-5 float32, 1e-12 float64, 1e-2
 * float16 and bfloat16, 0 (exact) otherwise. */
double rt_tolerance(DType dt);

/*
 * A function of a module compiled for execution: every op call of it and
 * of the functions it calls lowered to a JIT kernel (one per signature),
 * ready to run many times. Compilation errors are located in d (an op
 * codegen cannot lower, an unknown callee, ...). The module must outlive
 * the program and must not change after rt_compile.
 */
typedef struct RtProgram RtProgram;

RtProgram *rt_compile(Module *m, const char *func, Diags *d);
void rt_program_free(RtProgram *p);
/* The workers R.ccl.* and R.dist.* calls (and runtime.disco.worker_id) run
 * over; c outlives p. Without one, the program is worker 0 of 1. */
typedef struct RtComm RtComm;
void rt_program_set_comm(RtProgram *p, RtComm *c);
/* Whether the values of index tensors (take in mode "fast", gather and
 * scatter ops) are checked to lie in their range before the kernel reads
 * with them (the default, true): a check per index; off, an index out of
 * range is clamped into it, a result without meaning but no crash. */
void rt_program_set_index_check(RtProgram *p, bool on);
/* The executor's plan of p, for --print-plan: for each function, each
 * binding (the top level of the body; the branches of an if indented) with
 * its expression as written and what runs it: a kernel (with the bindings
 * it also computes, "computing V, W"), "fused into V" (computed inside
 * V's kernel, no tensor of its own), a view, the executor, a callee. */
void rt_program_plan(const RtProgram *p, StrBuf *b);
const Func *rt_program_func(const RtProgram *p);
int rt_program_num_kernels(const RtProgram *p);
/* The JIT's work for p: modules compiled and found in the code cache,
 * seconds spent compiling or loading object code (runtime/codegen/jit.c). */
void rt_program_jit_stats(const RtProgram *p, int *compiled, int *cached,
			  double *seconds);

/*
 * Runs the function on args (one per parameter, borrowed; a tensor whose
 * data is not RT_ALIGN-aligned is copied). The result is a new reference.
 * Symbolic dimensions bind from the arguments' shapes at their first bare
 * occurrence, in parameter order, and are checked where they recur;
 * annotations and match_cast are checked at run time. A mismatch is an
 * error naming the parameter or binding and the dimension, e.g.
 *   parameter 'x': dimension 1 is 5, but n was bound to 4 by parameter 'y'
 *   binding 'lv': dimension 0 is 3, expected 4
 *   parameter 'w': dtype is int32, expected float32
 * Every value is released right after its last use (liveness computed at
 * compile time), so memory follows the live set.
 */
bool rt_run(RtProgram *p, RtValue **args, RtValue **result, RtError *e);

/*
 * Streaming run, for transforms on checkpoints bigger than memory.
 *
 * load(ctx, i, e) returns parameter i's value (a new reference, which the
 * executor takes) when it is first needed and not before: at the first
 * binding that uses it, or when a symbolic var it defines is needed. Each
 * parameter is loaded at most once; its value is checked against the
 * annotation and released after its last use. A parameter nothing uses is
 * never loaded.
 *
 * emit(ctx, k, v, e) hands out result field k; v is borrowed for the call
 * (rt_value_retain it to keep it). When the result is a tuple literal (the
 * function returns `(a, b)`, or `gv` bound to `(a, b, ...)` at the top
 * level and used nowhere else, as F_transform_params does), the fields are
 * emitted in this order:
 *   1. fields that are parameters used only by the result (pass-through
 *      weights): loaded, emitted and released one by one, in parameter
 *      order, before any binding runs;
 *   2. fields that are parameters also used by bindings: right after they
 *      are loaded (so before the binding that needed them runs);
 *   3. fields that are vars bound by the function: right after their
 *      binding (and its match_cast check), in binding order; the executor
 *      drops its reference after the var's last use by another binding
 *      (often at once);
 *   4. the other fields (constants, shapes): at the end.
 * A var appearing in several fields is emitted once per field. The tuple
 * itself is never built. Otherwise the function runs to its end and the
 * result is emitted: field by field when it is a tuple, else as field 0.
 * Either callback returning NULL/false stops the run with the error it set
 * in e (a generic message when it set none); values emitted before stay
 * emitted.
 */
typedef struct {
	RtValue *(*load)(void *ctx, int param, RtError *e);
	bool (*emit)(void *ctx, int field, RtValue *v, RtError *e);
	void *ctx;
} RtStream;

bool rt_run_stream(RtProgram *p, const RtStream *s, RtError *e);
/* rt_run_stream for some fields only: want (per field; NULL: all) says
 * which. When the result is a tuple literal, the others are not emitted
 * and the top-level bindings that none of the wanted ones needs are not
 * run, nor the parameters only they use loaded (a binding with a
 * match_cast, or an annotation over symbolic variables, always runs: it
 * may bind a variable a later shape needs). Otherwise every field is
 * computed and the wanted ones emitted. */
bool rt_run_stream_some(RtProgram *p, const RtStream *s, const bool *want,
			RtError *e);
/* The parameters a run with want would load (used, per parameter): those
 * the wanted fields and the bindings they need use; all without want or a
 * tuple literal. A parameter loaded only to bind a symbolic variable is
 * not counted. */
bool rt_stream_params(RtProgram *p, const bool *want, bool *used,
		      RtError *e);

/* ----------------------------------------------------------------- comm.c */

/*
 * The workers of a tensor-parallel run and the collectives between them.
 *
 * A process is one worker. Under Open MPI's mpirun (OMPI_COMM_WORLD_SIZE in
 * the environment) rt_comm_open initializes MPI and the workers are the
 * ranks of MPI_COMM_WORLD; otherwise it does not touch MPI at all (rlx
 * starts as fast as without it) and the process is worker 0 of 1, or the
 * worker given by rt_comm_single (`rlx run --rank K`). Collectives over one
 * worker are the identity (a scatter takes the worker's own part).
 *
 * Every collective is called by every worker in the same order (the model
 * is the same program on each). Reductions of float16 and bfloat16 are done
 * in float32 and rounded once at the end. A collective that fails, or a
 * worker that fails where the others wait for it in one, leaves the run
 * unable to meet again: the caller calls no further collective and
 * returns, and the program ends the whole run (the engines' RLX_EABORT,
 * rlx_runtime.h); nothing here ends a process.
 */
typedef enum { RT_RED_SUM, RT_RED_PROD, RT_RED_MIN, RT_RED_MAX, RT_RED_AVG }
	RtReduce;

/* True when this process was started by mpirun (MPI not yet touched). */
bool rt_comm_launched(void);
/* The world of mpirun (MPI_Init), or worker 0 of 1 when not launched by
 * mpirun; NULL + e when MPI fails to start or rlx was built without MPI. */
RtComm *rt_comm_open(RtError *e);
/* One process playing worker `rank` (collectives over itself). */
RtComm *rt_comm_single(int rank, RtError *e);
/* MPI_Finalize when it was initialized. NULL is fine. */
void rt_comm_close(RtComm *c);
/* Frees c but leaves MPI running, for rt_comm_finalize later (after the
 * caller has printed: Open MPI's finalize waits for every process, so no
 * process leaves, and mpirun cuts no other one short, before all got
 * there). NULL is fine. */
void rt_comm_release(RtComm *c);
void rt_comm_finalize(void);
int rt_comm_rank(const RtComm *c);   /* the worker id */
int rt_comm_size(const RtComm *c);   /* processes in the run */
bool rt_comm_is_mpi(const RtComm *c);
/* Whether ok holds on every worker (a logical and over the run). */
bool rt_comm_all(RtComm *c, bool ok);
void rt_comm_barrier(RtComm *c);
/* out = reduce(in over workers); same dtype and size. */
bool rt_comm_allreduce(RtComm *c, const RtTensor *in, RtTensor *out,
		       RtReduce op, RtError *e);
/* out = the workers' ins concatenated in rank order (out->nbytes =
 * size * in->nbytes). */
bool rt_comm_allgather(RtComm *c, const RtTensor *in, RtTensor *out,
		       RtError *e);
/* n bytes at buf from worker root to every worker. */
bool rt_comm_bcast(RtComm *c, void *buf, size_t n, int root, RtError *e);
/* Sums n words over the processes, in place (every process gets the sum). */
bool rt_comm_sum_u64(RtComm *c, uint64_t *buf, size_t n, RtError *e);

#endif /* RLX_RT_EXEC_H */
