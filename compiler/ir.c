/*
 * ir.c — IR construction: modules, variables, expressions, struct info,
 * deep copies. Every node is allocated in the module's arena.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ------------------------------------------------------------------ module */

/*
 * ir_find_func's index: a function's name to its position in m->funcs.
 * Passes add, drop, rename and replace functions by editing m->funcs
 * directly, so the index is only a guess: a hit is checked against
 * m->funcs, and a miss or a wrong hit rebuilds it once before it is
 * believed. Modules of thousands of functions (one per layer) made the
 * linear search the cost of every pass.
 */
struct FuncIndex {
	NameMap map;
};

Module *
ir_module_new(const char *filename, const char *text, size_t len)
{
	Module *m = xcalloc(1, sizeof *m);
	m->src.name = arena_strdup(&m->arena, filename ? filename : "<input>");
	m->src.text = arena_strndup(&m->arena, text ? text : "", text ? len : 0);
	m->src.len = text ? len : 0;
	m->name = "Module";
	m->fidx = xcalloc(1, sizeof *m->fidx);
	return m;
}

void
ir_module_free(Module *m)
{
	if (!m)
		return;
	if (m->fidx)
		namemap_free(&m->fidx->map);
	free(m->fidx);
	arena_free(&m->arena);
	free(m);
}

/* Position of the first function called name by the index, or -1. */
static int
index_probe(const Module *m, const char *name)
{
	const int *i = namemap_get(&m->fidx->map, name);
	if (!i || *i >= m->nfuncs || !m->funcs[*i] || !m->funcs[*i]->name ||
	    strcmp(m->funcs[*i]->name, name))
		return -1;
	return *i;
}

static void
index_build(const Module *m)
{
	NameMap *map = &m->fidx->map;
	namemap_free(map);
	for (int i = 0; i < m->nfuncs; i++)
		if (m->funcs[i] && m->funcs[i]->name)
			namemap_add(map, m->funcs[i]->name, i); /* the first wins */
}

int
ir_func_index(const Module *m, const char *name)
{
	if (!name || !m->funcs)
		return -1;
	int i = index_probe(m, name);
	if (i < 0) {
		index_build(m);
		i = index_probe(m, name);
	}
	return i;
}

Func *
ir_find_func(const Module *m, const char *name)
{
	int i = ir_func_index(m, name);
	return i < 0 ? NULL : m->funcs[i];
}

const FuncAttr *
ir_func_attr(const Func *f, const char *key)
{
	for (int i = 0; i < f->nattrs; i++)
		if (!strcmp(f->attrs[i].key, key))
			return &f->attrs[i];
	return NULL;
}

int
ir_func_num_input(const Func *f)
{
	const FuncAttr *a = ir_func_attr(f, "num_input");
	return a && a->val.kind == AV_INT ? (int)a->val.i : -1;
}

/* ------------------------------------------------------------------- nodes */

Var *
ir_var(Module *m, const char *name, SInfo *si, bool dataflow, Span sp)
{
	Var *v = ARENA_NEW(&m->arena, Var);
	v->name = arena_strdup(&m->arena, name);
	v->id = m->next_id++;
	v->dataflow = dataflow;
	v->sinfo = si;
	v->span = sp;
	return v;
}

SymVar *
ir_symvar(Module *m, const char *name, Span sp)
{
	SymVar *v = ARENA_NEW(&m->arena, SymVar);
	v->name = arena_strdup(&m->arena, name);
	v->id = m->next_id++;
	v->span = sp;
	return v;
}

Expr *
ir_expr(Module *m, ExprKind k, Span sp)
{
	Expr *e = ARENA_NEW(&m->arena, Expr);
	e->kind = k;
	e->span = sp;
	return e;
}

Expr *
ir_var_ref(Module *m, Var *v, Span sp)
{
	Expr *e = ir_expr(m, E_VAR, sp);
	e->var = v;
	e->sinfo = v->sinfo;
	return e;
}

Binding *
ir_binding(Module *m, Var *v, Expr *value, Span sp)
{
	Binding *b = ARENA_NEW(&m->arena, Binding);
	b->var = v;
	b->value = value;
	b->span = sp;
	return b;
}

/* ORDER: ExprKind */
static const char *const expr_kind_names[] = {
	"var", "constant", "tuple", "tuple index", "shape", "prim value",
	"string", "op call", "function call", "if", "sequence",
	"extern function", "function", "call", "global function",
};
_Static_assert(ARRAY_LEN(expr_kind_names) == E_GLOBAL + 1,
	       "expr_kind_names has a name per ExprKind");

