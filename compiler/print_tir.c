/*
 * print_tir.c — prim_funcs as TVMScript, as TVM prints them: buffer
 * parameters `A: T.Buffer((2, 3), "float32")`, perfectly nested loops from
 * 0 as one `T.grid`, block axes bound to their loops as `T.axis.remap`,
 * typed literals (`T.int64(8)`, `T.float32(1.0)`; an int32 bare), the
 * implicit root block as a comment over its allocations. Two spellings:
 * TVM main's (T.sblock, T.sblock_alloc_buffer, T.sblock_attr, s_tir=True,
 * `x: T.let[T.int32] = v`), the default, and TVM releases' (T.block,
 * T.alloc_buffer, T.block_attr, `x: T.int32 = v`). What is printed parses
 * back to the same prim_func.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* The enclosing loops, for T.axis.remap. */
typedef struct {
	StrBuf *b;
	TirSpelling sp;
	Vec loops; /* const TStmt*: the enclosing for loops */
} TP;

static void put_expr(TP *p, const TExpr *e, int prec);
static void put_stmt(TP *p, const TStmt *s, int ind);

/* Python precedences, loosest first. */
enum { P_LAMBDA, P_OR, P_AND, P_NOT, P_CMP, P_ADD = 9, P_MUL, P_UNARY, P_ATOM = 13 };

static int
prec_of(TExprKind k)
{
	switch (k) {
	case TE_OR: return P_OR;
	case TE_AND: return P_AND;
	case TE_EQ: case TE_NE: case TE_LT: case TE_LE: case TE_GT: case TE_GE:
		return P_CMP;
	case TE_ADD: case TE_SUB: return P_ADD;
	case TE_MUL: case TE_DIV: case TE_FLOORDIV: case TE_FLOORMOD: return P_MUL;
	default: return P_ATOM;
	}
}

static void
put_str(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c == '"')
			sb_printf(b, "\\%c", c);
		else if (c == '\n')
			sb_puts(b, "\\n");
		else if (c < 0x20 || c == 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_putc(b, (char)c);
	}
	sb_putc(b, '"');
}

static void
put_lit(TP *p, const TExpr *e, int prec)
{
	StrBuf *b = p->b;
	if (e->kind == TE_INT) {
		if (e->ty == DT_BOOL) {
			sb_puts(b, e->i ? "True" : "False");
		} else if (e->ty == DT_I32) {
			if (e->i < 0 && prec > P_UNARY)
				sb_printf(b, "(%lld)", (long long)e->i);
			else
				sb_printf(b, "%lld", (long long)e->i);
		} else {
			sb_printf(b, "T.%s(%lld)", tir_type_name(e->ty), (long long)e->i);
		}
		return;
	}
	sb_printf(b, "T.%s(", tir_type_name(e->ty));
	if (isnan(e->f))
		sb_puts(b, "\"nan\"");
	else if (isinf(e->f))
		sb_puts(b, e->f > 0 ? "\"inf\"" : "\"-inf\"");
	else
		sb_put_float(b, e->f, false);
	sb_putc(b, ')');
}

static void
put_args(TP *p, TExpr *const *args, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(p->b, ", ");
		put_expr(p, args[i], P_LAMBDA + 1);
	}
}

