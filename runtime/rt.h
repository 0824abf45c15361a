/*
 * rt.h — the runtime: tensors in host memory, the files they come from and
 * go to (safetensors, .npy, tensor cache), the JIT and the executor.
 *
 * The runtime knows tensors, kernels and files, not the grammar. Like the
 * compiler, it never exits: errors are returned as a message in RtError.
 * A section per file, prefix rt_ (jit_ for the JIT).
 */
#ifndef RLX_RT_H
#define RLX_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

enum { RT_MAX_DIMS = 8, RT_ALIGN = 64 };

/* An error from the runtime: a message naming the file, tensor or binding. */
typedef struct {
	char msg[1024];
} RtError;

void rt_error(RtError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --------------------------------------------------------------- tensor.c */

typedef enum {
	RT_OWNED,    /* data is ours, RT_ALIGN-aligned, freed with the tensor */
	RT_BORROWED, /* data belongs to someone else (a mapped file) */
	RT_POOLED,   /* data is ours, from an RtPool: rt_tensor_free gives it
		      * back (never free() it) */
	RT_MAPPED,   /* data is ours, rt_buf_alloc's huge mapping of cap
		      * bytes: rt_tensor_free gives it back with
		      * rt_buf_free (never free() it) */
} RtOwnership;

typedef struct RtPool RtPool;

/* A dense C-order tensor in host memory. bool is one byte per element. */
typedef struct {
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	void *data;
	size_t nbytes;
	RtOwnership own;
	RtPool *pool;    /* RT_POOLED: where data goes back to */
	size_t cap;      /* RT_POOLED, RT_MAPPED: bytes mapped at data */
} RtTensor;

/* A new owned tensor with uninitialized (64-byte aligned) data; NULL with
 * a message when the size overflows or memory runs out. Data of
 * RT_HUGE_MIN bytes or more is mapped in huge pages (RT_MAPPED), else
 * allocated (RT_OWNED). */
RtTensor *rt_tensor_new(DType dt, int ndim, const int64_t *shape, RtError *e);
/* A tensor viewing someone else's bytes. */
RtTensor *rt_tensor_borrow(DType dt, int ndim, const int64_t *shape,
			   void *data, RtError *e);
void rt_tensor_free(RtTensor *t);
/*
 * A pool of large tensor buffers (RT_POOL_MIN bytes or more): mapped in
 * 2 MiB huge pages where the system allows, and kept when freed so that
 * the next tensor of about the same size reuses the memory instead of
 * faulting fresh pages in 4 KiB at a time. The pool keeps at most as many
 * bytes as were ever in use at once (and at least RT_POOL_KEEP_MIN), so
 * memory still follows the live set. Thread safe. rt_pool_release drops
 * the creator's reference; the pool goes when its last buffer is freed.
 */
enum { RT_POOL_MIN = 1 << 20, RT_POOL_KEEP_MIN = 64 << 20 };
RtPool *rt_pool_new(void);
void rt_pool_release(RtPool *p); /* NULL is fine */
/* As rt_tensor_new; from p (RT_POOLED) when p and the size allow. */
RtTensor *rt_tensor_new_in(RtPool *p, DType dt, int ndim,
			   const int64_t *shape, RtError *e);
/* What p holds now: bytes handed out (used), kept for reuse (kept), and
 * the most ever handed out at once (peak). Any pointer may be NULL. */
void rt_pool_stats(RtPool *p, size_t *used, size_t *kept, size_t *peak);
/* The pool's buffers for rt_tensor_new_in and rt_tensor_free: at least
 * need bytes (*cap: how many), NULL when out of memory; and giving one
 * back (bufpool.c). */
void *rt_pool_get(RtPool *p, size_t need, size_t *cap);
void rt_pool_put(RtPool *p, void *data, size_t cap);
/*
 * len bytes of fresh zeroed memory at a 2 MiB boundary, advised to use
 * huge pages (the 2 MiB stretches of it; a tail shorter than that gets
 * small pages), or NULL; munmap(p, len) frees it. On a VM a first touch
 * of a 4 KiB page costs microseconds, so a large buffer filled once (a
 * .npy read, a GEMM's packing scratch) spends more time faulting its
 * pages in than copying: 16 MiB read into small pages took 65 ms on a
 * 2-vCPU Zen 5 VM, into huge pages 2 ms.
 */
enum { RT_HUGE_MIN = 2 << 20 };
void *rt_map_huge(size_t len);
/* bytes of 64-byte aligned memory for a buffer filled once: rt_map_huge's
 * from RT_HUGE_MIN bytes on, else aligned_alloc's; NULL when out of
 * memory. rt_buf_free takes it back with the same bytes (p may be
 * NULL). Every buffer outside an RtPool that wants huge pages comes from
 * here (rt_tensor_new records the same size test as RT_MAPPED). */
void *rt_buf_alloc(size_t bytes);
void rt_buf_free(void *p, size_t bytes);
int64_t rt_numel(const RtTensor *t);
/* The process's anonymous resident memory now (RssAnon of
 * /proc/self/status: heap, pools, stacks; not mapped file pages), in
 * bytes; 0 when unknown. */
uint64_t rt_mem_anon(void);
/* nbytes of ndim/shape/dtype; false on overflow. */
bool rt_size(DType dt, int ndim, const int64_t *shape, size_t *nbytes);

/* ---------------------------------------------------------- atomic_file.c */

/*
 * Outputs that appear whole or not at all (the rules are at the top of
 * atomic_file.c and in docs/formats.md). A temporary next to the target,
 * TARGET.rlx-tmp.PID.XXXXXX, created exclusively without following links,
 * locked while written, registered for removal on SIGINT/SIGTERM/SIGHUP,
 * renamed into place at the end; a later writer of the same target
 * removes the temporaries of dead processes. Every failure is reported in
 * e, naming the file.
 */
typedef struct {
	int fd;
	char *path; /* the target (trailing slashes removed) */
	char *tmp;  /* its temporary */
	int slot;   /* in the cleanup registry; -1 none */
} RtFile;

/* A file: rt_file_begin creates the temporary; rt_file_write appends;
 * rt_file_end(ok) fsyncs and renames it into place (a link at the target
 * is replaced, not followed), or removes it (ok false, or a step failing). */
bool rt_file_begin(RtFile *a, const char *path, RtError *e);
bool rt_file_write(RtFile *a, const void *p, size_t n, RtError *e);
bool rt_file_end(RtFile *a, bool ok, RtError *e);
/* The three at once: the whole of p as the file path. */
bool rt_file_put(const char *path, const void *p, size_t n, RtError *e);

/* A directory: rt_dir_begin creates the temporary directory (its files
 * are the caller's to write); rt_dir_commit renames it into place: onto
 * a missing target, or (replace) exchanged atomically with an existing
 * one, whose old tree is then removed (where the file system cannot
 * exchange, the old one is moved aside first, so the target is missing
 * for a moment); rt_dir_abort removes it. Both free d. What may be
 * replaced is the caller's decision (rt_cache_begin refuses a directory
 * holding files of its own). */
typedef struct {
	int fd;     /* open on tmp, holding its lock */
	char *path; /* the target (trailing slashes removed) */
	char *tmp;
	int slot;
} RtTmpDir;
bool rt_dir_begin(RtTmpDir *d, const char *path, RtError *e);
bool rt_dir_commit(RtTmpDir *d, bool replace, RtError *e);
void rt_dir_abort(RtTmpDir *d);

/* Removes the temporaries of target path left by dead processes (done by
 * rt_file_begin and rt_dir_begin). */
void rt_sweep_stale(const char *path);
/* Removes path: a file, a link (not followed) or a whole tree. */
bool rt_remove_tree(const char *path);
/* Calls fn for each entry of dir (not . and ..) until it returns false. */
bool rt_dir_list(const char *dir,
		 bool (*fn)(void *ctx, const char *name, bool is_dir),
		 void *ctx, RtError *e);
/* Writes all n bytes at p to fd (path names it in messages). */
bool rt_write_all(int fd, const char *path, const void *p, size_t n,
		  RtError *e);
/* A malloc'd copy of path without trailing slashes ("/" stays). */
char *rt_path_strip(const char *path);
/* rlx's cache directory (malloc'd): $XDG_CACHE_HOME/rlx for an absolute
 * XDG_CACHE_HOME, else $HOME/.cache/rlx; NULL when RLX_NO_CACHE is set
 * (to anything but 0) or neither is usable. The JIT keeps object code
 * there, the tensor cache reader its verified-shard stamps. */
char *rt_cache_home(void);
/* mkdir -p of the directories leading to path (not path itself). */
void rt_make_parents(const char *path);

/* The signal side, for programs (the CLI installs it; the library never
 * does): on SIGINT, SIGTERM and SIGHUP remove every temporary still being
 * written and exit 128 + signal. Signals ignored at start stay ignored.
 * rt_cleanup_run is the removal alone (async-signal-safe). */
void rt_cleanup_install(void);
void rt_cleanup_run(void);

/* ----------------------------------------------------------- input_file.c */

/*
 * Every file rlx reads is opened by rt_open_input: without blocking (a FIFO
 * or a device is refused at once, "PATH: not a regular file (a FIFO)"),
 * then read as a regular file of *size bytes (size may be NULL). The fd,
 * or -1 + e (errno kept from open).
 */
int rt_open_input(const char *path, uint64_t *size, RtError *e);
/* The whole of the file at path, opened by rt_open_input, malloc'ed with
 * a NUL after its *len bytes; NULL + e when it cannot be read or has more
 * than max bytes. */
char *rt_read_whole(const char *path, uint64_t max, size_t *len, RtError *e);
/* Reads exactly n bytes at off of fd into buf, retrying an interrupted
 * read: 0, the errno of a read that failed, or -1 when the file ends
 * first. */
int rt_read_at(int fd, void *buf, size_t n, uint64_t off);

/*
 * A read-only mapping of len bytes of a regular file, guarded against the
 * file shrinking under it: with the guard installed (rt_map_guard_install,
 * by the program, like rt_cleanup_install), a page past the file's new end
 * reads as zeros instead of raising SIGBUS, and rt_map_check reports the
 * mapping broken ("PATH: the file was truncated while it was read"), as it
 * does when the live size is below len. Check after the bytes are used.
 * rt_map_open keeps its own copy of fd; len 0 maps nothing.
 */
typedef struct {
	void *p;
	size_t len;
	int fd;   /* for the live size */
	int slot; /* in the guard's table; -1 none */
} RtMap;
bool rt_map_open(RtMap *m, int fd, size_t len, const char *path, RtError *e);
void rt_map_close(RtMap *m);
bool rt_map_check(const RtMap *m, const char *path, RtError *e);
void rt_map_guard_install(void);

/* IEEE half and bfloat16 conversion (round to nearest even). */
float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);
float rt_bf16_to_f32(uint16_t h);
uint16_t rt_f32_to_bf16(float f);

