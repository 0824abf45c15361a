/*
 * safetensors.c — the safetensors format (a little-endian u64 header length,
 * a JSON header, then the data area), and weight sources by name: a single
 * file or a Hugging Face sharded checkpoint index.
 *
 * The reader maps the file read-only and checks every record at open, so
 * that loading a tensor later can never read outside the mapping: dtype
 * known, shape non-negative without overflow, offsets inside the data area
 * and matching the shape, no two tensors overlapping, and the data area
 * covered exactly (no gaps, no trailing bytes), as the format requires.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "rt_io.h"

enum { ST_MAX_HEADER = 100 * 1024 * 1024 };

/* One tensor record; begin/end are relative to the data area. */
typedef struct {
	char *name;
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	uint64_t begin, end;
} StEntry;

struct RtSafetensors {
	char *path;
	unsigned char *map;
	RtMap mapping;    /* map, guarded against the file shrinking */
	const unsigned char *data; /* the data area, datalen bytes */
	uint64_t datalen;
	StEntry *ents; /* header order */
	int n;
	StEntry **byname; /* sorted by name */
	char **meta;      /* nmeta key/value pairs */
	int nmeta;
};

/* ORDER: safetensors name of each DType; NULL where there is none. */
static const char *const st_dtype_names[DT_COUNT] = {
	[DT_BOOL] = "BOOL", [DT_U8] = "U8",   [DT_I8] = "I8",
	[DT_I16] = "I16",   [DT_I32] = "I32", [DT_I64] = "I64",
	[DT_F16] = "F16",   [DT_BF16] = "BF16", [DT_F32] = "F32",
	[DT_F64] = "F64",   [DT_U16] = "U16", [DT_U32] = "U32",
	[DT_U64] = "U64",   [DT_F8E4M3] = "F8_E4M3", /* torch's e4m3fn */
	[DT_F8E5M2] = "F8_E5M2",
};

/* Names the format defines that rlx does not support. */
static const char *const st_unsupported[] = {
	"F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64",
};

/* The safetensors name of dt, NULL if none. */
const char *
rt_st_dtype_name(DType dt)
{
	return (unsigned)dt < DT_COUNT ? st_dtype_names[dt] : NULL;
}

/* Writes "[4, 8]" into buf. */
static void
fmt_shape(char *buf, size_t cap, int ndim, const int64_t *shape)
{
	size_t k = 0;
	k += (size_t)snprintf(buf, cap, "[");
	for (int i = 0; i < ndim && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%lld",
				      i ? ", " : "", (long long)shape[i]);
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
}

