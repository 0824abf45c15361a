/*
 * equal.c — structural equality of modules, as TVM's
 * assert_structural_equal.
 *
 * Functions are matched by name. Within a function, variables are matched
 * by position of definition: parameters in order, then binding variables in
 * order; a symbolic variable is matched at its first occurrence (a
 * parameter annotation or a match_cast). The mapping is a pair of tables
 * indexed by id (ids are below the module's next_id), kept injective both
 * ways. Symbolic expressions are compared in canonical form after renaming
 * the first module's variables to the second's. Names are compared only
 * when asked. The first difference stops the walk and is reported with the
 * spans of the differing nodes in each module.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct {
	const Module *ma, *mb;
	bool names;
	int na, nb;              /* table sizes: the modules' next_id */
	int *v_ab, *v_ba;        /* Var ids, A to B and back; -1 unmapped */
	SymVar **s_ab, **s_ba;   /* SymVars by id; NULL unmapped */
	Arena tmp;               /* canonical forms, renamed expressions */
	bool failed;
	Span sa, sb;
	char *why;
} Eq;

/* Records the first difference; always returns false. */
static bool
differ(Eq *q, Span a, Span b, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool
differ(Eq *q, Span a, Span b, const char *fmt, ...)
{
	if (q->failed)
		return false;
	q->failed = true;
	q->sa = a;
	q->sb = b;
	StrBuf s = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&s, fmt, ap);
	va_end(ap);
	q->why = sb_take(&s);
	return false;
}

/* sp when it is a real location, else the fallback (an enclosing node). */
static Span
or_span(Span sp, Span fallback)
{
	return sp.line ? sp : fallback;
}

/* The text of x in the scratch arena, for messages. */
static const char *
pe_text(Eq *q, const PExpr *x)
{
	if (!x)
		return "unknown";
	StrBuf b = {0};
	pe_print(&b, x);
	const char *s = arena_strdup(&q->tmp, b.p ? b.p : "");
	sb_free(&b);
	return s;
}

/* ------------------------------------------------------- symbolic variables */

/* An id that indexes a mapping table of n entries. */
static bool
sym_in_range(int id, int n)
{
	return id >= 0 && id < n;
}

/*
 * Matches the variables of x and y occurring at the same places of trees
 * of the same shape, when neither is matched yet: their defining
 * occurrence.
 */
static void
sym_bind_walk(Eq *q, const PExpr *x, const PExpr *y)
{
	if (!x || !y || x->kind != y->kind)
		return;
	switch (x->kind) {
	case PE_INT:
		return;
	case PE_VAR:
		if (!sym_in_range(x->var->id, q->na) ||
		    !sym_in_range(y->var->id, q->nb))
			return;
		if (!q->s_ab[x->var->id] && !q->s_ba[y->var->id]) {
			q->s_ab[x->var->id] = y->var;
			q->s_ba[y->var->id] = x->var;
		}
		return;
	default:
		sym_bind_walk(q, x->a, y->a);
		sym_bind_walk(q, x->b, y->b);
		return;
	}
}

/*
 * x (of module A) equals y (of module B) under the symbolic variable
 * mapping, both in canonical form. `what` names the place in messages.
 */
static bool
eq_pexpr(Eq *q, PExpr *x, PExpr *y, Span fa, Span fb, const char *what)
{
	if (!x && !y)
		return true;
	Span a = x ? or_span(x->span, fa) : fa;
	Span b = y ? or_span(y->span, fb) : fb;
	if (!x || !y)
		return differ(q, a, b, "%s %s vs %s", what, pe_text(q, x),
			      pe_text(q, y));
	/* Definitions are bare variables; else try the canonical forms. */
	sym_bind_walk(q, x, y);
	sym_bind_walk(q, pe_simplify(&q->tmp, x), pe_simplify(&q->tmp, y));
	Vec vars = {0};
	pe_collect_vars(x, &vars);
	int n = vars.n;
	SymVar **from = ARENA_ARRAY(&q->tmp, SymVar *, n ? n : 1);
	PExpr **to = ARENA_ARRAY(&q->tmp, PExpr *, n ? n : 1);
	bool mapped = true;
	for (int i = 0; i < n; i++) {
		SymVar *v = vars.items[i];
		from[i] = v;
		if (!sym_in_range(v->id, q->na) || !q->s_ab[v->id]) {
			mapped = false; /* a free var of A matches nothing */
			break;
		}
		if (q->names && strcmp(v->name, q->s_ab[v->id]->name)) {
			vec_free(&vars);
			return differ(q, a, b, "name %s vs %s", v->name,
				      q->s_ab[v->id]->name);
		}
		to[i] = pe_var(&q->tmp, q->s_ab[v->id]);
	}
	vec_free(&vars);
	if (mapped) {
		PExpr *xs = pe_subst(&q->tmp, x, from, to, n);
		if (pe_equal(&q->tmp, xs, y))
			return true;
	}
	return differ(q, a, b, "%s %s vs %s", what, pe_text(q, x),
		      pe_text(q, y));
}

/* -------------------------------------------------------------- struct info */

/* ORDER: SInfoKind */
static const char *const si_kind_names[] = {
	"R.Any", "R.Prim", "R.Shape", "R.Tensor", "R.Tuple", "R.Callable",
};

/* The Python name of a struct info kind, for messages. */
static const char *
si_kind_name(SInfoKind k)
{
	return (unsigned)k < ARRAY_LEN(si_kind_names) ? si_kind_names[k] : "?";
}

