/*
 * build.c — the syntax tree to IR: name resolution (shadowing, DataflowVar
 * scopes, symbolic variables), struct-info annotations, op calls matched
 * against the op table's signatures, and normalization to A-normal form
 * (call arguments are leaves; other values are bound to fresh lv vars).
 * Every error is reported at its node and building goes on, so that one
 * run reports what it can.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "syntax.h"

/* A name in scope. */
typedef struct {
	const char *name;
	Var *var;
	bool dead; /* a DataflowVar of a dataflow block that has ended */
	int index; /* in the scope */
} Entry;

/* The blocks of the E_SEQ being built and its open block. */
typedef struct {
	Vec blocks;
	Vec cur; /* Binding* of the open block */
	bool df; /* the open block is a dataflow block */
	Span span;
} SeqB;

typedef enum { W_FUNC, W_DF, W_BRANCH } Where;

/*
 * A hash index over the names of a Vec used as a stack (the scope, the used
 * names), so that a function of n bindings is built in O(n), not O(n^2).
 * Each bucket chains its items newest first; popping items unlinks them.
 */
typedef struct {
	int *head; /* per bucket: 1 + index of the newest item, 0 none */
	int *prev; /* per item: 1 + index of the previous item of its bucket */
	int nb;    /* buckets, a power of two */
	int cap;   /* entries of prev */
	int n;     /* items indexed */
} NameIdx;

typedef const char *(*NameOf)(const void *item);

typedef struct {
	PState *ps;
	Module *m;
	Diags *d;
	Vec funcs;     /* const char *: the names of the module's functions */
	NameIdx funcs_ix;
	/* per function */
	Func *f;
	Vec scope;     /* Entry* */
	NameIdx scope_ix;
	Vec symvars;   /* SymVar* */
	NameIdx symvars_ix;
	Vec used;      /* const char *: names the function uses */
	NameIdx used_ix;
	Vec attrs;     /* FuncAttr* */
	int lv_next, gv_next;
	int df_mark;   /* scope index where the dataflow block began */
	bool stray_return; /* a misplaced return was reported */
	SeqB *sb;
} B;

static Expr *conv_value(B *b, Syn *x);
static Expr *conv_leaf(B *b, Syn *x);
static SInfo *conv_sinfo(B *b, Syn *x, bool define);
static Expr *build_stmts(B *b, Stm *s, Stm *stop, Where w);
static void build_local_func(B *b, Stm *s);
static bool conv_index_map(B *b, const OpParam *q, Syn *v, const char *fname,
			   AttrVal *out);

/* ------------------------------------------------------------- helpers */

/* Writes the dotted name of x (a.b.c) into out; false if x is not one. */
static bool
dotted(const Syn *x, StrBuf *out)
{
	if (x->kind == X_NAME) {
		sb_puts(out, x->s);
		return true;
	}
	if (x->kind != X_ATTR || !dotted(x->a, out))
		return false;
	sb_putc(out, '.');
	sb_puts(out, x->s);
	return true;
}

/* Whether x is the dotted name `name` or a call of it. */
static bool
is_named(const Syn *x, const char *name)
{
	if (x->kind == X_CALL)
		x = x->a;
	StrBuf s = {0};
	bool ok = dotted(x, &s) && !strcmp(s.p, name);
	sb_free(&s);
	return ok;
}

/* The dotted name of a call's callee (or of x itself) in the tree arena. */
static const char *
callee_name(B *b, const Syn *x)
{
	if (x->kind == X_CALL)
		x = x->a;
	StrBuf s = {0};
	const char *r = NULL;
	if (dotted(x, &s))
		r = arena_strdup(&b->ps->ast, s.p);
	sb_free(&s);
	return r;
}

/* An integer literal, possibly negated. */
static bool
int_lit(const Syn *x, int64_t *out)
{
	if (x->kind == X_INT) {
		*out = x->i;
		return true;
	}
	if (x->kind == X_NEG && x->a->kind == X_INT) {
		*out = -x->a->i;
		return true;
	}
	return false;
}

/* A string literal in Python syntax. */
static void
quoted(StrBuf *out, const char *s)
{
	sb_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c == '"')
			sb_printf(out, "\\%c", c);
		else if (c == '\n')
			sb_puts(out, "\\n");
		else if (c < 0x20 || c == 0x7f)
			sb_printf(out, "\\x%02x", c);
		else
			sb_putc(out, (char)c);
	}
	sb_putc(out, '"');
}

/*
 * The canonical Python text of a value that rlx keeps as text (module
 * attributes, a dict-valued function attribute): one line, one space after
 * commas and colons, strings in double quotes. False when x holds what has
 * no text here (an operator other than unary minus on a number).
 */
static bool
syn_text(StrBuf *out, const Syn *x)
{
	const char *open = "(", *close = ")";
	switch (x->kind) {
	case X_NAME:
		sb_puts(out, x->s);
		return true;
	case X_INT:
		sb_printf(out, "%lld", (long long)x->i);
		return true;
	case X_FLOAT: {
		char t[40];
		snprintf(t, sizeof t, "%.17g", x->f);
		for (int p = 1; p < 17; p++) { /* the shortest that reads back */
			char u[40];
			snprintf(u, sizeof u, "%.*g", p, x->f);
			if (strtod(u, NULL) == x->f) {
				memcpy(t, u, sizeof u);
				break;
			}
		}
		sb_puts(out, t);
		if (!strpbrk(t, ".eEn"))
			sb_puts(out, ".0");
		return true;
	}
	case X_STR:
		quoted(out, x->s);
		return true;
	case X_TRUE: sb_puts(out, "True"); return true;
	case X_FALSE: sb_puts(out, "False"); return true;
	case X_NONE: sb_puts(out, "None"); return true;
	case X_NEG:
		sb_putc(out, '-');
		return syn_text(out, x->a);
	case X_ATTR:
		if (!syn_text(out, x->a))
			return false;
		sb_printf(out, ".%s", x->s);
		return true;
	case X_KWARG:
		sb_printf(out, "%s=", x->s);
		return syn_text(out, x->a);
	case X_CALL:
		if (!syn_text(out, x->a))
			return false;
		break;
	case X_LIST:
		open = "[", close = "]";
		break;
	case X_DICT:
		sb_putc(out, '{');
		for (const Syn *k = x->items; k && k->next; k = k->next->next) {
			if (k != x->items)
				sb_puts(out, ", ");
			if (!syn_text(out, k))
				return false;
			sb_puts(out, ": ");
			if (!syn_text(out, k->next))
				return false;
		}
		sb_putc(out, '}');
		return true;
	case X_TUPLE:
		break;
	default:
		return false;
	}
	sb_puts(out, open);
	for (const Syn *y = x->items; y; y = y->next) {
		if (y != x->items)
			sb_puts(out, ", ");
		if (!syn_text(out, y))
			return false;
	}
	if (x->kind == X_TUPLE && x->n == 1)
		sb_putc(out, ',');
	sb_puts(out, close);
	return true;
}

/* An integer in an int list: a literal, T.int64(3) or R.prim_value(3). */
static bool
int_item(const Syn *x, int64_t *out)
{
	if (int_lit(x, out))
		return true;
	if (x->kind == X_CALL && x->n == 1 && x->items->kind != X_KWARG &&
	    (is_named(x, "R.prim_value") || is_named(x, "T.int64") ||
	     is_named(x, "T.int32")))
		return int_item(x->items, out);
	return false;
}

/* A number literal (int, float, float("inf"), possibly negated). */
static bool
num_lit(const Syn *x, double *out, bool *is_float)
{
	if (x->kind == X_NEG) {
		if (!num_lit(x->a, out, is_float))
			return false;
		*out = -*out;
		return true;
	}
	if (x->kind == X_INT) {
		*out = (double)x->i;
		*is_float = false;
		return true;
	}
	if (x->kind == X_FLOAT) {
		*out = x->f;
		*is_float = true;
		return true;
	}
	if (x->kind == X_CALL && x->a->kind == X_NAME &&
	    !strcmp(x->a->s, "float") && x->n == 1 &&
	    x->items->kind == X_STR) {
		char *end;
		*out = strtod(x->items->s, &end);
		*is_float = true;
		return *end == 0 && end != x->items->s;
	}
	return false;
}

/*
 * Matches the arguments of call against the parameter names as Python
 * does; out[i] gets the argument of names[i] or NULL. Reports unknown
 * keywords, duplicates and surplus arguments.
 */
static bool
match_args(B *b, const Syn *call, const char *fname, const char *const *names,
	   int n, Syn **out)
{
	bool ok = true, kw = false;
	int pos = 0, npos = 0;
	for (int i = 0; i < n; i++)
		out[i] = NULL;
	for (Syn *a = call->items; a; a = a->next)
		npos += a->kind != X_KWARG;
	for (Syn *a = call->items; a; a = a->next) {
		if (a->kind == X_KWARG) {
			kw = true;
			int i = 0;
			while (i < n && strcmp(names[i], a->s))
				i++;
			if (i == n) {
				const char *hint = NULL;
				int best = 99;
				for (int j = 0; j < n; j++) {
					int d = str_edit_distance(a->s, names[j]);
					if (d < best && str_close_enough(names[j], d)) {
						best = d;
						hint = names[j];
					}
				}
				StrBuf all = {0};
				for (int j = 0; j < n; j++)
					sb_printf(&all, "%s%s", j ? ", " : "", names[j]);
				if (hint)
					diag_error(b->d, a->span,
						   "%s got an unexpected keyword argument '%s'; did you mean '%s'?",
						   fname, a->s, hint);
				else
					diag_error(b->d, a->span,
						   "%s got an unexpected keyword argument '%s' (its parameters are %s)",
						   fname, a->s, n ? all.p : "none");
				sb_free(&all);
				ok = false;
			} else if (out[i]) {
				diag_error(b->d, a->span,
					   "%s got multiple values for argument '%s'",
					   fname, a->s);
				ok = false;
			} else {
				out[i] = a->a;
			}
			continue;
		}
		if (kw) {
			diag_error(b->d, a->span,
				   "positional argument follows keyword argument");
			ok = false;
		} else if (pos >= n) {
			diag_error(b->d, a->span,
				   "%s takes %d argument%s but %d were given",
				   fname, n, n == 1 ? "" : "s", npos);
			ok = false;
			pos++;
		} else {
			out[pos++] = a;
		}
	}
	return ok;
}

