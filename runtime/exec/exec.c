/*
 * exec.c — the executor: runs a Relax function binding by binding, on
 * the plan exec_plan.c made (exec.h).
 *
 * rt_compile plans the function and every function it calls: each binding
 * becomes a Step (its kernel, its branches or its callee), each Var a slot
 * of a frame, each SymVar a slot of the frame's symbolic values. Liveness is
 * computed up front: for every position of a sequence (before the first
 * binding, after binding i, after the result) the slots whose last use it
 * is, so that a value is released right after its last use and memory
 * follows the live set. Uses inside an `if` count as uses by the `if`
 * binding of the enclosing sequence.
 *
 * Running: op calls get fresh 64-byte aligned outputs (large ones from the
 * program's pool of huge-page buffers, reused once freed) whose shapes are the
 * call's struct info with the symbolic dims evaluated, then the kernel runs
 * on buffers = tensor arguments then outputs, dims = every buffer's shape.
 * reshape/expand_dims/squeeze/flatten make views sharing the input's data
 * (tensors are never written after their kernel ran), stop_lift_params
 * is the identity, shape_of reads the tensor's shape and shape_to_tensor
 * copies a shape's values into an int64 tensor. Parameters, annotations
 * and match_cast are checked against the values; bare symbolic dims bind
 * at their first occurrence.
 *
 * Lowered code is the exception to "never written": its memory ops
 * (call_memory) make storages and tensors placed in them, and prim_funcs
 * called directly (call_direct) write into the tensors they are given,
 * never a read-only one (a constant, a weight); the plan fuses nothing in
 * such a function. call_tir_inplace writes into its input only when the
 * plan says it dies there and nothing else holds it.
 *
 * Streaming (rt_run_stream) runs the same plan with the top-level
 * parameters loaded by a callback when first needed, and the result tuple
 * handed out field by field as soon as each field's value exists; see
 * rt.h for the order of calls.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "index_error.h"
#include "op_attr.h"

/* A running function. */
typedef struct {
	RtProgram *p;
	FnPlan *fp;
	RtValue **vals;
	char *state;            /* per parameter: 0 not loaded, 1 loaded */
	int64_t *sym;
	bool *bound;
	char (*symfrom)[WHO_LEN];
	const RtStream *s;      /* top frame of a streaming run */
	const bool *want;       /* streaming: the fields wanted (NULL: all) */
	bool *skip;             /* streaming with want: top steps not run */
	int depth;
	RtError *e;
} Frame;

/* ------------------------------------------------------------- values */

/* A fresh value of kind k with one reference. */
static RtValue *
value_new(RtValueKind k)
{
	RtValue *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->kind = k;
	v->refs = 1;
	return v;
}

RtValue *
rt_value_tensor(RtTensor *t)
{
	RtValue *v = value_new(RV_TENSOR);
	if (!v) {
		rt_tensor_free(t);
		return NULL;
	}
	v->t = t;
	return v;
}

RtValue *
rt_value_weight(RtTensor *t)
{
	RtValue *v = rt_value_tensor(t);
	if (v)
		v->readonly = true;
	return v;
}

RtValue *
rt_value_tuple(RtValue **fields, int n)
{
	RtValue *v = value_new(RV_TUPLE);
	if (!v)
		return NULL;
	v->fields = calloc((size_t)(n ? n : 1), sizeof *v->fields);
	if (!v->fields) {
		free(v);
		return NULL;
	}
	if (n)
		memcpy(v->fields, fields, sizeof *fields * (size_t)n);
	v->n = n;
	return v;
}

RtValue *
rt_value_shape(const int64_t *values, int n)
{
	RtValue *v = value_new(RV_SHAPE);
	if (!v)
		return NULL;
	v->values = calloc((size_t)(n ? n : 1), sizeof *v->values);
	if (!v->values) {
		free(v);
		return NULL;
	}
	if (n)
		memcpy(v->values, values, sizeof *values * (size_t)n);
	v->n = n;
	return v;
}

RtValue *
rt_value_prim(DType dt, int64_t i, double f)
{
	RtValue *v = value_new(RV_PRIM);
	if (!v)
		return NULL;
	v->dtype = dt;
	v->i = i;
	v->f = f;
	return v;
}

RtValue *
rt_value_view(RtValue *base, int ndim, const int64_t *shape, RtError *e)
{
	if (base->kind != RV_TENSOR) {
		rt_error(e, "a view of a value that is not a tensor");
		return NULL;
	}
	RtValue *v = rt_value_view_at(base, 0, base->t->dtype, ndim, shape, e);
	if (v && v->t->nbytes != base->t->nbytes) {
		rt_error(e, "a view of %zu bytes on a tensor of %zu bytes",
			 v->t->nbytes, base->t->nbytes);
		rt_value_release(v);
		return NULL;
	}
	return v;
}

RtValue *
rt_value_view_at(RtValue *base, size_t off, DType dt, int ndim,
		 const int64_t *shape, RtError *e)
{
	if (base->kind != RV_TENSOR) {
		rt_error(e, "a view of a value that is not a tensor");
		return NULL;
	}
	if (off > base->t->nbytes) {
		rt_error(e, "a view at byte %zu of a tensor of %zu bytes", off,
			 base->t->nbytes);
		return NULL;
	}
	RtTensor *t = rt_tensor_borrow(dt, ndim, shape,
				       (char *)base->t->data + off, e);
	if (!t)
		return NULL;
	if (t->nbytes > base->t->nbytes - off) {
		rt_error(e, "a view of %zu bytes at byte %zu of a tensor of %zu "
			 "bytes", t->nbytes, off, base->t->nbytes);
		rt_tensor_free(t);
		return NULL;
	}
	RtValue *v = rt_value_tensor(t);
	if (!v) {
		rt_error(e, "out of memory");
		return NULL;
	}
	v->base = rt_value_retain(base);
	return v;
}

bool
rt_value_writable(const RtValue *v)
{
	while (v->base)
		v = v->base;
	return v->kind == RV_TENSOR && !v->readonly && v->t->own != RT_BORROWED;
}

RtValue *
rt_value_retain(RtValue *v)
{
	if (v)
		v->refs++;
	return v;
}

void
rt_value_release(RtValue *v)
{
	if (!v || --v->refs > 0)
		return;
	switch (v->kind) {
	case RV_TENSOR:
		rt_tensor_free(v->t);
		break;
	case RV_TUPLE:
		for (int i = 0; i < v->n; i++)
			rt_value_release(v->fields[i]);
		free(v->fields);
		break;
	case RV_SHAPE:
		free(v->values);
		break;
	case RV_PRIM:
		break;
	}
	rt_value_release(v->base);
	free(v);
}

/* An owned, RT_ALIGN-aligned copy of v's tensor when its data is not
 * aligned, else v itself; a new reference either way (NULL + e). */
static RtValue *
aligned(RtValue *v, RtError *e)
{
	if (v->kind != RV_TENSOR ||
	    (uintptr_t)v->t->data % RT_ALIGN == 0)
		return rt_value_retain(v);
	RtTensor *t = rt_tensor_new(v->t->dtype, v->t->ndim, v->t->shape, e);
	if (!t)
		return NULL;
	if (t->nbytes)
		memcpy(t->data, v->t->data, t->nbytes);
	RtValue *c = rt_value_tensor(t);
	if (!c)
		rt_error(e, "out of memory");
	for (const RtValue *r = v; c && r; r = r->base) /* read-only stays so */
		c->readonly |= r->readonly;
	return c;
}

/* ------------------------------------------------------------- messages */

/* A PExpr as text, for messages (malloc'ed). */
static char *
pe_str(const PExpr *x)
{
	StrBuf b = {0};
	pe_print(&b, x);
	return sb_take(&b);
}

/* An SInfo as text, for messages (malloc'ed). */
static char *
si_str(const SInfo *si)
{
	StrBuf b = {0};
	print_sinfo(&b, si);
	return sb_take(&b);
}

/* What a value is, for messages: "a tuple", "a shape". */
static const char *
value_kind_name(const RtValue *v)
{
	switch (v->kind) {
	case RV_TENSOR: return "a tensor";
	case RV_TUPLE: return "a tuple";
	case RV_SHAPE: return "a shape";
	case RV_PRIM: return "a scalar";
	}
	return "a value";
}

/* ------------------------------------------------------------ constants */

/* The value of constant x: an aligned owned copy made at first use. */
static RtValue *
const_value(RtProgram *p, const Expr *x, RtError *e)
{
	if (p->nconsts * 2 >= p->cconsts) {
		int oc = p->cconsts;
		ConstEntry *old = p->consts;
		p->cconsts = oc ? oc * 2 : 32;
		p->consts = calloc((size_t)p->cconsts, sizeof *p->consts);
		if (!p->consts)
			ir_bug("out of memory");
		for (int i = 0; i < oc; i++) {
			if (!old[i].key)
				continue;
			size_t h = ((uintptr_t)old[i].key >> 4) % (size_t)p->cconsts;
			while (p->consts[h].key)
				h = (h + 1) % (size_t)p->cconsts;
			p->consts[h] = old[i];
		}
		free(old);
	}
	size_t h = ((uintptr_t)x >> 4) % (size_t)p->cconsts;
	while (p->consts[h].key && p->consts[h].key != x)
		h = (h + 1) % (size_t)p->cconsts;
	if (p->consts[h].key)
		return p->consts[h].val;
	RtTensor *t = rt_tensor_new(x->cdata.dtype, x->cdata.ndim,
				    x->cdata.shape, e);
	if (!t)
		return NULL;
	if (t->nbytes)
		memcpy(t->data, x->cdata.data, t->nbytes);
	RtValue *v = rt_value_tensor(t);
	if (!v) {
		rt_error(e, "out of memory");
		return NULL;
	}
	v->readonly = true; /* shared by every run of the program */
	p->consts[h].key = x;
	p->consts[h].val = v;
	p->nconsts++;
	return v;
}

/* ---------------------------------------------------------- the frame */

static bool load_param(Frame *fr, int i);
static RtValue *eval_leaf(Frame *fr, const Expr *x);

/* A new frame for fp; NULL when out of memory. */
static Frame *
frame_new(RtProgram *p, FnPlan *fp, RtError *e)
{
	Frame *fr = calloc(1, sizeof *fr);
	if (!fr)
		return NULL;
	fr->p = p;
	fr->fp = fp;
	fr->e = e;
	fr->vals = calloc((size_t)fp->nslots + 1, sizeof *fr->vals);
	fr->state = calloc((size_t)fp->f->nparams + 1, 1);
	fr->sym = calloc((size_t)fp->nsyms + 1, sizeof *fr->sym);
	fr->bound = calloc((size_t)fp->nsyms + 1, sizeof *fr->bound);
	fr->symfrom = calloc((size_t)fp->nsyms + 1, sizeof *fr->symfrom);
	if (!fr->vals || !fr->state || !fr->sym || !fr->bound || !fr->symfrom) {
		free(fr->vals);
		free(fr->state);
		free(fr->sym);
		free(fr->bound);
		free(fr->symfrom);
		free(fr);
		rt_error(e, "out of memory");
		return NULL;
	}
	return fr;
}

/* Releases every value still held and frees the frame. */
static void
frame_free(Frame *fr)
{
	if (!fr)
		return;
	for (int i = 0; i < fr->fp->nslots; i++)
		rt_value_release(fr->vals[i]);
	free(fr->vals);
	free(fr->state);
	free(fr->sym);
	free(fr->bound);
	free(fr->symfrom);
	free(fr->skip);
	free(fr);
}

/* Releases the values whose last use is position pos of r. */
static void
release_at(Frame *fr, const Rel *r, int pos)
{
	for (int i = r->off[pos]; i < r->off[pos + 1]; i++) {
		int s = r->slots[i];
		rt_value_release(fr->vals[s]);
		fr->vals[s] = NULL;
	}
}

/* The value of var v (borrowed); loads a parameter in a streaming run. */
static RtValue *
get_var(Frame *fr, const Var *v)
{
	int s = exec_slot_of(fr->p, v->id);
	if (s < 0 || s >= fr->fp->nslots) {
		rt_error(fr->e, "variable '%s' has no value here", v->name);
		return NULL;
	}
	if (!fr->vals[s] && fr->s && s < fr->fp->f->nparams && !fr->state[s])
		if (!load_param(fr, s))
			return NULL;
	if (!fr->vals[s]) {
		rt_error(fr->e, "variable '%s' used after its last use "
			 "(executor bug)", v->name);
		return NULL;
	}
	return fr->vals[s];
}

/* The value of symbolic var x; loads the parameter that binds it in a
 * streaming run. false + e when it is not bound (soft: without e). */