static bool eq_sinfo(Eq *q, const SInfo *x, const SInfo *y, Span fa, Span fb);

/* Two lists of dimensions (NULL: unknown) of n entries each. */
static bool
eq_dims(Eq *q, PExpr **x, PExpr **y, int n, Span a, Span b)
{
	if (!x != !y)
		return differ(q, a, b, "shape %s vs %s", x ? "known" : "unknown",
			      y ? "known" : "unknown");
	for (int i = 0; x && i < n; i++) {
		char what[48];
		snprintf(what, sizeof what, "dimension %d:", i);
		if (!eq_pexpr(q, x[i], y[i], a, b, what))
			return false;
	}
	return true;
}

/* Struct info x (in A) and y (in B); fa, fb locate them when they have no span. */
static bool
eq_sinfo(Eq *q, const SInfo *x, const SInfo *y, Span fa, Span fb)
{
	if (!x && !y)
		return true;
	Span a = x ? or_span(x->span, fa) : fa;
	Span b = y ? or_span(y->span, fb) : fb;
	if (!x || !y)
		return differ(q, a, b, "struct info %s vs %s",
			      x ? si_kind_name(x->kind) : "none",
			      y ? si_kind_name(y->kind) : "none");
	if (x->kind != y->kind)
		return differ(q, a, b, "struct info %s vs %s",
			      si_kind_name(x->kind), si_kind_name(y->kind));
	switch (x->kind) {
	case SI_OBJECT:
		return true;
	case SI_PRIM:
		if (x->dtype != y->dtype)
			return differ(q, a, b, "dtype %s vs %s",
				      dtype_name(x->dtype), dtype_name(y->dtype));
		return eq_pexpr(q, x->value, y->value, a, b, "prim value");
	case SI_SHAPE:
	case SI_TENSOR:
		if (x->kind == SI_TENSOR && x->dtype != y->dtype)
			return differ(q, a, b, "dtype %s vs %s",
				      dtype_name(x->dtype), dtype_name(y->dtype));
		if (x->kind == SI_TENSOR && !!x->vdevice != !!y->vdevice)
			return differ(q, a, b, "vdevice %s vs %s",
				      x->vdevice ? x->vdevice : "none",
				      y->vdevice ? y->vdevice : "none");
		if (x->kind == SI_TENSOR && x->vdevice &&
		    strcmp(x->vdevice, y->vdevice))
			return differ(q, a, b, "vdevice %s vs %s", x->vdevice,
				      y->vdevice);
		if (x->ndim != y->ndim)
			return differ(q, a, b, "ndim %d vs %d", x->ndim, y->ndim);
		return eq_dims(q, x->shape, y->shape, x->ndim, a, b);
	case SI_TUPLE:
	case SI_FUNC:
		if (x->nfields != y->nfields)
			return differ(q, a, b, "%s of %d vs %d fields",
				      si_kind_name(x->kind), x->nfields,
				      y->nfields);
		for (int i = 0; i < x->nfields; i++)
			if (!eq_sinfo(q, x->fields[i], y->fields[i], a, b))
				return false;
		if (x->kind == SI_TUPLE)
			return true;
		if (x->pure != y->pure)
			return differ(q, a, b, "callable %s vs %s",
				      x->pure ? "pure" : "impure",
				      y->pure ? "pure" : "impure");
		return eq_sinfo(q, x->ret, y->ret, a, b);
	}
	ir_bug("bad SInfo kind %d", (int)x->kind);
}

/* ---------------------------------------------------------------- variables */

/* The definition of x in A and y in B: matches them. */
static bool
eq_vardef(Eq *q, Var *x, Var *y, const char *what)
{
	if (x->dataflow != y->dataflow)
		return differ(q, x->span, y->span, "%s %s is %sa dataflow var",
			      what, x->name, x->dataflow ? "" : "not ");
	if (q->names && strcmp(x->name, y->name))
		return differ(q, x->span, y->span, "name %s vs %s", x->name,
			      y->name);
	if (!sym_in_range(x->id, q->na) || !sym_in_range(y->id, q->nb))
		ir_bug("var id %d/%d beyond the module's next_id", x->id, y->id);
	/* A var defined again (not SSA) is re-matched at the new site. */
	if (q->v_ab[x->id] >= 0)
		q->v_ba[q->v_ab[x->id]] = -1;
	if (q->v_ba[y->id] >= 0)
		q->v_ab[q->v_ba[y->id]] = -1;
	q->v_ab[x->id] = y->id;
	q->v_ba[y->id] = x->id;
	return eq_sinfo(q, x->sinfo, y->sinfo, x->span, y->span);
}

/* A use of x in A and of y in B. */
static bool
eq_varuse(Eq *q, const Var *x, const Var *y, Span a, Span b)
{
	if (!sym_in_range(x->id, q->na) || !sym_in_range(y->id, q->nb))
		ir_bug("var id %d/%d beyond the module's next_id", x->id, y->id);
	if (q->v_ab[x->id] < 0 && q->v_ba[y->id] < 0) {
		/* Free in both: matched at the first use. */
		q->v_ab[x->id] = y->id;
		q->v_ba[y->id] = x->id;
	}
	if (q->v_ab[x->id] != y->id)
		return differ(q, a, b, "variable %s vs %s", x->name, y->name);
	if (q->names && strcmp(x->name, y->name))
		return differ(q, a, b, "name %s vs %s", x->name, y->name);
	return true;
}

/* --------------------------------------------------------------- attributes */

