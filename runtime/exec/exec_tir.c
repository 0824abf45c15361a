/*
 * exec_tir.c — the entry checks of a prim_func call (R.call_tir), as TVM's
 * packed-function wrapper makes them, and the kernel's dims.
 *
 * The parameters are taken in order. A buffer parameter needs a tensor of
 * its rank and dtype; each of its dims that is a bare symbolic variable
 * not bound yet binds it (the first occurrence), every other dim (a
 * constant, a bound variable, an expression of bound variables) must equal
 * the tensor's. A scalar parameter binds its variable (or, when a buffer
 * bound it already, must agree). A mismatch is a message naming the
 * prim_func, the parameter, the tensor's shape and the buffer's; the
 * caller locates it at the call. Nothing here reads a tensor's data.
 */
#include <stdio.h>
#include <string.h>

#include "exec.h"

typedef struct {
	const TVar *v;
	int64_t val;
	int by; /* the parameter that bound it */
} Sym;

typedef struct {
	Sym s[128];
	int n;
} Syms;

static const Sym *
sym_get(const Syms *ss, const TVar *v)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i].v == v)
			return &ss->s[i];
	return NULL;
}

/* Evaluates integer expression x over the bound variables; false when
 * it reads an unbound one or something but integer arithmetic. */
static bool
eval(const TExpr *x, const Syms *ss, int64_t *out)
{
	int64_t a, b;
	switch (x->kind) {
	case TE_INT:
		*out = x->i;
		return true;
	case TE_VAR: {
		const Sym *s = sym_get(ss, x->var);
		if (s)
			*out = s->val;
		return s != NULL;
	}
	case TE_CAST:
		return eval(x->a, ss, out);
	case TE_NEG:
		if (!eval(x->a, ss, &a))
			return false;
		*out = -a;
		return true;
	default:
		break;
	}
	if (!TE_IS_BIN(x->kind) || !x->a || !x->b || !eval(x->a, ss, &a) ||
	    !eval(x->b, ss, &b))
		return false;
	switch (x->kind) {
	case TE_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return true;
	case TE_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return true;
	case TE_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return true;
	case TE_MIN: *out = a < b ? a : b; return true;
	case TE_MAX: *out = a > b ? a : b; return true;
	case TE_DIV: case TE_TRUNCDIV: case TE_TRUNCMOD:
	case TE_FLOORDIV: case TE_FLOORMOD:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		if (x->kind == TE_DIV || x->kind == TE_TRUNCDIV)
			*out = a / b;
		else if (x->kind == TE_TRUNCMOD)
			*out = a % b;
		else if (x->kind == TE_FLOORDIV)
			*out = a / b - (a % b != 0 && ((a < 0) != (b < 0)));
		else
			*out = a % b + (a % b != 0 && ((a % b < 0) != (b < 0)) ? b : 0);
		return true;
	default:
		return false;
	}
}

/* "(n, 4) float32": a buffer's shape as written. */
static void
buf_text(StrBuf *b, const TBuf *buf)
{
	sb_putc(b, '(');
	for (int i = 0; i < buf->ndim; i++) {
		if (i)
			sb_puts(b, ", ");
		if (buf->shape[i]->kind == TE_INT)
			sb_printf(b, "%lld", (long long)buf->shape[i]->i);
		else
			print_texpr(b, buf->shape[i]);
	}
	sb_puts(b, buf->ndim == 1 ? ",) " : ") ");
	sb_puts(b, dtype_name(buf->dtype));
}

static const char *
param_name(const TParam *q)
{
	return q->buf ? q->buf->name : q->var->name;
}

/* The message of a mismatch at parameter i: "prim_func 'f', parameter
 * 'B' (input 1): got (3, 5) float32, the buffer is (n, 4) float32: WHY". */
