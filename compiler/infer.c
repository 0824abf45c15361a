/*
 * infer.c — struct-info inference over whole modules (Relax's normalizer),
 * the relations between struct infos (si_check, si_equal, the join), and the
 * helpers the op rules of infer_ops.c share.
 *
 * Inference walks each function in order. Every expression gets its
 * Expr.sinfo; an unannotated Var takes the inferred struct info; an
 * annotation is checked against it (provably different is an error, not
 * provable is kept as a runtime check). A binding whose value failed gets
 * R.Object and its variable is remembered as failed: a use of it fails
 * silently, so that later bindings do not report follow-on errors (one
 * mistake, one error).
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* State of one inference run: which functions are done or in progress. */
typedef struct {
	Module *m;
	Diags *d;
	char *fstate; /* per function of m: 0 not yet, 1 running, 2 done */
	Vec failed;   /* Var*: unannotated variables whose value failed */
} Infer;

static SInfo *infer(Infer *in, Expr *e);

/* ------------------------------------------------------------ helpers */

DimRel
infer_dim_rel(Module *m, PExpr *a, PExpr *b)
{
	int64_t x, y;
	if (!a || !b)
		return DIM_UNKNOWN;
	if (a == b || (a->kind == PE_VAR && b->kind == PE_VAR && a->var == b->var))
		return DIM_EQUAL;
	bool ca = pe_is_const(a, &x), cb = pe_is_const(b, &y);
	if (ca && cb)
		return x == y ? DIM_EQUAL : DIM_DIFFER;
	if (pe_struct_equal(a, b) || pe_equal(&m->arena, a, b))
		return DIM_EQUAL;
	/* a - b folding to a nonzero constant proves them different. */
	PExpr *diff = pe_simplify(&m->arena, pe_bin(&m->arena, PE_SUB, a, b));
	if (pe_is_const(diff, &x))
		return x == 0 ? DIM_EQUAL : DIM_DIFFER;
	return DIM_UNKNOWN;
}

const char *
infer_sinfo_str(Module *m, const SInfo *si)
{
	StrBuf b = {0};
	if (si)
		print_sinfo(&b, si);
	else
		sb_puts(&b, "R.Any");
	char *s = sb_take(&b);
	char *r = arena_strdup(&m->arena, s);
	free(s);
	return r;
}

/* True when si's dims are known (a 0-d tensor has no dims to know). */
static bool
known_dims(const SInfo *si)
{
	return si->ndim == 0 || (si->ndim > 0 && si->shape);
}

/* Combines two relations: the weaker wins. */
static SiRel
rel_min(SiRel a, SiRel b)
{
	return a < b ? a : b;
}

/* si_check of one dimension pair. */
static SiRel
dim_check(Module *m, PExpr *ann, PExpr *val)
{
	switch (infer_dim_rel(m, ann, val)) {
	case DIM_EQUAL:
		return SI_PROVEN;
	case DIM_DIFFER:
		return SI_FAIL;
	default:
		return SI_UNKNOWN;
	}
}

/* si_check of the dims of two tensors or two shapes. */
static SiRel
dims_check(Module *m, const SInfo *ann, const SInfo *val)
{
	if (ann->ndim < 0)
		return SI_PROVEN;
	if (val->ndim < 0)
		return SI_UNKNOWN;
	if (ann->ndim != val->ndim)
		return SI_FAIL;
	if (!known_dims(ann))
		return SI_PROVEN;
	if (!known_dims(val))
		return SI_UNKNOWN;
	SiRel r = SI_PROVEN;
	for (int i = 0; i < ann->ndim; i++)
		r = rel_min(r, dim_check(m, ann->shape[i], val->shape[i]));
	return r;
}

/* si_check of dtypes. */
static SiRel
dtype_check(DType ann, DType val)
{
	if (ann == DT_UNKNOWN)
		return SI_PROVEN;
	if (val == DT_UNKNOWN)
		return SI_UNKNOWN;
	return ann == val ? SI_PROVEN : SI_FAIL;
}

