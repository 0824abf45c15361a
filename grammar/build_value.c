/*
 * build_value.c — the builder's values: literals, names, tuples, calls of
 * functions and of ops (arguments matched against the op table's
 * signatures, attributes converted), normalized to A-normal form (call
 * arguments are leaves; other values bound to fresh lv vars).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

static bool conv_index_map(B *b, const OpParam *q, Syn *v, const char *fname,
			   AttrVal *out);

/* --------------------------------------------------------------- values */

/* Little-endian IEEE half of d (round to nearest even). */
static uint16_t
f16_bits(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
	int fexp = (int)((x >> 23) & 0xff);
	if (fexp == 0xff)
		return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	int exp = fexp - 127 + 15;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000;
		int shift = 14 - exp;
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
	uint32_t rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

/* bfloat16 of d (round to nearest even). */
static uint16_t
bf16_bits(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	if (isnan(f))
		return (uint16_t)(((x >> 16) & 0x8000) | 0x7fc0);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* Stores element i of value (iv when integral, else fv) as dtype t. */
static void
put_elem(void *data, size_t i, DType t, int64_t iv, double fv, bool isf)
{
	double d = isf ? fv : (double)iv;
	switch (t) {
	case DT_BOOL: ((uint8_t *)data)[i] = isf ? fv != 0 : iv != 0; break;
	case DT_I8: ((int8_t *)data)[i] = (int8_t)iv; break;
	case DT_I16: ((int16_t *)data)[i] = (int16_t)iv; break;
	case DT_I32: ((int32_t *)data)[i] = (int32_t)iv; break;
	case DT_I64: ((int64_t *)data)[i] = iv; break;
	case DT_U8: ((uint8_t *)data)[i] = (uint8_t)iv; break;
	case DT_U16: ((uint16_t *)data)[i] = (uint16_t)iv; break;
	case DT_U32: ((uint32_t *)data)[i] = (uint32_t)iv; break;
	case DT_U64: ((uint64_t *)data)[i] = (uint64_t)iv; break;
	case DT_F8E4M3:
	case DT_F8E5M2: ((uint8_t *)data)[i] = dtype_f8_encode(t, d); break;
	case DT_F16: ((uint16_t *)data)[i] = f16_bits(d); break;
	case DT_BF16: ((uint16_t *)data)[i] = bf16_bits(d); break;
	case DT_F32:
		/* Beyond float's range the conversion is undefined: infinity,
		 * as IEEE rounding (and numpy) gives. */
		((float *)data)[i] = fabs(d) >= 0x1.ffffffp127 && !isnan(d)
					     ? (float)copysign(INFINITY, d)
					     : (float)d;
		break;
	case DT_F64: ((double *)data)[i] = d; break;
	default: ir_bug("bad constant dtype %d", (int)t);
	}
}

/* Whether the integer v fits in the integer dtype t (any v for others:
 * bool takes v != 0, floats round). */
static bool
int_fits(DType t, int64_t v)
{
	switch (t) {
	case DT_I8: return v >= INT8_MIN && v <= INT8_MAX;
	case DT_I16: return v >= INT16_MIN && v <= INT16_MAX;
	case DT_I32: return v >= INT32_MIN && v <= INT32_MAX;
	case DT_U8: return v >= 0 && v <= UINT8_MAX;
	case DT_U16: return v >= 0 && v <= UINT16_MAX;
	case DT_U32: return v >= 0 && v <= UINT32_MAX;
	case DT_U64: return v >= 0;
	default: return true;
	}
}

/* Elements of a constant while it is read. */
/* Elements a NumPy constructor in the text may make (np.zeros((1 << 40,))
 * is a few bytes of text): what a constant in a model needs, bounded. */
enum { NP_MAX_ELEMS = 1 << 20 };

/* A scalar of a constant: an integer (i), a float (d, isf) or a bool. */
typedef struct {
	int64_t i;
	double d;
	bool isf, isbool;
	Span span;
} CNum;

/* A constant as read: its shape, its scalars in row-major order, and the
 * dtype NumPy gives it (DT_UNKNOWN for a Python list: relax.const's
 * rule, int32 or float32, applies). */
typedef struct {
	int64_t shape[8];
	int ndim;
	CNum *v;
	int64_t n, cap;
	DType np;
} ConstRead;

static bool
const_push(B *b, ConstRead *cr, CNum c)
{
	if (cr->n == cr->cap) {
		int64_t cap = cr->cap ? 2 * cr->cap : 16;
		CNum *v = realloc(cr->v, sizeof *v * (size_t)cap);
		if (!v) {
			diag_error(b->d, c.span, "out of memory");
			return false;
		}
		cr->v = v;
		cr->cap = cap;
	}
	cr->v[cr->n++] = c;
	return true;
}

/* The number of elements of shape, or -1 above 2^31 (a constant written
 * out in the text is small). */
static int64_t
const_count(const int64_t *shape, int ndim)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0 || (shape[i] && n > (INT64_C(1) << 31) / shape[i]))
			return -1;
		n *= shape[i];
	}
	return n;
}

/* Whether x names a NumPy attribute (np.NAME or numpy.NAME): its name. */
static const char *
np_attr(const Syn *x)
{
	return x->kind == X_ATTR && x->a->kind == X_NAME &&
			       (!strcmp(x->a->s, "np") || !strcmp(x->a->s, "numpy"))
		       ? x->s
		       : NULL;
}

/* A NumPy dtype: np.float32, "float32", np.dtype("float32"). */
static bool
np_dtype(B *b, Syn *x, DType *out)
{
	if (x->kind == X_CALL && x->n == 1 && np_attr(x->a) &&
	    !strcmp(np_attr(x->a), "dtype"))
		x = x->items;
	const char *n = x->kind == X_STR ? x->s : np_attr(x);
	if (n && !strcmp(n, "bool_"))
		n = "bool";
	if (n && dtype_parse(n, out) && *out != DT_UNKNOWN)
		return true;
	diag_error(b->d, x->span, "expected a NumPy dtype (np.float32 or \"float32\")");
	return false;
}

/* A scalar of a constant: a number, True/False, np.finfo(DT).min/max/eps,
 * or +, -, *, /, // of them (Python's arithmetic). False (nothing
 * reported) for anything else. */
static bool
const_scalar(const Syn *x, CNum *c)
{
	*c = (CNum){.span = x->span};
	if (x->kind == X_TRUE || x->kind == X_FALSE) {
		c->isbool = true;
		c->i = x->kind == X_TRUE;
		return true;
	}
	if (bld_int_lit(x, &c->i))
		return true;
	if (x->kind != X_NEG && bld_num_lit(x, &c->d, &c->isf))
		return true; /* a float: the ints are bld_int_lit's */
	if (x->kind == X_ATTR && x->a->kind == X_CALL && np_attr(x->a->a) &&
	    !strcmp(np_attr(x->a->a), "finfo") && x->a->n == 1) {
		const char *t = np_attr(x->a->items);
		bool f16 = t && !strcmp(t, "float16"), f32 = t && !strcmp(t, "float32"),
		     f64 = t && !strcmp(t, "float64");
		double mx = f16 ? 65504.0 : f32 ? (double)FLT_MAX : DBL_MAX;
		double eps = f16 ? 0x1p-10 : f32 ? (double)FLT_EPSILON : DBL_EPSILON;
		if (!(f16 || f32 || f64))
			return false;
		c->isf = true;
		c->d = !strcmp(x->s, "max") ? mx : !strcmp(x->s, "min") ? -mx
		     : !strcmp(x->s, "eps") ? eps : NAN;
		return !isnan(c->d);
	}
	CNum l, r;
	if (x->kind == X_NEG) {
		if (!const_scalar(x->a, &l) || l.isbool)
			return false;
		if (!l.isf && l.i == INT64_MIN)
			return false; /* beyond int64, as the sums below */
		*c = l;
		c->span = x->span;
		c->i = -l.i;
		c->d = -l.d;
		return true;
	}
	if (x->kind != X_BIN || !const_scalar(x->a, &l) || !const_scalar(x->b, &r) ||
	    l.isbool || r.isbool)
		return false;
	bool isf = l.isf || r.isf || x->op == SYN_TRUEDIV;
	double a = l.isf ? l.d : (double)l.i, bb = r.isf ? r.d : (double)r.i;
	c->isf = isf;
	if (isf) {
		switch (x->op) {
		case PE_ADD: c->d = a + bb; return true;
		case PE_SUB: c->d = a - bb; return true;
		case PE_MUL: c->d = a * bb; return true;
		case SYN_TRUEDIV: c->d = a / bb; return bb != 0; /* Python raises */
		case PE_FLOORDIV: c->d = floor(a / bb); return bb != 0;
		default: return false;
		}
	}
	/* ints: a result beyond int64 is refused (Python's would not fit) */
	switch (x->op) {
	case PE_ADD: return !__builtin_add_overflow(l.i, r.i, &c->i);
	case PE_SUB: return !__builtin_sub_overflow(l.i, r.i, &c->i);
	case PE_MUL: return !__builtin_mul_overflow(l.i, r.i, &c->i);
	case PE_FLOORDIV:
		if (r.i == 0 || (l.i == INT64_MIN && r.i == -1))
			return false;
		c->i = l.i / r.i - ((l.i % r.i) && ((l.i < 0) != (r.i < 0)));
		return true;
	default: return false;
	}
}