/* malloc'ed copy of s, NULL when out of memory. */
static char *
dup_or_null(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* qsort order of entries by name. */
static int
cmp_entry_name(const void *a, const void *b)
{
	const StEntry *x = *(const StEntry *const *)a;
	const StEntry *y = *(const StEntry *const *)b;
	return strcmp(x->name, y->name);
}

/* qsort order of entries by (begin, end). */
static int
cmp_entry_offset(const void *a, const void *b)
{
	const StEntry *x = *(const StEntry *const *)a;
	const StEntry *y = *(const StEntry *const *)b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* The entry of a name, NULL if none. */
static const StEntry *
st_lookup(const RtSafetensors *st, const char *name)
{
	StEntry key = {.name = (char *)name};
	StEntry *pk = &key;
	StEntry **p = st->n ? bsearch(&pk, st->byname, (size_t)st->n,
				      sizeof *st->byname, cmp_entry_name)
			    : NULL;
	return p ? *p : NULL;
}

/* Parses the safetensors dtype string s of tensor name; false + e. */
static bool
parse_dtype(const char *path, const char *name, const char *s, DType *out,
	    RtError *e)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (st_dtype_names[i] && !strcmp(s, st_dtype_names[i])) {
			*out = (DType)i;
			return true;
		}
	for (size_t i = 0; i < ARRAY_LEN(st_unsupported); i++)
		if (!strcmp(s, st_unsupported[i])) {
			rt_error(e, "%s: tensor '%s': dtype %s is not supported "
				 "by rlx", path, name, s);
			return false;
		}
	rt_error(e, "%s: tensor '%s': unknown dtype '%s'", path, name, s);
	return false;
}

/* Fills ent from the header record v of tensor name; false + e. */
static bool
parse_entry(const RtSafetensors *st, const char *name, json_t *v,
	    StEntry *ent, RtError *e)
{
	const char *path = st->path;
	if (!json_is_object(v)) {
		rt_error(e, "%s: tensor '%s': record is not a JSON object",
			 path, name);
		return false;
	}
	json_t *jd = json_object_get(v, "dtype");
	json_t *js = json_object_get(v, "shape");
	json_t *jo = json_object_get(v, "data_offsets");
	if (!json_is_string(jd)) {
		rt_error(e, "%s: tensor '%s': %s", path, name,
			 jd ? "dtype is not a string" : "no dtype");
		return false;
	}
	if (!parse_dtype(path, name, json_string_value(jd), &ent->dtype, e))
		return false;
	if (!json_is_array(js)) {
		rt_error(e, "%s: tensor '%s': %s", path, name,
			 js ? "shape is not a list" : "no shape");
		return false;
	}
	size_t nd = json_array_size(js);
	if (nd > RT_MAX_DIMS) {
		rt_error(e, "%s: tensor '%s': %zu dimensions (at most %d are "
			 "supported)", path, name, nd, RT_MAX_DIMS);
		return false;
	}
	ent->ndim = (int)nd;
	for (size_t i = 0; i < nd; i++) {
		json_t *d = json_array_get(js, i);
		if (!json_is_integer(d)) {
			rt_error(e, "%s: tensor '%s': dimension %zu of the "
				 "shape is not an integer", path, name, i);
			return false;
		}
		json_int_t x = json_integer_value(d);
		if (x < 0) {
			rt_error(e, "%s: tensor '%s': dimension %zu is "
				 "negative (%lld)", path, name, i,
				 (long long)x);
			return false;
		}
		ent->shape[i] = (int64_t)x;
	}
	char sh[256];
	fmt_shape(sh, sizeof sh, ent->ndim, ent->shape);
	size_t nbytes;
	if (!rt_size(ent->dtype, ent->ndim, ent->shape, &nbytes)) {
		rt_error(e, "%s: tensor '%s': the size of shape %s "
			 "overflows", path, name, sh);
		return false;
	}
	if (!json_is_array(jo) || json_array_size(jo) != 2 ||
	    !json_is_integer(json_array_get(jo, 0)) ||
	    !json_is_integer(json_array_get(jo, 1))) {
		rt_error(e, "%s: tensor '%s': %s", path, name,
			 jo ? "data_offsets is not a list [begin, end] of "
			      "integers"
			    : "no data_offsets");
		return false;
	}
	json_int_t b = json_integer_value(json_array_get(jo, 0));
	json_int_t en = json_integer_value(json_array_get(jo, 1));
	if (b < 0 || en < b) {
		rt_error(e, "%s: tensor '%s': data_offsets [%lld, %lld] are "
			 "not an interval", path, name, (long long)b,
			 (long long)en);
		return false;
	}
	if ((uint64_t)en > st->datalen) {
		rt_error(e, "%s: tensor '%s': data_offsets [%lld, %lld] run "
			 "past the end of the data area (%llu bytes)", path,
			 name, (long long)b, (long long)en,
			 (unsigned long long)st->datalen);
		return false;
	}
	if ((uint64_t)(en - b) != (uint64_t)nbytes) {
		rt_error(e, "%s: tensor '%s': data_offsets [%lld, %lld] do "
			 "not match shape %s of %s (%zu bytes)", path, name,
			 (long long)b, (long long)en, sh,
			 st_dtype_names[ent->dtype], nbytes);
		return false;
	}
	ent->begin = (uint64_t)b;
	ent->end = (uint64_t)en;
	ent->name = dup_or_null(name);
	if (!ent->name) {
		rt_error(e, "out of memory");
		return false;
	}
	return true;
}

/* Keeps the `__metadata__` map v (string to string); false + e. */
static bool
parse_metadata(RtSafetensors *st, json_t *v, RtError *e)
{
	if (!json_is_object(v)) {
		rt_error(e, "%s: __metadata__ is not a JSON object", st->path);
		return false;
	}
	size_t n = json_object_size(v);
	st->meta = calloc(2 * n + 1, sizeof *st->meta);
	if (!st->meta) {
		rt_error(e, "out of memory");
		return false;
	}
	const char *k;
	json_t *x;
	json_object_foreach(v, k, x) {
		if (!json_is_string(x)) {
			rt_error(e, "%s: __metadata__ value of '%s' is not a "
				 "string", st->path, k);
			return false;
		}
		st->meta[2 * st->nmeta] = dup_or_null(k);
		st->meta[2 * st->nmeta + 1] = dup_or_null(json_string_value(x));
		st->nmeta++;
		if (!st->meta[2 * st->nmeta - 2] ||
		    !st->meta[2 * st->nmeta - 1]) {
			rt_error(e, "out of memory");
			return false;
		}
	}
	return true;
}

/* Checks that the non-empty tensors tile the data area exactly. */
static bool
check_layout(RtSafetensors *st, RtError *e)
{
	StEntry **v = malloc(sizeof *v * (size_t)(st->n ? st->n : 1));
	if (!v) {
		rt_error(e, "out of memory");
		return false;
	}
	int m = 0;
	for (int i = 0; i < st->n; i++)
		if (st->ents[i].end > st->ents[i].begin)
			v[m++] = &st->ents[i];
	qsort(v, (size_t)m, sizeof *v, cmp_entry_offset);
	uint64_t pos = 0;
	const StEntry *prev = NULL;
	bool ok = true;
	for (int i = 0; i < m && ok; i++) {
		if (v[i]->begin < pos) {
			rt_error(e, "%s: tensor '%s' (bytes [%llu, %llu]) "
				 "overlaps tensor '%s' (bytes [%llu, %llu])",
				 st->path, v[i]->name,
				 (unsigned long long)v[i]->begin,
				 (unsigned long long)v[i]->end, prev->name,
				 (unsigned long long)prev->begin,
				 (unsigned long long)prev->end);
			ok = false;
		} else if (v[i]->begin > pos) {
			rt_error(e, "%s: bytes [%llu, %llu] of the data area "
				 "belong to no tensor (a gap before tensor "
				 "'%s')", st->path, (unsigned long long)pos,
				 (unsigned long long)v[i]->begin, v[i]->name);
			ok = false;
		}
		pos = v[i]->end;
		prev = v[i];
	}
	if (ok && pos != st->datalen) {
		rt_error(e, "%s: %llu trailing bytes after the last tensor "
			 "(data area of %llu bytes, tensors end at %llu)",
			 st->path, (unsigned long long)(st->datalen - pos),
			 (unsigned long long)st->datalen,
			 (unsigned long long)pos);
		ok = false;
	}
	free(v);
	return ok;
}

/* Parses and checks the JSON header of hlen bytes at h; false + e. */
static bool
parse_header(RtSafetensors *st, const char *h, size_t hlen, RtError *e)
{
	if (hlen == 0 || h[0] != '{') {
		rt_error(e, "%s: the header is not a JSON object", st->path);
		return false;
	}
	json_error_t jerr;
	json_t *root = json_loadb(h, hlen, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		rt_error(e, "%s: bad JSON header at line %d, column %d: %s",
			 st->path, jerr.line, jerr.column, jerr.text);
		return false;
	}
	bool ok = json_is_object(root);
	if (!ok)
		rt_error(e, "%s: the header is not a JSON object", st->path);
	size_t n = ok ? json_object_size(root) : 0;
	st->ents = calloc(n + 1, sizeof *st->ents);
	st->byname = calloc(n + 1, sizeof *st->byname);
	if (ok && (!st->ents || !st->byname)) {
		rt_error(e, "out of memory");
		ok = false;
	}
	const char *k;
	json_t *v;
	if (ok)
		json_object_foreach(root, k, v) {
			if (!strcmp(k, "__metadata__"))
				ok = parse_metadata(st, v, e);
			else if ((ok = parse_entry(st, k, v, &st->ents[st->n],
						   e)))
				st->n++;
			if (!ok)
				break;
		}
	json_decref(root);
	if (!ok)
		return false;
	for (int i = 0; i < st->n; i++)
		st->byname[i] = &st->ents[i];
	qsort(st->byname, (size_t)st->n, sizeof *st->byname, cmp_entry_name);
	return check_layout(st, e);
}

/* Opens, maps and checks a safetensors file; NULL + e on any error. */
RtSafetensors *
rt_st_open(const char *path, RtError *e)
{
	RtSafetensors *st = calloc(1, sizeof *st);
	if (!st || !(st->path = dup_or_null(path))) {
		free(st);
		rt_error(e, "out of memory");
		return NULL;
	}
	st->mapping = (RtMap){.fd = -1, .slot = -1};
	uint64_t size;
	int fd = rt_open_input(path, &size, e);
	if (fd < 0)
		goto fail;
	if (size < 8) {
		rt_error(e, "%s: file too short for a safetensors header "
			 "(%llu bytes)", path, (unsigned long long)size);
		close(fd);
		goto fail;
	}
	bool mapped = rt_map_open(&st->mapping, fd, (size_t)size, path, e);
	close(fd);
	if (!mapped)
		goto fail;
	st->map = st->mapping.p;
	uint64_t hlen;
	memcpy(&hlen, st->map, 8); /* little-endian host */
	if (hlen > ST_MAX_HEADER) {
		rt_error(e, "%s: header length %llu exceeds the limit of %d "
			 "bytes", path, (unsigned long long)hlen,
			 ST_MAX_HEADER);
		goto fail;
	}
	if (hlen > size - 8) {
		rt_error(e, "%s: header length %llu runs past the end of the "
			 "file (%llu bytes)", path, (unsigned long long)hlen,
			 (unsigned long long)size);
		goto fail;
	}
	st->data = st->map + 8 + hlen;
	st->datalen = size - 8 - hlen;
	if (!parse_header(st, (const char *)st->map + 8, (size_t)hlen, e))
		goto fail;
	return st;
fail:
	rt_st_close(st);
	return NULL;
}

/* Unmaps and frees st. NULL is fine. */
void
rt_st_close(RtSafetensors *st)
{
	if (!st)
		return;
	rt_map_close(&st->mapping);
	for (int i = 0; i < st->n; i++)
		free(st->ents[i].name);
	for (int i = 0; i < 2 * st->nmeta; i++)
		free(st->meta[i]);
	free(st->meta);
	free(st->ents);
	free(st->byname);
	free(st->path);
	free(st);
}

/* Whether the file still holds what was mapped (see rt.h). */
bool
rt_st_check(const RtSafetensors *st, RtError *e)
{
	return rt_map_check(&st->mapping, st->path, e);
}

/* Number of tensors. */
int
rt_st_count(const RtSafetensors *st)
{
	return st->n;
}

/* Name of the i-th tensor in header order, NULL out of range. */
const char *
rt_st_name(const RtSafetensors *st, int i)
{
	return i >= 0 && i < st->n ? st->ents[i].name : NULL;
}

/* dtype, ndim, shape of a tensor; false if absent. */
bool
rt_st_find(const RtSafetensors *st, const char *name, DType *dt, int *ndim,
	   int64_t *shape)
{
	const StEntry *en = st_lookup(st, name);
	if (!en)
		return false;
	if (dt)
		*dt = en->dtype;
	if (ndim)
		*ndim = en->ndim;
	if (shape)
		memcpy(shape, en->shape, sizeof en->shape);
	return true;
}

/* The tensor name: a view of the mapping when aligned (and, for bool, all
 * bytes 0 or 1), else an owned aligned copy. */
RtTensor *
rt_st_load(const RtSafetensors *st, const char *name, RtError *e)
{
	const StEntry *en = st_lookup(st, name);
	if (!en) {
		rt_error(e, "%s: no tensor '%s'", st->path, name);
		return NULL;
	}
	const unsigned char *p = st->data + en->begin;
	size_t nbytes = (size_t)(en->end - en->begin);
	size_t item = (size_t)dtype_bits(en->dtype) / 8;
	bool clean = true;
	if (en->dtype == DT_BOOL)
		for (size_t i = 0; i < nbytes && clean; i++)
			clean = p[i] <= 1;
	if (clean && (uintptr_t)p % item == 0)
		return rt_tensor_borrow(en->dtype, en->ndim, en->shape,
					(void *)p, e);
	RtTensor *t = rt_tensor_new(en->dtype, en->ndim, en->shape, e);
	if (!t)
		return NULL;
	if (nbytes)
		memcpy(t->data, p, nbytes);
	if (!clean) {
		unsigned char *q = t->data;
		for (size_t i = 0; i < nbytes; i++)
			q[i] = q[i] != 0;
	}
	return t;
}

/* The tensor name read into memory of its own (from pool when it is
 * large): pread from the file, not the mapping. A short read is the file
 * truncated while it was read; NULL + e then, and when name is absent. */
RtTensor *
rt_st_read(const RtSafetensors *st, const char *name, RtBufPool *pool,
	   RtError *e)
{
	const StEntry *en = st_lookup(st, name);
	if (!en || en->dtype == DT_BOOL || st->mapping.fd < 0)
		return rt_st_load(st, name, e); /* bools: checked byte by byte */
	RtTensor *t = rt_tensor_new_in(pool, en->dtype, en->ndim, en->shape, e);
	if (!t)
		return NULL;
	int err = rt_read_at(st->mapping.fd, t->data,
			     (size_t)(en->end - en->begin),
			     (uint64_t)(st->data - st->map) + en->begin);
	if (!err)
		return t;
	if (err > 0)
		rt_error(e, "%s: cannot read: %s", st->path, strerror(err));
	else if (rt_map_check(&st->mapping, st->path, e)) /* its sizes */
		rt_error(e, "%s: the file was truncated while it was read",
			 st->path);
	rt_tensor_free(t);
	return NULL;
}

/* Number of `__metadata__` entries. */
int
rt_st_meta_count(const RtSafetensors *st)
{
	return st->nmeta;
}

/* Key of the i-th metadata entry, NULL out of range. */
const char *
rt_st_meta_key(const RtSafetensors *st, int i)
{
	return i >= 0 && i < st->nmeta ? st->meta[2 * i] : NULL;
}

/* Value of the i-th metadata entry, NULL out of range. */
const char *
rt_st_meta_value(const RtSafetensors *st, int i)
{
	return i >= 0 && i < st->nmeta ? st->meta[2 * i + 1] : NULL;
}

/* Metadata value of key, NULL if absent. */
const char *
rt_st_meta_get(const RtSafetensors *st, const char *key)
{
	for (int i = 0; i < st->nmeta; i++)
		if (!strcmp(st->meta[2 * i], key))
			return st->meta[2 * i + 1];
	return NULL;
}

/* ----------------------------------------------------------------- writer */

/* The JSON header for the tensors, data laid out in order ord; NULL + e. */
static char *
build_header(const char *path, const char *const *names,
	     const RtTensor *const *tensors, int n, const char *const *meta,
	     int nmeta, const int *ord, RtError *e)
{
	uint64_t *off = calloc((size_t)n + 1, sizeof *off);
	json_t *root = json_object();
	char *s = NULL;
	if (!off || !root) {
		rt_error(e, "out of memory");
		goto done;
	}
	if (nmeta > 0) {
		json_t *m = json_object();
		json_object_set_new(root, "__metadata__", m);
		for (int i = 0; i < nmeta; i++)
			if (!meta[2 * i] || !meta[2 * i + 1] ||
			    json_object_set_new(m, meta[2 * i],
						json_string(meta[2 * i + 1]))) {
				rt_error(e, "%s: metadata entry %d is not a "
					 "pair of UTF-8 strings", path, i);
				goto done;
			}
	}
	uint64_t pos = 0;
	for (int k = 0; k < n; k++) {
		off[ord[k]] = pos;
		pos += tensors[ord[k]]->nbytes;
	}
	for (int i = 0; i < n; i++) {
		const RtTensor *t = tensors[i];
		if (!strcmp(names[i], "__metadata__") ||
		    json_object_get(root, names[i])) {
			rt_error(e, "%s: tensor name '%s' %s", path, names[i],
				 strcmp(names[i], "__metadata__")
					 ? "given twice"
					 : "is reserved");
			goto done;
		}
		json_t *rec = json_object();
		json_t *sh = json_array();
		json_t *of = json_array();
		for (int d = 0; d < t->ndim; d++)
			json_array_append_new(sh, json_integer(t->shape[d]));
		json_array_append_new(of, json_integer((json_int_t)off[i]));
		json_array_append_new(
			of, json_integer((json_int_t)(off[i] + t->nbytes)));
		json_object_set_new(rec, "dtype",
				    json_string(st_dtype_names[t->dtype]));
		json_object_set_new(rec, "shape", sh);
		json_object_set_new(rec, "data_offsets", of);
		if (json_object_set_new(root, names[i], rec)) {
			rt_error(e, "%s: tensor name '%s' is not UTF-8", path,
				 names[i]);
			goto done;
		}
	}
	s = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!s)
		rt_error(e, "%s: cannot encode the header (a name or "
			 "metadata that is not UTF-8?)", path);
done:
	json_decref(root);
	free(off);
	return s;
}