/* Whether e may be a call argument. */
static bool
is_leaf(const Expr *e)
{
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
		for (int i = 0; i < e->tuple.n; i++)
			if (!is_leaf(e->tuple.items[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* -------------------------------------------------------- suggestions */

/*
 * The op name nearest to r (a name after `R.`), or NULL: the same name
 * in or out of `nn.` (R.relu is R.nn.relu), else an op that r begins
 * (R.permute), else the closest by edit distance over the op table
 * (whole names or their last parts).
 */
static const char *
suggest_op(B *b, const char *r)
{
	const char *best = NULL;
	int bestd = 99;
	const char *tail = strrchr(r, '.') ? strrchr(r, '.') + 1 : r;
	for (int k = OP_NONE + 1; k < OP_COUNT; k++) {
		const char *name = op_info((OpKind)k)->name;
		const char *ntail = strrchr(name, '.') ? strrchr(name, '.') + 1
						       : name;
		if (!strcmp(ntail, tail))
			return name;
		int dd = str_edit_distance(r, name), dt = str_edit_distance(tail, ntail);
		if (dt < dd)
			dd = dt;
		if (strlen(tail) >= 4 && !strncmp(ntail, tail, strlen(tail)))
			dd = 1; /* R.permute: R.permute_dims */
		if (dd < bestd && str_close_enough(ntail, dd)) {
			bestd = dd;
			best = name;
		}
	}
	(void)b;
	return best;
}

/* Common names of dtypes that TVM spells otherwise. */
static const struct {
	const char *alias;
	const char *dtype;
} dtype_aliases[] = {
	{"fp16", "float16"},  {"half", "float16"},   {"f16", "float16"},
	{"fp32", "float32"},  {"float", "float32"},  {"f32", "float32"},
	{"single", "float32"}, {"fp64", "float64"},  {"double", "float64"},
	{"f64", "float64"},   {"bf16", "bfloat16"},  {"int", "int32"},
	{"i32", "int32"},     {"i64", "int64"},      {"long", "int64"},
	{"i8", "int8"},       {"i16", "int16"},      {"u8", "uint8"},
	{"uint", "uint8"},    {"byte", "uint8"},     {"boolean", "bool"},
	{"float8", NULL},     {"int4", NULL},
};

/* The dtype nearest to an unknown dtype string, or NULL. */
static const char *
suggest_dtype(const char *s)
{
	char low[32];
	size_t n = strlen(s);
	if (n >= sizeof low)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a'
							 : s[i]);
	for (size_t i = 0; i < ARRAY_LEN(dtype_aliases); i++)
		if (!strcmp(low, dtype_aliases[i].alias))
			return dtype_aliases[i].dtype;
	const char *best = NULL;
	int bestd = 99;
	for (int t = DT_UNKNOWN + 1; t < DT_COUNT; t++) {
		const char *name = dtype_name((DType)t);
		int dd = str_edit_distance(low, name);
		if (dd < bestd && str_close_enough(name, dd)) {
			bestd = dd;
			best = name;
		}
	}
	return best;
}

/* ------------------------------------------------------------- names */

static void
idx_link(NameIdx *ix, const Vec *v, int i, NameOf name)
{
	unsigned k = (unsigned)str_hash(name(v->items[i])) & (unsigned)(ix->nb - 1);
	ix->prev[i] = ix->head[k];
	ix->head[k] = i + 1;
}

/* Indexes v's last item, pushed just now. */
static void
idx_push(NameIdx *ix, const Vec *v, NameOf name)
{
	if (v->n > ix->cap) {
		ix->cap = v->cap > v->n ? v->cap : v->n;
		ix->prev = realloc(ix->prev, sizeof(int) * (size_t)ix->cap);
		if (!ix->prev)
			ir_bug("out of memory");
	}
	if (v->n * 2 > ix->nb) { /* grow, then index everything again */
		ix->nb = ix->nb ? ix->nb * 4 : 64;
		free(ix->head);
		ix->head = calloc((size_t)ix->nb, sizeof(int));
		if (!ix->head)
			ir_bug("out of memory");
		for (int i = 0; i < v->n; i++)
			idx_link(ix, v, i, name);
	} else {
		idx_link(ix, v, v->n - 1, name);
	}
	ix->n = v->n;
}

/* Drops the items of v from n on, from the index and from v. */
static void
idx_truncate(NameIdx *ix, Vec *v, int n, NameOf name)
{
	for (int i = ix->n - 1; i >= n; i--) {
		unsigned k = (unsigned)str_hash(name(v->items[i])) & (unsigned)(ix->nb - 1);
		ix->head[k] = ix->prev[i];
	}
	if (n < ix->n)
		ix->n = n;
	v->n = n;
}

/* The newest item of v named name, or NULL. */
static void *
idx_find(const NameIdx *ix, const Vec *v, const char *name, NameOf nameof)
{
	if (!ix->nb)
		return NULL;
	unsigned k = (unsigned)str_hash(name) & (unsigned)(ix->nb - 1);
	for (int i = ix->head[k]; i; i = ix->prev[i - 1])
		if (!strcmp(nameof(v->items[i - 1]), name))
			return v->items[i - 1];
	return NULL;
}

static void
idx_free(NameIdx *ix)
{
	free(ix->head);
	free(ix->prev);
	*ix = (NameIdx){0};
}

static const char *
str_name(const void *item)
{
	return item;
}

static const char *
entry_name(const void *item)
{
	return ((const Entry *)item)->name;
}

/* Empties the scope (to n entries) and its index. */
static void
scope_truncate(B *b, int n)
{
	idx_truncate(&b->scope_ix, &b->scope, n, entry_name);
}

static bool
name_used(B *b, const char *name)
{
	return idx_find(&b->used_ix, &b->used, name, str_name) != NULL;
}

static void
use_name(B *b, const char *name)
{
	/* only names that fresh() could make matter: keeps the list short */
	if (strncmp(name, "lv", 2) && strncmp(name, "gv", 2))
		return;
	if (!name_used(b, name)) {
		vec_push(&b->used, (void *)name);
		idx_push(&b->used_ix, &b->used, str_name);
	}
}

/* Records the names a function's statements assign. */
static void
collect_names(B *b, const Stm *s)
{
	for (; s; s = s->next) {
		if (s->kind == S_ASSIGN && s->target && s->target->kind == X_NAME)
			use_name(b, s->target->s);
		collect_names(b, s->body);
		collect_names(b, s->orelse);
	}
}

/* A fresh name: prefix, prefix1, prefix2, ... unused in the function. */
static const char *
fresh(B *b, const char *prefix, int *next)
{
	for (;;) {
		int k = (*next)++;
		const char *name = k ? arena_printf(&b->ps->ast, "%s%d", prefix, k)
				     : prefix;
		if (!name_used(b, name)) {
			use_name(b, name);
			return name;
		}
	}
}

/* Brings v into scope under its name. */
static void
bind_name(B *b, Var *v)
{
	Entry *e = ARENA_NEW(&b->ps->ast, Entry);
	e->name = v->name;
	e->var = v;
	e->index = b->scope.n;
	vec_push(&b->scope, e);
	idx_push(&b->scope_ix, &b->scope, entry_name);
}

/*
 * Defines name after an error in its value, so that its later uses do
 * not report again (one mistake, one error). The variable has no binding:
 * the module is dropped anyway, since an error was reported.
 */
static void
bind_poisoned(B *b, const char *name, Span sp)
{
	bool df = b->sb && b->sb->df;
	bind_name(b, ir_var(b->m, name, NULL, df, sp));
}

/* The scope entry of name, or NULL. */
static Entry *
find_entry(B *b, const char *name)
{
	return idx_find(&b->scope_ix, &b->scope, name, entry_name);
}

/* The symbolic variable of this function named name, or NULL. */
static const char *
symvar_name(const void *item)
{
	return ((const SymVar *)item)->name;
}

static SymVar *
find_symvar(B *b, const char *name)
{
	return idx_find(&b->symvars_ix, &b->symvars, name, symvar_name);
}

static SymVar *
define_symvar(B *b, const char *name, Span sp)
{
	SymVar *v = ir_symvar(b->m, name, sp);
	vec_push(&b->symvars, v);
	idx_push(&b->symvars_ix, &b->symvars, symvar_name);
	return v;
}

/* The live name in scope nearest to name by edit distance, or NULL. */
static Entry *
suggest_name(B *b, const char *name)
{
	Entry *best = NULL;
	int bestd = 99;
	if (b->d->nerrors >= DIAG_PRINT_LIMIT)
		return NULL; /* not printed: not worth a scan of the scope */
	for (int i = b->scope.n - 1; i >= 0; i--) {
		Entry *e = b->scope.items[i];
		if (e->dead)
			continue;
		int d = str_edit_distance(name, e->name);
		if (d < bestd && str_close_enough(e->name, d)) {
			bestd = d;
			best = e;
		}
	}
	return best;
}

/* The variable a name refers to, with an error when there is none. */
static Var *
lookup(B *b, const Syn *x)
{
	Entry *e = find_entry(b, x->s);
	if (e && e->dead) {
		diag_error(b->d, x->span,
			   "'%s' is a DataflowVar of a dataflow block that has ended",
			   x->s);
		return NULL;
	}
	if (e)
		return e->var;
	if (find_symvar(b, x->s))
		diag_error(b->d, x->span,
			   "symbolic variable '%s' used as a value (write R.prim_value(%s) or R.shape([%s]))",
			   x->s, x->s, x->s);
	else if ((e = suggest_name(b, x->s)))
		diag_error(b->d, x->span,
			   "undefined name '%s'; did you mean '%s'?", x->s,
			   e->name);
	else
		diag_error(b->d, x->span, "undefined name '%s'", x->s);
	bind_poisoned(b, x->s, x->span); /* reported once */
	return NULL;
}

/* ------------------------------------------------------------- blocks */

/* Appends a binding to the open block. */
static void
emit(B *b, Binding *bd)
{
	vec_push(&b->sb->cur, bd);
}

/* Closes the open block (kept when non-empty or a dataflow block). */
static void
close_block(B *b)
{
	SeqB *sb = b->sb;
	if (sb->cur.n == 0 && !sb->df)
		return;
	Block *k = ARENA_NEW(&b->m->arena, Block);
	k->dataflow = sb->df;
	k->n = sb->cur.n;
	k->span = sb->span;
	k->bindings = (Binding **)vec_to_arena(&sb->cur, &b->m->arena);
	sb->cur = (Vec){0};
	vec_push(&sb->blocks, k);
	sb->df = false;
}

/* The E_SEQ of the blocks built so far and body. */
static Expr *
finish_seq(B *b, Expr *body, Span sp)
{
	close_block(b);
	Expr *e = ir_expr(b->m, E_SEQ, sp);
	e->seq.nblocks = b->sb->blocks.n;
	e->seq.blocks = (Block **)vec_to_arena(&b->sb->blocks, &b->m->arena);
	e->seq.body = body;
	return e;
}

/* Binds a non-leaf value to a fresh variable in the open block. */
static Expr *
bind_fresh(B *b, Expr *e, const char *prefix, int *next)
{
	Var *v = ir_var(b->m, fresh(b, prefix, next), NULL, b->sb->df, e->span);
	emit(b, ir_binding(b->m, v, e, e->span));
	return ir_var_ref(b->m, v, e->span);
}

/* ------------------------------------------------------- dimensions */

/* A dimension expression; bare undefined names are defined if `define`. */
static PExpr *
conv_dim_raw(B *b, Syn *x, bool define, bool bare)
{
	Arena *a = &b->m->arena;
	PExpr *p = NULL;
	int64_t v;
	switch (x->kind) {
	case X_INT:
		p = pe_int(a, x->i);
		break;
	case X_NEG:
		if (int_lit(x, &v)) {
			p = pe_int(a, v);
		} else {
			PExpr *y = conv_dim_raw(b, x->a, define, false);
			if (!y)
				return NULL;
			p = pe_bin(a, PE_SUB, pe_int(a, 0), y);
		}
		break;
	case X_STR: {
		Syn *y = syn_parse_dim(b->ps, x->s, x->span);
		if (!y)
			return NULL;
		if (y->kind == X_NAME || !bare)
			y->span = x->span;
		return conv_dim_raw(b, y, define, bare);
	}
	case X_NAME: {
		SymVar *s = find_symvar(b, x->s);
		if (!s && define && bare)
			s = define_symvar(b, x->s, x->span);
		if (!s) {
			if (find_entry(b, x->s))
				diag_error(b->d, x->span,
					   "'%s' is not a symbolic variable",
					   x->s);
			else
				diag_error(b->d, x->span,
					   "undefined symbolic variable '%s'",
					   x->s);
			return NULL;
		}
		p = pe_var(a, s);
		break;
	}
	case X_BIN: {
		if (x->op == SYN_TRUEDIV || x->op == SYN_MATMUL) {
			diag_error(b->d, x->span, x->op == SYN_MATMUL
				   ? "'@' in a dimension expression"
				   : "'/' in a dimension expression (write '//' for floor division)");
			return NULL;
		}
		PExpr *l = conv_dim_raw(b, x->a, define, false);
		PExpr *r = l ? conv_dim_raw(b, x->b, define, false) : NULL;
		if (!r)
			return NULL;
		if ((x->op == PE_FLOORDIV || x->op == PE_FLOORMOD) &&
		    pe_is_const(pe_simplify(a, r), &v) && v == 0) {
			diag_error(b->d, x->span,
				   "division by zero in a dimension expression");
			return NULL;
		}
		p = pe_bin(a, (PExprKind)x->op, l, r);
		break;
	}
	case X_CALL:
		if ((is_named(x, "T.min") || is_named(x, "T.max")) &&
		    x->n == 2 && x->items->kind != X_KWARG &&
		    x->items->next->kind != X_KWARG) {
			PExpr *l = conv_dim_raw(b, x->items, define, false);
			PExpr *r = l ? conv_dim_raw(b, x->items->next, define,
						    false)
				     : NULL;
			if (!r)
				return NULL;
			p = pe_bin(a, is_named(x, "T.min") ? PE_MIN : PE_MAX, l, r);
			break;
		}
		if (is_named(x, "T.int64") && x->n == 1 &&
		    x->items->kind != X_KWARG) {
			/* T.int64(16), T.int64(n): the dimension itself */
			p = conv_dim_raw(b, x->items, define, bare);
			if (!p)
				return NULL;
			break;
		}
		/* fall through */
	default:
		if (x->kind == X_FLOAT)
			diag_error(b->d, x->span,
				   "a dimension must be an integer, got %g",
				   x->f);
		else
			diag_error(b->d, x->span,
				   "expected a dimension (an integer, a symbolic variable or an expression of them)");
		return NULL;
	}
	p->span = x->span;
	return p;
}

/* A dimension in canonical form. */
static PExpr *
conv_dim(B *b, Syn *x, bool define)
{
	PExpr *p = conv_dim_raw(b, x, define, true);
	if (!p)
		return NULL;
	PExpr *s = pe_simplify(&b->m->arena, p);
	if (s != p && s->span.line == 0)
		s->span = p->span;
	return s;
}

/* A list or tuple of dimensions; n gets the count. */
static PExpr **
conv_dims(B *b, Syn *x, bool define, int *n, bool *ok)
{
	*n = x->n;
	PExpr **v = ARENA_ARRAY(&b->m->arena, PExpr *, x->n ? x->n : 1);
	int i = 0;
	for (Syn *y = x->items; y; y = y->next, i++) {
		v[i] = conv_dim(b, y, define);
		if (!v[i])
			*ok = false;
	}
	return v;
}

/* Dimensions of an annotation: as conv_dims, and none is negative. */
static PExpr **
conv_ann_dims(B *b, Syn *x, bool define, int *n, bool *ok)
{
	PExpr **v = conv_dims(b, x, define, n, ok);
	int i = 0;
	for (Syn *y = x->items; y; y = y->next, i++) {
		int64_t c;
		if (v[i] && pe_is_const(v[i], &c) && c < 0) {
			diag_error(b->d, y->span,
				   "dimension %lld is negative; a dimension is a size, at least 0",
				   (long long)c);
			*ok = false;
		}
	}
	return v;
}

/* A dtype string; reports unknown ones. */
static bool
conv_dtype(B *b, Syn *x, DType *out)
{
	if (x->kind != X_STR) {
		diag_error(b->d, x->span, "expected a dtype string");
		return false;
	}
	if (!dtype_parse(x->s, out)) {
		const char *hint = suggest_dtype(x->s);
		if (hint)
			diag_error(b->d, x->span,
				   "unknown dtype '%s'; did you mean \"%s\"?",
				   x->s, hint);
		else
			diag_error(b->d, x->span,
				   "unknown dtype '%s' (rlx knows bool, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64)",
				   x->s);
		return false;
	}
	return true;
}

/* --------------------------------------------------------- struct info */

static SInfo *
conv_tensor_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"shape", "dtype", "vdevice", "ndim"};
	Syn *a4[4] = {0}, *arg[3] = {0};
	const char *vdev = NULL;
	if (x->kind == X_CALL) {
		if (!match_args(b, x, "R.Tensor", names, 4, a4))
			return NULL;
		arg[0] = a4[0];
		arg[1] = a4[1];
		arg[2] = a4[3];
		if (a4[2] && a4[2]->kind != X_NONE) { /* TVM's virtual device */
			if (a4[2]->kind != X_STR ||
			    !(vdev = ir_vdevice_canon(&b->m->arena, a4[2]->s))) {
				diag_error(b->d, a4[2]->span, "vdevice must be a string "
					   "\"KIND\", \"KIND:INDEX\" or \"KIND:INDEX:SCOPE\" "
					   "(\"llvm\", \"cuda:1\")");
				return NULL;
			}
		}
		if (arg[0] && arg[0]->kind == X_STR && !arg[1]) {
			arg[1] = arg[0]; /* R.Tensor("float32") */
			arg[0] = NULL;
		}
	}
	DType dt = DT_UNKNOWN;
	int ndim = -1;
	PExpr **shape = NULL;
	bool ok = true;
	if (arg[1] && arg[1]->kind != X_NONE && !conv_dtype(b, arg[1], &dt))
		ok = false;
	if (arg[0] && arg[0]->kind != X_NONE) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a tuple of dimensions");
			return NULL;
		}
		shape = conv_ann_dims(b, arg[0], define, &ndim, &ok);
	}
	if (arg[2]) {
		int64_t v;
		if (!int_lit(arg[2], &v) || v < -1) {
			diag_error(b->d, arg[2]->span,
				   "ndim must be an integer");
			return NULL;
		}
		if (shape && v != ndim && v != -1) {
			diag_error(b->d, arg[2]->span,
				   "ndim %lld does not match the shape's %d dimensions",
				   (long long)v, ndim);
			return NULL;
		}
		ndim = (int)v;
	}
	if (!ok)
		return NULL;
	SInfo *si = si_tensor(&b->m->arena, dt, ndim, shape);
	si->vdevice = vdev;
	return si;
}