/* Checks that v is a nested list of the shape and collects its scalars. */
static bool
const_flatten(B *b, Syn *v, int level, ConstRead *cr)
{
	if (level < cr->ndim) {
		if ((v->kind != X_LIST && v->kind != X_TUPLE) ||
		    v->n != cr->shape[level]) {
			diag_error(b->d, v->span,
				   "constant is not a rectangular nested list");
			return false;
		}
		for (Syn *y = v->items; y; y = y->next)
			if (!const_flatten(b, y, level + 1, cr))
				return false;
		return true;
	}
	CNum c;
	if (!const_scalar(v, &c)) {
		diag_error(b->d, v->span, "expected a number in R.const");
		return false;
	}
	return const_push(b, cr, c);
}

/* A nested list (or a scalar): its shape, then its scalars. */
static bool
const_list(B *b, Syn *x, ConstRead *cr)
{
	for (Syn *v = x; v->kind == X_LIST || v->kind == X_TUPLE; v = v->items) {
		if (cr->ndim == (int)ARRAY_LEN(cr->shape)) {
			diag_error(b->d, v->span, "constant has too many dimensions");
			return false;
		}
		cr->shape[cr->ndim++] = v->n;
		if (!v->n)
			break;
	}
	return const_flatten(b, x, 0, cr);
}

/* A shape argument of NumPy: an integer or a tuple or list of them. */
static bool
np_shape(B *b, Syn *x, ConstRead *cr)
{
	int64_t d;
	cr->ndim = 0;
	if (bld_int_lit(x, &d)) {
		cr->shape[cr->ndim++] = d;
	} else if (x->kind == X_TUPLE || x->kind == X_LIST) {
		for (Syn *y = x->items; y; y = y->next) {
			if (cr->ndim == (int)ARRAY_LEN(cr->shape) || !bld_int_lit(y, &d)) {
				diag_error(b->d, y->span, "expected an integer dimension");
				return false;
			}
			cr->shape[cr->ndim++] = d;
		}
	} else {
		diag_error(b->d, x->span, "expected a shape (an integer or a tuple of them)");
		return false;
	}
	if (const_count(cr->shape, cr->ndim) < 0) {
		diag_error(b->d, x->span, "constant too large or of a negative dimension");
		return false;
	}
	return true;
}

/* The dtype NumPy gives a list's scalars: bool, int64 or float64. */
static DType
np_infer(const ConstRead *cr)
{
	bool any_float = false, all_bool = cr->n > 0;
	for (int64_t i = 0; i < cr->n; i++) {
		any_float |= cr->v[i].isf;
		all_bool &= cr->v[i].isbool;
	}
	return any_float || !cr->n ? DT_F64 : all_bool ? DT_BOOL : DT_I64;
}

/*
 * A NumPy array written in the text, as TVM's tests build constants:
 * np.array(LIST[, dtype]), np.zeros/np.ones(SHAPE[, dtype]), np.eye(N[,
 * dtype]), np.arange(N[, dtype]), then .astype(DT) or .reshape(SHAPE);
 * tvm.runtime.tensor(...) and tvm.nd.array(...) around one. 1 when read,
 * 0 when x is none of these (nothing reported), -1 on an error.
 */
static int
np_value(B *b, Syn *x, ConstRead *cr)
{
	if (x->kind != X_CALL)
		return 0;
	Syn *f = x->a;
	const char *wrap = bld_callee_name(b, x);
	if (wrap && (!strcmp(wrap, "tvm.runtime.tensor") || !strcmp(wrap, "tvm.nd.array") ||
		     !strcmp(wrap, "tvm.runtime.ndarray.array")) && x->n == 1)
		return np_value(b, x->items, cr);
	if (f->kind == X_ATTR && !np_attr(f) &&
	    (!strcmp(f->s, "astype") || !strcmp(f->s, "reshape"))) {
		int r = np_value(b, f->a, cr);
		if (r <= 0)
			return r;
		if (!strcmp(f->s, "astype"))
			return x->n == 1 && np_dtype(b, x->items, &cr->np) ? 1 : -1;
		int64_t n = const_count(cr->shape, cr->ndim);
		ConstRead to = {0};
		if (x->n == 1 ? !np_shape(b, x->items, &to) : !np_shape(b, x, &to))
			return -1;
		if (const_count(to.shape, to.ndim) != n) {
			diag_error(b->d, x->span, "cannot reshape %lld elements to this shape",
				   (long long)n);
			return -1;
		}
		memcpy(cr->shape, to.shape, sizeof to.shape);
		cr->ndim = to.ndim;
		return 1;
	}
	const char *fn = np_attr(f);
	if (!fn)
		return 0;
	static const char *const names[] = {"object", "dtype"};
	Syn *arg[2];
	bool fill = !strcmp(fn, "zeros") || !strcmp(fn, "ones");
	if (!fill && strcmp(fn, "array") && strcmp(fn, "asarray") && strcmp(fn, "eye") &&
	    strcmp(fn, "arange"))
		return 0;
	if (!bld_match_args(b, x, fn, names, 2, arg))
		return -1;
	if (!arg[0]) {
		diag_error(b->d, x->span, "np.%s needs an argument", fn);
		return -1;
	}
	if (!strcmp(fn, "array") || !strcmp(fn, "asarray")) {
		if (!const_list(b, arg[0], cr))
			return -1;
		cr->np = np_infer(cr);
	} else {
		int64_t n = 0;
		if (fill ? !np_shape(b, arg[0], cr) : !bld_int_lit(arg[0], &n) || n < 0 ||
							      n > NP_MAX_ELEMS) {
			if (!fill)
				diag_error(b->d, arg[0]->span,
					   "expected a size from 0 to %d", NP_MAX_ELEMS);
			return -1;
		}
		if (!strcmp(fn, "eye")) {
			cr->ndim = 2;
			cr->shape[0] = cr->shape[1] = n;
		} else if (!fill) {
			cr->ndim = 1;
			cr->shape[0] = n;
		}
		int64_t total = const_count(cr->shape, cr->ndim);
		if (total > NP_MAX_ELEMS) {
			diag_error(b->d, x->span,
				   "np.%s makes %lld elements; a constant written in "
				   "the model has at most %d (make it a parameter)",
				   fn, (long long)total, NP_MAX_ELEMS);
			return -1;
		}
		for (int64_t i = 0; i < total; i++) {
			CNum c = {.span = x->span};
			c.i = !strcmp(fn, "ones") ? 1
			    : !strcmp(fn, "eye")  ? i / n == i % n
			    : !strcmp(fn, "arange") ? i : 0;
			c.d = (double)c.i;
			if (!const_push(b, cr, c))
				return -1;
		}
		cr->np = !strcmp(fn, "arange") ? DT_I64 : DT_F64;
	}
	if (arg[1] && !np_dtype(b, arg[1], &cr->np))
		return -1;
	return 1;
}

