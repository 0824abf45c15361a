/*
 * rt_io.h — the runtime's files (runtime/io/): safetensors files and
 * sharded checkpoints (weights by name), NumPy .npy arrays, the tvmjs
 * tensor cache (writer, reader, planned layout). Stands on runtime/base/
 * (rt.h); knows no kernel, no JIT and no executor. A section per file,
 * prefix rt_.
 */
#ifndef RLX_RT_IO_H
#define RLX_RT_IO_H

#include "rt.h"

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
 * copying them (docs/perf.md, "Transform I/O"). NULL + e. */
RtTensor *rt_st_read(const RtSafetensors *st, const char *name, RtBufPool *pool,
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
/* For a tensor cache: its module (DIR/model.py), as rt_cache_read_model;
 * NULL + e for any other kind of checkpoint. */
char *rt_weights_read_model(RtWeights *w, size_t *len, RtError *e);
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
RtTensor *rt_weights_read(RtWeights *w, const char *name, RtBufPool *pool,
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
/* The module rlx transform writes beside the records. */
#define RT_CACHE_MODEL "model.py"
/* The whole of the module beside the records (DIR/model.py, which
 * rlx transform writes), opened with them: a cache replaced after it was
 * opened cannot give one's model and the other's weights, nor no model.
 * NULL + e when the cache has none or it cannot be read. */
char *rt_cache_read_model(RtCache *c, size_t *len, RtError *e);
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

#endif /* RLX_RT_IO_H */
