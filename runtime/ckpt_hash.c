/*
 * ckpt_hash.c — the hash of the checkpoint a tensor cache is computed from
 * (transform.h): names, dtypes, shapes and the XXH3-128 of the bytes of the
 * tensors a transform takes, in its parameter order, folded into one
 * XXH3-64. A thread hashes them from the start (while the transform is
 * being compiled), each read into a buffer of its own that it reuses
 * (rt_weights_read: pread, not a mapping, which costs more to touch on a
 * VM); its reading ahead of the executor warms the page cache.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transform.h"
#include "xxh.h"

struct RtCkptHash {
	const char *path;
	const char *const *names;
	int n;
	XXH128_hash_t *hash;   /* of each tensor's bytes */
	bool *hashed;
	bool *others;          /* hashed by another process (rt_ckpt_hash_only) */
	DType *dt;
	int *ndim;
	int64_t (*shape)[RT_MAX_DIMS];
	/* the thread */
	pthread_t thr;
	bool started;
	atomic_bool stop;      /* the main thread gave up */
	RtWeights *src;        /* the thread's own view of the checkpoint */
	RtPool *pool;          /* the thread's buffers, each tensor read into one */
	bool ok;               /* written by the thread, read after the join */
	RtError err;
};

void
rt_advise_tensor(const RtTensor *t, int advice)
{
	if (t->own != RT_BORROWED || !t->nbytes)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)t->data & ~(page - 1);
	uintptr_t b = ((uintptr_t)t->data + t->nbytes + page - 1) & ~(page - 1);
	madvise((void *)a, b - a, advice);
}

RtCkptHash *
rt_ckpt_hash_new(const char *path, const char *const *names, int n)
{
	RtCkptHash *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	size_t np = (size_t)n + 1;
	h->path = path;
	h->names = names;
	h->n = n;
	h->hash = calloc(np, sizeof *h->hash);
	h->hashed = calloc(np, sizeof *h->hashed);
	h->others = calloc(np, sizeof *h->others);
	h->dt = calloc(np, sizeof *h->dt);
	h->ndim = calloc(np, sizeof *h->ndim);
	h->shape = calloc(np, sizeof *h->shape);
	if (!h->hash || !h->hashed || !h->others || !h->dt || !h->ndim || !h->shape) {
		rt_ckpt_hash_free(h);
		return NULL;
	}
	return h;
}

/* Hashes tensor i (a mapped one: its pages read ahead, dropped after). */
static void
hash_one(RtCkptHash *h, int i, const RtTensor *t)
{
	rt_advise_tensor(t, MADV_WILLNEED);
	h->hash[i] = XXH3_128bits(t->data, t->nbytes);
	h->dt[i] = t->dtype;
	h->ndim[i] = t->ndim;
	memcpy(h->shape[i], t->shape, sizeof(int64_t) * (size_t)t->ndim);
	h->hashed[i] = true;
	rt_advise_tensor(t, MADV_DONTNEED);
}

/* The thread: every tensor in order, from its own view of the file. */
static void *
hasher_main(void *arg)
{
	RtCkptHash *h = arg;
	for (int i = 0; i < h->n && !atomic_load(&h->stop); i++) {
		if (h->others[i])
			continue;
		RtTensor *t = rt_weights_read(h->src, h->names[i], h->pool, &h->err);
		if (!t) {
			h->ok = false;
			break;
		}
		hash_one(h, i, t);
		rt_tensor_free(t);
		if (!rt_weights_check(h->src, &h->err)) { /* truncated */
			h->ok = false;
			break;
		}
	}
	return NULL;
}

void
rt_ckpt_hash_start(RtCkptHash *h)
{
	h->ok = true;
	atomic_store(&h->stop, false);
	if (!(h->src = rt_weights_open(h->path, &h->err)))
		return;
	if (!(h->pool = rt_pool_new())) {
		rt_weights_close(h->src);
		h->src = NULL;
		return;
	}
	h->started = !pthread_create(&h->thr, NULL, hasher_main, h);
	if (!h->started) {
		rt_weights_close(h->src);
		h->src = NULL;
		rt_pool_release(h->pool);
		h->pool = NULL;
	}
}

void
rt_ckpt_hash_stop(RtCkptHash *h)
{
	atomic_store(&h->stop, true);
}

/* Waits for the thread; false + e when it failed. */
static bool
join(RtCkptHash *h, RtError *e)
{
	if (!h->started)
		return true;
	pthread_join(h->thr, NULL);
	h->started = false;
	rt_weights_close(h->src);
	h->src = NULL;
	rt_pool_release(h->pool);
	h->pool = NULL;
	if (!h->ok)
		rt_error(e, "%s", h->err.msg);
	return h->ok;
}

bool
rt_ckpt_hash_rest(RtCkptHash *h, RtWeights *w, RtError *e)
{
	if (!join(h, e))
		return false;
	for (int i = 0; i < h->n; i++) {
		if (h->hashed[i] || h->others[i])
			continue;
		RtTensor *t = rt_weights_load(w, h->names[i], e);
		if (!t)
			return false;
		hash_one(h, i, t);
		rt_tensor_free(t);
	}
	return true;
}

void
rt_ckpt_hash_only(RtCkptHash *h, const bool *mine)
{
	for (int i = 0; i < h->n; i++)
		h->others[i] = !mine[i];
}

void
rt_ckpt_hash_words(const RtCkptHash *h, uint64_t *w)
{
	for (int i = 0; i < h->n; i++) {
		bool here = h->hashed[i] && !h->others[i];
		w[2 * i] = here ? h->hash[i].low64 : 0;
		w[2 * i + 1] = here ? h->hash[i].high64 : 0;
	}
}

void
rt_ckpt_hash_set_words(RtCkptHash *h, const uint64_t *w,
		       const RtWeightInfo *info)
{
	for (int i = 0; i < h->n; i++) {
		if (!h->others[i])
			continue;
		h->hash[i].low64 = w[2 * i];
		h->hash[i].high64 = w[2 * i + 1];
		h->dt[i] = info[i].dt;
		h->ndim[i] = info[i].ndim;
		memcpy(h->shape[i], info[i].shape,
		       sizeof(int64_t) * (size_t)info[i].ndim);
		h->hashed[i] = true;
	}
}

void
rt_ckpt_hash_hex(const RtCkptHash *h, char hex[17])
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	for (int i = 0; i < h->n; i++) {
		const char *name = h->names[i];
		const char *dt = dtype_name(h->dt[i]);
		int64_t nd = h->ndim[i];
		XXH3_64bits_update(s, name, strlen(name) + 1);
		XXH3_64bits_update(s, dt, strlen(dt) + 1);
		XXH3_64bits_update(s, &nd, sizeof nd);
		XXH3_64bits_update(s, h->shape[i], sizeof(int64_t) * (size_t)nd);
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, h->hash[i]);
		XXH3_64bits_update(s, &c, sizeof c);
	}
	snprintf(hex, 17, "%016" PRIx64, (uint64_t)XXH3_64bits_digest(s));
	XXH3_freeState(s);
}

void
rt_ckpt_hash_free(RtCkptHash *h)
{
	if (!h)
		return;
	if (h->started) {
		rt_ckpt_hash_stop(h);
		RtError ignored;
		join(h, &ignored);
	}
	free(h->hash);
	free(h->hashed);
	free(h->others);
	free(h->dt);
	free(h->ndim);
	free(h->shape);
	free(h);
}