/* Writes a safetensors file without metadata. */
bool
rt_st_write(const char *path, const char *const *names,
	    const RtTensor *const *tensors, int n, RtError *e)
{
	return rt_st_write_meta(path, names, tensors, n, NULL, 0, e);
}

/* Writes a safetensors file with `__metadata__` pairs meta, atomically. */
bool
rt_st_write_meta(const char *path, const char *const *names,
		 const RtTensor *const *tensors, int n,
		 const char *const *meta, int nmeta, RtError *e)
{
	if (n < 0 || nmeta < 0) {
		rt_error(e, "%s: bad tensor count", path);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const RtTensor *t = tensors[i];
		size_t nb;
		if (!names[i] || !t || !rt_st_dtype_name(t->dtype) ||
		    !rt_size(t->dtype, t->ndim, t->shape, &nb) ||
		    nb != t->nbytes) {
			rt_error(e, "%s: tensor '%s' cannot be stored", path,
				 names[i] ? names[i] : "(null)");
			return false;
		}
	}
	/* Decreasing element size keeps every tensor aligned. */
	int *ord = malloc(sizeof *ord * ((size_t)n + 1));
	if (!ord) {
		rt_error(e, "out of memory");
		return false;
	}
	int k = 0;
	for (int bits = 64; bits >= 8; bits /= 2)
		for (int i = 0; i < n; i++)
			if (dtype_bits(tensors[i]->dtype) == bits)
				ord[k++] = i;
	char *h = build_header(path, names, tensors, n, meta, nmeta, ord, e);
	if (!h) {
		free(ord);
		return false;
	}
	size_t hlen = strlen(h);
	size_t pad = (8 - hlen % 8) % 8;
	uint64_t hl = hlen + pad;
	RtFile out;
	bool ok = rt_file_begin(&out, path, e);
	if (ok) {
		ok = rt_file_write(&out, &hl, 8, e) &&
		     rt_file_write(&out, h, hlen, e) &&
		     rt_file_write(&out, "        ", pad, e);
		for (int i = 0; i < n && ok; i++)
			ok = rt_file_write(&out, tensors[ord[i]]->data,
					   tensors[ord[i]]->nbytes, e);
		ok = rt_file_end(&out, ok, e);
	}
	free(h);
	free(ord);
	return ok;
}

