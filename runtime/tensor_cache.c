/*
 * tensor_cache.c — the tvmjs tensor cache, written and read.
 *
 * DIR/tensor-cache.json lists shards (DIR/params_shard_N.bin) and, in each,
 * the records stored there. The writer streams tensors into shards as they
 * come and renames a finished temporary directory into place; the reader
 * validates the whole description before anything is used and checks each
 * shard's xxh3 hash the first time the shard is loaded from. The format is
 * described in docs/formats.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <xxhash.h>

#include "rlx.h"
#include "rt.h"

enum {
	CACHE_ALIGN = 64,               /* byteOffset alignment in a shard */
	STAGE_BYTES = 1 << 20,          /* small pieces gathered per write() */
	CHUNK_BYTES = 512 << 10,        /* large pieces: hashed, then written
					 * while still in the cache */
	JSON_LIMIT = 256 << 20,         /* largest tensor-cache.json read */
	PREALLOC_BYTES = 1 << 20,       /* records this large: blocks
					 * allocated before the write */
};

static const char CACHE_JSON[] = "tensor-cache.json";
static const char OLD_CACHE_JSON[] = "ndarray-cache.json";

/* Keys of "metadata" that the writer sets itself. */
static const char *const own_meta_keys[] = {
	"ParamSize", "ParamBytes", "BitsPerParam", "rlxVersion",
};

/* Formats an error into e (when given); returns false for `return cerr()`. */
static bool __attribute__((format(printf, 2, 3)))
cerr(RtError *e, const char *fmt, ...)
{
	if (e) {
		char raw[sizeof e->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(raw, sizeof raw, fmt, ap);
		va_end(ap);
		text_escape(e->msg, sizeof e->msg, raw); /* as rt_error */
	}
	return false;
}

/* malloc'd printf. */
static char * __attribute__((format(printf, 1, 2)))
xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Element size in bytes of a dtype the cache stores; 0 for none. */
static size_t
itemsize(DType dt)
{
	if (dt <= DT_UNKNOWN || dt >= DT_COUNT)
		return 0;
	return (size_t)dtype_bits(dt) / 8;
}

/* nbytes of a shape and dtype; false on a negative dim or overflow. */
static bool
shape_bytes(DType dt, int ndim, const int64_t *shape, uint64_t *out)
{
	uint64_t n = itemsize(dt);
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

/* Rounds n up to the cache alignment. */
static uint64_t
align_up(uint64_t n)
{
	return (n + CACHE_ALIGN - 1) & ~(uint64_t)(CACHE_ALIGN - 1);
}

/* What check_replaceable learns from an existing cache's JSON: the names
 * that belong to the cache (the JSON, its shards, the module rlx stored). */
typedef struct {
	json_t *own;      /* set of names */
	const char *bad;  /* the first entry that is not the cache's */
	char bad_name[256];
	bool bad_dir;
} Owned;

static bool
owned_entry(void *ctx, const char *name, bool is_dir)
{
	Owned *o = ctx;
	if (!is_dir && json_object_get(o->own, name))
		return true;
	snprintf(o->bad_name, sizeof o->bad_name, "%s", name);
	o->bad = o->bad_name;
	o->bad_dir = is_dir;
	return false;
}

static bool entries_of(void *ctx, const char *name, bool is_dir)
{
	(void)name;
	(void)is_dir;
	*(bool *)ctx = true;
	return false;
}

/*
 * Checks that DIR may be replaced by a cache: it does not exist, or is a
 * directory that is empty or holds a tensor cache and nothing else (its
 * tensor-cache.json, the shards that JSON lists, and the module file its
 * "rlxModel" names). Anything else is somebody's data: refused, never
 * deleted. *exists tells whether it exists.
 */
static bool
check_replaceable(const char *dir, bool *exists, RtError *e)
{
	struct stat st;
	*exists = false;
	if (lstat(dir, &st)) {
		if (errno == ENOENT)
			return true;
		return cerr(e, "%s: %s", dir, strerror(errno));
	}
	*exists = true;
	if (!S_ISDIR(st.st_mode))
		return cerr(e, "%s: exists and is not a directory", dir);
	char *p = xprintf("%s/%s", dir, CACHE_JSON);
	if (!p)
		return cerr(e, "%s: out of memory", dir);
	if (lstat(p, &st) != 0) {
		free(p);
		bool any = false;
		if (!rt_dir_list(dir, entries_of, &any, e))
			return false;
		if (any)
			return cerr(e, "%s: exists and is not a tensor cache "
				    "(no %s); refusing to replace it", dir,
				    CACHE_JSON);
		return true;
	}
	json_error_t je;
	json_t *root = S_ISREG(st.st_mode)
			       ? json_load_file(p, JSON_REJECT_DUPLICATES, &je)
			       : NULL;
	free(p);
	if (!root)
		return cerr(e, "%s: its %s cannot be read as JSON; refusing to "
			    "replace it (remove it yourself if it is no longer "
			    "needed)", dir, CACHE_JSON);
	Owned o = {.own = json_object()};
	json_object_set_new(o.own, CACHE_JSON, json_true());
	json_t *shards = json_object_get(root, "records"), *sh;
	size_t i;
	json_array_foreach(shards, i, sh) {
		const char *dp = json_string_value(json_object_get(sh, "dataPath"));
		if (dp)
			json_object_set_new(o.own, dp, json_true());
	}
	const char *model = json_string_value(
		json_object_get(json_object_get(root, "metadata"), "rlxModel"));
	if (model)
		json_object_set_new(o.own, model, json_true());
	bool ok = rt_dir_list(dir, owned_entry, &o, e);
	json_decref(o.own);
	json_decref(root);
	if (ok && o.bad)
		ok = cerr(e, "%s: holds %s '%s' that is not part of the tensor "
			  "cache; refusing to replace it (move it away, or write "
			  "the cache elsewhere)", dir,
			  o.bad_dir ? "a directory" : "a file", o.bad);
	return ok;
}

/* ------------------------------------------------------------------ writer */

/*
 * The writer. Records go into shards in the order they are placed; a
 * record of half the cap or more gets a shard of its own, whose bytes can be
 * written on another thread (rt_cache_place, rt_cache_write_alone) while
 * later records are placed and written: mu guards every field but the
 * constant ones (dir, tmp, cap) for that.
 */
struct RtCacheWriter {
	pthread_mutex_t mu;
	char *dir;        /* destination, no trailing slash */
	RtTmpDir out;     /* the temporary directory (out.tmp) */
	uint64_t cap;     /* shard cap in bytes */
	json_t *shards;   /* per shard number: its object, null until done */
	int pending;      /* shards placed alone, not yet written */
	json_t *names;    /* set of record names */
	bool failed;      /* an I/O error: only abort is left */
	/* the open shard */
	int fd;           /* -1 when none is open */
	char *stage;      /* STAGE_BYTES of pieces not yet written */
	size_t nstage;
	char *fpath;
	int nshard;       /* shards started so far */
	int shard_ix;     /* the open shard's number */
	uint64_t fsize;   /* bytes written to the open shard */
	XXH3_state_t *xs;
	json_t *recs;
	/* metadata */
	int64_t nparams;
	uint64_t param_bytes;
	double param_count;
	/* a planned cache (rt_cache_begin_planned, rt_cache_join) */
	const RtCachePlan *plan;
	int me;           /* the process this writer is */
	bool joined;      /* the directory is another process's */
	json_t *plan_ix;  /* name -> record index in the plan */
	int *sfd;         /* per shard: its open file, -1 */
	int *left;        /* per shard: records not yet written */
	uint64_t *hash;   /* per shard: content hash once written */
};


/* Starts a cache that replaces DIR once finished (see rt.h). */
RtCacheWriter *
rt_cache_begin(const char *dir, const RtCacheOptions *opts, RtError *e)
{
	if (!dir || !*dir) {
		cerr(e, "tensor cache: empty directory name");
		return NULL;
	}
	RtCacheWriter *w = calloc(1, sizeof *w);
	if (!w) {
		cerr(e, "%s: out of memory", dir);
		return NULL;
	}
	w->dir = rt_path_strip(dir);
	w->out = (RtTmpDir){.fd = -1, .slot = -1};
	w->cap = opts && opts->shard_bytes ? opts->shard_bytes
					   : RT_CACHE_SHARD_BYTES;
	w->fd = -1;
	pthread_mutex_init(&w->mu, NULL);
	w->shards = json_array();
	w->names = json_object();
	w->xs = XXH3_createState();
	bool exists;
	if (!w->dir || !w->shards || !w->names || !w->xs) {
		cerr(e, "%s: out of memory", dir);
		goto fail;
	}
	if (!check_replaceable(w->dir, &exists, e) ||
	    !rt_dir_begin(&w->out, w->dir, e))
		goto fail;
	return w;
fail:
	rt_cache_abort(w);
	return NULL;
}

/* The temporary directory that becomes DIR. */
const char *
rt_cache_tmpdir(const RtCacheWriter *w)
{
	return w->out.tmp;
}

/* Writes a file that goes with the cache (see rt.h). */
bool
rt_cache_add_file(RtCacheWriter *w, const char *name, const void *p,
		  size_t n, RtError *e)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || !strcmp(name, CACHE_JSON))
		return cerr(e, "%s: '%s' cannot be a file of the cache", w->dir,
			    name);
	char *path = xprintf("%s/%s", w->out.tmp, name);
	if (!path)
		return cerr(e, "%s: out of memory", w->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0666);
	bool ok = fd >= 0;
	if (!ok)
		cerr(e, "%s: cannot create: %s", path, strerror(errno));
	ok = ok && rt_write_all(fd, path, p, n, e);
	if (fd >= 0 && close(fd) && ok)
		ok = cerr(e, "%s: write failed: %s", path, strerror(errno));
	free(path);
	return ok;
}