SiRel
si_check(Module *m, const SInfo *ann, const SInfo *val)
{
	if (!ann || ann->kind == SI_OBJECT)
		return SI_PROVEN;
	if (!val || val->kind == SI_OBJECT)
		return SI_UNKNOWN;
	if (ann->kind != val->kind)
		return SI_FAIL;
	SiRel r = SI_PROVEN;
	switch (ann->kind) {
	case SI_OBJECT:
		break;
	case SI_PRIM:
		r = dtype_check(ann->dtype, val->dtype);
		if (ann->value)
			r = rel_min(r, val->value ? dim_check(m, ann->value,
							      val->value)
						  : SI_UNKNOWN);
		break;
	case SI_SHAPE:
		r = dims_check(m, ann, val);
		break;
	case SI_TENSOR:
		r = rel_min(dtype_check(ann->dtype, val->dtype),
			    dims_check(m, ann, val));
		break;
	case SI_TUPLE:
		if (ann->nfields != val->nfields)
			return SI_FAIL;
		for (int i = 0; i < ann->nfields; i++)
			r = rel_min(r, si_check(m, ann->fields[i],
						val->fields[i]));
		break;
	case SI_FUNC:
		if (ann->nfields != val->nfields)
			return SI_FAIL;
		/* Parameters are contravariant. */
		for (int i = 0; i < ann->nfields; i++)
			r = rel_min(r, si_check(m, val->fields[i],
						ann->fields[i]));
		r = rel_min(r, si_check(m, ann->ret, val->ret));
		if (ann->pure && !val->pure)
			r = SI_FAIL;
		break;
	}
	return r;
}

/* Whether the dims of a and b (tensors or shapes) are the same. */
static bool
dims_equal(Module *m, const SInfo *a, const SInfo *b)
{
	if (a->ndim != b->ndim || known_dims(a) != known_dims(b))
		return false;
	if (!known_dims(a))
		return true;
	for (int i = 0; i < a->ndim; i++)
		if (infer_dim_rel(m, a->shape[i], b->shape[i]) != DIM_EQUAL)
			return false;
	return true;
}

bool
si_equal(Module *m, const SInfo *a, const SInfo *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case SI_OBJECT:
		return true;
	case SI_PRIM:
		if (a->dtype != b->dtype || !a->value != !b->value)
			return false;
		return !a->value ||
		       infer_dim_rel(m, a->value, b->value) == DIM_EQUAL;
	case SI_SHAPE:
		return dims_equal(m, a, b);
	case SI_TENSOR:
		return a->dtype == b->dtype && dims_equal(m, a, b);
	case SI_TUPLE:
	case SI_FUNC:
		if (a->nfields != b->nfields)
			return false;
		for (int i = 0; i < a->nfields; i++)
			if (!si_equal(m, a->fields[i], b->fields[i]))
				return false;
		if (a->kind == SI_FUNC)
			return a->pure == b->pure && si_equal(m, a->ret, b->ret);
		return true;
	}
	return false;
}

/* The least common generalization of a and b (TVM's StructInfoLCA). */
static SInfo *
si_join(Module *m, const SInfo *a, const SInfo *b)
{
	Arena *ar = &m->arena;
	if (!a || !b || a->kind != b->kind)
		return si_object(ar);
	switch (a->kind) {
	case SI_OBJECT:
		return si_object(ar);
	case SI_PRIM:
		if (a->dtype != b->dtype)
			return si_object(ar);
		return si_prim(ar, a->dtype,
			       a->value && b->value &&
					       infer_dim_rel(m, a->value, b->value) ==
						       DIM_EQUAL
				       ? a->value
				       : NULL);
	case SI_SHAPE:
	case SI_TENSOR: {
		int ndim = a->ndim == b->ndim ? a->ndim : -1;
		PExpr **shape = NULL;
		if (ndim > 0 && dims_equal(m, a, b))
			shape = a->shape;
		else if (ndim == 0)
			shape = ARENA_ARRAY(ar, PExpr *, 1);
		if (a->kind == SI_SHAPE)
			return si_shape(ar, ndim, shape);
		return si_tensor(ar, a->dtype == b->dtype ? a->dtype : DT_UNKNOWN,
				 ndim, shape);
	}
	case SI_TUPLE: {
		if (a->nfields != b->nfields)
			return si_object(ar);
		SInfo **f = ARENA_ARRAY(ar, SInfo *, a->nfields ? a->nfields : 1);
		for (int i = 0; i < a->nfields; i++)
			f[i] = si_join(m, a->fields[i], b->fields[i]);
		return si_tuple(ar, f, a->nfields);
	}
	case SI_FUNC:
		return si_equal(m, a, b) ? ir_copy_sinfo(m, a) : si_object(ar);
	}
	return si_object(ar);
}

