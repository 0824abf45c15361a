/*
 * build_sinfo.c — the builder's dimensions and struct-info annotations:
 * R.Tensor / R.Shape / R.Prim / R.Tuple / R.Object / R.Callable texts to
 * SInfo, symbolic dimensions defined at their first bare occurrence.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

/* ------------------------------------------------------- dimensions */

/* A dimension expression; bare undefined names are defined if `define`. */
static PExpr *
conv_dim_raw(B *b, Syn *x, bool define, bool bare)
{
	Arena *a = &b->m->arena;
	PExpr *p = NULL;
	int64_t v;
	switch (x->kind) {
	case X_INT:
		p = pe_int(a, x->i);
		break;
	case X_NEG:
		if (bld_int_lit(x, &v)) {
			p = pe_int(a, v);
		} else {
			PExpr *y = conv_dim_raw(b, x->a, define, false);
			if (!y)
				return NULL;
			p = pe_bin(a, PE_SUB, pe_int(a, 0), y);
		}
		break;
	case X_STR: {
		Syn *y = syn_parse_dim(b->ps, x->s, x->span);
		if (!y)
			return NULL;
		if (y->kind == X_NAME || !bare)
			y->span = x->span;
		return conv_dim_raw(b, y, define, bare);
	}
	case X_NAME: {
		const DimConst *dc = bld_find_dimconst(b, x->s);
		if (dc) {
			p = pe_int(a, dc->value);
			break;
		}
		SymVar *s = bld_find_symvar(b, x->s);
		if (!s && define && bare)
			s = bld_define_symvar(b, x->s, x->span);
		if (!s) {
			if (bld_find_entry(b, x->s))
				diag_error(b->d, x->span,
					   "'%s' is not a symbolic variable",
					   x->s);
			else
				diag_error(b->d, x->span,
					   "undefined symbolic variable '%s'",
					   x->s);
			return NULL;
		}
		p = pe_var(a, s);
		break;
	}
	case X_BIN: {
		if (x->op < 0) {
			diag_error(b->d, x->span, x->op == SYN_TRUEDIV
				   ? "'/' in a dimension expression (write '//' for floor division)"
				   : "'%s' in a dimension expression", syn_op_text(x->op));
			return NULL;
		}
		if (PE_IS_CMP(x->op) && !bare) {
			diag_error(b->d, x->span,
				   "a comparison is a bool: it cannot be part "
				   "of a dimension expression");
			return NULL;
		}
		PExpr *l = conv_dim_raw(b, x->a, define, false);
		PExpr *r = l ? conv_dim_raw(b, x->b, define, false) : NULL;
		if (!r)
			return NULL;
		if ((x->op == PE_FLOORDIV || x->op == PE_FLOORMOD) &&
		    pe_is_const(pe_simplify(a, r), &v) && v == 0) {
			diag_error(b->d, x->span,
				   "division by zero in a dimension expression");
			return NULL;
		}
		p = pe_bin(a, (PExprKind)x->op, l, r);
		break;
	}
	case X_CALL:
		if ((bld_is_named(x, "T.min") || bld_is_named(x, "T.max")) &&
		    x->n == 2 && x->items->kind != X_KWARG &&
		    x->items->next->kind != X_KWARG) {
			PExpr *l = conv_dim_raw(b, x->items, define, false);
			PExpr *r = l ? conv_dim_raw(b, x->items->next, define,
						    false)
				     : NULL;
			if (!r)
				return NULL;
			p = pe_bin(a, bld_is_named(x, "T.min") ? PE_MIN : PE_MAX, l, r);
			break;
		}
		if (bld_is_named(x, "T.int64") && x->n == 1 &&
		    x->items->kind != X_KWARG) {
			/* T.int64(16), T.int64(n): the dimension itself */
			p = conv_dim_raw(b, x->items, define, bare);
			if (!p)
				return NULL;
			break;
		}
		/* fall through */
	default:
		if (x->kind == X_FLOAT)
			diag_error(b->d, x->span,
				   "a dimension must be an integer, got %g",
				   x->f);
		else
			diag_error(b->d, x->span,
				   "expected a dimension (an integer, a symbolic variable or an expression of them)");
		return NULL;
	}
	p->span = x->span;
	return p;
}

/* A dimension in canonical form. */
PExpr *
bld_conv_dim(B *b, Syn *x, bool define)
{
	PExpr *p = conv_dim_raw(b, x, define, true);
	if (!p)
		return NULL;
	PExpr *s = pe_simplify(&b->m->arena, p);
	if (s != p && s->span.line == 0)
		s->span = p->span;
	return s;
}

/* A dimension that is a size: as bld_conv_dim, but not a comparison (a
 * bool, which only an R.Prim value or R.prim_value may be). */
PExpr *
bld_conv_size(B *b, Syn *x, bool define)
{
	PExpr *p = bld_conv_dim(b, x, define);
	if (p && PE_IS_CMP(p->kind)) {
		diag_error(b->d, x->span,
			   "a comparison is a bool, not a dimension");
		return NULL;
	}
	return p;
}

