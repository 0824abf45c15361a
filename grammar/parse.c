/*
 * parse.c — the entry point of the frontend, the syntax tree constructors
 * the grammar actions call, and the small parser of dimension expressions
 * written in strings ("n * 2").
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "syntax.h"

/* The span from the start of a to the end of b (one line), else a. */
Span
syn_span2(Span a, Span b)
{
	if (a.line == b.line && b.col + b.len > a.col)
		a.len = b.col + b.len - a.col;
	return a;
}

/* A zeroed syntax node. */
Syn *
syn_new(PState *ps, SynKind k, Span sp)
{
	Syn *x = ARENA_NEW(&ps->ast, Syn);
	x->kind = k;
	x->span = sp;
	return x;
}

/* Appends x (a node or a list) to list; returns the head. The head keeps
 * the last node, so that a list of n items is built in O(n). */
Syn *
syn_list(Syn *list, Syn *x)
{
	if (!list)
		return x;
	Syn *p = list->tail ? list->tail : list;
	while (p->next)
		p = p->next;
	p->next = x;
	if (x)
		for (p = x->tail ? x->tail : x; p->next; p = p->next)
			;
	list->tail = p;
	return list;
}

/* The number of nodes in list. */
int
syn_len(const Syn *list)
{
	int n = 0;
	for (; list; list = list->next)
		n++;
	return n;
}

/* A zeroed statement. */
Stm *
stm_new(PState *ps, StmKind k, Span sp)
{
	Stm *s = ARENA_NEW(&ps->ast, Stm);
	s->kind = k;
	s->span = sp;
	return s;
}

/* Appends x (which may be NULL, a statement that failed) to list, in
 * O(1) as syn_list. */
Stm *
stm_list(Stm *list, Stm *x)
{
	if (!list)
		return x;
	if (!x)
		return list;
	Stm *p = list->tail ? list->tail : list;
	while (p->next)
		p = p->next;
	p->next = x;
	for (p = x->tail ? x->tail : x; p->next; p = p->next)
		;
	list->tail = p;
	return list;
}

/* ---------------------------------------------------------- nesting depth */

/* A node to visit, and its depth. */
typedef struct {
	const Syn *x;
	int depth;
} DepthItem;

/* Reports "nesting too deep" at x. */
static void
too_deep(PState *ps, Span sp)
{
	diag_error(ps->d, sp,
		   "nesting too deep (more than %d levels of brackets, calls "
		   "or operators)", SYN_MAX_DEPTH);
}

/* Visits the tree without recursion, whatever its depth. */
bool
syn_check_depth(PState *ps, const Syn *x)
{
	if (!x)
		return true;
	size_t n = 0, cap = 64;
	DepthItem *st = xmalloc(cap * sizeof *st);
	st[n++] = (DepthItem){x, 1};
	bool ok = true;
	while (n > 0 && ok) {
		DepthItem it = st[--n];
		if (it.depth > SYN_MAX_DEPTH) {
			too_deep(ps, it.x->span);
			ok = false;
			break;
		}
		const Syn *kids[2] = {it.x->a, it.x->b};
		for (int k = 0; k < 3; k++) {
			const Syn *c = k < 2 ? kids[k] : it.x->items;
			for (; c; c = k < 2 ? NULL : c->next) {
				if (n == cap) {
					cap *= 2;
					st = xrealloc(st, cap * sizeof *st);
				}
				st[n++] = (DepthItem){c, it.depth + 1};
			}
		}
	}
	free(st);
	return ok;
}

/* Checks the depth of every expression of the statements s. */
static bool
stm_check_depth(PState *ps, const Stm *s, int level)
{
	bool ok = true;
	for (; s && ok; s = s->next) {
		ok = syn_check_depth(ps, s->target) &&
		     syn_check_depth(ps, s->ann) &&
		     syn_check_depth(ps, s->value);
		for (const Syn *x = s->decorators; x && ok; x = x->next)
			ok = syn_check_depth(ps, x);
		for (const Syn *x = s->params; x && ok; x = x->next)
			ok = syn_check_depth(ps, x);
		if (ok && level < SYN_MAX_DEPTH)
			ok = stm_check_depth(ps, s->body, level + 1) &&
			     stm_check_depth(ps, s->orelse, level + 1);
	}
	return ok;
}