/* An attribute value as Python text, for messages. */
static void
attr_text(StrBuf *b, const AttrVal *v)
{
	switch (v->kind) {
	case AV_NONE:
		sb_puts(b, "None");
		return;
	case AV_INT:
		sb_printf(b, "%lld", (long long)v->i);
		return;
	case AV_FLOAT:
		sb_printf(b, "%.17g", v->f);
		return;
	case AV_BOOL:
		sb_puts(b, v->i ? "True" : "False");
		return;
	case AV_STR:
		sb_printf(b, "\"%s\"", v->s ? v->s : "");
		return;
	case AV_DTYPE:
		sb_printf(b, "\"%s\"", dtype_name(v->dtype));
		return;
	case AV_INTS:
		sb_putc(b, '[');
		for (int i = 0; i < v->n; i++)
			sb_printf(b, "%s%lld", i ? ", " : "", (long long)v->ints[i]);
		sb_putc(b, ']');
		return;
	case AV_DIMS:
	case AV_SINFO:
	case AV_RAW:
	case AV_IMAP:
		print_attrval(b, v);
		return;
	}
	sb_puts(b, "?");
}

/* The same attribute value (same kind). */
static bool
attr_equal(const AttrVal *x, const AttrVal *y)
{
	if (x->kind != y->kind)
		return false;
	switch (x->kind) {
	case AV_NONE:
		return true;
	case AV_INT:
		return x->i == y->i;
	case AV_BOOL:
		return !x->i == !y->i;
	case AV_FLOAT:
		/* Bitwise: -0.0 and 0.0 print differently; NaN equals NaN. */
		return !memcmp(&x->f, &y->f, sizeof x->f);
	case AV_STR:
	case AV_RAW:
		return !strcmp(x->s ? x->s : "", y->s ? y->s : "");
	case AV_DTYPE:
		return x->dtype == y->dtype;
	case AV_INTS:
		return x->n == y->n &&
		       (x->n == 0 ||
			!memcmp(x->ints, y->ints, sizeof *x->ints * (size_t)x->n));
	case AV_DIMS:
	case AV_SINFO:
		return x->n == y->n; /* the items: eq_attr */
	case AV_IMAP:
		return x->n == y->n && x->nin == y->nin; /* eq_attr */
	}
	return false;
}

/* Attribute values x and y named `what`; a message on difference. */
static bool
eq_attr(Eq *q, const AttrVal *x, const AttrVal *y, Span a, Span b,
	const char *what)
{
	if (attr_equal(x, y)) {
		if (x->kind == AV_DIMS)
			return eq_dims(q, x->dims, y->dims, x->n, a, b);
		if (x->kind == AV_IMAP) { /* the lambda's variables by position */
			for (int i = 0; i < x->nin; i++) {
				int ia = x->ivars[i]->id, ib = y->ivars[i]->id;
				if (sym_in_range(ia, q->na) && sym_in_range(ib, q->nb)) {
					q->s_ab[ia] = y->ivars[i];
					q->s_ba[ib] = x->ivars[i];
				}
			}
			return eq_dims(q, x->dims, y->dims, x->n, a, b);
		}
		if (x->kind == AV_SINFO) {
			for (int i = 0; i < x->n; i++)
				if (!eq_sinfo(q, x->sis[i], y->sis[i], a, b))
					return false;
		}
		return true;
	}
	StrBuf s = {0};
	attr_text(&s, x);
	sb_puts(&s, " vs ");
	attr_text(&s, y);
	differ(q, a, b, "%s %s", what, s.p);
	sb_free(&s);
	return false;
}

/* The name of attribute slot i of op, as in its signature. */
static const char *
op_attr_name(OpKind op, int i, char *buf, size_t n)
{
	OpSig sig;
	op_sig(op, &sig);
	for (int j = 0; j < sig.nparams; j++)
		if (sig.params[j].is_attr && sig.params[j].slot == i) {
			snprintf(buf, n, "%s", sig.params[j].name);
			return buf;
		}
	snprintf(buf, n, "%d", i);
	return buf;
}

/* -------------------------------------------------------------- expressions */

static bool eq_func(Eq *q, const Func *x, const Func *y);
static bool eq_expr(Eq *q, const Expr *x, const Expr *y);

/* n expressions pairwise. */
static bool
eq_exprs(Eq *q, Expr *const *x, Expr *const *y, int n)
{
	for (int i = 0; i < n; i++)
		if (!eq_expr(q, x[i], y[i]))
			return false;
	return true;
}

/* Bytes of a constant's data: elements times element size. */
static size_t
const_bytes(const Expr *e)
{
	size_t n = 1;
	for (int i = 0; i < e->cdata.ndim; i++)
		n *= e->cdata.shape[i] > 0 ? (size_t)e->cdata.shape[i] : 0;
	return n * (size_t)((dtype_bits(e->cdata.dtype) + 7) / 8);
}