/* Marks the writer broken after an I/O error; returns false. */
static bool
wfail(RtCacheWriter *w)
{
	w->failed = true;
	return false;
}

/* Writes all n bytes at p to the open shard's file. */
static bool
write_all(RtCacheWriter *w, const char *p, size_t n, RtError *e)
{
	return rt_write_all(w->fd, w->fpath, p, n, e) || wfail(w);
}

/* Writes out the staged small pieces. */
static bool
stage_flush(RtCacheWriter *w, RtError *e)
{
	size_t n = w->nstage;
	w->nstage = 0;
	return write_all(w, w->stage, n, e);
}

/*
 * Appends n bytes to the open shard and hashes them. Large pieces go to
 * the file straight from the caller's memory (one copy, the kernel's), a
 * chunk at a time, each hashed just before it is written so that the
 * kernel copies it from the cache rather than from memory; small ones are
 * gathered so that a shard of many tiny records is not a system call per
 * record.
 */
static bool
shard_write(RtCacheWriter *w, const void *p, size_t n, RtError *e)
{
	if (!n)
		return true;
	w->fsize += n;
	if (n <= STAGE_BYTES / 4) {
		if (w->nstage + n > STAGE_BYTES && !stage_flush(w, e))
			return false;
		memcpy(w->stage + w->nstage, p, n);
		w->nstage += n;
		if (XXH3_64bits_update(w->xs, p, n) != XXH_OK)
			goto hash_failed;
		return true;
	}
	if (!stage_flush(w, e))
		return false;
	for (const char *c = p; n;) {
		size_t k = n < CHUNK_BYTES ? n : CHUNK_BYTES;
		if (XXH3_64bits_update(w->xs, c, k) != XXH_OK)
			goto hash_failed;
		if (!write_all(w, c, k, e))
			return false;
		c += k;
		n -= k;
	}
	return true;
hash_failed:
	cerr(e, "%s: hashing failed", w->fpath);
	return wfail(w);
}

/* Opens the next shard file. */
static bool
shard_open(RtCacheWriter *w, RtError *e)
{
	w->fpath = xprintf("%s/params_shard_%d.bin", w->out.tmp, w->nshard);
	if (!w->stage)
		w->stage = malloc(STAGE_BYTES);
	w->nstage = 0;
	w->recs = json_array();
	if (!w->fpath || !w->stage || !w->recs) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	w->fd = open(w->fpath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		cerr(e, "%s: cannot create: %s", w->fpath, strerror(errno));
		return wfail(w);
	}
	if (XXH3_64bits_reset(w->xs) != XXH_OK) {
		cerr(e, "%s: hashing failed", w->fpath);
		return wfail(w);
	}
	if (json_array_append_new(w->shards, json_null())) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	w->fsize = 0;
	w->shard_ix = w->nshard++;
	return true;
}

/* Frees the open shard's state (the file is already closed or abandoned). */
static void
shard_drop(RtCacheWriter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->nstage = 0;
	free(w->fpath);
	json_decref(w->recs);
	w->fpath = NULL;
	w->recs = NULL;
}

/* Closes the open shard and adds its description to the shard list. */
static bool
shard_close(RtCacheWriter *w, RtError *e)
{
	if (w->fd < 0)
		return true;
	if (!stage_flush(w, e))
		return false;
	int fd = w->fd;
	w->fd = -1;
	if (close(fd)) {
		cerr(e, "%s: write failed: %s", w->fpath, strerror(errno));
		return wfail(w);
	}
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx",
		 (unsigned long long)XXH3_64bits_digest(w->xs));
	const char *base = strrchr(w->fpath, '/') + 1;
	json_t *s = json_pack("{s:s, s:s, s:I, s:s, s:O}", "dataPath", base,
			      "format", "raw-shard", "nbytes",
			      (json_int_t)w->fsize, "rlxHash", hex, "records",
			      w->recs);
	if (!s || json_array_set_new(w->shards, (size_t)w->shard_ix, s)) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	shard_drop(w);
	return true;
}

/*
 * Allocates the blocks of a large record before it is written: write()
 * into allocated (unwritten) extents skips ext4's delayed allocation,
 * whose per-page bookkeeping costs more than the copy itself (measured:
 * 1 GiB of 16 MiB records written in 0.19-0.35 s instead of 0.24-0.98 s).
 * The file size is left alone; where the file system cannot, nothing is
 * done.
 */
static void
preallocate(int fd, uint64_t off, uint64_t nbytes)
{
	if (nbytes < PREALLOC_BYTES)
		return;
	while (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)off,
			 (off_t)nbytes) && errno == EINTR)
		;
}

bool
rt_cache_alone(const RtCacheWriter *w, uint64_t nbytes)
{
	return nbytes >= w->cap / 2;
}

/* Places one record of nbytes at a 64-aligned offset: a new shard when the
 * open one would grow past the cap, a shard of its own for a record of half
 * the cap or more. Writes the bytes and returns the record's description. */
static bool
place(RtCacheWriter *w, const char *name, json_t *rec, const void *data,
      uint64_t nbytes, RtError *e)
{
	static const unsigned char zeros[CACHE_ALIGN];
	bool alone = rt_cache_alone(w, nbytes);
	if (w->fd >= 0 && json_array_size(w->recs) &&
	    (alone || align_up(w->fsize) + nbytes > w->cap))
		if (!shard_close(w, e))
			goto fail;
	if (w->fd < 0 && !shard_open(w, e))
		goto fail;
	uint64_t off = align_up(w->fsize);
	preallocate(w->fd, off, nbytes);
	if (!shard_write(w, zeros, off - w->fsize, e) ||
	    !shard_write(w, data, nbytes, e))
		goto fail;
	if (json_object_set_new(rec, "nbytes", json_integer((json_int_t)nbytes)) ||
	    json_object_set_new(rec, "byteOffset", json_integer((json_int_t)off)) ||
	    json_array_append(w->recs, rec) ||
	    json_object_set_new(w->names, name, json_true())) {
		cerr(e, "%s: out of memory", w->dir);
		goto fail;
	}
	json_decref(rec);
	if (alone)
		return shard_close(w, e);
	return true;
fail:
	json_decref(rec);
	return wfail(w);
}

/* Checks a record name before anything is written. */
static bool
check_name(RtCacheWriter *w, const char *name, RtError *e)
{
	if (w->failed)
		return cerr(e, "%s: the cache failed earlier and cannot be "
			    "completed", w->dir);
	if (!name || !*name)
		return cerr(e, "%s: a record needs a non-empty name", w->dir);
	if (json_object_get(w->names, name))
		return cerr(e, "%s: duplicate record name '%s'", w->dir, name);
	json_t *probe = json_string(name);
	if (!probe)
		return cerr(e, "%s: record name '%s' is not valid UTF-8",
			    w->dir, name);
	json_decref(probe);
	return true;
}

/* Starts a record object {"name", "shape", "dtype", "format"}. */
static json_t *
new_record(const char *name, DType dt, int ndim, const int64_t *shape)
{
	json_t *sh = json_array();
	for (int i = 0; sh && i < ndim; i++)
		if (json_array_append_new(sh, json_integer(shape[i]))) {
			json_decref(sh);
			return NULL;
		}
	if (!sh)
		return NULL;
	return json_pack("{s:s, s:o, s:s, s:s}", "name", name, "shape", sh,
			 "dtype", dtype_name(dt), "format", "raw");
}