/* ------------------------------------------------- dimension expressions */

/* Recursive descent over the text of a string dimension. */
typedef struct {
	PState *ps;
	const char *p, *start;
	Span sp; /* of the string literal; the text starts at col + 1 */
	bool failed;
	int depth; /* of dim_atom calls */
} DimParser;

static Syn *dim_sum(DimParser *dp);

/* The span of the text from s to the current position. */
static Span
dim_span(DimParser *dp, const char *s)
{
	Span sp = {dp->sp.line, dp->sp.col + 1 + (int)(s - dp->start),
		   (int)(dp->p - s) > 0 ? (int)(dp->p - s) : 1};
	return sp;
}

static void
dim_skip(DimParser *dp)
{
	while (*dp->p == ' ' || *dp->p == '\t')
		dp->p++;
}

/* Reports the first error only. */
static Syn *
dim_fail(DimParser *dp, const char *what)
{
	if (!dp->failed) {
		Span sp = dim_span(dp, dp->p);
		sp.len = 1;
		diag_error(dp->ps->d, sp, "%s in dimension expression", what);
	}
	dp->failed = true;
	return NULL;
}

static bool
dim_eat(DimParser *dp, const char *tok)
{
	dim_skip(dp);
	size_t n = strlen(tok);
	if (strncmp(dp->p, tok, n))
		return false;
	dp->p += n;
	return true;
}

static Syn *dim_atom_at(DimParser *dp);

/* Whether the n characters at s are a Python keyword (the printer would
 * quote such a name, and a quoted name cannot be read in a dimension). */
static bool
is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async",
		"await", "break", "class", "continue", "def", "del", "elif",
		"else", "except", "finally", "for", "from", "global", "if",
		"import", "in", "is", "lambda", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "while", "with", "yield",
	};
	for (size_t i = 0; i < ARRAY_LEN(kw); i++)
		if (strlen(kw[i]) == n && !strncmp(kw[i], s, n))
			return true;
	return false;
}

/* An atom, at most SYN_MAX_DEPTH deep. */
static Syn *
dim_atom(DimParser *dp)
{
	if (dp->depth >= SYN_MAX_DEPTH) {
		if (!dp->failed)
			too_deep(dp->ps, dim_span(dp, dp->p));
		dp->failed = true;
		return NULL;
	}
	dp->depth++;
	Syn *x = dim_atom_at(dp);
	dp->depth--;
	return x;
}