/* Constants: dtype, shape and the bytes of the data. */
static bool
eq_const(Eq *q, const Expr *x, const Expr *y)
{
	Span a = x->span, b = y->span;
	if (x->cdata.dtype != y->cdata.dtype)
		return differ(q, a, b, "constant dtype %s vs %s",
			      dtype_name(x->cdata.dtype),
			      dtype_name(y->cdata.dtype));
	if (x->cdata.ndim != y->cdata.ndim)
		return differ(q, a, b, "constant ndim %d vs %d", x->cdata.ndim,
			      y->cdata.ndim);
	for (int i = 0; i < x->cdata.ndim; i++)
		if (x->cdata.shape[i] != y->cdata.shape[i])
			return differ(q, a, b,
				      "constant dimension %d: %lld vs %lld", i,
				      (long long)x->cdata.shape[i],
				      (long long)y->cdata.shape[i]);
	size_t n = const_bytes(x);
	if (n && (!x->cdata.data || !y->cdata.data)) {
		if (x->cdata.data != y->cdata.data)
			return differ(q, a, b, "constant data missing");
		return true;
	}
	if (n && memcmp(x->cdata.data, y->cdata.data, n)) {
		const unsigned char *p = x->cdata.data, *r = y->cdata.data;
		size_t i = 0;
		while (p[i] == r[i])
			i++;
		size_t el = (size_t)((dtype_bits(x->cdata.dtype) + 7) / 8);
		return differ(q, a, b, "constant values differ at element %zu",
			      i / (el ? el : 1));
	}
	return true;
}

/* A binding: its value, match_cast target, then the var it defines. */
static bool
eq_binding(Eq *q, const Binding *x, const Binding *y)
{
	if (!eq_expr(q, x->value, y->value))
		return false;
	if (!x->cast != !y->cast)
		return differ(q, x->span, y->span, "%s vs %s",
			      x->cast ? "match_cast" : "binding",
			      y->cast ? "match_cast" : "binding");
	if (!eq_sinfo(q, x->cast, y->cast, x->span, y->span))
		return false;
	return eq_vardef(q, x->var, y->var, "binding");
}

/* A block: its kind, then its bindings in order. */
static bool
eq_block(Eq *q, const Block *x, const Block *y)
{
	if (x->dataflow != y->dataflow)
		return differ(q, x->span, y->span, "%s vs %s",
			      x->dataflow ? "dataflow block" : "binding block",
			      y->dataflow ? "dataflow block" : "binding block");
	if (x->n != y->n)
		return differ(q, x->span, y->span, "binding count %d vs %d",
			      x->n, y->n);
	for (int i = 0; i < x->n; i++)
		if (!eq_binding(q, x->bindings[i], y->bindings[i]))
			return false;
	return true;
}

/* Two prim values: the same dtype, and the same value (a float's bits). */
static bool
eq_prim(Eq *q, const Expr *x, const Expr *y)
{
	Span a = x->span, b = y->span;
	if (x->prim.dtype != y->prim.dtype)
		return differ(q, a, b, "prim value dtype %s vs %s",
			      dtype_name(x->prim.dtype),
			      dtype_name(y->prim.dtype));
	if (dtype_is_float(x->prim.dtype)) {
		if (memcmp(&x->prim.f, &y->prim.f, sizeof x->prim.f))
			return differ(q, a, b, "prim value %.17g vs %.17g",
				      x->prim.f, y->prim.f);
		return true;
	}
	return eq_pexpr(q, x->prim.value, y->prim.value, a, b,
			"prim value");
}

/* Two op calls: the same op, arguments and attributes. */
static bool
eq_call(Eq *q, const Expr *x, const Expr *y)
{
	Span a = x->span, b = y->span;
	if (x->call.op != y->call.op)
		return differ(q, a, b, "op R.%s vs R.%s",
			      op_info(x->call.op)->name,
			      op_info(y->call.op)->name);
	if (x->call.nargs != y->call.nargs)
		return differ(q, a, b, "argument count %d vs %d",
			      x->call.nargs, y->call.nargs);
	if (x->call.nattrs != y->call.nattrs)
		return differ(q, a, b, "attribute count %d vs %d",
			      x->call.nattrs, y->call.nattrs);
	if (!eq_exprs(q, x->call.args, y->call.args, x->call.nargs))
		return false;
	for (int i = 0; i < x->call.nattrs; i++) {
		char buf[40], what[96];
		snprintf(what, sizeof what, "attribute %s of R.%s",
			 op_attr_name(x->call.op, i, buf, sizeof buf),
			 op_info(x->call.op)->name);
		if (!eq_attr(q, &x->call.attrs[i], &y->call.attrs[i], a,
			     b, what))
			return false;
	}
	return true;
}

