/*
 * tir.c — TIR nodes: constructors in the module's arena, type names, the
 * operator table shared by the builder, the printer and equality, and the
 * one tree walk of prim_func bodies.
 */
#include <string.h>

#include "ir.h"

TVar *
tir_var(Module *m, const char *name, TType ty, Span sp)
{
	TVar *v = ARENA_NEW(&m->arena, TVar);
	v->name = arena_strdup(&m->arena, name);
	v->id = m->next_id++;
	v->ty = ty;
	v->span = sp;
	return v;
}

TExpr *
tir_expr(Module *m, TExprKind k, TType ty, Span sp)
{
	TExpr *e = ARENA_NEW(&m->arena, TExpr);
	e->kind = k;
	e->ty = ty;
	e->span = sp;
	return e;
}

TExpr *
tir_int(Module *m, TType ty, int64_t v, Span sp)
{
	TExpr *e = tir_expr(m, TE_INT, ty, sp);
	e->i = v;
	return e;
}

TStmt *
tir_stmt(Module *m, TStmtKind k, Span sp)
{
	TStmt *s = ARENA_NEW(&m->arena, TStmt);
	s->kind = k;
	s->span = sp;
	return s;
}

const char *
tir_type_name(TType t)
{
	return t == TT_HANDLE ? "handle" : dtype_name((DType)t);
}

bool
tir_type_parse(const char *s, TType *out)
{
	if (!strcmp(s, "handle")) {
		*out = TT_HANDLE;
		return true;
	}
	DType d;
	if (!dtype_parse(s, &d) || d == DT_UNKNOWN)
		return false;
	*out = (TType)d;
	return true;
}

/* ORDER: TExprKind from TE_ADD to TE_OR. */
static const struct {
	const char *text;
	bool infix;
} bin_ops[] = {
	{"+", true}, {"-", true}, {"*", true}, {"T.Div", false},
	{"//", true}, {"%", true}, {"T.truncdiv", false},
	{"T.truncmod", false}, {"T.min", false}, {"T.max", false},
	{"==", true}, {"!=", true}, {"<", true}, {"<=", true}, {">", true},
	{">=", true}, {"and", true}, {"or", true},
};
_Static_assert(ARRAY_LEN(bin_ops) == TE_OR - TE_ADD + 1,
	       "bin_ops has an entry per TExprKind from TE_ADD to TE_OR");

const char *
tir_op_text(TExprKind k, bool *infix)
{
	if (!TE_IS_BIN(k))
		ir_bug("tir_op_text of a non-binary kind %d", (int)k);
	*infix = bin_ops[k - TE_ADD].infix;
	return bin_ops[k - TE_ADD].text;
}

