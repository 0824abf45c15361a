/*
 * verify_tir.c — well-formedness of prim_funcs, as TVM's VerifyWellFormed
 * checks it for what rlx builds: every variable used is defined by an
 * enclosing scope (a parameter, a declared shape variable, a loop, a
 * block's axis, a let); a load or store indexes every dimension of its
 * buffer with integers; a store's value has the buffer's dtype. The
 * builder makes TIR that holds these; the check is for what a pass or a
 * future lowering builds.
 */
#include <string.h>

#include "ir.h"

typedef struct {
	Diags *d;
	const PrimFunc *f;
	Vec scope; /* TVar* in scope */
	int errors;
} VT;

static bool
in_scope(VT *v, const TVar *x)
{
	for (int i = v->scope.n - 1; i >= 0; i--)
		if (v->scope.items[i] == x)
			return true;
	return false;
}

static void
check_expr(VT *v, const TExpr *e)
{
	if (!e)
		return;
	if (e->kind == TE_VAR && !in_scope(v, e->var)) {
		diag_error(v->d, e->span, "'%s' is used outside the scope that defines it",
			   e->var->name);
		v->errors++;
	}
	if (e->kind == TE_LOAD && e->n != e->buf->ndim) {
		diag_error(v->d, e->span, "'%s' has %d dimensions, indexed with %d",
			   e->buf->name, e->buf->ndim, e->n);
		v->errors++;
	}
	for (int i = 0; i < e->n; i++)
		check_expr(v, e->args[i]);
	check_expr(v, e->a);
	check_expr(v, e->b);
	check_expr(v, e->c);
}

static void
check_buf(VT *v, const TBuf *b)
{
	for (int i = 0; i < b->ndim; i++)
		check_expr(v, b->shape[i]);
}

static void
check_stmt(VT *v, const TStmt *s)
{
	if (!s)
		return;
	int mark = v->scope.n;
	switch (s->kind) {
	case TS_SEQ:
		for (int i = 0; i < s->n; i++)
			check_stmt(v, s->body[i]);
		break;
	case TS_FOR:
		check_expr(v, s->min);
		check_expr(v, s->extent);
		vec_push(&v->scope, s->var);
		check_stmt(v, s->inner);
		break;
	case TS_BLOCK:
		for (int i = 0; i < s->niters; i++) {
			check_expr(v, s->iters[i].value);
			check_expr(v, s->iters[i].extent);
		}
		for (int i = 0; i < s->niters; i++)
			vec_push(&v->scope, s->iters[i].var);
		check_expr(v, s->pred);
		for (int i = 0; i < s->nallocs; i++)
			check_buf(v, s->allocs[i]);
		check_stmt(v, s->init);
		check_stmt(v, s->inner);
		break;
	case TS_STORE:
		if (s->nidx != s->buf->ndim) {
			diag_error(v->d, s->span, "'%s' has %d dimensions, stored with %d indices",
				   s->buf->name, s->buf->ndim, s->nidx);
			v->errors++;
		}
		for (int i = 0; i < s->nidx; i++) {
			check_expr(v, s->idx[i]);
			if (s->idx[i]->ty == TT_HANDLE || !dtype_is_int((DType)s->idx[i]->ty)) {
				diag_error(v->d, s->idx[i]->span, "an index of '%s' is not an integer",
					   s->buf->name);
				v->errors++;
			}
		}
		check_expr(v, s->value);
		if (s->value->ty != (TType)s->buf->dtype) {
			diag_error(v->d, s->span, "a %s value stored into '%s' of %s",
				   tir_type_name(s->value->ty), s->buf->name,
				   dtype_name(s->buf->dtype));
			v->errors++;
		}
		break;
	case TS_LET:
		check_expr(v, s->value);
		vec_push(&v->scope, s->var);
		check_stmt(v, s->inner);
		break;
	case TS_IF:
		check_expr(v, s->cond);
		check_stmt(v, s->inner);
		check_stmt(v, s->else_);
		break;
	case TS_EVAL:
		check_expr(v, s->value);
		break;
	case TS_ATTR:
		check_expr(v, s->cond);
		check_expr(v, s->value);
		check_stmt(v, s->inner);
		break;
	case TS_ALLOC:
		check_buf(v, s->allocs[0]);
		check_stmt(v, s->inner);
		break;
	case TS_ASSERT:
		check_expr(v, s->cond);
		check_stmt(v, s->inner);
		break;
	}
	v->scope.n = mark;
}

/* The vars a buffer declaration defines on first use (strides,
 * elem_offset named for the first time): in scope from there on. */
static void
declare_buf_vars(VT *v, const TBuf *b)
{
	for (int i = 0; i < b->nstrides; i++)
		if (b->strides[i]->kind == TE_VAR && !in_scope(v, b->strides[i]->var))
			vec_push(&v->scope, b->strides[i]->var);
	if (b->elem_offset && b->elem_offset->kind == TE_VAR &&
	    !in_scope(v, b->elem_offset->var))
		vec_push(&v->scope, b->elem_offset->var);
}

int
verify_tir(Module *m, Diags *d)
{
	int errors = 0;
	for (int k = 0; k < m->nprims; k++) {
		const PrimFunc *f = m->prims[k];
		VT v = {.d = d, .f = f};
		for (int i = 0; i < f->nparams; i++)
			if (!f->params[i].buf || f->params[i].handle)
				vec_push(&v.scope, f->params[i].var);
		for (int i = 0; i < f->nsymvars; i++)
			vec_push(&v.scope, f->symvars[i]);
		for (int i = 0; i < f->nparams; i++)
			if (f->params[i].buf)
				declare_buf_vars(&v, f->params[i].buf);
		for (int i = 0; i < f->nroot_allocs; i++)
			declare_buf_vars(&v, f->root_allocs[i]);
		check_stmt(&v, f->body);
		vec_free(&v.scope);
		errors += v.errors;
	}
	return errors;
}