static bool
get_sym(Frame *fr, const SymVar *x, int64_t *out, bool soft)
{
	int s = exec_slot_of(fr->p, x->id);
	if (s < 0 || s >= fr->fp->nsyms) {
		if (!soft)
			rt_error(fr->e, "symbolic variable %s does not belong to "
				 "function '%s'", x->name, fr->fp->f->name);
		return false;
	}
	if (!fr->bound[s] && fr->s && !soft) {
		int i = fr->fp->sym_param[s];
		if (i >= 0 && !fr->state[i] && !load_param(fr, i))
			return false;
	}
	if (!fr->bound[s]) {
		if (!soft)
			rt_error(fr->e, "symbolic variable %s is not bound",
				 x->name);
		return false;
	}
	*out = fr->sym[s];
	return true;
}

/* Evaluates x over the bound symbolic vars (floor division and modulo);
 * false + e (soft: without e) when a var is unbound, on division by zero
 * or overflow. */
static bool
eval_pe(Frame *fr, const PExpr *x, int64_t *out, bool soft)
{
	int64_t a, b, r;
	switch (x->kind) {
	case PE_INT:
		*out = x->value;
		return true;
	case PE_VAR:
		return get_sym(fr, x->var, out, soft);
	default:
		break;
	}
	if (!eval_pe(fr, x->a, &a, soft) || !eval_pe(fr, x->b, &b, soft))
		return false;
	bool ovf = false;
	switch (x->kind) {
	case PE_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
	case PE_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
	case PE_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
	case PE_FLOORDIV:
	case PE_FLOORMOD:
		if (b == 0 || (a == INT64_MIN && b == -1)) {
			if (!soft) {
				char *s = pe_str(x);
				rt_error(fr->e, "%s: division by zero or overflow "
					 "(%lld, %lld)", s, (long long)a,
					 (long long)b);
				free(s);
			}
			return false;
		}
		if (x->kind == PE_FLOORDIV) {
			r = a / b;
			if (a % b != 0 && ((a < 0) != (b < 0)))
				r--;
		} else {
			r = a % b;
			if (r != 0 && ((r < 0) != (b < 0)))
				r += b;
		}
		break;
	case PE_MIN: r = a < b ? a : b; break;
	case PE_MAX: r = a > b ? a : b; break;
	case PE_EQ: r = a == b; break;
	case PE_NE: r = a != b; break;
	case PE_LT: r = a < b; break;
	case PE_LE: r = a <= b; break;
	case PE_GT: r = a > b; break;
	case PE_GE: r = a >= b; break;
	default:
		ir_bug("PExpr kind %d", x->kind);
	}
	if (ovf) {
		if (!soft) {
			char *s = pe_str(x);
			rt_error(fr->e, "%s overflows", s);
			free(s);
		}
		return false;
	}
	*out = r;
	return true;
}

/* ------------------------------------------------------------- checks */

/*
 * Checks one dimension (or shape value) of `who` against the annotation pe.
 * Pass 1 binds bare symbolic vars at their first occurrence and checks
 * constants and recurrences; pass 2 checks compound expressions.
 */
static bool
check_dim(Frame *fr, const PExpr *pe, int64_t actual, int pass,
	  const char *who, const char *dim)
{
	if (pe->kind == PE_INT) {
		if (pass == 1 && actual != pe->value) {
			rt_error(fr->e, "%s: %s is %lld, expected %lld", who, dim,
				 (long long)actual, (long long)pe->value);
			return false;
		}
		return true;
	}
	if (pe->kind == PE_VAR) {
		if (pass != 1)
			return true;
		int s = exec_slot_of(fr->p, pe->var->id);
		if (s < 0 || s >= fr->fp->nsyms) {
			rt_error(fr->e, "%s: symbolic variable %s does not belong "
				 "to function '%s'", who, pe->var->name,
				 fr->fp->f->name);
			return false;
		}
		if (!fr->bound[s]) {
			fr->bound[s] = true;
			fr->sym[s] = actual;
			snprintf(fr->symfrom[s], WHO_LEN, "%s", who);
			return true;
		}
		if (fr->sym[s] != actual) {
			rt_error(fr->e, "%s: %s is %lld, but %s was bound to %lld "
				 "by %s", who, dim, (long long)actual,
				 pe->var->name, (long long)fr->sym[s],
				 fr->symfrom[s]);
			return false;
		}
		return true;
	}
	if (pass != 2)
		return true;
	int64_t want;
	char *s = pe_str(pe);
	if (!eval_pe(fr, pe, &want, false)) {
		char inner[sizeof fr->e->msg];
		snprintf(inner, sizeof inner, "%s", fr->e->msg);
		rt_error(fr->e, "%s: %s is %lld, but %s cannot be evaluated: %s",
			 who, dim, (long long)actual, s, inner);
		free(s);
		return false;
	}
	if (want != actual) {
		rt_error(fr->e, "%s: %s is %lld, but %s is %lld", who, dim,
			 (long long)actual, s, (long long)want);
		free(s);
		return false;
	}
	free(s);
	return true;
}

/* Checks value v of `who` against struct info si (see check_dim). */
static bool
check_si(Frame *fr, const SInfo *si, const RtValue *v, int pass,
	 const char *who)
{
	if (!si || si->kind == SI_OBJECT)
		return true;
	char dim[48];
	switch (si->kind) {
	case SI_TENSOR: {
		if (v->kind != RV_TENSOR) {
			rt_error(fr->e, "%s: expected a tensor, got %s", who,
				 value_kind_name(v));
			return false;
		}
		const RtTensor *t = v->t;
		if (si->dtype != DT_UNKNOWN && si->dtype != t->dtype) {
			rt_error(fr->e, "%s: dtype is %s, expected %s", who,
				 dtype_name(t->dtype), dtype_name(si->dtype));
			return false;
		}
		if (si->ndim >= 0 && si->ndim != t->ndim) {
			StrBuf got = {0};
			char *want = si_str(si);
			rt_shape_text(&got, t->ndim, t->shape);
			rt_error(fr->e, "%s: has %d dimensions (shape %s), "
				 "expected %d (%s)", who, t->ndim, got.p,
				 si->ndim, want);
			free(want);
			sb_free(&got);
			return false;
		}
		for (int i = 0; si->shape && i < si->ndim; i++) {
			snprintf(dim, sizeof dim, "dimension %d", i);
			if (!check_dim(fr, si->shape[i], t->shape[i], pass, who, dim))
				return false;
		}
		return true;
	}
	case SI_SHAPE:
		if (v->kind != RV_SHAPE) {
			rt_error(fr->e, "%s: expected a shape, got %s", who,
				 value_kind_name(v));
			return false;
		}
		if (si->ndim >= 0 && si->ndim != v->n) {
			rt_error(fr->e, "%s: a shape of %d values, expected %d",
				 who, v->n, si->ndim);
			return false;
		}
		for (int i = 0; si->shape && i < v->n; i++) {
			snprintf(dim, sizeof dim, "value %d", i);
			if (!check_dim(fr, si->shape[i], v->values[i], pass, who, dim))
				return false;
		}
		return true;
	case SI_PRIM: {
		int64_t iv;
		if (v->kind == RV_PRIM)
			iv = v->i;
		else if (v->kind == RV_TENSOR && v->t->ndim == 0 &&
			 dtype_is_int(v->t->dtype) && v->t->nbytes == 8)
			memcpy(&iv, v->t->data, 8);
		else {
			rt_error(fr->e, "%s: expected a scalar, got %s", who,
				 value_kind_name(v));
			return false;
		}
		if (si->value && !dtype_is_float(si->dtype))
			return check_dim(fr, si->value, iv, pass, who, "value");
		return true;
	}
	case SI_TUPLE:
		if (v->kind != RV_TUPLE) {
			rt_error(fr->e, "%s: expected a tuple, got %s", who,
				 value_kind_name(v));
			return false;
		}
		if (v->n != si->nfields) {
			rt_error(fr->e, "%s: a tuple of %d fields, expected %d",
				 who, v->n, si->nfields);
			return false;
		}
		for (int i = 0; i < v->n; i++) {
			char sub[WHO_LEN];
			snprintf(sub, sizeof sub, "%s[%d]", who, i);
			if (!check_si(fr, si->fields[i], v->fields[i], pass, sub))
				return false;
		}
		return true;
	case SI_FUNC:
		rt_error(fr->e, "%s: function values are not supported at run "
			 "time", who);
		return false;
	case SI_OBJECT:
		break;
	}
	return true;
}

/*
 * AS_INDEX of call e: every value of argument as->arg (its column as->col,
 * or all) lies in [-n, n), n the dimension as->dim of argument as->data
 * (-1: its size). false + e naming the first index outside, its position
 * and value.
 */
static bool
check_index(Frame *fr, const Expr *e, const Assume *as, const char *op)
{
	RtValue *iv = eval_leaf(fr, e->call.args[as->arg]);
	RtValue *xv = iv ? eval_leaf(fr, e->call.args[as->data]) : NULL;
	bool ok = true;
	if (iv && xv && iv->kind == RV_TENSOR && xv->kind == RV_TENSOR &&
	    dtype_is_int(iv->t->dtype) && as->dim < xv->t->ndim &&
	    (as->col < 0 || (iv->t->ndim > 0 && as->col < iv->t->shape[iv->t->ndim - 1]))) {
		const RtTensor *ix = iv->t;
		int64_t n = as->dim < 0 ? rt_numel(xv->t) : xv->t->shape[as->dim];
		int64_t cnt = rt_numel(ix), step = 1, first = 0;
		if (as->col >= 0) {
			step = ix->shape[ix->ndim - 1];
			first = as->col;
		}
		for (int64_t i = first; i < cnt; i += step) {
			int64_t v;
			bool fits = rt_int_at(ix, i, &v);
			if (fits && v >= -n && v < n)
				continue;
			/* the position of element i */
			StrBuf pos = {0}, t = {0};
			int64_t rest = i, at[RT_MAX_DIMS];
			for (int k = ix->ndim - 1; k >= 0; k--) {
				at[k] = ix->shape[k] ? rest % ix->shape[k] : 0;
				rest = ix->shape[k] ? rest / ix->shape[k] : 0;
			}
			sb_putc(&pos, '[');
			for (int k = 0; k < ix->ndim; k++)
				sb_printf(&pos, "%s%lld", k ? ", " : "", (long long)at[k]);
			if (fits)
				sb_printf(&pos, "] is %lld", (long long)v);
			else
				sb_printf(&pos, "] is %llu", (unsigned long long)v);
			char vb[24];
			snprintf(vb, sizeof vb, "%lld", (long long)n);
			assume_message(&t, op, as, pos.p, vb);
			rt_error(fr->e, "%s", t.p);
			sb_free(&t);
			sb_free(&pos);
			ok = false;
			break;
		}
	}
	rt_value_release(iv);
	rt_value_release(xv);
	return ok && iv;
}

/*
 * Checks what op call e's rule assumed and could not prove (ir.h's Assume:
 * equal dims, a divisor, a bound) with the bound symbolic values, before
 * its kernel runs: a violation is an error located at the call. Costs a
 * few integer operations per call, never a pass over the data.
 */
static bool
check_assumptions(Frame *fr, const Expr *e)
{
	char op[64];
	snprintf(op, sizeof op, "R.%s", op_info(e->call.op)->name);
	for (int i = 0; i < e->call.nassume; i++) {
		const Assume *as = &e->call.assume[i];
		int64_t a = 0, b = 0;
		bool ok;
		if (as->kind == AS_INDEX) {
			ok = fr->p->no_index_check || check_index(fr, e, as, op);
		} else if ((ok = eval_pe(fr, as->a, &a, false) &&
				 eval_pe(fr, as->b, &b, false))) {
			switch (as->kind) {
			case AS_EQ: ok = a == b; break;
			case AS_DIV: ok = b > 0 && a % b == 0; break;
			case AS_LE: ok = a <= b; break;
			case AS_LT: ok = a < b; break;
			case AS_POS: ok = a >= 1; break;
			case AS_BCAST: ok = a == b || a == 1; break;
			case AS_INDEX: break;
			}
			if (!ok) {
				char va[24], vb[24];
				snprintf(va, sizeof va, "%lld", (long long)a);
				snprintf(vb, sizeof vb, "%lld", (long long)b);
				StrBuf t = {0};
				assume_message(&t, op, as, va, vb);
				rt_error(fr->e, "%s", t.p);
				sb_free(&t);
			}
		}
		if (!ok) {
			if (!fr->e->span.line)
				fr->e->span = e->span;
			return false;
		}
	}
	return true;
}

/* Both passes of check_si. */
static bool
check_value(Frame *fr, const SInfo *si, const RtValue *v, const char *who)
{
	return check_si(fr, si, v, 1, who) && check_si(fr, si, v, 2, who);
}

/* "parameter 'x'", for messages. */
static void
param_who(Frame *fr, int i, char *who)
{
	snprintf(who, WHO_LEN, "parameter '%s'", fr->fp->f->params[i]->name);
}

/* Parameter i's value does not fit its annotation: the error is located
 * at the parameter (unless already located). */
static bool
param_failed(Frame *fr, int i)
{
	if (!fr->e->span.line)
		fr->e->span = fr->fp->f->params[i]->span;
	return false;
}

/* ------------------------------------------------------------ emitting */

