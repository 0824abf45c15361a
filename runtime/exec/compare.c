/*
 * compare.c — whether two run-time values agree, as `rlx verify` decides it:
 * the same kinds, tuple arities, shapes and dtypes, shape tuples equal,
 * integers exact, floats within the dtype's tolerance relative to the
 * reference (an element passes when |a - b| <= tol * (|b| + max|b|):
 * a max rel diff above tol can pass next to larger elements, and the
 * line says which rule passed),
 * NaN only where the reference has NaN, infinities equal. One line per
 * compared tensor, shape tuple or scalar is written to `out`.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_exec.h"

double
rt_tolerance(DType dt)
{
	switch (dt) {
	case DT_F32: return 1e-5;
	case DT_F64: return 1e-12;
	case DT_F16:
	case DT_BF16: return 1e-2;
	case DT_F8E4M3: return 0.125; /* 3 significand bits: 2^-3 */
	case DT_F8E5M2: return 0.25;
	default: return 0;
	}
}

/* Element i of t as a double. */
static double
elem_f64(const RtTensor *t, int64_t i)
{
	switch (t->dtype) {
	case DT_F32: return ((const float *)t->data)[i];
	case DT_F64: return ((const double *)t->data)[i];
	case DT_F16: return rt_f16_to_f32(((const uint16_t *)t->data)[i]);
	case DT_BF16: return rt_bf16_to_f32(((const uint16_t *)t->data)[i]);
	case DT_I8: return ((const int8_t *)t->data)[i];
	case DT_I16: return ((const int16_t *)t->data)[i];
	case DT_I32: return ((const int32_t *)t->data)[i];
	case DT_I64: return (double)((const int64_t *)t->data)[i];
	case DT_U8: return ((const uint8_t *)t->data)[i];
	case DT_U16: return ((const uint16_t *)t->data)[i];
	case DT_U32: return ((const uint32_t *)t->data)[i];
	case DT_U64: return (double)((const uint64_t *)t->data)[i];
	case DT_F8E4M3:
	case DT_F8E5M2:
		return dtype_f8_decode(t->dtype, ((const uint8_t *)t->data)[i]);
	case DT_BOOL: return ((const uint8_t *)t->data)[i];
	default: return 0;
	}
}

static bool
compare_tensor(const char *label, const RtTensor *ta, const RtTensor *tb,
	       FILE *out)
{
	StrBuf ba = {0}, bb = {0};
	rt_type_text(&ba, ta->dtype, ta->ndim, ta->shape);
	rt_type_text(&bb, tb->dtype, tb->ndim, tb->shape);
	char sa[160];
	snprintf(sa, sizeof sa, "%s", ba.p);
	bool same = !strcmp(ba.p, bb.p);
	if (!same)
		fprintf(out, "%s: %s vs %s\n", label, ba.p, bb.p);
	sb_free(&ba);
	sb_free(&bb);
	if (!same)
		return false;
	int64_t n = rt_numel(ta);
	double maxref = 0, maxabs = 0, maxrel = 0, worst = 0;
	double tol = rt_tolerance(ta->dtype);
	for (int64_t i = 0; i < n; i++) {
		double y = fabs(elem_f64(tb, i));
		if (isfinite(y) && y > maxref)
			maxref = y;
	}
	bool ok = true;
	for (int64_t i = 0; i < n; i++) {
		double x = elem_f64(ta, i), y = elem_f64(tb, i);
		if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) {
			if (!((isnan(x) && isnan(y)) || x == y)) {
				ok = false;
				maxabs = INFINITY;
			}
			continue;
		}
		double d = fabs(x - y);
		if (d > maxabs)
			maxabs = d;
		double r = d / fmax(fabs(y), 1e-30);
		if (d > 0 && r > maxrel)
			maxrel = r;
		/* the rule: |a - b| <= tol * (|b| + max|b|); worst is the
		 * largest share of its bound an element uses */
		double bound = tol * (fabs(y) + maxref);
		if (d > bound)
			ok = false;
		if (d > 0 && bound > 0 && d / bound > worst)
			worst = d / bound;
	}
	if (maxabs == 0 && ok)
		fprintf(out, "%s %s: max abs diff 0: equal, ok\n", label, sa);
	else if (tol == 0)
		fprintf(out, "%s %s: max abs diff %.3g: %s\n", label, sa, maxabs,
			ok ? "ok" : "MISMATCH (integers must be equal)");
	else if (ok)
		fprintf(out, "%s %s: max abs diff %.3g, max rel diff %.3g: within "
			"|a - b| <= %g * (|b| + max|b|), the worst element at "
			"%.0f%% of its bound, ok\n", label, sa, maxabs, maxrel,
			tol, 100 * worst);
	else
		fprintf(out, "%s %s: max abs diff %.3g, max rel diff %.3g: "
			"MISMATCH, outside |a - b| <= %g * (|b| + max|b|)\n",
			label, sa, maxabs, maxrel, tol);
	return ok;
}

bool
rt_value_compare(const char *label, const RtValue *a, const RtValue *b,
		 FILE *out)
{
	if (a->kind != b->kind) {
		fprintf(out, "%s: different kinds of value\n", label);
		return false;
	}
	switch (a->kind) {
	case RV_TUPLE: {
		if (a->n != b->n) {
			fprintf(out, "%s: tuples of %d and %d fields\n", label,
				a->n, b->n);
			return false;
		}
		bool ok = true;
		for (int i = 0; i < a->n; i++) {
			char sub[256];
			snprintf(sub, sizeof sub, "%s.%d", label, i);
			ok &= rt_value_compare(sub, a->fields[i], b->fields[i], out);
		}
		return ok;
	}
	case RV_SHAPE: {
		bool ok = a->n == b->n;
		for (int i = 0; ok && i < a->n; i++)
			ok = a->values[i] == b->values[i];
		fprintf(out, "%s: shape tuple %s\n", label, ok ? "equal" : "DIFFERS");
		return ok;
	}
	case RV_PRIM: {
		double x = a->f + (double)a->i, y = b->f + (double)b->i;
		double d = fabs(x - y);
		bool ok = a->dtype == b->dtype &&
			  (d <= rt_tolerance(a->dtype) * fabs(y) ||
			   (isnan(x) && isnan(y)));
		fprintf(out, "%s: scalar, abs diff %g %s\n", label, d,
			ok ? "ok" : "MISMATCH");
		return ok;
	}
	case RV_TENSOR:
		return compare_tensor(label, a->t, b->t, out);
	}
	return false;
}