/* ------------------------------------------- symbolic variables in sinfo */

/* Whether every SymVar of x is one of vars[0..n). */
static bool
pexpr_vars_in(const PExpr *x, SymVar **vars, int n)
{
	if (!x)
		return true;
	if (x->kind == PE_VAR) {
		for (int i = 0; i < n; i++)
			if (vars[i] == x->var)
				return true;
		return false;
	}
	if (x->kind == PE_INT)
		return true;
	return pexpr_vars_in(x->a, vars, n) && pexpr_vars_in(x->b, vars, n);
}

/* Appends every SymVar of x to out (unique). */
static void
pexpr_collect(const PExpr *x, Vec *out)
{
	if (!x)
		return;
	if (x->kind == PE_VAR) {
		for (int i = 0; i < out->n; i++)
			if (out->items[i] == x->var)
				return;
		vec_push(out, x->var);
		return;
	}
	pexpr_collect(x->a, out);
	pexpr_collect(x->b, out);
}

/* Every SymVar mentioned in si, appended to out. */
static void
sinfo_collect(const SInfo *si, Vec *out)
{
	if (!si)
		return;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			pexpr_collect(si->shape[i], out);
	pexpr_collect(si->value, out);
	for (int i = 0; i < si->nfields; i++)
		sinfo_collect(si->fields[i], out);
	sinfo_collect(si->ret, out);
}

/*
 * si with every dim or value that mentions a SymVar outside vars[0..n)
 * forgotten (TVM's EraseToWellDefined): a tensor keeps its ndim.
 */
SInfo *
si_erase(Module *m, const SInfo *si, SymVar **vars, int n)
{
	if (!si)
		return NULL;
	SInfo *c = ir_copy_sinfo(m, si);
	if (c->shape && c->ndim > 0)
		for (int i = 0; i < c->ndim; i++)
			if (!pexpr_vars_in(c->shape[i], vars, n)) {
				c->shape = NULL;
				break;
			}
	if (!pexpr_vars_in(c->value, vars, n))
		c->value = NULL;
	for (int i = 0; i < c->nfields; i++)
		c->fields[i] = si_erase(m, c->fields[i], vars, n);
	c->ret = si_erase(m, c->ret, vars, n);
	return c;
}

/* x with from[i] replaced by to[i]; a bare variable is replaced directly. */
static PExpr *
pexpr_subst(Module *m, PExpr *x, SymVar **from, PExpr **to, int n)
{
	if (!x || !n)
		return x;
	if (x->kind == PE_VAR) {
		for (int i = 0; i < n; i++)
			if (from[i] == x->var)
				return to[i];
		return x;
	}
	if (x->kind == PE_INT)
		return x;
	return pe_subst(&m->arena, x, from, to, n);
}

/* si (copied) with from[i] replaced by to[i] in every dim and value. */
static SInfo *
si_subst(Module *m, const SInfo *si, SymVar **from, PExpr **to, int n)
{
	if (!si)
		return NULL;
	SInfo *c = ir_copy_sinfo(m, si);
	if (c->shape)
		for (int i = 0; i < c->ndim; i++)
			c->shape[i] = pexpr_subst(m, c->shape[i], from, to, n);
	c->value = pexpr_subst(m, c->value, from, to, n);
	for (int i = 0; i < c->nfields; i++)
		c->fields[i] = si_subst(m, c->fields[i], from, to, n);
	c->ret = si_subst(m, c->ret, from, to, n);
	return c;
}

/*
 * Binds the SymVars that appear bare in the parameter annotation `ann` to
 * the matching dims of the argument's struct info `arg` (first binding wins).
 */