/* Hands field k (value v, borrowed) to the stream's emit callback. */
static bool
emit_field(Frame *fr, int k, RtValue *v)
{
	if (fr->want && !fr->want[k])
		return true;
	fr->e->msg[0] = 0;
	if (fr->s->emit(fr->s->ctx, k, v, fr->e))
		return true;
	if (!fr->e->msg[0])
		rt_error(fr->e, "emitting result field %d failed", k);
	return false;
}

/* Streaming: loads parameter i through the callback, checks it against
 * its annotation (binding its symbolic vars) and emits the result fields
 * it gives. */
static bool
load_param(Frame *fr, int i)
{
	char who[WHO_LEN];
	param_who(fr, i, who);
	fr->state[i] = 1;
	fr->e->msg[0] = 0;
	RtValue *raw = fr->s->load(fr->s->ctx, i, fr->e);
	if (!raw) {
		if (!fr->e->msg[0])
			rt_error(fr->e, "%s: loading failed", who);
		return false;
	}
	RtValue *v = aligned(raw, fr->e);
	rt_value_release(raw);
	if (!v)
		return false;
	fr->vals[i] = v;
	if (!check_value(fr, fr->fp->f->params[i]->sinfo, v, who))
		return param_failed(fr, i);
	for (int *k = fr->fp->param_fields[i]; fr->fp->tuple_mode && *k >= 0; k++)
		if (!emit_field(fr, *k, v))
			return false;
	return true;
}

/* ------------------------------------------------------------ running */

static bool run_seq(Frame *fr, SeqPlan *sp, const Rel *r, bool stream,
		    RtValue **out);
static bool run_fn(RtProgram *p, FnPlan *fp, RtValue **args, int depth,
		   RtValue **out, RtError *e);

/* The value of a leaf expression (var, constant, tuple of leaves, shape,
 * prim value): a new reference. */
static RtValue *
eval_leaf(Frame *fr, const Expr *x)
{
	switch (x->kind) {
	case E_VAR:
		return rt_value_retain(get_var(fr, x->var));
	case E_CONST:
		return rt_value_retain(const_value(fr->p, x, fr->e));
	case E_TUPLE: {
		RtValue **f = calloc((size_t)x->tuple.n + 1, sizeof *f);
		if (!f) {
			rt_error(fr->e, "out of memory");
			return NULL;
		}
		for (int i = 0; i < x->tuple.n; i++)
			if (!(f[i] = eval_leaf(fr, x->tuple.items[i]))) {
				for (int j = 0; j < i; j++)
					rt_value_release(f[j]);
				free(f);
				return NULL;
			}
		RtValue *v = rt_value_tuple(f, x->tuple.n);
		if (!v) {
			for (int j = 0; j < x->tuple.n; j++)
				rt_value_release(f[j]);
			rt_error(fr->e, "out of memory");
		}
		free(f);
		return v;
	}
	case E_TUPLE_GET: {
		RtValue *t = eval_leaf(fr, x->tget.tuple);
		if (!t)
			return NULL;
		if (t->kind != RV_TUPLE || x->tget.index < 0 ||
		    x->tget.index >= t->n) {
			rt_error(fr->e, "field %d of %s", x->tget.index,
				 value_kind_name(t));
			rt_value_release(t);
			return NULL;
		}
		RtValue *v = rt_value_retain(t->fields[x->tget.index]);
		rt_value_release(t);
		return v;
	}
	case E_SHAPE: {
		int64_t vals[RT_MAX_DIMS * 4];
		int64_t *p = x->shape.n <= (int)ARRAY_LEN(vals) ? vals
			     : malloc(sizeof *p * (size_t)x->shape.n);
		if (!p) {
			rt_error(fr->e, "out of memory");
			return NULL;
		}
		RtValue *v = NULL;
		int i = 0;
		for (; i < x->shape.n; i++)
			if (!eval_pe(fr, x->shape.values[i], &p[i], false))
				break;
		if (i == x->shape.n && !(v = rt_value_shape(p, x->shape.n)))
			rt_error(fr->e, "out of memory");
		if (p != vals)
			free(p);
		return v;
	}
	case E_PRIM: {
		int64_t iv = 0;
		if (!dtype_is_float(x->prim.dtype) && x->prim.value &&
		    !eval_pe(fr, x->prim.value, &iv, false))
			return NULL;
		RtValue *v = rt_value_prim(x->prim.dtype, iv,
			dtype_is_float(x->prim.dtype) ? x->prim.f : (double)iv);
		if (!v)
			rt_error(fr->e, "out of memory");
		return v;
	}
	default:
		rt_error(fr->e, "a %s is not a leaf value",
			 ir_expr_kind_name(x->kind));
		return NULL;
	}
}

/* The runtime shape of tensor struct info si; false + e. */
static bool
eval_shape(Frame *fr, const SInfo *si, int64_t *shape, const char *who)
{
	if (si->kind != SI_TENSOR || si->ndim < 0 || !si->shape ||
	    si->ndim > RT_MAX_DIMS || si->dtype == DT_UNKNOWN) {
		char *s = si_str(si);
		rt_error(fr->e, "%s: the result %s has no known shape and "
			 "dtype to allocate", who, s);
		free(s);
		return false;
	}
	for (int i = 0; i < si->ndim; i++) {
		if (!eval_pe(fr, si->shape[i], &shape[i], false)) {
			char inner[sizeof fr->e->msg];
			snprintf(inner, sizeof inner, "%s", fr->e->msg);
			rt_error(fr->e, "%s: dimension %d of the result: %s", who,
				 i, inner);
			return false;
		}
		if (shape[i] < 0) {
			char *s = pe_str(si->shape[i]);
			rt_error(fr->e, "%s: dimension %d of the result (%s) is "
				 "%lld", who, i, s, (long long)shape[i]);
			free(s);
			return false;
		}
	}
	return true;
}

/* Kernel buffers of one call being assembled. */
typedef struct {
	void *ptr[MAX_BUFS];
	int64_t dims[MAX_BUFS * RT_MAX_DIMS];
	int nb, nd;
	int bnd[MAX_BUFS];       /* ndim of each buffer */
	RtValue *hold[MAX_BUFS]; /* references to release after the call */
	int nhold;
} Bufs;

/* Appends tensor value v (of struct info si when known) to the buffers,
 * after checking that it has the shape its struct info says. */
static bool
push_tensor(Frame *fr, Bufs *bf, const SInfo *si, RtValue *v, const char *who)
{
	if (v->kind == RV_TUPLE) {
		for (int i = 0; i < v->n; i++)
			if (!push_tensor(fr, bf, si && si->kind == SI_TUPLE &&
					 i < si->nfields ? si->fields[i] : NULL,
					 v->fields[i], who))
				return false;
		return true;
	}
	if (v->kind != RV_TENSOR) {
		rt_error(fr->e, "%s: an argument is %s, expected a tensor", who,
			 value_kind_name(v));
		return false;
	}
	if (si && si->kind == SI_TENSOR) {
		bool bad = (si->dtype != DT_UNKNOWN && si->dtype != v->t->dtype) ||
			   (si->ndim >= 0 && si->ndim != v->t->ndim);
		for (int i = 0; !bad && si->shape && i < si->ndim; i++) {
			int64_t want;
			if (eval_pe(fr, si->shape[i], &want, true) &&
			    want != v->t->shape[i])
				bad = true;
		}
		if (bad) {
			StrBuf got = {0};
			char *s = si_str(si);
			rt_shape_text(&got, v->t->ndim, v->t->shape);
			rt_error(fr->e, "%s: an argument of shape %s and dtype %s "
				 "does not match its type %s", who, got.p,
				 dtype_name(v->t->dtype), s);
			free(s);
			sb_free(&got);
			return false;
		}
	}
	if (bf->nb == MAX_BUFS || bf->nd + v->t->ndim > (int)ARRAY_LEN(bf->dims)) {
		rt_error(fr->e, "%s: too many buffers", who);
		return false;
	}
	RtValue *a = aligned(v, fr->e);
	if (!a)
		return false;
	bf->hold[bf->nhold++] = a;
	bf->bnd[bf->nb] = a->t->ndim;
	bf->ptr[bf->nb++] = a->t->data;
	for (int i = 0; i < a->t->ndim; i++)
		bf->dims[bf->nd++] = a->t->shape[i];
	return true;
}

/* Appends the tensor buffers of argument x (as codegen's signature does:
 * prim values, shapes and scalars are compiled into the kernel). */
static bool
push_arg(Frame *fr, Bufs *bf, const Expr *x, const char *who)
{
	if (x->kind == E_PRIM)
		return true;
	const SInfo *si = ir_expr_sinfo(x);
	if (!si || si->kind == SI_SHAPE || si->kind == SI_PRIM)
		return true;
	if (x->kind == E_TUPLE) {
		for (int i = 0; i < x->tuple.n; i++)
			if (!push_arg(fr, bf, x->tuple.items[i], who))
				return false;
		return true;
	}
	RtValue *v = eval_leaf(fr, x);
	if (!v)
		return false;
	bool ok = push_tensor(fr, bf, si, v, who);
	rt_value_release(v);
	return ok;
}

/* Is op's output shape the broadcast of its tensor inputs' shapes? */
static bool
is_elementwise(OpKind op)
{
	OpClass c = op_info(op)->cls;
	return c == OC_ELEMWISE || c == OC_BROADCAST || c == OC_FILL_LIKE;
}

/*
 * The output shape of an elementwise op whose struct info does not know
 * it (a tensor of known rank only): the broadcast of the input buffers'
 * shapes. false + e when they do not broadcast or the rank differs.
 */
static bool
broadcast_shape(Frame *fr, const Bufs *bf, int ndim, int64_t *shape,
		const char *who)
{
	for (int i = 0; i < ndim; i++)
		shape[i] = 1;
	for (int b = 0, off = 0; b < bf->nb; off += bf->bnd[b++]) {
		int nd = bf->bnd[b];
		if (nd > ndim) {
			rt_error(fr->e, "%s: an operand has %d dimensions, the "
				 "result %d", who, nd, ndim);
			return false;
		}
		for (int i = 0; i < nd; i++) {
			int64_t d = bf->dims[off + i];
			int64_t *o = &shape[ndim - nd + i];
			if (d == *o || d == 1)
				continue;
			if (*o != 1) {
				rt_error(fr->e, "%s: operands of dimension %lld and "
					 "%lld do not broadcast", who,
					 (long long)*o, (long long)d);
				return false;
			}
			*o = d;
		}
	}
	return true;
}

/* The result shape of dynamic_strided_slice: Python slice lengths from
 * the begin, end and strides tensors (buffers 1 to 3) over the data's
 * dims; false + e when they are not nd int32/int64 values or a stride is
 * 0. */
static bool
dss_shape(Frame *fr, const Bufs *bf, const Expr *e, int ndim, int64_t *shape,
	  const char *who)
{
	int nd = bf->bnd[0];
	const int64_t *in = bf->dims;
	/* Python slice lengths from the begin, end, strides values */
	if (bf->nb != 4 || nd != ndim)
		return false;
	int64_t v[3][RT_MAX_DIMS];
	for (int t = 0; t < 3; t++) {
		const SInfo *si = ir_expr_sinfo(e->call.args[1 + t]);
		int64_t cnt = bf->dims[nd + t];
		if (!si || bf->bnd[1 + t] != 1 || cnt != nd ||
		    (si->dtype != DT_I64 && si->dtype != DT_I32)) {
			rt_error(fr->e, "%s: begin, end and strides must be int32 or "
				 "int64 tensors of %d values", who, nd);
			return false;
		}
		for (int i = 0; i < nd; i++)
			v[t][i] = si->dtype == DT_I64 ? ((const int64_t *)bf->ptr[1 + t])[i]
						       : ((const int32_t *)bf->ptr[1 + t])[i];
	}
	for (int i = 0; i < nd; i++) {
		int64_t n = in[i], b = v[0][i], en = v[1][i], st = v[2][i];
		if (st == 0) {
			rt_error(fr->e, "%s: a stride is 0", who);
			return false;
		}
		b = b < 0 ? b + n : b;
		en = en < 0 ? en + n : en;
		if (st > 0) {
			b = b < 0 ? 0 : b > n ? n : b;
			en = en < 0 ? 0 : en > n ? n : en;
			shape[i] = en > b ? (en - b + st - 1) / st : 0;
		} else {
			b = b < -1 ? -1 : b > n - 1 ? n - 1 : b;
			en = en < -1 ? -1 : en > n - 1 ? n - 1 : en;
			shape[i] = b > en ? (b - en - st - 1) / -st : 0;
		}
	}
	return true;
}

/*
 * The result shape of matmul when its rule could not say it (the batch
 * dims or an operand's shape unknown): NumPy's, the batch dims broadcast;
 * false + e when the inner dims differ or the batch dims do not
 * broadcast.
 */