static SInfo *
conv_shape_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"values", "ndim"};
	Syn *arg[2] = {0};
	if (x->kind == X_CALL && !match_args(b, x, "R.Shape", names, 2, arg))
		return NULL;
	int ndim = -1;
	PExpr **values = NULL;
	bool ok = true;
	if (arg[0] && arg[0]->kind != X_NONE) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a list of dimensions");
			return NULL;
		}
		values = conv_ann_dims(b, arg[0], define, &ndim, &ok);
	}
	if (arg[1]) {
		int64_t v;
		if (!int_lit(arg[1], &v) || v < -1 ||
		    (values && v != ndim && v != -1)) {
			diag_error(b->d, arg[1]->span, "bad ndim for R.Shape");
			return NULL;
		}
		ndim = (int)v;
	}
	return ok ? si_shape(&b->m->arena, ndim, values) : NULL;
}

static SInfo *
conv_prim_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"dtype", "value"};
	Syn *arg[2] = {0};
	if (x->kind == X_CALL && !match_args(b, x, "R.Prim", names, 2, arg))
		return NULL;
	DType dt = DT_UNKNOWN;
	PExpr *value = NULL;
	if (arg[0] && !conv_dtype(b, arg[0], &dt))
		return NULL;
	if (arg[1]) {
		value = conv_dim(b, arg[1], define);
		if (!value)
			return NULL;
		if (!arg[0])
			dt = DT_I64;
	}
	return si_prim(&b->m->arena, dt, value);
}

/* The struct info of a list of annotations; n gets the count. */
static SInfo **
conv_sinfos(B *b, Syn *items, int n, bool define, bool *ok)
{
	SInfo **v = ARENA_ARRAY(&b->m->arena, SInfo *, n ? n : 1);
	int i = 0;
	for (Syn *y = items; y; y = y->next, i++) {
		if (y->kind == X_KWARG) {
			diag_error(b->d, y->span, "unexpected keyword argument '%s'",
				   y->s);
			*ok = false;
			continue;
		}
		v[i] = conv_sinfo(b, y, define);
		if (!v[i])
			*ok = false;
	}
	return v;
}

static SInfo *
conv_callable_sinfo(B *b, Syn *x, bool define)
{
	static const char *const names[] = {"params", "ret", "purity"};
	Syn *arg[3] = {0};
	if (x->kind == X_CALL &&
	    !match_args(b, x, "R.Callable", names, 3, arg))
		return NULL;
	bool ok = true, pure = true;
	SInfo **params = NULL;
	int n = 0;
	if (arg[0]) {
		if (arg[0]->kind != X_TUPLE && arg[0]->kind != X_LIST) {
			diag_error(b->d, arg[0]->span,
				   "expected a tuple of parameter annotations");
			return NULL;
		}
		n = arg[0]->n;
		params = conv_sinfos(b, arg[0]->items, n, define, &ok);
	}
	SInfo *ret = arg[1] ? conv_sinfo(b, arg[1], define) : si_object(&b->m->arena);
	if (!ret)
		ok = false;
	if (arg[2]) {
		if (arg[2]->kind != X_TRUE && arg[2]->kind != X_FALSE) {
			diag_error(b->d, arg[2]->span, "purity must be True or False");
			return NULL;
		}
		pure = arg[2]->kind == X_TRUE;
	}
	return ok ? si_func(&b->m->arena, params, n, ret, pure) : NULL;
}

/* An annotation; define: bare undefined dimension names define SymVars. */
static SInfo *
conv_sinfo(B *b, Syn *x, bool define)
{
	const char *name = NULL;
	if (x->kind == X_CALL || x->kind == X_ATTR)
		name = callee_name(b, x);
	SInfo *s = NULL;
	if (!name) {
		if (x->kind == X_NONE)
			diag_error(b->d, x->span,
				   "None is not a struct info annotation: a Relax function always returns a value (write R.Tuple for an empty tuple, or leave the annotation out)");
		else
			diag_error(b->d, x->span, "expected a struct info annotation (R.Tensor, R.Tuple, ...)");
		return NULL;
	}
	if (!strcmp(name, "R.Tensor")) {
		s = conv_tensor_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Shape")) {
		s = conv_shape_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Prim")) {
		s = conv_prim_sinfo(b, x, define);
	} else if (!strcmp(name, "R.Tuple")) {
		bool ok = true;
		int n = x->kind == X_CALL ? x->n : 0;
		Syn *items = x->kind == X_CALL ? x->items : NULL;
		if (n == 1 && items->kind == X_LIST) { /* R.Tuple([A, B]) */
			n = items->n;
			items = items->items;
		}
		SInfo **f = conv_sinfos(b, items, n, define, &ok);
		s = ok ? si_tuple(&b->m->arena, f, n) : NULL;
	} else if (!strcmp(name, "R.Any") || !strcmp(name, "R.Object")) {
		if (x->kind == X_CALL && x->n) {
			diag_error(b->d, x->items->span,
				   "%s takes no arguments", name);
			return NULL;
		}
		s = si_object(&b->m->arena);
	} else if (!strcmp(name, "R.Callable")) {
		s = conv_callable_sinfo(b, x, define);
	} else {
		diag_error(b->d, x->span,
			   "unknown struct info annotation '%s' (expected R.Tensor, R.Tuple, R.Shape, R.Prim, R.Any or R.Callable)",
			   name);
		return NULL;
	}
	if (s)
		s->span = x->span;
	return s;
}

/* --------------------------------------------------------------- values */