const char *
ir_expr_kind_name(ExprKind k)
{
	return (unsigned)k < ARRAY_LEN(expr_kind_names) ? expr_kind_names[k]
							 : "?";
}

const SInfo *
ir_expr_sinfo(const Expr *e)
{
	if (e->sinfo)
		return e->sinfo;
	return e->kind == E_VAR ? e->var->sinfo : NULL;
}

/* ------------------------------------------------------------- struct info */

static SInfo *
si_new(Arena *a, SInfoKind k)
{
	SInfo *s = ARENA_NEW(a, SInfo);
	s->kind = k;
	s->ndim = -1;
	return s;
}

SInfo *
si_object(Arena *a)
{
	return si_new(a, SI_OBJECT);
}

SInfo *
si_prim(Arena *a, DType t, PExpr *value)
{
	SInfo *s = si_new(a, SI_PRIM);
	s->dtype = t;
	s->value = value;
	return s;
}

const char *
ir_vdevice_canon(Arena *a, const char *s)
{
	const char *c1 = strchr(s, ':');
	size_t kn = c1 ? (size_t)(c1 - s) : strlen(s);
	if (!kn)
		return NULL;
	for (size_t i = 0; i < kn; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return NULL;
	long idx = 0;
	const char *scope = "global";
	if (c1) {
		char *end;
		idx = strtol(c1 + 1, &end, 10);
		if (end == c1 + 1 || idx < 0 || (*end && *end != ':'))
			return NULL;
		if (*end == ':') {
			scope = end + 1;
			if (!*scope)
				return NULL;
		}
	}
	return arena_printf(a, "%.*s:%ld:%s", (int)kn, s, idx, scope);
}

SInfo *
si_shape(Arena *a, int ndim, PExpr **values)
{
	SInfo *s = si_new(a, SI_SHAPE);
	s->ndim = ndim;
	s->shape = values;
	return s;
}

SInfo *
si_tensor(Arena *a, DType t, int ndim, PExpr **shape)
{
	SInfo *s = si_new(a, SI_TENSOR);
	s->dtype = t;
	s->ndim = ndim;
	s->shape = shape;
	return s;
}

SInfo *
si_tuple(Arena *a, SInfo **fields, int n)
{
	SInfo *s = si_new(a, SI_TUPLE);
	s->fields = fields;
	s->nfields = n;
	return s;
}

SInfo *
si_func(Arena *a, SInfo **params, int n, SInfo *ret, bool pure)
{
	SInfo *s = si_new(a, SI_FUNC);
	s->fields = params;
	s->nfields = n;
	s->ret = ret;
	s->pure = pure;
	return s;
}

/* ------------------------------------------------------------------ copies */

SInfo *
ir_copy_sinfo(Module *m, const SInfo *si)
{
	if (!si)
		return NULL;
	SInfo *c = ARENA_NEW(&m->arena, SInfo);
	*c = *si;
	if (si->shape && si->ndim > 0)
		c->shape = arena_memdup(&m->arena, si->shape,
					sizeof(PExpr *) * (size_t)si->ndim);
	if (si->nfields) {
		c->fields = ARENA_ARRAY(&m->arena, SInfo *, si->nfields);
		for (int i = 0; i < si->nfields; i++)
			c->fields[i] = ir_copy_sinfo(m, si->fields[i]);
	}
	c->ret = ir_copy_sinfo(m, si->ret);
	return c;
}

static Expr **
copy_exprs(Module *m, Expr *const *es, int n)
{
	Expr **c = ARENA_ARRAY(&m->arena, Expr *, n ? n : 1);
	for (int i = 0; i < n; i++)
		c[i] = ir_copy_expr(m, es[i]);
	return c;
}

static Block *
copy_block(Module *m, const Block *b)
{
	Block *c = ARENA_NEW(&m->arena, Block);
	*c = *b;
	c->bindings = ARENA_ARRAY(&m->arena, Binding *, b->n ? b->n : 1);
	for (int i = 0; i < b->n; i++) {
		Binding *nb = ARENA_NEW(&m->arena, Binding);
		*nb = *b->bindings[i];
		nb->value = ir_copy_expr(m, nb->value);
		c->bindings[i] = nb;
	}
	return c;
}

Expr *
ir_copy_expr(Module *m, const Expr *e)
{
	if (!e)
		return NULL;
	Expr *c = ARENA_NEW(&m->arena, Expr);
	*c = *e;
	switch (e->kind) {
	case E_TUPLE:
		c->tuple.items = copy_exprs(m, e->tuple.items, e->tuple.n);
		break;
	case E_TUPLE_GET:
		c->tget.tuple = ir_copy_expr(m, e->tget.tuple);
		break;
	case E_CALL:
		c->call.args = copy_exprs(m, e->call.args, e->call.nargs);
		if (e->call.nattrs)
			c->call.attrs = arena_memdup(
				&m->arena, e->call.attrs,
				sizeof(AttrVal) * (size_t)e->call.nattrs);
		break;
	case E_CALL_FN:
		c->callfn.args = copy_exprs(m, e->callfn.args, e->callfn.nargs);
		break;
	case E_CALL_VAR:
		c->callv.fn = ir_copy_expr(m, e->callv.fn);
		c->callv.args = copy_exprs(m, e->callv.args, e->callv.nargs);
		break;
	case E_FUNC: /* the function is shared, as vars are */
		break;
	case E_IF:
		c->if_.cond = ir_copy_expr(m, e->if_.cond);
		c->if_.then_ = ir_copy_expr(m, e->if_.then_);
		c->if_.else_ = ir_copy_expr(m, e->if_.else_);
		break;
	case E_SEQ:
		c->seq.blocks = ARENA_ARRAY(&m->arena, Block *,
					    e->seq.nblocks ? e->seq.nblocks : 1);
		for (int i = 0; i < e->seq.nblocks; i++)
			c->seq.blocks[i] = copy_block(m, e->seq.blocks[i]);
		c->seq.body = ir_copy_expr(m, e->seq.body);
		break;
	case E_SHAPE:
		/* passes substitute into the array in place (the dims, being
		 * immutable, may be shared) */
		if (e->shape.n)
			c->shape.values = arena_memdup(
				&m->arena, e->shape.values,
				sizeof(PExpr *) * (size_t)e->shape.n);
		break;
	case E_VAR:
	case E_CONST:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
	return c;
}

/* --------------------------------------------------------------- walking */

bool
ir_each_child(Expr *e, bool (*fn)(Expr **child, void *ctx), void *ctx)
{
	if (!e)
		return true;
	switch (e->kind) {
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			if (!fn(&e->tuple.items[i], ctx))
				return false;
		return true;
	case E_TUPLE_GET:
		return fn(&e->tget.tuple, ctx);
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			if (!fn(&e->call.args[i], ctx))
				return false;
		return true;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			if (!fn(&e->callfn.args[i], ctx))
				return false;
		return true;
	case E_CALL_VAR:
		if (!fn(&e->callv.fn, ctx))
			return false;
		for (int i = 0; i < e->callv.nargs; i++)
			if (!fn(&e->callv.args[i], ctx))
				return false;
		return true;
	case E_FUNC: /* a local function: its body (the vars it captures) */
		return fn(&e->fn->body, ctx);
	case E_IF:
		return fn(&e->if_.cond, ctx) && fn(&e->if_.then_, ctx) &&
		       fn(&e->if_.else_, ctx);
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++) {
			Block *b = e->seq.blocks[i];
			for (int k = 0; k < b->n; k++)
				if (!fn(&b->bindings[k]->value, ctx))
					return false;
		}
		return fn(&e->seq.body, ctx);
	case E_VAR:
	case E_CONST:
	case E_SHAPE:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		return true;
	}
	return true;
}

typedef struct {
	void (*fn)(Var *v, void *ctx);
	void *ctx;
} VisitUses;

static bool
visit_child(Expr **child, void *ctx)
{
	const VisitUses *u = ctx;
	ir_visit_uses(*child, u->fn, u->ctx);
	return true;
}

void
ir_visit_uses(const Expr *e, void (*fn)(Var *v, void *ctx), void *ctx)
{
	if (e && e->kind == E_VAR) {
		fn(e->var, ctx);
		return;
	}
	VisitUses u = {fn, ctx};
	ir_each_child((Expr *)e, visit_child, &u); /* reads only */
}

typedef struct {
	Expr *(*fn)(Expr *use, void *ctx);
	void *ctx;
} MapUses;

static bool
map_child(Expr **child, void *ctx)
{
	const MapUses *u = ctx;
	ir_map_uses(child, u->fn, u->ctx);
	return true;
}

void
ir_map_uses(Expr **slot, Expr *(*fn)(Expr *use, void *ctx), void *ctx)
{
	Expr *e = *slot;
	if (e && e->kind == E_VAR) {
		*slot = fn(e, ctx);
		return;
	}
	MapUses u = {fn, ctx};
	ir_each_child(e, map_child, &u);
}

void
ir_sinfo_symvars(const SInfo *si, Vec *out)
{
	if (!si)
		return;
	if (si->shape)
		for (int i = 0; i < si->ndim; i++)
			pe_collect_vars(si->shape[i], out);
	if (si->value)
		pe_collect_vars(si->value, out);
	for (int i = 0; i < si->nfields; i++)
		ir_sinfo_symvars(si->fields[i], out);
	ir_sinfo_symvars(si->ret, out);
}

static void
attr_symvars(const AttrVal *a, Vec *out)
{
	if (a->kind == AV_DIMS)
		for (int i = 0; i < a->n; i++)
			pe_collect_vars(a->dims[i], out);
	else if (a->kind == AV_SINFO)
		for (int i = 0; i < a->n; i++)
			ir_sinfo_symvars(a->sis[i], out);
}

void
ir_expr_symvars(const Expr *e, Vec *out)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			pe_collect_vars(e->shape.values[i], out);
		break;
	case E_PRIM:
		pe_collect_vars(e->prim.value, out);
		break;
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			ir_expr_symvars(e->tuple.items[i], out);
		break;
	case E_TUPLE_GET:
		ir_expr_symvars(e->tget.tuple, out);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			ir_expr_symvars(e->call.args[i], out);
		for (int i = 0; i < e->call.nattrs; i++)
			attr_symvars(&e->call.attrs[i], out);
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			ir_expr_symvars(e->callfn.args[i], out);
		break;
	case E_CALL_VAR:
		ir_expr_symvars(e->callv.fn, out);
		for (int i = 0; i < e->callv.nargs; i++)
			ir_expr_symvars(e->callv.args[i], out);
		break;
	case E_FUNC: /* its symbolic variables are its enclosing function's */
		for (int i = 0; i < e->fn->nparams; i++)
			ir_sinfo_symvars(e->fn->params[i]->sinfo, out);
		ir_sinfo_symvars(e->fn->ret, out);
		ir_expr_symvars(e->fn->body, out);
		break;
	case E_IF:
		ir_expr_symvars(e->if_.cond, out);
		ir_expr_symvars(e->if_.then_, out);
		ir_expr_symvars(e->if_.else_, out);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++)
			for (int k = 0; k < e->seq.blocks[i]->n; k++) {
				const Binding *b = e->seq.blocks[i]->bindings[k];
				ir_expr_symvars(b->value, out);
				ir_sinfo_symvars(b->var->sinfo, out);
				ir_sinfo_symvars(b->cast, out);
			}
		ir_expr_symvars(e->seq.body, out);
		break;
	default:
		break;
	}
	ir_sinfo_symvars(e->sinfo, out);
}