/* ---------------------------------------------------------- weight sources */

/* A shard of an index, opened on first use. */
typedef struct {
	char *rel;  /* as written in the index */
	char *file; /* relative to the index's directory */
	RtSafetensors *st;
} Shard;

/* A name of the weight_map and its shard. */
typedef struct {
	char *name;
	int shard;
} WEntry;

struct RtWeights {
	char *path;
	RtCache *cache;        /* a tensor-cache directory, or NULL */
	RtSafetensors *single; /* a single file, or NULL for an index */
	Shard *shards;
	int nshards;
	WEntry *ents; /* weight_map order */
	int n;
	WEntry **byname;
	/* a tensor-parallel cache (metadata rlxTensorParallel N): the view of
	 * one rank, NAME for its NAME_shard-K records and the shared ones */
	int tp, rank;
	int *vrec;      /* view entry -> cache record */
	char **vname;   /* view entry -> name in the view */
	int nview;
	int *vsorted;   /* view entries by name */
};

/* True if s ends with suffix. */
static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* qsort order of weight entries by name. */
static int
cmp_went_name(const void *a, const void *b)
{
	const WEntry *x = *(const WEntry *const *)a;
	const WEntry *y = *(const WEntry *const *)b;
	return strcmp(x->name, y->name);
}

/* The index entry of name, NULL if none. */
static const WEntry *
w_lookup(const RtWeights *w, const char *name)
{
	WEntry key = {.name = (char *)name};
	WEntry *pk = &key;
	WEntry **p = w->n ? bsearch(&pk, w->byname, (size_t)w->n,
				    sizeof *w->byname, cmp_went_name)
			  : NULL;
	return p ? *p : NULL;
}