static void
bind_symvars(const SInfo *ann, const SInfo *arg, Vec *from, Vec *to)
{
	if (!ann || !arg || ann->kind != arg->kind)
		return;
	if (ann->shape && arg->shape && ann->ndim == arg->ndim)
		for (int i = 0; i < ann->ndim; i++) {
			PExpr *x = ann->shape[i];
			if (x->kind != PE_VAR)
				continue;
			bool seen = false;
			for (int j = 0; j < from->n; j++)
				seen |= from->items[j] == x->var;
			if (!seen) {
				vec_push(from, x->var);
				vec_push(to, arg->shape[i]);
			}
		}
	if (ann->value && arg->value && ann->value->kind == PE_VAR) {
		bool seen = false;
		for (int j = 0; j < from->n; j++)
			seen |= from->items[j] == ann->value->var;
		if (!seen) {
			vec_push(from, ann->value->var);
			vec_push(to, arg->value);
		}
	}
	if (ann->kind == SI_TUPLE && ann->nfields == arg->nfields)
		for (int i = 0; i < ann->nfields; i++)
			bind_symvars(ann->fields[i], arg->fields[i], from, to);
}

/* ----------------------------------------------------------- expressions */

static SInfo *infer_func(Infer *in, Func *f, int idx);
static SInfo *infer_fn(Infer *in, Func *f);

/* E_CALL: the op's rule, after the arguments. */
static SInfo *
infer_call(Infer *in, Expr *e)
{
	OpSig sig;
	op_sig(e->call.op, &sig);
	const char *name = op_info(e->call.op)->name;
	/* a trailing optional argument may be left out (unique's axis) */
	if ((sig.variadic ? e->call.nargs < sig.nargs - 1
			  : e->call.nargs < sig.nreq || e->call.nargs > sig.nargs) ||
	    e->call.nattrs != sig.nattrs) {
		diag_error(in->d, e->span,
			   "R.%s: expects %d arguments and %d attributes, "
			   "got %d and %d",
			   name, sig.nargs, sig.nattrs, e->call.nargs,
			   e->call.nattrs);
		return NULL;
	}
	bool ok = true;
	for (int i = 0; i < e->call.nargs; i++)
		ok &= infer(in, e->call.args[i]) != NULL;
	if (!ok)
		return NULL;
	/* a callee's arguments are an in-line tuple: one value that is not a
	 * tuple becomes (value,), as TVM's Python wrappers build it */
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		Expr *a = q->kind == PK_TUPLE && q->slot < e->call.nargs ? e->call.args[q->slot] : NULL;
		if (!a || a->kind == E_TUPLE || (a->sinfo && a->sinfo->kind == SI_TUPLE))
			continue;
		Expr *t = ir_expr(in->m, E_TUPLE, a->span);
		t->tuple.items = ARENA_ARRAY(&in->m->arena, Expr *, 1);
		t->tuple.items[0] = a;
		t->tuple.n = 1;
		SInfo **f = ARENA_ARRAY(&in->m->arena, SInfo *, 1);
		f[0] = a->sinfo;
		t->sinfo = si_tuple(&in->m->arena, f, 1);
		e->call.args[q->slot] = t;
	}
	InferFn fn = op_info(e->call.op)->infer;
	e->call.nassume = 0;
	return fn ? fn(in->m, e, in->d) : si_object(&in->m->arena);
}