/* R.const(value, dtype): a tensor held in host memory. */
static Expr *
conv_const(B *b, Syn *x)
{
	static const char *const names[] = {"value", "dtype"};
	Syn *arg[2];
	if (!bld_match_args(b, x, "R.const", names, 2, arg))
		return NULL;
	if (!arg[0]) {
		diag_error(b->d, x->span, "R.const needs a value");
		return NULL;
	}
	ConstRead cr = {.np = DT_UNKNOWN};
	int npv = np_value(b, arg[0], &cr);
	if (npv < 0 || (!npv && !const_list(b, arg[0], &cr))) {
		free(cr.v);
		return NULL;
	}
	/* TVM's relax.const: Python ints are int32, floats float32; a NumPy
	 * array keeps its dtype, or is converted to the one given */
	DType t = cr.np;
	if (t == DT_UNKNOWN) {
		bool any_float = false, all_bool = true;
		for (int64_t i = 0; i < cr.n; i++) {
			any_float |= cr.v[i].isf;
			all_bool &= cr.v[i].isbool;
		}
		t = any_float ? DT_F32 : all_bool && cr.n ? DT_BOOL : cr.n ? DT_I32 : DT_F32;
	}
	if (arg[1] && !bld_conv_dtype(b, arg[1], &t)) {
		free(cr.v);
		return NULL;
	}
	if (t == DT_UNKNOWN) {
		diag_error(b->d, arg[1]->span, "R.const needs a known dtype");
		free(cr.v);
		return NULL;
	}
	Expr *e = ir_expr(b->m, E_CONST, x->span);
	e->cdata.dtype = t;
	e->cdata.ndim = cr.ndim;
	e->cdata.shape = arena_memdup(&b->m->arena, cr.shape,
				      sizeof(int64_t) * (size_t)cr.ndim);
	size_t esize = (size_t)(dtype_bits(t) / 8);
	e->cdata.data = arena_alloc(&b->m->arena,
				    esize * (size_t)(cr.n ? cr.n : 1));
	bool ok = true;
	for (int64_t i = 0; i < cr.n; i++) {
		CNum c = cr.v[i];
		if (c.isf && !dtype_is_float(t) && t != DT_BOOL) {
			/* NumPy's astype truncates; a list's float is refused */
			if (!npv)
				diag_error(b->d, c.span,
					   "float value in a constant of dtype %s",
					   dtype_name(t));
			else if (!(fabs(c.d) < 0x1p63))
				diag_error(b->d, c.span, "%g cannot be converted to %s",
					   c.d, dtype_name(t));
			if (!npv || !(fabs(c.d) < 0x1p63)) {
				ok = false;
				break;
			}
			c.i = (int64_t)c.d;
			c.isf = false;
		}
		if (!c.isf && !int_fits(t, c.i) && !npv) {
			diag_error(b->d, c.span,
				   "%lld is out of range for a constant of dtype %s",
				   (long long)c.i, dtype_name(t));
			ok = false;
			break;
		}
		put_elem(e->cdata.data, (size_t)i, t, c.i, c.d, c.isf);
	}
	free(cr.v);
	return ok ? e : NULL;
}

/* A prim value: numbers, T.DTYPE(v), symbolic expressions. */
Expr *
bld_conv_prim(B *b, Syn *x)
{
	Expr *e = ir_expr(b->m, E_PRIM, x->span);
	double d;
	bool isf = false;
	if (x->kind == X_TRUE || x->kind == X_FALSE) {
		e->prim.dtype = DT_BOOL;
		e->prim.value = pe_int(&b->m->arena, x->kind == X_TRUE);
		return e;
	}
	if (x->kind == X_CALL && x->a->kind == X_ATTR &&
	    x->a->a->kind == X_NAME && !strcmp(x->a->a->s, "T") &&
	    !bld_is_named(x, "T.min") && !bld_is_named(x, "T.max")) {
		DType t;
		if (!dtype_parse(x->a->s, &t) || t == DT_UNKNOWN) {
			diag_error(b->d, x->a->span, "unknown dtype '%s'", x->a->s);
			return NULL;
		}
		if (x->n != 1 || x->items->kind == X_KWARG) {
			diag_error(b->d, x->span, "T.%s takes one value",
				   x->a->s);
			return NULL;
		}
		e->prim.dtype = t;
		x = x->items;
		if (dtype_is_float(t)) {
			char *end = NULL;
			if (x->kind == X_STR) { /* T.float64("inf"), as TVM prints it */
				d = strtod(x->s, &end);
				if (*x->s && !*end && (isinf(d) || isnan(d))) {
					e->prim.f = d;
					return e;
				}
			}
			if (!bld_num_lit(x, &d, &isf)) {
				diag_error(b->d, x->span, "expected a number");
				return NULL;
			}
			e->prim.f = d;
			return e;
		}
		if (t == DT_BOOL && (x->kind == X_TRUE || x->kind == X_FALSE)) {
			e->prim.value = pe_int(&b->m->arena, x->kind == X_TRUE);
			return e;
		}
	} else if (bld_num_lit(x, &d, &isf) && isf) {
		e->prim.dtype = DT_F32;
		e->prim.f = d;
		return e;
	} else {
		e->prim.dtype = DT_I64;
	}
	e->prim.value = bld_conv_dim(b, x, false);
	if (e->prim.value && PE_IS_CMP(e->prim.value->kind))
		e->prim.dtype = DT_BOOL; /* R.prim_value(n % 16 == 0) */
	return e->prim.value ? e : NULL;
}

/* An E_SHAPE of a list or tuple of dimensions. */
static Expr *
conv_shape_value(B *b, Syn *list, Span sp)
{
	if (list->kind != X_LIST && list->kind != X_TUPLE) {
		diag_error(b->d, list->span, "expected a list of dimensions");
		return NULL;
	}
	bool ok = true;
	Expr *e = ir_expr(b->m, E_SHAPE, sp);
	e->shape.values = bld_conv_dims(b, list, false, &e->shape.n, &ok);
	return ok ? e : NULL;
}

/* The single positional argument of a builtin call. */
Syn *
bld_one_arg(B *b, Syn *x, const char *fname)
{
	if (x->n != 1 || x->items->kind == X_KWARG) {
		diag_error(b->d, x->span, "%s takes one positional argument",
			   fname);
		return NULL;
	}
	return x->items;
}

/* The error of an attribute argument of the wrong form: "argument 'q' of
 * fname must be WANT", at v; false. */
static bool
attr_wrong(B *b, const OpParam *q, Syn *v, const char *fname, const char *want)
{
	diag_error(b->d, v->span, "argument '%s' of %s must be %s", q->name,
		   fname, want);
	return false;
}

/* None (or the empty R.tuple() of an optional argument) for parameter q:
 * AV_NONE when q is optional, the "void" dtype of an `out_dtype` whose
 * default is None, else an error. */
static bool
conv_attr_none(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	if (q->optional) {
		out->kind = AV_NONE;
		return true;
	}
	if (q->kind == PK_DTYPE && q->has_default && q->def.kind == AV_DTYPE &&
	    q->def.dtype == DT_UNKNOWN) {
		out->kind = AV_DTYPE; /* out_dtype=None: "void", as TVM reads it */
		out->dtype = DT_UNKNOWN;
		return true;
	}
	diag_error(b->d, v->span, "argument '%s' of %s cannot be None",
		   q->name, fname);
	return false;
}

/* A PK_INT attribute: an integer, also T.int32(8), T.int64(8) and
 * T.IntImm("int32", 8) (an IntImm attribute). */
static bool
conv_attr_int(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	int64_t i;
	if (v->kind == X_CALL && (bld_is_named(v, "T.int32") || bld_is_named(v, "T.int64")) &&
	    v->n == 1 && v->items->kind != X_KWARG)
		v = v->items;
	else if (v->kind == X_CALL && bld_is_named(v, "T.IntImm") && v->n == 2 &&
		 v->items->kind == X_STR && v->items->next->kind != X_KWARG)
		v = v->items->next;
	if (!bld_int_lit(v, &i))
		return attr_wrong(b, q, v, fname, "an integer");
	out->kind = AV_INT;
	out->i = i;
	return true;
}

/* A PK_INTS or PK_INT_OR_INTS attribute: a list of integers, or one
 * integer (a list of one for PK_INTS). */