bool
ir_expr_is_pure(const Module *m, const Expr *e)
{
	switch (e->kind) {
	case E_CALL_FN: {
		const Func *f = ir_find_func(m, e->callfn.callee);
		return f && f->pure;
	}
	case E_CALL_VAR: {
		const SInfo *si = e->callv.fn->var ? e->callv.fn->var->sinfo : NULL;
		return si && si->kind == SI_FUNC && si->pure;
	}
	case E_IF:
		return ir_expr_is_pure(m, e->if_.then_) &&
		       ir_expr_is_pure(m, e->if_.else_);
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++) {
			const Block *b = e->seq.blocks[i];
			for (int k = 0; k < b->n; k++)
				if (!ir_expr_is_pure(m, b->bindings[k]->value))
					return false;
		}
		return true;
	case E_CALL:
		return op_info(e->call.op)->cls != OC_IMPURE;
	default:
		return true;
	}
}

static bool
is_leaf(const Expr *e, int depth)
{
	if (!e || depth > IR_MAX_LEAF_DEPTH)
		return false;
	switch (e->kind) {
	case E_VAR:
	case E_CONST:
	case E_SHAPE:
	case E_PRIM:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		return true;
	case E_TUPLE:
		if (e->tuple.n > 0 && !e->tuple.items)
			return false;
		for (int i = 0; i < e->tuple.n; i++)
			if (!is_leaf(e->tuple.items[i], depth + 1))
				return false;
		return true;
	case E_TUPLE_GET:
	case E_CALL:
	case E_CALL_FN:
	case E_IF:
	case E_SEQ:
	case E_FUNC:
	case E_CALL_VAR:
		return false;
	}
	return false;
}