/* Expressions of every kind, recursively. */
static bool
eq_expr(Eq *q, const Expr *x, const Expr *y)
{
	if (!x && !y)
		return true;
	if (!x || !y)
		return differ(q, x ? x->span : (Span){0},
			      y ? y->span : (Span){0}, "%s vs nothing",
			      ir_expr_kind_name((x ? x : y)->kind));
	Span a = x->span, b = y->span;
	if (x->kind != y->kind)
		return differ(q, a, b, "%s vs %s", ir_expr_kind_name(x->kind),
			      ir_expr_kind_name(y->kind));
	switch (x->kind) {
	case E_VAR:
		return eq_varuse(q, x->var, y->var, a, b);
	case E_CONST:
		return eq_const(q, x, y);
	case E_TUPLE:
		if (x->tuple.n != y->tuple.n)
			return differ(q, a, b, "tuple of %d vs %d items",
				      x->tuple.n, y->tuple.n);
		return eq_exprs(q, x->tuple.items, y->tuple.items, x->tuple.n);
	case E_TUPLE_GET:
		if (x->tget.index != y->tget.index)
			return differ(q, a, b, "tuple index %d vs %d",
				      x->tget.index, y->tget.index);
		return eq_expr(q, x->tget.tuple, y->tget.tuple);
	case E_SHAPE:
		if (x->shape.n != y->shape.n)
			return differ(q, a, b, "shape of %d vs %d dimensions",
				      x->shape.n, y->shape.n);
		return eq_dims(q, x->shape.values, y->shape.values, x->shape.n,
			       a, b);
	case E_PRIM:
		return eq_prim(q, x, y);
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		if (x->dtype_imm != y->dtype_imm)
			return differ(q, a, b, "%s vs %s", x->dtype_imm ? "R.dtype" : "R.str",
				      y->dtype_imm ? "R.dtype" : "R.str");
		if (strcmp(x->str, y->str))
			return differ(q, a, b, "string \"%s\" vs \"%s\"", x->str,
				      y->str);
		return true;
	case E_CALL:
		return eq_call(q, x, y);
	case E_CALL_FN:
		if (strcmp(x->callfn.callee, y->callfn.callee))
			return differ(q, a, b, "callee %s vs %s",
				      x->callfn.callee, y->callfn.callee);
		if (x->callfn.nargs != y->callfn.nargs)
			return differ(q, a, b, "argument count %d vs %d",
				      x->callfn.nargs, y->callfn.nargs);
		return eq_exprs(q, x->callfn.args, y->callfn.args,
				x->callfn.nargs);
	case E_FUNC:
		return eq_func(q, x->fn, y->fn);
	case E_CALL_VAR:
		if (x->callv.nargs != y->callv.nargs)
			return differ(q, a, b, "argument count %d vs %d",
				      x->callv.nargs, y->callv.nargs);
		return eq_expr(q, x->callv.fn, y->callv.fn) &&
		       eq_exprs(q, x->callv.args, y->callv.args, x->callv.nargs);
	case E_IF:
		return eq_expr(q, x->if_.cond, y->if_.cond) &&
		       eq_expr(q, x->if_.then_, y->if_.then_) &&
		       eq_expr(q, x->if_.else_, y->if_.else_);
	case E_SEQ:
		if (x->seq.nblocks != y->seq.nblocks)
			return differ(q, a, b, "block count %d vs %d",
				      x->seq.nblocks, y->seq.nblocks);
		for (int i = 0; i < x->seq.nblocks; i++)
			if (!eq_block(q, x->seq.blocks[i], y->seq.blocks[i]))
				return false;
		return eq_expr(q, x->seq.body, y->seq.body);
	}
	ir_bug("bad Expr kind %d", (int)x->kind);
}

/* ---------------------------------------------------------------- functions */

/* Two functions of the same name: attributes, flags, params, body. */
static bool
eq_func(Eq *q, const Func *x, const Func *y)
{
	Span a = x->span, b = y->span;
	if (x->nattrs != y->nattrs)
		return differ(q, a, b, "function %s: attribute count %d vs %d",
			      x->name, x->nattrs, y->nattrs);
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, y->attrs[i].key))
			return differ(q, a, b, "function %s: attribute %s vs %s",
				      x->name, x->attrs[i].key, y->attrs[i].key);
		char what[128];
		snprintf(what, sizeof what, "function %s: attribute %s", x->name,
			 x->attrs[i].key);
		if (!eq_attr(q, &x->attrs[i].val, &y->attrs[i].val, a, b, what))
			return false;
	}
	if (x->pure != y->pure)
		return differ(q, a, b, "function %s: %s vs %s", x->name,
			      x->pure ? "pure" : "impure",
			      y->pure ? "pure" : "impure");
	if (x->is_private != y->is_private)
		return differ(q, a, b, "function %s: %s vs %s", x->name,
			      x->is_private ? "private" : "public",
			      y->is_private ? "private" : "public");
	if (x->nparams != y->nparams)
		return differ(q, a, b, "function %s: parameter count %d vs %d",
			      x->name, x->nparams, y->nparams);
	for (int i = 0; i < x->nparams; i++)
		if (!eq_vardef(q, x->params[i], y->params[i], "parameter"))
			return false;
	if (!x->ret != !y->ret)
		return differ(q, a, b, "function %s: return annotation %s vs %s",
			      x->name, x->ret ? "given" : "absent",
			      y->ret ? "given" : "absent");
	if (!eq_sinfo(q, x->ret, y->ret, a, b))
		return false;
	return eq_expr(q, x->body, y->body);
}

/* The functions of a that b lacks: a difference at the first one. */
static bool
eq_func_names(Eq *q, const Module *a, const Module *b, bool a_is_first)
{
	for (int i = 0; i < a->nfuncs; i++) {
		if (ir_find_func(b, a->funcs[i]->name))
			continue;
		Span none = {0, 0, 0};
		Span here = a->funcs[i]->span;
		return differ(q, a_is_first ? here : none,
			      a_is_first ? none : here,
			      "function %s is missing in the %s module",
			      a->funcs[i]->name, a_is_first ? "second" : "first");
	}
	return true;
}

/* -------------------------------------------------------------------- TIR */

/*
 * Prim_funcs are matched by name. Their vars and buffers (ids from the
 * module's counter, so they share the Var tables) are matched at their
 * first occurrence, in walk order; types, kinds and literals compare
 * exactly. The two spellings of TVM (T.block / T.sblock, s_tir=True,
 * "tir." / "tirx." attribute keys) read to the same IR and compare equal.
 */