static bool
conv_attr_ints(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	int64_t i;
	if (bld_int_lit(v, &i)) {
		if (q->kind == PK_INT_OR_INTS) {
			out->kind = AV_INT;
			out->i = i;
			return true;
		}
		out->kind = AV_INTS;
		out->n = 1;
		out->ints = arena_memdup(&b->m->arena, &i, sizeof i);
		return true;
	}
	if (v->kind != X_LIST && v->kind != X_TUPLE)
		return attr_wrong(b, q, v, fname,
				  q->kind == PK_INTS ? "a list of integers"
						     : "an integer or a list of integers");
	int64_t *xs = ARENA_ARRAY(&b->m->arena, int64_t, v->n ? v->n : 1);
	int k = 0;
	for (Syn *y = v->items; y; y = y->next, k++) {
		if (!bld_int_item(y, &xs[k])) {
			diag_error(b->d, y->span,
				   "argument '%s' of %s must be a list of integers",
				   q->name, fname);
			return false;
		}
	}
	out->kind = AV_INTS;
	out->ints = xs;
	out->n = v->n;
	return true;
}

/* A PK_FLOAT attribute: a number, also T.float32(0.5) (T.float64,
 * T.float16), as TVM's tests write a FloatImm attribute. */
static bool
conv_attr_float(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	double d;
	bool isf = false;
	if (v->kind == X_CALL && v->n == 1 && v->items->kind != X_KWARG &&
	    (bld_is_named(v, "T.float32") || bld_is_named(v, "T.float64") ||
	     bld_is_named(v, "T.float16")))
		v = v->items;
	if (!bld_num_lit(v, &d, &isf))
		return attr_wrong(b, q, v, fname, "a number");
	out->kind = AV_FLOAT;
	out->f = d;
	return true;
}

/* A PK_DIMS attribute: a list of dimensions (or a single one), each
 * possibly R.prim_value(...): AV_INTS when all are constants, else
 * AV_DIMS. */
static bool
conv_attr_dims(B *b, Syn *v, AttrVal *out)
{
	Syn one = *v;
	if (v->kind != X_LIST && v->kind != X_TUPLE) {
		one.kind = X_LIST; /* a single dimension */
		one.items = arena_memdup(&b->ps->ast, v, sizeof *v);
		one.items->next = NULL;
		one.n = 1;
		v = &one;
	}
	PExpr **xs = ARENA_ARRAY(&b->m->arena, PExpr *, v->n ? v->n : 1);
	bool all_const = true;
	int k = 0;
	for (Syn *y = v->items; y; y = y->next, k++) {
		int64_t c;
		Syn *z = y;
		if (z->kind == X_CALL && z->n == 1 &&
		    bld_is_named(z, "R.prim_value"))
			z = z->items;
		if (!(xs[k] = bld_conv_size(b, z, false)))
			return false;
		all_const &= pe_is_const(xs[k], &c);
	}
	out->n = v->n;
	if (!all_const) {
		out->kind = AV_DIMS;
		out->dims = xs;
		return true;
	}
	out->kind = AV_INTS;
	out->ints = ARENA_ARRAY(&b->m->arena, int64_t, v->n ? v->n : 1);
	for (int j = 0; j < v->n; j++)
		pe_is_const(xs[j], &out->ints[j]);
	return true;
}

/* A PK_SINFO or PK_SINFOS attribute: one struct info or a list of them. */
static bool
conv_attr_sinfo(B *b, Syn *v, AttrVal *out)
{
	bool list = v->kind == X_LIST || v->kind == X_TUPLE;
	int n = list ? v->n : 1;
	out->kind = AV_SINFO;
	out->n = n;
	out->sis = ARENA_ARRAY(&b->m->arena, SInfo *, n ? n : 1);
	int k = 0;
	for (Syn *y = list ? v->items : v; y && k < n; y = y->next, k++)
		if (!(out->sis[k] = bld_conv_sinfo(b, y, false)))
			return false;
	return true;
}

/* A PK_RAW attribute: any Python literal, kept as its text. */
static bool
conv_attr_raw(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	StrBuf t = {0};
	bool ok = bld_syn_text(&t, v);
	if (ok) {
		out->kind = AV_RAW;
		out->s = arena_strdup(&b->m->arena, t.p);
	}
	sb_free(&t);
	return ok || attr_wrong(b, q, v, fname, "a Python literal");
}

/* Converts the attribute argument v of op parameter q: R.str("global")
 * and R.dtype("float32") unwrapped, None handled, then one converter per
 * parameter kind. */
static bool
conv_attr(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	memset(out, 0, sizeof *out);
	if (v->kind == X_CALL && v->n == 1 && v->items->kind == X_STR &&
	    ((q->kind == PK_STR && bld_is_named(v, "R.str")) ||
	     (q->kind == PK_DTYPE && bld_is_named(v, "R.dtype"))))
		v = v->items; /* R.str("global"), R.dtype("float32") */
	if (v->kind == X_NONE || (q->optional && v->kind == X_CALL && !v->n &&
				  bld_is_named(v, "R.tuple")))
		return conv_attr_none(b, q, v, fname, out);
	switch (q->kind) {
	case PK_INT:
		return conv_attr_int(b, q, v, fname, out);
	case PK_INTS:
	case PK_INT_OR_INTS:
		return conv_attr_ints(b, q, v, fname, out);
	case PK_FLOAT:
		return conv_attr_float(b, q, v, fname, out);
	case PK_BOOL:
		if (v->kind != X_TRUE && v->kind != X_FALSE)
			return attr_wrong(b, q, v, fname, "True or False");
		out->kind = AV_BOOL;
		out->i = v->kind == X_TRUE;
		return true;
	case PK_STR:
		if (v->kind != X_STR)
			return attr_wrong(b, q, v, fname, "a string");
		out->kind = AV_STR;
		out->s = arena_strdup(&b->m->arena, v->s);
		return true;
	case PK_DTYPE:
		if (v->kind != X_STR)
			return attr_wrong(b, q, v, fname, "a dtype string");
		out->kind = AV_DTYPE;
		return bld_conv_dtype(b, v, &out->dtype);
	case PK_DIMS:
		return conv_attr_dims(b, v, out);
	case PK_SINFO:
	case PK_SINFOS:
		return conv_attr_sinfo(b, v, out);
	case PK_IMAP:
		return conv_index_map(b, q, v, fname, out);
	case PK_RAW:
		return conv_attr_raw(b, q, v, fname, out);
	default:
		ir_bug("not an attribute kind %d", (int)q->kind);
	}
}

/*
 * An index map: `lambda i, j: (j, i)` or `T.index_map(lambda ...,
 * index_dtype=...)` (the dtype is TVM's choice of index type; rlx's
 * indices are int64). The lambda's names are its own symbolic variables,
 * seen only in its body, over which each final index is a dimension
 * expression.
 */
static bool
conv_index_map(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	if (v->kind == X_CALL && bld_is_named(v, "T.index_map")) {
		static const char *const names[] = {"mapping", "inverse_index_map", "index_dtype"};
		Syn *arg[3];
		if (!bld_match_args(b, v, "T.index_map", names, 3, arg))
			return false;
		if (arg[1] && arg[1]->kind != X_NONE) {
			diag_error(b->d, arg[1]->span, "an inverse_index_map is not supported "
				   "by rlx (the inverse of an affine map is implied)");
			return false;
		}
		if (arg[2] && (arg[2]->kind != X_STR || (strcmp(arg[2]->s, "int32") &&
							 strcmp(arg[2]->s, "int64")))) {
			diag_error(b->d, arg[2]->span, "index_dtype must be \"int32\" or \"int64\"");
			return false;
		}
		if (!arg[0]) {
			diag_error(b->d, v->span, "T.index_map needs a lambda");
			return false;
		}
		v = arg[0];
	}
	if (v->kind != X_LAMBDA) {
		diag_error(b->d, v->span, "argument '%s' of %s must be an index map "
			   "(lambda i, j: (j, i))", q->name, fname);
		return false;
	}
	int n0 = b->symvars.n;
	SymVar **iv = ARENA_ARRAY(&b->m->arena, SymVar *, v->n ? v->n : 1);
	int k = 0;
	bool ok = true;
	for (Syn *y = v->items; y; y = y->next, k++) {
		for (int j = n0; j < b->symvars.n; j++)
			if (!strcmp(((SymVar *)b->symvars.items[j])->name, y->s)) {
				diag_error(b->d, y->span, "duplicate lambda parameter '%s'", y->s);
				ok = false;
			}
		iv[k] = bld_define_symvar(b, y->s, y->span);
	}
	Syn *body = v->a;
	Syn one = {0};
	if (body->kind != X_TUPLE) {
		one.kind = X_TUPLE;
		one.span = body->span;
		one.items = body;
		one.n = 1;
		body = &one;
	}
	PExpr **fin = ARENA_ARRAY(&b->m->arena, PExpr *, body->n ? body->n : 1);
	k = 0;
	for (Syn *y = body->items; ok && y; y = y->next, k++) {
		Syn *save = y->next;
		if (!(fin[k] = bld_conv_size(b, y, false)))
			ok = false;
		y->next = save;
		Vec vars = {0};
		if (ok)
			pe_collect_vars(fin[k], &vars);
		for (int j = 0; ok && j < vars.n; j++) {
			bool mine = false;
			for (int i = 0; i < v->n; i++)
				mine |= vars.items[j] == iv[i];
			if (!mine) {
				diag_error(b->d, y->span, "an index map may use only its own "
					   "variables, not '%s'", ((SymVar *)vars.items[j])->name);
				ok = false;
			}
		}
		vec_free(&vars);
	}
	bld_idx_truncate(&b->symvars_ix, &b->symvars, n0, bld_symvar_name);
	if (!ok)
		return false;
	out->kind = AV_IMAP;
	out->ivars = iv;
	out->nin = v->n;
	out->dims = fin;
	out->n = body->n;
	return true;
}