/* Checks a tensor before it is placed; its size into *nbytes. */
static bool
check_tensor(RtCacheWriter *w, const char *name, const RtTensor *t,
	     uint64_t *nbytes, RtError *e)
{
	if (t->ndim < 0 || t->ndim > RT_MAX_DIMS)
		return cerr(e, "%s: tensor '%s': bad rank %d", w->dir, name,
			    t->ndim);
	if (!itemsize(t->dtype))
		return cerr(e, "%s: tensor '%s': dtype %s cannot be stored",
			    w->dir, name, dtype_name(t->dtype));
	if (!shape_bytes(t->dtype, t->ndim, t->shape, nbytes))
		return cerr(e, "%s: tensor '%s': bad shape", w->dir, name);
	if (*nbytes != t->nbytes || (*nbytes && !t->data))
		return cerr(e, "%s: tensor '%s': holds %zu bytes, its shape "
			    "needs %llu", w->dir, name,
			    t->data ? t->nbytes : 0, (unsigned long long)*nbytes);
	return true;
}

static bool place_planned(RtCacheWriter *w, const char *name, DType dt,
			  int ndim, const int64_t *shape, bool is_shape,
			  const void *data, uint64_t nbytes, RtCacheTicket *tk,
			  RtError *e);

/* rt_cache_place with w->mu held. */
static bool
place_tensor(RtCacheWriter *w, const char *name, const RtTensor *t,
	     RtCacheTicket *tk, RtError *e)
{
	uint64_t nbytes = 0;
	if (!check_name(w, name, e) || !check_tensor(w, name, t, &nbytes, e))
		return false;
	if (w->plan)
		return place_planned(w, name, t->dtype, t->ndim, t->shape, false,
				     t->data, nbytes, tk, e);
	json_t *rec = new_record(name, t->dtype, t->ndim, t->shape);
	if (!rec) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	if (!rt_cache_alone(w, nbytes)) {
		if (!place(w, name, rec, t->data, nbytes, e))
			return false;
	} else {
		/* its shard number now, its bytes by rt_cache_write_alone */
		if (w->fd >= 0 && !shard_close(w, e)) {
			json_decref(rec);
			return false;
		}
		if (json_object_set_new(rec, "nbytes", json_integer((json_int_t)nbytes)) ||
		    json_object_set_new(rec, "byteOffset", json_integer(0)) ||
		    json_object_set_new(w->names, name, json_true()) ||
		    json_array_append_new(w->shards, json_null())) {
			json_decref(rec);
			cerr(e, "%s: out of memory", w->dir);
			return wfail(w);
		}
		tk->shard = w->nshard++;
		tk->rec = rec;
		w->pending++;
	}
	uint64_t numel = itemsize(t->dtype) ? nbytes / itemsize(t->dtype) : 0;
	w->nparams++;
	w->param_bytes += nbytes;
	w->param_count += (double)numel;
	return true;
}

/* ------------------------------------------------------- planned writer */

/* "(2, 3) float32" or "a shape of 3 values", for messages. */
static void
desc(char *buf, size_t n, DType dt, int ndim, const int64_t *shape,
     bool is_shape)
{
	if (is_shape) {
		snprintf(buf, n, "a shape of %lld values",
			 (long long)(ndim ? shape[0] : 0));
		return;
	}
	size_t k = (size_t)snprintf(buf, n, "(");
	for (int i = 0; i < ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "",
				      (long long)shape[i]);
	if (k < n)
		snprintf(buf + k, n - k, "%s) %s", ndim == 1 ? "," : "",
			 dtype_name(dt));
}

/* Record i of the plan as the JSON the cache lists (with its place). */
static json_t *
plan_record(const RtCachePlan *p, int i)
{
	const RtPlanRec *r = &p->recs[i];
	json_t *rec = new_record(r->name, r->dtype, r->ndim, r->shape);
	if (rec && r->is_shape &&
	    json_object_set_new(rec, "rlxKind", json_string("shape")))
		goto fail;
	if (!rec ||
	    json_object_set_new(rec, "nbytes", json_integer((json_int_t)r->nbytes)) ||
	    json_object_set_new(rec, "byteOffset", json_integer((json_int_t)r->offset)))
		goto fail;
	return rec;
fail:
	json_decref(rec);
	return NULL;
}

/* Shard si of the plan as the JSON the cache lists, with its hash. */
static json_t *
plan_shard(const RtCachePlan *p, int si, uint64_t hash)
{
	char path[64], hex[17];
	snprintf(path, sizeof path, "params_shard_%d.bin", si);
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
	json_t *recs = json_array();
	for (int k = 0; recs && k < p->shard_nrecs[si]; k++)
		if (json_array_append_new(recs,
					  plan_record(p, p->shard_first[si] + k))) {
			json_decref(recs);
			recs = NULL;
		}
	if (!recs)
		return NULL;
	return json_pack("{s:s, s:s, s:I, s:s, s:o}", "dataPath", path,
			 "format", "raw-shard", "nbytes",
			 (json_int_t)p->shard_bytes[si], "rlxHash", hex,
			 "records", recs);
}

/* Sets up w's planned state: every shard unwritten, the metadata's
 * figures from the whole plan. */
static bool
plan_setup(RtCacheWriter *w, const RtCachePlan *p, int me, RtError *e)
{
	w->plan = p;
	w->me = me;
	size_t n = (size_t)p->nshards + 1;
	w->sfd = malloc(n * sizeof *w->sfd);
	w->left = calloc(n, sizeof *w->left);
	w->hash = calloc(n, sizeof *w->hash);
	w->plan_ix = json_object();
	if (!w->sfd || !w->left || !w->hash || !w->plan_ix)
		return cerr(e, "%s: out of memory", w->dir);
	for (int i = 0; i < p->nshards; i++) {
		w->sfd[i] = -1;
		w->left[i] = p->shard_nrecs[i];
		if (json_array_append_new(w->shards, json_null()))
			return cerr(e, "%s: out of memory", w->dir);
	}
	w->nshard = p->nshards;
	for (int i = 0; i < p->nrecs; i++) {
		const RtPlanRec *r = &p->recs[i];
		if (json_object_get(w->plan_ix, r->name))
			return cerr(e, "%s: duplicate record name '%s'", w->dir,
				    r->name);
		if (json_object_set_new(w->plan_ix, r->name,
					json_integer(i)))
			return cerr(e, "%s: out of memory", w->dir);
		if (r->is_shape)
			continue;
		size_t isz = itemsize(r->dtype);
		w->nparams++;
		w->param_bytes += r->nbytes;
		w->param_count += isz ? (double)(r->nbytes / isz) : 0;
	}
	return true;
}

/* A writer for plan p, on directory tmp when joining, else its own. */
static RtCacheWriter *
begin_planned(const char *dir, const char *tmp, const RtCachePlan *p,
	      int me, RtError *e)
{
	RtCacheOptions co = {.shard_bytes = (size_t)p->cap};
	RtCacheWriter *w;
	if (!tmp) {
		if (!(w = rt_cache_begin(dir, &co, e)))
			return NULL;
	} else {
		w = calloc(1, sizeof *w);
		if (!w) {
			cerr(e, "%s: out of memory", dir);
			return NULL;
		}
		pthread_mutex_init(&w->mu, NULL);
		w->out = (RtTmpDir){.fd = -1, .slot = -1};
		w->fd = -1;
		w->cap = p->cap;
		w->joined = true;
		w->dir = rt_path_strip(dir);
		w->out.tmp = strdup(tmp);
		w->shards = json_array();
		w->names = json_object();
		w->xs = XXH3_createState();
		if (!w->dir || !w->out.tmp || !w->shards || !w->names ||
		    !w->xs) {
			cerr(e, "%s: out of memory", dir);
			rt_cache_abort(w);
			return NULL;
		}
	}
	if (!plan_setup(w, p, me, e)) {
		rt_cache_abort(w);
		return NULL;
	}
	return w;
}

RtCacheWriter *
rt_cache_begin_planned(const char *dir, const RtCachePlan *plan, RtError *e)
{
	return begin_planned(dir, NULL, plan, 0, e);
}

RtCacheWriter *
rt_cache_join(const char *dir, const char *tmp, const RtCachePlan *plan,
	      int me, RtError *e)
{
	if (!tmp || !*tmp) {
		cerr(e, "%s: no temporary directory to join", dir);
		return NULL;
	}
	return begin_planned(dir, tmp, plan, me, e);
}

