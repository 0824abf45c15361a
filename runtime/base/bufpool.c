/*
 * bufpool.c — pools of large tensor buffers in huge pages (RtBufPool, rt.h):
 * a freed buffer is kept for the next tensor that fits it while what the
 * pool has mapped stays within its peak use, so a model's intermediates
 * reuse the same pages instead of faulting fresh ones. Thread safe.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt.h"

enum { HUGE_PAGE = RT_HUGE_MIN };

/* A free buffer of a pool. */
typedef struct {
	void *data;
	size_t cap;
} PoolBuf;

struct RtBufPool {
	pthread_mutex_t mu;
	int refs;          /* the creator's + one per buffer handed out */
	PoolBuf *free_;    /* kept buffers, oldest first */
	int nfree, cfree;
	size_t kept;       /* bytes in free_ */
	size_t used, peak; /* bytes handed out now, and at most */
};

/* A new pool with one reference (the creator's); NULL when out of
 * memory. */
RtBufPool *
rt_bufpool_new(void)
{
	RtBufPool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->mu, NULL)) {
		free(p);
		return NULL;
	}
	p->refs = 1;
	return p;
}

/* Unmaps the kept buffers and frees p (no reference left). */
static void
pool_destroy(RtBufPool *p)
{
	for (int i = 0; i < p->nfree; i++)
		munmap(p->free_[i].data, p->free_[i].cap);
	free(p->free_);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* Drops one reference to p (under no lock); the last one destroys it. */
static void
pool_unref(RtBufPool *p)
{
	pthread_mutex_lock(&p->mu);
	bool last = --p->refs == 0;
	pthread_mutex_unlock(&p->mu);
	if (last)
		pool_destroy(p);
}

/* Drops the creator's reference: the kept buffers go now, the pool when
 * its last buffer comes back. */
void
rt_bufpool_release(RtBufPool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < p->nfree; i++)
		munmap(p->free_[i].data, p->free_[i].cap);
	p->nfree = 0;
	p->kept = 0;
	pthread_mutex_unlock(&p->mu);
	pool_unref(p);
}

void *
rt_map_huge(size_t len)
{
	if (!len || len > SIZE_MAX - HUGE_PAGE)
		return NULL;
	size_t span = len + HUGE_PAGE;
	char *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	char *d = (char *)a;
	/* the whole pages past d + len; munmap rounds len up the same way */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *end = d + (len + page - 1) / page * page;
	if (d > m)
		munmap(m, (size_t)(d - m));
	if (end < m + span)
		munmap(end, (size_t)(m + span - end));
	madvise(d, len, MADV_HUGEPAGE);
	return d;
}

void *
rt_buf_alloc(size_t bytes)
{
	size_t len = (bytes + 63) / 64 * 64;
	if (len < bytes)
		return NULL;
	return len >= RT_HUGE_MIN ? rt_map_huge(len)
				  : aligned_alloc(64, len ? len : 64);
}

void
rt_buf_free(void *p, size_t bytes)
{
	size_t len = (bytes + 63) / 64 * 64;
	if (p && len >= RT_HUGE_MIN)
		munmap(p, len);
	else
		free(p);
}

/* A buffer of at least need bytes: the smallest kept one that fits
 * without wasting more than a quarter of it, else a fresh mapping (kept
 * buffers that fit nothing are unmapped first while the pool keeps more
 * than it may). *cap is the buffer's size. */
void *
rt_bufpool_get(RtBufPool *p, size_t need, size_t *cap)
{
	size_t want = (need + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	pthread_mutex_lock(&p->mu);
	int best = -1;
	for (int i = 0; i < p->nfree; i++) {
		size_t c = p->free_[i].cap;
		if (c >= want && c - want <= c / 4 &&
		    (best < 0 || c < p->free_[best].cap))
			best = i;
	}
	void *d = NULL;
	if (best >= 0) {
		d = p->free_[best].data;
		*cap = p->free_[best].cap;
		p->kept -= *cap;
		memmove(&p->free_[best], &p->free_[best + 1],
			sizeof *p->free_ * (size_t)(p->nfree - best - 1));
		p->nfree--;
	} else {
		/* what is kept and does not fit makes room, oldest first */
		size_t limit = p->peak > RT_POOL_KEEP_MIN ? p->peak
							  : RT_POOL_KEEP_MIN;
		while (p->nfree && p->kept + p->used + want > limit) {
			munmap(p->free_[0].data, p->free_[0].cap);
			p->kept -= p->free_[0].cap;
			memmove(&p->free_[0], &p->free_[1],
				sizeof *p->free_ * (size_t)(p->nfree - 1));
			p->nfree--;
		}
	}
	if (d) {
		p->used += *cap;
		p->refs++;
	}
	pthread_mutex_unlock(&p->mu);
	if (d)
		return d;
	d = rt_map_huge(want);
	if (!d)
		return NULL;
	*cap = want;
	pthread_mutex_lock(&p->mu);
	p->used += want;
	if (p->used > p->peak)
		p->peak = p->used;
	p->refs++;
	pthread_mutex_unlock(&p->mu);
	return d;
}

/* Gives a buffer back: kept while what the pool has mapped stays within
 * its peak use (and the creator still holds it), else unmapped. */
void
rt_bufpool_put(RtBufPool *p, void *data, size_t cap)
{
	pthread_mutex_lock(&p->mu);
	p->used -= cap;
	size_t limit = p->peak > RT_POOL_KEEP_MIN ? p->peak : RT_POOL_KEEP_MIN;
	bool keep = p->refs > 1 && p->kept + p->used + cap <= limit;
	if (keep && p->nfree == p->cfree) {
		int nc = p->cfree ? 2 * p->cfree : 8;
		PoolBuf *f = realloc(p->free_, sizeof *f * (size_t)nc);
		if (f) {
			p->free_ = f;
			p->cfree = nc;
		} else {
			keep = false;
		}
	}
	if (keep) {
		p->free_[p->nfree++] = (PoolBuf){data, cap};
		p->kept += cap;
	}
	pthread_mutex_unlock(&p->mu);
	if (!keep)
		munmap(data, cap);
	pool_unref(p);
}

/* The pool's byte counts, read under its lock. */
void
rt_bufpool_stats(RtBufPool *p, size_t *used, size_t *kept, size_t *peak)
{
	pthread_mutex_lock(&p->mu);
	if (used)
		*used = p->used;
	if (kept)
		*kept = p->kept;
	if (peak)
		*peak = p->peak;
	pthread_mutex_unlock(&p->mu);
}