/* A list or tuple of dimensions; n gets the count. */
PExpr **
bld_conv_dims(B *b, Syn *x, bool define, int *n, bool *ok)
{
	*n = x->n;
	PExpr **v = ARENA_ARRAY(&b->m->arena, PExpr *, x->n ? x->n : 1);
	int i = 0;
	for (Syn *y = x->items; y; y = y->next, i++) {
		v[i] = bld_conv_size(b, y, define);
		if (!v[i])
			*ok = false;
	}
	return v;
}

/* Dimensions of an annotation: as bld_conv_dims, and none is negative. */
static PExpr **
conv_ann_dims(B *b, Syn *x, bool define, int *n, bool *ok)
{
	PExpr **v = bld_conv_dims(b, x, define, n, ok);
	int i = 0;
	for (Syn *y = x->items; y; y = y->next, i++) {
		int64_t c;
		if (v[i] && pe_is_const(v[i], &c) && c < 0) {
			diag_error(b->d, y->span,
				   "dimension %lld is negative; a dimension is a size, at least 0",
				   (long long)c);
			*ok = false;
		}
	}
	return v;
}

/* A dtype string; reports unknown ones. */
bool
bld_conv_dtype(B *b, Syn *x, DType *out)
{
	if (x->kind != X_STR) {
		diag_error(b->d, x->span, "expected a dtype string");
		return false;
	}
	if (!dtype_parse(x->s, out)) {
		const char *hint = bld_suggest_dtype(x->s);
		if (hint)
			diag_error(b->d, x->span,
				   "unknown dtype '%s'; did you mean \"%s\"?",
				   x->s, hint);
		else
			diag_error(b->d, x->span,
				   "unknown dtype '%s' (rlx knows bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, float8_e4m3fn, float8_e5m2)",
				   x->s);
		return false;
	}
	return true;
}

/* --------------------------------------------------------- struct info */

static SInfo *
conv_tensor_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"shape", "dtype", "vdevice", "ndim"};
	Syn *a4[4] = {0}, *arg[3] = {0};
	const char *vdev = NULL;
	if (x->kind == X_CALL) {
		if (!bld_match_args(b, x, "R.Tensor", names, 4, a4))
			return NULL;
		arg[0] = a4[0];
		arg[1] = a4[1];
		arg[2] = a4[3];
		if (a4[2] && a4[2]->kind != X_NONE) { /* TVM's virtual device */
			if (a4[2]->kind != X_STR ||
			    !(vdev = ir_vdevice_canon(&b->m->arena, a4[2]->s))) {
				diag_error(b->d, a4[2]->span, "vdevice must be a string "
					   "\"KIND\", \"KIND:INDEX\" or \"KIND:INDEX:SCOPE\" "
					   "(\"llvm\", \"cuda:1\")");
				return NULL;
			}
		}
		if (arg[0] && arg[0]->kind == X_STR && !arg[1]) {
			arg[1] = arg[0]; /* R.Tensor("float32") */
			arg[0] = NULL;
		}
	}
	DType dt = DT_UNKNOWN;
	int ndim = -1;
	PExpr **shape = NULL;
	bool ok = true;
	if (arg[1] && arg[1]->kind != X_NONE && !bld_conv_dtype(b, arg[1], &dt))
		ok = false;
	if (arg[0] && arg[0]->kind != X_NONE) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a tuple of dimensions");
			return NULL;
		}
		shape = conv_ann_dims(b, arg[0], define, &ndim, &ok);
	}
	if (arg[2]) {
		int64_t v;
		if (!bld_int_lit(arg[2], &v) || v < -1) {
			diag_error(b->d, arg[2]->span,
				   "ndim must be an integer");
			return NULL;
		}
		if (shape && v != ndim && v != -1) {
			diag_error(b->d, arg[2]->span,
				   "ndim %lld does not match the shape's %d dimensions",
				   (long long)v, ndim);
			return NULL;
		}
		ndim = (int)v;
	}
	if (!ok)
		return NULL;
	SInfo *si = si_tensor(&b->m->arena, dt, ndim, shape);
	si->vdevice = vdev;
	return si;
}

static SInfo *
conv_shape_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"values", "ndim"};
	Syn *arg[2] = {0};
	if (x->kind == X_CALL && !bld_match_args(b, x, "R.Shape", names, 2, arg))
		return NULL;
	int ndim = -1;
	PExpr **values = NULL;
	bool ok = true;
	if (arg[0] && arg[0]->kind != X_NONE) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a list of dimensions");
			return NULL;
		}
		values = conv_ann_dims(b, arg[0], define, &ndim, &ok);
	}
	if (arg[1]) {
		int64_t v;
		if (!bld_int_lit(arg[1], &v) || v < -1 ||
		    (values && v != ndim && v != -1)) {
			diag_error(b->d, arg[1]->span, "bad ndim for R.Shape");
			return NULL;
		}
		ndim = (int)v;
	}
	return ok ? si_shape(&b->m->arena, ndim, values) : NULL;
}