static bool
fail(const PrimFunc *f, int i, const TirArg *a, const char *why, char *msg,
     size_t msz)
{
	StrBuf b = {0};
	const TParam *q = &f->params[i];
	sb_printf(&b, "prim_func '%s', parameter '%s' (%s): ", f->name,
		  param_name(q), a->role);
	if (a->tensor) {
		sb_puts(&b, "got ");
		rt_type_text(&b, a->dt, a->ndim, a->shape);
	} else {
		sb_puts(&b, a->scalar ? "got a scalar" : "got no tensor");
	}
	if (q->buf) {
		sb_puts(&b, ", the buffer is ");
		buf_text(&b, q->buf);
	}
	sb_printf(&b, ": %s", why);
	snprintf(msg, msz, "%s", b.p);
	sb_free(&b);
	return false;
}

/* Scalar parameter i (an integer) binds its variable, or agrees. */
static bool
bind_scalar(const PrimFunc *f, int i, const TirArg *a, Syms *ss, char *msg,
	    size_t msz)
{
	const TParam *q = &f->params[i];
	if (q->var->ty == TT_HANDLE || dtype_is_float((DType)q->var->ty))
		return true;
	int64_t v = a->isf ? (int64_t)a->f : a->i;
	const Sym *s = sym_get(ss, q->var);
	if (s && s->val != v) {
		char why[256];
		snprintf(why, sizeof why, "%s is %lld, but parameter '%s' bound it "
			 "to %lld", q->var->name, (long long)v,
			 param_name(&f->params[s->by]), (long long)s->val);
		return fail(f, i, a, why, msg, msz);
	}
	if (!s && ss->n < (int)ARRAY_LEN(ss->s))
		ss->s[ss->n++] = (Sym){q->var, v, i};
	return true;
}

/* Pass 1 over buffer parameter i: rank, dtype, its bare-variable dims
 * (bound at the first occurrence, checked at the others). */
static bool
check_buf1(const PrimFunc *f, int i, const TirArg *a, Syms *ss, char *msg,
	   size_t msz)
{
	const TBuf *buf = f->params[i].buf;
	char why[256];
	if (!a->tensor)
		return fail(f, i, a, "the parameter is a buffer", msg, msz);
	if (a->ndim != buf->ndim) {
		snprintf(why, sizeof why, "%d dimensions where the buffer has %d",
			 a->ndim, buf->ndim);
		return fail(f, i, a, why, msg, msz);
	}
	if (a->dt != buf->dtype) {
		snprintf(why, sizeof why, "dtype %s where the buffer's is %s",
			 dtype_name(a->dt), dtype_name(buf->dtype));
		return fail(f, i, a, why, msg, msz);
	}
	for (int j = 0; j < buf->ndim; j++) {
		const TExpr *x = buf->shape[j];
		int64_t got = a->shape[j];
		if (x->kind == TE_INT && x->i != got) {
			snprintf(why, sizeof why, "dimension %d is %lld, expected %lld",
				 j, (long long)got, (long long)x->i);
			return fail(f, i, a, why, msg, msz);
		}
		if (x->kind != TE_VAR)
			continue;
		const Sym *s = sym_get(ss, x->var);
		if (!s) {
			if (ss->n == (int)ARRAY_LEN(ss->s)) {
				snprintf(msg, msz, "prim_func '%s': too many symbolic "
					 "variables", f->name);
				return false;
			}
			ss->s[ss->n++] = (Sym){x->var, got, i};
			continue;
		}
		if (s->val != got) {
			snprintf(why, sizeof why, "dimension %d is %lld, but %s was "
				 "bound to %lld by parameter '%s'", j, (long long)got,
				 x->var->name, (long long)s->val,
				 param_name(&f->params[s->by]));
			return fail(f, i, a, why, msg, msz);
		}
	}
	return true;
}