/* The last record of a shard of small records is in: the file gets its
 * planned size (the padding up to the last offset of an empty record), is
 * hashed as written and closed. */
static bool
shard_complete(RtCacheWriter *w, int si, const char *path, RtError *e)
{
	const RtCachePlan *p = w->plan;
	int fd = w->sfd[si];
	w->sfd[si] = -1;
	bool ok = true;
	if (ftruncate(fd, (off_t)p->shard_bytes[si]))
		ok = cerr(e, "%s: write failed: %s", path, strerror(errno));
	char *buf = ok ? malloc(CHUNK_BYTES) : NULL;
	if (ok && (!buf || XXH3_64bits_reset(w->xs) != XXH_OK))
		ok = cerr(e, "%s: out of memory", path);
	for (uint64_t off = 0; ok && off < p->shard_bytes[si];) {
		uint64_t k = p->shard_bytes[si] - off;
		ssize_t r = pread(fd, buf, k < CHUNK_BYTES ? (size_t)k
							   : CHUNK_BYTES,
				  (off_t)off);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			ok = cerr(e, "%s: cannot read back: %s", path,
				  r ? strerror(errno) : "short file");
			break;
		}
		XXH3_64bits_update(w->xs, buf, (size_t)r);
		off += (uint64_t)r;
	}
	free(buf);
	if (close(fd) && ok)
		ok = cerr(e, "%s: write failed: %s", path, strerror(errno));
	if (!ok)
		return wfail(w);
	w->hash[si] = XXH3_64bits_digest(w->xs);
	json_t *js = plan_shard(p, si, w->hash[si]);
	if (!js || json_array_set_new(w->shards, (size_t)si, js)) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	return true;
}

/* Places a record of a planned cache (w->mu held): at its planned offset
 * when it shares a shard (the shard finished with its last record), else
 * a ticket for rt_cache_write_alone. */
static bool
place_planned(RtCacheWriter *w, const char *name, DType dt, int ndim,
	      const int64_t *shape, bool is_shape, const void *data,
	      uint64_t nbytes, RtCacheTicket *tk, RtError *e)
{
	const RtCachePlan *p = w->plan;
	json_t *ix = json_object_get(w->plan_ix, name);
	if (!ix)
		return cerr(e, "%s: '%s' is not a record of the planned cache",
			    w->dir, name);
	const RtPlanRec *r = &p->recs[json_integer_value(ix)];
	bool same = r->dtype == dt && r->ndim == ndim &&
		    r->is_shape == is_shape && r->nbytes == nbytes;
	for (int i = 0; same && i < ndim; i++)
		same = r->shape[i] == shape[i];
	if (!same) {
		char got[160], want[160];
		desc(got, sizeof got, dt, ndim, shape, is_shape);
		desc(want, sizeof want, r->dtype, r->ndim, r->shape,
		     r->is_shape);
		cerr(e, "%s: '%s' is %s, but its annotation planned %s", w->dir,
		     name, got, want);
		return wfail(w);
	}
	int si = r->shard;
	if (p->owner[si] != w->me)
		return cerr(e, "%s: '%s' belongs to shard %d, which process %d "
			    "writes, not %d", w->dir, name, si, p->owner[si],
			    w->me);
	if (json_object_set_new(w->names, name, json_true())) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	if (p->shard_alone[si]) {
		tk->shard = si;
		tk->rec = plan_record(p, (int)json_integer_value(ix));
		if (!tk->rec) {
			tk->shard = -1;
			cerr(e, "%s: out of memory", w->dir);
			return wfail(w);
		}
		w->pending++;
		return true;
	}
	char *path = xprintf("%s/params_shard_%d.bin", w->out.tmp, si);
	if (!path) {
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	if (w->sfd[si] < 0) {
		w->sfd[si] = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				  O_CLOEXEC, 0666);
		if (w->sfd[si] < 0) {
			cerr(e, "%s: cannot create: %s", path, strerror(errno));
			free(path);
			return wfail(w);
		}
	}
	preallocate(w->sfd[si], r->offset, nbytes);
	bool ok = true;
	for (uint64_t off = 0; ok && off < nbytes;) {
		ssize_t k = pwrite(w->sfd[si], (const char *)data + off,
				   nbytes - off, (off_t)(r->offset + off));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			ok = cerr(e, "%s: write failed: %s", path,
				  k ? strerror(errno) : "no progress");
		else
			off += (uint64_t)k;
	}
	if (ok && --w->left[si] == 0)
		ok = shard_complete(w, si, path, e);
	free(path);
	return ok || wfail(w);
}

bool
rt_cache_hashes(RtCacheWriter *w, uint64_t *hashes, RtError *e)
{
	const RtCachePlan *p = w->plan;
	pthread_mutex_lock(&w->mu);
	bool ok = !w->failed && !w->pending;
	for (int i = 0; ok && i < p->nshards; i++) {
		hashes[i] = 0;
		if (p->owner[i] != w->me)
			continue;
		if (json_is_null(json_array_get(w->shards, (size_t)i)))
			ok = cerr(e, "%s: shard %d is not complete", w->dir, i);
		else
			hashes[i] = w->hash[i];
	}
	if (w->failed || w->pending)
		cerr(e, "%s: the cache failed earlier and cannot be completed",
		     w->dir);
	pthread_mutex_unlock(&w->mu);
	return ok;
}

bool
rt_cache_set_hashes(RtCacheWriter *w, const uint64_t *hashes, RtError *e)
{
	const RtCachePlan *p = w->plan;
	for (int i = 0; i < p->nshards; i++) {
		if (p->owner[i] == w->me)
			continue;
		json_t *js = plan_shard(p, i, hashes[i]);
		if (!js || json_array_set_new(w->shards, (size_t)i, js))
			return cerr(e, "%s: out of memory", w->dir);
	}
	return true;
}

/* Places a tensor (see rt.h). */
bool
rt_cache_place(RtCacheWriter *w, const char *name, const RtTensor *t,
	       RtCacheTicket *tk, RtError *e)
{
	tk->shard = -1;
	tk->rec = NULL;
	pthread_mutex_lock(&w->mu);
	bool ok = place_tensor(w, name, t, tk, e);
	pthread_mutex_unlock(&w->mu);
	return ok;
}

/* Writes the shard file of a tensor placed alone, hashing each chunk just
 * before it is written (so the kernel copies it from the cache); its hash
 * into *hash. */
static bool
write_alone(const char *path, const char *p, uint64_t n, uint64_t *hash,
	    RtError *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return cerr(e, "%s: cannot create: %s", path, strerror(errno));
	XXH3_state_t *xs = XXH3_createState();
	bool ok = xs && XXH3_64bits_reset(xs) == XXH_OK;
	if (!ok)
		cerr(e, "%s: hashing failed", path);
	preallocate(fd, 0, n);
	while (ok && n) {
		size_t k = n < CHUNK_BYTES ? (size_t)n : CHUNK_BYTES;
		ok = XXH3_64bits_update(xs, p, k) == XXH_OK;
		if (!ok)
			cerr(e, "%s: hashing failed", path);
		ok = ok && rt_write_all(fd, path, p, k, e);
		p += k;
		n -= k;
	}
	if (ok)
		*hash = XXH3_64bits_digest(xs);
	XXH3_freeState(xs);
	if (close(fd) && ok)
		return cerr(e, "%s: write failed: %s", path, strerror(errno));
	return ok;
}

/* Writes a tensor placed in a shard of its own (see rt.h). */
bool
rt_cache_write_alone(RtCacheWriter *w, RtCacheTicket *tk, const RtTensor *t,
		     RtError *e)
{
	if (tk->shard < 0)
		return true;
	char *path = xprintf("%s/params_shard_%d.bin", w->out.tmp, tk->shard);
	uint64_t hash = 0;
	bool ok = path ? write_alone(path, t->data, t->nbytes, &hash, e)
		       : cerr(e, "%s: out of memory", w->dir);
	json_t *s = NULL;
	if (ok) {
		char hex[17];
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
		s = json_pack("{s:s, s:s, s:I, s:s, s:[O]}", "dataPath",
			      strrchr(path, '/') + 1, "format", "raw-shard",
			      "nbytes", (json_int_t)t->nbytes, "rlxHash", hex,
			      "records", tk->rec);
		if (!s)
			ok = cerr(e, "%s: out of memory", w->dir);
	}
	pthread_mutex_lock(&w->mu);
	if (ok && json_array_set_new(w->shards, (size_t)tk->shard, s))
		ok = cerr(e, "%s: out of memory", w->dir);
	if (ok && w->hash)
		w->hash[tk->shard] = hash;
	if (!ok)
		w->failed = true;
	w->pending--;
	pthread_mutex_unlock(&w->mu);
	json_decref(tk->rec);
	tk->rec = NULL;
	tk->shard = -1;
	free(path);
	return ok;
}