static bool
t_bind(Eq *q, int ia, int ib, Span sa, Span sb, const char *na, const char *nb)
{
	if (ia < 0 || ia >= q->na || ib < 0 || ib >= q->nb)
		ir_bug("TIR id out of range");
	if (q->v_ab[ia] == -1 && q->v_ba[ib] == -1) {
		q->v_ab[ia] = ib;
		q->v_ba[ib] = ia;
		if (q->names && strcmp(na, nb))
			return differ(q, sa, sb, "name '%s' vs '%s'", na, nb);
		return true;
	}
	if (q->v_ab[ia] == ib)
		return true;
	return differ(q, sa, sb, "'%s' vs '%s': not the same variable or buffer", na, nb);
}

static bool
t_var(Eq *q, const TVar *a, const TVar *b, Span sa, Span sb)
{
	if (!a || !b)
		return a == b || differ(q, sa, sb, "a variable on one side only");
	if (a->ty != b->ty)
		return differ(q, a->span, b->span, "'%s' is %s, '%s' is %s", a->name,
			      tir_type_name(a->ty), b->name, tir_type_name(b->ty));
	return t_bind(q, a->id, b->id, or_span(a->span, sa), or_span(b->span, sb), a->name,
		      b->name);
}

static bool t_expr(Eq *q, const TExpr *a, const TExpr *b, Span sa, Span sb);

static bool
t_exprs(Eq *q, TExpr *const *a, TExpr *const *b, int n, Span sa, Span sb)
{
	for (int i = 0; i < n; i++)
		if (!t_expr(q, a[i], b[i], sa, sb))
			return false;
	return true;
}

static bool
t_buf(Eq *q, const TBuf *a, const TBuf *b, Span sa, Span sb)
{
	return t_bind(q, a->id, b->id, sa, sb, a->name, b->name);
}

static void
t_text(Eq *q, const TExpr *e, StrBuf *s)
{
	(void)q;
	if (e)
		print_texpr(s, e);
	else
		sb_puts(s, "nothing");
}

static bool
t_expr(Eq *q, const TExpr *a, const TExpr *b, Span sa, Span sb)
{
	if (!a || !b) {
		if (a == b)
			return true;
		return differ(q, sa, sb, "an expression on one side only");
	}
	sa = or_span(a->span, sa);
	sb = or_span(b->span, sb);
	bool same = a->kind == b->kind && a->ty == b->ty && a->n == b->n;
	if (same) {
		switch (a->kind) {
		case TE_INT: same = a->i == b->i; break;
		case TE_FLOAT: same = a->f == b->f || (a->f != a->f && b->f != b->f); break;
		case TE_STR:
		case TE_CALL: same = !strcmp(a->s, b->s); break;
		default: break;
		}
	}
	if (!same) {
		StrBuf x = {0}, y = {0};
		t_text(q, a, &x);
		t_text(q, b, &y);
		differ(q, sa, sb, "%s vs %s", x.p, y.p);
		sb_free(&x);
		sb_free(&y);
		return false;
	}
	if (a->kind == TE_VAR)
		return t_var(q, a->var, b->var, sa, sb);
	if (a->kind == TE_LOAD && !t_buf(q, a->buf, b->buf, sa, sb))
		return false;
	return t_exprs(q, a->args, b->args, a->n, sa, sb) && t_expr(q, a->a, b->a, sa, sb) &&
	       t_expr(q, a->b, b->b, sa, sb) && t_expr(q, a->c, b->c, sa, sb);
}

static bool
t_str_eq(const char *a, const char *b, const char *dflt)
{
	return !strcmp(a ? a : dflt, b ? b : dflt);
}

/* A buffer's declaration: both become the same buffer here. */
static bool
t_buf_decl(Eq *q, const TBuf *a, const TBuf *b)
{
	Span sa = a->span, sb = b->span;
	if (!t_buf(q, a, b, sa, sb))
		return false;
	if (a->dtype != b->dtype || a->ndim != b->ndim || a->nstrides != b->nstrides)
		return differ(q, sa, sb, "buffer '%s' of %s with %d dimensions vs '%s' of %s with %d",
			      a->name, dtype_name(a->dtype), a->ndim, b->name, dtype_name(b->dtype),
			      b->ndim);
	if (!t_str_eq(a->scope, b->scope, "global") || a->align != b->align ||
	    a->offset_factor != b->offset_factor ||
	    !t_str_eq(a->buffer_type, b->buffer_type, "default") || !a->data != !b->data)
		return differ(q, sa, sb, "buffers '%s' and '%s' differ in scope, alignment, "
			      "offset factor, type or data", a->name, b->name);
	if (a->data && !t_var(q, a->data, b->data, sa, sb))
		return false;
	return t_exprs(q, a->shape, b->shape, a->ndim, sa, sb) &&
	       t_exprs(q, a->strides, b->strides, a->nstrides, sa, sb) &&
	       t_expr(q, a->elem_offset, b->elem_offset, sa, sb);
}

static bool
t_range(Eq *q, const TRange *a, const TRange *b, Span sa, Span sb)
{
	/* a point is a range of extent 1 */
	bool pa = !a->extent || (a->extent->kind == TE_INT && a->extent->i == 1);
	bool pb = !b->extent || (b->extent->kind == TE_INT && b->extent->i == 1);
	if (!t_expr(q, a->min, b->min, sa, sb))
		return false;
	if (pa || pb)
		return pa == pb || differ(q, sa, sb, "a point vs a range");
	return t_expr(q, a->extent, b->extent, sa, sb);
}