/* ---------------------------------------------------------- safetensors.c */

/*
 * A safetensors file, mapped read-only and checked completely at open:
 * dtypes, shapes, offsets, overlap and coverage of the data area. Tensors
 * are listed in the order of the header. Borrowed tensors returned by
 * rt_st_load view the mapping and must be freed before rt_st_close.
 */
typedef struct RtSafetensors RtSafetensors;

RtSafetensors *rt_st_open(const char *path, RtError *e);
void rt_st_close(RtSafetensors *st);
int rt_st_count(const RtSafetensors *st);
const char *rt_st_name(const RtSafetensors *st, int i);
/* dtype, ndim and shape (RT_MAX_DIMS entries) of a tensor; false when the
 * file has no tensor of that name. Any out pointer may be NULL. */
bool rt_st_find(const RtSafetensors *st, const char *name, DType *dt,
		int *ndim, int64_t *shape);
/* The tensor: borrowing the mapped bytes when they are aligned to the
 * element size, else an aligned owned copy. NULL + e when absent. */
RtTensor *rt_st_load(const RtSafetensors *st, const char *name, RtError *e);
/* The tensor copied into memory of its own, from pool (may be NULL) when
 * it is large: read with pread, not through the mapping (bool tensors as
 * rt_st_load). A file cut short under the read is an error naming it. On
 * a VM, touching a file's pages through a mapping can cost more than
 * copying them (docs/architecture.md, the transform). NULL + e. */
