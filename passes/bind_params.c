/*
 * bind_params.c — bind-params: fix configuration values at compile time.
 *
 * Rewrites, for each `NAME=VALUE` of PassBindOptions.binds (`rlx lift --bind`):
 *  - a parameter NAME of a function becomes the constant VALUE: the
 *    parameter is removed, its uses read an R.const of the parameter's dtype
 *    (a scalar tensor or an R.Prim), and num_input shrinks when the parameter
 *    was a runtime input;
 *  - a symbolic variable NAME becomes the integer VALUE in every annotation,
 *    shape and prim value of the functions that define it.
 * After it, lift-transform-params sees a bound config value as a constant:
 * what depends only on it and the weights moves into the transform, while an
 * unbound config parameter stays a runtime value (C0 weights / C1 config).
 *
 * Leaves alone: functions without such a parameter or variable. A NAME found
 * nowhere is an error, as is a value that does not fit the parameter.
 * As TVM's BindParams/BindSymbolicVars. `@file.npy` values bind a tensor
 * parameter to an R.const array; the CLI reads the file before the pass
 * runs (PassBinding.data), the pass checks its dtype and shape.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* Parses VALUE as the scalar of dtype t into 8 bytes of storage. */
static bool
scalar_bytes(DType t, const char *text, unsigned char out[8])
{
	char *end;
	errno = 0;
	memset(out, 0, 8);
	if (dtype_is_float(t)) {
		double v = strtod(text, &end);
		if (*end || end == text || errno)
			return false;
		if (t == DT_F64) {
			memcpy(out, &v, 8);
		} else if (t == DT_F32) {
			float f = (float)v;
			memcpy(out, &f, 4);
		} else {
			return false; /* f16/bf16/float8 scalars: bind as f32 and cast */
		}
		return true;
	}
	long long v = strtoll(text, &end, 10);
	if (*end || end == text || errno)
		return false;
	if (t == DT_BOOL) {
		if (v != 0 && v != 1)
			return false;
		out[0] = (unsigned char)v;
		return true;
	}
	int bytes = dtype_bits(t) / 8;
	bool un = dtype_is_unsigned(t);
	if (un && v < 0)
		return false;
	if (bytes < 8) {
		long long lim = 1LL << (bytes * 8 - (un ? 0 : 1));
		if (un ? v >= lim : (v < -lim || v >= lim))
			return false;
	}
	memcpy(out, &v, (size_t)bytes); /* little-endian host */
	return true;
}

typedef struct {
	Module *m;
	Var *param;
	Expr *value;
} VarBind;

/* A use of vb->param reads a copy of vb->value (ir_map_uses callback). */
static Expr *
bind_use(Expr *use, void *ctx)
{
	const VarBind *vb = ctx;
	return use->var == vb->param ? ir_copy_expr(vb->m, vb->value) : use;
}

/* Removes parameter pi of f, whose uses now read c. */
static void
drop_param(Module *m, Func *f, int pi, Expr *c)
{
	Var *p = f->params[pi];
	ir_map_uses(&f->body, bind_use, &(VarBind){m, p, c});
	for (int k = pi + 1; k < f->nparams; k++)
		f->params[k - 1] = f->params[k];
	f->nparams--;
	for (int k = 0; k < f->nattrs; k++)
		if (!strcmp(f->attrs[k].key, "num_input") &&
		    f->attrs[k].val.kind == AV_INT && pi < f->attrs[k].val.i)
			f->attrs[k].val.i--;
}

/* Binds parameter index pi of f to text; returns false (with an error). */
static bool
bind_param(Module *m, Func *f, int pi, const char *text, Diags *d)
{
	Var *p = f->params[pi];
	SInfo *si = p->sinfo;
	bool scalar_tensor = si && si->kind == SI_TENSOR && si->ndim == 0;
	bool prim = si && si->kind == SI_PRIM;
	if (!scalar_tensor && !prim) {
		diag_error(d, p->span,
			   "--bind %s: only scalar parameters (R.Tensor((), ...) "
			   "or R.Prim) can be bound to a number",
			   p->name);
		return false;
	}
	unsigned char bytes[8];
	if (si->dtype == DT_UNKNOWN || !scalar_bytes(si->dtype, text, bytes)) {
		diag_error(d, p->span, "--bind %s=%s: not a valid %s value",
			   p->name, text, dtype_name(si->dtype));
		return false;
	}
	Expr *c;
	if (scalar_tensor) {
		c = ir_expr(m, E_CONST, p->span);
		c->cdata.dtype = si->dtype;
		c->cdata.ndim = 0;
		c->cdata.data = arena_memdup(&m->arena, bytes, 8);
	} else {
		c = ir_expr(m, E_PRIM, p->span);
		c->prim.dtype = si->dtype;
		if (dtype_is_float(si->dtype))
			c->prim.f = strtod(text, NULL);
		else
			c->prim.value = pe_int(&m->arena, strtoll(text, NULL, 10));
	}
	c->sinfo = si;
	drop_param(m, f, pi, c);
	return true;
}