/* E_CALL_FN: the callee's return struct info, its SymVars bound. */
static SInfo *
infer_call_fn(Infer *in, Expr *e)
{
	Module *m = in->m;
	int idx = ir_func_index(m, e->callfn.callee);
	bool ok = true;
	for (int i = 0; i < e->callfn.nargs; i++)
		ok &= infer(in, e->callfn.args[i]) != NULL;
	const PrimFunc *pf = idx < 0 ? tir_find(m, e->callfn.callee) : NULL;
	if (pf) {
		/* a prim_func called directly (lowered code): it returns
		 * nothing, or its T.ret scalar */
		if (e->callfn.nargs != pf->nparams) {
			diag_error(in->d, e->span, "cls.%s: expects %d argument%s, got %d",
				   pf->name, pf->nparams, pf->nparams == 1 ? "" : "s",
				   e->callfn.nargs);
			return NULL;
		}
		return pf->ret != DT_UNKNOWN && pf->ret != TT_HANDLE
		       ? si_prim(&m->arena, (DType)pf->ret, NULL) : si_tuple(&m->arena, NULL, 0);
	}
	if (idx < 0) {
		diag_error(in->d, e->span, "unknown function cls.%s",
			   e->callfn.callee);
		return NULL;
	}
	Func *f = m->funcs[idx];
	if (e->callfn.nargs != f->nparams) {
		diag_error(in->d, e->span,
			   "cls.%s: expects %d argument%s, got %d", f->name,
			   f->nparams, f->nparams == 1 ? "" : "s",
			   e->callfn.nargs);
		return NULL;
	}
	if (!ok)
		return NULL;
	Vec from = {0}, to = {0};
	for (int i = 0; i < f->nparams; i++)
		bind_symvars(f->params[i]->sinfo, e->callfn.args[i]->sinfo,
			     &from, &to);
	SymVar **fv = (SymVar **)from.items;
	PExpr **tv = (PExpr **)to.items;
	for (int i = 0; i < f->nparams && ok; i++) {
		SInfo *want = si_subst(m, f->params[i]->sinfo, fv, tv, from.n);
		const SInfo *got = e->callfn.args[i]->sinfo;
		if (si_check(m, want, got) == SI_FAIL) {
			diag_error(in->d, e->callfn.args[i]->span,
				   "cls.%s: argument %d (%s) expects %s, got %s",
				   f->name, i + 1, f->params[i]->name,
				   infer_sinfo_str(m, want),
				   infer_sinfo_str(m, got));
			ok = false;
		}
	}
	SInfo *ret = NULL;
	if (ok) {
		ret = f->ret;
		if (!ret && in->fstate && in->fstate[idx] == 0)
			ret = infer_func(in, f, idx);
		if (!ret)
			ret = si_object(&m->arena);
		ret = si_subst(m, si_erase(m, ret, fv, from.n), fv, tv,
			       from.n);
	}
	vec_free(&from);
	vec_free(&to);
	return ret;
}

/*
 * E_GLOBAL (cls.f as a value, TVM's GlobalVar): f's R.Callable, its
 * parameters and return with f's symbolic variables erased (they are f's,
 * not the referring function's). A function being inferred (recursion)
 * contributes its return annotation, else R.Any.
 */
static SInfo *
infer_global(Infer *in, Expr *e)
{
	Module *m = in->m;
	int idx = e->str ? ir_func_index(m, e->str) : -1;
	const PrimFunc *pf = idx < 0 && e->str ? tir_find(m, e->str) : NULL;
	if (pf) {
		/* a prim_func: its buffers are tensors, its scalars prim
		 * values; it returns nothing (or its T.ret type) */
		SInfo **ps = ARENA_ARRAY(&m->arena, SInfo *, pf->nparams ? pf->nparams : 1);
		for (int i = 0; i < pf->nparams; i++) {
			const TParam *q = &pf->params[i];
			ps[i] = q->buf ? si_tensor(&m->arena, q->buf->dtype, q->buf->ndim, NULL)
			      : q->var->ty == TT_HANDLE ? si_object(&m->arena)
			      : si_prim(&m->arena, (DType)q->var->ty, NULL);
		}
		SInfo *ret = pf->ret != DT_UNKNOWN && pf->ret != TT_HANDLE
			     ? si_prim(&m->arena, (DType)pf->ret, NULL)
			     : si_tuple(&m->arena, NULL, 0);
		return si_func(&m->arena, ps, pf->nparams, ret, false);
	}
	if (idx < 0) {
		diag_error(in->d, e->span, "unknown function cls.%s",
			   e->str ? e->str : "?");
		return NULL;
	}
	Func *f = m->funcs[idx];
	SInfo *ret = f->ret;
	if (!ret && in->fstate && in->fstate[idx] == 0)
		ret = infer_func(in, f, idx);
	if (!ret)
		ret = si_object(&m->arena);
	SInfo **ps = ARENA_ARRAY(&m->arena, SInfo *, f->nparams ? f->nparams : 1);
	for (int i = 0; i < f->nparams; i++)
		ps[i] = si_erase(m, f->params[i]->sinfo ? f->params[i]->sinfo
						       : si_object(&m->arena),
				 NULL, 0);
	return si_func(&m->arena, ps, f->nparams, si_erase(m, ret, NULL, 0),
		       f->pure);
}

/* Whether si can be an `if` condition: a bool scalar. */
static bool
cond_ok(const SInfo *si)
{
	switch (si->kind) {
	case SI_OBJECT:
		return true;
	case SI_PRIM:
		return si->dtype == DT_BOOL || si->dtype == DT_UNKNOWN;
	case SI_TENSOR:
		return (si->dtype == DT_BOOL || si->dtype == DT_UNKNOWN) &&
		       si->ndim <= 0;
	default:
		return false;
	}
}