static bool
matmul_shape(Frame *fr, const Bufs *bf, int ndim, int64_t *shape,
	     const char *who)
{
	if (bf->nb != 2 || bf->bnd[0] < 1 || bf->bnd[1] < 1)
		return false;
	int na = bf->bnd[0], nb = bf->bnd[1];
	const int64_t *da = bf->dims, *db = bf->dims + na;
	int64_t k1 = da[na - 1], k2 = db[nb >= 2 ? nb - 2 : 0];
	if (k1 != k2) {
		rt_error(fr->e, "%s: R.matmul: the inner dimensions are %lld and "
			 "%lld", who, (long long)k1, (long long)k2);
		return false;
	}
	int ba = na >= 2 ? na - 2 : 0, bb = nb >= 2 ? nb - 2 : 0;
	int nbat = ba > bb ? ba : bb;
	if (nbat + (na >= 2) + (nb >= 2) != ndim)
		return false;
	for (int i = 0; i < nbat; i++) {
		int64_t x = i >= nbat - ba ? da[i - (nbat - ba)] : 1;
		int64_t y = i >= nbat - bb ? db[i - (nbat - bb)] : 1;
		if (x != y && x != 1 && y != 1) {
			rt_error(fr->e, "%s: R.matmul: batch dimensions %lld and "
				 "%lld do not broadcast", who, (long long)x,
				 (long long)y);
			return false;
		}
		shape[i] = x == 1 ? y : x;
	}
	int k = nbat;
	if (na >= 2)
		shape[k++] = da[na - 2];
	if (nb >= 2)
		shape[k++] = db[nb - 1];
	return true;
}

/*
 * The output shape of op call e from its input buffers, for the ops whose
 * struct info may know only the rank: elementwise ops (broadcast), the
 * normalizations (the data's shape), reductions and permute_dims. false
 * when the op is not one of them or the shapes do not fit.
 */
static bool
runtime_shape(Frame *fr, const Bufs *bf, const Expr *e, int ndim,
	      int64_t *shape, const char *who)
{
	OpKind op = e->call.op;
	if (is_elementwise(op))
		return broadcast_shape(fr, bf, ndim, shape, who);
	if (bf->nb < 1)
		return false;
	int nd = bf->bnd[0];
	const int64_t *in = bf->dims;
	switch (op) {
	case OP_DYNAMIC_STRIDED_SLICE:
		return dss_shape(fr, bf, e, ndim, shape, who);
	case OP_MATMUL:
		return matmul_shape(fr, bf, ndim, shape, who);
	case OP_PERMUTE_DIMS: {
		const AttrVal *ax = op_attr_opt(e, P_axes);
		if (nd != ndim || (ax && ax->kind == AV_INTS && ax->n != nd))
			return false;
		for (int i = 0; i < nd; i++) {
			int64_t a = ax && ax->kind == AV_INTS ? ax->ints[i] : nd - 1 - i;
			if (a < 0)
				a += nd;
			if (a < 0 || a >= nd)
				return false;
			shape[i] = in[a];
		}
		return true;
	}
	default:
		break;
	}
	switch (op_info(op)->cls) {
	case OC_NORM: /* the data's shape */
		if (nd != ndim)
			return false;
		memcpy(shape, in, sizeof *shape * (size_t)nd);
		return true;
	case OC_REDUCE: {
		const AttrVal *ax = op_attr_opt(e, P_axis);
		const AttrVal *kd = op_attr_opt(e, P_keepdims);
		bool keep = kd && kd->i;
		bool red[RT_MAX_DIMS] = {false};
		if (!ax || ax->kind == AV_NONE) {
			for (int i = 0; i < nd; i++)
				red[i] = true;
		} else {
			int n = ax->kind == AV_INTS ? ax->n : 1;
			for (int i = 0; i < n; i++) {
				int64_t a = ax->kind == AV_INTS ? ax->ints[i] : ax->i;
				if (a < 0)
					a += nd;
				if (a < 0 || a >= nd)
					return false;
				red[a] = true;
			}
		}
		int k = 0;
		for (int i = 0; i < nd; i++) {
			if (!red[i] || keep) {
				if (k >= ndim)
					return false;
				shape[k++] = red[i] ? 1 : in[i];
			}
		}
		return k == ndim;
	}
	default:
		return false;
	}
}

/* A new output tensor of struct info si, appended to the buffers; its
 * shape is si's or, when si knows only the rank, computed from the
 * inputs (runtime_shape). */
static RtValue *
new_output(Frame *fr, Bufs *bf, const SInfo *si, const Expr *e,
	   const char *who)
{
	int64_t shape[RT_MAX_DIMS];
	if (si->kind == SI_TENSOR && !si->shape && si->ndim >= 0 &&
	    si->ndim <= RT_MAX_DIMS && si->dtype != DT_UNKNOWN &&
	    bf->nb == bf->nhold) {
		fr->e->msg[0] = 0;
		if (!runtime_shape(fr, bf, e, si->ndim, shape, who)) {
			if (!fr->e->msg[0])
				eval_shape(fr, si, shape, who); /* the message */
			return NULL;
		}
	} else if (!eval_shape(fr, si, shape, who)) {
		return NULL;
	}
	RtTensor *t = rt_tensor_new_in(fr->p->pool, si->dtype, si->ndim, shape,
					fr->e);
	if (!t) {
		char inner[sizeof fr->e->msg];
		snprintf(inner, sizeof inner, "%s", fr->e->msg);
		rt_error(fr->e, "%s: %s", who, inner);
		return NULL;
	}
	RtValue *v = rt_value_tensor(t);
	if (!v) {
		rt_error(fr->e, "out of memory");
		return NULL;
	}
	if (bf->nb == MAX_BUFS || bf->nd + si->ndim > (int)ARRAY_LEN(bf->dims)) {
		rt_value_release(v);
		rt_error(fr->e, "%s: too many buffers", who);
		return NULL;
	}
	bf->bnd[bf->nb] = si->ndim;
	bf->ptr[bf->nb++] = t->data;
	for (int i = 0; i < si->ndim; i++)
		bf->dims[bf->nd++] = shape[i];
	return v;
}

/* Runs the kernel of op call step st; *out is the result (new ref). */
static bool
call_kernel(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->x;
	Bufs bf;
	bf.nb = bf.nd = bf.nhold = 0;
	bool ok = true;
	if (st->fu) /* a fused kernel: the inputs the plan lists */
		for (int i = 0; ok && i < st->nins; i++)
			ok = push_arg(fr, &bf, st->ins[i], who);
	else
		for (int i = 0; ok && i < e->call.nargs; i++)
			ok = push_arg(fr, &bf, e->call.args[i], who);
	RtValue *res = NULL;
	if (ok && bf.nb != st->k->nin) {
		rt_error(fr->e, "%s: %d input buffers for a kernel of %d "
			 "(executor bug)", who, bf.nb, st->k->nin);
		ok = false;
	}
	const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
	if (ok && rs->kind == SI_TUPLE) {
		RtValue **f = calloc((size_t)rs->nfields + 1, sizeof *f);
		if (!f) {
			rt_error(fr->e, "out of memory");
			ok = false;
		}
		for (int i = 0; ok && i < rs->nfields; i++)
			ok = (f[i] = new_output(fr, &bf, rs->fields[i], e, who)) != NULL;
		if (ok && !(res = rt_value_tuple(f, rs->nfields))) {
			rt_error(fr->e, "out of memory");
			ok = false;
		}
		if (!ok && f)
			for (int i = 0; i < rs->nfields; i++)
				rt_value_release(f[i]);
		free(f);
	} else if (ok) {
		ok = (res = new_output(fr, &bf, rs, e, who)) != NULL;
	}
	/* the prim arguments the kernel reads at run time, after the dims */
	for (int i = 0; ok && i < st->k->nscalars; i++) {
		RtValue *v = eval_leaf(fr, e->call.args[st->k->scalar_arg[i]]);
		ok = v && v->kind == RV_PRIM && !dtype_is_float(v->dtype) &&
		     bf.nd < (int)ARRAY_LEN(bf.dims);
		if (ok)
			bf.dims[bf.nd++] = v->i;
		else if (v)
			rt_error(fr->e, "%s: argument %d is %s, not an integer", who,
				 st->k->scalar_arg[i], value_kind_name(v));
		rt_value_release(v);
	}
	if (ok && (bf.nb != st->k->nin + st->k->nout || bf.nd != st->k->ndims)) {
		rt_error(fr->e, "%s: %d buffers and %d dims for a kernel of %d "
			 "and %d (executor bug)", who, bf.nb, bf.nd,
			 st->k->nin + st->k->nout, st->k->ndims);
		ok = false;
	}
	if (ok)
		st->k->fn(bf.ptr, bf.dims);
	for (int i = 0; i < bf.nhold; i++)
		rt_value_release(bf.hold[i]);
	if (!ok) {
		rt_value_release(res);
		return false;
	}
	*out = res;
	return true;
}

/* A prim_func argument of tensor value v. */
static TirArg
tir_tensor_arg(const RtValue *v, const char *role)
{
	TirArg a = {.role = role};
	if (v && v->kind == RV_TENSOR) {
		a.tensor = true;
		a.dt = v->t->dtype;
		a.ndim = v->t->ndim;
		a.shape = v->t->shape;
	}
	return a;
}

/* A copy of tensor value v (call_tir_inplace writes into it when it may
 * not write into v). */
static RtValue *
copy_tensor(Frame *fr, const RtValue *v)
{
	RtTensor *t = rt_tensor_new_in(fr->p->pool, v->t->dtype, v->t->ndim,
				       v->t->shape, fr->e);
	if (!t)
		return NULL;
	if (t->nbytes)
		memcpy(t->data, v->t->data, t->nbytes);
	RtValue *c = rt_value_tensor(t);
	if (!c)
		rt_error(fr->e, "out of memory");
	return c;
}

/* The entry checks of prim_func step st on args[0..n) (exec_tir_check)
 * and its kernel's dims into dims[0..max); what names the call in a
 * message ("R.call_tir: ", or "" for a direct call). false + e. */
static bool
tir_entry(Frame *fr, const Step *st, const TirArg *args, int n, int64_t *dims,
	  int max, const char *who, const char *what)
{
	int nd = 0;
	char msg[sizeof fr->e->msg];
	if (!exec_tir_check(st->prim, args, n, dims, max, &nd, msg, sizeof msg)) {
		rt_error(fr->e, "%s: %s%s", who, what, msg);
		return false;
	}
	if (nd != st->k->ndims) {
		rt_error(fr->e, "%s: %d dims for a kernel of %d (executor bug)", who,
			 nd, st->k->ndims);
		return false;
	}
	return true;
}

/*
 * Runs the kernel of prim_func step st on its buffers ptr[0..nb) and dims;
 * false when an index the kernel checked was outside its buffer (the
 * kernel used the nearest one inside), located at that index.
 */
static bool
run_prim(Frame *fr, Step *st, void **ptr, int nb, int64_t *dims,
	 const char *who)
{
	RlxIndexRec rec = {0};
	ptr[nb] = &rec;
	st->k->fn(ptr, dims);
	if (!rec.site || fr->p->no_index_check)
		return true;
	const CgSite *s = rec.site <= st->k->nsites ? &st->k->sites[rec.site - 1]
						     : NULL;
	if (s) {
		rt_error(fr->e, "prim_func %s: index %lld of %s's axis %d is "
			 "outside [0, %lld)", st->prim->name, (long long)rec.value,
			 s->buf->name, s->axis, (long long)rec.extent);
		fr->e->span = s->span;
	} else {
		rt_error(fr->e, "%s: prim_func %s: an index outside its buffer "
			 "(site %lld)", who, st->prim->name, (long long)rec.site);
	}
	return false;
}

/*
 * The input of call_tir step st that a folded transpose computes
 * (exec_plan.c's fuse_tir_transpose; pe, node from of its fusion): the
 * transpose's own input, checked against its prim_func as that call
 * would check it (the output from pe's struct info), seen with the
 * transposed shape (a view of the input's data, which the fused kernel
 * reads with the last two axes swapped). A new reference; NULL + e.
 */
static RtValue *
tir_folded_input(Frame *fr, const Step *st, const Expr *pe)
{
	const PrimFunc *g = cg_tir_callee(fr->p->m, pe);
	const Var *pv = NULL;
	for (int j = 0; j < st->fu->n; j++)
		if (st->fu->node[j].call == pe)
			pv = st->fu->node[j].var;
	char who[WHO_LEN]; /* as the transpose's own step says it */
	snprintf(who, sizeof who, "binding '%s'", pv ? pv->name : "?");
	RtValue *a = eval_leaf(fr, cg_node_arg(pe, 0));
	if (!a)
		return NULL;
	int64_t shape[RT_MAX_DIMS];
	if (!g || a->kind != RV_TENSOR || !eval_shape(fr, pe->sinfo, shape, who)) {
		if (!g || a->kind != RV_TENSOR)
			rt_error(fr->e, "%s: not a transpose of a tensor (executor bug)", who);
		fr->e->span = pe->span; /* where its own step would fail */
		rt_value_release(a);
		return NULL;
	}
	TirArg args[2] = {tir_tensor_arg(a, "input 0"),
			  {.tensor = true, .dt = pe->sinfo->dtype, .ndim = pe->sinfo->ndim,
			   .shape = shape, .role = "output 0"}};
	int64_t dims[2 * RT_MAX_DIMS];
	int nd = 0;
	char msg[sizeof fr->e->msg];
	RtValue *v = NULL;
	if (!exec_tir_check(g, args, 2, dims, (int)ARRAY_LEN(dims), &nd, msg, sizeof msg)) {
		rt_error(fr->e, "%s: R.call_tir: %s", who, msg);
		fr->e->span = pe->span;
	} else
		v = rt_value_view(a, pe->sinfo->ndim, shape, fr->e);
	rt_value_release(a);
	return v;
}