/* Appends a tensor to the cache (see rt.h). */
bool
rt_cache_add(RtCacheWriter *w, const char *name, const RtTensor *t,
	     RtError *e)
{
	RtCacheTicket tk;
	return rt_cache_place(w, name, t, &tk, e) &&
	       rt_cache_write_alone(w, &tk, t, e);
}

static bool add_shape(RtCacheWriter *w, const char *name,
		      const int64_t *values, int n, RtError *e);

/* Appends a shape tuple as an int64 record marked "rlxKind": "shape". */
bool
rt_cache_add_shape(RtCacheWriter *w, const char *name, const int64_t *values,
		   int n, RtError *e)
{
	pthread_mutex_lock(&w->mu);
	bool ok = add_shape(w, name, values, n, e);
	pthread_mutex_unlock(&w->mu);
	return ok;
}

/* rt_cache_add_shape with w->mu held. */
static bool
add_shape(RtCacheWriter *w, const char *name, const int64_t *values, int n,
	  RtError *e)
{
	if (!check_name(w, name, e))
		return false;
	if (n < 0 || (n && !values))
		return cerr(e, "%s: shape '%s': bad length %d", w->dir, name, n);
	unsigned char *buf = malloc(n ? (size_t)n * 8 : 1);
	int64_t len = n;
	json_t *rec = new_record(name, DT_I64, 1, &len);
	if (!buf || !rec ||
	    json_object_set_new(rec, "rlxKind", json_string("shape"))) {
		free(buf);
		json_decref(rec);
		cerr(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	/* little-endian int64, whatever the host */
	for (int i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			buf[i * 8 + b] = (unsigned char)((uint64_t)values[i] >>
							 (8 * b));
	bool ok;
	if (w->plan) {
		json_decref(rec);
		RtCacheTicket tk = {-1, NULL};
		ok = place_planned(w, name, DT_I64, 1, &len, true, buf,
				   (uint64_t)n * 8, &tk, e);
		/* a shape large enough for a shard of its own: written here */
		if (ok && tk.shard >= 0) {
			RtTensor t = {.dtype = DT_I64, .ndim = 1, .shape = {len},
				      .data = buf, .nbytes = (size_t)n * 8};
			pthread_mutex_unlock(&w->mu);
			ok = rt_cache_write_alone(w, &tk, &t, e);
			pthread_mutex_lock(&w->mu);
		}
	} else {
		ok = place(w, name, rec, buf, (uint64_t)n * 8, e);
	}
	free(buf);
	return ok;
}

/* Builds the "metadata" object: the tvmjs/mlc figures, rlx's version and
 * the caller's extra fields. */
static json_t *
build_metadata(RtCacheWriter *w, const char *extra, RtError *e)
{
	double bits = w->param_count > 0
			      ? (double)w->param_bytes * 8 / w->param_count
			      : 0;
	json_t *m = json_pack("{s:I, s:I, s:f, s:s}", "ParamSize",
			      (json_int_t)w->nparams, "ParamBytes",
			      (json_int_t)w->param_bytes, "BitsPerParam", bits,
			      "rlxVersion", rlx_version());
	if (!m) {
		cerr(e, "%s: out of memory", w->dir);
		return NULL;
	}
	if (!extra)
		return m;
	json_error_t je;
	json_t *x = json_loads(extra, JSON_REJECT_DUPLICATES, &je);
	if (!x) {
		cerr(e, "%s: extra metadata is not valid JSON: %s", w->dir,
		     je.text);
		goto fail;
	}
	if (!json_is_object(x)) {
		cerr(e, "%s: extra metadata must be a JSON object", w->dir);
		goto fail;
	}
	for (size_t i = 0; i < sizeof own_meta_keys / sizeof *own_meta_keys;
	     i++)
		if (json_object_get(x, own_meta_keys[i])) {
			cerr(e, "%s: extra metadata may not set \"%s\"", w->dir,
			     own_meta_keys[i]);
			goto fail;
		}
	if (json_object_update(m, x)) {
		cerr(e, "%s: out of memory", w->dir);
		goto fail;
	}
	json_decref(x);
	return m;
fail:
	json_decref(x);
	json_decref(m);
	return NULL;
}

/* Writes the whole of text to path (a new file). */
static bool
write_text(const char *path, const char *text, RtError *e)
{
	FILE *f = fopen(path, "wbx");
	if (!f)
		return cerr(e, "%s: cannot create: %s", path, strerror(errno));
	size_t n = strlen(text);
	bool ok = fwrite(text, 1, n, f) == n && fputc('\n', f) != EOF;
	int err = errno;
	if (fclose(f))
		ok = false, err = errno;
	if (!ok)
		return cerr(e, "%s: write failed: %s", path, strerror(err));
	return true;
}

/* Moves the finished temporary directory to DIR, replacing an existing
 * cache (swapped atomically where the file system can; rt_dir_commit).
 * DIR is checked again: it may have changed while the cache was written. */
static bool
install(RtCacheWriter *w, RtError *e)
{
	bool exists;
	if (!check_replaceable(w->dir, &exists, e))
		return false;
	return rt_dir_commit(&w->out, true, e);
}

/* Writes tensor-cache.json and renames the cache into place (see rt.h). */
bool
rt_cache_finish(RtCacheWriter *w, const char *metadata_json_extra, RtError *e)
{
	bool ok = false;
	json_t *top = NULL;
	char *text = NULL, *path = NULL;
	if (w->failed) {
		cerr(e, "%s: the cache failed earlier and cannot be completed",
		     w->dir);
		goto out;
	}
	if (w->pending) {
		cerr(e, "%s: %d tensors were placed but not written", w->dir,
		     w->pending);
		goto out;
	}
	if (w->joined) {
		cerr(e, "%s: only the process that began the cache finishes it",
		     w->dir);
		goto out;
	}
	if (!shard_close(w, e))
		goto out;
	for (size_t i = 0; i < json_array_size(w->shards); i++)
		if (json_is_null(json_array_get(w->shards, i))) {
			cerr(e, "%s: shard %zu was not written", w->dir, i);
			goto out;
		}
	json_t *meta = build_metadata(w, metadata_json_extra, e);
	if (!meta)
		goto out;
	top = json_pack("{s:o, s:O}", "metadata", meta, "records", w->shards);
	text = top ? json_dumps(top, JSON_INDENT(2) | JSON_PRESERVE_ORDER)
		   : NULL;
	path = xprintf("%s/%s", w->out.tmp, CACHE_JSON);
	if (!text || !path) {
		cerr(e, "%s: out of memory", w->dir);
		goto out;
	}
	if (!write_text(path, text, e) || !install(w, e))
		goto out;
	ok = true;
out:
	free(path);
	free(text);
	json_decref(top);
	rt_cache_abort(w);
	return ok;
}

/* Removes the temporary directory and frees the writer. */
void
rt_cache_abort(RtCacheWriter *w)
{
	if (!w)
		return;
	shard_drop(w);
	if (w->plan && w->sfd)
		for (int i = 0; i < w->plan->nshards; i++)
			if (w->sfd[i] >= 0)
				close(w->sfd[i]);
	free(w->sfd);
	free(w->left);
	free(w->hash);
	json_decref(w->plan_ix);
	if (w->joined)
		free(w->out.tmp);
	else if (w->out.tmp)
		rt_dir_abort(&w->out);
	free(w->dir);
	json_decref(w->shards);
	json_decref(w->names);
	XXH3_freeState(w->xs);
	free(w->stage);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* ------------------------------------------------------------------ reader */

typedef struct {
	char *data_path;   /* as in the JSON */
	char *path;        /* DIR/dataPath */
	uint64_t nbytes;
	bool has_hash;
	uint64_t hash;
	bool checked;      /* mapped (when not empty) and hash verified */
	void *map;
	RtMap mapping;     /* map, guarded against the file shrinking */
	struct stat st;    /* the file when mapped (for its stamp) */
	bool st_ok;
} CShard;

typedef struct {
	char *name;
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	uint64_t offset, nbytes;
	int shard;
	bool is_shape;
} CRec;

/* A name and its record, sorted by name for lookup. */
typedef struct {
	const char *name;
	int rec;
} CName;

struct RtCache {
	char *dir;
	char *json_path;
	CShard *shards;
	int nshards;
	CRec *recs;
	int nrecs;
	CName *by_name;
	char *metadata;
};

/* The JSON type of v as a word for messages. */
static const char *
jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Validation context: the JSON file and the object being looked at. */
typedef struct {
	const char *json;
	char where[512];
	RtError *e;
} VCtx;

/* An error about the current object; returns false. */
static bool __attribute__((format(printf, 2, 3)))
verr(VCtx *v, const char *fmt, ...)
{
	char msg[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return cerr(v->e, "%s: %s%s%s", v->json, v->where,
		    v->where[0] ? ": " : "", msg);
}

/* A required member of type want ("an array", ...) checked by pred. */
static json_t *
member(VCtx *v, json_t *obj, const char *key, int (*pred)(const json_t *),
       const char *want)
{
	json_t *x = json_object_get(obj, key);
	if (!x) {
		verr(v, "missing \"%s\"", key);
		return NULL;
	}
	if (!pred(x)) {
		verr(v, "\"%s\" must be %s, not %s", key, want, jtype(x));
		return NULL;
	}
	return x;
}

/* Predicates for member() (jansson's are macros). */
static int
is_object(const json_t *x)
{
	return json_is_object(x);
}

static int
is_array(const json_t *x)
{
	return json_is_array(x);
}

static int
is_string(const json_t *x)
{
	return json_is_string(x);
}

static int
is_integer(const json_t *x)
{
	return json_is_integer(x);
}

/* A required non-negative integer member. */
static bool
member_size(VCtx *v, json_t *obj, const char *key, uint64_t *out)
{
	json_t *x = member(v, obj, key, is_integer, "an integer");
	if (!x)
		return false;
	if (json_integer_value(x) < 0)
		return verr(v, "\"%s\" is negative (%lld)", key,
			    (long long)json_integer_value(x));
	*out = (uint64_t)json_integer_value(x);
	return true;
}

/* A required string member without NUL bytes. */
static const char *
member_str(VCtx *v, json_t *obj, const char *key)
{
	json_t *x = member(v, obj, key, is_string, "a string");
	if (!x)
		return NULL;
	const char *s = json_string_value(x);
	if (strlen(s) != json_string_length(x)) {
		verr(v, "\"%s\" contains a NUL byte", key);
		return NULL;
	}
	return s;
}

/* Whether a dataPath names a plain file directly inside DIR. */
static bool
plain_file_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Parses 16 hex digits. */
static bool
parse_hash(const char *s, uint64_t *out)
{
	uint64_t h = 0;
	int n = 0;
	for (; s[n]; n++) {
		int c = s[n], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		h = h << 4 | (uint64_t)d;
	}
	*out = h;
	return n == 16;
}

/* Reads tensor-cache.json (or tvmjs's older ndarray-cache.json) whole. */
static json_t *
load_json(RtCache *c, RtError *e)
{
	c->json_path = xprintf("%s/%s", c->dir, CACHE_JSON);
	if (!c->json_path) {
		cerr(e, "%s: out of memory", c->dir);
		return NULL;
	}
	RtError oe;
	int fd = rt_open_input(c->json_path, NULL, &oe);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		char *old = xprintf("%s/%s", c->dir, OLD_CACHE_JSON);
		fd = old ? rt_open_input(old, NULL, &oe) : -1;
		if (fd >= 0) {
			free(c->json_path);
			c->json_path = old;
		} else {
			free(old);
			struct stat st;
			if (stat(c->dir, &st))
				cerr(e, "%s: %s", c->dir, strerror(errno));
			else if (!S_ISDIR(st.st_mode))
				cerr(e, "%s: not a directory (a tensor cache "
				     "is a directory)", c->dir);
			else
				cerr(e, "%s: not a tensor cache: no %s in it",
				     c->dir, CACHE_JSON);
			return NULL;
		}
	}
	if (fd < 0) {
		cerr(e, "%s", oe.msg);
		return NULL;
	}
	struct stat st;
	json_t *j = NULL;
	char *buf = NULL;
	if (fstat(fd, &st)) {
		cerr(e, "%s: %s", c->json_path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		cerr(e, "%s: not a regular file", c->json_path);
		goto out;
	}
	if (st.st_size == 0) {
		cerr(e, "%s: the file is empty", c->json_path);
		goto out;
	}
	if (st.st_size > JSON_LIMIT) {
		cerr(e, "%s: %lld bytes is too large for a cache description "
		     "(limit %d)", c->json_path, (long long)st.st_size,
		     JSON_LIMIT);
		goto out;
	}
	size_t n = (size_t)st.st_size, got = 0;
	buf = malloc(n);
	if (!buf) {
		cerr(e, "%s: out of memory", c->json_path);
		goto out;
	}
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cerr(e, "%s: read failed: %s", c->json_path,
			     r ? strerror(errno) : "file shrank");
			goto out;
		}
		got += (size_t)r;
	}
	json_error_t je;
	j = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		cerr(e, "%s:%d:%d: invalid JSON: %s", c->json_path, je.line,
		     je.column, je.text);
out:
	free(buf);
	close(fd);
	return j;
}

/* Validates one record object and fills r. */
static bool
check_record(VCtx *v, RtCache *c, json_t *jr, int si, CRec *r)
{
	const CShard *s = &c->shards[si];
	if (!json_is_object(jr))
		return verr(v, "must be an object, not %s", jtype(jr));
	const char *name = member_str(v, jr, "name");
	if (!name)
		return false;
	if (!*name)
		return verr(v, "\"name\" is empty");
	snprintf(v->where, sizeof v->where, "record '%.200s' of shard %.200s",
		 name, s->data_path);
	r->name = strdup(name);
	r->shard = si;
	if (!r->name)
		return verr(v, "out of memory");
	json_t *shape = member(v, jr, "shape", is_array, "an array");
	const char *dt = member_str(v, jr, "dtype");
	const char *fmt = member_str(v, jr, "format");
	if (!shape || !dt || !fmt || !member_size(v, jr, "nbytes", &r->nbytes) ||
	    !member_size(v, jr, "byteOffset", &r->offset))
		return false;
	if (strcmp(fmt, "raw")) {
		if (!strcmp(fmt, "f32-to-bf16"))
			return verr(v, "unsupported format \"%s\" (a lossy "
				    "tvmjs encoding; rlx reads only \"raw\")",
				    fmt);
		return verr(v, "unsupported format \"%.100s\" (rlx reads only "
			    "\"raw\")", fmt);
	}
	if (!dtype_parse(dt, &r->dtype) || !itemsize(r->dtype))
		return verr(v, "unsupported dtype \"%.100s\"", dt);
	if (json_array_size(shape) > RT_MAX_DIMS)
		return verr(v, "%zu dimensions (rlx handles at most %d)",
			    json_array_size(shape), (int)RT_MAX_DIMS);
	r->ndim = (int)json_array_size(shape);
	for (int i = 0; i < r->ndim; i++) {
		json_t *d = json_array_get(shape, (size_t)i);
		if (!json_is_integer(d))
			return verr(v, "\"shape\"[%d] must be an integer, not "
				    "%s", i, jtype(d));
		if (json_integer_value(d) < 0)
			return verr(v, "\"shape\"[%d] is negative", i);
		r->shape[i] = json_integer_value(d);
	}
	uint64_t want;
	if (!shape_bytes(r->dtype, r->ndim, r->shape, &want))
		return verr(v, "the shape's size overflows");
	if (want != r->nbytes)
		return verr(v, "nbytes %llu does not match its shape and dtype "
			    "%s (%llu bytes)", (unsigned long long)r->nbytes,
			    dt, (unsigned long long)want);
	if (r->offset > s->nbytes || r->nbytes > s->nbytes - r->offset)
		return verr(v, "byteOffset %llu + nbytes %llu exceeds the "
			    "shard's %llu bytes",
			    (unsigned long long)r->offset,
			    (unsigned long long)r->nbytes,
			    (unsigned long long)s->nbytes);
	json_t *kind = json_object_get(jr, "rlxKind");
	if (kind) {
		if (!json_is_string(kind) ||
		    strcmp(json_string_value(kind), "shape"))
			return verr(v, "unknown \"rlxKind\" (only \"shape\")");
		if (r->dtype != DT_I64 || r->ndim != 1)
			return verr(v, "a shape record must be a 1-d int64 "
				    "array");
		r->is_shape = true;
	}
	return true;
}

/* Validates one shard object (but not yet its records) and fills s. */
static bool
check_shard(VCtx *v, RtCache *c, json_t *js, CShard *s)
{
	if (!json_is_object(js))
		return verr(v, "must be an object, not %s", jtype(js));
	const char *dp = member_str(v, js, "dataPath");
	if (!dp)
		return false;
	if (!plain_file_name(dp))
		return verr(v, "dataPath '%.200s' is not a plain file name "
			    "inside %s", dp, c->dir);
	snprintf(v->where, sizeof v->where, "shard %.200s", dp);
	s->data_path = strdup(dp);
	s->path = xprintf("%s/%s", c->dir, dp);
	if (!s->data_path || !s->path)
		return verr(v, "out of memory");
	const char *fmt = member_str(v, js, "format");
	if (!fmt || !member_size(v, js, "nbytes", &s->nbytes) ||
	    !member(v, js, "records", is_array, "an array"))
		return false;
	if (strcmp(fmt, "raw-shard"))
		return verr(v, "unsupported shard format \"%.100s\" (rlx reads "
			    "\"raw-shard\")", fmt);
	json_t *h = json_object_get(js, "rlxHash");
	if (h) {
		if (!json_is_string(h) ||
		    !parse_hash(json_string_value(h), &s->hash))
			return verr(v, "\"rlxHash\" must be 16 hex digits");
		s->has_hash = true;
	}
	for (int i = 0; i < c->nshards; i++)
		if (&c->shards[i] != s && c->shards[i].data_path &&
		    !strcmp(c->shards[i].data_path, dp))
			return verr(v, "a second shard with the same dataPath");
	struct stat st;
	if (stat(s->path, &st))
		return cerr(v->e, "%s: %s (named by %s)", s->path,
			    strerror(errno), v->json);
	if (!S_ISREG(st.st_mode))
		return cerr(v->e, "%s: not a regular file (named by %s)",
			    s->path, v->json);
	if ((uint64_t)st.st_size != s->nbytes)
		return cerr(v->e, "%s: the file is %lld bytes, but %s says "
			    "nbytes %llu", s->path, (long long)st.st_size,
			    v->json, (unsigned long long)s->nbytes);
	return true;
}

/* A record's byte range, for the overlap check. */
typedef struct {
	uint64_t off, end;
	int rec;
} Span64;

/* qsort: spans by start offset. */
static int
cmp_span(const void *a, const void *b)
{
	const Span64 *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* qsort/bsearch: names in strcmp order. */
static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const CName *)a)->name, ((const CName *)b)->name);
}