/*
 * True when si holds a tensor (tuple fields included) whose dims are all
 * constants with a product beyond int64: no such tensor can exist, and
 * every size computed from it would overflow.
 */
static bool
too_large(const SInfo *si)
{
	if (!si)
		return false;
	for (int i = 0; i < si->nfields; i++)
		if (too_large(si->fields[i]))
			return true;
	if (si->kind != SI_TENSOR || !si->shape || si->ndim <= 0)
		return false;
	int64_t n = 1, v;
	bool over = false;
	for (int i = 0; i < si->ndim; i++) {
		if (!pe_is_const(si->shape[i], &v))
			return false;
		if (v == 0)
			return false;
		over |= __builtin_mul_overflow(n, v, &n);
	}
	return over;
}

/* Reports a var whose struct info holds an impossibly large tensor. */
static void
check_size(Infer *in, const Var *v, Span sp)
{
	if (too_large(v->sinfo))
		diag_error(in->d, sp,
			   "%s: %s has more than 2^63-1 elements", v->name,
			   infer_sinfo_str(in->m, v->sinfo));
}

/* One binding: infer, then annotate, check or cast the var. */
static void
infer_binding(Infer *in, Binding *b)
{
	Module *m = in->m;
	SInfo *v = infer(in, b->value);
	bool failed = v == NULL;
	if (failed)
		v = si_object(&m->arena);
	if (b->cast) {
		if (!failed && si_check(m, b->cast, v) == SI_FAIL)
			diag_error(in->d, b->span,
				   "R.match_cast: the value's %s can never "
				   "match %s",
				   infer_sinfo_str(m, v),
				   infer_sinfo_str(m, b->cast));
		b->var->sinfo = b->cast;
	} else if (b->annotated || b->var->sinfo) {
		if (!b->var->sinfo)
			b->var->sinfo = v;
		else if (!failed && si_check(m, b->var->sinfo, v) == SI_FAIL)
			diag_error(in->d, b->span,
				   "annotation %s does not match the value's %s",
				   infer_sinfo_str(m, b->var->sinfo),
				   infer_sinfo_str(m, v));
	} else {
		b->var->sinfo = v;
		if (failed)
			vec_push(&in->failed, b->var);
	}
	if (b->bare && !failed && (v->kind != SI_TUPLE || v->nfields))
		diag_error(in->d, b->span,
			   "the value of this call (%s) is not used: bind it "
			   "to a variable (only a call without a result, such "
			   "as R.print, may stand alone)",
			   infer_sinfo_str(m, v));
	check_size(in, b->var, b->span);
}

/* Whether v is a variable whose value failed (reported already). */
static bool
var_failed(const Infer *in, const Var *v)
{
	for (int i = 0; i < in->failed.n; i++)
		if (in->failed.items[i] == v)
			return true;
	return false;
}

/* A tuple index: the field of its tuple (R.Object of an R.Object). */
static SInfo *
infer_tuple_get(Infer *in, Expr *e)
{
	Module *m = in->m;
	Arena *a = &m->arena;
	SInfo *r = NULL;
	SInfo *t = infer(in, e->tget.tuple);
	if (!t)
		return NULL;
	if (t->kind == SI_OBJECT) {
		r = si_object(a);
	} else if (t->kind != SI_TUPLE) {
		diag_error(in->d, e->span,
			   "tuple index: expects a tuple, got %s",
			   infer_sinfo_str(m, t));
	} else if (e->tget.index < 0 ||
		   e->tget.index >= t->nfields) {
		diag_error(in->d, e->span,
			   "tuple index %d out of range for %s of %d "
			   "field%s",
			   e->tget.index, infer_sinfo_str(m, t),
			   t->nfields, t->nfields == 1 ? "" : "s");
	} else {
		r = t->fields[e->tget.index];
	}
	return r;
}