RtTensor *rt_st_read(const RtSafetensors *st, const char *name, RtPool *pool,
		     RtError *e);
/* Whether the file still holds what was mapped at open (rt_map_check). */
bool rt_st_check(const RtSafetensors *st, RtError *e);
/* The `__metadata__` string map: count, i-th key and value, lookup. */
int rt_st_meta_count(const RtSafetensors *st);
const char *rt_st_meta_key(const RtSafetensors *st, int i);
const char *rt_st_meta_value(const RtSafetensors *st, int i);
const char *rt_st_meta_get(const RtSafetensors *st, const char *key);

/*
 * Writes n tensors to path atomically (path.tmp, then rename). Header keys
 * are in the given order; the data is laid out by decreasing element size
 * so that every tensor is aligned. meta (NULL or nmeta key/value pairs,
 * meta[2i] = key, meta[2i+1] = value) becomes `__metadata__`.
 */
bool rt_st_write(const char *path, const char *const *names,
		 const RtTensor *const *tensors, int n, RtError *e);
bool rt_st_write_meta(const char *path, const char *const *names,
		      const RtTensor *const *tensors, int n,
		      const char *const *meta, int nmeta, RtError *e);

/* The safetensors name of a dtype ("F32"), NULL when it has none. */
const char *rt_st_dtype_name(DType dt);

