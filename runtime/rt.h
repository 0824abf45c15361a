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
} RtOwnership;

/* A dense C-order tensor in host memory. bool is one byte per element. */
typedef struct {
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	void *data;
	size_t nbytes;
	RtOwnership own;
} RtTensor;

/* A new owned tensor with uninitialized (64-byte aligned) data; NULL with
 * a message when the size overflows or memory runs out. */
RtTensor *rt_tensor_new(DType dt, int ndim, const int64_t *shape, RtError *e);
/* A tensor viewing someone else's bytes. */
RtTensor *rt_tensor_borrow(DType dt, int ndim, const int64_t *shape,
			   void *data, RtError *e);
void rt_tensor_free(RtTensor *t);
int64_t rt_numel(const RtTensor *t);
/* nbytes of ndim/shape/dtype; false on overflow. */
bool rt_size(DType dt, int ndim, const int64_t *shape, size_t *nbytes);

/* IEEE half and bfloat16 conversion (round to nearest even). */
float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);
float rt_bf16_to_f32(uint16_t h);
uint16_t rt_f32_to_bf16(float f);

/* --------------------------------------------------------- tensor_cache.c */

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
/* Appends a tensor to the current shard; t may be freed right after. On
 * false the cache cannot be completed: call rt_cache_abort. */
bool rt_cache_add(RtCacheWriter *w, const char *name, const RtTensor *t,
		  RtError *e);
/* Appends a shape tuple (n int64 values, n >= 0) as a shape record. */
bool rt_cache_add_shape(RtCacheWriter *w, const char *name,
			const int64_t *values, int n, RtError *e);
/* Writes tensor-cache.json (metadata_json_extra, a JSON object text or
 * NULL, is merged into "metadata") and renames the cache into place.
 * Always consumes w; on failure nothing is left behind. */
bool rt_cache_finish(RtCacheWriter *w, const char *metadata_json_extra,
		     RtError *e);
/* Removes the temporary directory and frees w (NULL is fine). */
void rt_cache_abort(RtCacheWriter *w);

/* Opens and validates a cache directory (JSON, names, shard files and
 * sizes, record bounds, overlaps). Shard hashes are checked when a shard
 * is first loaded from, or all at once by rt_cache_verify. */
RtCache *rt_cache_open(const char *dir, RtError *e);
int rt_cache_count(const RtCache *c);
const char *rt_cache_name(const RtCache *c, int i);
bool rt_cache_is_shape(const RtCache *c, int i);
/* Index of the record named name, or -1. */
int rt_cache_find(const RtCache *c, const char *name);
/* The record's tensor (a shape record loads as its int64 tensor). */
RtTensor *rt_cache_load(RtCache *c, int i, RtError *e);
/* A shape record's values: *n is out's capacity on entry, the number of
 * values on return (also when false because out is too small). */
bool rt_cache_load_shape(RtCache *c, int i, int64_t *out, int *n,
			 RtError *e);
/* Hashes every shard that carries an rlxHash and compares. */
bool rt_cache_verify(RtCache *c, RtError *e);
/* The "metadata" object as compact JSON text (owned by c). */
const char *rt_cache_metadata(const RtCache *c);
void rt_cache_close(RtCache *c);

#endif /* RLX_RT_H */