/* A call of a local function: the arguments against its parameters. */
static SInfo *
infer_call_var(Infer *in, Expr *e)
{
	Module *m = in->m;
	Arena *a = &m->arena;
	SInfo *r = NULL;
	SInfo *fs = infer(in, e->callv.fn);
	bool ok = fs != NULL;
	for (int i = 0; i < e->callv.nargs; i++)
		ok &= infer(in, e->callv.args[i]) != NULL;
	if (!ok)
		return NULL;
	if (fs->kind == SI_OBJECT) {
		r = si_object(a);
	} else if (fs->kind != SI_FUNC) {
		diag_error(in->d, e->span, "call of %s, which is not a "
			   "function", infer_sinfo_str(m, fs));
	} else if (fs->nfields != e->callv.nargs) {
		diag_error(in->d, e->span, "the function takes %d "
			   "argument%s but is called with %d",
			   fs->nfields, fs->nfields == 1 ? "" : "s",
			   e->callv.nargs);
	} else {
		for (int i = 0; i < fs->nfields; i++)
			if (si_check(m, fs->fields[i],
				     e->callv.args[i]->sinfo) == SI_FAIL) {
				diag_error(in->d, e->callv.args[i]->span,
					   "argument %d: %s does not match "
					   "the parameter's %s", i + 1,
					   infer_sinfo_str(m, e->callv.args[i]->sinfo),
					   infer_sinfo_str(m, fs->fields[i]));
				ok = false;
			}
		if (ok)
			r = ir_copy_sinfo(m, fs->ret ? fs->ret : si_object(a));
	}
	return r;
}

/* An if: a bool scalar condition, the join of its branches. */
static SInfo *
infer_if(Infer *in, Expr *e)
{
	Module *m = in->m;
	SInfo *r = NULL;
	SInfo *c = infer(in, e->if_.cond);
	if (c && !cond_ok(c))
		diag_error(in->d, e->if_.cond->span,
			   "if: the condition must be a bool scalar, "
			   "got %s",
			   infer_sinfo_str(m, c));
	SInfo *t = infer(in, e->if_.then_);
	SInfo *f = infer(in, e->if_.else_);
	if (c && cond_ok(c) && t && f)
		r = si_join(m, t, f);
	return r;
}

/* Infers e (and its subexpressions), sets e->sinfo; NULL after an error. */
static SInfo *
infer(Infer *in, Expr *e)
{
	Module *m = in->m;
	Arena *a = &m->arena;
	SInfo *r = NULL;
	switch (e->kind) {
	case E_VAR:
		if (in->failed.n && var_failed(in, e->var))
			break; /* its error is reported: no follow-on */
		r = e->var->sinfo ? e->var->sinfo : si_object(a);
		break;
	case E_CONST: {
		int n = e->cdata.ndim;
		PExpr **shape = ARENA_ARRAY(a, PExpr *, n ? n : 1);
		for (int i = 0; i < n; i++)
			shape[i] = pe_int(a, e->cdata.shape[i]);
		r = si_tensor(a, e->cdata.dtype, n, shape);
		break;
	}
	case E_TUPLE: {
		int n = e->tuple.n;
		SInfo **f = ARENA_ARRAY(a, SInfo *, n ? n : 1);
		bool ok = true;
		for (int i = 0; i < n; i++)
			ok &= (f[i] = infer(in, e->tuple.items[i])) != NULL;
		r = ok ? si_tuple(a, f, n) : NULL;
		break;
	}
	case E_TUPLE_GET:
		r = infer_tuple_get(in, e);
		break;
	case E_SHAPE: {
		PExpr **v = ARENA_ARRAY(a, PExpr *, e->shape.n ? e->shape.n : 1);
		for (int i = 0; i < e->shape.n; i++)
			v[i] = e->shape.values[i];
		r = si_shape(a, e->shape.n, v);
		break;
	}
	case E_PRIM:
		r = si_prim(a, e->prim.dtype,
			    dtype_is_float(e->prim.dtype) ? NULL
							  : e->prim.value);
		break;
	case E_STR:
	case E_EXTERN:
		r = si_object(a);
		break;
	case E_GLOBAL:
		r = infer_global(in, e);
		break;
	case E_CALL:
		r = infer_call(in, e);
		break;
	case E_CALL_FN:
		r = infer_call_fn(in, e);
		break;
	case E_FUNC: {
		Func *f = e->fn;
		SInfo *ret = infer_fn(in, f);
		SInfo **ps = ARENA_ARRAY(a, SInfo *, f->nparams ? f->nparams : 1);
		for (int i = 0; i < f->nparams; i++)
			ps[i] = f->params[i]->sinfo;
		r = si_func(a, ps, f->nparams, ret, f->pure);
		break;
	}
	case E_CALL_VAR:
		r = infer_call_var(in, e);
		break;
	case E_IF:
		r = infer_if(in, e);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++) {
			Block *bl = e->seq.blocks[i];
			for (int j = 0; j < bl->n; j++)
				infer_binding(in, bl->bindings[j]);
		}
		r = infer(in, e->seq.body);
		break;
	}
	e->sinfo = r ? r : si_object(a);
	return r;
}