/* Little-endian IEEE half of d (round to nearest even). */
static uint16_t
f16_bits(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
	int fexp = (int)((x >> 23) & 0xff);
	if (fexp == 0xff)
		return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	int exp = fexp - 127 + 15;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000;
		int shift = 14 - exp;
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
	uint32_t rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

/* bfloat16 of d (round to nearest even). */
static uint16_t
bf16_bits(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	if (isnan(f))
		return (uint16_t)(((x >> 16) & 0x8000) | 0x7fc0);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* Stores element i of value (iv when integral, else fv) as dtype t. */
static void
put_elem(void *data, size_t i, DType t, int64_t iv, double fv, bool isf)
{
	double d = isf ? fv : (double)iv;
	switch (t) {
	case DT_BOOL: ((uint8_t *)data)[i] = isf ? fv != 0 : iv != 0; break;
	case DT_I8: ((int8_t *)data)[i] = (int8_t)iv; break;
	case DT_I16: ((int16_t *)data)[i] = (int16_t)iv; break;
	case DT_I32: ((int32_t *)data)[i] = (int32_t)iv; break;
	case DT_I64: ((int64_t *)data)[i] = iv; break;
	case DT_U8: ((uint8_t *)data)[i] = (uint8_t)iv; break;
	case DT_F16: ((uint16_t *)data)[i] = f16_bits(d); break;
	case DT_BF16: ((uint16_t *)data)[i] = bf16_bits(d); break;
	case DT_F32:
		/* Beyond float's range the conversion is undefined: infinity,
		 * as IEEE rounding (and numpy) gives. */
		((float *)data)[i] = fabs(d) >= 0x1.ffffffp127 && !isnan(d)
					     ? (float)copysign(INFINITY, d)
					     : (float)d;
		break;
	case DT_F64: ((double *)data)[i] = d; break;
	default: ir_bug("bad constant dtype %d", (int)t);
	}
}

/* Whether the integer v fits in the integer dtype t (any v for others:
 * bool takes v != 0, floats round). */
static bool
int_fits(DType t, int64_t v)
{
	switch (t) {
	case DT_I8: return v >= INT8_MIN && v <= INT8_MAX;
	case DT_I16: return v >= INT16_MIN && v <= INT16_MAX;
	case DT_I32: return v >= INT32_MIN && v <= INT32_MAX;
	case DT_U8: return v >= 0 && v <= UINT8_MAX;
	default: return true;
	}
}

/* Elements of a constant while it is read. */
typedef struct {
	int64_t shape[8];
	int ndim;
	Vec elems; /* Syn* of the scalars */
	bool any_float, all_bool;
} ConstRead;

/* Checks that v is a nested list of the shape and collects its scalars. */
static bool
const_flatten(B *b, Syn *v, int level, ConstRead *cr)
{
	if (level < cr->ndim) {
		if ((v->kind != X_LIST && v->kind != X_TUPLE) ||
		    v->n != cr->shape[level]) {
			diag_error(b->d, v->span,
				   "constant is not a rectangular nested list");
			return false;
		}
		for (Syn *y = v->items; y; y = y->next)
			if (!const_flatten(b, y, level + 1, cr))
				return false;
		return true;
	}
	double d;
	bool isf = false;
	if (v->kind == X_TRUE || v->kind == X_FALSE) {
		vec_push(&cr->elems, v);
		return true;
	}
	if (!num_lit(v, &d, &isf)) {
		diag_error(b->d, v->span, "expected a number in R.const");
		return false;
	}
	cr->all_bool = false;
	cr->any_float |= isf;
	vec_push(&cr->elems, v);
	return true;
}

/* R.const(value, dtype): a tensor held in host memory. */
static Expr *
conv_const(B *b, Syn *x)
{
	static const char *const names[] = {"value", "dtype"};
	Syn *arg[2];
	if (!match_args(b, x, "R.const", names, 2, arg))
		return NULL;
	if (!arg[0]) {
		diag_error(b->d, x->span, "R.const needs a value");
		return NULL;
	}
	ConstRead cr = {.all_bool = true};
	for (Syn *v = arg[0]; v->kind == X_LIST || v->kind == X_TUPLE;
	     v = v->items) {
		if (cr.ndim == (int)ARRAY_LEN(cr.shape)) {
			diag_error(b->d, v->span, "constant has too many dimensions");
			return NULL;
		}
		cr.shape[cr.ndim++] = v->n;
		if (!v->n)
			break;
	}
	if (!const_flatten(b, arg[0], 0, &cr)) {
		vec_free(&cr.elems);
		return NULL;
	}
	/* TVM's relax.const: Python ints are int32, floats float32 */
	DType t = cr.any_float ? DT_F32 : cr.all_bool && cr.elems.n ? DT_BOOL
		: cr.elems.n ? DT_I32 : DT_F32;
	if (arg[1] && !conv_dtype(b, arg[1], &t)) {
		vec_free(&cr.elems);
		return NULL;
	}
	if (t == DT_UNKNOWN) {
		diag_error(b->d, arg[1]->span, "R.const needs a known dtype");
		vec_free(&cr.elems);
		return NULL;
	}
	Expr *e = ir_expr(b->m, E_CONST, x->span);
	e->cdata.dtype = t;
	e->cdata.ndim = cr.ndim;
	e->cdata.shape = arena_memdup(&b->m->arena, cr.shape,
				      sizeof(int64_t) * (size_t)cr.ndim);
	size_t esize = (size_t)(dtype_bits(t) / 8);
	e->cdata.data = arena_alloc(&b->m->arena,
				    esize * (size_t)(cr.elems.n ? cr.elems.n : 1));
	bool ok = true;
	for (int i = 0; i < cr.elems.n; i++) {
		Syn *v = cr.elems.items[i];
		double d = 0;
		bool isf = false;
		int64_t iv = 0;
		if (v->kind == X_TRUE || v->kind == X_FALSE)
			iv = v->kind == X_TRUE;
		else if (!int_lit(v, &iv))
			num_lit(v, &d, &isf);
		if (isf && !dtype_is_float(t)) {
			diag_error(b->d, v->span,
				   "float value in a constant of dtype %s",
				   dtype_name(t));
			ok = false;
			break;
		}
		if (!isf && !int_fits(t, iv)) {
			diag_error(b->d, v->span,
				   "%lld is out of range for a constant of dtype %s",
				   (long long)iv, dtype_name(t));
			ok = false;
			break;
		}
		put_elem(e->cdata.data, (size_t)i, t, iv, d, isf);
	}
	vec_free(&cr.elems);
	return ok ? e : NULL;
}

/* A prim value: numbers, T.DTYPE(v), symbolic expressions. */
static Expr *
conv_prim(B *b, Syn *x)
{
	Expr *e = ir_expr(b->m, E_PRIM, x->span);
	double d;
	bool isf = false;
	if (x->kind == X_TRUE || x->kind == X_FALSE) {
		e->prim.dtype = DT_BOOL;
		e->prim.value = pe_int(&b->m->arena, x->kind == X_TRUE);
		return e;
	}
	if (x->kind == X_CALL && x->a->kind == X_ATTR &&
	    x->a->a->kind == X_NAME && !strcmp(x->a->a->s, "T") &&
	    !is_named(x, "T.min") && !is_named(x, "T.max")) {
		DType t;
		if (!dtype_parse(x->a->s, &t) || t == DT_UNKNOWN) {
			diag_error(b->d, x->a->span, "unknown dtype '%s'", x->a->s);
			return NULL;
		}
		if (x->n != 1 || x->items->kind == X_KWARG) {
			diag_error(b->d, x->span, "T.%s takes one value",
				   x->a->s);
			return NULL;
		}
		e->prim.dtype = t;
		x = x->items;
		if (dtype_is_float(t)) {
			char *end = NULL;
			if (x->kind == X_STR) { /* T.float64("inf"), as TVM prints it */
				d = strtod(x->s, &end);
				if (*x->s && !*end && (isinf(d) || isnan(d))) {
					e->prim.f = d;
					return e;
				}
			}
			if (!num_lit(x, &d, &isf)) {
				diag_error(b->d, x->span, "expected a number");
				return NULL;
			}
			e->prim.f = d;
			return e;
		}
		if (t == DT_BOOL && (x->kind == X_TRUE || x->kind == X_FALSE)) {
			e->prim.value = pe_int(&b->m->arena, x->kind == X_TRUE);
			return e;
		}
	} else if (num_lit(x, &d, &isf) && isf) {
		e->prim.dtype = DT_F32;
		e->prim.f = d;
		return e;
	} else {
		e->prim.dtype = DT_I64;
	}
	e->prim.value = conv_dim(b, x, false);
	if (e->prim.value && PE_IS_CMP(e->prim.value->kind))
		e->prim.dtype = DT_BOOL; /* R.prim_value(n % 16 == 0) */
	return e->prim.value ? e : NULL;
}

/* An E_SHAPE of a list or tuple of dimensions. */
static Expr *
conv_shape_value(B *b, Syn *list, Span sp)
{
	if (list->kind != X_LIST && list->kind != X_TUPLE) {
		diag_error(b->d, list->span, "expected a list of dimensions");
		return NULL;
	}
	bool ok = true;
	Expr *e = ir_expr(b->m, E_SHAPE, sp);
	e->shape.values = conv_dims(b, list, false, &e->shape.n, &ok);
	return ok ? e : NULL;
}

/* The single positional argument of a builtin call. */
static Syn *
one_arg(B *b, Syn *x, const char *fname)
{
	if (x->n != 1 || x->items->kind == X_KWARG) {
		diag_error(b->d, x->span, "%s takes one positional argument",
			   fname);
		return NULL;
	}
	return x->items;
}

/* Converts the attribute argument v of op parameter q. */
static bool
conv_attr(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	memset(out, 0, sizeof *out);
	int64_t i;
	double d;
	bool isf = false;
	if (v->kind == X_CALL && v->n == 1 && v->items->kind == X_STR &&
	    ((q->kind == PK_STR && is_named(v, "R.str")) ||
	     (q->kind == PK_DTYPE && is_named(v, "R.dtype"))))
		v = v->items; /* R.str("global"), R.dtype("float32") */
	if (v->kind == X_NONE || (q->optional && v->kind == X_CALL && !v->n &&
				  is_named(v, "R.tuple"))) {
		if (q->optional) {
			out->kind = AV_NONE;
			return true;
		}
		if (q->kind == PK_DTYPE && q->has_default && q->def.kind == AV_DTYPE &&
		    q->def.dtype == DT_UNKNOWN) {
			out->kind = AV_DTYPE; /* out_dtype=None: "void", as TVM reads it */
			out->dtype = DT_UNKNOWN;
			return true;
		}
		diag_error(b->d, v->span, "argument '%s' of %s cannot be None",
			   q->name, fname);
		return false;
	}
	const char *want = "";
	switch (q->kind) {
	case PK_INT:
		if (int_lit(v, &i)) {
			out->kind = AV_INT;
			out->i = i;
			return true;
		}
		want = "an integer";
		break;
	case PK_INTS:
	case PK_INT_OR_INTS:
		if (int_lit(v, &i)) {
			if (q->kind == PK_INT_OR_INTS) {
				out->kind = AV_INT;
				out->i = i;
				return true;
			}
			out->kind = AV_INTS;
			out->n = 1;
			out->ints = arena_memdup(&b->m->arena, &i, sizeof i);
			return true;
		}
		if (v->kind == X_LIST || v->kind == X_TUPLE) {
			int64_t *xs = ARENA_ARRAY(&b->m->arena, int64_t,
						  v->n ? v->n : 1);
			int k = 0;
			for (Syn *y = v->items; y; y = y->next, k++) {
				if (!int_item(y, &xs[k])) {
					diag_error(b->d, y->span,
						   "argument '%s' of %s must be a list of integers",
						   q->name, fname);
					return false;
				}
			}
			out->kind = AV_INTS;
			out->ints = xs;
			out->n = v->n;
			return true;
		}
		want = q->kind == PK_INTS ? "a list of integers"
					  : "an integer or a list of integers";
		break;
	case PK_FLOAT:
		if (num_lit(v, &d, &isf)) {
			out->kind = AV_FLOAT;
			out->f = d;
			return true;
		}
		want = "a number";
		break;
	case PK_BOOL:
		if (v->kind == X_TRUE || v->kind == X_FALSE) {
			out->kind = AV_BOOL;
			out->i = v->kind == X_TRUE;
			return true;
		}
		want = "True or False";
		break;
	case PK_STR:
		if (v->kind == X_STR) {
			out->kind = AV_STR;
			out->s = arena_strdup(&b->m->arena, v->s);
			return true;
		}
		want = "a string";
		break;
	case PK_DTYPE:
		if (v->kind == X_STR) {
			out->kind = AV_DTYPE;
			return conv_dtype(b, v, &out->dtype);
		}
		want = "a dtype string";
		break;
	case PK_DIMS: {
		Syn one = *v;
		if (v->kind != X_LIST && v->kind != X_TUPLE) {
			one.kind = X_LIST; /* a single dimension */
			one.items = arena_memdup(&b->ps->ast, v, sizeof *v);
			one.items->next = NULL;
			one.n = 1;
			v = &one;
		}
		PExpr **xs = ARENA_ARRAY(&b->m->arena, PExpr *, v->n ? v->n : 1);
		bool all_const = true;
		int k = 0;
		for (Syn *y = v->items; y; y = y->next, k++) {
			int64_t c;
			Syn *z = y;
			if (z->kind == X_CALL && z->n == 1 &&
			    is_named(z, "R.prim_value"))
				z = z->items;
			if (!(xs[k] = conv_dim(b, z, false)))
				return false;
			all_const &= pe_is_const(xs[k], &c);
		}
		out->n = v->n;
		if (!all_const) {
			out->kind = AV_DIMS;
			out->dims = xs;
			return true;
		}
		out->kind = AV_INTS;
		out->ints = ARENA_ARRAY(&b->m->arena, int64_t, v->n ? v->n : 1);
		for (int j = 0; j < v->n; j++)
			pe_is_const(xs[j], &out->ints[j]);
		return true;
	}
	case PK_SINFO:
	case PK_SINFOS: {
		bool list = v->kind == X_LIST || v->kind == X_TUPLE;
		int n = list ? v->n : 1;
		out->kind = AV_SINFO;
		out->n = n;
		out->sis = ARENA_ARRAY(&b->m->arena, SInfo *, n ? n : 1);
		int k = 0;
		for (Syn *y = list ? v->items : v; y && k < n; y = y->next, k++)
			if (!(out->sis[k] = conv_sinfo(b, y, false)))
				return false;
		return true;
	}
	case PK_IMAP:
		return conv_index_map(b, q, v, fname, out);
	case PK_RAW: {
		StrBuf t = {0};
		bool ok = syn_text(&t, v);
		if (ok) {
			out->kind = AV_RAW;
			out->s = arena_strdup(&b->m->arena, t.p);
		}
		sb_free(&t);
		if (ok)
			return true;
		want = "a Python literal";
		break;
	}
	default:
		ir_bug("not an attribute kind %d", (int)q->kind);
	}
	diag_error(b->d, v->span, "argument '%s' of %s must be %s", q->name,
		   fname, want);
	return false;
}

/*
 * An index map: `lambda i, j: (j, i)` or `T.index_map(lambda ...,
 * index_dtype=...)` (the dtype is TVM's choice of index type; rlx's
 * indices are int64). The lambda's names are its own symbolic variables,
 * seen only in its body, over which each final index is a dimension
 * expression.
 */
static bool
conv_index_map(B *b, const OpParam *q, Syn *v, const char *fname, AttrVal *out)
{
	if (v->kind == X_CALL && is_named(v, "T.index_map")) {
		static const char *const names[] = {"mapping", "inverse_index_map", "index_dtype"};
		Syn *arg[3];
		if (!match_args(b, v, "T.index_map", names, 3, arg))
			return false;
		if (arg[1] && arg[1]->kind != X_NONE) {
			diag_error(b->d, arg[1]->span, "an inverse_index_map is not supported "
				   "by rlx (the inverse of an affine map is implied)");
			return false;
		}
		if (arg[2] && (arg[2]->kind != X_STR || (strcmp(arg[2]->s, "int32") &&
							 strcmp(arg[2]->s, "int64")))) {
			diag_error(b->d, arg[2]->span, "index_dtype must be \"int32\" or \"int64\"");
			return false;
		}
		if (!arg[0]) {
			diag_error(b->d, v->span, "T.index_map needs a lambda");
			return false;
		}
		v = arg[0];
	}
	if (v->kind != X_LAMBDA) {
		diag_error(b->d, v->span, "argument '%s' of %s must be an index map "
			   "(lambda i, j: (j, i))", q->name, fname);
		return false;
	}
	int n0 = b->symvars.n;
	SymVar **iv = ARENA_ARRAY(&b->m->arena, SymVar *, v->n ? v->n : 1);
	int k = 0;
	bool ok = true;
	for (Syn *y = v->items; y; y = y->next, k++) {
		for (int j = n0; j < b->symvars.n; j++)
			if (!strcmp(((SymVar *)b->symvars.items[j])->name, y->s)) {
				diag_error(b->d, y->span, "duplicate lambda parameter '%s'", y->s);
				ok = false;
			}
		iv[k] = define_symvar(b, y->s, y->span);
	}
	Syn *body = v->a;
	Syn one = {0};
	if (body->kind != X_TUPLE) {
		one.kind = X_TUPLE;
		one.span = body->span;
		one.items = body;
		one.n = 1;
		body = &one;
	}
	PExpr **fin = ARENA_ARRAY(&b->m->arena, PExpr *, body->n ? body->n : 1);
	k = 0;
	for (Syn *y = body->items; ok && y; y = y->next, k++) {
		Syn *save = y->next;
		if (!(fin[k] = conv_dim(b, y, false)))
			ok = false;
		y->next = save;
		Vec vars = {0};
		if (ok)
			pe_collect_vars(fin[k], &vars);
		for (int j = 0; ok && j < vars.n; j++) {
			bool mine = false;
			for (int i = 0; i < v->n; i++)
				mine |= vars.items[j] == iv[i];
			if (!mine) {
				diag_error(b->d, y->span, "an index map may use only its own "
					   "variables, not '%s'", ((SymVar *)vars.items[j])->name);
				ok = false;
			}
		}
		vec_free(&vars);
	}
	idx_truncate(&b->symvars_ix, &b->symvars, n0, symvar_name);
	if (!ok)
		return false;
	out->kind = AV_IMAP;
	out->ivars = iv;
	out->nin = v->n;
	out->dims = fin;
	out->n = body->n;
	return true;
}

/* Converts the expression argument v of op parameter q (a leaf). */
static Expr *
conv_param(B *b, const OpParam *q, Syn *v, const char *fname)
{
	if (q->optional && (v->kind == X_NONE ||
			    (v->kind == X_TUPLE && !v->n) ||
			    (v->kind == X_CALL && !v->n && is_named(v, "R.tuple"))))
		return ir_expr(b->m, E_TUPLE, v->span); /* as TVM: R.tuple() */
	switch (q->kind) {
	case PK_SHAPE:
		if (v->kind == X_INT || v->kind == X_NAME) {
			/* one size for every spatial dim, as TVM's image wrappers
			 * read it (resize2d(x, 20) is size (20, 20)) */
			size_t n = strlen(fname);
			int k = !strncmp(fname, "R.image.", 8) && n > 2 ? fname[n - 2] - '0' : 0;
			if (!strcmp(fname, "R.image.affine_grid"))
				k = 2;
			if ((k == 2 || k == 3) && (v->kind == X_INT || !find_entry(b, v->s))) {
				Syn *l = syn_new(b->ps, X_TUPLE, v->span);
				for (int i = 0; i < k; i++) {
					Syn *y = syn_new(b->ps, v->kind, v->span);
					*y = *v;
					y->next = NULL;
					l->items = syn_list(l->items, y);
				}
				l->n = k;
				return conv_shape_value(b, l, v->span);
			}
		}
		if (v->kind == X_LIST || v->kind == X_TUPLE)
			return conv_shape_value(b, v, v->span);
		if (v->kind == X_NAME ||
		    (v->kind == X_CALL && (is_named(v, "R.shape") ||
					   is_named(v, "R.ShapeExpr"))))
			return conv_leaf(b, v);
		diag_error(b->d, v->span, "argument '%s' of %s must be a shape",
			   q->name, fname);
		return NULL;
	case PK_FUNC:
		if (v->kind == X_STR ||
		    (v->kind == X_CALL && is_named(v, "R.ExternFunc"))) {
			Syn *n = v->kind == X_STR ? v : v->n >= 1 ? v->items : NULL;
			if (!n || n->kind != X_STR) {
				diag_error(b->d, v->span,
					   "R.ExternFunc takes the function's name as a string");
				return NULL;
			}
			Expr *e = ir_expr(b->m, E_EXTERN, v->span);
			e->str = arena_strdup(&b->m->arena, n->s);
			return e;
		}
		return conv_leaf(b, v);
	case PK_PRIM:
		if (v->kind == X_NAME && find_entry(b, v->s))
			return conv_leaf(b, v);
		if (v->kind == X_CALL && !is_named(v, "T.min") &&
		    !is_named(v, "T.max") && !(v->a->kind == X_ATTR &&
		    v->a->a->kind == X_NAME && !strcmp(v->a->a->s, "T")))
			return conv_leaf(b, v);
		return conv_prim(b, v);
	default:
		if (q->variadic && (v->kind == X_INT || v->kind == X_NEG ||
				    v->kind == X_FLOAT || v->kind == X_TRUE ||
				    v->kind == X_FALSE))
			return conv_prim(b, v); /* R.call_packed("f", x, 2) */
		if (q->variadic && v->kind == X_STR) {
			Expr *e = ir_expr(b->m, E_STR, v->span);
			e->str = arena_strdup(&b->m->arena, v->s);
			return e;
		}
		if (v->kind == X_INT || v->kind == X_FLOAT ||
		    v->kind == X_NEG || v->kind == X_TRUE ||
		    v->kind == X_FALSE || v->kind == X_NONE ||
		    v->kind == X_STR) {
			diag_error(b->d, v->span,
				   "argument '%s' of %s must be an expression, not a Python value (use R.const)",
				   q->name, fname);
			return NULL;
		}
		return conv_leaf(b, v);
	}
}

/*
 * Int-list attributes as TVM's Python wrappers write them: a list shorter
 * than its default is repeated to the default's length (strides=2 of
 * conv2d is [2, 2], padding=(1, 2) is [1, 2, 1, 2]: [top, left, bottom,
 * right]), so that `padding=(1, 1)` prints as TVM prints it; an
 * adaptive pool's output_size=7 is [7, 7], a pooled_size=7 of roi_align or
 * roi_pool too.
 */
static void
widen_lists(B *b, Expr *e, const OpSig *sig)
{
	for (int k = 0; k < sig->nparams; k++) {
		const OpParam *q = &sig->params[k];
		if (!q->is_attr)
			continue;
		AttrVal *v = &e->call.attrs[q->slot];
		if (v->kind != AV_INTS || v->n < 1)
			continue;
		int want = 0;
		if (q->has_default && q->def.kind == AV_INTS)
			want = op_default(b->m, q).n;
		if ((e->call.op == OP_ADAPTIVE_AVG_POOL2D && !strcmp(q->name, "output_size")) ||
		    !strcmp(q->name, "pooled_size"))
			want = 2; /* roi_align, roi_pool: (n, n) */
		if (want <= v->n || want % v->n)
			continue;
		int64_t *xs = ARENA_ARRAY(&b->m->arena, int64_t, want);
		for (int i = 0; i < want; i++)
			xs[i] = v->ints[i % v->n];
		v->ints = xs;
		v->n = want;
	}
}

/*
 * The value of a prim parameter left out of a call: its default
 * (`k:prim=0`), or NULL for `None` and for an optional expression
 * (op_normalize decides).
 */
static Expr *
default_prim(B *b, const OpParam *q, Span sp)
{
	if (!q->has_default || !strcmp(q->def_text, "None"))
		return NULL;
	Expr *e = ir_expr(b->m, E_PRIM, sp);
	e->span.line = 0; /* made up */
	if (!strcmp(q->def_text, "True") || !strcmp(q->def_text, "False")) {
		e->prim.dtype = DT_BOOL;
		e->prim.value = pe_int(&b->m->arena, q->def_text[0] == 'T');
	} else if (strchr(q->def_text, '.')) {
		e->prim.dtype = DT_F32;
		e->prim.f = strtod(q->def_text, NULL);
	} else {
		e->prim.dtype = DT_I64;
		e->prim.value = pe_int(&b->m->arena, strtoll(q->def_text, NULL, 10));
	}
	return e;
}

/* Is prim argument x written as an integer (not a float)? */
static bool
int_prim(const Expr *x)
{
	if (x->kind == E_PRIM)
		return !dtype_is_float(x->prim.dtype);
	const SInfo *si = ir_expr_sinfo(x);
	return !si || si->kind != SI_PRIM || !dtype_is_float(si->dtype);
}

/* Is x a left-out optional argument (R.tuple(), as TVM writes one)? */
static bool
absent(const Expr *x)
{
	return !x || (x->kind == E_TUPLE && x->tuple.n == 0);
}

/*
 * What TVM's Python wrappers do to a call before building it: arange(n)
 * is arange(0, n, 1) and its dtype, when not given, int64 for integer
 * arguments and float32 otherwise; eye(n) is eye(n, n); unique without an
 * axis has five arguments; out_layout=None
 * is the data's layout.
 */
static bool
op_normalize(B *b, Expr *e, const OpSig *sig, Span sp, const char *fname)
{
	Expr **a = e->call.args;
	(void)fname;
	if (e->call.op == OP_ARANGE && e->call.nargs == 3) {
		if (absent(a[1])) {
			a[1] = a[0];
			OpParam zero = {.has_default = true, .def_text = "0"};
			a[0] = default_prim(b, &zero, sp);
		}
		AttrVal *dt = &e->call.attrs[0];
		if (dt->kind == AV_NONE) {
			dt->kind = AV_DTYPE;
			dt->dtype = int_prim(a[0]) && int_prim(a[1]) && int_prim(a[2])
					    ? DT_I64 : DT_F32;
		}
	} else if (e->call.op == OP_EYE && e->call.nargs == 3 && absent(a[1])) {
		a[1] = ir_copy_expr(b->m, a[0]);
	} else if (e->call.op == OP_UNIQUE && e->call.nargs == 6 && absent(a[5])) {
		e->call.nargs = 5; /* TVM's unique has no axis argument for None */
	}
	int out_l = -1, in_l = -1;
	for (int i = 0; i < sig->nparams; i++) {
		const OpParam *q = &sig->params[i];
		if (q->is_attr && !strcmp(q->name, "out_layout"))
			out_l = q->slot;
		if (q->is_attr && (!strcmp(q->name, "data_layout") || !strcmp(q->name, "layout")))
			in_l = q->slot;
	}
	if (out_l >= 0 && in_l >= 0 && e->call.attrs[out_l].kind == AV_NONE)
		e->call.attrs[out_l] = e->call.attrs[in_l];
	return true;
}

/* R.OP(args): matched against the op's signature. */
static Expr *
conv_opcall(B *b, Syn *x, OpKind op, const char *fname)
{
	OpSig sig;
	op_sig(op, &sig);
	const char *names[ARRAY_LEN(sig.params)];
	Syn *arg[ARRAY_LEN(sig.params)];
	int nv = 0, vi = -1; /* the variadic parameter and its arguments */
	Syn *rest = NULL;
	for (int i = 0; i < sig.nparams; i++) {
		names[i] = sig.params[i].name;
		if (sig.params[i].variadic)
			vi = i;
		/* TVM's older spellings of ty_args and out_ty */
		const char *old = !strcmp(names[i], "ty_args") ? "sinfo_args"
				: !strcmp(names[i], "out_ty") ? "out_sinfo" : NULL;
		for (Syn *a = x->items; old && a; a = a->next)
			if (a->kind == X_KWARG && !strcmp(a->s, old))
				a->s = names[i];
	}
	Syn xc = *x;
	if (vi >= 0) {
		/* positional arguments from the variadic one on are its own;
		 * the parameters after it are keyword-only */
		Syn *head = NULL, **tail = &head;
		int pos = 0;
		for (Syn *a = x->items; a; a = a->next, pos++) {
			Syn *c = arena_memdup(&b->ps->ast, a, sizeof *a);
			c->next = NULL;
			if (a->kind != X_KWARG && pos >= vi) {
				Syn **t = &rest;
				while (*t)
					t = &(*t)->next;
				*t = c;
				nv++;
				continue;
			}
			*tail = c;
			tail = &c->next;
		}
		xc.items = head;
		xc.n = syn_len(head);
		names[vi] = "*"; /* matches no keyword */
	}
	if (!match_args(b, &xc, fname, names, sig.nparams, arg))
		return NULL;
	if (vi >= 0)
		arg[vi] = rest;
	int nargs = sig.nargs - (vi >= 0) + nv;
	Expr *e = ir_expr(b->m, E_CALL, x->span);
	e->call.op = op;
	e->call.nargs = nargs;
	e->call.nattrs = sig.nattrs;
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, nargs ? nargs : 1);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal,
				    sig.nattrs ? sig.nattrs : 1);
	bool ok = true;
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (q->variadic) {
			int k = q->slot;
			for (Syn *a = arg[i]; a; a = a->next, k++) {
				e->call.args[k] = conv_param(b, q, a, fname);
				ok &= e->call.args[k] != NULL;
			}
			continue;
		}
		if (!arg[i] && !q->is_attr && (q->optional || q->has_default)) {
			/* a missing argument: its default, else R.tuple(), as
			 * TVM writes it */
			Expr *a = ir_expr(b->m, E_TUPLE, x->span);
			if (q->kind == PK_PRIM && (q->def.kind == AV_INT || q->def.kind == AV_BOOL)) {
				a->kind = E_PRIM;
				a->prim.dtype = q->def.kind == AV_BOOL ? DT_BOOL : DT_I64;
				a->prim.value = pe_int(&b->m->arena, q->def.i);
			}
			e->call.args[q->slot] = a;
			continue;
		}
		if (!arg[i]) {
			if (q->is_attr && q->has_default) {
				e->call.attrs[q->slot] = op_default(b->m, q);
				continue;
			}
			if (!q->is_attr && (q->optional || q->has_default)) {
				/* a prim default, or left to op_normalize */
				e->call.args[q->slot] = default_prim(b, q, x->span);
				continue;
			}
			diag_error(b->d, x->span,
				   "%s missing required argument '%s' (%s takes %s)",
				   fname, q->name, fname, op_info(op)->sig);
			ok = false;
		} else if (q->is_attr) {
			ok &= conv_attr(b, q, arg[i], fname,
					&e->call.attrs[q->slot]);
		} else {
			e->call.args[q->slot] = conv_param(b, q, arg[i], fname);
			ok &= e->call.args[q->slot] != NULL;
		}
	}
	if (ok)
		widen_lists(b, e, &sig);
	if (ok)
		ok = op_normalize(b, e, &sig, x->span, fname);
	return ok ? e : NULL;
}