static void
put_expr(TP *p, const TExpr *e, int prec)
{
	StrBuf *b = p->b;
	switch (e->kind) {
	case TE_INT:
	case TE_FLOAT:
		put_lit(p, e, prec);
		return;
	case TE_STR:
		put_str(b, e->s);
		return;
	case TE_VAR:
		sb_puts(b, e->var->name);
		return;
	case TE_LOAD:
		sb_printf(b, "%s[", e->buf->name);
		if (e->n == 0)
			sb_puts(b, "()");
		put_args(p, e->args, e->n);
		sb_putc(b, ']');
		return;
	case TE_NOT:
	case TE_NEG: {
		int my = e->kind == TE_NOT ? P_NOT : P_UNARY;
		if (my < prec)
			sb_putc(b, '(');
		sb_puts(b, e->kind == TE_NOT ? "not " : "-");
		put_expr(p, e->a, my);
		if (my < prec)
			sb_putc(b, ')');
		return;
	}
	case TE_CAST:
		sb_printf(b, "T.Cast(\"%s\", ", tir_type_name(e->ty));
		put_expr(p, e->a, P_LAMBDA + 1);
		sb_putc(b, ')');
		return;
	case TE_SELECT:
		sb_puts(b, "T.Select(");
		put_expr(p, e->c, P_LAMBDA + 1);
		sb_puts(b, ", ");
		put_expr(p, e->a, P_LAMBDA + 1);
		sb_puts(b, ", ");
		put_expr(p, e->b, P_LAMBDA + 1);
		sb_putc(b, ')');
		return;
	case TE_CALL: {
		sb_printf(b, "T.%s(", e->s);
		put_args(p, e->args, e->n);
		const TIntrinsic *in = tir_intrinsic(e->s);
		if (in && in->rule == TR_OPAQUE && e->ty != DT_I32)
			sb_printf(b, "%sdtype=\"%s\"", e->n ? ", " : "", tir_type_name(e->ty));
		sb_putc(b, ')');
		return;
	}
	default:
		break;
	}
	/* binary */
	bool infix;
	const char *op = tir_op_text(e->kind, &infix);
	if (e->kind == TE_DIV && !dtype_is_float((DType)e->ty) && e->ty != TT_HANDLE)
		infix = false; /* an integer Div is T.Div(a, b) */
	else if (e->kind == TE_DIV) {
		op = "/";
		infix = true;
	}
	if (!infix) {
		sb_printf(b, "%s(", op);
		put_expr(p, e->a, P_LAMBDA + 1);
		sb_puts(b, ", ");
		put_expr(p, e->b, P_LAMBDA + 1);
		sb_putc(b, ')');
		return;
	}
	int my = prec_of(e->kind);
	bool paren = my < prec;
	if (paren)
		sb_putc(b, '(');
	/* left-associative; a comparison does not chain: both sides tighter */
	put_expr(p, e->a, my == P_CMP ? my + 1 : my);
	sb_printf(b, " %s ", op);
	put_expr(p, e->b, my + 1);
	if (paren)
		sb_putc(b, ')');
}

void
print_texpr(StrBuf *b, const TExpr *e)
{
	TP p = {.b = b};
	put_expr(&p, e, P_LAMBDA + 1);
}

static void
indent(StrBuf *b, int n)
{
	for (int i = 0; i < n; i++)
		sb_putc(b, ' ');
}

static void
put_shape(TP *p, TExpr *const *v, int n)
{
	sb_putc(p->b, '(');
	put_args(p, v, n);
	if (n == 1)
		sb_putc(p->b, ',');
	sb_putc(p->b, ')');
}

/* The arguments of a buffer declaration after the ones before it: shape,
 * dtype (float32 left out when dtype_always is false), then what is not
 * the default. */
static void
put_buffer_args(TP *p, const TBuf *f, bool dtype_always)
{
	StrBuf *b = p->b;
	put_shape(p, f->shape, f->ndim);
	if (dtype_always || f->dtype != DT_F32)
		sb_printf(b, ", \"%s\"", dtype_name(f->dtype));
	if (f->data)
		sb_printf(b, ", data=%s", f->data->name);
	if (f->nstrides) {
		sb_puts(b, ", strides=");
		put_shape(p, f->strides, f->nstrides);
	}
	if (f->elem_offset) {
		sb_puts(b, ", elem_offset=");
		put_expr(p, f->elem_offset, P_LAMBDA + 1);
	}
	if (f->scope)
		sb_printf(b, ", scope=\"%s\"", f->scope);
	if (f->align)
		sb_printf(b, ", align=%d", f->align);
	if (f->offset_factor)
		sb_printf(b, ", offset_factor=%d", f->offset_factor);
	if (f->buffer_type)
		sb_printf(b, ", buffer_type=\"%s\"", f->buffer_type);
}