static const TIntrinsic intrinsics[] = {
	{"exp", 1, TR_FLOAT}, {"exp2", 1, TR_FLOAT}, {"exp10", 1, TR_FLOAT},
	{"log", 1, TR_FLOAT}, {"log2", 1, TR_FLOAT}, {"log10", 1, TR_FLOAT},
	{"log1p", 1, TR_FLOAT}, {"sqrt", 1, TR_FLOAT}, {"rsqrt", 1, TR_FLOAT},
	{"tanh", 1, TR_FLOAT}, {"sigmoid", 1, TR_FLOAT}, {"erf", 1, TR_FLOAT},
	{"round", 1, TR_SAME}, {"floor", 1, TR_SAME}, {"ceil", 1, TR_SAME},
	{"trunc", 1, TR_SAME}, {"nearbyint", 1, TR_SAME}, {"fabs", 1, TR_SAME},
	{"abs", 1, TR_SAME}, {"cos", 1, TR_FLOAT}, {"sin", 1, TR_FLOAT},
	{"tan", 1, TR_FLOAT}, {"acos", 1, TR_FLOAT}, {"asin", 1, TR_FLOAT},
	{"atan", 1, TR_FLOAT}, {"cosh", 1, TR_FLOAT}, {"sinh", 1, TR_FLOAT},
	{"acosh", 1, TR_FLOAT}, {"asinh", 1, TR_FLOAT}, {"atanh", 1, TR_FLOAT},
	{"pow", 2, TR_SAME}, {"atan2", 2, TR_FLOAT}, {"fmod", 2, TR_SAME},
	{"hypot", 2, TR_FLOAT}, {"copysign", 2, TR_FLOAT},
	{"nextafter", 2, TR_FLOAT}, {"ldexp", 2, TR_FLOAT},
	{"isnan", 1, TR_BOOL}, {"isinf", 1, TR_BOOL}, {"isfinite", 1, TR_BOOL},
	{"likely", 1, TR_BOOL},
	{"bitwise_and", 2, TR_SAME}, {"bitwise_or", 2, TR_SAME},
	{"bitwise_xor", 2, TR_SAME}, {"bitwise_not", 1, TR_SAME},
	{"shift_left", 2, TR_SAME}, {"shift_right", 2, TR_SAME},
	{"popcount", 1, TR_SAME}, {"clz", 1, TR_SAME},
	{"if_then_else", 3, TR_ARG1}, {"ceildiv", 2, TR_SAME},
	{"tvm_thread_invariant", 1, TR_SAME}, {"ret", 1, TR_SAME},
	{"assume", 1, TR_OPAQUE},
	{"call_extern", -1, TR_DTYPE}, {"call_pure_extern", -1, TR_DTYPE},
	{"call_llvm_intrin", -1, TR_DTYPE}, {"call_llvm_pure_intrin", -1, TR_DTYPE},
	{"reinterpret", 2, TR_DTYPE},
	{"call_packed", -1, TR_OPAQUE}, {"call_cpacked", -1, TR_OPAQUE},
	{"call_intrin", -1, TR_DTYPE}, {"call_kernel", -1, TR_OPAQUE},
	{"tvm_struct_get", 3, TR_OPAQUE}, {"tvm_struct_set", 4, TR_OPAQUE},
	{"tvm_stack_make_shape", -1, TR_OPAQUE},
	{"tvm_stack_make_array", -1, TR_OPAQUE},
	{"anylist_getitem", 2, TR_OPAQUE},
	{"anylist_resetitem", 2, TR_OPAQUE},
	{"anylist_setitem_call_packed", -1, TR_OPAQUE},
	{"anylist_setitem_call_cpacked", -1, TR_OPAQUE},
	{"tvm_access_ptr", -1, TR_OPAQUE}, {"address_of", 1, TR_OPAQUE},
	{"isnullptr", 1, TR_BOOL}, {"handle_add_byte_offset", 2, TR_OPAQUE},
	{"start_profile_intrinsic", 1, TR_OPAQUE},
	{"end_profile_intrinsic", 1, TR_OPAQUE},
};

const TIntrinsic *
tir_intrinsic(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(intrinsics); i++)
		if (!strcmp(intrinsics[i].name, name))
			return &intrinsics[i];
	return NULL;
}

const TIntrinsic *
tir_intrinsic_at(int i)
{
	return i >= 0 && i < (int)ARRAY_LEN(intrinsics) ? &intrinsics[i] : NULL;
}

PrimFunc *
tir_find(const Module *m, const char *name)
{
	for (int i = 0; i < m->nprims; i++)
		if (!strcmp(m->prims[i]->name, name))
			return m->prims[i];
	return NULL;
}

/* ---------------------------------------------------------------- walk */

void
tir_walk_expr(TExpr *e, const TWalk *w)
{
	/* an explicit stack: TVM's printed expressions nest deep (long
	 * sums), and a fuzzed one deeper */
	Vec st = {0};
	vec_push(&st, e);
	while (st.n > 0) {
		TExpr *x = st.items[--st.n];
		if (!x)
			continue;
		if (w->expr)
			w->expr(x, w->ctx);
		for (int i = x->n - 1; i >= 0; i--)
			vec_push(&st, x->args[i]);
		vec_push(&st, x->c);
		vec_push(&st, x->b);
		vec_push(&st, x->a);
	}
	vec_free(&st);
}

static void
walk_buf(TBuf *b, const TWalk *w)
{
	for (int i = 0; i < b->ndim; i++)
		tir_walk_expr(b->shape[i], w);
	for (int i = 0; i < b->nstrides; i++)
		tir_walk_expr(b->strides[i], w);
	if (b->elem_offset)
		tir_walk_expr(b->elem_offset, w);
}

static void
walk_regions(TRegion *r, int n, const TWalk *w)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < r[i].n; j++) {
			tir_walk_expr(r[i].ranges[j].min, w);
			if (r[i].ranges[j].extent)
				tir_walk_expr(r[i].ranges[j].extent, w);
		}
}

