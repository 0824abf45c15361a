/*
 * value.c — run-time values and their files: a value read from a .npy for
 * a parameter's annotation (the one `--input` reader of run and verify:
 * shape tuples from 1-d int64 arrays, scalars from 0-d arrays, bfloat16
 * from float32 arrays), a value written as .npy (a tuple as a directory),
 * a value printed, and the one shape formatter of messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "rt_exec.h"

void
rt_shape_text(StrBuf *b, int ndim, const int64_t *shape)
{
	sb_putc(b, '(');
	for (int i = 0; i < ndim; i++)
		sb_printf(b, "%s%lld", i ? ", " : "", (long long)shape[i]);
	sb_puts(b, ndim == 1 ? ",)" : ")");
}

void
rt_type_text(StrBuf *b, DType dt, int ndim, const int64_t *shape)
{
	rt_shape_text(b, ndim, shape);
	sb_printf(b, " %s", dtype_name(dt));
}

bool
rt_annot_matches(const char *what, const SInfo *si, DType dt, int ndim,
		 const int64_t *shape, RtError *e)
{
	bool ok = si->kind == SI_TENSOR;
	if (ok && si->dtype != DT_UNKNOWN && si->dtype != dt)
		ok = false;
	if (ok && si->ndim >= 0 && si->ndim != ndim)
		ok = false;
	for (int i = 0; ok && si->shape && i < si->ndim; i++)
		if (si->shape[i]->kind == PE_INT && si->shape[i]->value != shape[i])
			ok = false;
	if (ok)
		return true;
	StrBuf b = {0};
	sb_printf(&b, "%s: expected ", what);
	print_sinfo(&b, si);
	sb_puts(&b, ", got shape ");
	rt_shape_text(&b, ndim, shape);
	sb_printf(&b, " dtype %s", dtype_name(dt));
	rt_error(e, "%s", b.p);
	sb_free(&b);
	return false;
}

/* The float32 array t converted to the narrow float dt (bfloat16, a
 * float8; rounded as astype rounds); t is freed. */
static RtTensor *
to_narrow(RtTensor *t, DType dt, RtError *e)
{
	RtTensor *c = rt_tensor_new(dt, t->ndim, t->shape, e);
	if (c) {
		const float *s = t->data;
		for (int64_t i = 0; i < rt_numel(t); i++)
			rt_narrow_from_f32(dt, c->data, i, s[i]);
	}
	rt_tensor_free(t);
	return c;
}

/* A float8 input given as raw bytes: NumPy saves ml_dtypes' float8
 * arrays as the void dtype '|V1' (read here as uint8 bytes of the same
 * shape), or the user viewed them as uint8: the bytes are the float8
 * bit patterns. */
static bool
is_f8_bytes(const SInfo *si, const RtTensor *t)
{
	return si->kind == SI_TENSOR && dtype_is_float8(si->dtype) &&
	       t->dtype == DT_U8;
}

/* The 0-d array t as a scalar value of its dtype. */
static RtValue *
prim_of(const RtTensor *t)
{
	int64_t iv = 0;
	double fv = 0;
	switch (t->dtype) {
	case DT_F32: fv = *(float *)t->data; break;
	case DT_F64: fv = *(double *)t->data; break;
	case DT_F16: fv = rt_f16_to_f32(*(uint16_t *)t->data); break;
	case DT_I64: iv = *(int64_t *)t->data; break;
	case DT_I32: iv = *(int32_t *)t->data; break;
	case DT_I16: iv = *(int16_t *)t->data; break;
	case DT_I8: iv = *(int8_t *)t->data; break;
	case DT_U16: iv = *(uint16_t *)t->data; break;
	case DT_U32: iv = *(uint32_t *)t->data; break;
	case DT_U64: iv = (int64_t)*(uint64_t *)t->data; break;
	default: iv = *(uint8_t *)t->data; break;
	}
	if (dtype_is_float(t->dtype))
		iv = (int64_t)fv;
	else
		fv = (double)iv;
	return rt_value_prim(t->dtype, iv, fv);
}

RtValue *
rt_value_read_npy(const char *name, const SInfo *si, const char *path,
		  RtError *e)
{
	RtError re;
	RtTensor *t = rt_npy_read(path, &re);
	if (!t) {
		rt_error(e, "input '%s': %s", name, re.msg);
		return NULL;
	}
	return rt_value_from_npy(name, si, t, path, e);
}