static void
put_alloc(TP *p, const TBuf *f, int ind, bool block)
{
	indent(p->b, ind);
	sb_printf(p->b, "%s = T.%s(", f->name,
		  block && p->sp == TIR_MAIN ? "sblock_alloc_buffer" : "alloc_buffer");
	put_buffer_args(p, f, false);
	sb_puts(p->b, ")\n");
}

static void
put_anns(TP *p, const TAnn *a, int n)
{
	sb_putc(p->b, '{');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(p->b, ", ");
		put_str(p->b, a[i].key);
		sb_printf(p->b, ": %s", a[i].text);
	}
	sb_putc(p->b, '}');
}

static bool
is_zero(const TExpr *e)
{
	return e->kind == TE_INT && e->i == 0;
}

static bool
is_one(const TExpr *e)
{
	return e && e->kind == TE_INT && e->i == 1;
}

static bool
mentions(const TExpr *e, const TVar *v)
{
	if (!e)
		return false;
	if (e->kind == TE_VAR && e->var == v)
		return true;
	for (int i = 0; i < e->n; i++)
		if (mentions(e->args[i], v))
			return true;
	return mentions(e->a, v) || mentions(e->b, v) || mentions(e->c, v);
}

/* `min, min + extent` of a range, folded when both are literals. */
static void
put_range(TP *p, const TExpr *mn, const TExpr *ex)
{
	if (is_zero(mn) && mn->ty == ex->ty) {
		put_expr(p, ex, P_LAMBDA + 1);
		return;
	}
	put_expr(p, mn, P_LAMBDA + 1);
	sb_puts(p->b, ", ");
	if (mn->kind == TE_INT && ex->kind == TE_INT) {
		TExpr end = *ex;
		end.i = mn->i + ex->i;
		put_expr(p, &end, P_LAMBDA + 1);
	} else {
		put_expr(p, mn, P_ADD);
		sb_puts(p->b, " + ");
		put_expr(p, ex, P_ADD + 1);
	}
}

static bool
plain_loop(const TStmt *s)
{
	return s->kind == TS_FOR && s->for_kind == TF_SERIAL && !s->nanns && is_zero(s->min) &&
	       s->min->ty == s->extent->ty;
}

static void
put_for(TP *p, const TStmt *s, int ind)
{
	StrBuf *b = p->b;
	indent(b, ind);
	if (plain_loop(s) && plain_loop(s->inner)) {
		/* perfectly nested loops from 0 whose extents do not depend
		 * on each other: one T.grid */
		Vec l = {0};
		const TStmt *c = s;
		while (plain_loop(c)) {
			bool dep = false;
			for (int i = 0; i < l.n && !dep; i++)
				dep = mentions(c->extent, ((const TStmt *)l.items[i])->var);
			if (dep)
				break;
			vec_push(&l, (void *)c);
			c = c->inner;
		}
		if (l.n > 1) {
			sb_puts(b, "for ");
			for (int i = 0; i < l.n; i++)
				sb_printf(b, "%s%s", i ? ", " : "",
					  ((const TStmt *)l.items[i])->var->name);
			sb_puts(b, " in T.grid(");
			for (int i = 0; i < l.n; i++) {
				if (i)
					sb_puts(b, ", ");
				put_expr(p, ((const TStmt *)l.items[i])->extent, P_LAMBDA + 1);
			}
			sb_puts(b, "):\n");
			for (int i = 0; i < l.n; i++)
				vec_push(&p->loops, l.items[i]);
			put_stmt(p, ((const TStmt *)l.items[l.n - 1])->inner, ind + 4);
			vec_free(&l);
			return;
		}
		vec_free(&l);
	}
	static const char *const kinds[] = {"serial", "parallel", "vectorized", "unroll",
					    "thread_binding"};
	sb_printf(b, "for %s in ", s->var->name);
	if (s->for_kind == TF_SERIAL && !s->nanns)
		sb_puts(b, "range(");
	else
		sb_printf(b, "T.%s(", kinds[s->for_kind]);
	put_range(p, s->min, s->extent);
	if (s->thread) {
		sb_puts(b, ", thread=");
		put_str(b, s->thread);
	}
	if (s->nanns) {
		sb_puts(b, ", annotations=");
		put_anns(p, s->anns, s->nanns);
	}
	sb_puts(b, "):\n");
	vec_push(&p->loops, (void *)s);
	put_stmt(p, s->inner, ind + 4);
}