/* atom: INT | NAME | `NAME` | T.min(a, b) | T.max(a, b) | (sum) | -atom */
static Syn *
dim_atom_at(DimParser *dp)
{
	dim_skip(dp);
	const char *s = dp->p;
	if (dim_eat(dp, "-")) {
		Syn *a = dim_atom(dp);
		if (!a)
			return NULL;
		Syn *x = syn_new(dp->ps, X_NEG, dim_span(dp, s));
		x->a = a;
		return x;
	}
	if (dim_eat(dp, "(")) {
		Syn *a = dim_sum(dp);
		if (!a)
			return NULL;
		if (!dim_eat(dp, ")"))
			return dim_fail(dp, "expected ')'");
		return a;
	}
	if (isdigit((unsigned char)*s)) {
		errno = 0;
		char *end;
		long long v = strtoll(s, &end, 10);
		dp->p = end;
		if (errno == ERANGE)
			return dim_fail(dp, "integer too large");
		Syn *x = syn_new(dp->ps, X_INT, dim_span(dp, s));
		x->i = v;
		return x;
	}
	if (*s == '`') {
		/* A backquoted name, as the printer writes one that is not an
		 * identifier (`a.b`) or is a keyword. */
		const char *e = strchr(s + 1, '`');
		if (!e || e == s + 1)
			return dim_fail(dp, "unterminated or empty backquoted name");
		dp->p = e + 1;
		Syn *x = syn_new(dp->ps, X_NAME, dim_span(dp, s));
		x->s = arena_strndup(&dp->ps->ast, s + 1, (size_t)(e - s - 1));
		return x;
	}
	if (isalpha((unsigned char)*s) || *s == '_') {
		while (isalnum((unsigned char)*dp->p) || *dp->p == '_')
			dp->p++;
		size_t n = (size_t)(dp->p - s);
		bool is_min = n == 1 && *s == 'T' && !strncmp(dp->p, ".min", 4);
		bool is_max = n == 1 && *s == 'T' && !strncmp(dp->p, ".max", 4);
		if (!is_min && !is_max && is_keyword(s, n)) {
			if (!dp->failed)
				diag_error(dp->ps->d, dim_span(dp, s),
					   "'%.*s' is a Python keyword, not a "
					   "symbolic variable", (int)n, s);
			dp->failed = true;
			return NULL;
		}
		if (!is_min && !is_max) {
			Syn *x = syn_new(dp->ps, X_NAME, dim_span(dp, s));
			x->s = arena_strndup(&dp->ps->ast, s, n);
			return x;
		}
		dp->p += 4;
		Syn *t = syn_new(dp->ps, X_NAME, dim_span(dp, s));
		t->s = "T";
		Syn *f = syn_new(dp->ps, X_ATTR, dim_span(dp, s));
		f->s = is_min ? "min" : "max";
		f->a = t;
		if (!dim_eat(dp, "("))
			return dim_fail(dp, "expected '('");
		Syn *a = dim_sum(dp);
		if (!a)
			return NULL;
		if (!dim_eat(dp, ","))
			return dim_fail(dp, "expected ','");
		Syn *b = dim_sum(dp);
		if (!b)
			return NULL;
		if (!dim_eat(dp, ")"))
			return dim_fail(dp, "expected ')'");
		Syn *x = syn_new(dp->ps, X_CALL, dim_span(dp, s));
		x->a = f;
		x->items = syn_list(a, b);
		x->n = 2;
		return x;
	}
	return dim_fail(dp, *s ? "unexpected character" : "unexpected end");
}

/* product: atom (('*' | '//' | '%') atom)* */
static Syn *
dim_product(DimParser *dp)
{
	dim_skip(dp);
	const char *s = dp->p;
	Syn *x = dim_atom(dp);
	while (x) {
		int op;
		if (dim_eat(dp, "*"))
			op = PE_MUL;
		else if (dim_eat(dp, "//"))
			op = PE_FLOORDIV;
		else if (dim_eat(dp, "%"))
			op = PE_FLOORMOD;
		else
			break;
		Syn *y = dim_atom(dp);
		if (!y)
			return NULL;
		Syn *b = syn_new(dp->ps, X_BIN, dim_span(dp, s));
		b->op = op;
		b->a = x;
		b->b = y;
		x = b;
	}
	return x;
}

/* sum: product (('+' | '-') product)* */
static Syn *
dim_sum(DimParser *dp)
{
	dim_skip(dp);
	const char *s = dp->p;
	Syn *x = dim_product(dp);
	while (x) {
		int op;
		if (dim_eat(dp, "+"))
			op = PE_ADD;
		else if (dim_eat(dp, "-"))
			op = PE_SUB;
		else
			break;
		Syn *y = dim_product(dp);
		if (!y)
			return NULL;
		Syn *b = syn_new(dp->ps, X_BIN, dim_span(dp, s));
		b->op = op;
		b->a = x;
		b->b = y;
		x = b;
	}
	return x;
}

/* comparison: sum [('==' | '!=' | '<=' | '>=' | '<' | '>') sum], as the
 * printer writes a bool R.Prim's value ("n == 4") */