/* The inputs of call_tir step st (a new reference): its argument tuple's
 * value, an input that a folded transpose computes given by
 * tir_folded_input. NULL + e. */
static RtValue *
tir_inputs(Frame *fr, const Step *st)
{
	const Expr *e = st->x;
	if (!st->fu)
		return eval_leaf(fr, e->call.args[1]);
	int n = cg_node_nargs(e), r = st->fu->n - 1;
	RtValue **f = calloc((size_t)n + 1, sizeof *f);
	if (!f) {
		rt_error(fr->e, "out of memory");
		return NULL;
	}
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		int from = cg_from(st->fu, r, i);
		f[i] = from < 0 ? eval_leaf(fr, cg_node_arg(e, i))
			: tir_folded_input(fr, st, st->fu->node[from].call);
		ok = f[i] != NULL;
	}
	RtValue *v = ok ? rt_value_tuple(f, n) : NULL;
	if (ok && !v)
		rt_error(fr->e, "out of memory");
	if (!v)
		for (int i = 0; i < n; i++)
			rt_value_release(f[i]);
	free(f);
	return v;
}

/*
 * R.call_tir(f, args, out_ty, tir_vars), call_tir_inplace and
 * call_tir_with_grad: the outputs allocated from out_ty (or, where it
 * gives no shape, from f's buffer over the inputs' variables;
 * call_tir_inplace's in place ones are copies of the inputs they name),
 * every argument checked against f's parameters (exec_tir_check), then
 * f's kernel (an input computed by a folded transpose: tir_inputs). The
 * result is the output, or a tuple of them.
 */
static bool
call_tir(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->x;
	const PrimFunc *f = st->prim;
	enum { MAXP = MAX_BUFS + 16 };
	RtValue *hold[MAXP * 2];
	int nhold = 0;
	RtValue *ins[MAXP], *outs[MAXP];
	TirArg args[MAXP];
	RtValue *pv[MAXP]; /* the tensor of each parameter (NULL: scalar) */
	char roles[MAXP][24];
	int nin = 0, nout = 0, nargs = 0;
	bool ok = false;
	RtValue *res = NULL;
	RtValue *a = tir_inputs(fr, st);
	if (!a)
		return false;
	hold[nhold++] = a;
	if (a->kind == RV_TUPLE) {
		if (a->n > MAXP)
			goto too_many;
		for (int i = 0; i < a->n; i++)
			ins[nin++] = a->fields[i];
	} else {
		ins[nin++] = a;
	}
	const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
	const SInfo *const *osi = (const SInfo *const *)&rs;
	nout = 1;
	if (rs->kind == SI_TUPLE) {
		osi = (const SInfo *const *)rs->fields;
		nout = rs->nfields;
	}
	if (nout > MAXP)
		goto too_many;
	int nnew = 0;
	for (int k = 0; k < nout; k++) {
		int64_t w = exec_inplace_input(e, k);
		if (w < 0) {
			outs[k] = NULL;
			nnew++;
			continue;
		}
		if (w >= nin || ins[w]->kind != RV_TENSOR) {
			rt_error(fr->e, "%s: inplace_indices[%d] is %lld, not one of "
				 "the %d tensor inputs", who, k, (long long)w, nin);
			goto done;
		}
		/* written in place: the input itself when this is its last
		 * use and nothing else holds it (its var's slot and the
		 * argument tuple), else a copy, which the prim_func sees as
		 * that input */
		RtValue *in = ins[w];
		if (k < 32 && (st->donate >> k & 1) && in->refs == 2 && !in->base &&
		    rt_value_writable(in) &&
		    (uintptr_t)in->t->data % RT_ALIGN == 0) {
			outs[k] = in;
			continue;
		}
		RtValue *c = copy_tensor(fr, ins[w]);
		if (!c)
			goto done;
		hold[nhold++] = c;
		ins[w] = c;
		outs[k] = c;
	}
	/* tir_vars */
	RtValue *tv = NULL;
	if (e->call.nargs > 2) {
		tv = eval_leaf(fr, e->call.args[2]);
		if (!tv)
			goto done;
		hold[nhold++] = tv;
		if (tv->kind == RV_TUPLE && tv->n == 0) { /* None */
			tv = NULL;
		} else if (tv->kind != RV_SHAPE) {
			rt_error(fr->e, "%s: tir_vars is %s, not a shape", who,
				 value_kind_name(tv));
			goto done;
		}
	}
	int ntv = tv ? tv->n : 0;
	if (nin + nnew + ntv != f->nparams) {
		rt_error(fr->e, "%s: prim_func '%s' takes %d parameters, the call "
			 "gives %d inputs, %d outputs and %d tir_vars", who, f->name,
			 f->nparams, nin, nnew, ntv);
		goto done;
	}
	if (f->nparams > MAXP)
		goto too_many;
	for (int i = 0; i < nin; i++) {
		snprintf(roles[nargs], sizeof roles[0], "input %d", i);
		args[nargs] = tir_tensor_arg(ins[i], roles[nargs]);
		pv[nargs] = ins[i]->kind == RV_TENSOR ? ins[i] : NULL;
		if (ins[i]->kind == RV_PRIM) {
			args[nargs].scalar = true;
			args[nargs].isf = dtype_is_float(ins[i]->dtype);
			args[nargs].i = ins[i]->i;
			args[nargs].f = ins[i]->f;
		} else if (ins[i]->kind == RV_SHAPE && ins[i]->n == 1) {
			args[nargs].scalar = true;
			args[nargs].i = ins[i]->values[0];
		}
		nargs++;
	}
	/* the new outputs, from out_ty's shape (or the buffer's) */
	for (int k = 0, p = nin; k < nout; k++) {
		if (outs[k])
			continue;
		const SInfo *si = osi[k];
		int64_t shape[RT_MAX_DIMS];
		if (si->kind == SI_TENSOR && si->dtype != DT_UNKNOWN &&
		    si->ndim >= 0 && si->ndim <= RT_MAX_DIMS && !si->shape &&
		    exec_tir_out_shape(f, args, nin, p, shape)) {
			if (f->params[p].buf->ndim != si->ndim) {
				rt_error(fr->e, "%s: output %d has %d dimensions, the "
					 "buffer '%s' of prim_func '%s' %d", who, k,
					 si->ndim, f->params[p].buf->name, f->name,
					 f->params[p].buf->ndim);
				goto done;
			}
		} else if (!eval_shape(fr, si, shape, who)) {
			goto done;
		}
		RtTensor *t = rt_tensor_new_in(fr->p->pool, si->dtype, si->ndim,
						shape, fr->e);
		if (!t)
			goto done;
		if (st->zero_out && t->nbytes)
			memset(t->data, 0, t->nbytes);
		RtValue *v = rt_value_tensor(t);
		if (!v) {
			rt_error(fr->e, "out of memory");
			goto done;
		}
		hold[nhold++] = v;
		outs[k] = v;
		snprintf(roles[nargs], sizeof roles[0], "output %d", k);
		args[nargs] = tir_tensor_arg(v, roles[nargs]);
		pv[nargs] = v;
		nargs++;
		p++;
	}
	for (int i = 0; i < ntv; i++) {
		snprintf(roles[nargs], sizeof roles[0], "tir_vars[%d]", i);
		args[nargs] = (TirArg){.scalar = true, .i = tv->values[i],
				       .role = roles[nargs]};
		pv[nargs] = NULL;
		nargs++;
	}
	/* the entry checks, the dims */
	int64_t dims[MAX_BUFS * RT_MAX_DIMS + 16];
	char what[40];
	snprintf(what, sizeof what, "R.%s: ", op_info(e->call.op)->name);
	if (!tir_entry(fr, st, args, nargs, dims, (int)ARRAY_LEN(dims), who, what))
		goto done;
	/* the buffers, in parameter order; aligned (a copy when not) */
	void *ptr[MAX_BUFS + 1];
	int nb = 0;
	for (int i = 0; i < nargs; i++) {
		if (!f->params[i].buf)
			continue;
		RtValue *v = pv[i];
		if (nb == MAX_BUFS)
			goto too_many;
		RtValue *al = aligned(v, fr->e);
		if (!al)
			goto done;
		if (al != v && i >= nin) {
			rt_value_release(al);
			rt_error(fr->e, "%s: an output is not aligned (executor bug)", who);
			goto done;
		}
		hold[nhold++] = al;
		ptr[nb++] = al->t->data;
	}
	if (nb != st->k->nin || st->k->nout != 1) {
		rt_error(fr->e, "%s: %d buffers for a kernel of %d (executor bug)",
			 who, nb, st->k->nin);
		goto done;
	}
	if (!run_prim(fr, st, ptr, nb, dims, who))
		goto done;
	if (nout == 1) {
		res = rt_value_retain(outs[0]);
	} else {
		RtValue *fl[MAXP];
		for (int k = 0; k < nout; k++)
			fl[k] = rt_value_retain(outs[k]);
		if (!(res = rt_value_tuple(fl, nout))) {
			for (int k = 0; k < nout; k++)
				rt_value_release(fl[k]);
			rt_error(fr->e, "out of memory");
			goto done;
		}
	}
	ok = true;
	goto done;
too_many:
	rt_error(fr->e, "%s: too many arguments for one prim_func call", who);
done:
	for (int i = 0; i < nhold; i++)
		rt_value_release(hold[i]);
	if (ok)
		*out = res;
	return ok;
}

/* The empty tuple: what a call of no value gives (TVM's void). */
static bool
void_value(Frame *fr, RtValue **out)
{
	return (*out = rt_value_tuple(NULL, 0)) != NULL ||
	       (rt_error(fr->e, "out of memory"), false);
}

/* Appends the prim_func arguments value v gives: a tensor is a buffer, a
 * scalar and each value of a shape tuple a scalar, a tuple its fields. */
static bool
push_direct(Frame *fr, RtValue *v, TirArg *args, RtValue **pv, int *n,
	    int max, const char *who)
{
	if (v->kind == RV_TUPLE) {
		for (int i = 0; i < v->n; i++)
			if (!push_direct(fr, v->fields[i], args, pv, n, max, who))
				return false;
		return true;
	}
	int k = v->kind == RV_SHAPE ? v->n : 1;
	if (*n + k > max) {
		rt_error(fr->e, "%s: too many arguments for one prim_func call", who);
		return false;
	}
	for (int i = 0; i < k; i++, (*n)++) {
		TirArg *a = &args[*n];
		pv[*n] = NULL;
		if (v->kind == RV_TENSOR) {
			*a = tir_tensor_arg(v, NULL);
			pv[*n] = v;
		} else if (v->kind == RV_SHAPE) {
			*a = (TirArg){.scalar = true, .i = v->values[i]};
		} else {
			*a = (TirArg){.scalar = true, .isf = dtype_is_float(v->dtype),
				      .i = v->i, .f = v->f};
		}
	}
	return true;
}

/*
 * A prim_func called directly, as lowered code calls it: cls.f(a, b, out)
 * or R.vm.call_tir_dyn(cls.f, (a, b, out, R.shape([n]))). Destination
 * passing without outputs of its own: the arguments, tuples flattened, are
 * f's parameters in order (a tensor a buffer; a scalar, or each value of a
 * shape tuple, a scalar parameter), checked as call_tir's; f writes into
 * the buffers its body stores to, which must be writable. The value is the
 * empty tuple (TVM's void).
 */