static void
put_region(TP *p, const TRegion *r)
{
	sb_printf(p->b, "%s[", r->buf->name);
	if (r->n == 0)
		sb_puts(p->b, "()");
	for (int i = 0; i < r->n; i++) {
		if (i)
			sb_puts(p->b, ", ");
		const TRange *g = &r->ranges[i];
		if (!g->extent || is_one(g->extent)) {
			put_expr(p, g->min, P_LAMBDA + 1);
			continue;
		}
		if (is_zero(g->min)) { /* the min keeps its type: T.int64(0):n */
			put_expr(p, g->min, P_LAMBDA + 1);
			sb_putc(p->b, ':');
			put_expr(p, g->extent, P_LAMBDA + 1);
			continue;
		}
		put_expr(p, g->min, P_LAMBDA + 1);
		sb_putc(p->b, ':');
		if (g->min->kind == TE_INT && g->extent->kind == TE_INT) {
			TExpr end = *g->extent;
			end.i = g->min->i + g->extent->i;
			put_expr(p, &end, P_LAMBDA + 1);
		} else {
			put_expr(p, g->min, P_ADD);
			sb_puts(p->b, " + ");
			put_expr(p, g->extent, P_ADD + 1);
		}
	}
	sb_putc(p->b, ']');
}

static void
put_regions(TP *p, const char *what, const TRegion *r, int n, int ind)
{
	indent(p->b, ind);
	sb_printf(p->b, "T.%s(", what);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(p->b, ", ");
		put_region(p, &r[i]);
	}
	sb_puts(p->b, ")\n");
}

/* Whether iter i of s prints in a T.axis.remap: S or R, bound to a loop
 * variable over its own domain. */
static bool
remappable(const TIter *it, const TStmt *const *loops, int nloops)
{
	if ((it->kind != TI_SPATIAL && it->kind != TI_REDUCE) || it->value->kind != TE_VAR)
		return false;
	for (int i = nloops - 1; i >= 0; i--)
		if (loops[i]->var == it->value->var)
			return tir_expr_same(loops[i]->min, it->min) &&
			       tir_expr_same(loops[i]->extent, it->extent) &&
			       it->var->ty == it->value->ty;
	return false;
}