bool
ir_is_leaf(const Expr *e)
{
	return is_leaf(e, 0);
}

bool
ir_is_worker_id(const Expr *e)
{
	if (!e || e->kind != E_CALL || e->call.op != OP_CALL_PURE_PACKED ||
	    e->call.nargs < 1)
		return false;
	const Expr *f = e->call.args[0];
	return (f->kind == E_STR || f->kind == E_EXTERN) && f->str &&
	       !strcmp(f->str, "runtime.disco.worker_id");
}

/* ---------------------------------------------------------- substitution */

typedef struct {
	Module *m;
	SymVar **from;
	PExpr **to;
	int n;
} Subst;

static PExpr *
subst_pe(const Subst *s, PExpr *x)
{
	return x ? pe_subst(&s->m->arena, x, s->from, s->to, s->n) : NULL;
}

SInfo *
ir_subst_sinfo(Module *m, SInfo *si, SymVar **from, PExpr **to, int n)
{
	if (!si || !n)
		return si;
	Subst s = {m, from, to, n};
	SInfo *c = ir_copy_sinfo(m, si);
	if (c->shape)
		for (int i = 0; i < c->ndim; i++)
			c->shape[i] = subst_pe(&s, c->shape[i]);
	c->value = subst_pe(&s, c->value);
	for (int i = 0; i < c->nfields; i++)
		c->fields[i] = ir_subst_sinfo(m, c->fields[i], from, to, n);
	c->ret = ir_subst_sinfo(m, c->ret, from, to, n);
	return c;
}