/* Checks that no two non-empty records of shard si overlap. */
static bool
check_overlaps(VCtx *v, RtCache *c, int si)
{
	Span64 *sp = malloc(sizeof *sp * (size_t)(c->nrecs ? c->nrecs : 1));
	if (!sp)
		return verr(v, "out of memory");
	int n = 0;
	for (int i = 0; i < c->nrecs; i++)
		if (c->recs[i].shard == si && c->recs[i].nbytes)
			sp[n++] = (Span64){c->recs[i].offset,
					   c->recs[i].offset + c->recs[i].nbytes,
					   i};
	qsort(sp, (size_t)n, sizeof *sp, cmp_span);
	for (int i = 1; i < n; i++)
		if (sp[i].off < sp[i - 1].end) {
			const CRec *a = &c->recs[sp[i - 1].rec],
				   *b = &c->recs[sp[i].rec];
			v->where[0] = 0;
			verr(v, "records '%.200s' (bytes %llu..%llu) and "
			     "'%.200s' (from byte %llu) of shard %.200s overlap",
			     a->name, (unsigned long long)a->offset,
			     (unsigned long long)(a->offset + a->nbytes),
			     b->name, (unsigned long long)b->offset,
			     c->shards[si].data_path);
			free(sp);
			return false;
		}
	free(sp);
	return true;
}