/* True if a shard file name stays inside the index's directory: not
 * empty, not absolute, no `..` component. */
static bool
shard_name_ok(const char *s)
{
	if (!*s || *s == '/')
		return false;
	for (const char *p = s; *p;) {
		const char *q = strchr(p, '/');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += len;
		if (*p == '/')
			p++;
	}
	return true;
}

/* The shard index for file name rel, adding it if new; -1 + e. */
static int
add_shard(RtWeights *w, const char *rel, RtError *e)
{
	for (int i = 0; i < w->nshards; i++)
		if (!strcmp(w->shards[i].rel, rel))
			return i;
	if (!shard_name_ok(rel)) {
		rt_error(e, "%s: shard file name '%s' leaves the index's "
			 "directory", w->path, rel);
		return -1;
	}
	const char *slash = strrchr(w->path, '/');
	size_t dlen = slash ? (size_t)(slash - w->path) + 1 : 0;
	size_t rlen = strlen(rel);
	Shard *sh = &w->shards[w->nshards];
	sh->rel = dup_or_null(rel);
	sh->file = malloc(dlen + rlen + 1);
	if (!sh->rel || !sh->file) {
		free(sh->rel);
		free(sh->file);
		rt_error(e, "out of memory");
		return -1;
	}
	memcpy(sh->file, w->path, dlen);
	memcpy(sh->file + dlen, rel, rlen + 1);
	return w->nshards++;
}