/* Pass 2 over buffer parameter i: the dims that are expressions. */
static bool
check_buf2(const PrimFunc *f, int i, const TirArg *a, const Syms *ss,
	   char *msg, size_t msz)
{
	const TBuf *buf = f->params[i].buf;
	char why[256];
	for (int j = 0; j < buf->ndim; j++) {
		const TExpr *x = buf->shape[j];
		int64_t want;
		if (x->kind == TE_INT || x->kind == TE_VAR)
			continue;
		bool ok = eval(x, ss, &want);
		if (ok && want == a->shape[j])
			continue;
		StrBuf t = {0};
		print_texpr(&t, x);
		if (!ok)
			snprintf(why, sizeof why, "dimension %d (%s) cannot be computed "
				 "from the variables the other parameters bind", j, t.p);
		else
			snprintf(why, sizeof why, "dimension %d is %lld, but %s is %lld",
				 j, (long long)a->shape[j], t.p, (long long)want);
		sb_free(&t);
		return fail(f, i, a, why, msg, msz);
	}
	return true;
}

bool
exec_tir_check(const PrimFunc *f, const TirArg *args, int n, int64_t *dims,
	       int maxdims, int *ndims, char *msg, size_t msz)
{
	Syms ss = {.n = 0};
	if (n != f->nparams) {
		snprintf(msg, msz, "prim_func '%s' takes %d parameters, the call "
			 "gives %d", f->name, f->nparams, n);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const TParam *q = &f->params[i];
		if (q->buf || q->var->ty == TT_HANDLE) /* a bare handle: anything */
			continue;
		if (!args[i].scalar)
			return fail(f, i, &args[i], "the parameter is a scalar", msg, msz);
		if (!bind_scalar(f, i, &args[i], &ss, msg, msz))
			return false;
	}
	for (int i = 0; i < n; i++)
		if (f->params[i].buf && !check_buf1(f, i, &args[i], &ss, msg, msz))
			return false;
	for (int i = 0; i < n; i++)
		if (f->params[i].buf && !check_buf2(f, i, &args[i], &ss, msg, msz))
			return false;
	/* the kernel's dims: the buffers' in order, then the scalars */
	int nd = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			const TParam *q = &f->params[i];
			if ((pass == 0) != (q->buf != NULL) ||
			    (!q->buf && q->var->ty == TT_HANDLE))
				continue;
			int need = q->buf ? q->buf->ndim : 1;
			if (nd + need > maxdims) {
				snprintf(msg, msz, "prim_func '%s': too many dimensions",
					 f->name);
				return false;
			}
			if (q->buf) {
				for (int j = 0; j < q->buf->ndim; j++)
					dims[nd++] = args[i].shape[j];
			} else if (q->var->ty != TT_HANDLE &&
				   dtype_is_float((DType)q->var->ty)) {
				double d = args[i].isf ? args[i].f : (double)args[i].i;
				memcpy(&dims[nd++], &d, sizeof d);
			} else {
				dims[nd++] = args[i].isf ? (int64_t)args[i].f : args[i].i;
			}
		}
	*ndims = nd;
	return true;
}

bool
exec_tir_out_shape(const PrimFunc *f, const TirArg *args, int nin, int p,
		   int64_t *shape)
{
	Syms ss = {.n = 0};
	for (int i = 0; i < nin && i < f->nparams; i++) {
		const TParam *q = &f->params[i];
		if (!q->buf) {
			if (args[i].scalar && !args[i].isf && ss.n < (int)ARRAY_LEN(ss.s))
				ss.s[ss.n++] = (Sym){q->var, args[i].i, i};
			continue;
		}
		if (!args[i].tensor || args[i].ndim != q->buf->ndim)
			return false;
		for (int j = 0; j < q->buf->ndim; j++) {
			const TExpr *x = q->buf->shape[j];
			if (x->kind == TE_VAR && !sym_get(&ss, x->var) &&
			    ss.n < (int)ARRAY_LEN(ss.s))
				ss.s[ss.n++] = (Sym){x->var, args[i].shape[j], i};
		}
	}
	const TBuf *b = p < f->nparams ? f->params[p].buf : NULL;
	if (!b)
		return false;
	for (int j = 0; j < b->ndim; j++)
		if (!eval(b->shape[j], &ss, &shape[j]) || shape[j] < 0)
			return false;
	return true;
}