/* A call of op with the given arguments and its default attributes. */
static Expr *
make_call(B *b, OpKind op, Expr **args, int nargs, Span sp)
{
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(b->m, E_CALL, sp);
	e->call.op = op;
	e->call.nargs = nargs;
	e->call.nattrs = sig.nattrs;
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, nargs);
	memcpy(e->call.args, args, sizeof *args * (size_t)nargs);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal, sig.nattrs ? sig.nattrs : 1);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr)
			e->call.attrs[sig.params[i].slot] = op_default(b->m, &sig.params[i]);
	return e;
}

/*
 * R.linear(data, weight, bias=None, out_dtype=None): not an op in Relax
 * but, as TVM's Python wrapper builds it, matmul(data,
 * permute_dims(weight)) plus bias when given (the nested calls are
 * normalized into bindings like any others).
 */
static Expr *
conv_linear(B *b, Syn *x, const char *fname)
{
	static const char *const names[] = {"data", "weight", "bias", "out_dtype"};
	Syn *arg[4];
	if (!match_args(b, x, fname, names, 4, arg))
		return NULL;
	if (!arg[0] || !arg[1]) {
		diag_error(b->d, x->span, "%s missing required argument '%s' "
			   "(%s takes data, weight, bias=None, out_dtype=None)",
			   fname, arg[0] ? "weight" : "data", fname);
		return NULL;
	}
	bool has_bias = arg[2] && arg[2]->kind != X_NONE;
	Expr *data = conv_leaf(b, arg[0]), *w = conv_leaf(b, arg[1]);
	Expr *bias = has_bias ? conv_leaf(b, arg[2]) : NULL;
	if (!data || !w || (has_bias && !bias))
		return NULL;
	Expr *wt = bind_fresh(b, make_call(b, OP_PERMUTE_DIMS, &w, 1, x->span),
			      "lv", &b->lv_next);
	Expr *mm[2] = {data, wt};
	Expr *e = make_call(b, OP_MATMUL, mm, 2, x->span);
	if (arg[3] && arg[3]->kind != X_NONE) {
		if (arg[3]->kind != X_STR) {
			diag_error(b->d, arg[3]->span,
				   "argument 'out_dtype' of %s must be a dtype string", fname);
			return NULL;
		}
		e->call.attrs[0].kind = AV_DTYPE;
		if (!conv_dtype(b, arg[3], &e->call.attrs[0].dtype))
			return NULL;
	}
	if (bias) {
		Expr *ab[2] = {bind_fresh(b, e, "lv", &b->lv_next), bias};
		e = make_call(b, OP_ADD, ab, 2, x->span);
	}
	return e;
}

