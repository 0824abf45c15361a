/*
 * pool.h — a small thread pool that splits a loop across the cores
 * (runtime/kernels/pool.c, prefix tpool_; the kernels call rlx_parallel_for).
 *
 * A pool has a size: the threads that work on a loop, the caller included.
 * It is RLX_NUM_THREADS when that is set to a positive number, else the
 * number of online CPUs. The worker threads start on the first loop that
 * needs them, not when the pool is made, so a pool that only ever runs
 * small kernels costs nothing. One Jit owns one pool (jit_pool()).
 *
 * One loop runs on a pool at a time. A loop started while another one is
 * running (from another thread, or from inside a loop body) runs on the
 * calling thread alone, so nesting and concurrent callers are safe.
 */
#ifndef RLX_POOL_H
#define RLX_POOL_H

#include <stddef.h>
#include <stdint.h>

/* A loop body: iterations [lo, hi) of the loop, with its context. */
typedef void (*ThreadPoolFn)(void *ctx, int64_t lo, int64_t hi);

typedef struct ThreadPool ThreadPool;

/* A pool of nthreads threads (0: RLX_NUM_THREADS or the online CPUs).
 * NULL when out of memory. */
ThreadPool *tpool_new(int nthreads);
/* Stops and joins the workers; pool may be NULL. */
void tpool_free(ThreadPool *pool);
/* The number of threads a loop is split across, the caller included. */
int tpool_size(const ThreadPool *pool);
/* Runs fn over [0, n) in chunks across the pool; returns when all are
 * done. Chunks are handed out dynamically, so a busy core takes fewer. */
void tpool_run(ThreadPool *pool, void *ctx, int64_t n, ThreadPoolFn fn);

/*
 * Scratch memory kept by the pool between loops (64-byte aligned), so a
 * kernel that needs megabytes of it on every call (a blocked matrix
 * multiply's packed blocks) does not fault fresh pages in each time:
 * take returns the smallest block the pool keeps that is at least *bytes
 * large, else a new one of *bytes (NULL when out of memory), and sets
 * *bytes to the size of the block it returns; give hands it back with
 * that size, and the pool keeps the TPOOL_SCRATCH_KEEP largest blocks
 * given until tpool_free (two: a matrix multiply's packed blocks and its
 * f32 result before it is rounded to 16 bits). pool may be NULL (then
 * they allocate and free); buf may be NULL.
 */
enum { TPOOL_SCRATCH_KEEP = 2 };
void *tpool_scratch_take(ThreadPool *pool, size_t *bytes);
void tpool_scratch_give(ThreadPool *pool, void *buf, size_t bytes);

/*
 * The entry point of generated kernels: tpool_run with the pool passed as
 * an untyped pointer (the kernel has its Jit's pool as a constant). The
 * JIT defines this symbol in every kernel module's JITDylib, so it needs
 * no export from the executable.
 */
void rlx_parallel_for(void *pool, void *ctx, int64_t n, ThreadPoolFn fn);

#endif