static bool
call_direct(Frame *fr, Step *st, const char *who, RtValue **out)
{
	const Expr *e = st->x;
	const PrimFunc *f = st->prim;
	enum { MAXP = MAX_BUFS + 16 };
	Expr *const *xs = e->kind == E_CALL_FN ? e->callfn.args : e->call.args + 1;
	int nx = e->kind == E_CALL_FN ? e->callfn.nargs : e->call.nargs - 1;
	RtValue *hold[MAXP + MAX_BUFS];
	int nhold = 0, n = 0;
	TirArg args[MAXP];
	RtValue *pv[MAXP];
	char roles[MAXP][24];
	bool ok = false;
	if (nx > MAXP) {
		rt_error(fr->e, "%s: too many arguments for one prim_func call", who);
		return false;
	}
	for (int i = 0; i < nx; i++) {
		RtValue *v = eval_leaf(fr, xs[i]);
		if (!v)
			goto done;
		hold[nhold++] = v;
		if (!push_direct(fr, v, args, pv, &n, MAXP, who))
			goto done;
	}
	if (n != f->nparams) {
		rt_error(fr->e, "%s: prim_func '%s' takes %d parameters, the call "
			 "gives %d", who, f->name, f->nparams, n);
		goto done;
	}
	for (int i = 0; i < n; i++) {
		snprintf(roles[i], sizeof roles[0], "argument %d", i);
		args[i].role = roles[i];
	}
	int64_t dims[MAX_BUFS * RT_MAX_DIMS + 16];
	if (!tir_entry(fr, st, args, n, dims, (int)ARRAY_LEN(dims), who, ""))
		goto done;
	/* the buffers in parameter order: written ones writable, unaligned
	 * ones through an aligned copy (copied back when written) */
	void *ptr[MAX_BUFS + 1];
	RtValue *back[MAX_BUFS], *from[MAX_BUFS];
	int nb = 0, nback = 0;
	for (int i = 0; i < n; i++) {
		if (!f->params[i].buf)
			continue;
		RtValue *v = pv[i];
		if (nb == MAX_BUFS) {
			rt_error(fr->e, "%s: too many buffers for one prim_func "
				 "call", who);
			goto done;
		}
		if (st->stores[i] && !rt_value_writable(v)) {
			rt_error(fr->e, "%s: prim_func '%s' writes into its parameter "
				 "'%s', and argument %d is read-only (a constant, or "
				 "a weight: rlx writes into no checkpoint's tensor)",
				 who,
				 f->name, f->params[i].buf->name, i);
			goto done;
		}
		RtValue *al = aligned(v, fr->e);
		if (!al)
			goto done;
		hold[nhold++] = al;
		if (al != v && st->stores[i]) {
			back[nback] = v;
			from[nback++] = al;
		}
		ptr[nb++] = al->t->data;
	}
	if (nb != st->k->nin) {
		rt_error(fr->e, "%s: %d buffers for a kernel of %d (executor bug)",
			 who, nb, st->k->nin);
		goto done;
	}
	if (!run_prim(fr, st, ptr, nb, dims, who))
		goto done;
	for (int i = 0; i < nback; i++)
		if (back[i]->t->nbytes)
			memcpy(back[i]->t->data, from[i]->t->data, back[i]->t->nbytes);
	ok = void_value(fr, out);
done:
	for (int i = 0; i < nhold; i++)
		rt_value_release(hold[i]);
	return ok;
}

/* The integer value of argument x (a prim value, a one-value shape). */
static bool
int_arg(Frame *fr, const Expr *x, const char *what, int64_t *out,
	const char *who)
{
	RtValue *v = eval_leaf(fr, x);
	if (!v)
		return false;
	bool none = v->kind == RV_TUPLE && v->n == 0; /* None: 0 */
	bool ok = none || (v->kind == RV_PRIM && !dtype_is_float(v->dtype)) ||
		  (v->kind == RV_SHAPE && v->n == 1);
	if (ok)
		*out = none ? 0 : v->kind == RV_PRIM ? v->i : v->values[0];
	else
		rt_error(fr->e, "%s: %s is %s, not an integer", who, what,
			 value_kind_name(v));
	rt_value_release(v);
	return ok;
}

/* The values of shape argument x: at most RT_MAX_DIMS, none negative. */
static bool
shape_arg(Frame *fr, const Expr *x, int64_t *shape, int *ndim, const char *who)
{
	RtValue *v = eval_leaf(fr, x);
	if (!v)
		return false;
	bool ok = v->kind == RV_SHAPE && v->n <= RT_MAX_DIMS;
	if (!ok)
		rt_error(fr->e, "%s: the shape is %s", who, v->kind == RV_SHAPE
			 ? "of more than 8 dimensions" : value_kind_name(v));
	for (int i = 0; ok && i < v->n; i++)
		if ((shape[i] = v->values[i]) < 0) {
			rt_error(fr->e, "%s: dimension %d of the shape is %lld", who,
				 i, (long long)shape[i]);
			ok = false;
		}
	if (ok)
		*ndim = v->n;
	rt_value_release(v);
	return ok;
}

/* The dtype attribute of memory op e, DT_UNKNOWN when it has none. */
static DType
attr_dtype(const Expr *e)
{
	const AttrVal *a = op_attr_opt(e, P_dtype);
	return a && a->kind == AV_DTYPE ? a->dtype : DT_UNKNOWN;
}

/* A new zeroed tensor (lowered code reads what it allocates only after a
 * prim_func wrote it; zeroes make a module that does not the same every
 * run). */
static bool
zeroed(Frame *fr, DType dt, int ndim, const int64_t *shape, const char *who,
       RtValue **out)
{
	RtTensor *t = rt_tensor_new_in(fr->p->pool, dt, ndim, shape, fr->e);
	if (!t) {
		char inner[sizeof fr->e->msg];
		snprintf(inner, sizeof inner, "%s", fr->e->msg);
		rt_error(fr->e, "%s: %s", who, inner);
		return false;
	}
	if (t->nbytes)
		memset(t->data, 0, t->nbytes);
	return (*out = rt_value_tensor(t)) != NULL ||
	       (rt_error(fr->e, "out of memory"), false);
}

bool
exec_is_memory_op(OpKind op)
{
	switch (op) {
	case OP_MEMORY_ALLOC_STORAGE: case OP_VM_ALLOC_STORAGE:
	case OP_MEMORY_ALLOC_TENSOR: case OP_VM_ALLOC_TENSOR:
	case OP_BUILTIN_ALLOC_TENSOR: case OP_MEMORY_VIEW:
	case OP_MEMORY_ENSURE_ZERO_OFFSET:
	case OP_MEMORY_KILL_STORAGE: case OP_MEMORY_KILL_TENSOR:
	case OP_VM_KILL_OBJECT:
		return true;
	default:
		return false;
	}
}

/*
 * The memory ops of lowered code. A storage (alloc_storage: its size in
 * bytes, or a shape of its dtype's elements) is a zeroed byte tensor; a
 * tensor in it (alloc_tensor at a byte offset) a view of it, which must
 * fit; builtin.alloc_tensor a zeroed tensor; memory.view another dtype,
 * shape or offset of the same bytes; the kills do nothing (a value is freed
 * after its last use) and give the empty tuple.
 */
static bool
call_memory(Frame *fr, Step *st, const char *who, RtValue **out)
{
	const Expr *e = st->x;
	OpKind op = e->call.op;
	int64_t shape[RT_MAX_DIMS], off = 0;
	int ndim = 0;
	switch (op) {
	case OP_MEMORY_KILL_STORAGE: case OP_MEMORY_KILL_TENSOR:
	case OP_VM_KILL_OBJECT:
		return void_value(fr, out);
	case OP_MEMORY_ENSURE_ZERO_OFFSET:
		return (*out = eval_leaf(fr, e->call.args[0])) != NULL;
	case OP_MEMORY_ALLOC_STORAGE: case OP_VM_ALLOC_STORAGE: {
		if (!shape_arg(fr, op_arg(e, P_size), shape, &ndim, who))
			return false;
		DType dt = attr_dtype(e);
		if (ndim != 1 && dt == DT_UNKNOWN) {
			rt_error(fr->e, "%s: a storage of a shape needs a dtype", who);
			return false;
		}
		int64_t n = 1, esz = ndim == 1 ? 1 : (dtype_bits(dt) + 7) / 8;
		for (int i = 0; i < ndim; i++)
			if (__builtin_mul_overflow(n, shape[i], &n))
				n = INT64_MAX;
		if (esz < 1 || __builtin_mul_overflow(n, esz, &n))
			n = INT64_MAX;
		return zeroed(fr, DT_U8, 1, &n, who, out);
	}
	case OP_BUILTIN_ALLOC_TENSOR:
		if (attr_dtype(e) == DT_UNKNOWN) {
			rt_error(fr->e, "%s: a tensor needs a dtype", who);
			return false;
		}
		return shape_arg(fr, op_arg(e, P_shape), shape, &ndim, who) &&
		       zeroed(fr, attr_dtype(e), ndim, shape, who, out);
	default:
		break;
	}
	/* a view: alloc_tensor in a storage, memory.view */
	bool isview = op == OP_MEMORY_VIEW;
	Expr *base_x = e->call.args[0];
	Expr *offx = op_arg(e, isview ? P_relative_byte_offset : P_offset);
	Expr *shx = op_arg(e, P_shape);
	DType vdt = attr_dtype(e);
	if (offx && !int_arg(fr, offx, "the offset", &off, who))
		return false;
	RtValue *base = eval_leaf(fr, base_x);
	if (!base)
		return false;
	bool ok = base->kind == RV_TENSOR;
	if (!ok)
		rt_error(fr->e, "%s: the storage is %s, not one of "
			 "R.memory.alloc_storage", who, value_kind_name(base));
	if (ok && shx && shx->kind != E_TUPLE) { /* a tuple: None */
		ok = shape_arg(fr, shx, shape, &ndim, who);
	} else if (ok) {
		ndim = base->t->ndim;
		memcpy(shape, base->t->shape, sizeof *shape * (size_t)ndim);
	}
	DType dt = vdt != DT_UNKNOWN ? vdt : ok ? base->t->dtype : DT_UNKNOWN;
	if (ok && off < 0) {
		rt_error(fr->e, "%s: the offset is %lld", who, (long long)off);
		ok = false;
	}
	RtValue *v = NULL;
	if (ok && !(v = rt_value_view_at(base, (size_t)off, dt, ndim, shape,
					 fr->e))) {
		char inner[sizeof fr->e->msg];
		snprintf(inner, sizeof inner, "%s", fr->e->msg);
		rt_error(fr->e, "%s: %s", who, inner);
	}
	rt_value_release(base);
	*out = v;
	return v != NULL;
}

/* An op run without a kernel: a view (reshape & co) or the identity. */
static bool
call_native(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->b->value;
	RtValue *x = eval_leaf(fr, e->call.args[0]);
	if (!x)
		return false;
	if (e->call.op == OP_STOP_LIFT_PARAMS) {
		*out = x;
		return true;
	}
	if (e->call.op == OP_SHAPE_TO_TENSOR) {
		RtValue *v = NULL;
		if (x->kind != RV_SHAPE) {
			rt_error(fr->e, "%s: shape_to_tensor of %s", who, value_kind_name(x));
		} else {
			int64_t n = x->n;
			RtTensor *t = rt_tensor_new_in(fr->p->pool, DT_I64, 1, &n, fr->e);
			if (t) {
				if (n)
					memcpy(t->data, x->values, sizeof(int64_t) * (size_t)n);
				if (!(v = rt_value_tensor(t)))
					rt_error(fr->e, "out of memory");
			}
		}
		rt_value_release(x);
		*out = v;
		return v != NULL;
	}
	if (e->call.op == OP_TENSOR_TO_SHAPE) {
		/* a 1-d integer tensor's values as a shape (none negative) */
		RtValue *v = NULL;
		const RtTensor *t = x->kind == RV_TENSOR ? x->t : NULL;
		int64_t probe;
		if (!t || t->ndim != 1 || t->dtype == DT_BOOL ||
		    (t->nbytes && !rt_int_at(t, 0, &probe))) {
			rt_error(fr->e, "%s: tensor_to_shape of %s, not a 1-d integer "
				 "tensor", who, value_kind_name(x));
		} else {
			int64_t n = t->shape[0], *vals = malloc(sizeof *vals * (size_t)(n + 1));
			bool ok = vals != NULL;
			if (!ok)
				rt_error(fr->e, "out of memory");
			for (int64_t i = 0; ok && i < n; i++) {
				if (!rt_int_at(t, i, &vals[i]) || vals[i] < 0) {
					rt_error(fr->e, "%s: tensor_to_shape: value %lld is "
						 "not a dimension (%lld)", who, (long long)i,
						 (long long)vals[i]);
					ok = false;
				}
			}
			if (ok && n > INT_MAX / 2) {
				rt_error(fr->e, "%s: tensor_to_shape of %lld values", who,
					 (long long)n);
				ok = false;
			}
			if (ok && !(v = rt_value_shape(vals, (int)n)))
				rt_error(fr->e, "out of memory");
			free(vals);
		}
		rt_value_release(x);
		*out = v;
		return v != NULL;
	}
	if (e->call.op == OP_SIZE) {
		/* the element count, an int64 scalar tensor */
		RtValue *v = NULL;
		if (x->kind != RV_TENSOR) {
			rt_error(fr->e, "%s: size of %s", who, value_kind_name(x));
		} else {
			int64_t n = 1;
			for (int i = 0; i < x->t->ndim; i++)
				n *= x->t->shape[i];
			RtTensor *t = rt_tensor_new_in(fr->p->pool, DT_I64, 0, NULL, fr->e);
			if (t) {
				memcpy(t->data, &n, sizeof n);
				if (!(v = rt_value_tensor(t)))
					rt_error(fr->e, "out of memory");
			}
		}
		rt_value_release(x);
		*out = v;
		return v != NULL;
	}
	if (e->call.op == OP_SHAPE_OF) {
		RtValue *s = x->kind == RV_TENSOR ? rt_value_shape(x->t->shape, x->t->ndim) : NULL;
		if (!s)
			rt_error(fr->e, x->kind == RV_TENSOR ? "out of memory"
				 : "%s: shape_of of %s", who, value_kind_name(x));
		rt_value_release(x);
		*out = s;
		return s != NULL;
	}
	const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
	int64_t shape[RT_MAX_DIMS];
	int ndim = rs->ndim;
	bool ok;
	if (e->call.op == OP_RESHAPE && rs->kind == SI_TENSOR && !rs->shape &&
	    e->call.nargs > 1) {
		/* a shape known only at run time */
		RtValue *sv = eval_leaf(fr, e->call.args[1]);
		ok = sv && sv->kind == RV_SHAPE && sv->n <= RT_MAX_DIMS;
		if (ok) {
			ndim = sv->n;
			memcpy(shape, sv->values, sizeof *shape * (size_t)ndim);
		} else if (sv) {
			rt_error(fr->e, "%s: reshape to %s", who,
				 value_kind_name(sv));
		}
		rt_value_release(sv);
	} else {
		ok = eval_shape(fr, rs, shape, who);
	}
	if (ok && x->kind != RV_TENSOR) {
		rt_error(fr->e, "%s: %s of %s", who, op_info(e->call.op)->name,
			 value_kind_name(x));
		ok = false;
	}
	RtValue *v = NULL;
	if (ok && !(v = rt_value_view(x, ndim, shape, fr->e))) {
		char inner[sizeof fr->e->msg];
		snprintf(inner, sizeof inner, "%s", fr->e->msg);
		rt_error(fr->e, "%s: %s", who, inner);
	}
	rt_value_release(x);
	if (!v)
		return false;
	*out = v;
	return true;
}