/* Validates the whole description and fills c. */
static bool
check_cache(RtCache *c, json_t *top, RtError *e)
{
	VCtx v = {.json = c->json_path, .e = e};
	if (!json_is_object(top))
		return verr(&v, "the top level must be an object, not %s",
			    jtype(top));
	json_t *meta = member(&v, top, "metadata", is_object, "an object");
	json_t *shards = member(&v, top, "records", is_array, "an array");
	if (!meta || !shards)
		return false;
	c->metadata = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t ns = json_array_size(shards), nr = 0;
	c->shards = calloc(ns ? ns : 1, sizeof *c->shards);
	if (!c->metadata || !c->shards || ns > INT32_MAX)
		return verr(&v, "out of memory");
	c->nshards = (int)ns;
	for (size_t i = 0; i < ns; i++) {
		snprintf(v.where, sizeof v.where, "shard #%zu", i);
		if (!check_shard(&v, c, json_array_get(shards, i),
				 &c->shards[i]))
			return false;
		nr += json_array_size(
			json_object_get(json_array_get(shards, i), "records"));
	}
	c->recs = calloc(nr ? nr : 1, sizeof *c->recs);
	if (!c->recs || nr > INT32_MAX)
		return verr(&v, "out of memory");
	for (size_t i = 0; i < ns; i++) {
		json_t *recs = json_object_get(json_array_get(shards, i),
					       "records");
		for (size_t k = 0; k < json_array_size(recs); k++) {
			snprintf(v.where, sizeof v.where,
				 "record #%zu of shard %.200s", k,
				 c->shards[i].data_path);
			if (!check_record(&v, c, json_array_get(recs, k),
					  (int)i, &c->recs[c->nrecs++]))
				return false;
		}
	}
	for (int i = 0; i < c->nshards; i++)
		if (!check_overlaps(&v, c, i))
			return false;
	c->by_name = malloc(sizeof *c->by_name * (nr ? nr : 1));
	if (!c->by_name)
		return verr(&v, "out of memory");
	for (int i = 0; i < c->nrecs; i++)
		c->by_name[i] = (CName){c->recs[i].name, i};
	qsort(c->by_name, nr, sizeof *c->by_name, cmp_name);
	for (int i = 1; i < c->nrecs; i++)
		if (!strcmp(c->by_name[i].name, c->by_name[i - 1].name)) {
			const CRec *a = &c->recs[c->by_name[i - 1].rec],
				   *b = &c->recs[c->by_name[i].rec];
			v.where[0] = 0;
			if (a->shard == b->shard)
				return verr(&v, "duplicate record name '%.200s' "
					    "(twice in shard %.200s)", a->name,
					    c->shards[a->shard].data_path);
			return verr(&v, "duplicate record name '%.200s' (in "
				    "shards %.200s and %.200s)", a->name,
				    c->shards[a->shard].data_path,
				    c->shards[b->shard].data_path);
		}
	return true;
}

/* Opens and validates a tensor cache (see rt.h). */
RtCache *
rt_cache_open(const char *dir, RtError *e)
{
	if (!dir || !*dir) {
		cerr(e, "tensor cache: empty directory name");
		return NULL;
	}
	RtCache *c = calloc(1, sizeof *c);
	if (!c || !(c->dir = rt_path_strip(dir))) {
		free(c);
		cerr(e, "%s: out of memory", dir);
		return NULL;
	}
	json_t *top = load_json(c, e);
	bool ok = top && check_cache(c, top, e);
	json_decref(top);
	if (!ok) {
		rt_cache_close(c);
		return NULL;
	}
	return c;
}

/* Number of records (tensors and shapes). */
int
rt_cache_count(const RtCache *c)
{
	return c->nrecs;
}

/* Name of record i (NULL out of range). */
const char *
rt_cache_name(const RtCache *c, int i)
{
	return i >= 0 && i < c->nrecs ? c->recs[i].name : NULL;
}

/* Whether record i is a shape tuple. */
bool
rt_cache_is_shape(const RtCache *c, int i)
{
	return i >= 0 && i < c->nrecs && c->recs[i].is_shape;
}

/* Index of the record named name, or -1. */
int
rt_cache_find(const RtCache *c, const char *name)
{
	CName key = {name, -1};
	const CName *p = bsearch(&key, c->by_name, (size_t)c->nrecs,
				 sizeof *c->by_name, cmp_name);
	return p ? p->rec : -1;
}

/* The record's dtype and shape (a shape record: int64, [n]). */
void
rt_cache_info(const RtCache *c, int i, DType *dt, int *ndim, int64_t *shape)
{
	const CRec *r = &c->recs[i];
	if (dt)
		*dt = r->dtype;
	if (ndim)
		*ndim = r->ndim;
	if (shape)
		memcpy(shape, r->shape, sizeof(int64_t) * (size_t)r->ndim);
}

/* The metadata object as compact JSON. */
const char *
rt_cache_metadata(const RtCache *c)
{
	return c->metadata;
}