/*
 * A source of weights by name: one safetensors file, or a Hugging Face
 * sharded checkpoint (`*.safetensors.index.json`, shards opened lazily,
 * relative to the index's directory). rt_weights_open dispatches on the
 * path. Tensors are listed in file / weight_map order. Borrowed tensors
 * must be freed before rt_weights_close.
 */
typedef struct RtWeights RtWeights;

RtWeights *rt_weights_open(const char *path, RtError *e);
void rt_weights_close(RtWeights *w);
int rt_weights_count(const RtWeights *w);
const char *rt_weights_name(const RtWeights *w, int i);
bool rt_weights_has(const RtWeights *w, const char *name);
/* dtype/ndim/shape of a tensor (may open its shard); false + e when it is
 * absent or its shard is broken or lacks it. Out pointers may be NULL. */
bool rt_weights_info(RtWeights *w, const char *name, DType *dt, int *ndim,
		     int64_t *shape, RtError *e);
RtTensor *rt_weights_load(RtWeights *w, const char *name, RtError *e);
/* As rt_weights_load, read into memory of its own (rt_st_read) from a
 * safetensors file; a tensor cache's records as rt_weights_load. */
RtTensor *rt_weights_read(RtWeights *w, const char *name, RtPool *pool,
			  RtError *e);
/* Whether every file of w read so far still holds what was mapped: false
 * + e naming the file that was truncated while it was read. */
bool rt_weights_check(const RtWeights *w, RtError *e);
/* Shape tuples (tensor caches only): whether name is one, and its values
 * (*n: out's capacity in, the count out). */
bool rt_weights_is_shape(const RtWeights *w, const char *name);
bool rt_weights_load_shape(RtWeights *w, const char *name, int64_t *out,
			   int *n, RtError *e);