static void
put_block(TP *p, const TStmt *s, int ind)
{
	StrBuf *b = p->b;
	indent(b, ind);
	sb_printf(b, "with T.%s(", p->sp == TIR_MAIN ? "sblock" : "block");
	if (*s->name)
		put_str(b, s->name);
	sb_puts(b, "):\n");
	int in = ind + 4;
	static const char *const kinds[] = {"spatial", "reduce", "scan", "opaque"};
	for (int i = 0; i < s->niters;) {
		const TIter *it = &s->iters[i];
		int j = i;
		while (j < s->niters &&
		       remappable(&s->iters[j], (const TStmt *const *)p->loops.items, p->loops.n))
			j++;
		indent(b, in);
		if (j > i + 1) { /* a run of one prints as T.axis.spatial, as TVM */
			for (int k = i; k < j; k++)
				sb_printf(b, "%s%s", k > i ? ", " : "", s->iters[k].var->name);
			sb_puts(b, " = T.axis.remap(\"");
			for (int k = i; k < j; k++)
				sb_putc(b, s->iters[k].kind == TI_SPATIAL ? 'S' : 'R');
			sb_puts(b, "\", [");
			for (int k = i; k < j; k++)
				sb_printf(b, "%s%s", k > i ? ", " : "", s->iters[k].value->var->name);
			sb_puts(b, "])\n");
			i = j;
			continue;
		}
		sb_printf(b, "%s = T.axis.%s(", it->var->name, kinds[it->kind]);
		if (is_zero(it->min) && it->min->ty == it->extent->ty) {
			put_expr(p, it->extent, P_LAMBDA + 1);
		} else {
			sb_putc(b, '(');
			put_range(p, it->min, it->extent);
			sb_putc(b, ')');
		}
		sb_puts(b, ", ");
		put_expr(p, it->value, P_LAMBDA + 1);
		if (it->var->ty != it->value->ty)
			sb_printf(b, ", dtype=\"%s\"", tir_type_name(it->var->ty));
		sb_puts(b, ")\n");
		i++;
	}
	if (s->pred) {
		indent(b, in);
		sb_puts(b, "T.where(");
		put_expr(p, s->pred, P_LAMBDA + 1);
		sb_puts(b, ")\n");
	}
	/* always, as TVM prints them (inferred when the source omits them) */
	put_regions(p, "reads", s->reads, s->nreads, in);
	put_regions(p, "writes", s->writes, s->nwrites, in);
	if (s->nanns) {
		indent(b, in);
		sb_printf(b, "T.%s(", p->sp == TIR_MAIN ? "sblock_attr" : "block_attr");
		put_anns(p, s->anns, s->nanns);
		sb_puts(b, ")\n");
	}
	for (int i = 0; i < s->nallocs; i++)
		put_alloc(p, s->allocs[i], in, true);
	if (s->init) {
		indent(b, in);
		sb_puts(b, "with T.init():\n");
		put_stmt(p, s->init, in + 4);
	}
	put_stmt(p, s->inner, in);
}

static void
put_stmt(TP *p, const TStmt *s, int ind)
{
	StrBuf *b = p->b;
	switch (s->kind) {
	case TS_SEQ:
		for (int i = 0; i < s->n; i++)
			put_stmt(p, s->body[i], ind);
		return;
	case TS_FOR: {
		int mark = p->loops.n;
		put_for(p, s, ind);
		p->loops.n = mark;
		return;
	}
	case TS_BLOCK:
		put_block(p, s, ind);
		return;
	case TS_STORE:
		indent(b, ind);
		sb_printf(b, "%s[", s->buf->name);
		if (s->nidx == 0)
			sb_puts(b, "()");
		put_args(p, s->idx, s->nidx);
		sb_puts(b, "] = ");
		put_expr(p, s->value, P_LAMBDA + 1);
		sb_putc(b, '\n');
		return;
	case TS_LET:
		indent(b, ind);
		if (p->sp == TIR_MAIN)
			sb_printf(b, "%s: T.let[T.%s] = ", s->var->name, tir_type_name(s->var->ty));
		else
			sb_printf(b, "%s: T.%s = ", s->var->name, tir_type_name(s->var->ty));
		put_expr(p, s->value, P_LAMBDA + 1);
		sb_putc(b, '\n');
		put_stmt(p, s->inner, ind);
		return;
	case TS_IF:
		indent(b, ind);
		sb_puts(b, "if ");
		put_expr(p, s->cond, P_LAMBDA + 1);
		sb_puts(b, ":\n");
		put_stmt(p, s->inner, ind + 4);
		if (s->else_) {
			indent(b, ind);
			sb_puts(b, "else:\n");
			put_stmt(p, s->else_, ind + 4);
		}
		return;
	case TS_EVAL:
		indent(b, ind);
		if (s->value->kind == TE_CALL && !strcmp(s->value->s, "ret")) {
			/* T.ret(v), as TVM's parser reads `return v` */
			sb_puts(b, "return ");
			put_expr(p, s->value->args[0], P_LAMBDA + 1);
		} else if (s->value->kind == TE_CALL) {
			put_expr(p, s->value, P_LAMBDA + 1);
		} else {
			sb_puts(b, "T.evaluate(");
			put_expr(p, s->value, P_LAMBDA + 1);
			sb_putc(b, ')');
		}
		sb_putc(b, '\n');
		return;
	case TS_ATTR:
		indent(b, ind);
		sb_puts(b, "with T.attr(");
		put_expr(p, s->cond, P_LAMBDA + 1);
		sb_puts(b, ", ");
		put_str(b, s->key);
		sb_puts(b, ", ");
		put_expr(p, s->value, P_LAMBDA + 1);
		sb_puts(b, "):\n");
		put_stmt(p, s->inner, ind + 4);
		return;
	case TS_ALLOC:
		put_alloc(p, s->allocs[0], ind, false);
		put_stmt(p, s->inner, ind);
		return;
	case TS_ASSERT:
		ir_bug("TS_ASSERT is not built");
	}
}