/* Reads a sharded-checkpoint index into w; false + e. */
static bool
open_index(RtWeights *w, RtError *e)
{
	uint64_t size;
	int fd = rt_open_input(w->path, &size, e);
	if (fd < 0)
		return false;
	if (size > ST_MAX_HEADER) {
		rt_error(e, "%s: larger than the %d bytes an index may have",
			 w->path, ST_MAX_HEADER);
		close(fd);
		return false;
	}
	json_error_t jerr;
	json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &jerr);
	close(fd);
	if (!root) {
		rt_error(e, "%s: bad JSON at line %d, column %d: %s", w->path,
			 jerr.line, jerr.column, jerr.text);
		return false;
	}
	json_t *map = json_object_get(root, "weight_map");
	json_t *meta = json_object_get(root, "metadata");
	bool ok = false;
	if (!json_is_object(root) || !json_is_object(map)) {
		rt_error(e, "%s: not a sharded-checkpoint index (no "
			 "\"weight_map\" object)", w->path);
		goto done;
	}
	if (meta && !json_is_object(meta) && !json_is_null(meta)) {
		rt_error(e, "%s: \"metadata\" is not an object", w->path);
		goto done;
	}
	size_t n = json_object_size(map);
	w->ents = calloc(n + 1, sizeof *w->ents);
	w->byname = calloc(n + 1, sizeof *w->byname);
	w->shards = calloc(n + 1, sizeof *w->shards);
	if (!w->ents || !w->byname || !w->shards) {
		rt_error(e, "out of memory");
		goto done;
	}
	const char *k;
	json_t *v;
	json_object_foreach(map, k, v) {
		if (!json_is_string(v)) {
			rt_error(e, "%s: weight_map entry '%s' is not a file "
				 "name", w->path, k);
			goto done;
		}
		int s = add_shard(w, json_string_value(v), e);
		if (s < 0)
			goto done;
		WEntry *we = &w->ents[w->n];
		if (!(we->name = dup_or_null(k))) {
			rt_error(e, "out of memory");
			goto done;
		}
		we->shard = s;
		w->byname[w->n] = we;
		w->n++;
	}
	qsort(w->byname, (size_t)w->n, sizeof *w->byname, cmp_went_name);
	ok = true;
done:
	json_decref(root);
	return ok;
}

/* The rank of a record name NAME_shard-K (K decimal, no leading zeros),
 * -1 when it has none; *base_len is the length of NAME. */
static int
shard_rank(const char *name, size_t *base_len)
{
	const char *p = strrchr(name, '_');
	if (!p || strncmp(p, "_shard-", 7) || !p[7] ||
	    (p[7] == '0' && p[8]) || p == name)
		return -1;
	long k = 0;
	for (const char *q = p + 7; *q; q++) {
		if (*q < '0' || *q > '9' || k > 1000000)
			return -1;
		k = k * 10 + (*q - '0');
	}
	*base_len = (size_t)(p - name);
	return (int)k;
}

/* qsort_r order of view entries by name. */
static int
cmp_view(const void *a, const void *b, void *ctx)
{
	char **names = ctx;
	return strcmp(names[*(const int *)a], names[*(const int *)b]);
}

static void
view_free(RtWeights *w)
{
	for (int i = 0; i < w->nview; i++)
		free(w->vname[i]);
	free(w->vname);
	free(w->vrec);
	free(w->vsorted);
	w->vname = NULL;
	w->vrec = w->vsorted = NULL;
	w->nview = 0;
}

bool
rt_weights_set_rank(RtWeights *w, int rank, RtError *e)
{
	if (!w->tp)
		return true; /* every weight is shared */
	if (rank < 0 || rank >= w->tp) {
		rt_error(e, "%s holds the weights of %d workers: there is no "
			 "worker %d", w->path, w->tp, rank);
		return false;
	}
	view_free(w);
	int n = rt_cache_count(w->cache);
	w->vrec = calloc((size_t)n + 1, sizeof *w->vrec);
	w->vname = calloc((size_t)n + 1, sizeof *w->vname);
	w->vsorted = calloc((size_t)n + 1, sizeof *w->vsorted);
	if (!w->vrec || !w->vname || !w->vsorted) {
		view_free(w);
		rt_error(e, "out of memory");
		return false;
	}
	for (int i = 0; i < n; i++) {
		const char *name = rt_cache_name(w->cache, i);
		size_t bl = 0;
		int k = shard_rank(name, &bl);
		if (k >= w->tp)
			k = -1;
		if (k >= 0 && k != rank)
			continue;
		char *vn = k >= 0 ? strndup(name, bl) : dup_or_null(name);
		if (!vn) {
			view_free(w);
			rt_error(e, "out of memory");
			return false;
		}
		w->vrec[w->nview] = i;
		w->vname[w->nview] = vn;
		w->vsorted[w->nview] = w->nview;
		w->nview++;
	}
	qsort_r(w->vsorted, (size_t)w->nview, sizeof *w->vsorted, cmp_view,
		w->vname);
	for (int i = 1; i < w->nview; i++)
		if (!strcmp(w->vname[w->vsorted[i]], w->vname[w->vsorted[i - 1]])) {
			rt_error(e, "%s: worker %d sees two records named '%s' "
				 "(one of them NAME_shard-%d)", w->path, rank,
				 w->vname[w->vsorted[i]], rank);
			view_free(w);
			return false;
		}
	w->rank = rank;
	return true;
}

int
rt_weights_tensor_parallel(const RtWeights *w)
{
	return w->tp;
}