/*
 * A tensor-parallel cache (`rlx transform --tensor-parallel N`, metadata
 * rlxTensorParallel N) is seen as one worker's weights: its records
 * NAME_shard-K under NAME, the shared records as they are, the other
 * workers' NAME_shard-J not at all. It opens as worker 0's; set_rank
 * picks worker K (false + e when the cache has no worker K). Any other
 * source is every worker's as it is. tensor_parallel is N, 0 for others.
 */
bool rt_weights_set_rank(RtWeights *w, int rank, RtError *e);
int rt_weights_tensor_parallel(const RtWeights *w);

/* check.c: */
/*
 * Tensors of the checkpoint w that are no weight of f (no parameter
 * [first, f->nparams) of that name), the one policy of `run`, `transform`
 * and `verify`: one warning naming them (the first 8), "w.safetensors: 2
 * tensors are not a weight of main, ignored: 'bn.num_batches_tracked',
 * ..."; an error instead when strict. Returns how many there are.
 */
int rt_check_extra(const Func *f, int first, RtWeights *w, const char *wname,
		   bool strict, Diags *d);

/* ------------------------------------------------------------------ npy.c */

/*
 * NumPy .npy arrays: little-endian, C order, format 1.0/2.0/3.0 headers.
 * Big-endian, Fortran order, structured and unsupported dtypes are refused
 * with a message naming the file. bfloat16 has no .npy dtype.
 */
RtTensor *rt_npy_read(const char *path, RtError *e);
/* Parses a whole .npy image in memory; name is used in messages. */
RtTensor *rt_npy_parse(const void *buf, size_t len, const char *name,
		       RtError *e);
/* Writes t as format 1.0 (64-byte aligned header), atomically. */
bool rt_npy_write(const char *path, const RtTensor *t, RtError *e);

/* ---- exec_plan.c (planning), exec.c (running) */

/*
 * Values at run time: tensors, tuples, shape tuples and scalars. Values are
 * reference counted so that a tuple and its fields can share tensors; a value
 * is freed when its last reference goes (rt_value_release). Tensors are
 * never written once made, so values can be shared freely.
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
} RtValue;

/* Each returns a value with one reference, NULL when out of memory. */
RtValue *rt_value_tensor(RtTensor *t); /* takes ownership of t (even on
					* failure) */
RtValue *rt_value_tuple(RtValue **fields, int n); /* takes the references */
RtValue *rt_value_shape(const int64_t *values, int n);
RtValue *rt_value_prim(DType dt, int64_t i, double f);
/* A tensor of another shape (same dtype and byte size) sharing base's data;
 * keeps base alive. NULL + e when the sizes differ. */
RtValue *rt_value_view(RtValue *base, int ndim, const int64_t *shape,
		       RtError *e);
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

/* runtime/compare.c: does value a agree with the reference b, as `rlx
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
/* The executor's plan of p, for --print-plan: for each function, each
 * binding (the top level of the body; the branches of an if indented) with
 * the expression that runs for it and what runs it: a kernel (with the
 * calls fused into it as nested calls), "fused into V" (computed inside
 * V's kernel, no tensor of its own), a view, the executor, a callee. */
void rt_program_plan(const RtProgram *p, StrBuf *b);
const Func *rt_program_func(const RtProgram *p);
int rt_program_num_kernels(const RtProgram *p);
/* The JIT's work for p: modules compiled and found in the code cache,
 * seconds spent compiling or loading object code (runtime/jit.c). */
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

/* ---------------------------- tensor_cache_write.c, tensor_cache_read.c */

/*
 * The tvmjs tensor cache (docs/formats.md): DIR/tensor-cache.json and
 * DIR/params_shard_N.bin. Tensors returned by rt_cache_load are malloc'd
 * RtTensor structs; RT_OWNED data comes from aligned_alloc (free() it),
 * RT_BORROWED data points into a shard mapping that lives until
 * rt_cache_close.
 */

