/*
 * ckpt_hash.c — the hash of the checkpoint a tensor cache is computed from
 * (transform.h): names, dtypes, shapes and the XXH3-128 of the bytes of the
 * tensors a transform takes, in its parameter order, folded into one
 * XXH3-64. A thread hashes them from the start (while the transform is
 * being compiled), each read into a buffer of its own pool
 * (rt_weights_read: pread, not a mapping, which costs more to touch on a
 * VM), and keeps what it read for the executor (at most PARK_BYTES ahead
 * of it: rt_ckpt_hash_take), so that a weight is read once for both.
 * What the executor reads itself it hashes itself (rt_ckpt_hash_offer):
 * each tensor is claimed by the first of the two to reach it.
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

/* Bytes the thread keeps read for the executor, beyond one tensor. */
enum { PARK_BYTES = 32 << 20 };

struct RtCkptHash {
	const char *path;
	const char *const *names;
	int n;
	XXH128_hash_t *hash;   /* of each tensor's bytes */
	bool *hashed;
	atomic_bool *claimed;  /* being hashed or hashed, by the thread or not */
	bool *others;          /* hashed by another process (rt_ckpt_hash_only) */
	DType *dt;
	int *ndim;
	int64_t (*shape)[RT_MAX_DIMS];
	/* the thread */
	pthread_t thr;
	bool started;
	atomic_bool stop;      /* the main thread gave up */
	RtWeights *src;        /* the thread's own view of the checkpoint */
	RtBufPool *pool;          /* the thread's buffers, each tensor read into one */
	bool ok;               /* written by the thread, read after the join */
	RtError err;
	/* what the thread read for the executor, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;     /* a tensor parked or taken, busy over, a stop */
	RtTensor **parked;     /* per tensor: read and hashed, not yet taken */
	size_t parked_bytes;
	int busy;              /* the tensor the thread is reading, or -1 */
	bool draining;         /* the executor is done: keep nothing */
	bool locks;            /* mu and cv initialized */
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
	h->claimed = calloc(np, sizeof *h->claimed);
	h->parked = calloc(np, sizeof *h->parked);
	h->others = calloc(np, sizeof *h->others);
	h->dt = calloc(np, sizeof *h->dt);
	h->ndim = calloc(np, sizeof *h->ndim);
	h->shape = calloc(np, sizeof *h->shape);
	h->busy = -1;
	if (!h->hash || !h->hashed || !h->claimed || !h->parked || !h->others ||
	    !h->dt || !h->ndim || !h->shape) {
		rt_ckpt_hash_free(h);
		return NULL;
	}
	if (pthread_mutex_init(&h->mu, NULL)) {
		rt_ckpt_hash_free(h);
		return NULL;
	}
	if (pthread_cond_init(&h->cv, NULL)) {
		pthread_mutex_destroy(&h->mu);
		rt_ckpt_hash_free(h);
		return NULL;
	}
	h->locks = true;
	return h;
}

/* Is tensor i this process's to hash and not yet taken? Takes it. */
static bool
claim(RtCkptHash *h, int i)
{
	return !h->others[i] && !atomic_exchange(&h->claimed[i], true);
}

/* Records the hash of tensor i, t. */
static void
hash_into(RtCkptHash *h, int i, const RtTensor *t)
{
	h->hash[i] = XXH3_128bits(t->data, t->nbytes);
	h->dt[i] = t->dtype;
	h->ndim[i] = t->ndim;
	memcpy(h->shape[i], t->shape, sizeof(int64_t) * (size_t)t->ndim);
	h->hashed[i] = true;
}

/* Hashes tensor i (a mapped one: its pages read ahead, dropped after). */
static void
hash_one(RtCkptHash *h, int i, const RtTensor *t)
{
	rt_advise_tensor(t, MADV_WILLNEED);
	hash_into(h, i, t);
	rt_advise_tensor(t, MADV_DONTNEED);
}

/* The thread's next tensor: the first not claimed from i on, once what
 * it keeps is under PARK_BYTES (drain empties it); -1 when there is none
 * or it is stopped. */
