/*
 * pool.c — the thread pool behind rlx_parallel_for (see pool.h).
 *
 * nthreads - 1 workers wait for a job. tpool_run publishes one (fn, ctx, n,
 * a chunk size), bumps the generation (an atomic: a release store) and
 * wakes the workers that sleep; the caller then works on the job too.
 * Chunks are taken with an atomic counter, so a core that another
 * process keeps busy takes fewer. The caller waits until every worker has
 * checked out of the job before returning, since the job's context lives
 * on the caller's stack. A second tpool_run while one is running (found by
 * trylock on `busy`) runs serially on its caller.
 *
 * Waiting spins first: a worker that finished a job polls the generation
 * for about SPIN_NS before it sleeps on the condition variable, and the
 * caller polls the checked-out count as long before it sleeps on `done`.
 * A blocked matrix multiply runs a few loops per block back to back; a
 * futex wake-up per loop (tens of microseconds in a VM) would stall both
 * cores on each. A core given to another process meanwhile loses at most
 * SPIN_NS per loop.
 *
 * Each worker starts on a CPU its caller may run on other than the
 * caller's own (Linux; round robin over them), then may run on any of
 * the caller's CPUs again: Linux otherwise often starts a new thread on
 * its parent's CPU, and the two then share one core, spinning, until the
 * load balancer parts them tens of milliseconds later (a 2-thread 256^3
 * GEMM measured at twice its time in one process out of three).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "pool.h"
#include "rt.h"

enum {
	MAX_THREADS = 256,
	CHUNKS_PER_THREAD = 4, /* dynamic balance against chunk overhead */
	SPIN_NS = 100000,      /* polling before sleeping (see above) */
	SPIN_CHECK = 64,       /* polls between clock reads */
};

struct ThreadPool {
	int nthreads;           /* the caller included */
	pthread_mutex_t busy;   /* held by the one running loop */
	pthread_mutex_t mu;     /* with the two conditions: sleeping */
	pthread_cond_t wake;    /* a new job, or stop */
	pthread_cond_t done;    /* the last worker left the job */
	pthread_t *threads;
	int nstarted;           /* workers running */
#ifdef __linux__
	cpu_set_t allowed;      /* where the workers may run, once started */
	bool placed;            /* workers start on a CPU of allowed each */
#endif
	atomic_bool stop;
	atomic_uint_fast64_t gen; /* job generation: publishes the job */
	atomic_int active;      /* workers not yet done with this job */
	/* the job, written before gen is bumped */
	ThreadPoolFn fn;
	void *ctx;
	int64_t n, chunk;
	atomic_int_fast64_t next;
	/* tpool_scratch_take's blocks, when given back (NULL: none kept) */
	pthread_mutex_t smu;
	void *scratch[TPOOL_SCRATCH_KEEP];
	size_t scratch_bytes[TPOOL_SCRATCH_KEEP];
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

ThreadPool *
tpool_new(int nthreads)
{
	ThreadPool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->nthreads = nthreads > 0 ? nthreads : default_threads();
	if (p->nthreads > MAX_THREADS)
		p->nthreads = MAX_THREADS;
	pthread_mutex_init(&p->busy, NULL);
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->smu, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->next, 0);
	atomic_init(&p->stop, false);
	atomic_init(&p->gen, 0);
	atomic_init(&p->active, 0);
	return p;
}

int
tpool_size(const ThreadPool *pool)
{
	return pool ? pool->nthreads : 1;
}

/* Takes chunks of the current job until none is left. */
static void
work(ThreadPool *p)
{
	for (;;) {
		int64_t lo = atomic_fetch_add(&p->next, p->chunk);
		if (lo >= p->n)
			return;
		int64_t hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
		p->fn(p->ctx, lo, hi);
	}
}

static void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	_mm_pause();
#endif
}

static int64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Polls until done(p, arg) holds or SPIN_NS have passed; its last answer. */
static bool
spin(ThreadPool *p, bool (*done)(ThreadPool *, uint64_t), uint64_t arg)
{
	int64_t until = 0;
	for (int i = 1;; i++) {
		if (done(p, arg))
			return true;
		cpu_relax();
		if (i % SPIN_CHECK)
			continue;
		int64_t t = now_ns();
		if (!until)
			until = t + SPIN_NS;
		else if (t >= until)
			return done(p, arg);
		else
			sched_yield(); /* to a thread waiting for this core */
	}
}

/* A job newer than generation seen, or stop. */
static bool
news(ThreadPool *p, uint64_t seen)
{
	return atomic_load_explicit(&p->gen, memory_order_acquire) != seen ||
	       atomic_load_explicit(&p->stop, memory_order_acquire);
}

