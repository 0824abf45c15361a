/*
 * cache_queue.c — the writer threads of a tensor cache and their queue
 * (transform.h): values pushed in order, placed in the cache in that order
 * when a thread takes them, large tensors written two at a time.
 *
 * Two threads: the kernel's copy into the page cache bounds a transform
 * that computes little (a concatenation, a cast), and two threads writing
 * two shards at once measured 1.6x faster than one on a 2-core machine
 * (1 GiB of 48 MiB shards, hashed and written: 0.11 s against 0.18 s).
 * Few bytes in flight (a job per thread plus max_bytes) beat a deep queue:
 * fresh memory is slow to touch, buffers the pool reuses are not.
 */
#include <pthread.h>
#include <stdlib.h>

#include "transform.h"

enum { MAX_THREADS = 4 };

/* A value to append: v is the pushing thread's reference. */
typedef struct {
	RtValue *v;
	const char *name;
	size_t bytes;
	bool finished;
} Job;

/* [0, reaped) are released, the rest up to next are finished or running,
 * [next, njobs) waiting. */
struct RtCacheQueue {
	RtCacheWriter *cw;
	pthread_t thr[MAX_THREADS];
	int nthreads;       /* 0: jobs run on the pushing thread as they come */
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* a job queued or finished, or stop */
	Job *jobs;
	int njobs, cjobs, next, reaped;
	size_t inflight;    /* bytes of the jobs not finished */
	size_t max_bytes;
	int unfinished;     /* jobs queued or running */
	bool stop, failed;
	RtError err;        /* the first failure */
};

/* Places job j in the cache: writes it, unless it is a tensor with a
 * shard of its own, which *tk then names for rt_cache_write_alone. */
static bool
job_place(RtCacheQueue *q, const Job *j, RtCacheTicket *tk, RtError *e)
{
	tk->shard = -1;
	if (j->v->kind == RV_TENSOR)
		return rt_cache_place(q->cw, j->name, j->v->t, tk, e);
	return rt_cache_add_shape(q->cw, j->name, j->v->values, j->v->n, e);
}

/* Records the end of job j (with q->mu held when threads run). */
static void
job_end(RtCacheQueue *q, Job *j, bool ok, const RtError *e)
{
	if (!ok && !q->failed) {
		q->failed = true;
		q->err = *e;
	}
	j->finished = true;
	q->inflight -= j->bytes;
	q->unfinished--;
}

/* A writer thread: takes the queued jobs in order until stopped with none
 * left; after a failure the rest are skipped. */
static void *
writer_main(void *arg)
{
	RtCacheQueue *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->stop && q->next == q->njobs)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->next == q->njobs)
			break;
		Job *j = &q->jobs[q->next++];
		RtError e;
		e.msg[0] = 0;
		RtCacheTicket tk = {-1, NULL};
		bool ok = q->failed || job_place(q, j, &tk, &e);
		if (tk.shard >= 0) {
			pthread_mutex_unlock(&q->mu);
			ok = rt_cache_write_alone(q->cw, &tk, j->v->t, &e);
			pthread_mutex_lock(&q->mu);
		}
		job_end(q, j, ok, &e);
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

RtCacheQueue *
rt_cache_queue_new(RtCacheWriter *cw, int max_jobs, int nthreads,
		   size_t max_bytes)
{
	RtCacheQueue *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->jobs = calloc((size_t)max_jobs + 1, sizeof *q->jobs);
	if (!q->jobs) {
		free(q);
		return NULL;
	}
	q->cw = cw;
	q->cjobs = max_jobs;
	q->max_bytes = max_bytes;
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if (nthreads <= 0 || pthread_mutex_init(&q->mu, NULL))
		return q;
	if (pthread_cond_init(&q->cv, NULL)) {
		pthread_mutex_destroy(&q->mu);
		return q;
	}
	while (q->nthreads < nthreads &&
	       !pthread_create(&q->thr[q->nthreads], NULL, writer_main, q))
		q->nthreads++;
	if (!q->nthreads) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
	}
	return q;
}

/* Releases the values of the jobs finished so far (pushing thread; with
 * the lock held when threads run). Out of order: a job finished behind a
 * slow one gives its memory back at once, so that what is alive stays the
 * jobs unfinished plus the one being computed. [0, reaped) are all
 * released. */
static void
reap(RtCacheQueue *q)
{
	for (int i = q->reaped; i < q->njobs; i++) {
		if (!q->jobs[i].finished)
			continue;
		rt_value_release(q->jobs[i].v);
		q->jobs[i].v = NULL;
	}
	while (q->reaped < q->njobs && q->jobs[q->reaped].finished)
		q->reaped++;
}

/* The writers' failure into e; false when they failed. */
static bool
queue_ok(RtCacheQueue *q, RtError *e)
{
	if (!q->failed)
		return true;
	rt_error(e, "%s", q->err.msg[0] ? q->err.msg : "writing failed");
	return false;
}

bool
rt_cache_queue_push(RtCacheQueue *q, RtValue *v, const char *name,
		    RtError *e)
{
	if (q->njobs == q->cjobs) {
		rt_error(e, "more outputs than %d", q->cjobs);
		return false;
	}
	size_t bytes = v->kind == RV_TENSOR ? v->t->nbytes : 0;
	Job j = {rt_value_retain(v), name, bytes, false};
	if (!q->nthreads) {
		Job *p = &q->jobs[q->njobs++];
		*p = j;
		q->next = q->njobs;
		q->unfinished++;
		RtError je;
		je.msg[0] = 0;
		RtCacheTicket tk;
		bool ok = q->failed ||
			  (job_place(q, p, &tk, &je) &&
			   rt_cache_write_alone(q->cw, &tk, p->v->t, &je));
		job_end(q, p, ok, &je);
		reap(q);
		return queue_ok(q, e);
	}
	/* a job for each idle writer, whatever its size; beyond that, up to
	 * max_bytes in the queue */
	pthread_mutex_lock(&q->mu);
	while (!q->failed && q->unfinished >= q->nthreads &&
	       q->inflight + bytes > q->max_bytes) {
		reap(q);
		pthread_cond_wait(&q->cv, &q->mu);
	}
	reap(q);
	q->jobs[q->njobs++] = j;
	q->inflight += bytes;
	q->unfinished++;
	pthread_cond_broadcast(&q->cv);
	bool ok = queue_ok(q, e);
	pthread_mutex_unlock(&q->mu);
	return ok;
}

void
rt_cache_queue_poll(RtCacheQueue *q)
{
	if (!q->nthreads) {
		reap(q);
		return;
	}
	pthread_mutex_lock(&q->mu);
	reap(q);
	pthread_mutex_unlock(&q->mu);
}

bool
rt_cache_queue_finish(RtCacheQueue *q, bool drain, RtError *e)
{
	if (!q)
		return true;
	if (q->nthreads) {
		pthread_mutex_lock(&q->mu);
		q->stop = true;
		if (!drain)
			q->failed = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		for (int i = 0; i < q->nthreads; i++)
			pthread_join(q->thr[i], NULL);
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		q->nthreads = 0;
	}
	for (int i = q->reaped; i < q->njobs; i++)
		q->jobs[i].finished = true;
	reap(q);
	bool ok = !drain || queue_ok(q, e);
	free(q->jobs);
	free(q);
	return ok;
}
