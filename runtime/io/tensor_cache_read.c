/*
 * tensor_cache_read.c — the tvmjs tensor cache, read (the writer is tensor_cache_write.c).
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

/* Formats an error into e (when given); returns false for `return tc_err()`. */
bool
tc_err(RtError *e, const char *fmt, ...)
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
char *
tc_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
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
	int fd;            /* opened with the JSON, until mapped; -1 */
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
	int dfd;           /* DIR, opened once: every file is read from it */
	char *json_path;
	CShard *shards;
	int nshards;
	CRec *recs;
	int nrecs;
	CName *by_name;
	char *metadata;
	int model_fd;      /* DIR/model.py, opened with the JSON, or -1 */
	uint64_t model_size;
	char *model_err;   /* why model_fd is -1 */
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
	return tc_err(v->e, "%s: %s%s%s", v->json, v->where,
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

/* Shards opened with the JSON (the rest when first used): up to this
 * many file descriptors stay open until the shards are mapped. */
enum { EAGER_SHARDS = 512 };

/* Is DIR now another directory than the one c opened? */
static bool
was_replaced(const RtCache *c)
{
	struct stat a, b;
	return c->dfd >= 0 && !fstat(c->dfd, &a) &&
	       (stat(c->dir, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

/* Opens DIR/model.py with the JSON and the shards, so that the module
 * comes from the directory the records come from. Absent or unreadable is
 * an error only for who reads it (rt_cache_read_model); false when it was
 * removed because DIR was replaced: the caller starts again. */
static bool
open_model(RtCache *c)
{
	char *path = tc_printf("%s/%s", c->dir, RT_CACHE_MODEL);
	if (!path)
		return true; /* model_err NULL: out of memory */
	RtError me;
	c->model_fd = rt_open_input_at(c->dfd, RT_CACHE_MODEL, path,
				       &c->model_size, &me);
	int err = errno;
	free(path);
	if (c->model_fd >= 0)
		return true;
	if (err == ENOENT && was_replaced(c))
		return false;
	c->model_err = strdup(me.msg);
	return true;
}

/* Reads tensor-cache.json (or tvmjs's older ndarray-cache.json) whole. */
static json_t *
load_json(RtCache *c, RtError *e)
{
	c->json_path = tc_printf("%s/%s", c->dir, CACHE_JSON);
	if (!c->json_path) {
		tc_err(e, "%s: out of memory", c->dir);
		return NULL;
	}
	RtError oe;
	int fd = c->dfd < 0 ? -1 : rt_open_input_at(c->dfd, CACHE_JSON,
						   c->json_path, NULL, &oe);
	if (c->dfd < 0 || (fd < 0 && (errno == ENOENT || errno == ENOTDIR))) {
		char *old = tc_printf("%s/%s", c->dir, OLD_CACHE_JSON);
		fd = old && c->dfd >= 0
			     ? rt_open_input_at(c->dfd, OLD_CACHE_JSON, old, NULL,
						&oe)
			     : -1;
		if (fd >= 0) {
			free(c->json_path);
			c->json_path = old;
		} else {
			free(old);
			struct stat st;
			if (stat(c->dir, &st))
				tc_err(e, "%s: %s", c->dir, strerror(errno));
			else if (!S_ISDIR(st.st_mode))
				tc_err(e, "%s: not a directory (a tensor cache "
				     "is a directory)", c->dir);
			else
				tc_err(e, "%s: not a tensor cache: no %s in it",
				     c->dir, CACHE_JSON);
			return NULL;
		}
	}
	if (fd < 0) {
		tc_err(e, "%s", oe.msg);
		return NULL;
	}
	struct stat st;
	json_t *j = NULL;
	char *buf = NULL;
	if (fstat(fd, &st)) {
		tc_err(e, "%s: %s", c->json_path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		tc_err(e, "%s: not a regular file", c->json_path);
		goto out;
	}
	if (st.st_size == 0) {
		tc_err(e, "%s: the file is empty", c->json_path);
		goto out;
	}
	if (st.st_size > JSON_LIMIT) {
		tc_err(e, "%s: %lld bytes is too large for a cache description "
		     "(limit %d)", c->json_path, (long long)st.st_size,
		     JSON_LIMIT);
		goto out;
	}
	size_t n = (size_t)st.st_size, got = 0;
	buf = malloc(n);
	if (!buf) {
		tc_err(e, "%s: out of memory", c->json_path);
		goto out;
	}
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			tc_err(e, "%s: read failed: %s", c->json_path,
			     r ? strerror(errno) : "file shrank");
			goto out;
		}
		got += (size_t)r;
	}
	json_error_t je;
	j = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		tc_err(e, "%s:%d:%d: invalid JSON: %s", c->json_path, je.line,
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
	if (!dtype_parse(dt, &r->dtype) || !tc_itemsize(r->dtype))
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
	if (!tc_shape_bytes(r->dtype, r->ndim, r->shape, &want))
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
	s->path = tc_printf("%s/%s", c->dir, dp);
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
		return tc_err(v->e, "%s: %s (named by %s)", s->path,
			    strerror(errno), v->json);
	if (!S_ISREG(st.st_mode))
		return tc_err(v->e, "%s: not a regular file (named by %s)",
			    s->path, v->json);
	if ((uint64_t)st.st_size != s->nbytes)
		return tc_err(v->e, "%s: the file is %lld bytes, but %s says "
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
	for (size_t i = 0; i < ns; i++)
		c->shards[i].fd = -1;
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
		tc_err(e, "tensor cache: empty directory name");
		return NULL;
	}
	/* A writer may replace DIR while it is read (rt_dir_commit swaps the
	 * directories, then removes the old one): DIR is opened once and the
	 * JSON and the shards are opened in that directory, so that they are
	 * the old cache's or the new one's, never a mix; a shard removed
	 * before it was opened means the cache was replaced: start again
	 * from the new one. */
	for (int tries = 0;; tries++) {
		RtCache *c = calloc(1, sizeof *c);
		if (!c || !(c->dir = rt_path_strip(dir))) {
			free(c);
			tc_err(e, "%s: out of memory", dir);
			return NULL;
		}
		c->model_fd = -1;
		c->dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		json_t *top = load_json(c, e);
		bool ok = top && check_cache(c, top, e);
		json_decref(top);
		/* the JSON gone with the old directory */
		bool replaced = !top && was_replaced(c);
		for (int i = 0; ok && i < c->nshards && i < EAGER_SHARDS; i++) {
			CShard *s = &c->shards[i];
			if (!s->nbytes)
				continue;
			s->fd = rt_open_input_at(c->dfd, s->data_path, s->path,
						 NULL, e);
			if (s->fd < 0) {
				ok = false;
				replaced = errno == ENOENT && was_replaced(c);
			}
		}
		if (ok && !open_model(c)) {
			tc_err(e, "%s: replaced while it was opened", c->dir);
			ok = false;
			replaced = true;
		}
		if (ok)
			return c;
		rt_cache_close(c);
		if (!replaced || tries >= 8)
			return NULL;
	}
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

/* The stamp file of st (malloc'd), NULL when stamps are off or their
 * folder is not only this user's (a stamp others could write proves
 * nothing: docs/security.md). */
static char *
stamp_path(const struct stat *st)
{
	RtError why;
	char *dir = rt_cache_dir("verified", &why);
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + 64;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%llx-%llx", dir,
			 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
	free(dir);
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
	char want[160];
	stamp_text(want, sizeof want, st, h);
	/* only this user's regular file; a FIFO there: no stamp, no wait */
	int fd = rt_cache_file_open(path);
	free(path);
	if (fd < 0)
		return false;
	char got[sizeof want];
	size_t n = strlen(want);
	struct stat sst;
	bool same = !fstat(fd, &sst) && (uint64_t)sst.st_size == n &&
		    !rt_read_at(fd, got, n, 0) && !memcmp(got, want, n);
	close(fd);
	return same;
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
	RtError e;
	RtFile f;
	if (rt_cache_file_begin(&f, path, &e))
		rt_file_end(&f, rt_file_write(&f, text, strlen(text), &e), &e);
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
		struct stat fst;
		int fd = s->fd;
		s->fd = -1;
		if (fd >= 0)
			size = fstat(fd, &fst) ? 0 : (uint64_t)fst.st_size;
		else
			fd = rt_open_input_at(c->dfd, s->data_path, s->path,
					      &size, e);
		if (fd < 0)
			return false;
		if (size != s->nbytes) {
			close(fd);
			return tc_err(e, "%s: the file changed size since %s "
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
			return tc_err(e, "%s: content hash %016llx does not match "
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
		tc_err(e, "%s: no record #%d", c->dir, i);
		return NULL;
	}
	const CRec *r = &c->recs[i];
	if (!shard_ready(c, r->shard, e))
		return NULL;
	RtTensor *t = calloc(1, sizeof *t);
	if (!t) {
		tc_err(e, "%s: out of memory", r->name);
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
	t->data = aligned_alloc(RT_ALIGN, tc_align_up(r->nbytes ? r->nbytes : 1));
	if (!t->data) {
		free(t);
		tc_err(e, "%s: out of memory (%llu bytes)", r->name,
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
		return tc_err(e, "%s: no record #%d", c->dir, i);
	const CRec *r = &c->recs[i];
	if (!r->is_shape)
		return tc_err(e, "%s: record '%s' is a tensor, not a shape",
			    c->json_path, r->name);
	int cap = *n;
	if (r->shape[0] > INT32_MAX)
		return tc_err(e, "%s: shape '%s' is too long", c->json_path,
			    r->name);
	*n = (int)r->shape[0];
	if (*n > cap)
		return tc_err(e, "%s: shape '%s' has %d values, room for %d",
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

char *
rt_cache_read_model(RtCache *c, size_t *len, RtError *e)
{
	if (c->model_fd < 0) {
		tc_err(e, "%s", c->model_err ? c->model_err : "out of memory");
		return NULL;
	}
	char *path = tc_printf("%s/%s", c->dir, RT_CACHE_MODEL);
	if (!path) {
		tc_err(e, "%s: out of memory", c->dir);
		return NULL;
	}
	char *text = rt_read_whole_fd(c->model_fd, c->model_size, path,
				      UINT64_MAX, len, e);
	free(path);
	return text;
}

/* Unmaps the shards and frees the cache. */
void
rt_cache_close(RtCache *c)
{
	if (!c)
		return;
	if (c->dfd >= 0)
		close(c->dfd);
	if (c->model_fd >= 0)
		close(c->model_fd);
	free(c->model_err);
	for (int i = 0; i < c->nshards; i++) {
		if (c->shards[i].map)
			rt_map_close(&c->shards[i].mapping);
		if (c->shards[i].fd >= 0)
			close(c->shards[i].fd);
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