/* Converts the expression argument v of op parameter q (a leaf). */
static Expr *
conv_param(B *b, const OpParam *q, Syn *v, const char *fname)
{
	if (q->optional && (v->kind == X_NONE ||
			    (v->kind == X_TUPLE && !v->n) ||
			    (v->kind == X_CALL && !v->n && bld_is_named(v, "R.tuple"))))
		return ir_expr(b->m, E_TUPLE, v->span); /* as TVM: R.tuple() */
	switch (q->kind) {
	case PK_SHAPE:
		if (v->kind == X_INT || v->kind == X_NAME) {
			/* one size for every spatial dim, as TVM's image wrappers
			 * read it (resize2d(x, 20) is size (20, 20)) */
			size_t n = strlen(fname);
			int k = !strncmp(fname, "R.image.", 8) && n > 2 ? fname[n - 2] - '0' : 0;
			if (!strcmp(fname, "R.image.affine_grid"))
				k = 2;
			if ((k == 2 || k == 3) && (v->kind == X_INT || !bld_find_entry(b, v->s))) {
				Syn *l = syn_new(b->ps, X_TUPLE, v->span);
				for (int i = 0; i < k; i++) {
					Syn *y = syn_new(b->ps, v->kind, v->span);
					*y = *v;
					y->next = NULL;
					l->items = syn_list(l->items, y);
				}
				l->n = k;
				return conv_shape_value(b, l, v->span);
			}
		}
		if (v->kind == X_LIST || v->kind == X_TUPLE)
			return conv_shape_value(b, v, v->span);
		if (v->kind == X_NAME ||
		    (v->kind == X_CALL && (bld_is_named(v, "R.shape") ||
					   bld_is_named(v, "R.ShapeExpr"))))
			return bld_conv_leaf(b, v);
		diag_error(b->d, v->span, "argument '%s' of %s must be a shape",
			   q->name, fname);
		return NULL;
	case PK_FUNC:
		if (v->kind == X_STR ||
		    (v->kind == X_CALL && bld_is_named(v, "R.ExternFunc"))) {
			Syn *n = v->kind == X_STR ? v : v->n >= 1 ? v->items : NULL;
			if (!n || n->kind != X_STR) {
				diag_error(b->d, v->span,
					   "R.ExternFunc takes the function's name as a string");
				return NULL;
			}
			Expr *e = ir_expr(b->m, E_EXTERN, v->span);
			e->str = arena_strdup(&b->m->arena, n->s);
			return e;
		}
		return bld_conv_leaf(b, v);
	case PK_PRIM:
		if (v->kind == X_NAME && bld_find_entry(b, v->s))
			return bld_conv_leaf(b, v);
		if (v->kind == X_CALL && !bld_is_named(v, "T.min") &&
		    !bld_is_named(v, "T.max") && !(v->a->kind == X_ATTR &&
		    v->a->a->kind == X_NAME && !strcmp(v->a->a->s, "T")))
			return bld_conv_leaf(b, v);
		return bld_conv_prim(b, v);
	default:
		if (q->variadic && (v->kind == X_INT || v->kind == X_NEG ||
				    v->kind == X_FLOAT || v->kind == X_TRUE ||
				    v->kind == X_FALSE))
			return bld_conv_prim(b, v); /* R.call_packed("f", x, 2) */
		if (q->variadic && v->kind == X_STR) {
			Expr *e = ir_expr(b->m, E_STR, v->span);
			e->str = arena_strdup(&b->m->arena, v->s);
			return e;
		}
		if (v->kind == X_INT || v->kind == X_FLOAT ||
		    v->kind == X_NEG || v->kind == X_TRUE ||
		    v->kind == X_FALSE || v->kind == X_NONE ||
		    v->kind == X_STR) {
			diag_error(b->d, v->span,
				   "argument '%s' of %s must be an expression, not a Python value (use R.const)",
				   q->name, fname);
			return NULL;
		}
		return bld_conv_leaf(b, v);
	}
}

/*
 * Int-list attributes as TVM's Python wrappers write them: a list shorter
 * than its default is repeated to the default's length (strides=2 of
 * conv2d is [2, 2], padding=(1, 2) is [1, 2, 1, 2]: [top, left, bottom,
 * right]), so that `padding=(1, 1)` prints as TVM prints it; an
 * adaptive pool's output_size=7 is [7, 7], a pooled_size=7 of roi_align or
 * roi_pool too.
 */
static void
widen_lists(B *b, Expr *e, const OpSig *sig)
{
	for (int k = 0; k < sig->nparams; k++) {
		const OpParam *q = &sig->params[k];
		if (!q->is_attr)
			continue;
		AttrVal *v = &e->call.attrs[q->slot];
		if (v->kind != AV_INTS || v->n < 1)
			continue;
		int want = 0;
		if (q->has_default && q->def.kind == AV_INTS)
			want = op_default(b->m, q).n;
		if ((e->call.op == OP_ADAPTIVE_AVG_POOL2D && !strcmp(q->name, "output_size")) ||
		    !strcmp(q->name, "pooled_size"))
			want = 2; /* roi_align, roi_pool: (n, n) */
		if (want <= v->n || want % v->n)
			continue;
		int64_t *xs = ARENA_ARRAY(&b->m->arena, int64_t, want);
		for (int i = 0; i < want; i++)
			xs[i] = v->ints[i % v->n];
		v->ints = xs;
		v->n = want;
	}
}

/*
 * The value of a prim parameter left out of a call: its default
 * (`k:prim=0`), or NULL for `None` and for an optional expression
 * (op_normalize decides).
 */
static Expr *
default_prim(B *b, const OpParam *q, Span sp)
{
	if (!q->has_default || !strcmp(q->def_text, "None"))
		return NULL;
	Expr *e = ir_expr(b->m, E_PRIM, sp);
	e->span.line = 0; /* made up */
	if (!strcmp(q->def_text, "True") || !strcmp(q->def_text, "False")) {
		e->prim.dtype = DT_BOOL;
		e->prim.value = pe_int(&b->m->arena, q->def_text[0] == 'T');
	} else if (strchr(q->def_text, '.')) {
		e->prim.dtype = DT_F32;
		e->prim.f = strtod(q->def_text, NULL);
	} else {
		e->prim.dtype = DT_I64;
		e->prim.value = pe_int(&b->m->arena, strtoll(q->def_text, NULL, 10));
	}
	return e;
}

/* Is prim argument x written as an integer (not a float)? */
static bool
int_prim(const Expr *x)
{
	if (x->kind == E_PRIM)
		return !dtype_is_float(x->prim.dtype);
	const SInfo *si = ir_expr_sinfo(x);
	return !si || si->kind != SI_PRIM || !dtype_is_float(si->dtype);
}

/* Is x a left-out optional argument (R.tuple(), as TVM writes one)? */
static bool
absent(const Expr *x)
{
	return !x || (x->kind == E_TUPLE && x->tuple.n == 0);
}