static SInfo *
conv_prim_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"dtype", "value"};
	Syn *arg[2] = {0};
	if (x->kind == X_CALL && !bld_match_args(b, x, "R.Prim", names, 2, arg))
		return NULL;
	DType dt = DT_UNKNOWN;
	PExpr *value = NULL;
	if (arg[0] && !bld_conv_dtype(b, arg[0], &dt))
		return NULL;
	if (arg[1]) {
		value = bld_conv_dim(b, arg[1], define);
		if (!value)
			return NULL;
		if (!arg[0])
			dt = DT_I64;
	}
	return si_prim(&b->m->arena, dt, value);
}

/* The struct info of a list of annotations; n gets the count. */
static SInfo **
conv_sinfos(B *b, Syn *items, int n, bool define, bool *ok)
{
	SInfo **v = ARENA_ARRAY(&b->m->arena, SInfo *, n ? n : 1);
	int i = 0;
	for (Syn *y = items; y; y = y->next, i++) {
		if (y->kind == X_KWARG) {
			diag_error(b->d, y->span, "unexpected keyword argument '%s'",
				   y->s);
			*ok = false;
			continue;
		}
		v[i] = bld_conv_sinfo(b, y, define);
		if (!v[i])
			*ok = false;
	}
	return v;
}

static SInfo *
conv_callable_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"params", "ret", "purity"};
	Syn *arg[3] = {0};
	if (x->kind == X_CALL &&
	    !bld_match_args(b, x, "R.Callable", names, 3, arg))
		return NULL;
	bool ok = true, pure = true;
	SInfo **params = NULL;
	int n = 0;
	if (arg[0]) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a tuple of parameter annotations");
			return NULL;
		}
		n = arg[0]->n;
		params = conv_sinfos(b, arg[0]->items, n, define, &ok);
	}
	SInfo *ret = arg[1] ? bld_conv_sinfo(b, arg[1], define) : si_object(&b->m->arena);
	if (!ret)
		ok = false;
	if (arg[2]) {
		if (arg[2]->kind != X_TRUE && arg[2]->kind != X_FALSE) {
			diag_error(b->d, arg[2]->span, "purity must be True or False");
			return NULL;
		}
		pure = arg[2]->kind == X_TRUE;
	}
	return ok ? si_func(&b->m->arena, params, n, ret, pure) : NULL;
}

/* An annotation; define: bare undefined dimension names define SymVars. */
SInfo *
bld_conv_sinfo(B *b, Syn *x, bool define)
{
	const char *name = NULL;
	if (x->kind == X_CALL || x->kind == X_ATTR)
		name = bld_callee_name(b, x);
	SInfo *s = NULL;
	if (!name) {
		if (x->kind == X_NONE)
			diag_error(b->d, x->span,
				   "None is not a struct info annotation: a Relax function always returns a value (write R.Tuple for an empty tuple, or leave the annotation out)");
		else
			diag_error(b->d, x->span, "expected a struct info annotation (R.Tensor, R.Tuple, ...)");
		return NULL;
	}
	if (!strcmp(name, "R.Tensor")) {
		s = conv_tensor_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Shape")) {
		s = conv_shape_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Prim")) {
		s = conv_prim_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Tuple")) {
		bool ok = true;
		int n = x->kind == X_CALL ? x->n : 0;
		Syn *items = x->kind == X_CALL ? x->items : NULL;
		if (n == 1 && items->kind == X_LIST) { /* R.Tuple([A, B]) */
			n = items->n;
			items = items->items;
		}
		SInfo **f = conv_sinfos(b, items, n, define, &ok);
		s = ok ? si_tuple(&b->m->arena, f, n) : NULL;
	} else if (!strcmp(name, "R.Any") || !strcmp(name, "R.Object")) {
		if (x->kind == X_CALL && x->n) {
			diag_error(b->d, x->items->span,
				   "%s takes no arguments", name);
			return NULL;
		}
		s = si_object(&b->m->arena);
	} else if (!strcmp(name, "R.Callable")) {
		s = conv_callable_sinfo(b, x, define);
	} else if (x->kind == X_ATTR && x->a->kind == X_NAME &&
		   (!strcmp(x->s, "ty") || !strcmp(x->s, "struct_info")) &&
		   bld_find_entry(b, x->a->s)) {
		/* `v.ty` (TVMScript evaluates it: the variable's struct info),
		 * as TVM's tests write ty_args=[v.ty] */
		Var *v = bld_lookup(b, x->a);
		if (!v)
			return NULL;
		if (!v->sinfo) {
			diag_error(b->d, x->span, "%s.%s needs the struct info of '%s' "
				   "written (annotate it where it is defined)",
				   x->a->s, x->s, x->a->s);
			return NULL;
		}
		s = ir_copy_sinfo(b->m, v->sinfo);
	} else {
		diag_error(b->d, x->span,
			   "unknown struct info annotation '%s' (expected R.Tensor, R.Tuple, R.Shape, R.Prim, R.Any or R.Callable)",
			   name);
		return NULL;
	}
	if (s)
		s->span = x->span;
	return s;
}