static bool
t_regions(Eq *q, const TRegion *a, int na, const TRegion *b, int nb, Span sa, Span sb,
	  const char *what)
{
	if (na != nb)
		return differ(q, sa, sb, "%d %s regions vs %d", na, what, nb);
	for (int i = 0; i < na; i++) {
		if (!t_buf(q, a[i].buf, b[i].buf, or_span(a[i].span, sa), or_span(b[i].span, sb)))
			return false;
		for (int k = 0; k < a[i].n; k++)
			if (!t_range(q, &a[i].ranges[k], &b[i].ranges[k], or_span(a[i].span, sa),
				     or_span(b[i].span, sb)))
				return false;
	}
	return true;
}

static bool
t_anns(Eq *q, const TAnn *a, int na, const TAnn *b, int nb, Span sa, Span sb)
{
	if (na != nb)
		return differ(q, sa, sb, "%d annotations vs %d", na, nb);
	for (int i = 0; i < na; i++)
		if (strcmp(a[i].key, b[i].key) || strcmp(a[i].text, b[i].text))
			return differ(q, sa, sb, "annotation \"%s\": %s vs \"%s\": %s", a[i].key,
				      a[i].text, b[i].key, b[i].text);
	return true;
}

static bool
t_stmt(Eq *q, const TStmt *a, const TStmt *b)
{
	if (!a || !b)
		return a == b || differ(q, a ? a->span : (Span){0}, b ? b->span : (Span){0},
					"a statement on one side only");
	Span sa = a->span, sb = b->span;
	if (a->kind != b->kind)
		return differ(q, sa, sb, "different statements");
	switch (a->kind) {
	case TS_SEQ:
		if (a->n != b->n)
			return differ(q, sa, sb, "%d statements vs %d", a->n, b->n);
		for (int i = 0; i < a->n; i++)
			if (!t_stmt(q, a->body[i], b->body[i]))
				return false;
		return true;
	case TS_FOR:
		if (a->for_kind != b->for_kind || !t_str_eq(a->thread, b->thread, ""))
			return differ(q, sa, sb, "loops of different kinds");
		return t_expr(q, a->min, b->min, sa, sb) && t_expr(q, a->extent, b->extent, sa, sb) &&
		       t_var(q, a->var, b->var, sa, sb) &&
		       t_anns(q, a->anns, a->nanns, b->anns, b->nanns, sa, sb) &&
		       t_stmt(q, a->inner, b->inner);
	case TS_BLOCK:
		if (strcmp(a->name, b->name))
			return differ(q, sa, sb, "block \"%s\" vs \"%s\"", a->name, b->name);
		if (a->niters != b->niters || a->nallocs != b->nallocs)
			return differ(q, sa, sb, "blocks with different axes or allocations");
		for (int i = 0; i < a->niters; i++) {
			const TIter *x = &a->iters[i], *y = &b->iters[i];
			if (x->kind != y->kind)
				return differ(q, or_span(x->span, sa), or_span(y->span, sb),
					      "axes of different kinds");
			if (!t_expr(q, x->value, y->value, sa, sb) ||
			    !t_expr(q, x->min, y->min, sa, sb) ||
			    !t_expr(q, x->extent, y->extent, sa, sb) ||
			    !t_var(q, x->var, y->var, sa, sb))
				return false;
		}
		for (int i = 0; i < a->nallocs; i++)
			if (!t_buf_decl(q, a->allocs[i], b->allocs[i]))
				return false;
		return t_expr(q, a->pred, b->pred, sa, sb) &&
		       t_regions(q, a->reads, a->nreads, b->reads, b->nreads, sa, sb, "read") &&
		       t_regions(q, a->writes, a->nwrites, b->writes, b->nwrites, sa, sb, "write") &&
		       t_anns(q, a->anns, a->nanns, b->anns, b->nanns, sa, sb) &&
		       t_stmt(q, a->init, b->init) && t_stmt(q, a->inner, b->inner);
	case TS_STORE:
		return t_buf(q, a->buf, b->buf, sa, sb) &&
		       (a->nidx == b->nidx || differ(q, sa, sb, "stores of different ranks")) &&
		       t_exprs(q, a->idx, b->idx, a->nidx, sa, sb) &&
		       t_expr(q, a->value, b->value, sa, sb);
	case TS_LET:
		return t_expr(q, a->value, b->value, sa, sb) && t_var(q, a->var, b->var, sa, sb) &&
		       t_stmt(q, a->inner, b->inner);
	case TS_IF:
		return t_expr(q, a->cond, b->cond, sa, sb) && t_stmt(q, a->inner, b->inner) &&
		       t_stmt(q, a->else_, b->else_);
	case TS_EVAL:
		return t_expr(q, a->value, b->value, sa, sb);
	case TS_ATTR:
		if (strcmp(a->key, b->key))
			return differ(q, sa, sb, "attribute \"%s\" vs \"%s\"", a->key, b->key);
		return t_expr(q, a->cond, b->cond, sa, sb) && t_expr(q, a->value, b->value, sa, sb) &&
		       t_stmt(q, a->inner, b->inner);
	case TS_ALLOC:
		return t_buf_decl(q, a->allocs[0], b->allocs[0]) && t_stmt(q, a->inner, b->inner);
	case TS_ASSERT:
		return t_expr(q, a->cond, b->cond, sa, sb) && t_expr(q, a->value, b->value, sa, sb) &&
		       t_stmt(q, a->inner, b->inner);
	}
	return differ(q, sa, sb, "malformed TIR statement");
}

/* An attribute key with TVM main's "tirx." read as the releases' "tir.". */
static const char *
t_key(const char *k)
{
	return !strncmp(k, "tirx.", 5) ? k + 5 : !strncmp(k, "tir.", 4) ? k + 4 : k;
}