RtValue *
rt_value_from_npy(const char *name, const SInfo *si, RtTensor *t,
		  const char *path, RtError *e)
{
	RtError re;
	char what[512];
	snprintf(what, sizeof what, "input '%s' (%s)", name, path);
	RtValue *v = NULL;
	if (si->kind == SI_SHAPE) {
		if (t->dtype != DT_I64 || t->ndim != 1 ||
		    (si->ndim >= 0 && si->ndim != t->shape[0]))
			rt_error(e, "%s: expected a 1-d int64 array of %d values "
				 "for an R.Shape, got %s of %d dimensions", what,
				 si->ndim, dtype_name(t->dtype), t->ndim);
		else
			v = rt_value_shape(t->data, (int)t->shape[0]);
	} else if (si->kind == SI_PRIM) {
		if (t->ndim != 0 || (si->dtype != DT_UNKNOWN && si->dtype != t->dtype))
			rt_error(e, "%s: expected a 0-d %s array for an R.Prim, got "
				 "%s of %d dimensions", what, dtype_name(si->dtype),
				 dtype_name(t->dtype), t->ndim);
		else
			v = prim_of(t);
	} else if (si->kind != SI_TENSOR && si->kind != SI_OBJECT) {
		rt_error(e, "%s: a .npy file cannot give a value of this type",
			 what);
	} else {
		if (si->kind == SI_TENSOR &&
		    (si->dtype == DT_BF16 || dtype_is_float8(si->dtype)) &&
		    t->dtype == DT_F32 && !(t = to_narrow(t, si->dtype, &re))) {
			rt_error(e, "%s: %s", what, re.msg);
			return NULL;
		}
		if (is_f8_bytes(si, t))
			t->dtype = si->dtype;
		if (si->kind == SI_TENSOR &&
		    !rt_annot_matches(what, si, t->dtype, t->ndim, t->shape, e)) {
			rt_tensor_free(t);
			return NULL;
		}
		return rt_value_tensor(t);
	}
	rt_tensor_free(t);
	return v;
}

RtTensor *
rt_value_npy_tensor(const RtValue *v, RtError *e)
{
	if (v->kind == RV_SHAPE) {
		int64_t n = v->n;
		RtTensor *t = rt_tensor_new(DT_I64, 1, &n, e);
		if (t && v->n)
			memcpy(t->data, v->values, sizeof *v->values * (size_t)v->n);
		return t;
	}
	if (v->kind == RV_PRIM) {
		DType dt = v->dtype == DT_UNKNOWN || v->dtype == DT_BF16 ||
				   dtype_is_float8(v->dtype) ? DT_F32 : v->dtype;
		RtTensor *t = rt_tensor_new(dt, 0, NULL, e);
		if (!t)
			return NULL;
		switch (dt) {
		case DT_F32: *(float *)t->data = (float)v->f; break;
		case DT_F64: *(double *)t->data = v->f; break;
		case DT_F16: *(uint16_t *)t->data = rt_f32_to_f16((float)v->f); break;
		case DT_I64: *(int64_t *)t->data = v->i; break;
		case DT_I32: *(int32_t *)t->data = (int32_t)v->i; break;
		case DT_I16: *(int16_t *)t->data = (int16_t)v->i; break;
		case DT_I8: *(int8_t *)t->data = (int8_t)v->i; break;
		case DT_U16: *(uint16_t *)t->data = (uint16_t)v->i; break;
		case DT_U32: *(uint32_t *)t->data = (uint32_t)v->i; break;
		case DT_U64: *(uint64_t *)t->data = (uint64_t)v->i; break;
		default: *(uint8_t *)t->data = (uint8_t)v->i; break;
		}
		return t;
	}
	const RtTensor *s = v->t;
	if (s->dtype == DT_BF16 || dtype_is_float8(s->dtype)) {
		/* .npy has no bfloat16 nor float8: float32, exact */
		RtTensor *t = rt_tensor_new(DT_F32, s->ndim, s->shape, e);
		if (!t)
			return NULL;
		float *dst = t->data;
		for (int64_t i = 0; i < rt_numel(s); i++)
			dst[i] = rt_narrow_to_f32(s->dtype, s->data, i);
		return t;
	}
	return rt_tensor_borrow(s->dtype, s->ndim, s->shape, s->data, e);
}

char *
rt_field_path(const char *dir, int k, bool is_tuple)
{
	StrBuf b = {0};
	sb_printf(&b, "%s/%d%s", dir, k, is_tuple ? "" : ".npy");
	return sb_take(&b);
}

bool
rt_value_write(const char *path, const RtValue *v, RtError *e)
{
	if (v->kind == RV_TUPLE) {
		if (mkdir(path, 0777) != 0) {
			rt_error(e, "cannot create %s: %s", path, strerror(errno));
			return false;
		}
		for (int k = 0; k < v->n; k++) {
			char *sub = rt_field_path(path, k,
						  v->fields[k]->kind == RV_TUPLE);
			bool ok = rt_value_write(sub, v->fields[k], e);
			free(sub);
			if (!ok)
				return false;
		}
		return true;
	}
	RtError we;
	RtTensor *t = rt_value_npy_tensor(v, &we);
	bool ok = t && rt_npy_write(path, t, &we);
	if (!ok)
		rt_error(e, "cannot write %s: %s", path, we.msg);
	rt_tensor_free(t);
	return ok;
}