SInfo *
infer_expr(Module *m, Expr *e, Diags *d)
{
	Infer in = {m, d, NULL, {0}};
	SInfo *r = infer(&in, e);
	vec_free(&in.failed);
	return r;
}

void
assume_message(StrBuf *b, const char *op, const Assume *as, const char *va,
	       const char *vb)
{
	switch (as->kind) {
	case AS_EQ:
		sb_printf(b, "%s: %s is %s but %s is %s", op, as->what_a, va,
			  as->what_b, vb);
		break;
	case AS_DIV:
		sb_printf(b, "%s: %s (%s) is not a multiple of %s (%s)", op,
			  as->what_a, va, as->what_b, vb);
		break;
	case AS_LE:
		sb_printf(b, "%s: %s (%s) is more than %s (%s)", op, as->what_a,
			  va, as->what_b, vb);
		break;
	case AS_LT:
		sb_printf(b, "%s: %s (%s) must be less than %s (%s)", op,
			  as->what_a, va, as->what_b, vb);
		break;
	case AS_BCAST:
		sb_printf(b, "%s: %s is %s, neither 1 nor %s (%s)", op,
			  as->what_a, va, as->what_b, vb);
		break;
	case AS_INDEX: /* va: "[2, 1] is 1000", the index's position and value */
		sb_printf(b, "%s: %s%s, outside [-%s, %s), the range of %s", op,
			  as->what_a, va, vb, vb, as->what_b);
		break;
	case AS_POS:
		sb_printf(b, "%s: %s would be %s: it must be at least 1", op,
			  as->what_a, va);
		break;
	}
}

void
infer_assumptions(Module *m, Expr *e)
{
	if (e->kind != E_CALL)
		return;
	InferFn fn = op_info(e->call.op)->infer;
	if (!fn)
		return;
	Diags d = {0};
	e->call.nassume = 0;
	fn(m, e, &d);
	diag_clear(&d);
	free(d.items);
}

/* ------------------------------------------------------------- functions */

/* Infers function f (index idx); returns its return struct info. */
static SInfo *
infer_func(Infer *in, Func *f, int idx)
{
	in->fstate[idx] = 1;
	SInfo *r = infer_fn(in, f);
	in->fstate[idx] = 2;
	return r;
}

/* A function (of the module or local): its body, then its return. */
static SInfo *
infer_fn(Infer *in, Func *f)
{
	Module *m = in->m;
	Vec defined = {0};
	for (int i = 0; i < f->nparams; i++) {
		if (!f->params[i]->sinfo)
			f->params[i]->sinfo = si_object(&m->arena);
		sinfo_collect(f->params[i]->sinfo, &defined);
		check_size(in, f->params[i], f->params[i]->span);
	}
	SInfo *body = f->body ? infer(in, f->body) : NULL;
	if (body) {
		/* The return may not mention SymVars defined in the body. */
		SInfo *ret = si_erase(m, body, (SymVar **)defined.items,
				      defined.n);
		/* A written return annotation is the function's return struct
		 * info even where the body's disagrees: TVM's Function takes
		 * it unchecked (well-formedness does not compare them), and
		 * its own tests print such functions. rlx run checks the
		 * returned value against it. */
		if (!f->ret)
			f->ret = ret;
	} else if (!f->ret) {
		f->ret = si_object(&m->arena);
	}
	vec_free(&defined);
	return f->ret;
}

int
infer_module(Module *m, Diags *d)
{
	int before = d->nerrors;
	Infer in = {m, d, xcalloc((size_t)m->nfuncs + 1, 1), {0}};
	for (int i = 0; i < m->nfuncs; i++)
		if (in.fstate[i] == 0)
			infer_func(&in, m->funcs[i], i);
	free(in.fstate);
	vec_free(&in.failed);
	return d->nerrors - before;
}