/*
 * A module function's name: `cls.f`, or `Module.f` with the class's own
 * name as TVM's parser allows, gives "f" and *global; another name comes
 * back unchanged (*global false); NULL after an error (no such function,
 * with the nearest as a hint).
 */
static const char *
global_name(B *b, const char *name, Span sp, bool *global)
{
	*global = false;
	const char *dot = strchr(name, '.');
	if (dot && !strchr(dot + 1, '.') && b->m->name &&
	    !strncmp(name, b->m->name, (size_t)(dot - name)) &&
	    !b->m->name[dot - name])
		name = arena_printf(&b->ps->ast, "cls.%s", dot + 1);
	if (strncmp(name, "cls.", 4) || strchr(name + 4, '.'))
		return name;
	if (!idx_find(&b->funcs_ix, &b->funcs, name + 4, str_name)) {
		const char *hint = NULL;
		int best = 99;
		/* (no hint search once errors are too many to be read) */
		for (int i = 0; i < b->funcs.n && b->d->nerrors < DIAG_PRINT_LIMIT; i++) {
			const char *f = b->funcs.items[i];
			int d = str_edit_distance(name + 4, f);
			if (d < best && str_close_enough(f, d)) {
				best = d;
				hint = f;
			}
		}
		if (hint)
			diag_error(b->d, sp,
				   "unknown function '%s' in the module; did you mean cls.%s?",
				   name + 4, hint);
		else
			diag_error(b->d, sp, "unknown function '%s' in the module",
				   name + 4);
		return NULL;
	}
	*global = true;
	return name + 4;
}

/* A call: R.const, R.shape, ..., R.OP, cls.f. */
static Expr *
conv_call(B *b, Syn *x)
{
	const char *name = callee_name(b, x);
	if (!name) {
		diag_error(b->d, x->a->span, "unsupported call");
		return NULL;
	}
	Span csp = x->a->span;
	/* relax.op.OP and relax.const are the Python functions that R.OP
	 * and R.const name (TVMScript evaluates either) */
	if (!strncmp(name, "relax.op.", 9))
		name = arena_printf(&b->ps->ast, "R.%s", name + 9);
	else if (!strcmp(name, "relax.const"))
		name = "R.const";
	if (!strncmp(name, "R.", 2)) {
		const char *r = name + 2;
		if (!strcmp(r, "const"))
			return conv_const(b, x);
		if (!strcmp(r, "shape") || !strcmp(r, "ShapeExpr")) {
			Syn *a = one_arg(b, x, name);
			return a ? conv_shape_value(b, a, x->span) : NULL;
		}
		if (!strcmp(r, "prim_value")) {
			Syn *a = one_arg(b, x, name);
			if (!a)
				return NULL;
			Expr *e = conv_prim(b, a);
			if (e)
				e->span = x->span;
			return e;
		}
		if (!strcmp(r, "str") || !strcmp(r, "dtype")) {
			Syn *a = one_arg(b, x, name);
			if (!a)
				return NULL;
			DType t;
			if (a->kind != X_STR) {
				diag_error(b->d, a->span, "%s takes a string", name);
				return NULL;
			}
			if (r[0] == 'd' && !conv_dtype(b, a, &t))
				return NULL;
			Expr *e = ir_expr(b->m, E_STR, x->span);
			e->str = arena_strdup(&b->m->arena, a->s);
			e->dtype_imm = r[0] == 'd'; /* a DataTypeImm */
			return e;
		}
		if (!strcmp(r, "tuple")) {
			Expr *e = ir_expr(b->m, E_TUPLE, x->span);
			e->tuple.n = x->n;
			e->tuple.items = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
			int i = 0;
			for (Syn *a = x->items; a; a = a->next, i++) {
				if (a->kind == X_KWARG ||
				    !(e->tuple.items[i] = conv_leaf(b, a))) {
					if (a->kind == X_KWARG)
						diag_error(b->d, a->span,
							   "R.tuple takes no keyword arguments");
					return NULL;
				}
			}
			return e;
		}
		if (!strcmp(r, "ExternFunc")) {
			Syn *a = x->n >= 1 ? x->items : NULL;
			if (!a || a->kind != X_STR) {
				diag_error(b->d, x->span,
					   "R.ExternFunc takes the function's name as a string");
				return NULL;
			}
			Expr *e = ir_expr(b->m, E_EXTERN, x->span);
			e->str = arena_strdup(&b->m->arena, a->s);
			return e;
		}
		if (!strcmp(r, "match_cast")) {
			diag_error(b->d, csp, "R.match_cast must be the whole value of an assignment");
			return NULL;
		}
		if (!strcmp(r, "output") || !strcmp(r, "func_attr") ||
		    !strcmp(r, "dataflow")) {
			diag_error(b->d, csp, "%s is a statement, not a value", name);
			return NULL;
		}
		if (!strcmp(r, "linear"))
			return conv_linear(b, x, name);
		OpKind op = op_lookup(r);
		if (op == OP_NONE) {
			const char *hint = suggest_op(b, r);
			if (!strncmp(r, "call_", 5))
				diag_error(b->d, csp,
					   "unknown operator %s: rlx has no TIR or packed functions, only the Relax operators of docs/language.md",
					   name);
			else if (hint)
				diag_error(b->d, csp,
					   "unknown operator %s; did you mean R.%s?",
					   name, hint);
			else
				diag_error(b->d, csp,
					   "unknown operator %s (the operators rlx knows are listed in docs/language.md)",
					   name);
			return NULL;
		}
		return conv_opcall(b, x, op, name);
	}
	bool global;
	name = global_name(b, name, csp, &global);
	if (!name)
		return NULL;
	if (global) {
		Expr *e = ir_expr(b->m, E_CALL_FN, x->span);
		e->callfn.callee = arena_strdup(&b->m->arena, name);
		e->callfn.nargs = x->n;
		e->callfn.args = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
		int i = 0;
		for (Syn *a = x->items; a; a = a->next, i++) {
			if (a->kind == X_KWARG) {
				diag_error(b->d, a->span,
					   "keyword arguments are not supported in calls of module functions");
				return NULL;
			}
			if (!(e->callfn.args[i] = conv_leaf(b, a)))
				return NULL;
		}
		return e;
	}
	Entry *fe = x->a->kind == X_NAME ? find_entry(b, name) : NULL;
	if (fe && !fe->dead) {
		/* a call through a variable: a local function, a parameter */
		Expr *e = ir_expr(b->m, E_CALL_VAR, x->span);
		e->callv.fn = ir_var_ref(b->m, fe->var, x->a->span);
		e->callv.nargs = x->n;
		e->callv.args = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
		int i = 0;
		for (Syn *a = x->items; a; a = a->next, i++) {
			if (a->kind == X_KWARG) {
				diag_error(b->d, a->span,
					   "keyword arguments are not supported in calls of functions");
				return NULL;
			}
			if (!(e->callv.args[i] = conv_leaf(b, a)))
				return NULL;
		}
		return e;
	}
	diag_error(b->d, csp, "unsupported call '%s'", name);
	return NULL;
}

/*
 * A Python operator on Relax values, as TVM's parser reads it: `a + b` is
 * R.add(a, b), and likewise `-` subtract, `*` multiply, `/` divide, `//`
 * floor_divide, unary `-` negative. A number literal operand is refused
 * (Relax has no implicit constants), with the usual message.
 */
static Expr *
conv_operator(B *b, Syn *x)
{
	int64_t iv;
	double dv;
	bool isf;
	if (int_lit(x, &iv) || num_lit(x, &dv, &isf)) {
		diag_error(b->d, x->span,
			   "a Python value is not a Relax expression (use R.const or R.prim_value)");
		return NULL;
	}
	OpKind op;
	if (x->kind == X_NEG) {
		op = OP_NEGATIVE;
	} else {
		switch (x->op) {
		case PE_ADD: op = OP_ADD; break;
		case PE_SUB: op = OP_SUBTRACT; break;
		case PE_MUL: op = OP_MULTIPLY; break;
		case PE_FLOORDIV: op = OP_FLOOR_DIVIDE; break;
		case SYN_TRUEDIV: op = OP_DIVIDE; break;
		case SYN_MATMUL: op = OP_MATMUL; break;
		default:
			if (PE_IS_CMP(x->op))
				diag_error(b->d, x->span,
					   "a comparison of Relax values is not an expression (use R.equal, R.less, ...; comparisons are for symbolic dimensions, as in 'if n == 16:')");
			else
				diag_error(b->d, x->span,
					   "operator '%%' on Relax values is not supported");
			return NULL;
		}
	}
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(b->m, E_CALL, x->span);
	e->call.op = op;
	e->call.nargs = sig.nargs;
	e->call.nattrs = sig.nattrs; /* defaults: matmul's out_dtype */
	e->call.args = ARENA_ARRAY(&b->m->arena, Expr *, 2);
	e->call.attrs = ARENA_ARRAY(&b->m->arena, AttrVal, 1);
	for (int i = 0; i < sig.nparams; i++)
		if (sig.params[i].is_attr)
			e->call.attrs[sig.params[i].slot] = op_default(b->m, &sig.params[i]);
	Syn *operand[2] = {x->a, x->b};
	const char *fname = x->kind == X_NEG ? "unary '-'" : "operator";
	for (int i = 0; i < sig.nargs; i++) {
		Syn *v = operand[i];
		if (int_lit(v, &iv) || num_lit(v, &dv, &isf)) {
			diag_error(b->d, v->span,
				   "an operand of %s must be a Relax expression, not a Python number (use R.const)",
				   fname);
			return NULL;
		}
		if (!(e->call.args[i] = conv_leaf(b, v)))
			return NULL;
	}
	return e;
}

/* An expression in value position (not necessarily a leaf). */
static Expr *
conv_value(B *b, Syn *x)
{
	switch (x->kind) {
	case X_NAME: {
		Var *v = lookup(b, x);
		return v ? ir_var_ref(b->m, v, x->span) : NULL;
	}
	case X_ATTR: { /* cls.f or Module.f as a value: TVM's GlobalVar */
		const char *name = callee_name(b, x);
		bool global = false;
		if (name && !(name = global_name(b, name, x->span, &global)))
			return NULL;
		if (!global) {
			diag_error(b->d, x->span, "unexpected expression");
			return NULL;
		}
		Expr *e = ir_expr(b->m, E_GLOBAL, x->span);
		e->str = arena_strdup(&b->m->arena, name);
		return e;
	}
	case X_TUPLE:
	case X_LIST: {
		Expr *e = ir_expr(b->m, E_TUPLE, x->span);
		e->tuple.n = x->n;
		e->tuple.items = ARENA_ARRAY(&b->m->arena, Expr *, x->n ? x->n : 1);
		int i = 0;
		for (Syn *y = x->items; y; y = y->next, i++)
			if (!(e->tuple.items[i] = conv_leaf(b, y)))
				return NULL;
		return e;
	}
	case X_INDEX: {
		int64_t i;
		if (!int_lit(x->b, &i) || i < 0 || i > 1 << 30) {
			diag_error(b->d, x->b->span,
				   "a tuple index must be a non-negative integer");
			return NULL;
		}
		Expr *t = conv_leaf(b, x->a);
		if (!t)
			return NULL;
		Expr *e = ir_expr(b->m, E_TUPLE_GET, x->span);
		e->tget.tuple = t;
		e->tget.index = (int)i;
		return e;
	}
	case X_CALL:
		return conv_call(b, x);
	case X_INT:
	case X_FLOAT:
	case X_TRUE:
	case X_FALSE:
		diag_error(b->d, x->span,
			   "a Python value is not a Relax expression (use R.const or R.prim_value)");
		return NULL;
	case X_BIN:
	case X_NEG:
		return conv_operator(b, x);
	default:
		diag_error(b->d, x->span, "unexpected expression");
		return NULL;
	}
}

/* An expression as a call argument: non-leaves are bound to lv vars. */
static Expr *
conv_leaf(B *b, Syn *x)
{
	Expr *e = conv_value(b, x);
	if (!e || is_leaf(e))
		return e;
	return bind_fresh(b, e, "lv", &b->lv_next);
}

/* ----------------------------------------------------------- statements */

/* `n = T.int64()`: a symbolic variable of the function. */
static void
build_symvar_decl(B *b, Stm *s, Where w)
{
	Syn *x = s->value;
	if (!is_named(x, "T.int64")) {
		diag_error(b->d, x->span,
			   "only T.int64() symbolic variables are supported");
		return;
	}
	if (x->n) {
		diag_error(b->d, x->items->span, "T.int64() takes no arguments here");
		return;
	}
	(void)w; /* anywhere in the body, as TVM: a symvar is the function's */
	if (s->ann) {
		diag_error(b->d, s->span,
			   "a symbolic variable declaration takes no annotation");
		return;
	}
	if (!find_symvar(b, s->target->s))
		define_symvar(b, s->target->s, s->target->span);
}