/* The truth of an if condition: a bool scalar tensor or prim. */
static bool
cond_value(Frame *fr, const Expr *c, bool *out, const char *who)
{
	RtValue *v = eval_leaf(fr, c);
	if (!v)
		return false;
	bool ok = true;
	if (v->kind == RV_PRIM) {
		*out = dtype_is_float(v->dtype) ? v->f != 0 : v->i != 0;
	} else if (v->kind == RV_TENSOR && rt_numel(v->t) == 1) {
		int bytes = dtype_bits(v->t->dtype) / 8;
		const unsigned char *d = v->t->data;
		bool any = false;
		for (int i = 0; i < bytes; i++)
			any |= d[i] != 0;
		*out = any;
	} else {
		rt_error(fr->e, "%s: the condition is %s of more than one element",
			 who, value_kind_name(v));
		ok = false;
	}
	rt_value_release(v);
	return ok;
}

/* Part `part` of `parts` equal parts of x along axis into out. */
static void
slice_part(const RtTensor *x, int axis, int64_t parts, int64_t part,
	   RtTensor *out)
{
	int64_t outer = 1, inner = dtype_bits(x->dtype) / 8;
	for (int i = 0; i < axis; i++)
		outer *= x->shape[i];
	for (int i = axis + 1; i < x->ndim; i++)
		inner *= x->shape[i];
	int64_t len = x->shape[axis], step = len / parts;
	const char *src = x->data;
	char *dst = out->data;
	for (int64_t o = 0; o < outer; o++)
		memcpy(dst + o * step * inner,
		       src + (o * len + part * step) * inner,
		       (size_t)(step * inner));
}

/* Entry p of attribute a (AV_INTS, AV_INT or AV_DIMS) evaluated. */
static bool
attr_dim(Frame *fr, const AttrVal *a, int p, int64_t *out)
{
	if (a->kind == AV_INTS) {
		*out = a->ints[p];
		return true;
	}
	if (a->kind == AV_INT) {
		*out = a->i;
		return true;
	}
	return a->kind == AV_DIMS && eval_pe(fr, a->dims[p], out, false);
}

/* strided_slice with symbolic bounds (is_dyn_slice); as the kernel: begin
 * clamped, end from the struct info's shape. */
static bool
call_dyn_slice(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->b->value;
	const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
	const AttrVal *axes = op_attr_opt(e, P_axes), *beg = op_attr_opt(e, P_begin);
	const AttrVal *str = op_attr_opt(e, P_strides);
	const AttrVal *end = op_attr_opt(e, P_end);
	RtValue *x = eval_leaf(fr, e->call.args[0]);
	if (!x)
		return false;
	int64_t shape[RT_MAX_DIMS], start[RT_MAX_DIMS], step[RT_MAX_DIMS];
	RtTensor *t = NULL;
	/* without assume_inbound the struct info has no shape: the lengths
	 * are Python's, from the bounds as evaluated */
	bool lengths = rs->kind == SI_TENSOR && !rs->shape;
	bool ok = x->kind == RV_TENSOR && axes && axes->kind == AV_INTS && beg &&
		  (!lengths || end) && rs->ndim == x->t->ndim;
	if (!ok)
		rt_error(fr->e, "%s: strided_slice of %s", who,
			 value_kind_name(x));
	else if (!lengths)
		ok = eval_shape(fr, rs, shape, who);
	int nd = ok ? x->t->ndim : 0;
	for (int d = 0; d < nd; d++) {
		start[d] = 0;
		step[d] = 1;
		if (lengths)
			shape[d] = x->t->shape[d];
	}
	for (int p = 0; ok && p < axes->n; p++) {
		int64_t d = axes->ints[p] < 0 ? axes->ints[p] + nd : axes->ints[p];
		int64_t b, s = 1, n;
		if (d < 0 || d >= nd) {
			rt_error(fr->e, "%s: strided_slice: axis %lld is out of "
				 "range", who, (long long)axes->ints[p]);
			ok = false;
			break;
		}
		/* eval_pe names an unbound symbolic variable */
		ok = attr_dim(fr, beg, p, &b) &&
		     (!str || str->kind == AV_NONE || attr_dim(fr, str, p, &s));
		if (ok && s == 0) {
			rt_error(fr->e, "%s: strided_slice: a stride is 0", who);
			ok = false;
		}
		if (!ok)
			break;
		n = x->t->shape[d];
		if (b < 0)
			b += n;
		b = s > 0 ? (b < 0 ? 0 : b > n ? n : b)
			  : (b < -1 ? -1 : b > n - 1 ? n - 1 : b);
		start[d] = b;
		step[d] = s;
		int64_t en;
		if (lengths && !(ok = attr_dim(fr, end, p, &en)))
			break;
		if (lengths) {
			if (en < 0)
				en += n;
			en = s > 0 ? (en < 0 ? 0 : en > n ? n : en)
				   : (en < -1 ? -1 : en > n - 1 ? n - 1 : en);
			shape[d] = s > 0 ? (en > b ? (en - b + s - 1) / s : 0)
					 : (b > en ? (b - en - s - 1) / -s : 0);
		}
	}
	for (int d = 0; ok && d < nd; d++)
		if (shape[d] > 0 && (start[d] + (shape[d] - 1) * step[d] < 0 ||
				     start[d] + (shape[d] - 1) * step[d] >=
					     x->t->shape[d])) {
			rt_error(fr->e, "%s: strided_slice: dimension %d of %lld "
				 "from %lld is out of bounds", who, d,
				 (long long)shape[d], (long long)start[d]);
			ok = false;
		}
	if (ok && !(t = rt_tensor_new_in(fr->p->pool, x->t->dtype, nd, shape,
					 fr->e)))
		ok = false;
	if (ok && rt_numel(t) > 0) {
		size_t esz = (size_t)dtype_bits(t->dtype) / 8;
		int64_t xs[RT_MAX_DIMS], idx[RT_MAX_DIMS] = {0}, m = 1;
		for (int d = nd - 1; d >= 0; m *= x->t->shape[d], d--)
			xs[d] = m;
		const char *src = x->t->data;
		char *dst = t->data;
		int64_t total = rt_numel(t);
		for (int64_t i = 0; i < total; i++) {
			int64_t off = 0;
			for (int d = 0; d < nd; d++)
				off += (start[d] + idx[d] * step[d]) * xs[d];
			memcpy(dst + (size_t)i * esz, src + (size_t)off * esz, esz);
			for (int d = nd - 1; d >= 0 && ++idx[d] == shape[d]; d--)
				idx[d] = 0;
		}
	}
	rt_value_release(x);
	if (!ok) {
		rt_tensor_free(t);
		return false;
	}
	return (*out = rt_value_tensor(t)) != NULL ||
	       (rt_error(fr->e, "out of memory"), false);
}

/* Whether collective op over `workers` workers can run on this run's
 * workers: all of them under MPI, worker K < workers otherwise, and an
 * allgather over several only under mpirun; false + e. */
static bool
workers_fit(Frame *fr, OpKind op, int64_t workers, const char *who)
{
	RtComm *c = fr->p->comm;
	int rank = rt_comm_rank(c), size = rt_comm_size(c);
	bool mpi = rt_comm_is_mpi(c);
	if (mpi && workers != size) {
		rt_error(fr->e, "%s: %s over %lld workers, but the run "
			 "has %d", who, op_info(op)->name,
			 (long long)workers, size);
		return false;
	}
	if (!mpi && op == OP_CCL_ALLGATHER && workers != 1) {
		rt_error(fr->e, "%s: %s over %lld workers in one "
			 "process: run it under mpirun -np %lld", who,
			 op_info(op)->name, (long long)workers,
			 (long long)workers);
		return false;
	}
	if (rank >= workers) {
		rt_error(fr->e, "%s: %s over %lld workers on worker %d",
			 who, op_info(op)->name, (long long)workers, rank);
		return false;
	}
	return true;
}

/*
 * An R.ccl.* / R.dist.* call: the collective over the program's workers
 * (rt_program_set_comm). In one process (not under mpirun) the collectives
 * are over one worker: allreduce and broadcast are the identity, a scatter
 * or redistribute takes the worker's own part (worker K of `rlx run --rank
 * K`); an allgather of more than one worker needs them all.
 */
static bool
call_comm(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->b->value;
	OpKind op = e->call.op;
	RtComm *c = fr->p->comm;
	int rank = rt_comm_rank(c), size = rt_comm_size(c);
	const SInfo *rs = e->sinfo ? e->sinfo : st->b->var->sinfo;
	RtValue *x = eval_leaf(fr, e->call.args[0]);
	if (!x)
		return false;
	RtTensor *t = NULL;
	int64_t shape[RT_MAX_DIMS];
	bool ok = x->kind == RV_TENSOR;
	if (!ok)
		rt_error(fr->e, "%s: %s of %s", who, op_info(op)->name,
			 value_kind_name(x));
	ok = ok && eval_shape(fr, rs, shape, who);
	if (ok && !(t = rt_tensor_new_in(fr->p->pool, x->t->dtype, rs->ndim,
					 shape, fr->e)))
		ok = false;
	const AttrVal *nw = op_attr_opt(e, P_num_workers);
	int64_t workers = nw ? nw->i : size;
	if (ok && nw) /* the ops that name their number of workers */
		ok = workers_fit(fr, op, workers, who);
	if (ok) {
		switch (op) {
		case OP_CCL_ALLREDUCE: {
			const char *k = op_attr(e, P_op_type)->s;
			RtReduce r = !strcmp(k, "prod") ? RT_RED_PROD
				   : !strcmp(k, "min")  ? RT_RED_MIN
				   : !strcmp(k, "max")  ? RT_RED_MAX
				   : !strcmp(k, "avg")  ? RT_RED_AVG
							: RT_RED_SUM;
			ok = rt_comm_allreduce(c, x->t, t, r, fr->e);
			break;
		}
		case OP_CCL_ALLGATHER:
			ok = rt_comm_allgather(c, x->t, t, fr->e);
			break;
		case OP_CCL_BROADCAST_FROM_WORKER0:
			memcpy(t->data, x->t->data, t->nbytes);
			ok = rt_comm_bcast(c, t->data, t->nbytes, 0, fr->e);
			break;
		case OP_CCL_SCATTER_FROM_WORKER0: {
			/* worker 0's tensor to all, each keeps its part */
			int axis = (int)op_attr(e, P_axis)->i;
			if (axis < 0)
				axis += x->t->ndim;
			RtTensor *all = rt_tensor_new_in(fr->p->pool,
				x->t->dtype, x->t->ndim, x->t->shape, fr->e);
			ok = all != NULL;
			if (ok) {
				memcpy(all->data, x->t->data, all->nbytes);
				ok = rt_comm_bcast(c, all->data, all->nbytes, 0,
						   fr->e);
			}
			if (ok)
				slice_part(all, axis, workers, rank, t);
			rt_tensor_free(all);
			break;
		}
		default: { /* redistribute_replica_to_shard: no traffic */
			int axis = (int)op_attr(e, P_axis)->i;
			if (axis < 0)
				axis += x->t->ndim;
			slice_part(x->t, axis, workers, rank, t);
			break;
		}
		}
		if (!ok) {
			char inner[sizeof fr->e->msg];
			snprintf(inner, sizeof inner, "%s", fr->e->msg);
			rt_error(fr->e, "%s: %s", who, inner);
		}
	}
	rt_value_release(x);
	if (!ok) {
		rt_tensor_free(t);
		return false;
	}
	return (*out = rt_value_tensor(t)) != NULL ||
	       (rt_error(fr->e, "out of memory"), false);
}