enum { RT_CACHE_SHARD_BYTES = 32 << 20 };

typedef struct {
	size_t shard_bytes; /* shard cap; 0: RT_CACHE_SHARD_BYTES */
} RtCacheOptions;

typedef struct RtCacheWriter RtCacheWriter;
typedef struct RtCache RtCache;

/* Starts a cache that will replace DIR: everything is written to DIR.tmp.PID
 * and renamed into place by rt_cache_finish. Refuses a DIR that exists and
 * is neither empty nor a tensor cache. opts may be NULL. */
RtCacheWriter *rt_cache_begin(const char *dir, const RtCacheOptions *opts,
			      RtError *e);
/* The temporary directory, for files the caller wants to ship with the
 * cache (they move into DIR with it). */
const char *rt_cache_tmpdir(const RtCacheWriter *w);
/* A file shipped with the cache (the lifted module): written now, into the
 * temporary directory, under a plain name that is not the JSON's. */
bool rt_cache_add_file(RtCacheWriter *w, const char *name, const void *p,
		       size_t n, RtError *e);
/* Appends a tensor to the current shard; t may be freed right after. On
 * false the cache cannot be completed: call rt_cache_abort. */
bool rt_cache_add(RtCacheWriter *w, const char *name, const RtTensor *t,
		  RtError *e);
/* Does a tensor of nbytes get a shard of its own (half the cap or more)? */
bool rt_cache_alone(const RtCacheWriter *w, uint64_t nbytes);
/*
 * rt_cache_add in two steps, so that large tensors are written on several
 * threads. rt_cache_place fixes the tensor's place in the cache (in the
 * order of the calls: the layout does not depend on timing) and writes it
 * unless it goes to a shard of its own; then tk says which, and
 * rt_cache_write_alone writes that shard, on any thread, while other
 * tensors are placed and written. t must stay alive until then. Every
 * ticket must be written before rt_cache_finish. Both are thread safe.
 */
typedef struct {
	int shard;           /* -1: nothing left to write */
	struct json_t *rec;  /* the record's description */
} RtCacheTicket;
bool rt_cache_place(RtCacheWriter *w, const char *name, const RtTensor *t,
		    RtCacheTicket *tk, RtError *e);
bool rt_cache_write_alone(RtCacheWriter *w, RtCacheTicket *tk,
			  const RtTensor *t, RtError *e);
/* Appends a shape tuple (n int64 values, n >= 0) as a shape record. */
bool rt_cache_add_shape(RtCacheWriter *w, const char *name,
			const int64_t *values, int n, RtError *e);
/* Writes tensor-cache.json (metadata_json_extra, a JSON object text or
 * NULL, is merged into "metadata") and renames the cache into place.
 * Always consumes w; on failure nothing is left behind. */
bool rt_cache_finish(RtCacheWriter *w, const char *metadata_json_extra,
		     RtError *e);
/* Removes the temporary directory and frees w (NULL is fine); a writer
 * that joined another's directory (rt_cache_join) only closes its files. */
void rt_cache_abort(RtCacheWriter *w);

/*
 * A planned cache (cache_plan.c): the layout fixed before any value is
 * computed, from the records' names, dtypes and shapes in the cache's
 * order alone: records packed into shards as rt_cache_add would (64-byte
 * offsets, a new shard past the cap, a shard of its own for half the cap
 * or more). The shards are then split among nprocs writers into
 * contiguous runs balanced by bytes, so that a cache written by several
 * processes is the same file for file, byte for byte, as by one: what a
 * process writes depends on the plan, never on how many there are.
 */
typedef struct {
	const char *name;      /* must outlive the plan */
	DType dtype;           /* a shape record: DT_I64, ndim 1, shape {n} */
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	bool is_shape;
	/* set by rt_cache_plan */
	uint64_t nbytes, offset;
	int shard;
} RtPlanRec;

