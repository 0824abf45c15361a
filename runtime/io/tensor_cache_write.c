/*
 * tensor_cache_write.c — the tvmjs tensor cache, written (the reader is tensor_cache_read.c).
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

#include "rlx.h"

#include "tensor_cache.h"
#include "xxh.h"

/* Keys of "metadata" that the writer sets itself. */
static const char *const own_meta_keys[] = {
	"ParamSize", "ParamBytes", "BitsPerParam", "rlxVersion", "rlxFiles",
};

/* What check_replaceable learns from an existing cache's JSON: the names
 * that belong to the cache (the JSON, its shards, the module rlx stored). */
typedef struct {
	json_t *own;      /* set of names */
	const char *bad;  /* the first entry that is not the cache's */
	char bad_name[256];
	bool bad_dir;
} Owned;

/* Does dir/name hold exactly nbytes bytes hashing (XXH3-64) to hex? A
 * listing in a JSON anyone could have written proves nothing by itself:
 * this is what makes a listed file the cache's own to delete. */
static bool
file_is(const char *dir, const char *name, json_int_t nbytes, const char *hex)
{
	if (!hex || strlen(hex) != 16 || nbytes < 0)
		return false;
	char *path = tc_printf("%s/%s", dir, name);
	RtError e;
	uint64_t size;
	int fd = path ? rt_open_input(path, &size, &e) : -1;
	free(path);
	if (fd < 0)
		return false;
	bool same = size == (uint64_t)nbytes;
	if (same && size) {
		void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		char got[17];
		same = p != MAP_FAILED;
		if (same) {
			snprintf(got, sizeof got, "%016llx",
				 (unsigned long long)XXH3_64bits(p, size));
			munmap(p, size);
			same = !strcmp(got, hex);
		}
	} else if (same) {
		char got[17];
		snprintf(got, sizeof got, "%016llx",
			 (unsigned long long)XXH3_64bits("", 0));
		same = !strcmp(got, hex);
	}
	close(fd);
	return same;
}

/* Adds name to the names o owns when dir/name is what desc ({nbytes,
 * rlxHash}) says. */
static void
own_if_same(Owned *o, const char *dir, const char *name, json_t *desc)
{
	if (name && !json_object_get(o->own, name) &&
	    file_is(dir, name, json_integer_value(json_object_get(desc, "nbytes")),
		    json_string_value(json_object_get(desc, "rlxHash"))))
		json_object_set_new(o->own, name, json_true());
}

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
 * directory that is empty or holds a tensor cache and nothing else: its
 * tensor-cache.json, the shards that JSON lists whose size and content
 * hash are the listed "nbytes" and "rlxHash", and the files rlx stored
 * beside them (metadata "rlxFiles", each with its size and hash). The JSON
 * is data from anyone (docs/security.md): a name listed there is the
 * cache's own only when the file is provably what rlx wrote. Anything else
 * is somebody's data: refused, never deleted. *exists tells whether it
 * exists.
 */