/* Computes the value of step st into *out (a new reference). */
static bool
exec_step(Frame *fr, Step *st, const char *who, RtValue **out)
{
	Expr *e = st->x;
	switch (e->kind) {
	case E_CALL:
		if (st->direct)
			return call_direct(fr, st, who, out);
		if (st->prim)
			return call_tir(fr, st, who, out);
		if (exec_is_memory_op(e->call.op))
			return call_memory(fr, st, who, out);
		if (e->call.op == OP_NULL_VALUE || exec_is_noop_packed(e))
			return void_value(fr, out);
		if (st->k)
			return call_kernel(fr, st, who, out);
		if (op_info(e->call.op)->cls == OC_COMM)
			return call_comm(fr, st, who, out);
		if (ir_is_worker_id(e)) {
			int64_t r = rt_comm_rank(fr->p->comm);
			return (*out = rt_value_shape(&r, 1)) != NULL ||
			       (rt_error(fr->e, "out of memory"), false);
		}
		if (exec_is_dyn_slice(e))
			return call_dyn_slice(fr, st, who, out);
		return call_native(fr, st, who, out);
	case E_CALL_FN: {
		if (st->direct)
			return call_direct(fr, st, who, out);
		int n = e->callfn.nargs;
		RtValue **args = calloc((size_t)n + 1, sizeof *args);
		if (!args) {
			rt_error(fr->e, "out of memory");
			return false;
		}
		bool ok = n == st->callee->f->nparams;
		if (!ok)
			rt_error(fr->e, "%s: %d arguments for '%s' of %d "
				 "parameters", who, n, e->callfn.callee,
				 st->callee->f->nparams);
		for (int i = 0; ok && i < n; i++)
			ok = (args[i] = eval_leaf(fr, e->callfn.args[i])) != NULL;
		if (ok)
			ok = run_fn(fr->p, st->callee, args, fr->depth + 1, out,
				    fr->e);
		for (int i = 0; i < n; i++)
			rt_value_release(args[i]);
		free(args);
		if (!ok) {
			/* once per callee: a recursion says it only once */
			char inner[sizeof fr->e->msg], tag[WHO_LEN];
			snprintf(inner, sizeof inner, "%s", fr->e->msg);
			snprintf(tag, sizeof tag, "in call to '%s'",
				 e->callfn.callee);
			if (!strstr(inner, tag))
				rt_error(fr->e, "%s: %s: %s", who, tag, inner);
		}
		return ok;
	}
	case E_IF: {
		bool c;
		if (!cond_value(fr, e->if_.cond, &c, who))
			return false;
		SeqPlan *sp = c ? st->then_ : st->else_;
		return run_seq(fr, sp, &sp->rel, false, out);
	}
	default:
		return (*out = eval_leaf(fr, e)) != NULL;
	}
}

/* Step st failed: the error is located at its binding's value unless a
 * deeper step (a callee's) or a parameter already located it. */
static bool
step_failed(Frame *fr, const Step *st)
{
	if (!fr->e->span.line) {
		Span sp = st->b->value->span;
		fr->e->span = sp.line > 0 ? sp : st->b->var->span;
	}
	return false;
}

/*
 * Runs the bindings of sp, releasing values by r; the result (unless the
 * sequence is the top one of a streaming run in tuple mode) goes to *out.
 */
static bool
run_seq(Frame *fr, SeqPlan *sp, const Rel *r, bool stream, RtValue **out)
{
	FnPlan *fp = fr->fp;
	char who[WHO_LEN];
	release_at(fr, r, 0);
	for (int i = 0; i < sp->n; i++) {
		Step *st = &sp->steps[i];
		bool skipped = stream && (i == fp->skip_step ||
					  (fr->skip && fr->skip[i]));
		/* a call fused into a later step is checked here, where
		 * it stands: its conditions are on symbolic values only */
		if (!skipped && st->b->value->kind == E_CALL &&
		    !check_assumptions(fr, st->b->value))
			return false;
		if (skipped || !st->x) {
			release_at(fr, r, i + 1);
			continue;
		}
		snprintf(who, sizeof who, "binding '%s'", st->b->var->name);
		RtValue *v;
		if (!exec_step(fr, st, who, &v))
			return step_failed(fr, st);
		rt_value_release(fr->vals[st->slot]);
		fr->vals[st->slot] = v;
		if (st->b->cast && !check_value(fr, st->b->cast, v, who))
			return step_failed(fr, st);
		if (!st->b->cast && st->b->annotated &&
		    !check_value(fr, st->b->var->sinfo, v, who))
			return step_failed(fr, st);
		for (int k = 0; stream && fp->tuple_mode && k < st->nemit; k++)
			if (!emit_field(fr, st->emit[k], v))
				return false;
		release_at(fr, r, i + 1);
	}
	if (stream && fp->tuple_mode) {
		for (int k = 0; k < fp->nend; k++) {
			if (fr->want && !fr->want[fp->end_fields[k]])
				continue;
			RtValue *v = eval_leaf(fr, fp->fields[fp->end_fields[k]]);
			bool ok = v && emit_field(fr, fp->end_fields[k], v);
			rt_value_release(v);
			if (!ok)
				return false;
		}
		*out = NULL;
	} else if (!(*out = eval_leaf(fr, sp->seq->seq.body))) {
		return false;
	}
	release_at(fr, r, sp->n + 1);
	return true;
}

/* Binds the arguments of fp's parameters, checking them (both passes
 * over all parameters: bare dims bind first, compound ones after). */
static bool
bind_params(Frame *fr, RtValue **args)
{
	Func *f = fr->fp->f;
	char who[WHO_LEN];
	for (int i = 0; i < f->nparams; i++) {
		if (!args[i]) {
			param_who(fr, i, who);
			rt_error(fr->e, "%s: no value", who);
			return false;
		}
		RtValue *v = aligned(args[i], fr->e);
		if (!v)
			return false;
		fr->vals[exec_slot_of(fr->p, f->params[i]->id)] = v;
		fr->state[i] = 1;
	}
	for (int pass = 1; pass <= 2; pass++)
		for (int i = 0; i < f->nparams; i++) {
			param_who(fr, i, who);
			if (!check_si(fr, f->params[i]->sinfo,
				      fr->vals[exec_slot_of(fr->p, f->params[i]->id)],
				      pass, who))
				return param_failed(fr, i);
		}
	return true;
}

/* Runs fp on args (borrowed) into *out. */
static bool
run_fn(RtProgram *p, FnPlan *fp, RtValue **args, int depth, RtValue **out,
       RtError *e)
{
	if (depth > MAX_DEPTH) {
		rt_error(e, "function calls nested deeper than %d (recursion?)",
			 MAX_DEPTH);
		return false;
	}
	Frame *fr = frame_new(p, fp, e);
	if (!fr)
		return false;
	fr->depth = depth;
	bool ok = bind_params(fr, args) &&
		  run_seq(fr, fp->top, &fp->top->rel, false, out);
	if (ok && fp->f->ret && !check_value(fr, fp->f->ret, *out, "the result")) {
		rt_value_release(*out);
		*out = NULL;
		ok = false;
	}
	frame_free(fr);
	return ok;
}

bool
rt_run(RtProgram *p, RtValue **args, RtValue **result, RtError *e)
{
	e->msg[0] = 0;
	e->span = (Span){0};
	*result = NULL;
	return run_fn(p, p->main, args, 0, result, e);
}

/* Whether any of the fields (ended by -1) is wanted. */
static bool
wanted_any(const bool *want, const int *fields)
{
	for (; *fields >= 0; fields++)
		if (!want || want[*fields])
			return true;
	return false;
}

/* Marks a var needed (visit callback). */
typedef struct {
	bool *need;  /* by Var id */
	int n;
} Need;

static void
need_var(Var *v, void *ctx)
{
	Need *n = ctx;
	if (v->id >= 0 && v->id < n->n)
		n->need[v->id] = true;
}

/* Whether si mentions a symbolic variable (a binding that may bind one). */
static bool
has_symvars(const SInfo *si)
{
	if (!si)
		return false;
	if (si->kind == SI_TUPLE) {
		for (int i = 0; i < si->nfields; i++)
			if (has_symvars(si->fields[i]))
				return true;
		return false;
	}
	PExpr **dims = si->kind == SI_TENSOR ? si->shape
		       : si->kind == SI_SHAPE ? si->shape : NULL;
	for (int i = 0; dims && i < si->ndim; i++) {
		int64_t c;
		if (!pe_is_const(dims[i], &c))
			return true;
	}
	return false;
}

/* Streaming with want: which top-level steps of fp no wanted field needs
 * (skip, per step), walking the bindings backwards from the wanted fields;
 * nd->need ends with the vars the run uses. */
static void
stream_needs(FnPlan *fp, const bool *want, Need *nd, bool *skip)
{
	SeqPlan *top = fp->top;
	for (int k = 0; k < fp->nfields; k++)
		if (want[k])
			ir_visit_uses(fp->fields[k], need_var, nd);
	for (int i = top->n - 1; i >= 0; i--) {
		Step *st = &top->steps[i];
		Binding *b = st->b;
		/* in a function that writes into tensors, every call counts */
		bool keep = i != fp->skip_step && st->x &&
			    (fp->mutates || (b->var->id >= 0 && b->var->id < nd->n &&
			      nd->need[b->var->id]) || b->cast ||
			     (b->annotated && has_symvars(b->var->sinfo)));
		skip[i] = !keep;
		if (keep)
			exec_step_uses(st, need_var, nd);
	}
}

/* fr->skip for fr->want. */
static bool
plan_skip(Frame *fr)
{
	Need nd = {calloc((size_t)fr->p->nidx + 1, sizeof *nd.need),
		   fr->p->nidx};
	fr->skip = calloc((size_t)fr->fp->top->n + 1, sizeof *fr->skip);
	if (!nd.need || !fr->skip) {
		free(nd.need);
		rt_error(fr->e, "out of memory");
		return false;
	}
	stream_needs(fr->fp, fr->want, &nd, fr->skip);
	free(nd.need);
	return true;
}

bool
rt_stream_params(RtProgram *p, const bool *want, bool *used, RtError *e)
{
	FnPlan *fp = p->main;
	Func *f = fp->f;
	if (!want || !fp->tuple_mode) {
		for (int i = 0; i < f->nparams; i++)
			used[i] = true;
		return true;
	}
	Need nd = {calloc((size_t)p->nidx + 1, sizeof *nd.need), p->nidx};
	bool *skip = calloc((size_t)fp->top->n + 1, sizeof *skip);
	if (!nd.need || !skip) {
		free(nd.need);
		free(skip);
		rt_error(e, "out of memory");
		return false;
	}
	stream_needs(fp, want, &nd, skip);
	for (int i = 0; i < f->nparams; i++) {
		int id = f->params[i]->id;
		used[i] = id >= 0 && id < nd.n && nd.need[id];
	}
	free(nd.need);
	free(skip);
	return true;
}

bool
rt_run_stream(RtProgram *p, const RtStream *s, RtError *e)
{
	return rt_run_stream_some(p, s, NULL, e);
}

bool
rt_run_stream_some(RtProgram *p, const RtStream *s, const bool *want,
		   RtError *e)
{
	e->msg[0] = 0;
	e->span = (Span){0};
	FnPlan *fp = p->main;
	Frame *fr = frame_new(p, fp, e);
	if (!fr)
		return false;
	fr->s = s;
	fr->want = want;
	bool ok = true;
	if (want && fp->tuple_mode)
		ok = plan_skip(fr);
	/* pass-through parameters: emitted first, in parameter order */
	for (int i = 0; ok && fp->tuple_mode && i < fp->f->nparams; i++)
		if (fp->param_fields[i][0] >= 0 && !fp->param_used[i] &&
		    !fr->state[i] && wanted_any(want, fp->param_fields[i])) {
			ok = load_param(fr, i);
			rt_value_release(fr->vals[i]);
			fr->vals[i] = NULL;
		}
	RtValue *out = NULL;
	if (ok)
		ok = run_seq(fr, fp->top, &fp->top->srel, true, &out);
	if (ok && !fp->tuple_mode) {
		if (fp->f->ret && !check_value(fr, fp->f->ret, out, "the result"))
			ok = false;
		else if (out->kind == RV_TUPLE)
			for (int k = 0; ok && k < out->n; k++)
				ok = emit_field(fr, k, out->fields[k]);
		else
			ok = emit_field(fr, 0, out);
	}
	rt_value_release(out);
	frame_free(fr);
	return ok;
}