typedef struct {
	RtPlanRec *recs;       /* the caller's, in cache order */
	int nrecs;
	uint64_t cap;
	int nshards;
	uint64_t *shard_bytes; /* per shard: its file's size */
	int *shard_first;      /* per shard: its first record (then in order) */
	int *shard_nrecs;
	bool *shard_alone;     /* one record of half the cap or more */
	int *owner;            /* per shard: the process that writes it */
	int nprocs;
} RtCachePlan;

/* Lays out the records (cap 0: RT_CACHE_SHARD_BYTES) and splits the
 * shards among nprocs >= 1 processes. false + e on a record that cannot
 * be stored (a bad dtype or shape) or out of memory. */
bool rt_cache_plan(RtCachePlan *p, RtPlanRec *recs, int n, uint64_t cap,
		   int nprocs, RtError *e);
void rt_cache_plan_free(RtCachePlan *p);

/*
 * Writers of a planned cache, one per process: process `me` writes the
 * shards the plan gives it and only those, each record at its planned
 * place whatever order the records come in (rt_cache_place / _write_alone
 * / rt_cache_add_shape as for any writer; a record must have the plan's
 * dtype and shape). Process 0 begins the cache (rt_cache_begin_planned
 * creates the temporary directory, rt_cache_tmpdir names it); the others
 * join that directory (it must be visible to them: a shared file system)
 * and never remove or rename it. When every process has written its
 * shards, rt_cache_hashes gives the content hashes of this writer's shards
 * (0 for the others'), process 0 takes everyone's with rt_cache_set_hashes
 * (the sum over the processes) and rt_cache_finish writes the JSON and
 * renames the directory into place. The plan must outlive the writer.
 */
RtCacheWriter *rt_cache_begin_planned(const char *dir, const RtCachePlan *plan,
				      RtError *e);
RtCacheWriter *rt_cache_join(const char *dir, const char *tmp,
			     const RtCachePlan *plan, int me, RtError *e);
/* hashes[nshards]: false + e when a shard of this writer is not complete. */
bool rt_cache_hashes(RtCacheWriter *w, uint64_t *hashes, RtError *e);
bool rt_cache_set_hashes(RtCacheWriter *w, const uint64_t *hashes,
			 RtError *e);

/* Opens and validates a cache directory (JSON, names, shard files and
 * sizes, record bounds, overlaps). Shard hashes are checked when a shard
 * is first loaded from, or all at once by rt_cache_verify. */
RtCache *rt_cache_open(const char *dir, RtError *e);
int rt_cache_count(const RtCache *c);
const char *rt_cache_name(const RtCache *c, int i);
bool rt_cache_is_shape(const RtCache *c, int i);
/* Index of the record named name, or -1. */
int rt_cache_find(const RtCache *c, const char *name);
/* The record's dtype, ndim and shape (any pointer may be NULL). */
void rt_cache_info(const RtCache *c, int i, DType *dt, int *ndim,
		   int64_t *shape);
/* The record's tensor (a shape record loads as its int64 tensor). */
RtTensor *rt_cache_load(RtCache *c, int i, RtError *e);
/* A shape record's values: *n is out's capacity on entry, the number of
 * values on return (also when false because out is too small). */
bool rt_cache_load_shape(RtCache *c, int i, int64_t *out, int *n,
			 RtError *e);
/* Whether every shard mapped so far still holds what was mapped. */
bool rt_cache_check(const RtCache *c, RtError *e);
/* Hashes every shard that carries an rlxHash and compares. */
bool rt_cache_verify(RtCache *c, RtError *e);
/* The "metadata" object as compact JSON text (owned by c). */
const char *rt_cache_metadata(const RtCache *c);
void rt_cache_close(RtCache *c);

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
 * in float32 and rounded once at the end.
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
/* Ends every process of the run (MPI_Abort) with status code; a single
 * process just exits. For errors after which the others would wait. */
_Noreturn void rt_comm_abort(RtComm *c, int code);
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

#endif /* RLX_RT_H */