void
print_prim_func(StrBuf *b, const PrimFunc *f, int ind, TirSpelling sp)
{
	TP p = {.b = b, .sp = sp};
	indent(b, ind);
	/* T.sblock needs s_tir=True in TVM main */
	bool priv = f->is_private, stir = (f->s_tir || f->root) && sp == TIR_MAIN;
	sb_puts(b, "@T.prim_func");
	if (priv || stir)
		sb_printf(b, "(%s%s%s)", priv ? "private=True" : "", priv && stir ? ", " : "",
			  stir ? "s_tir=True" : "");
	sb_putc(b, '\n');
	indent(b, ind);
	sb_printf(b, "def %s(", f->name);
	for (int i = 0; i < f->nparams; i++) {
		const TParam *q = &f->params[i];
		if (i)
			sb_puts(b, ", ");
		if (q->buf && !q->handle) {
			sb_printf(b, "%s: T.Buffer(", q->buf->name);
			put_buffer_args(&p, q->buf, true);
			sb_putc(b, ')');
		} else {
			sb_printf(b, "%s: T.%s", q->var->name, tir_type_name(q->var->ty));
		}
	}
	sb_putc(b, ')');
	if (f->ret != DT_UNKNOWN)
		sb_printf(b, " -> T.%s", tir_type_name(f->ret));
	sb_puts(b, ":\n");
	int in = ind + 4;
	if (f->nattrs) {
		indent(b, in);
		sb_puts(b, "T.func_attr({");
		for (int i = 0; i < f->nattrs; i++) {
			if (i)
				sb_puts(b, ", ");
			put_str(b, f->attrs[i].key);
			sb_printf(b, ": %s", f->attrs[i].val.s);
		}
		sb_puts(b, "})\n");
	}
	for (int i = 0; i < f->nsymvars; i++) {
		indent(b, in);
		sb_printf(b, "%s = T.%s()\n", f->symvars[i]->name, tir_type_name(f->symvars[i]->ty));
	}
	for (int i = 0; i < f->nparams; i++) {
		const TParam *q = &f->params[i];
		if (!q->buf || !q->handle)
			continue;
		indent(b, in);
		sb_printf(b, "%s = T.match_buffer(%s, ", q->buf->name, q->var->name);
		put_buffer_args(&p, q->buf, false);
		sb_puts(b, ")\n");
	}
	if (f->root) {
		indent(b, in);
		sb_printf(b, "# with T.%s(\"root\"):\n", sp == TIR_MAIN ? "sblock" : "block");
	}
	for (int i = 0; i < f->nroot_allocs; i++)
		put_alloc(&p, f->root_allocs[i], in, true);
	put_stmt(&p, f->body, in);
	vec_free(&p.loops);
}