/*
 * What TVM's Python wrappers do to a call before building it: arange(n)
 * is arange(0, n, 1) and its dtype, when not given, int64 for integer
 * arguments and float32 otherwise; eye(n) is eye(n, n); unique without an
 * axis has five arguments; attention_var_len's seqstart_k and max_seqlen_k
 * are the queries' when left out; out_layout=None
 * is the data's layout.
 */
static bool
op_normalize(B *b, Expr *e, const OpSig *sig, Span sp, const char *fname)
{
	Expr **a = e->call.args;
	(void)fname;
	if (e->call.op == OP_ARANGE && e->call.nargs == 3) {
		if (absent(a[1])) {
			a[1] = a[0];
			OpParam zero = {.has_default = true, .def_text = "0"};
			a[0] = default_prim(b, &zero, sp);
		}
		AttrVal *dt = &e->call.attrs[0];
		if (dt->kind == AV_NONE) {
			dt->kind = AV_DTYPE;
			dt->dtype = int_prim(a[0]) && int_prim(a[1]) && int_prim(a[2])
					    ? DT_I64 : DT_F32;
		}
	} else if (e->call.op == OP_EYE && e->call.nargs == 3 && absent(a[1])) {
		a[1] = ir_copy_expr(b->m, a[0]);
	} else if (e->call.op == OP_UNIQUE && e->call.nargs == 6 && absent(a[5])) {
		e->call.nargs = 5; /* TVM's unique has no axis argument for None */
	} else if (e->call.op == OP_ATTENTION_VAR_LEN && e->call.nargs == 7) {
		/* the keys' sequence starts and length default to the queries' */
		if (absent(a[5]))
			a[5] = ir_copy_expr(b->m, a[3]);
		if (absent(a[6]))
			a[6] = ir_copy_expr(b->m, a[4]);
	}
	int out_l = -1, in_l = -1;
	for (int i = 0; i < sig->nparams; i++) {
		const OpParam *q = &sig->params[i];
		if (q->is_attr && !strcmp(q->name, "out_layout"))
			out_l = q->slot;
		if (q->is_attr && (!strcmp(q->name, "data_layout") || !strcmp(q->name, "layout")))
			in_l = q->slot;
	}
	if (out_l >= 0 && in_l >= 0 && e->call.attrs[out_l].kind == AV_NONE)
		e->call.attrs[out_l] = e->call.attrs[in_l];
	return true;
}

/* Splits the arguments of call x at the variadic parameter vi: the
 * positional ones from vi on go, in order, to *rest (copies); the others
 * stay in *xc, a copy of x. Returns how many went to *rest. */
static int
split_variadic(B *b, Syn *x, int vi, Syn *xc, Syn **rest)
{
	Syn *head = NULL, **tail = &head, **rtail = rest;
	int pos = 0, nv = 0;
	*xc = *x;
	*rest = NULL;
	for (Syn *a = x->items; a; a = a->next, pos++) {
		Syn *c = arena_memdup(&b->ps->ast, a, sizeof *a);
		c->next = NULL;
		if (a->kind != X_KWARG && pos >= vi) {
			*rtail = c;
			rtail = &c->next;
			nv++;
			continue;
		}
		*tail = c;
		tail = &c->next;
	}
	xc->items = head;
	xc->n = syn_len(head);
	return nv;
}

/* The value of parameter q of call e (R.OP at x) given no argument: an
 * attribute's default, an argument's default prim value, else R.tuple() as
 * TVM writes it; false (reported) when q is required. */
static bool
missing_arg(B *b, Expr *e, const OpParam *q, Syn *x, const char *fname)
{
	if (!q->is_attr && (q->optional || q->has_default)) {
		Expr *a = ir_expr(b->m, E_TUPLE, x->span);
		if (q->kind == PK_PRIM && (q->def.kind == AV_INT || q->def.kind == AV_BOOL)) {
			a->kind = E_PRIM;
			a->prim.dtype = q->def.kind == AV_BOOL ? DT_BOOL : DT_I64;
			a->prim.value = pe_int(&b->m->arena, q->def.i);
		}
		e->call.args[q->slot] = a;
		return true;
	}
	if (q->is_attr && q->has_default) {
		e->call.attrs[q->slot] = op_default(b->m, q);
		return true;
	}
	diag_error(b->d, x->span, "%s missing required argument '%s' (%s takes %s)",
		   fname, q->name, fname, op_info(e->call.op)->sig);
	return false;
}

/* R.OP(args): matched against the op's signature (TVM's older keyword
 * spellings accepted, a variadic parameter taking the positional arguments
 * from its place on), each argument and attribute converted, then
 * normalized. */
static Expr *
conv_opcall(B *b, Syn *x, OpKind op, const char *fname)
{
	OpSig sig;
	op_sig(op, &sig);
	const char *names[ARRAY_LEN(sig.params)];
	Syn *arg[ARRAY_LEN(sig.params)];
	int nv = 0, vi = -1; /* the variadic parameter and its arguments */
	Syn *rest = NULL;
	for (int i = 0; i < sig.nparams; i++) {
		names[i] = sig.params[i].name;
		if (sig.params[i].variadic)
			vi = i;
		/* TVM's older spellings of ty_args and out_ty */
		const char *old = !strcmp(names[i], "ty_args") ? "sinfo_args"
				: !strcmp(names[i], "out_ty") ? "out_sinfo" : NULL;
		for (Syn *a = x->items; old && a; a = a->next)
			if (a->kind == X_KWARG && !strcmp(a->s, old))
				a->s = names[i];
	}
	Syn xc = *x;
	if (vi >= 0) {
		/* the parameters after the variadic one are keyword-only */
		nv = split_variadic(b, x, vi, &xc, &rest);
		names[vi] = "*"; /* matches no keyword */
	}
	if (!bld_match_args(b, &xc, fname, names, sig.nparams, arg))
		return NULL;
	if (vi >= 0)
		arg[vi] = rest;
	int nargs = sig.nargs - (vi >= 0) + nv;
	Expr *e = ir_expr(b->m, E_CALL, x->span);
	e->call.op = op;
	e->call.nargs = nargs;
	e->call.nattrs = sig.nattrs;
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, nargs ? nargs : 1);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal,
				    sig.nattrs ? sig.nattrs : 1);
	bool ok = true;
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (q->variadic) {
			int k = q->slot;
			for (Syn *a = arg[i]; a; a = a->next, k++) {
				e->call.args[k] = conv_param(b, q, a, fname);
				ok &= e->call.args[k] != NULL;
			}
		} else if (!arg[i]) {
			ok &= missing_arg(b, e, q, x, fname);
		} else if (q->is_attr) {
			ok &= conv_attr(b, q, arg[i], fname,
					&e->call.attrs[q->slot]);
		} else {
			e->call.args[q->slot] = conv_param(b, q, arg[i], fname);
			ok &= e->call.args[q->slot] != NULL;
		}
	}
	if (ok)
		widen_lists(b, e, &sig);
	if (ok)
		ok = op_normalize(b, e, &sig, x->span, fname);
	return ok ? e : NULL;
}

/* A call of op with the given arguments and its default attributes. */
static Expr *
make_call(B *b, OpKind op, Expr **args, int nargs, Span sp)
{
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(b->m, E_CALL, sp);
	e->call.op = op;
	e->call.nargs = nargs;
	e->call.nattrs = sig.nattrs;
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, nargs);
	memcpy(e->call.args, args, sizeof *args * (size_t)nargs);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal, sig.nattrs ? sig.nattrs : 1);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr)
			e->call.attrs[sig.params[i].slot] = op_default(b->m, &sig.params[i]);
	return e;
}

/*
 * R.linear(data, weight, bias=None, out_dtype=None): not an op in Relax
 * but, as TVM's Python wrapper builds it, matmul(data,
 * permute_dims(weight)) plus bias when given (the nested calls are
 * normalized into bindings like any others).
 */