/* The cache record of a name (through the rank's view); -1 if none. */
static int
w_rec(const RtWeights *w, const char *name)
{
	if (!w->vrec)
		return rt_cache_find(w->cache, name);
	int lo = 0, hi = w->nview - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(w->vname[w->vsorted[mid]], name);
		if (!c)
			return w->vrec[w->vsorted[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

char *
rt_weights_read_model(RtWeights *w, size_t *len, RtError *e)
{
	if (!w->cache) {
		rt_error(e, "%s: not a tensor cache: it holds no %s", w->path,
			 RT_CACHE_MODEL);
		return NULL;
	}
	return rt_cache_read_model(w->cache, len, e);
}

/* The cache's rlxTensorParallel (0 when absent); -1 + e when malformed. */
static int
cache_tp(RtWeights *w, RtError *e)
{
	json_t *meta = json_loads(rt_cache_metadata(w->cache), 0, NULL);
	json_t *v = meta ? json_object_get(meta, "rlxTensorParallel") : NULL;
	int tp = 0;
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
		  json_integer_value(v) > 1000000)) {
		rt_error(e, "%s: rlxTensorParallel is not a positive integer",
			 w->path);
		tp = -1;
	} else if (v) {
		tp = (int)json_integer_value(v);
	}
	json_decref(meta);
	return tp;
}

/* qsort order of C strings. */
static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Does dir hold the JSON of a tensor cache (new or old name)? */
static bool
is_cache_dir(const char *dir)
{
	static const char *const names[] = {"tensor-cache.json", "ndarray-cache.json"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		StrBuf b = {0};
		sb_printf(&b, "%s/%s", dir, names[i]);
		struct stat sb;
		bool found = stat(b.p, &sb) == 0;
		sb_free(&b);
		if (found)
			return true;
	}
	return false;
}

/*
 * The checkpoint of a Hugging Face model folder (a directory that is not a
 * tensor cache): its model.safetensors.index.json, else its only
 * *.safetensors.index.json, else its only *.safetensors file. A malloc'ed
 * path, or NULL + e naming what the folder holds.
 */
/* What hf_checkpoint finds in the folder. */
typedef struct {
	bool main_index; /* model.safetensors.index.json */
	Vec idx, st;     /* other *.safetensors.index.json, *.safetensors */
} HfFolder;

static bool
hf_entry(void *ctx, const char *n, bool is_dir)
{
	HfFolder *h = ctx;
	if (is_dir || n[0] == '.')
		return true;
	if (!strcmp(n, "model.safetensors.index.json"))
		h->main_index = true;
	else if (ends_with(n, ".safetensors.index.json"))
		vec_push(&h->idx, dup_or_null(n));
	else if (ends_with(n, ".safetensors"))
		vec_push(&h->st, dup_or_null(n));
	return true;
}

static char *
hf_checkpoint(const char *dir, RtError *e)
{
	HfFolder h = {0};
	bool listed = rt_dir_list(dir, hf_entry, &h, e);
	Vec idx = h.idx, st = h.st;
	bool main_index = h.main_index;
	const char *pick = main_index ? "model.safetensors.index.json"
			   : idx.n == 1 ? idx.items[0]
			   : idx.n == 0 && st.n == 1 ? st.items[0] : NULL;
	char *path = NULL;
	if (!listed) {
		/* e says why */
	} else if (pick) {
		StrBuf b = {0};
		sb_printf(&b, "%s/%s", dir, pick);
		path = sb_take(&b);
	} else {
		Vec *v = idx.n ? &idx : &st;
		qsort(v->items, (size_t)v->n, sizeof *v->items, cmp_cstr);
		StrBuf b = {0};
		for (int i = 0; i < v->n && i < 4; i++)
			sb_printf(&b, "%s%s", i ? ", " : "", (char *)v->items[i]);
		if (v->n > 4)
			sb_printf(&b, ", ... (%d in all)", v->n);
		if (v->n == 0)
			rt_error(e, "%s: not a tensor cache (no tensor-cache.json) "
				 "nor a checkpoint folder (no *.safetensors file)",
				 dir);
		else
			rt_error(e, "%s: not a tensor cache (no tensor-cache.json), "
				 "and a checkpoint folder without "
				 "model.safetensors.index.json but %d %s files (%s): "
				 "name the one to read", dir, v->n,
				 idx.n ? "*.safetensors.index.json" : ".safetensors",
				 b.p);
		sb_free(&b);
	}
	for (int i = 0; i < idx.n; i++)
		free(idx.items[i]);
	for (int i = 0; i < st.n; i++)
		free(st.items[i]);
	vec_free(&idx);
	vec_free(&st);
	return path;
}

/* Opens a weight source: a tensor-cache directory, a Hugging Face
 * checkpoint folder (hf_checkpoint), a `*.index.json` sharded checkpoint,
 * else one safetensors file. NULL + e. */
RtWeights *
rt_weights_open(const char *path, RtError *e)
{
	RtWeights *w = calloc(1, sizeof *w);
	if (!w || !(w->path = dup_or_null(path))) {
		free(w);
		rt_error(e, "out of memory");
		return NULL;
	}
	struct stat sb;
	bool ok;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && !is_cache_dir(path)) {
		char *file = hf_checkpoint(path, e);
		if (!file) {
			rt_weights_close(w);
			return NULL;
		}
		free(w->path);
		w->path = file;
		path = file;
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		w->cache = rt_cache_open(path, e);
		ok = w->cache != NULL && (w->tp = cache_tp(w, e)) >= 0;
		/* a tensor-parallel cache opens as worker 0's view */
		ok = ok && (!w->tp || rt_weights_set_rank(w, 0, e));
	} else if (ends_with(path, ".index.json")) {
		ok = open_index(w, e);
	} else {
		w->single = rt_st_open(path, e);
		ok = w->single != NULL;
	}
	if (!ok) {
		rt_weights_close(w);
		return NULL;
	}
	return w;
}