/*
 * Verified-shard stamps: a cheaper proof that a shard still has the hash
 * checked before. After a shard's content hash matched its rlxHash, a
 * stamp RLX_CACHE_HOME/verified/DEV-INO records the file's identity and
 * times (device, inode, size, mtime and ctime in ns) and the hash. A later
 * open whose fstat gives the same values and whose rlxHash is the same
 * skips the hash: a write to the file changes its ctime, which no user
 * call can set back. The stamp is only written when the hash was checked
 * at least STAMP_AGE seconds after the file's last change, so a change
 * within the file system's timestamp granularity (a few ms) cannot keep
 * an old ctime. Stamps are small files written atomically; any failure
 * to read or write one only costs the hash. RLX_NO_CACHE turns them off.
 */
enum { STAMP_AGE = 2 };

/* The stamp file of st (malloc'd), NULL when stamps are off. */
static char *
stamp_path(const struct stat *st)
{
	char *home = rt_cache_home();
	if (!home)
		return NULL;
	size_t n = strlen(home) + 64;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/verified/%llx-%llx", home,
			 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
	free(home);
	return p;
}

/* The stamp's text for st and hash h. */
static void
stamp_text(char *buf, size_t n, const struct stat *st, uint64_t h)
{
	snprintf(buf, n, "rlx verified 1 %llx %llx %lld %lld.%09ld %lld.%09ld %016llx\n",
		 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
		 (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
		 st->st_ctim.tv_nsec, (unsigned long long)h);
}

/* Does a stamp prove that the file of st still hashes to h? */
static bool
stamp_holds(const struct stat *st, uint64_t h)
{
	char *path = stamp_path(st);
	if (!path)
		return false;
	char want[160], got[161];
	stamp_text(want, sizeof want, st, h);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, got, sizeof got - 1);
	close(fd);
	return r == (ssize_t)strlen(want) && !memcmp(got, want, (size_t)r);
}

/* Records that the file of st hashed to h (when it was old enough). */
static void
stamp_write(const struct stat *st, uint64_t h)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (now.tv_sec - st->st_ctim.tv_sec < STAMP_AGE ||
	    now.tv_sec - st->st_mtim.tv_sec < STAMP_AGE)
		return;
	char *path = stamp_path(st);
	if (!path)
		return;
	char text[160];
	stamp_text(text, sizeof text, st, h);
	rt_make_parents(path);
	RtError e;
	rt_file_put(path, text, strlen(text), &e);
	free(path);
}

/* Maps shard si read-only and checks its hash (or a stamp), once. */
static bool
shard_ready(RtCache *c, int si, RtError *e)
{
	CShard *s = &c->shards[si];
	if (s->checked)
		return true;
	static const unsigned char none[1];
	const void *bytes = none;
	if (s->nbytes) {
		uint64_t size;
		int fd = rt_open_input(s->path, &size, e);
		if (fd < 0)
			return false;
		if (size != s->nbytes) {
			close(fd);
			return cerr(e, "%s: the file changed size since %s "
				    "was read", s->path, c->json_path);
		}
		struct stat st;
		bool st_ok = !fstat(fd, &st);
		bool mapped = rt_map_open(&s->mapping, fd, s->nbytes, s->path,
					  e);
		close(fd);
		if (!mapped)
			return false;
		s->map = s->mapping.p;
		bytes = s->map;
		if (st_ok && s->has_hash && stamp_holds(&st, s->hash)) {
			s->checked = true;
			return true;
		}
		s->st = st;
		s->st_ok = st_ok;
	}
	if (s->has_hash) {
		uint64_t h = XXH3_64bits(bytes, s->nbytes);
		if (h != s->hash) {
			if (s->map)
				rt_map_close(&s->mapping);
			s->map = NULL;
			return cerr(e, "%s: content hash %016llx does not match "
				    "the rlxHash %016llx in %s: the shard is "
				    "corrupt or was changed", s->path,
				    (unsigned long long)h,
				    (unsigned long long)s->hash, c->json_path);
		}
	}
	if (s->has_hash && s->nbytes && s->st_ok)
		stamp_write(&s->st, s->hash);
	/* hashing touched every page: drop them, so that what stays resident
	 * is the records used (a worker of a tensor-parallel cache shares
	 * shards with the others' records) */
	if (s->has_hash && s->map && s->nbytes)
		madvise(s->map, s->nbytes, MADV_DONTNEED);
	s->checked = true;
	return true;
}

/* Loads record i: borrowed from the mapping when 64-byte aligned (and,
 * for bool, all bytes 0 or 1), otherwise copied to an aligned buffer (bool
 * bytes other than 0 mapped to 1, as the other readers do). */
RtTensor *
rt_cache_load(RtCache *c, int i, RtError *e)
{
	if (i < 0 || i >= c->nrecs) {
		cerr(e, "%s: no record #%d", c->dir, i);
		return NULL;
	}
	const CRec *r = &c->recs[i];
	if (!shard_ready(c, r->shard, e))
		return NULL;
	RtTensor *t = calloc(1, sizeof *t);
	if (!t) {
		cerr(e, "%s: out of memory", r->name);
		return NULL;
	}
	t->dtype = r->dtype;
	t->ndim = r->ndim;
	memcpy(t->shape, r->shape, sizeof r->shape);
	t->nbytes = r->nbytes;
	const unsigned char *map = c->shards[r->shard].map;
	const unsigned char *src = map ? map + r->offset : NULL;
	bool clean = true;
	if (r->dtype == DT_BOOL)
		for (uint64_t k = 0; k < r->nbytes && clean; k++)
			clean = src[k] <= 1;
	if (r->nbytes && clean && r->offset % RT_ALIGN == 0) {
		t->data = (void *)src;
		t->own = RT_BORROWED;
		return t;
	}
	t->data = aligned_alloc(RT_ALIGN, align_up(r->nbytes ? r->nbytes : 1));
	if (!t->data) {
		free(t);
		cerr(e, "%s: out of memory (%llu bytes)", r->name,
		     (unsigned long long)r->nbytes);
		return NULL;
	}
	t->own = RT_OWNED;
	if (r->nbytes)
		memcpy(t->data, src, r->nbytes);
	else
		memset(t->data, 0, RT_ALIGN);
	if (!clean) {
		unsigned char *q = t->data;
		for (uint64_t k = 0; k < r->nbytes; k++)
			q[k] = q[k] != 0;
	}
	return t;
}

/* Reads a shape record's values (see rt.h). */
bool
rt_cache_load_shape(RtCache *c, int i, int64_t *out, int *n, RtError *e)
{
	if (i < 0 || i >= c->nrecs)
		return cerr(e, "%s: no record #%d", c->dir, i);
	const CRec *r = &c->recs[i];
	if (!r->is_shape)
		return cerr(e, "%s: record '%s' is a tensor, not a shape",
			    c->json_path, r->name);
	int cap = *n;
	if (r->shape[0] > INT32_MAX)
		return cerr(e, "%s: shape '%s' is too long", c->json_path,
			    r->name);
	*n = (int)r->shape[0];
	if (*n > cap)
		return cerr(e, "%s: shape '%s' has %d values, room for %d",
			    c->json_path, r->name, *n, cap);
	if (!shard_ready(c, r->shard, e))
		return false;
	if (*n == 0)
		return true; /* an empty shard has no mapping to point into */
	const unsigned char *p =
		(const unsigned char *)c->shards[r->shard].map + r->offset;
	for (int k = 0; k < *n; k++) {
		uint64_t u = 0;
		for (int b = 7; b >= 0; b--)
			u = u << 8 | p[k * 8 + b];
		out[k] = (int64_t)u;
	}
	return true;
}

/* Checks every shard's hash now. */
bool
rt_cache_verify(RtCache *c, RtError *e)
{
	for (int i = 0; i < c->nshards; i++)
		if (!shard_ready(c, i, e))
			return false;
	return true;
}

/* Whether every shard mapped so far still holds what was mapped. */
bool
rt_cache_check(const RtCache *c, RtError *e)
{
	for (int i = 0; i < c->nshards; i++)
		if (c->shards[i].map &&
		    !rt_map_check(&c->shards[i].mapping, c->shards[i].path, e))
			return false;
	return true;
}

/* Unmaps the shards and frees the cache. */
void
rt_cache_close(RtCache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nshards; i++) {
		if (c->shards[i].map)
			rt_map_close(&c->shards[i].mapping);
		free(c->shards[i].data_path);
		free(c->shards[i].path);
	}
	for (int i = 0; i < c->nrecs; i++)
		free(c->recs[i].name);
	free(c->shards);
	free(c->recs);
	free(c->by_name);
	free(c->metadata);
	free(c->json_path);
	free(c->dir);
	free(c);
}