void
tir_walk_stmt(TStmt *s, const TWalk *w)
{
	if (!s)
		return;
	if (w->stmt)
		w->stmt(s, w->ctx);
	if (w->expr) {
		TExpr *es[] = {s->min, s->extent, s->pred, s->value, s->cond};
		for (size_t i = 0; i < ARRAY_LEN(es); i++)
			if (es[i])
				tir_walk_expr(es[i], w);
		for (int i = 0; i < s->nidx; i++)
			tir_walk_expr(s->idx[i], w);
		for (int i = 0; i < s->niters; i++) {
			tir_walk_expr(s->iters[i].min, w);
			tir_walk_expr(s->iters[i].extent, w);
			tir_walk_expr(s->iters[i].value, w);
		}
		walk_regions(s->reads, s->nreads, w);
		walk_regions(s->writes, s->nwrites, w);
		for (int i = 0; i < s->nallocs; i++)
			walk_buf(s->allocs[i], w);
	}
	tir_walk_stmt(s->init, w);
	for (int i = 0; i < s->n; i++)
		tir_walk_stmt(s->body[i], w);
	tir_walk_stmt(s->inner, w);
	tir_walk_stmt(s->else_, w);
}

bool
tir_expr_same(const TExpr *a, const TExpr *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind || a->ty != b->ty || a->n != b->n)
		return false;
	switch (a->kind) {
	case TE_INT:
		return a->i == b->i;
	case TE_FLOAT:
		return a->f == b->f || (a->f != a->f && b->f != b->f);
	case TE_STR:
		return !strcmp(a->s, b->s);
	case TE_VAR:
		return a->var == b->var;
	case TE_CALL:
		if (strcmp(a->s, b->s))
			return false;
		break;
	case TE_LOAD:
		if (a->buf != b->buf)
			return false;
		break;
	default:
		break;
	}
	for (int i = 0; i < a->n; i++)
		if (!tir_expr_same(a->args[i], b->args[i]))
			return false;
	return tir_expr_same(a->a, b->a) && tir_expr_same(a->b, b->b) &&
	       tir_expr_same(a->c, b->c);
}

/* ---------------------------------------------------------------- purity */

typedef struct {
	Vec local; /* TBuf* allocated inside the function */
	bool pure;
} Purity;

static bool
is_local(const Purity *p, const TBuf *b)
{
	for (int i = 0; i < p->local.n; i++)
		if (p->local.items[i] == b)
			return true;
	return false;
}

static void
purity_stmt(TStmt *s, void *ctx)
{
	Purity *p = ctx;
	for (int i = 0; i < s->nallocs; i++)
		vec_push(&p->local, s->allocs[i]);
	/* a statement's allocations come before its body in the walk */
	if (s->kind == TS_STORE && !is_local(p, s->buf))
		p->pure = false;
}

static void
purity_expr(TExpr *e, void *ctx)
{
	Purity *p = ctx;
	if (e->kind != TE_CALL)
		return;
	/* TVM's opaque and state-updating intrinsics (TCallEffectKind) */
	static const char *const effects[] = {
		"call_extern", "call_llvm_intrin", "call_packed", "call_cpacked",
		"call_intrin", "call_kernel", "tvm_struct_set",
		"anylist_resetitem", "anylist_setitem_call_packed",
		"anylist_setitem_call_cpacked", "start_profile_intrinsic",
		"end_profile_intrinsic", "tvm_stack_make_shape",
		"tvm_stack_make_array", "tvm_access_ptr", "address_of",
		"handle_add_byte_offset",
	};
	for (size_t i = 0; i < ARRAY_LEN(effects); i++)
		if (!strcmp(e->s, effects[i]))
			p->pure = false;
}

bool
tir_func_pure(const PrimFunc *f)
{
	Purity p = {.pure = true};
	for (int i = 0; i < f->nroot_allocs; i++)
		vec_push(&p.local, f->root_allocs[i]);
	TWalk w = {purity_stmt, purity_expr, &p};
	tir_walk_stmt(f->body, &w);
	vec_free(&p.local);
	return p.pure;
}

/* ------------------------------------------------------------- callers */

const PrimFunc *
tir_called(const Module *m, const Expr *e, const char **how)
{
	const char *name = NULL;
	if (e->kind == E_CALL &&
	    (e->call.op == OP_CALL_TIR || e->call.op == OP_CALL_TIR_INPLACE ||
	     e->call.op == OP_CALL_TIR_WITH_GRAD || e->call.op == OP_VM_CALL_TIR_DYN) &&
	    e->call.nargs > 0 && e->call.args[0]->kind == E_GLOBAL) {
		name = e->call.args[0]->str;
		*how = op_info(e->call.op)->name;
	} else if (e->kind == E_CALL_FN) {
		name = e->callfn.callee;
		*how = "call";
	}
	return name ? tir_find(m, name) : NULL;
}