static Expr *
conv_linear(B *b, Syn *x, const char *fname)
{
	static const char *const names[] = {"data", "weight", "bias", "out_dtype"};
	Syn *arg[4];
	if (!bld_match_args(b, x, fname, names, 4, arg))
		return NULL;
	if (!arg[0] || !arg[1]) {
		diag_error(b->d, x->span, "%s missing required argument '%s' "
			   "(%s takes data, weight, bias=None, out_dtype=None)",
			   fname, arg[0] ? "weight" : "data", fname);
		return NULL;
	}
	bool has_bias = arg[2] && arg[2]->kind != X_NONE;
	Expr *data = bld_conv_leaf(b, arg[0]), *w = bld_conv_leaf(b, arg[1]);
	Expr *bias = has_bias ? bld_conv_leaf(b, arg[2]) : NULL;
	if (!data || !w || (has_bias && !bias))
		return NULL;
	Expr *wt = bld_bind_fresh(b, make_call(b, OP_PERMUTE_DIMS, &w, 1, x->span),
			      "lv", &b->lv_next);
	Expr *mm[2] = {data, wt};
	Expr *e = make_call(b, OP_MATMUL, mm, 2, x->span);
	if (arg[3] && arg[3]->kind != X_NONE) {
		if (arg[3]->kind != X_STR) {
			diag_error(b->d, arg[3]->span,
				   "argument 'out_dtype' of %s must be a dtype string", fname);
			return NULL;
		}
		e->call.attrs[0].kind = AV_DTYPE;
		if (!bld_conv_dtype(b, arg[3], &e->call.attrs[0].dtype))
			return NULL;
	}
	if (bias) {
		Expr *ab[2] = {bld_bind_fresh(b, e, "lv", &b->lv_next), bias};
		e = make_call(b, OP_ADD, ab, 2, x->span);
	}
	return e;
}

/*
 * A module function's name: `cls.f`, or `Module.f` with the class's own
 * name as TVM's parser allows, gives "f" and *global; another name comes
 * back unchanged (*global false); NULL after an error (no such function,
 * with the nearest as a hint).
 */
static const char *
global_name(B *b, const char *name, Span sp, bool *global)
{
	*global = false;
	const char *dot = strchr(name, '.');
	if (dot && !strchr(dot + 1, '.') && b->m->name &&
	    !strncmp(name, b->m->name, (size_t)(dot - name)) &&
	    !b->m->name[dot - name])
		name = arena_printf(&b->ps->ast, "cls.%s", dot + 1);
	if (strncmp(name, "cls.", 4) || strchr(name + 4, '.'))
		return name;
	if (!bld_idx_find(&b->funcs_ix, &b->funcs, name + 4, bld_str_name)) {
		const char *hint = NULL;
		int best = 99;
		/* (no hint search once errors are too many to be read) */
		for (int i = 0; i < b->funcs.n && b->d->nerrors < DIAG_PRINT_LIMIT; i++) {
			const char *f = b->funcs.items[i];
			int d = str_edit_distance(name + 4, f);
			if (d < best && str_close_enough(f, d)) {
				best = d;
				hint = f;
			}
		}
		if (hint)
			diag_error(b->d, sp,
				   "unknown function '%s' in the module; did you mean cls.%s?",
				   name + 4, hint);
		else
			diag_error(b->d, sp, "unknown function '%s' in the module",
				   name + 4);
		return NULL;
	}
	*global = true;
	return name + 4;
}

/* The positional arguments of a call of a function (`what` in the message
 * for a keyword argument, which such calls do not take); NULL after an
 * error. */
static Expr **
call_args(B *b, Syn *x, const char *what)
{
	Expr **args = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
	int i = 0;
	for (Syn *a = x->items; a; a = a->next, i++) {
		if (a->kind == X_KWARG) {
			diag_error(b->d, a->span,
				   "keyword arguments are not supported in calls of %s",
				   what);
			return NULL;
		}
		if (!(args[i] = bld_conv_leaf(b, a)))
			return NULL;
	}
	return args;
}

/* R.str("s") or R.dtype("float32") (a DataTypeImm), called as `name`. */
static Expr *
conv_str_call(B *b, Syn *x, const char *name, bool dtype)
{
	Syn *a = bld_one_arg(b, x, name);
	if (!a)
		return NULL;
	DType t;
	if (a->kind != X_STR) {
		diag_error(b->d, a->span, "%s takes a string", name);
		return NULL;
	}
	if (dtype && !bld_conv_dtype(b, a, &t))
		return NULL;
	Expr *e = ir_expr(b->m, E_STR, x->span);
	e->str = arena_strdup(&b->m->arena, a->s);
	e->dtype_imm = dtype;
	return e;
}

/* R.tuple(a, b, ...). */
static Expr *
conv_tuple_call(B *b, Syn *x)
{
	Expr *e = ir_expr(b->m, E_TUPLE, x->span);
	e->tuple.n = x->n;
	e->tuple.items = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
	int i = 0;
	for (Syn *a = x->items; a; a = a->next, i++) {
		if (a->kind == X_KWARG ||
		    !(e->tuple.items[i] = bld_conv_leaf(b, a))) {
			if (a->kind == X_KWARG)
				diag_error(b->d, a->span,
					   "R.tuple takes no keyword arguments");
			return NULL;
		}
	}
	return e;
}

/* Field i of tuple x (t[i], R.TupleGetItem(t, i)) at sp. */
static Expr *
tuple_get(B *b, Syn *x, int i, Span sp)
{
	Expr *t = bld_conv_leaf(b, x);
	if (!t)
		return NULL;
	Expr *e = ir_expr(b->m, E_TUPLE_GET, sp);
	e->tget.tuple = t;
	e->tget.index = i;
	return e;
}

/* R.TupleGetItem(t, i): the class, called, which is t[i]. */
static Expr *
conv_tuple_get_call(B *b, Syn *x)
{
	int64_t i;
	if (x->n != 2 || x->items->kind == X_KWARG ||
	    x->items->next->kind == X_KWARG ||
	    !bld_int_lit(x->items->next, &i) || i < 0 || i > 1 << 30) {
		diag_error(b->d, x->span, "R.TupleGetItem takes a tuple "
			   "and a non-negative integer index");
		return NULL;
	}
	return tuple_get(b, x->items, (int)i, x->span);
}

/* R.ExternFunc("name"). */
static Expr *
conv_extern_call(B *b, Syn *x)
{
	Syn *a = x->n >= 1 ? x->items : NULL;
	if (!a || a->kind != X_STR) {
		diag_error(b->d, x->span,
			   "R.ExternFunc takes the function's name as a string");
		return NULL;
	}
	Expr *e = ir_expr(b->m, E_EXTERN, x->span);
	e->str = arena_strdup(&b->m->arena, a->s);
	return e;
}

/* The error of an unknown operator R.r (called as `name`, at csp): a TIR
 * or packed call named as such, else the nearest operator as a hint. */
static void
unknown_op(B *b, const char *name, const char *r, Span csp)
{
	const char *hint = bld_suggest_op(b, r);
	if (!strncmp(r, "call_", 5))
		diag_error(b->d, csp,
			   "unknown operator %s: rlx has no TIR or packed functions, only the Relax operators of docs/language.md",
			   name);
	else if (hint)
		diag_error(b->d, csp, "unknown operator %s; did you mean R.%s?",
			   name, hint);
	else
		diag_error(b->d, csp,
			   "unknown operator %s (the operators rlx knows are listed in docs/language.md)",
			   name);
}

/* A call of R.r (`name` as written, the callee at csp): the builtins that
 * make values (R.const, R.shape, R.prim_value, R.str, R.dtype, R.tuple,
 * R.TupleGetItem, R.ExternFunc), the statements misused as values,
 * R.linear, else an operator of the op table. */
