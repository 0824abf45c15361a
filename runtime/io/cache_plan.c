/*
 * cache_plan.c — a tensor cache's layout fixed before anything is computed
 * (rt.h), and its shards split among the processes that write them.
 *
 * The layout is rt_cache_add's rule applied to the records in cache order:
 * a record of half the cap or more gets a shard of its own; the others go
 * at the next 64-byte offset of the open shard, a new shard when they would
 * take it past the cap. Only names, dtypes and shapes go in, so the layout
 * is the same whoever computes it and however many processes share the
 * work.
 *
 * The split: contiguous runs of shards, one per process, each ending where
 * the running byte count is nearest to that process's share of the total
 * (the cache order keeps a layer's records together, so a run reads few
 * checkpoint tensors that another run reads too). A process may get none
 * when there are fewer shards than processes.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_io.h"

enum { PLAN_ALIGN = 64 }; /* as the writer's byteOffset alignment */

static uint64_t
align_up(uint64_t n)
{
	return (n + PLAN_ALIGN - 1) & ~(uint64_t)(PLAN_ALIGN - 1);
}

/* A record's size; false on a dtype or shape that cannot be stored. */
static bool
rec_bytes(RtPlanRec *r, RtError *e)
{
	int bits = r->dtype > DT_UNKNOWN && r->dtype < DT_COUNT
			   ? dtype_bits(r->dtype) : 0;
	if (bits <= 0 || bits % 8 || r->ndim < 0 || r->ndim > RT_MAX_DIMS) {
		rt_error(e, "'%s': a %s of rank %d cannot be stored in a "
			 "tensor cache", r->name, dtype_name(r->dtype), r->ndim);
		return false;
	}
	uint64_t n = (uint64_t)bits / 8;
	for (int i = 0; i < r->ndim; i++)
		if (r->shape[i] == 0)
			n = 0;
	for (int i = 0; i < r->ndim; i++)
		if (r->shape[i] < 0 ||
		    __builtin_mul_overflow(n, (uint64_t)r->shape[i], &n) ||
		    n > (uint64_t)INT64_MAX) {
			rt_error(e, "'%s': bad shape", r->name);
			return false;
		}
	r->nbytes = n;
	return true;
}

/* Splits the shards into contiguous runs balanced by bytes. */
static void
split(RtCachePlan *p)
{
	uint64_t total = 0;
	for (int s = 0; s < p->nshards; s++)
		total += p->shard_bytes[s];
	int s = 0;
	uint64_t done = 0; /* bytes of shards [0, s) */
	for (int r = 0; r < p->nprocs; r++) {
		if (r == p->nprocs - 1) {
			for (; s < p->nshards; s++)
				p->owner[s] = r;
			break;
		}
		/* the boundary nearest to (r + 1) / nprocs of the total */
		double goal = (double)total * (r + 1) / p->nprocs;
		while (s < p->nshards) {
			double before = (double)done, after = before +
				(double)p->shard_bytes[s];
			if (after - goal > goal - before)
				break;
			p->owner[s] = r;
			done += p->shard_bytes[s++];
		}
	}
}

bool
rt_cache_plan(RtCachePlan *p, RtPlanRec *recs, int n, uint64_t cap,
	      int nprocs, RtError *e)
{
	*p = (RtCachePlan){.recs = recs, .nrecs = n,
			   .cap = cap ? cap : RT_CACHE_SHARD_BYTES,
			   .nprocs = nprocs > 0 ? nprocs : 1};
	size_t m = (size_t)n + 1;
	p->shard_bytes = calloc(m, sizeof *p->shard_bytes);
	p->shard_first = calloc(m, sizeof *p->shard_first);
	p->shard_nrecs = calloc(m, sizeof *p->shard_nrecs);
	p->shard_alone = calloc(m, sizeof *p->shard_alone);
	p->owner = calloc(m, sizeof *p->owner);
	if (!p->shard_bytes || !p->shard_first || !p->shard_nrecs ||
	    !p->shard_alone || !p->owner) {
		rt_cache_plan_free(p);
		rt_error(e, "out of memory");
		return false;
	}
	int open = -1; /* the shard taking small records */
	for (int i = 0; i < n; i++) {
		RtPlanRec *r = &recs[i];
		if (!rec_bytes(r, e)) {
			rt_cache_plan_free(p);
			return false;
		}
		bool alone = r->nbytes >= p->cap / 2;
		if (open >= 0 && (alone || align_up(p->shard_bytes[open]) +
						   r->nbytes > p->cap))
			open = -1;
		if (open < 0) {
			open = p->nshards++;
			p->shard_first[open] = i;
		}
		r->shard = open;
		r->offset = align_up(p->shard_bytes[open]);
		p->shard_bytes[open] = r->offset + r->nbytes;
		p->shard_nrecs[open]++;
		if (alone) {
			p->shard_alone[open] = true;
			open = -1;
		}
	}
	split(p);
	return true;
}

void
rt_cache_plan_free(RtCachePlan *p)
{
	free(p->shard_bytes);
	free(p->shard_first);
	free(p->shard_nrecs);
	free(p->shard_alone);
	free(p->owner);
	p->shard_bytes = NULL;
	p->shard_first = p->shard_nrecs = p->owner = NULL;
	p->shard_alone = NULL;
	p->nshards = 0;
}