static int
next_tensor(RtCkptHash *h, int i)
{
	pthread_mutex_lock(&h->mu);
	while (!atomic_load(&h->stop) && h->parked_bytes >= PARK_BYTES)
		pthread_cond_wait(&h->cv, &h->mu);
	while (i < h->n && !claim(h, i))
		i++;
	if (atomic_load(&h->stop) || i >= h->n)
		i = -1;
	h->busy = i;
	pthread_mutex_unlock(&h->mu);
	return i;
}

/* The thread is done with tensor i, t: kept for the executor (a copy;
 * a mapped record of a tensor cache is not worth keeping) or freed. */
static void
done_with(RtCkptHash *h, int i, RtTensor *t)
{
	pthread_mutex_lock(&h->mu);
	h->busy = -1;
	if (t && t->own != RT_BORROWED && !h->draining && !atomic_load(&h->stop)) {
		h->parked[i] = t;
		h->parked_bytes += t->nbytes;
		t = NULL;
	}
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	rt_tensor_free(t);
}

/* The thread: every tensor not claimed yet, in order, from its own view
 * of the file. */
static void *
hasher_main(void *arg)
{
	RtCkptHash *h = arg;
	for (int i = 0; (i = next_tensor(h, i)) >= 0; i++) {
		RtTensor *t = rt_weights_read(h->src, h->names[i], h->pool, &h->err);
		if (t) {
			hash_one(h, i, t);
			if (!rt_weights_check(h->src, &h->err)) { /* truncated */
				rt_tensor_free(t);
				t = NULL;
			}
		}
		bool got = t != NULL; /* t is the executor's, or freed, after */
		done_with(h, i, t);
		if (!got) {
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
	h->draining = false;
	atomic_store(&h->stop, false);
	if (!(h->src = rt_weights_open(h->path, &h->err)))
		return;
	if (!(h->pool = rt_bufpool_new())) {
		rt_weights_close(h->src);
		h->src = NULL;
		return;
	}
	h->started = !pthread_create(&h->thr, NULL, hasher_main, h);
	if (!h->started) {
		rt_weights_close(h->src);
		h->src = NULL;
		rt_bufpool_release(h->pool);
		h->pool = NULL;
	}
}

void
rt_ckpt_hash_stop(RtCkptHash *h)
{
	pthread_mutex_lock(&h->mu);
	atomic_store(&h->stop, true);
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

RtTensor *
rt_ckpt_hash_take(RtCkptHash *h, int i)
{
	if (!h || !h->started || i < 0 || i >= h->n)
		return NULL;
	pthread_mutex_lock(&h->mu);
	while (h->busy == i) /* being read: sooner there than read again */
		pthread_cond_wait(&h->cv, &h->mu);
	RtTensor *t = h->parked[i];
	if (t) {
		h->parked[i] = NULL;
		h->parked_bytes -= t->nbytes;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return t;
}

void
rt_ckpt_hash_offer(RtCkptHash *h, int i, const RtTensor *t)
{
	if (h && i >= 0 && i < h->n && claim(h, i))
		hash_into(h, i, t);
}

/* Frees what the thread kept and keeps nothing more. */
static void
drain(RtCkptHash *h)
{
	pthread_mutex_lock(&h->mu);
	h->draining = true;
	for (int i = 0; i < h->n; i++) {
		rt_tensor_free(h->parked[i]);
		h->parked[i] = NULL;
	}
	h->parked_bytes = 0;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* Waits for the thread (what it kept freed); false + e when it failed. */
static bool
join(RtCkptHash *h, RtError *e)
{
	if (!h->started)
		return true;
	drain(h);
	pthread_join(h->thr, NULL);
	h->started = false;
	rt_weights_close(h->src);
	h->src = NULL;
	rt_bufpool_release(h->pool);
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
	free(h->claimed);
	free(h->parked);
	free(h->others);
	free(h->dt);
	free(h->ndim);
	free(h->shape);
	if (h->locks) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
	}
	free(h);
}