void
rt_result_field_names(const Func *f, const char **names, int n)
{
	for (int k = 0; k < n; k++)
		names[k] = NULL;
	const Expr *r = f->body ? f->body->seq.body : NULL;
	if (r && r->kind == E_VAR) { /* gv = (a, b); return gv */
		const Expr *seq = f->body, *bound = NULL;
		for (int i = 0; i < seq->seq.nblocks; i++)
			for (int j = 0; j < seq->seq.blocks[i]->n; j++) {
				const Binding *b = seq->seq.blocks[i]->bindings[j];
				if (b->var == r->var && !b->cast)
					bound = b->value;
			}
		r = bound;
	}
	if (!r || r->kind != E_TUPLE)
		return;
	for (int k = 0; k < n && k < r->tuple.n; k++)
		if (r->tuple.items[k]->kind == E_VAR)
			names[k] = r->tuple.items[k]->var->name;
}

bool
rt_write_fields_manifest(const char *dir, const char *const *names,
			 const bool *is_tuple, int n, RtError *e)
{
	json_t *fields = json_array(), *doc = json_object();
	for (int k = 0; k < n; k++) {
		json_t *f = json_object();
		char path[32];
		snprintf(path, sizeof path, "%d%s", k, is_tuple[k] ? "" : ".npy");
		json_object_set_new(f, "index", json_integer(k));
		json_object_set_new(f, "path", json_string(path));
		json_object_set_new(f, "name", names[k] ? json_string(names[k])
							: json_null());
		json_array_append_new(fields, f);
	}
	json_object_set_new(doc, "fields", fields);
	StrBuf b = {0};
	sb_printf(&b, "%s/fields.json", dir);
	bool ok = json_dump_file(doc, b.p, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0;
	if (!ok)
		rt_error(e, "cannot write %s: %s", b.p, strerror(errno));
	sb_free(&b);
	json_decref(doc);
	return ok;
}

/* One element of t as text. */
static void
print_elem(StrBuf *b, const RtTensor *t, int64_t i)
{
	const void *d = t->data;
	switch (t->dtype) {
	case DT_BOOL: sb_puts(b, ((const uint8_t *)d)[i] ? "True" : "False"); break;
	case DT_I8: sb_printf(b, "%d", ((const int8_t *)d)[i]); break;
	case DT_I16: sb_printf(b, "%d", ((const int16_t *)d)[i]); break;
	case DT_I32: sb_printf(b, "%d", ((const int32_t *)d)[i]); break;
	case DT_I64: sb_printf(b, "%lld", (long long)((const int64_t *)d)[i]); break;
	case DT_U8: sb_printf(b, "%u", ((const uint8_t *)d)[i]); break;
	case DT_U16: sb_printf(b, "%u", ((const uint16_t *)d)[i]); break;
	case DT_U32: sb_printf(b, "%u", ((const uint32_t *)d)[i]); break;
	case DT_U64: sb_printf(b, "%llu", (unsigned long long)((const uint64_t *)d)[i]); break;
	case DT_F8E4M3: case DT_F8E5M2:
		sb_printf(b, "%.6g", rt_narrow_to_f32(t->dtype, d, i));
		break;
	case DT_F16: sb_printf(b, "%.6g", rt_f16_to_f32(((const uint16_t *)d)[i])); break;
	case DT_BF16: sb_printf(b, "%.6g", rt_bf16_to_f32(((const uint16_t *)d)[i])); break;
	case DT_F32: sb_printf(b, "%.8g", ((const float *)d)[i]); break;
	case DT_F64: sb_printf(b, "%.17g", ((const double *)d)[i]); break;
	default: sb_puts(b, "?"); break;
	}
}

/* Nested lists of t's elements from dimension dim at offset *i. */
static void
print_nested(StrBuf *b, const RtTensor *t, int dim, int64_t *i)
{
	if (dim == t->ndim) {
		print_elem(b, t, (*i)++);
		return;
	}
	sb_putc(b, '[');
	for (int64_t k = 0; k < t->shape[dim]; k++) {
		if (k)
			sb_puts(b, ", ");
		print_nested(b, t, dim + 1, i);
	}
	sb_putc(b, ']');
}

void
rt_value_print(StrBuf *b, const char *name, const RtValue *v)
{
	switch (v->kind) {
	case RV_TUPLE:
		for (int k = 0; k < v->n; k++) {
			char sub[256];
			snprintf(sub, sizeof sub, "%s[%d]", name, k);
			rt_value_print(b, sub, v->fields[k]);
		}
		return;
	case RV_SHAPE:
		sb_printf(b, "%s: shape ", name);
		rt_shape_text(b, v->n, v->values);
		sb_putc(b, '\n');
		return;
	case RV_PRIM:
		if (dtype_is_float(v->dtype))
			sb_printf(b, "%s: %s %.17g\n", name, dtype_name(v->dtype), v->f);
		else
			sb_printf(b, "%s: %s %lld\n", name, dtype_name(v->dtype),
				  (long long)v->i);
		return;
	case RV_TENSOR:
		break;
	}
	sb_printf(b, "%s: %s ", name, dtype_name(v->t->dtype));
	rt_shape_text(b, v->t->ndim, v->t->shape);
	if (rt_numel(v->t) <= 1000) {
		int64_t i = 0;
		sb_putc(b, '\n');
		print_nested(b, v->t, 0, &i);
	} else {
		sb_puts(b, " (too large to print; use -o)");
	}
	sb_putc(b, '\n');
}