static void
subst_expr(const Subst *s, Expr *e)
{
	if (!e)
		return;
	e->sinfo = ir_subst_sinfo(s->m, e->sinfo, s->from, s->to, s->n);
	switch (e->kind) {
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			subst_expr(s, e->tuple.items[i]);
		break;
	case E_TUPLE_GET:
		subst_expr(s, e->tget.tuple);
		break;
	case E_SHAPE:
		for (int i = 0; i < e->shape.n; i++)
			e->shape.values[i] = subst_pe(s, e->shape.values[i]);
		break;
	case E_PRIM:
		e->prim.value = subst_pe(s, e->prim.value);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			subst_expr(s, e->call.args[i]);
		for (int j = 0; j < e->call.nattrs; j++) {
			AttrVal *v = &e->call.attrs[j];
			if (v->kind == AV_DIMS) {
				PExpr **d = ARENA_ARRAY(&s->m->arena, PExpr *, v->n);
				for (int i = 0; i < v->n; i++)
					d[i] = subst_pe(s, v->dims[i]);
				v->dims = d;
			} else if (v->kind == AV_SINFO) {
				SInfo **d = ARENA_ARRAY(&s->m->arena, SInfo *, v->n);
				for (int i = 0; i < v->n; i++)
					d[i] = ir_subst_sinfo(s->m, v->sis[i], s->from,
							      s->to, s->n);
				v->sis = d;
			}
		}
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			subst_expr(s, e->callfn.args[i]);
		break;
	case E_CALL_VAR:
		subst_expr(s, e->callv.fn);
		for (int i = 0; i < e->callv.nargs; i++)
			subst_expr(s, e->callv.args[i]);
		break;
	case E_FUNC:
		for (int i = 0; i < e->fn->nparams; i++)
			e->fn->params[i]->sinfo = ir_subst_sinfo(
				s->m, e->fn->params[i]->sinfo, s->from, s->to, s->n);
		e->fn->ret = ir_subst_sinfo(s->m, e->fn->ret, s->from, s->to, s->n);
		subst_expr(s, e->fn->body);
		break;
	case E_IF:
		subst_expr(s, e->if_.cond);
		subst_expr(s, e->if_.then_);
		subst_expr(s, e->if_.else_);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++)
			for (int k = 0; k < e->seq.blocks[i]->n; k++) {
				Binding *bd = e->seq.blocks[i]->bindings[k];
				subst_expr(s, bd->value);
				bd->cast = ir_subst_sinfo(s->m, bd->cast, s->from,
							  s->to, s->n);
				bd->var->sinfo = ir_subst_sinfo(s->m, bd->var->sinfo,
								s->from, s->to, s->n);
			}
		subst_expr(s, e->seq.body);
		break;
	case E_VAR: /* the var's own sinfo is rewritten at its definition */
	case E_CONST:
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		break;
	}
}

void
ir_subst_func(Module *m, Func *f, SymVar **from, PExpr **to, int n)
{
	if (!n)
		return;
	Subst s = {m, from, to, n};
	for (int i = 0; i < f->nparams; i++)
		f->params[i]->sinfo = ir_subst_sinfo(m, f->params[i]->sinfo, from, to, n);
	subst_expr(&s, f->body);
	f->ret = ir_subst_sinfo(m, f->ret, from, to, n);
}