static Syn *
dim_cmp(DimParser *dp)
{
	static const struct {
		const char *tok;
		int op;
	} ops[] = {{"==", PE_EQ}, {"!=", PE_NE}, {"<=", PE_LE},
		   {">=", PE_GE}, {"<", PE_LT},  {">", PE_GT}};
	dim_skip(dp);
	const char *s = dp->p;
	Syn *x = dim_sum(dp);
	if (!x)
		return NULL;
	for (size_t i = 0; i < ARRAY_LEN(ops); i++) {
		if (!dim_eat(dp, ops[i].tok))
			continue;
		Syn *y = dim_sum(dp);
		if (!y)
			return NULL;
		Syn *b = syn_new(dp->ps, X_BIN, dim_span(dp, s));
		b->op = ops[i].op;
		b->a = x;
		b->b = y;
		return b;
	}
	return x;
}

Syn *
syn_parse_dim(PState *ps, const char *text, Span sp)
{
	DimParser dp = {ps, text, text, sp, false, 0};
	Syn *x = dim_cmp(&dp);
	if (x) {
		dim_skip(&dp);
		if (*dp.p)
			x = dim_fail(&dp, "unexpected character");
	}
	if (x && !syn_check_depth(ps, x))
		return NULL;
	return x;
}

/* ------------------------------------------------------------ entry point */

Module *
parse_module(const char *filename, const char *text, size_t len, Diags *d)
{
	Module *m = ir_module_new(filename, text, len);
	d->src = &m->src;
	int errors = d->nerrors;
	/* Text in UTF-8, as Python source (a binary file given by mistake is
	 * refused at its first NUL byte, located like every error). */
	size_t off;
	const char *why;
	if (!text_check_utf8(text, len, &off, &why)) {
		Span sp = {1, 1, 1};
		for (size_t i = 0; i < off; i++) {
			if (text[i] == '\n')
				sp.line++, sp.col = 1;
			else
				sp.col++;
		}
		diag_error(d, sp, "%s", why);
		ir_module_free(m);
		d->src = NULL;
		return NULL;
	}
	PState ps = {0};
	ps.m = m;
	ps.d = d;
	int r = syn_parse_text(&ps, m->src.text, m->src.len);
	if (d->nerrors == errors && r == 0 && stm_check_depth(&ps, ps.top, 0))
		build_module(&ps);
	else if (d->nerrors == errors) {
		Span sp = {1, 1, 1};
		diag_error(d, sp, "syntax error");
	}
	arena_free(&ps.ast);
	if (d->nerrors != errors) {
		ir_module_free(m);
		d->src = NULL;
		return NULL;
	}
	return m;
}

/* rlx.h: parse, infer struct info, verify; stops at the first stage that
 * reports errors. */
rlx_module *
rlx_parse(const char *filename, const char *text, size_t len, rlx_diags *d)
{
	Module *m = parse_module(filename, text, len, d);
	if (!m)
		return NULL;
	d->src = &m->src;
	int errors = infer_module(m, d);
	if (!errors)
		errors = verify_module(m, d);
	d->src = NULL;
	if (errors) {
		ir_module_free(m);
		return NULL;
	}
	return m;
}

const char *
syn_op_text(int op)
{
	switch (op) {
	case PE_ADD: return "+";
	case PE_SUB: return "-";
	case PE_MUL: return "*";
	case PE_FLOORDIV: return "//";
	case PE_FLOORMOD: return "%";
	case PE_EQ: return "==";
	case PE_NE: return "!=";
	case PE_LT: return "<";
	case PE_LE: return "<=";
	case PE_GT: return ">";
	case PE_GE: return ">=";
	case SYN_TRUEDIV: return "/";
	case SYN_MATMUL: return "@";
	case SYN_POW: return "**";
	case SYN_AND: return "and";
	case SYN_OR: return "or";
	case SYN_BITAND: return "&";
	case SYN_BITOR: return "|";
	case SYN_BITXOR: return "^";
	case SYN_SHL: return "<<";
	case SYN_SHR: return ">>";
	default: return "?";
	}
}
