/*
 * pool.c — the thread pool behind rlx_parallel_for (see pool.h).
 *
 * nthreads - 1 workers sleep on a condition variable. pool_run publishes a
 * job (fn, ctx, n, a chunk size) under the mutex, bumps the generation and
 * wakes them; the caller then works on the job too. Chunks are taken with
 * an atomic counter, so a core that another process keeps busy takes
 * fewer. The caller waits until every worker has checked out of the job
 * before returning, since the job's context lives on the caller's stack.
 * A second pool_run while one is running (found by trylock on `busy`)
 * runs serially on its caller.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

enum {
	MAX_THREADS = 256,
	CHUNKS_PER_THREAD = 4, /* dynamic balance against chunk overhead */
};

struct Pool {
	int nthreads;           /* the caller included */
	pthread_mutex_t busy;   /* held by the one running loop */
	pthread_mutex_t mu;     /* guards everything below */
	pthread_cond_t wake;    /* a new job, or stop */
	pthread_cond_t done;    /* the last worker left the job */
	pthread_t *threads;
	int nstarted;           /* workers running */
	bool stop;
	uint64_t gen;           /* job generation */
	int active;             /* workers not yet done with this job */
	/* the job */
	PoolFn fn;
	void *ctx;
	int64_t n, chunk;
	atomic_int_fast64_t next;
};

/* The pool size asked for by the environment or the machine. */
static int
default_threads(void)
{
	const char *s = getenv("RLX_NUM_THREADS");
	if (s && *s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (!*end && v > 0)
			return v > MAX_THREADS ? MAX_THREADS : (int)v;
	}
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	if (c < 1)
		return 1;
	return c > MAX_THREADS ? MAX_THREADS : (int)c;
}

Pool *
pool_new(int nthreads)
{
	Pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->nthreads = nthreads > 0 ? nthreads : default_threads();
	if (p->nthreads > MAX_THREADS)
		p->nthreads = MAX_THREADS;
	pthread_mutex_init(&p->busy, NULL);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->next, 0);
	return p;
}

int
pool_size(const Pool *pool)
{
	return pool ? pool->nthreads : 1;
}

/* Takes chunks of the current job until none is left. */
static void
work(Pool *p)
{
	for (;;) {
		int64_t lo = atomic_fetch_add(&p->next, p->chunk);
		if (lo >= p->n)
			return;
		int64_t hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
		p->fn(p->ctx, lo, hi);
	}
}

/* A worker: waits for a job of a newer generation, works, checks out. */
static void *
worker(void *arg)
{
	Pool *p = arg;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->gen == seen)
			pthread_cond_wait(&p->wake, &p->mu);
		if (p->stop)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		work(p);
		pthread_mutex_lock(&p->mu);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Starts the workers the first time (with mu held); false when none
 * could be started. */
static bool
start(Pool *p)
{
	if (p->threads)
		return p->nstarted > 0;
	p->threads = calloc((size_t)p->nthreads, sizeof *p->threads);
	if (!p->threads)
		return false;
	p->gen = 0;
	for (int i = 0; i < p->nthreads - 1; i++) {
		if (pthread_create(&p->threads[i], NULL, worker, p))
			break;
		p->nstarted++;
	}
	return p->nstarted > 0;
}

void
pool_run(Pool *p, void *ctx, int64_t n, PoolFn fn)
{
	if (n <= 0)
		return;
	if (!p || p->nthreads < 2 || n < 2 || pthread_mutex_trylock(&p->busy)) {
		fn(ctx, 0, n);
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (!start(p)) {
		pthread_mutex_unlock(&p->mu);
		pthread_mutex_unlock(&p->busy);
		fn(ctx, 0, n);
		return;
	}
	int64_t parts = (int64_t)(p->nstarted + 1) * CHUNKS_PER_THREAD;
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->chunk = (n + parts - 1) / parts;
	atomic_store(&p->next, 0);
	p->active = p->nstarted;
	p->gen++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	work(p);
	pthread_mutex_lock(&p->mu);
	while (p->active > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_unlock(&p->busy);
}

void
rlx_parallel_for(void *pool, void *ctx, int64_t n, PoolFn fn)
{
	pool_run(pool, ctx, n, fn);
}

void
pool_free(Pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nstarted; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->busy);
	free(p);
}
