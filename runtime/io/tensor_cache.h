/*
 * tensor_cache.h — what the tensor cache's writer (tensor_cache_write.c)
 * and reader (tensor_cache_read.c) share: the format's constants and a few
 * helpers. Internal to runtime/; the interface is rt.h's.
 */
#ifndef RLX_TENSOR_CACHE_H
#define RLX_TENSOR_CACHE_H

#include <stdint.h>

#include "rt_io.h"

enum {
	CACHE_ALIGN = 64,               /* byteOffset alignment in a shard */
	STAGE_BYTES = 1 << 20,          /* small pieces gathered per write() */
	CHUNK_BYTES = 2 << 20,          /* large pieces: hashed, then written
					 * while still in the cache, a 2 MiB
					 * block of the file per write() */
	READ_BYTES = 512 << 10,         /* a shard read back to hash it, a
					 * piece at a time (within L2) */
	JSON_LIMIT = 256 << 20,         /* largest tensor-cache.json read */
	PREALLOC_BYTES = 1 << 20,       /* records this large: blocks
					 * allocated before the write */
};

#define CACHE_JSON "tensor-cache.json"
#define OLD_CACHE_JSON "ndarray-cache.json"


/* Formats an error into e (when given, escaped as rt_error does); returns
 * false for `return tc_err()`. */
bool tc_err(RtError *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* malloc'd printf. */
char *tc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Element size in bytes of a dtype the cache stores; 0 for none. */
static inline size_t
tc_itemsize(DType dt)
{
	if (dt <= DT_UNKNOWN || dt >= DT_COUNT)
		return 0;
	return (size_t)dtype_bits(dt) / 8;
}

/* nbytes of a shape and dtype; false on a negative dim or overflow. */
static inline bool
tc_shape_bytes(DType dt, int ndim, const int64_t *shape, uint64_t *out)
{
	uint64_t n = tc_itemsize(dt);
	for (int i = 0; i < ndim; i++)
		if (shape[i] == 0)
			n = 0; /* empty, however large the other dims */
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0 ||
		    __builtin_mul_overflow(n, (uint64_t)shape[i], &n))
			return false;
	}
	if (n > (uint64_t)INT64_MAX)
		return false;
	*out = n;
	return true;
}

/* Bytes of the n still to write at file offset at that one write() takes:
 * up to the next CHUNK_BYTES boundary of the file (so that every whole
 * aligned 2 MiB block is written by one call: shard_write). */
static inline uint64_t
tc_chunk(uint64_t at, uint64_t n)
{
	uint64_t k = CHUNK_BYTES - at % CHUNK_BYTES;
	return n < k ? n : k;
}

/* Rounds n up to the cache alignment. */
static inline uint64_t
tc_align_up(uint64_t n)
{
	return (n + CACHE_ALIGN - 1) & ~(uint64_t)(CACHE_ALIGN - 1);
}

#endif