/* `y = R.match_cast(x, SINFO)`. */
static Var *
build_match_cast(B *b, Stm *s)
{
	static const char *const names[] = {"value", "struct_info"};
	Syn *arg[2];
	if (!match_args(b, s->value, "R.match_cast", names, 2, arg))
		return NULL;
	if (!arg[0] || !arg[1]) {
		diag_error(b->d, s->value->span,
			   "R.match_cast needs a value and a struct info");
		return NULL;
	}
	Expr *v = conv_leaf(b, arg[0]);
	SInfo *cast = conv_sinfo(b, arg[1], true);
	SInfo *ann = s->ann ? conv_sinfo(b, s->ann, false) : NULL;
	if (!v || !cast || (s->ann && !ann))
		return NULL;
	Var *y = ir_var(b->m, s->target->s, ann, b->sb->df, s->target->span);
	Binding *bd = ir_binding(b->m, y, v, s->span);
	bd->cast = cast;
	bd->annotated = ann != NULL;
	emit(b, bd);
	return y;
}

/* Checks an assignment's target; false (reported) if it is not a name. */
static bool
check_target(B *b, Stm *s)
{
	if (s->target->kind == X_TUPLE) {
		diag_error(b->d, s->target->span, s->ann
			   ? "an unpacking assignment cannot be annotated"
			   : "only names can be unpacked into (a, b = R.split(...))");
		return false;
	}
	if (s->target->kind != X_NAME) {
		diag_error(b->d, s->target->span,
			   "can only assign to a name");
		return false;
	}
	if (!s->value) {
		diag_error(b->d, s->span, "an annotated name needs a value");
		return false;
	}
	return true;
}

/*
 * `m, n = T.int64(), T.int64()`: several symbolic variables at once, as
 * TVM's tests write them. False when s is not of that form.
 */
static bool
build_symvar_decls(B *b, Stm *s, Where w)
{
	Syn *t = s->target, *v = s->value;
	if (t->kind != X_TUPLE || !v || v->kind != X_TUPLE || t->n != v->n ||
	    s->ann)
		return false;
	for (Syn *x = t->items, *y = v->items; x; x = x->next, y = y->next)
		if (x->kind != X_NAME || y->kind != X_CALL ||
		    !is_named(y, "T.int64"))
			return false;
	for (Syn *x = t->items, *y = v->items; x; x = x->next, y = y->next) {
		Stm one = *s;
		one.target = x;
		one.value = y;
		build_symvar_decl(b, &one, w);
	}
	return true;
}

/*
 * `a, b = VALUE` (a tuple-valued call, as TVMScript accepts it): the value
 * bound to a fresh var, then a = lv[0], b = lv[1], as TVM's parser emits it.
 * True when s is such an assignment (handled, errors reported).
 */
static bool
build_unpack(B *b, Stm *s)
{
	if (s->target->kind != X_TUPLE || s->ann || !s->value || s->target->n == 0)
		return false;
	for (Syn *x = s->target->items; x; x = x->next)
		if (x->kind != X_NAME)
			return false;
	if (s->value->kind == X_TUPLE) /* m, n = T.int64(), T.int64() and the like */
		return false;
	Expr *e = conv_value(b, s->value);
	Expr *t = e ? (is_leaf(e) ? e : bind_fresh(b, e, "lv", &b->lv_next)) : NULL;
	int i = 0;
	for (Syn *x = s->target->items; x; x = x->next, i++) {
		if (!t) {
			bind_poisoned(b, x->s, x->span);
			continue;
		}
		Expr *g = ir_expr(b->m, E_TUPLE_GET, x->span);
		g->tget.tuple = t;
		g->tget.index = i;
		Var *v = ir_var(b->m, x->s, NULL, b->sb->df, x->span);
		emit(b, ir_binding(b->m, v, g, s->span));
		bind_name(b, v);
	}
	return true;
}

/* `x = VALUE` or `x: SINFO = VALUE`. */
static void
build_assign(B *b, Stm *s, Where w)
{
	if (build_symvar_decls(b, s, w) || build_unpack(b, s) || !check_target(b, s))
		return;
	Syn *x = s->value;
	if (x->kind == X_CALL && x->a->kind == X_ATTR &&
	    x->a->a->kind == X_NAME && !strcmp(x->a->a->s, "T")) {
		build_symvar_decl(b, s, w);
		return;
	}
	if (x->kind == X_CALL && is_named(x, "R.match_cast")) {
		Var *y = build_match_cast(b, s);
		if (y)
			bind_name(b, y);
		else
			bind_poisoned(b, s->target->s, s->target->span);
		return;
	}
	Expr *e = conv_value(b, x);
	SInfo *ann = s->ann ? conv_sinfo(b, s->ann, false) : NULL;
	if (!e || (s->ann && !ann)) {
		bind_poisoned(b, s->target->s, s->target->span);
		return;
	}
	Var *v = ir_var(b->m, s->target->s, ann, b->sb->df, s->target->span);
	Binding *bd = ir_binding(b->m, v, e, s->span);
	bd->annotated = ann != NULL;
	emit(b, bd);
	bind_name(b, v);
}

/* R.func_attr({"key": value, ...}). */
static void
build_func_attr(B *b, Syn *x)
{
	Syn *d = one_arg(b, x, "R.func_attr");
	if (!d)
		return;
	if (d->kind != X_DICT) {
		diag_error(b->d, d->span, "R.func_attr takes a dict");
		return;
	}
	for (Syn *k = d->items; k && k->next; k = k->next->next) {
		Syn *v = k->next;
		if (k->kind != X_STR) {
			diag_error(b->d, k->span, "attribute names are strings");
			continue;
		}
		FuncAttr *fa = ARENA_NEW(&b->m->arena, FuncAttr);
		fa->key = arena_strdup(&b->m->arena, k->s);
		double f;
		bool isf = false;
		if (v->kind == X_TRUE || v->kind == X_FALSE) {
			fa->val.kind = AV_BOOL;
			fa->val.i = v->kind == X_TRUE;
		} else if (v->kind == X_STR) {
			fa->val.kind = AV_STR;
			fa->val.s = arena_strdup(&b->m->arena, v->s);
		} else if (int_lit(v, &fa->val.i)) {
			fa->val.kind = AV_INT;
		} else if (num_lit(v, &f, &isf)) {
			fa->val.kind = AV_FLOAT;
			fa->val.f = f;
		} else if (v->kind == X_DICT || v->kind == X_LIST ||
			   v->kind == X_TUPLE || v->kind == X_CALL ||
			   v->kind == X_NONE) {
			/* {"s27": 2}, T.int64(65536): kept as text */
			StrBuf t = {0};
			bool ok = syn_text(&t, v);
			fa->val.kind = AV_RAW;
			fa->val.s = arena_strdup(&b->m->arena, t.p ? t.p : "");
			sb_free(&t);
			if (!ok) {
				diag_error(b->d, v->span,
					   "an attribute value must be a Python literal (a number, string, bool, None, or a list, tuple or dict of them)");
				continue;
			}
		} else {
			diag_error(b->d, v->span,
				   "an attribute value must be an integer, float, string or bool");
			continue;
		}
		for (int i = 0; i < b->attrs.n; i++) {
			FuncAttr *o = b->attrs.items[i];
			if (!strcmp(o->key, fa->key)) {
				diag_error(b->d, k->span, "duplicate attribute '%s'",
					   fa->key);
				fa = NULL;
				break;
			}
		}
		if (fa)
			vec_push(&b->attrs, fa);
	}
}

/* R.output(a, b): the named variables of the block leave it. */
static void
build_output(B *b, Syn *x)
{
	for (Syn *a = x->items; a; a = a->next) {
		if (a->kind != X_NAME) {
			diag_error(b->d, a->span, "R.output takes variable names");
			continue;
		}
		Entry *e = find_entry(b, a->s);
		if (e && e->index < b->df_mark)
			e = NULL; /* not defined in this block */
		if (!e)
			diag_error(b->d, a->span,
				   "R.output: '%s' is not defined in this dataflow block",
				   a->s);
		else
			e->var->dataflow = false;
	}
}

/* with R.dataflow(): a dataflow block. */
static void
build_with(B *b, Stm *s, Where w)
{
	if (!is_named(s->value, "R.dataflow") || s->value->kind != X_CALL ||
	    s->value->n) {
		diag_error(b->d, s->value->span,
			   "only 'with R.dataflow():' is supported");
		return;
	}
	if (w == W_DF) {
		diag_error(b->d, s->span, "dataflow blocks cannot be nested");
		return;
	}
	close_block(b);
	b->sb->df = true;
	b->sb->span = s->span;
	int mark = b->df_mark;
	b->df_mark = b->scope.n;
	build_stmts(b, s->body, NULL, W_DF);
	for (int i = b->df_mark; i < b->scope.n; i++) {
		Entry *e = b->scope.items[i];
		e->dead = e->var->dataflow;
	}
	b->df_mark = mark;
	close_block(b);
	b->sb->span = (Span){0};
}

/*
 * One branch of an if: its statements, the last of which assigns y; the
 * result is an E_SEQ. *last gets that statement.
 */
static Expr *
build_branch(B *b, Stm *body, Stm **last)
{
	SeqB sb = {0}, *outer = b->sb;
	b->sb = &sb;
	Stm *l = body;
	while (l->next)
		l = l->next;
	*last = l;
	build_stmts(b, body, l, W_BRANCH);
	Expr *res = NULL;
	if (l->kind != S_ASSIGN) {
		diag_error(b->d, l->span,
			   "the last statement of an if branch must assign the if's variable");
	} else if (check_target(b, l)) {
		if (l->value->kind == X_CALL && is_named(l->value, "R.match_cast")) {
			Var *y = build_match_cast(b, l);
			if (y)
				res = ir_var_ref(b->m, y, l->target->span);
		} else {
			Expr *e = conv_value(b, l->value);
			SInfo *ann = l->ann ? conv_sinfo(b, l->ann, false) : NULL;
			if (e && is_leaf(e)) {
				res = e;
			} else if (e && (!l->ann || ann)) {
				Var *y = ir_var(b->m, l->target->s, ann, false,
						l->target->span);
				Binding *bd = ir_binding(b->m, y, e, l->span);
				bd->annotated = ann != NULL;
				emit(b, bd);
				res = ir_var_ref(b->m, y, l->target->span);
			}
		}
	}
	Expr *seq = finish_seq(b, res, body->span);
	vec_free(&sb.blocks);
	vec_free(&sb.cur);
	b->sb = outer;
	return res ? seq : NULL;
}

/* if c: ... else: ...: the binding y = If(c, then, else). */
static void
build_if(B *b, Stm *s, Where w)
{
	if (w == W_DF) {
		diag_error(b->d, s->span, "if is not allowed inside a dataflow block");
		return;
	}
	if (!s->orelse) {
		diag_error(b->d, s->span, "if without else is not supported");
		return;
	}
	Syn *cx = s->value;
	/* if N == 16: a comparison of symbolic dims is a bool prim value */
	Expr *cond = cx->kind == X_BIN && PE_IS_CMP(cx->op) ? conv_prim(b, cx)
							    : conv_leaf(b, cx);
	int mark = b->scope.n;
	Stm *lt, *le;
	Expr *then_ = build_branch(b, s->body, &lt);
	scope_truncate(b, mark);
	Expr *else_ = build_branch(b, s->orelse, &le);
	scope_truncate(b, mark);
	if (!cond || !then_ || !else_) {
		if (lt->kind == S_ASSIGN && lt->target->kind == X_NAME)
			bind_poisoned(b, lt->target->s, lt->target->span);
		return;
	}
	if (strcmp(lt->target->s, le->target->s)) {
		diag_error(b->d, le->target->span,
			   "both branches of an if must assign the same variable ('%s' and '%s')",
			   lt->target->s, le->target->s);
		bind_poisoned(b, lt->target->s, lt->target->span);
		return;
	}
	Expr *e = ir_expr(b->m, E_IF, s->span);
	e->if_.cond = cond;
	e->if_.then_ = then_;
	e->if_.else_ = else_;
	Var *y = ir_var(b->m, lt->target->s, NULL, false, lt->target->span);
	emit(b, ir_binding(b->m, y, e, s->span));
	bind_name(b, y);
}

/* `return VALUE`: the function's result, a leaf. */
static Expr *
build_return(B *b, Stm *s)
{
	if (!s->value) {
		diag_error(b->d, s->span, "return needs a value");
		return NULL;
	}
	Expr *e = conv_value(b, s->value);
	if (e && !is_leaf(e))
		e = bind_fresh(b, e, "gv", &b->gv_next);
	return e;
}

/*
 * Whether s is `cls = NAME`, the alias of the module class that TVM's
 * printer writes at the top of a function body (`cls = Module`): accepted
 * and ignored, whatever NAME is, unless NAME is a variable in scope.
 */
static bool
is_cls_alias(B *b, const Stm *s)
{
	return s->target->kind == X_NAME && !strcmp(s->target->s, "cls") &&
	       !s->ann && s->value && s->value->kind == X_NAME &&
	       !find_entry(b, s->value->s);
}

/*
 * The statements from s up to (not including) stop. At function level,
 * returns the returned value (NULL when none).
 */