static bool
check_replaceable(const char *dir, bool *exists, RtError *e)
{
	struct stat st;
	*exists = false;
	if (lstat(dir, &st)) {
		if (errno == ENOENT)
			return true;
		return tc_err(e, "%s: %s", dir, strerror(errno));
	}
	*exists = true;
	if (!S_ISDIR(st.st_mode))
		return tc_err(e, "%s: exists and is not a directory", dir);
	char *p = tc_printf("%s/%s", dir, CACHE_JSON);
	if (!p)
		return tc_err(e, "%s: out of memory", dir);
	if (lstat(p, &st) != 0) {
		free(p);
		bool any = false;
		if (!rt_dir_list(dir, entries_of, &any, e))
			return false;
		if (any)
			return tc_err(e, "%s: exists and is not a tensor cache "
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
		return tc_err(e, "%s: its %s cannot be read as JSON; refusing to "
			    "replace it (remove it yourself if it is no longer "
			    "needed)", dir, CACHE_JSON);
	Owned o = {.own = json_object()};
	json_object_set_new(o.own, CACHE_JSON, json_true());
	json_t *shards = json_object_get(root, "records"), *sh;
	size_t i;
	json_array_foreach(shards, i, sh)
		own_if_same(&o, dir, json_string_value(
					     json_object_get(sh, "dataPath")), sh);
	const char *name;
	json_t *desc;
	json_object_foreach(json_object_get(json_object_get(root, "metadata"),
					    "rlxFiles"), name, desc)
		own_if_same(&o, dir, name, desc);
	bool ok = rt_dir_list(dir, owned_entry, &o, e);
	json_decref(o.own);
	json_decref(root);
	if (ok && o.bad)
		ok = tc_err(e, "%s: holds %s '%s' that is not provably part of "
			  "the tensor cache (not listed, or not the size and "
			  "hash listed); refusing to replace it (move it away, "
			  "or write the cache elsewhere)", dir,
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
	json_t *files;    /* rt_cache_add_file's: name -> {nbytes, rlxHash} */
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
		tc_err(e, "tensor cache: empty directory name");
		return NULL;
	}
	RtCacheWriter *w = calloc(1, sizeof *w);
	if (!w) {
		tc_err(e, "%s: out of memory", dir);
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
		tc_err(e, "%s: out of memory", dir);
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
		return tc_err(e, "%s: '%s' cannot be a file of the cache", w->dir,
			    name);
	char *path = tc_printf("%s/%s", w->out.tmp, name);
	if (!path)
		return tc_err(e, "%s: out of memory", w->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0666);
	bool ok = fd >= 0;
	if (!ok)
		tc_err(e, "%s: cannot create: %s", path, strerror(errno));
	ok = ok && rt_write_all(fd, path, p, n, e);
	if (fd >= 0 && close(fd) && ok)
		ok = tc_err(e, "%s: write failed: %s", path, strerror(errno));
	free(path);
	/* recorded, so that a later transform knows the file for its own */
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx",
		 (unsigned long long)XXH3_64bits(p, n));
	if (ok && !w->files)
		w->files = json_object();
	if (ok && (!w->files ||
		   json_object_set_new(w->files, name,
				       json_pack("{s:I, s:s}", "nbytes",
						 (json_int_t)n, "rlxHash", hex))))
		ok = tc_err(e, "%s: out of memory", w->dir);
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
 * record. A chunk ends at a 2 MiB boundary of the file: a write() of a
 * whole aligned 2 MiB block is what makes the page cache hold it as one
 * 2 MiB folio, which `rlx run` then maps with one page-table entry instead
 * of 512 (docs/architecture.md, "Where the weights' pages come from").
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
		size_t k = (size_t)tc_chunk(w->fsize - n, n);
		if (XXH3_64bits_update(w->xs, c, k) != XXH_OK)
			goto hash_failed;
		if (!write_all(w, c, k, e))
			return false;
		c += k;
		n -= k;
	}
	return true;
hash_failed:
	tc_err(e, "%s: hashing failed", w->fpath);
	return wfail(w);
}

/* Opens the next shard file. */
static bool
shard_open(RtCacheWriter *w, RtError *e)
{
	w->fpath = tc_printf("%s/params_shard_%d.bin", w->out.tmp, w->nshard);
	if (!w->stage)
		w->stage = malloc(STAGE_BYTES);
	w->nstage = 0;
	w->recs = json_array();
	if (!w->fpath || !w->stage || !w->recs) {
		tc_err(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	w->fd = open(w->fpath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		tc_err(e, "%s: cannot create: %s", w->fpath, strerror(errno));
		return wfail(w);
	}
	if (XXH3_64bits_reset(w->xs) != XXH_OK) {
		tc_err(e, "%s: hashing failed", w->fpath);
		return wfail(w);
	}
	if (json_array_append_new(w->shards, json_null())) {
		tc_err(e, "%s: out of memory", w->dir);
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
		tc_err(e, "%s: write failed: %s", w->fpath, strerror(errno));
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
		tc_err(e, "%s: out of memory", w->dir);
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
	    (alone || tc_align_up(w->fsize) + nbytes > w->cap))
		if (!shard_close(w, e))
			goto fail;
	if (w->fd < 0 && !shard_open(w, e))
		goto fail;
	uint64_t off = tc_align_up(w->fsize);
	preallocate(w->fd, off, nbytes);
	if (!shard_write(w, zeros, off - w->fsize, e) ||
	    !shard_write(w, data, nbytes, e))
		goto fail;
	if (json_object_set_new(rec, "nbytes", json_integer((json_int_t)nbytes)) ||
	    json_object_set_new(rec, "byteOffset", json_integer((json_int_t)off)) ||
	    json_array_append(w->recs, rec) ||
	    json_object_set_new(w->names, name, json_true())) {
		tc_err(e, "%s: out of memory", w->dir);
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
		return tc_err(e, "%s: the cache failed earlier and cannot be "
			    "completed", w->dir);
	if (!name || !*name)
		return tc_err(e, "%s: a record needs a non-empty name", w->dir);
	if (json_object_get(w->names, name))
		return tc_err(e, "%s: duplicate record name '%s'", w->dir, name);
	json_t *probe = json_string(name);
	if (!probe)
		return tc_err(e, "%s: record name '%s' is not valid UTF-8",
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
		return tc_err(e, "%s: tensor '%s': bad rank %d", w->dir, name,
			    t->ndim);
	if (!tc_itemsize(t->dtype))
		return tc_err(e, "%s: tensor '%s': dtype %s cannot be stored",
			    w->dir, name, dtype_name(t->dtype));
	if (!tc_shape_bytes(t->dtype, t->ndim, t->shape, nbytes))
		return tc_err(e, "%s: tensor '%s': bad shape", w->dir, name);
	if (*nbytes != t->nbytes || (*nbytes && !t->data))
		return tc_err(e, "%s: tensor '%s': holds %zu bytes, its shape "
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
		tc_err(e, "%s: out of memory", w->dir);
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
			tc_err(e, "%s: out of memory", w->dir);
			return wfail(w);
		}
		tk->shard = w->nshard++;
		tk->rec = rec;
		w->pending++;
	}
	uint64_t numel = tc_itemsize(t->dtype) ? nbytes / tc_itemsize(t->dtype) : 0;
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
		return tc_err(e, "%s: out of memory", w->dir);
	for (int i = 0; i < p->nshards; i++) {
		w->sfd[i] = -1;
		w->left[i] = p->shard_nrecs[i];
		if (json_array_append_new(w->shards, json_null()))
			return tc_err(e, "%s: out of memory", w->dir);
	}
	w->nshard = p->nshards;
	for (int i = 0; i < p->nrecs; i++) {
		const RtPlanRec *r = &p->recs[i];
		if (json_object_get(w->plan_ix, r->name))
			return tc_err(e, "%s: duplicate record name '%s'", w->dir,
				    r->name);
		if (json_object_set_new(w->plan_ix, r->name,
					json_integer(i)))
			return tc_err(e, "%s: out of memory", w->dir);
		if (r->is_shape)
			continue;
		size_t isz = tc_itemsize(r->dtype);
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
			tc_err(e, "%s: out of memory", dir);
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
			tc_err(e, "%s: out of memory", dir);
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
		tc_err(e, "%s: no temporary directory to join", dir);
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
		ok = tc_err(e, "%s: write failed: %s", path, strerror(errno));
	char *buf = ok ? malloc(READ_BYTES) : NULL;
	if (ok && (!buf || XXH3_64bits_reset(w->xs) != XXH_OK))
		ok = tc_err(e, "%s: out of memory", path);
	for (uint64_t off = 0, k; ok && off < p->shard_bytes[si]; off += k) {
		k = p->shard_bytes[si] - off;
		k = k < READ_BYTES ? k : READ_BYTES;
		int err = rt_read_at(fd, buf, (size_t)k, off);
		if (err)
			ok = tc_err(e, "%s: cannot read back: %s", path,
				    err > 0 ? strerror(err) : "short file");
		else
			XXH3_64bits_update(w->xs, buf, (size_t)k);
	}
	free(buf);
	if (close(fd) && ok)
		ok = tc_err(e, "%s: write failed: %s", path, strerror(errno));
	if (!ok)
		return wfail(w);
	w->hash[si] = XXH3_64bits_digest(w->xs);
	json_t *js = plan_shard(p, si, w->hash[si]);
	if (!js || json_array_set_new(w->shards, (size_t)si, js)) {
		tc_err(e, "%s: out of memory", w->dir);
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
		return tc_err(e, "%s: '%s' is not a record of the planned cache",
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
		tc_err(e, "%s: '%s' is %s, but its annotation planned %s", w->dir,
		     name, got, want);
		return wfail(w);
	}
	int si = r->shard;
	if (p->owner[si] != w->me)
		return tc_err(e, "%s: '%s' belongs to shard %d, which process %d "
			    "writes, not %d", w->dir, name, si, p->owner[si],
			    w->me);
	if (json_object_set_new(w->names, name, json_true())) {
		tc_err(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	if (p->shard_alone[si]) {
		tk->shard = si;
		tk->rec = plan_record(p, (int)json_integer_value(ix));
		if (!tk->rec) {
			tk->shard = -1;
			tc_err(e, "%s: out of memory", w->dir);
			return wfail(w);
		}
		w->pending++;
		return true;
	}
	char *path = tc_printf("%s/params_shard_%d.bin", w->out.tmp, si);
	if (!path) {
		tc_err(e, "%s: out of memory", w->dir);
		return wfail(w);
	}
	if (w->sfd[si] < 0) {
		w->sfd[si] = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				  O_CLOEXEC, 0666);
		if (w->sfd[si] < 0) {
			tc_err(e, "%s: cannot create: %s", path, strerror(errno));
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
			ok = tc_err(e, "%s: write failed: %s", path,
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
			ok = tc_err(e, "%s: shard %d is not complete", w->dir, i);
		else
			hashes[i] = w->hash[i];
	}
	if (w->failed || w->pending)
		tc_err(e, "%s: the cache failed earlier and cannot be completed",
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
			return tc_err(e, "%s: out of memory", w->dir);
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
		return tc_err(e, "%s: cannot create: %s", path, strerror(errno));
	XXH3_state_t *xs = XXH3_createState();
	bool ok = xs && XXH3_64bits_reset(xs) == XXH_OK;
	if (!ok)
		tc_err(e, "%s: hashing failed", path);
	preallocate(fd, 0, n);
	while (ok && n) {
		size_t k = n < CHUNK_BYTES ? (size_t)n : CHUNK_BYTES;
		ok = XXH3_64bits_update(xs, p, k) == XXH_OK;
		if (!ok)
			tc_err(e, "%s: hashing failed", path);
		ok = ok && rt_write_all(fd, path, p, k, e);
		p += k;
		n -= k;
	}
	if (ok)
		*hash = XXH3_64bits_digest(xs);
	XXH3_freeState(xs);
	if (close(fd) && ok)
		return tc_err(e, "%s: write failed: %s", path, strerror(errno));
	return ok;
}

/* Writes a tensor placed in a shard of its own (see rt.h). */
bool
rt_cache_write_alone(RtCacheWriter *w, RtCacheTicket *tk, const RtTensor *t,
		     RtError *e)
{
	if (tk->shard < 0)
		return true;
	char *path = tc_printf("%s/params_shard_%d.bin", w->out.tmp, tk->shard);
	uint64_t hash = 0;
	bool ok = path ? write_alone(path, t->data, t->nbytes, &hash, e)
		       : tc_err(e, "%s: out of memory", w->dir);
	json_t *s = NULL;
	if (ok) {
		char hex[17];
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
		s = json_pack("{s:s, s:s, s:I, s:s, s:[O]}", "dataPath",
			      strrchr(path, '/') + 1, "format", "raw-shard",
			      "nbytes", (json_int_t)t->nbytes, "rlxHash", hex,
			      "records", tk->rec);
		if (!s)
			ok = tc_err(e, "%s: out of memory", w->dir);
	}
	pthread_mutex_lock(&w->mu);
	if (ok && json_array_set_new(w->shards, (size_t)tk->shard, s))
		ok = tc_err(e, "%s: out of memory", w->dir);
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
		return tc_err(e, "%s: shape '%s': bad length %d", w->dir, name, n);
	unsigned char *buf = malloc(n ? (size_t)n * 8 : 1);
	int64_t len = n;
	json_t *rec = new_record(name, DT_I64, 1, &len);
	if (!buf || !rec ||
	    json_object_set_new(rec, "rlxKind", json_string("shape"))) {
		free(buf);
		json_decref(rec);
		tc_err(e, "%s: out of memory", w->dir);
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
	if (!m || (w->files && json_object_set(m, "rlxFiles", w->files))) {
		tc_err(e, "%s: out of memory", w->dir);
		json_decref(m);
		return NULL;
	}
	if (!extra)
		return m;
	json_error_t je;
	json_t *x = json_loads(extra, JSON_REJECT_DUPLICATES, &je);
	if (!x) {
		tc_err(e, "%s: extra metadata is not valid JSON: %s", w->dir,
		     je.text);
		goto fail;
	}
	if (!json_is_object(x)) {
		tc_err(e, "%s: extra metadata must be a JSON object", w->dir);
		goto fail;
	}
	for (size_t i = 0; i < sizeof own_meta_keys / sizeof *own_meta_keys;
	     i++)
		if (json_object_get(x, own_meta_keys[i])) {
			tc_err(e, "%s: extra metadata may not set \"%s\"", w->dir,
			     own_meta_keys[i]);
			goto fail;
		}
	if (json_object_update(m, x)) {
		tc_err(e, "%s: out of memory", w->dir);
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
		return tc_err(e, "%s: cannot create: %s", path, strerror(errno));
	size_t n = strlen(text);
	bool ok = fwrite(text, 1, n, f) == n && fputc('\n', f) != EOF;
	int err = errno;
	if (fclose(f))
		ok = false, err = errno;
	if (!ok)
		return tc_err(e, "%s: write failed: %s", path, strerror(err));
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
		tc_err(e, "%s: the cache failed earlier and cannot be completed",
		     w->dir);
		goto out;
	}
	if (w->pending) {
		tc_err(e, "%s: %d tensors were placed but not written", w->dir,
		     w->pending);
		goto out;
	}
	if (w->joined) {
		tc_err(e, "%s: only the process that began the cache finishes it",
		     w->dir);
		goto out;
	}
	if (!shard_close(w, e))
		goto out;
	for (size_t i = 0; i < json_array_size(w->shards); i++)
		if (json_is_null(json_array_get(w->shards, i))) {
			tc_err(e, "%s: shard %zu was not written", w->dir, i);
			goto out;
		}
	json_t *meta = build_metadata(w, metadata_json_extra, e);
	if (!meta)
		goto out;
	top = json_pack("{s:o, s:O}", "metadata", meta, "records", w->shards);
	text = top ? json_dumps(top, JSON_INDENT(2) | JSON_PRESERVE_ORDER)
		   : NULL;
	path = tc_printf("%s/%s", w->out.tmp, CACHE_JSON);
	if (!text || !path) {
		tc_err(e, "%s: out of memory", w->dir);
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
	json_decref(w->files);
	XXH3_freeState(w->xs);
	free(w->stage);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