/* Every worker checked out of the job. */
static bool
all_out(ThreadPool *p, uint64_t unused)
{
	(void)unused;
	return atomic_load_explicit(&p->active, memory_order_acquire) == 0;
}

/* A worker: waits for a job of a newer generation, works, checks out. */
static void *
worker(void *arg)
{
	ThreadPool *p = arg;
	uint64_t seen = 0;
#ifdef __linux__
	if (p->placed) /* started on one CPU (see the top): free again */
		pthread_setaffinity_np(pthread_self(), sizeof p->allowed, &p->allowed);
#endif
	for (;;) {
		if (!spin(p, news, seen)) {
			pthread_mutex_lock(&p->mu);
			while (!news(p, seen))
				pthread_cond_wait(&p->wake, &p->mu);
			pthread_mutex_unlock(&p->mu);
		}
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			break;
		seen = atomic_load_explicit(&p->gen, memory_order_acquire);
		work(p);
		if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

/* Starts the workers the first time (with mu held); false when none
 * could be started. */
static bool
start(ThreadPool *p)
{
	if (p->threads)
		return p->nstarted > 0;
	p->threads = calloc((size_t)p->nthreads, sizeof *p->threads);
	if (!p->threads)
		return false;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr))
		return false;
#ifdef __linux__
	/* the CPUs to start on: the caller's others (its affinity mask) */
	int cpus[CPU_SETSIZE], ncpu = 0, self = sched_getcpu();
	if (!sched_getaffinity(0, sizeof p->allowed, &p->allowed)) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &p->allowed) && c != self)
				cpus[ncpu++] = c;
	}
	p->placed = ncpu > 0;
#endif
	for (int i = 0; i < p->nthreads - 1; i++) {
#ifdef __linux__
		if (p->placed) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cpus[i % ncpu], &one);
			pthread_attr_setaffinity_np(&attr, sizeof one, &one);
		}
#endif
		if (pthread_create(&p->threads[i], &attr, worker, p))
			break;
		p->nstarted++;
	}
	pthread_attr_destroy(&attr);
	return p->nstarted > 0;
}

void
tpool_run(ThreadPool *p, void *ctx, int64_t n, ThreadPoolFn fn)
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
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store_explicit(&p->active, p->nstarted, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	work(p);
	if (!spin(p, all_out, 0)) {
		pthread_mutex_lock(&p->mu);
		while (!all_out(p, 0))
			pthread_cond_wait(&p->done, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_unlock(&p->busy);
}

void
rlx_parallel_for(void *pool, void *ctx, int64_t n, ThreadPoolFn fn)
{
	tpool_run(pool, ctx, n, fn);
}

void *
tpool_scratch_take(ThreadPool *p, size_t *bytes)
{
	void *buf = NULL;
	if (p) {
		pthread_mutex_lock(&p->smu);
		int best = -1; /* the smallest kept block that is large enough */
		for (int i = 0; i < TPOOL_SCRATCH_KEEP; i++)
			if (p->scratch[i] && p->scratch_bytes[i] >= *bytes &&
			    (best < 0 || p->scratch_bytes[i] < p->scratch_bytes[best]))
				best = i;
		if (best >= 0) {
			buf = p->scratch[best];
			*bytes = p->scratch_bytes[best];
			p->scratch[best] = NULL;
		}
		pthread_mutex_unlock(&p->smu);
	}
	if (buf)
		return buf;
	*bytes = (*bytes + 63) / 64 * 64;
	return rt_buf_alloc(*bytes);
}

void
tpool_scratch_give(ThreadPool *p, void *buf, size_t bytes)
{
	if (p && buf) {
		pthread_mutex_lock(&p->smu);
		int low = 0; /* an empty place, else the smallest block kept */
		for (int i = 0; i < TPOOL_SCRATCH_KEEP; i++)
			if (!p->scratch[i] || (p->scratch[low] && p->scratch_bytes[i] < p->scratch_bytes[low]))
				low = i;
		if (!p->scratch[low] || p->scratch_bytes[low] < bytes) {
			void *old = p->scratch[low];
			size_t oldb = p->scratch_bytes[low];
			p->scratch[low] = buf;
			p->scratch_bytes[low] = bytes;
			buf = old;
			bytes = oldb;
		}
		pthread_mutex_unlock(&p->smu);
	}
	rt_buf_free(buf, bytes);
}

void
tpool_free(ThreadPool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store_explicit(&p->stop, true, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nstarted; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	for (int i = 0; i < TPOOL_SCRATCH_KEEP; i++)
		rt_buf_free(p->scratch[i], p->scratch_bytes[i]);
	pthread_mutex_destroy(&p->smu);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->busy);
	free(p);
}