static Expr *
build_stmts(B *b, Stm *s, Stm *stop, Where w)
{
	Expr *ret = NULL;
	bool returned = false;
	for (; s && s != stop; s = s->next) {
		if (returned) {
			diag_error(b->d, s->span, "statement after return");
			break;
		}
		switch (s->kind) {
		case S_ASSIGN:
			if (!is_cls_alias(b, s))
				build_assign(b, s, w);
			break;
		case S_EXPR:
			if (s->value->kind == X_STR) {
				/* a docstring or a bare string: no effect */
			} else if (s->value->kind == X_CALL &&
			    is_named(s->value, "R.func_attr")) {
				if (w != W_FUNC)
					diag_error(b->d, s->span,
						   "R.func_attr must be at the top level of a function");
				else
					build_func_attr(b, s->value);
			} else if (s->value->kind == X_CALL &&
				   is_named(s->value, "R.output")) {
				if (w != W_DF)
					diag_error(b->d, s->span,
						   "R.output outside a dataflow block");
				else {
					/* the outputs leave the block even
					 * after an error: no follow-on errors */
					Stm *n = s->next;
					if (n && n->kind == S_EXPR &&
					    is_named(n->value, "R.output"))
						diag_error(b->d, n->span,
							   "a second R.output in this dataflow block: name all the outputs in one R.output(a, b, ...)");
					else if (n && n->kind != S_RETURN)
						diag_error(b->d, n->span,
							   "statement after R.output: R.output must be the last statement of a dataflow block");
					build_output(b, s->value);
				}
			} else if (s->value->kind == X_CALL &&
				   is_named(s->value, "T.prim_func")) {
				diag_error(b->d, s->span, "T.prim_func is not supported by rlx");
			} else if (s->value->kind == X_CALL) {
				/* R.print(x): a binding of an unused `_`, as
				 * TVM's parser emits it */
				Stm a = *s;
				a.kind = S_ASSIGN;
				a.target = syn_new(b->ps, X_NAME, s->value->span);
				a.target->s = "_";
				a.ann = NULL;
				build_assign(b, &a, w);
			} else {
				diag_error(b->d, s->span,
					   "an expression statement has no effect; assign its value to a name");
			}
			break;
		case S_RETURN:
			if (w == W_DF) {
				diag_error(b->d, s->span,
					   "return inside a dataflow block: end the block with R.output(...) and return after it, outside the 'with'");
				b->stray_return = true;
				break;
			}
			if (w != W_FUNC) {
				diag_error(b->d, s->span,
					   "return inside an if branch: the last statement of each branch must assign the if's variable; return it after the if");
				break;
			}
			ret = build_return(b, s);
			returned = true;
			break;
		case S_IF:
			build_if(b, s, w);
			break;
		case S_WITH:
			build_with(b, s, w);
			break;
		case S_PASS:
			break;
		case S_DEF:
			build_local_func(b, s);
			break;
		case S_IMPORT:
		case S_CLASS:
			diag_error(b->d, s->span, "%s is not supported inside a function",
				   s->kind == S_IMPORT ? "import" : "class");
			break;
		}
	}
	if (w == W_FUNC && !returned && b->f && !b->stray_return) {
		diag_error(b->d, b->f->span,
			   "function '%s' has no return statement (its last statement must be 'return VALUE')",
			   b->f->name);
	}
	return ret;
}

/* ----------------------------------------------------------- functions */

static bool func_decorators(B *b, Stm *s, Func *f);

/*
 * A def inside a function body: a local function, bound to a variable of
 * its name. Its body sees the names in scope (it may capture them); its
 * symbolic variables are the enclosing function's.
 */
static void
build_local_func(B *b, Stm *s)
{
	Func *g = ARENA_NEW(&b->m->arena, Func);
	g->name = arena_strdup(&b->m->arena, s->name);
	g->span = s->span;
	g->pure = true;
	if (!func_decorators(b, s, g)) {
		bind_poisoned(b, s->name, s->span);
		return;
	}
	Func *outer = b->f;
	SeqB *osb = b->sb;
	Vec oattrs = b->attrs;
	int odf = b->df_mark;
	bool oret = b->stray_return;
	int mark = b->scope.n;
	b->attrs = (Vec){0};
	b->stray_return = false;
	b->df_mark = mark;
	Vec params = {0};
	bool ok = true;
	for (Syn *p = s->params; p; p = p->next) {
		if (!p->a) {
			diag_error(b->d, p->span,
				   "parameter '%s' of '%s' must be annotated",
				   p->s, s->name);
			ok = false;
			continue;
		}
		SInfo *si = conv_sinfo(b, p->a, true);
		ok &= si != NULL;
		Var *v = ir_var(b->m, p->s, si, false, p->span);
		vec_push(&params, v);
		bind_name(b, v);
	}
	g->nparams = params.n;
	g->params = (Var **)vec_to_arena(&params, &b->m->arena);
	if (s->ann && !(g->ret = conv_sinfo(b, s->ann, true)))
		ok = false;
	b->f = g;
	SeqB sb = {0};
	b->sb = &sb;
	Expr *body = build_stmts(b, s->body, NULL, W_FUNC);
	g->body = finish_seq(b, body, s->span);
	vec_free(&sb.blocks);
	vec_free(&sb.cur);
	g->nattrs = b->attrs.n;
	g->attrs = ARENA_ARRAY(&b->m->arena, FuncAttr, b->attrs.n ? b->attrs.n : 1);
	for (int i = 0; i < b->attrs.n; i++)
		g->attrs[i] = *(FuncAttr *)b->attrs.items[i];
	vec_free(&b->attrs);
	b->attrs = oattrs;
	b->f = outer;
	b->sb = osb;
	b->df_mark = odf;
	b->stray_return = oret;
	scope_truncate(b, mark);
	if (!ok || !body) {
		bind_poisoned(b, s->name, s->span);
		return;
	}
	Expr *e = ir_expr(b->m, E_FUNC, s->span);
	e->fn = g;
	Var *v = ir_var(b->m, g->name, NULL, b->sb->df, s->span);
	emit(b, ir_binding(b->m, v, e, s->span));
	bind_name(b, v);
}

/* Reads @R.function(...) into f; false when the function is refused. */
static bool
func_decorators(B *b, Stm *s, Func *f)
{
	bool seen = false;
	for (Syn *x = s->decorators; x; x = x->next) {
		if (is_named(x, "T.prim_func")) {
			diag_error(b->d, x->span, "T.prim_func is not supported by rlx");
			return false;
		}
		if (!is_named(x, "R.function")) {
			const char *n = callee_name(b, x);
			diag_error(b->d, x->span, "unsupported decorator '@%s'",
				   n ? n : "...");
			return false;
		}
		seen = true;
		if (x->kind != X_CALL)
			continue;
		for (Syn *a = x->items; a; a = a->next) {
			bool is_bool = a->kind == X_KWARG &&
				       (a->a->kind == X_TRUE || a->a->kind == X_FALSE);
			if (is_bool && !strcmp(a->s, "private")) {
				f->is_private = a->a->kind == X_TRUE;
			} else if (is_bool && !strcmp(a->s, "pure")) {
				f->pure = a->a->kind == X_TRUE;
			} else {
				diag_error(b->d, a->span,
					   "expected private=True/False or pure=True/False");
				return false;
			}
		}
	}
	if (!seen)
		diag_error(b->d, s->span, "function '%s' needs the @R.function decorator",
			   s->name);
	return seen;
}

/* One @R.function of the module. */
static Func *
build_func(B *b, Stm *s)
{
	Func *f = ARENA_NEW(&b->m->arena, Func);
	f->name = arena_strdup(&b->m->arena, s->name);
	f->span = s->span;
	f->pure = true;
	if (!func_decorators(b, s, f))
		return NULL;
	b->f = f;
	scope_truncate(b, 0);
	idx_truncate(&b->used_ix, &b->used, 0, str_name);
	idx_truncate(&b->symvars_ix, &b->symvars, 0, symvar_name);
	b->attrs.n = 0;
	b->lv_next = b->gv_next = 0;
	b->df_mark = 0;
	b->stray_return = false;
	for (Syn *p = s->params; p; p = p->next)
		use_name(b, p->s);
	collect_names(b, s->body);
	/* As TVM's parser, the bare dimension names of every parameter's
	 * annotation are defined before any is read, so "m - 1" may come
	 * before the parameter whose shape says "m": a first reading of them
	 * all defines the names (its errors are dropped), the second is the
	 * real one. */
	Diags *real = b->d, *real_ps = b->ps->d, *scratch = rlx_diags_new();
	b->d = b->ps->d = scratch; /* dimension strings report through ps */
	for (Syn *p = s->params; p; p = p->next)
		if (p->a)
			(void)conv_sinfo(b, p->a, true);
	b->d = real;
	b->ps->d = real_ps;
	rlx_diags_free(scratch);
	Vec params = {0};
	for (Syn *p = s->params; p; p = p->next) {
		if (find_entry(b, p->s))
			diag_error(b->d, p->span,
				   "duplicate parameter '%s' in function '%s'",
				   p->s, s->name);
		if (!p->a) {
			diag_error(b->d, p->span,
				   "parameter '%s' of '%s' must be annotated",
				   p->s, s->name);
			bind_poisoned(b, p->s, p->span);
			continue;
		}
		SInfo *si = conv_sinfo(b, p->a, true);
		Var *v = ir_var(b->m, p->s, si, false, p->span);
		vec_push(&params, v);
		bind_name(b, v);
	}
	f->nparams = params.n;
	f->params = (Var **)vec_to_arena(&params, &b->m->arena);
	if (s->ann)
		f->ret = conv_sinfo(b, s->ann, true);
	SeqB sb = {0};
	b->sb = &sb;
	Expr *body = build_stmts(b, s->body, NULL, W_FUNC);
	f->body = finish_seq(b, body, s->span);
	vec_free(&sb.blocks);
	vec_free(&sb.cur);
	b->sb = NULL;
	f->nsymvars = b->symvars.n;
	f->symvars = (SymVar **)vec_to_arena(&b->symvars, &b->m->arena);
	idx_free(&b->symvars_ix); /* its Vec is empty now */
	f->nattrs = b->attrs.n;
	f->attrs = ARENA_ARRAY(&b->m->arena, FuncAttr, b->attrs.n ? b->attrs.n : 1);
	for (int i = 0; i < b->attrs.n; i++)
		f->attrs[i] = *(FuncAttr *)b->attrs.items[i];
	b->f = NULL;
	return f;
}

/* The @I.ir_module class: its functions. */
static void
build_class(B *b, Stm *cls)
{
	b->m->name = arena_strdup(&b->m->arena, cls->name);
	for (Stm *s = cls->body; s; s = s->next) {
		if (s->kind != S_DEF)
			continue;
		if (idx_find(&b->funcs_ix, &b->funcs, s->name, str_name))
			diag_error(b->d, s->span, "function '%s' is defined twice",
				   s->name);
		vec_push(&b->funcs, (void *)s->name);
		idx_push(&b->funcs_ix, &b->funcs, str_name);
	}
	Vec funcs = {0}, decls = {0};
	for (Stm *s = cls->body; s; s = s->next) {
		if (s->kind == S_PASS ||
		    (s->kind == S_EXPR && s->value->kind == X_STR))
			continue; /* pass, a docstring */
		if (s->kind == S_EXPR && s->value->kind == X_CALL &&
		    (is_named(s->value, "I.module_attrs") ||
		     is_named(s->value, "I.module_global_infos"))) {
			/* kept as their text, printed back after the class line */
			StrBuf t = {0};
			if (!syn_text(&t, s->value) || s->value->n != 1 ||
			    s->value->items->kind != X_DICT)
				diag_error(b->d, s->span,
					   "%s takes a dict of Python literals",
					   callee_name(b, s->value));
			else
				vec_push(&decls, arena_strdup(&b->m->arena, t.p));
			sb_free(&t);
			continue;
		}
		if (s->kind != S_DEF) {
			diag_error(b->d, s->span,
				   "only @R.function definitions may appear in an @I.ir_module class");
			continue;
		}
		Func *f = build_func(b, s);
		if (f)
			vec_push(&funcs, f);
	}
	b->m->nfuncs = funcs.n;
	b->m->funcs = (Func **)vec_to_arena(&funcs, &b->m->arena);
	b->m->ndecls = decls.n;
	b->m->decls = (const char **)vec_to_arena(&decls, &b->m->arena);
}

void
build_module(PState *ps)
{
	B b = {0};
	int errors = ps->d->nerrors;
	b.ps = ps;
	b.m = ps->m;
	b.d = ps->d;
	Stm *cls = NULL;
	for (Stm *s = ps->top; s; s = s->next) {
		switch (s->kind) {
		case S_IMPORT:
		case S_PASS:
			break;
		case S_EXPR:
			if (s->value->kind == X_STR)
				break; /* a docstring */
			diag_error(b.d, s->span,
				   "expected an @I.ir_module class at the top level");
			break;
		case S_CLASS: {
			bool ok = false;
			for (Syn *x = s->decorators; x; x = x->next)
				ok |= is_named(x, "I.ir_module") ||
				      is_named(x, "tvm.script.ir_module");
			if (!ok)
				diag_error(b.d, s->span,
					   "class '%s' needs the @I.ir_module decorator",
					   s->name);
			else if (cls)
				diag_error(b.d, s->span,
					   "only one @I.ir_module class per file");
			else
				cls = s;
			break;
		}
		case S_DEF: {
			Syn *x = s->decorators;
			while (x && !is_named(x, "T.prim_func"))
				x = x->next;
			if (x)
				diag_error(b.d, x->span, "T.prim_func is not supported by rlx");
			else
				diag_error(b.d, s->span,
					   "function '%s' must be inside an @I.ir_module class",
					   s->name);
			break;
		}
		default:
			diag_error(b.d, s->span,
				   "expected an @I.ir_module class at the top level");
			break;
		}
	}
	if (cls) {
		build_class(&b, cls);
	} else if (b.d->nerrors == errors) {
		Span sp = {1, 1, 1};
		diag_error(b.d, sp, "no @I.ir_module class in the file");
	}
	vec_free(&b.funcs);
	idx_free(&b.funcs_ix);
	vec_free(&b.scope);
	idx_free(&b.scope_ix);
	vec_free(&b.symvars);
	idx_free(&b.symvars_ix);
	vec_free(&b.used);
	idx_free(&b.used_ix);
	vec_free(&b.attrs);
}