/* Closes every open shard and frees w. NULL is fine. */
void
rt_weights_close(RtWeights *w)
{
	if (!w)
		return;
	view_free(w);
	rt_st_close(w->single);
	rt_cache_close(w->cache);
	for (int i = 0; i < w->nshards; i++) {
		rt_st_close(w->shards[i].st);
		free(w->shards[i].rel);
		free(w->shards[i].file);
	}
	for (int i = 0; i < w->n; i++)
		free(w->ents[i].name);
	free(w->shards);
	free(w->ents);
	free(w->byname);
	free(w->path);
	free(w);
}

/* Whether every file read so far still holds what was mapped. */
bool
rt_weights_check(const RtWeights *w, RtError *e)
{
	if (w->single && !rt_st_check(w->single, e))
		return false;
	if (w->cache && !rt_cache_check(w->cache, e))
		return false;
	for (int i = 0; i < w->nshards; i++)
		if (w->shards[i].st && !rt_st_check(w->shards[i].st, e))
			return false;
	return true;
}

/* Number of tensor names. */
int
rt_weights_count(const RtWeights *w)
{
	if (w->vrec)
		return w->nview;
	if (w->cache)
		return rt_cache_count(w->cache);
	return w->single ? rt_st_count(w->single) : w->n;
}

/* The i-th name, NULL out of range. */
const char *
rt_weights_name(const RtWeights *w, int i)
{
	if (w->vrec)
		return i >= 0 && i < w->nview ? w->vname[i] : NULL;
	if (w->cache)
		return i >= 0 && i < rt_cache_count(w->cache)
			       ? rt_cache_name(w->cache, i)
			       : NULL;
	if (w->single)
		return rt_st_name(w->single, i);
	return i >= 0 && i < w->n ? w->ents[i].name : NULL;
}

/* True if the source names a tensor name (without opening shards). */
bool
rt_weights_has(const RtWeights *w, const char *name)
{
	if (w->cache)
		return w_rec(w, name) >= 0;
	if (w->single)
		return rt_st_find(w->single, name, NULL, NULL, NULL);
	return w_lookup(w, name) != NULL;
}

/* The open file holding name, opening its shard if needed; NULL + e. */
static RtSafetensors *
w_file(RtWeights *w, const char *name, RtError *e)
{
	if (w->single) {
		if (!rt_st_find(w->single, name, NULL, NULL, NULL)) {
			rt_error(e, "%s: no tensor '%s'", w->path, name);
			return NULL;
		}
		return w->single;
	}
	const WEntry *we = w_lookup(w, name);
	if (!we) {
		rt_error(e, "%s: no tensor '%s' in the weight_map", w->path,
			 name);
		return NULL;
	}
	Shard *sh = &w->shards[we->shard];
	if (!sh->st && !(sh->st = rt_st_open(sh->file, e)))
		return NULL;
	if (!rt_st_find(sh->st, name, NULL, NULL, NULL)) {
		rt_error(e, "%s: tensor '%s' is mapped to shard '%s', which "
			 "has no tensor of that name", w->path, name, sh->rel);
		return NULL;
	}
	return sh->st;
}

/* dtype/ndim/shape of name; false + e. */
bool
rt_weights_info(RtWeights *w, const char *name, DType *dt, int *ndim,
		int64_t *shape, RtError *e)
{
	if (w->cache) {
		int i = w_rec(w, name);
		if (i < 0) {
			rt_error(e, "%s: no record '%s'", w->path, name);
			return false;
		}
		rt_cache_info(w->cache, i, dt, ndim, shape);
		return true;
	}
	RtSafetensors *st = w_file(w, name, e);
	return st && rt_st_find(st, name, dt, ndim, shape);
}

/* The tensor name (see rt_st_load); NULL + e. */
RtTensor *
rt_weights_load(RtWeights *w, const char *name, RtError *e)
{
	if (w->cache) {
		int i = w_rec(w, name);
		if (i < 0) {
			rt_error(e, "%s: no record '%s'", w->path, name);
			return NULL;
		}
		return rt_cache_load(w->cache, i, e);
	}
	RtSafetensors *st = w_file(w, name, e);
	return st ? rt_st_load(st, name, e) : NULL;
}

/* The tensor name in memory of its own (see rt_st_read); a tensor
 * cache's records as rt_weights_load gives them. NULL + e. */
RtTensor *
rt_weights_read(RtWeights *w, const char *name, RtBufPool *pool, RtError *e)
{
	if (w->cache)
		return rt_weights_load(w, name, e);
	RtSafetensors *st = w_file(w, name, e);
	return st ? rt_st_read(st, name, pool, e) : NULL;
}

/* True if name is a shape-tuple record of a tensor cache. */
bool
rt_weights_is_shape(const RtWeights *w, const char *name)
{
	int i = w->cache ? w_rec(w, name) : -1;
	return i >= 0 && rt_cache_is_shape(w->cache, i);
}

/* The values of the shape record name; false + e. */
bool
rt_weights_load_shape(RtWeights *w, const char *name, int64_t *out, int *n,
		      RtError *e)
{
	int i = w->cache ? w_rec(w, name) : -1;
	if (i < 0 || !rt_cache_is_shape(w->cache, i)) {
		rt_error(e, "%s: no shape tuple '%s'", w->path, name);
		return false;
	}
	return rt_cache_load_shape(w->cache, i, out, n, e);
}