/* Binds tensor parameter pi of f to the array of pb (@file.npy). */
static bool
bind_array(Module *m, Func *f, int pi, const PassBinding *pb, Diags *d)
{
	Var *p = f->params[pi];
	SInfo *si = p->sinfo;
	if (!si || si->kind != SI_TENSOR) {
		diag_error(d, p->span, "--bind %s=%s: the parameter is not a tensor",
			   p->name, pb->value);
		return false;
	}
	if (si->dtype != DT_UNKNOWN && si->dtype != pb->dtype) {
		diag_error(d, p->span, "--bind %s=%s: the array is %s, the "
			   "parameter %s", p->name, pb->value,
			   dtype_name(pb->dtype), dtype_name(si->dtype));
		return false;
	}
	bool fits = si->ndim < 0 || si->ndim == pb->ndim;
	for (int i = 0; fits && si->shape && i < si->ndim; i++) {
		int64_t c;
		if (pe_is_const(si->shape[i], &c) && c != pb->shape[i])
			fits = false;
		if (si->shape[i]->kind == PE_VAR || !pe_is_const(si->shape[i], &c))
			fits = false; /* symbolic dims: bind them first (--bind n=...) */
	}
	if (!fits) {
		StrBuf a = {0};
		print_sinfo(&a, si);
		StrBuf s = {0};
		for (int i = 0; i < pb->ndim; i++)
			sb_printf(&s, "%s%lld", i ? ", " : "", (long long)pb->shape[i]);
		diag_error(d, p->span, "--bind %s=%s: an array of shape (%s) does "
			   "not fit the parameter's %s", p->name, pb->value,
			   s.p ? s.p : "", a.p ? a.p : "?");
		sb_free(&a);
		sb_free(&s);
		return false;
	}
	size_t n = (size_t)dtype_bits(pb->dtype) / 8;
	for (int i = 0; i < pb->ndim; i++)
		n *= (size_t)pb->shape[i];
	Expr *c = ir_expr(m, E_CONST, p->span);
	c->cdata.dtype = pb->dtype;
	c->cdata.ndim = pb->ndim;
	c->cdata.shape = arena_memdup(&m->arena, pb->shape,
				      sizeof(int64_t) * (size_t)(pb->ndim ? pb->ndim : 1));
	c->cdata.data = arena_memdup(&m->arena, pb->data, n);
	c->sinfo = si;
	drop_param(m, f, pi, c);
	return true;
}

int
pass_bind_params(Module *m, const PassBindOptions *o, Diags *d)
{
	int errors = 0;
	for (int b = 0; b < o->nbinds; b++) {
		const PassBinding *pb = &o->binds[b];
		if (pb->value[0] == '@' && !pb->data) {
			diag_error(d, (Span){0, 0, 0},
				   "--bind %s=%s: the array was not read", pb->name,
				   pb->value);
			errors++;
			continue;
		}
		bool found = false;
		for (int i = 0; i < m->nfuncs; i++) {
			Func *f = m->funcs[i];
			for (int k = 0; k < f->nparams; k++)
				if (!strcmp(f->params[k]->name, pb->name)) {
					found = true;
					bool ok = pb->data ? bind_array(m, f, k, pb, d)
							   : bind_param(m, f, k, pb->value, d);
					if (!ok)
						errors++;
					break;
				}
			for (int k = 0; k < f->nsymvars; k++)
				if (!strcmp(f->symvars[k]->name, pb->name)) {
					char *end;
					errno = 0;
					long long v = strtoll(pb->value, &end, 10);
					found = true;
					if (*end || errno || end == pb->value || v < 0) {
						diag_error(d, f->symvars[k]->span,
							   "--bind %s=%s: a symbolic "
							   "dimension needs a non-negative "
							   "integer",
							   pb->name, pb->value);
						errors++;
						break;
					}
					PExpr *to = pe_int(&m->arena, v);
					ir_subst_func(m, f, &f->symvars[k], &to, 1);
					for (int j = k + 1; j < f->nsymvars; j++)
						f->symvars[j - 1] = f->symvars[j];
					f->nsymvars--;
					break;
				}
		}
		if (!found) {
			diag_error(d, (Span){0, 0, 0},
				   "--bind %s: no function has a parameter or "
				   "symbolic variable named %s",
				   pb->name, pb->name);
			errors++;
		}
	}
	return errors;
}