static bool
t_func(Eq *q, const PrimFunc *a, const PrimFunc *b)
{
	Span sa = a->span, sb = b->span;
	if (a->nparams != b->nparams)
		return differ(q, sa, sb, "prim_func %s: %d parameters vs %d", a->name, a->nparams,
			      b->nparams);
	if (a->is_private != b->is_private || a->ret != b->ret || a->nattrs != b->nattrs)
		return differ(q, sa, sb, "prim_func %s: privacy, return type or attributes differ",
			      a->name);
	for (int i = 0; i < a->nattrs; i++)
		if (strcmp(t_key(a->attrs[i].key), t_key(b->attrs[i].key)) ||
		    strcmp(a->attrs[i].val.s, b->attrs[i].val.s))
			return differ(q, sa, sb, "prim_func %s: attribute \"%s\": %s vs \"%s\": %s",
				      a->name, a->attrs[i].key, a->attrs[i].val.s,
				      b->attrs[i].key, b->attrs[i].val.s);
	/* scalars first, as they are defined */
	for (int i = 0; i < a->nparams; i++) {
		const TParam *x = &a->params[i], *y = &b->params[i];
		if (!x->buf != !y->buf)
			return differ(q, x->var->span, y->var->span, "a buffer vs a scalar parameter");
		if (!x->buf && !t_var(q, x->var, y->var, x->var->span, y->var->span))
			return false;
	}
	if (a->nsymvars != b->nsymvars)
		return differ(q, sa, sb, "%d shape variables vs %d", a->nsymvars, b->nsymvars);
	for (int i = 0; i < a->nsymvars; i++)
		if (!t_var(q, a->symvars[i], b->symvars[i], sa, sb))
			return false;
	for (int i = 0; i < a->nparams; i++)
		if (a->params[i].buf && !t_buf_decl(q, a->params[i].buf, b->params[i].buf))
			return false;
	if (a->nroot_allocs != b->nroot_allocs || a->root != b->root)
		return differ(q, sa, sb, "prim_func %s: root blocks differ", a->name);
	for (int i = 0; i < a->nroot_allocs; i++)
		if (!t_buf_decl(q, a->root_allocs[i], b->root_allocs[i]))
			return false;
	return t_stmt(q, a->body, b->body);
}

static bool
eq_prims(Eq *q, const Module *a, const Module *b)
{
	for (int k = 0; k < 2; k++) {
		const Module *x = k ? b : a, *y = k ? a : b;
		for (int i = 0; i < x->nprims; i++)
			if (!tir_find(y, x->prims[i]->name)) {
				Span none = {0, 0, 0}, here = x->prims[i]->span;
				return differ(q, k ? none : here, k ? here : none,
					      "prim_func %s is missing in the %s module",
					      x->prims[i]->name, k ? "first" : "second");
			}
	}
	if (a->nprims != b->nprims)
		return differ(q, (Span){0}, (Span){0}, "prim_func count %d vs %d", a->nprims,
			      b->nprims);
	for (int i = 0; i < a->nprims; i++)
		if (!t_func(q, a->prims[i], tir_find(b, a->prims[i]->name)))
			return false;
	return true;
}

/* Functions matched by name, then compared one by one in A's order. */
bool
equal_modules(const Module *a, const Module *b, bool names, Span *sa,
	      Span *sb, char **why)
{
	Eq q = {.ma = a, .mb = b, .names = names};
	q.na = a->next_id > 0 ? a->next_id : 1;
	q.nb = b->next_id > 0 ? b->next_id : 1;
	q.v_ab = xmalloc(sizeof *q.v_ab * (size_t)q.na);
	q.v_ba = xmalloc(sizeof *q.v_ba * (size_t)q.nb);
	q.s_ab = xcalloc((size_t)q.na, sizeof *q.s_ab);
	q.s_ba = xcalloc((size_t)q.nb, sizeof *q.s_ba);
	memset(q.v_ab, 0xff, sizeof *q.v_ab * (size_t)q.na);
	memset(q.v_ba, 0xff, sizeof *q.v_ba * (size_t)q.nb);

	bool eq = eq_func_names(&q, a, b, true) && eq_func_names(&q, b, a, false);
	if (eq && a->ndecls != b->ndecls)
		eq = differ(&q, (Span){0}, (Span){0},
			    "module declaration count %d vs %d", a->ndecls,
			    b->ndecls);
	for (int i = 0; eq && i < a->ndecls; i++)
		if (strcmp(a->decls[i], b->decls[i]))
			eq = differ(&q, (Span){0}, (Span){0}, "%s vs %s",
				    a->decls[i], b->decls[i]);
	if (eq && a->nfuncs != b->nfuncs) /* duplicate names */
		eq = differ(&q, (Span){0}, (Span){0}, "function count %d vs %d",
			    a->nfuncs, b->nfuncs);
	if (eq)
		eq = eq_prims(&q, a, b);
	for (int i = 0; eq && i < a->nfuncs; i++)
		eq = eq_func(&q, a->funcs[i], ir_find_func(b, a->funcs[i]->name));

	free(q.v_ab);
	free(q.v_ba);
	free(q.s_ab);
	free(q.s_ba);
	arena_free(&q.tmp);
	if (sa)
		*sa = eq ? (Span){0} : q.sa;
	if (sb)
		*sb = eq ? (Span){0} : q.sb;
	if (why)
		*why = q.why;
	else
		free(q.why);
	return eq;
}