static Expr *
conv_r_call(B *b, Syn *x, const char *name, const char *r, Span csp)
{
	if (!strcmp(r, "const"))
		return conv_const(b, x);
	if (!strcmp(r, "shape") || !strcmp(r, "ShapeExpr")) {
		Syn *a = bld_one_arg(b, x, name);
		return a ? conv_shape_value(b, a, x->span) : NULL;
	}
	if (!strcmp(r, "prim_value")) {
		Syn *a = bld_one_arg(b, x, name);
		Expr *e = a ? bld_conv_prim(b, a) : NULL;
		if (e)
			e->span = x->span;
		return e;
	}
	if (!strcmp(r, "str") || !strcmp(r, "dtype"))
		return conv_str_call(b, x, name, r[0] == 'd');
	if (!strcmp(r, "tuple"))
		return conv_tuple_call(b, x);
	if (!strcmp(r, "TupleGetItem"))
		return conv_tuple_get_call(b, x);
	if (!strcmp(r, "ExternFunc"))
		return conv_extern_call(b, x);
	if (!strcmp(r, "match_cast")) {
		diag_error(b->d, csp, "R.match_cast must be the whole value of an assignment");
		return NULL;
	}
	if (!strcmp(r, "output") || !strcmp(r, "func_attr") ||
	    !strcmp(r, "dataflow")) {
		diag_error(b->d, csp, "%s is a statement, not a value", name);
		return NULL;
	}
	if (!strcmp(r, "linear"))
		return conv_linear(b, x, name);
	OpKind op = op_lookup(r);
	if (op == OP_NONE) {
		unknown_op(b, name, r, csp);
		return NULL;
	}
	return conv_opcall(b, x, op, name);
}

/* A call: R.const, R.shape, ..., R.OP (conv_r_call), then cls.f (a module
 * function) or a call through a variable (a local function, a parameter). */
static Expr *
conv_call(B *b, Syn *x)
{
	const char *name = bld_callee_name(b, x);
	if (!name) {
		diag_error(b->d, x->a->span, "unsupported call");
		return NULL;
	}
	Span csp = x->a->span;
	/* relax.op.OP, relax.call_* and relax.const are the Python
	 * functions that R.OP and R.const name (TVMScript evaluates
	 * either) */
	if (!strncmp(name, "relax.op.", 9))
		name = arena_printf(&b->ps->ast, "R.%s", name + 9);
	else if (!strncmp(name, "relax.call_", 11))
		/* relax.call_tir, relax.call_dps_packed, ...: the same */
		name = arena_printf(&b->ps->ast, "R.%s", name + 6);
	else if (!strcmp(name, "relax.const"))
		name = "R.const";
	if (!strncmp(name, "R.", 2))
		return conv_r_call(b, x, name, name + 2, csp);
	bool global;
	name = global_name(b, name, csp, &global);
	if (!name)
		return NULL;
	if (global) {
		Expr *e = ir_expr(b->m, E_CALL_FN, x->span);
		e->callfn.callee = arena_strdup(&b->m->arena, name);
		e->callfn.nargs = x->n;
		e->callfn.args = call_args(b, x, "module functions");
		return e->callfn.args ? e : NULL;
	}
	Entry *fe = x->a->kind == X_NAME ? bld_find_entry(b, name) : NULL;
	if (fe && !fe->dead) {
		Expr *e = ir_expr(b->m, E_CALL_VAR, x->span);
		e->callv.fn = ir_var_ref(b->m, fe->var, x->a->span);
		e->callv.nargs = x->n;
		e->callv.args = call_args(b, x, "functions");
		return e->callv.args ? e : NULL;
	}
	diag_error(b->d, csp, "unsupported call '%s'", name);
	return NULL;
}

/*
 * A Python operator on Relax values, as TVM's parser reads it: `a + b` is
 * R.add(a, b), and likewise `-` subtract, `*` multiply, `/` divide, `//`
 * floor_divide, unary `-` negative. A number literal operand is refused
 * (Relax has no implicit constants), with the usual message.
 */
static Expr *
conv_operator(B *b, Syn *x)
{
	int64_t iv;
	double dv;
	bool isf;
	if (bld_int_lit(x, &iv) || bld_num_lit(x, &dv, &isf)) {
		diag_error(b->d, x->span,
			   "a Python value is not a Relax expression (use R.const or R.prim_value)");
		return NULL;
	}
	OpKind op;
	if (x->kind == X_NEG) {
		op = OP_NEGATIVE;
	} else {
		switch (x->op) {
		case PE_ADD: op = OP_ADD; break;
		case PE_SUB: op = OP_SUBTRACT; break;
		case PE_MUL: op = OP_MULTIPLY; break;
		case PE_FLOORDIV: op = OP_FLOOR_DIVIDE; break;
		case SYN_TRUEDIV: op = OP_DIVIDE; break;
		case SYN_MATMUL: op = OP_MATMUL; break;
		default:
			if (PE_IS_CMP(x->op))
				diag_error(b->d, x->span,
					   "a comparison of Relax values is not an expression (use R.equal, R.less, ...; comparisons are for symbolic dimensions, as in 'if n == 16:')");
			else
				diag_error(b->d, x->span,
					   "operator '%s' on Relax values is not supported",
					   syn_op_text(x->op));
			return NULL;
		}
	}
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(b->m, E_CALL, x->span);
	e->call.op = op;
	e->call.nargs = sig.nargs;
	e->call.nattrs = sig.nattrs; /* defaults: matmul's out_dtype */
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, 2);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal, 1);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr)
			e->call.attrs[sig.params[i].slot] = op_default(b->m, &sig.params[i]);
	Syn *operand[2] = {x->a, x->b};
	const char *fname = x->kind == X_NEG ? "unary '-'" : "operator";
	for (int i = 0; i < sig.nargs; i++) {
		Syn *v = operand[i];
		if (bld_int_lit(v, &iv) || bld_num_lit(v, &dv, &isf)) {
			diag_error(b->d, v->span,
				   "an operand of %s must be a Relax expression, not a Python number (use R.const)",
				   fname);
			return NULL;
		}
		if (!(e->call.args[i] = bld_conv_leaf(b, v)))
			return NULL;
	}
	return e;
}

/* An expression in value position (not necessarily a leaf). */
Expr *
bld_conv_value(B *b, Syn *x)
{
	switch (x->kind) {
	case X_NAME: {
		Var *v = bld_lookup(b, x);
		return v ? ir_var_ref(b->m, v, x->span) : NULL;
	}
	case X_ATTR: { /* cls.f or Module.f as a value: TVM's GlobalVar */
		const char *name = bld_callee_name(b, x);
		bool global = false;
		if (name && !(name = global_name(b, name, x->span, &global)))
			return NULL;
		if (!global) {
			diag_error(b->d, x->span, "unexpected expression");
			return NULL;
		}
		Expr *e = ir_expr(b->m, E_GLOBAL, x->span);
		e->str = arena_strdup(&b->m->arena, name);
		return e;
	}
	case X_TUPLE:
	case X_LIST: {
		Expr *e = ir_expr(b->m, E_TUPLE, x->span);
		e->tuple.n = x->n;
		e->tuple.items = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
		int i = 0;
		double d;
		bool isf;
		/* a Python number or bool in a tuple is a prim value, as TVM's
		 * convert_to_expr makes it ([x, 16, True]); so is a symbolic
		 * variable standing alone, a scalar argument of R.call_tir in
		 * TVM main's spelling ([B, n]) */
		for (Syn *y = x->items; y; y = y->next, i++) {
			bool sym = y->kind == X_NAME && !bld_find_entry(b, y->s) &&
				   bld_find_symvar(b, y->s);
			if (!(e->tuple.items[i] = sym || y->kind == X_TRUE || y->kind == X_FALSE ||
						      bld_num_lit(y, &d, &isf)
						      ? bld_conv_prim(b, y) : bld_conv_leaf(b, y)))
				return NULL;
		}
		return e;
	}
	case X_INDEX: {
		int64_t i;
		if (!bld_int_lit(x->b, &i) || i < 0 || i > 1 << 30) {
			diag_error(b->d, x->b->span,
				   "a tuple index must be a non-negative integer");
			return NULL;
		}
		return tuple_get(b, x->a, (int)i, x->span);
	}
	case X_CALL:
		return conv_call(b, x);
	case X_INT:
	case X_FLOAT:
	case X_TRUE:
	case X_FALSE:
		diag_error(b->d, x->span,
			   "a Python value is not a Relax expression (use R.const or R.prim_value)");
		return NULL;
	case X_BIN:
	case X_NEG:
		return conv_operator(b, x);
	default:
		diag_error(b->d, x->span, "unexpected expression");
		return NULL;
	}
}

/* An expression as a call argument: non-leaves are bound to lv vars. */
Expr *
bld_conv_leaf(B *b, Syn *x)
{
	Expr *e = bld_conv_value(b, x);
	if (!e || ir_is_leaf(e))
		return e;
	return bld_bind_fresh(b, e, "lv", &b->lv_next);
}
