/*
 * build.c — the syntax tree to IR, with build_sinfo.c (dimensions and
 * struct-info annotations) and build_value.c (values, op calls matched
 * against the op table's signatures, normalization to A-normal form):
 * name resolution (shadowing, DataflowVar scopes, symbolic variables),
 * blocks, statements, functions and build_module. Every error is reported
 * at its node and building goes on, so that one run reports what it can.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

static Expr *build_stmts(B *b, Stm *s, Stm *stop, Where w);
static void build_local_func(B *b, Stm *s);

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
bool
bld_is_named(const Syn *x, const char *name)
{
	if (x->kind == X_CALL)
		x = x->a;
	StrBuf s = {0};
	bool ok = dotted(x, &s) && !strcmp(s.p, name);
	sb_free(&s);
	return ok;
}

/* The dotted name of a call's callee (or of x itself) in the tree arena. */
const char *
bld_callee_name(B *b, const Syn *x)
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
bool
bld_int_lit(const Syn *x, int64_t *out)
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
bool
bld_syn_text(StrBuf *out, const Syn *x)
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
		return bld_syn_text(out, x->a);
	case X_ATTR:
		if (!bld_syn_text(out, x->a))
			return false;
		sb_printf(out, ".%s", x->s);
		return true;
	case X_KWARG:
		sb_printf(out, "%s=", x->s);
		return bld_syn_text(out, x->a);
	case X_CALL:
		if (!bld_syn_text(out, x->a))
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
			if (!bld_syn_text(out, k))
				return false;
			sb_puts(out, ": ");
			if (!bld_syn_text(out, k->next))
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
		if (!bld_syn_text(out, y))
			return false;
	}
	if (x->kind == X_TUPLE && x->n == 1)
		sb_putc(out, ',');
	sb_puts(out, close);
	return true;
}

/* An integer in an int list: a literal, T.int64(3) or R.prim_value(3). */
bool
bld_int_item(const Syn *x, int64_t *out)
{
	if (bld_int_lit(x, out))
		return true;
	if (x->kind == X_CALL && x->n == 1 && x->items->kind != X_KWARG &&
	    (bld_is_named(x, "R.prim_value") || bld_is_named(x, "T.int64") ||
	     bld_is_named(x, "T.int32")))
		return bld_int_item(x->items, out);
	return false;
}

/* A number literal (int, float, float("inf"), math.inf, possibly
 * negated). */
bool
bld_num_lit(const Syn *x, double *out, bool *is_float)
{
	if (x->kind == X_ATTR && x->a->kind == X_NAME && !strcmp(x->a->s, "math") &&
	    (!strcmp(x->s, "inf") || !strcmp(x->s, "nan"))) {
		*out = x->s[0] == 'i' ? HUGE_VAL : NAN;
		*is_float = true;
		return true;
	}
	if (x->kind == X_NEG) {
		if (!bld_num_lit(x->a, out, is_float))
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
bool
bld_match_args(B *b, const Syn *call, const char *fname, const char *const *names,
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


/* -------------------------------------------------------- suggestions */

/*
 * The op name nearest to r (a name after `R.`), or NULL: the same name
 * in or out of `nn.` (R.relu is R.nn.relu), else an op that r begins
 * (R.permute), else the closest by edit distance over the op table
 * (whole names or their last parts).
 */
const char *
bld_suggest_op(B *b, const char *r)
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
	{"u16", "uint16"},    {"u32", "uint32"},     {"u64", "uint64"},
	{"e4m3_float8", "float8_e4m3fn"},            {"e5m2_float8", "float8_e5m2"},
	{"float8_e4m3", "float8_e4m3fn"},
	{"float8", NULL},     {"int4", NULL},
};

/* The dtype nearest to an unknown dtype string, or NULL. */
const char *
bld_suggest_dtype(const char *s)
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
		ix->prev = xrealloc(ix->prev, sizeof(int) * (size_t)ix->cap);
	}
	if (v->n * 2 > ix->nb) { /* grow, then index everything again */
		ix->nb = ix->nb ? ix->nb * 4 : 64;
		free(ix->head);
		ix->head = xcalloc((size_t)ix->nb, sizeof(int));
		for (int i = 0; i < v->n; i++)
			idx_link(ix, v, i, name);
	} else {
		idx_link(ix, v, v->n - 1, name);
	}
	ix->n = v->n;
}

/* Drops the items of v from n on, from the index and from v. */
void
bld_idx_truncate(NameIdx *ix, Vec *v, int n, NameOf name)
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
void *
bld_idx_find(const NameIdx *ix, const Vec *v, const char *name, NameOf nameof)
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

const char *
bld_str_name(const void *item)
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
	bld_idx_truncate(&b->scope_ix, &b->scope, n, entry_name);
}

static bool
name_used(B *b, const char *name)
{
	return bld_idx_find(&b->used_ix, &b->used, name, bld_str_name) != NULL;
}

static void
use_name(B *b, const char *name)
{
	/* only names that fresh() could make matter: keeps the list short */
	if (strncmp(name, "lv", 2) && strncmp(name, "gv", 2))
		return;
	if (!name_used(b, name)) {
		vec_push(&b->used, (void *)name);
		idx_push(&b->used_ix, &b->used, bld_str_name);
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
Entry *
bld_find_entry(B *b, const char *name)
{
	return bld_idx_find(&b->scope_ix, &b->scope, name, entry_name);
}

/* The symbolic variable of this function named name, or NULL. */
const char *
bld_symvar_name(const void *item)
{
	return ((const SymVar *)item)->name;
}

SymVar *
bld_find_symvar(B *b, const char *name)
{
	return bld_idx_find(&b->symvars_ix, &b->symvars, name, bld_symvar_name);
}

const DimConst *
bld_find_dimconst(B *b, const char *name)
{
	for (int i = b->dimconsts.n - 1; i >= 0; i--) {
		const DimConst *c = b->dimconsts.items[i];
		if (!strcmp(c->name, name))
			return c;
	}
	return NULL;
}

SymVar *
bld_define_symvar(B *b, const char *name, Span sp)
{
	SymVar *v = ir_symvar(b->m, name, sp);
	vec_push(&b->symvars, v);
	idx_push(&b->symvars_ix, &b->symvars, bld_symvar_name);
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
Var *
bld_lookup(B *b, const Syn *x)
{
	Entry *e = bld_find_entry(b, x->s);
	if (e && e->dead) {
		diag_error(b->d, x->span,
			   "'%s' is a DataflowVar of a dataflow block that has ended",
			   x->s);
		return NULL;
	}
	if (e)
		return e->var;
	if (bld_find_symvar(b, x->s))
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
Expr *
bld_bind_fresh(B *b, Expr *e, const char *prefix, int *next)
{
	Var *v = ir_var(b->m, fresh(b, prefix, next), NULL, b->sb->df, e->span);
	emit(b, ir_binding(b->m, v, e, e->span));
	return ir_var_ref(b->m, v, e->span);
}

/* ----------------------------------------------------------- statements */

/* `C = I.meta_var(T.int64(16))` (or I.meta_var(16)): TVMScript binds C
 * to the value, so C in a dimension is 16. */
static void
build_dimconst(B *b, Stm *s)
{
	Syn *x = s->value, *v = x->n == 1 ? x->items : NULL;
	int64_t n;
	if (v && v->kind == X_CALL && bld_is_named(v, "T.int64") && v->n == 1)
		v = v->items;
	if (!v || !bld_int_lit(v, &n)) {
		diag_error(b->d, x->span,
			   "I.meta_var here takes an integer or T.int64(N) (a constant dimension)");
		return;
	}
	if (s->ann) {
		diag_error(b->d, s->span, "a constant dimension takes no annotation");
		return;
	}
	DimConst *c = arena_alloc(&b->ps->ast, sizeof *c);
	c->name = s->target->s;
	c->value = n;
	vec_push(&b->dimconsts, c);
}

/* `n = T.int64()`: a symbolic variable of the function. */
static void
build_symvar_decl(B *b, Stm *s, Where w)
{
	Syn *x = s->value;
	if (bld_is_named(x, "I.meta_var")) {
		build_dimconst(b, s);
		return;
	}
	if (!bld_is_named(x, "T.int64")) {
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
	if (!bld_find_symvar(b, s->target->s))
		bld_define_symvar(b, s->target->s, s->target->span);
}

/* `y = R.match_cast(x, SINFO)`. */
static Var *
build_match_cast(B *b, Stm *s)
{
	static const char *const names[] = {"value", "struct_info"};
	Syn *arg[2];
	if (!bld_match_args(b, s->value, "R.match_cast", names, 2, arg))
		return NULL;
	if (!arg[0] || !arg[1]) {
		diag_error(b->d, s->value->span,
			   "R.match_cast needs a value and a struct info");
		return NULL;
	}
	Expr *v = bld_conv_leaf(b, arg[0]);
	SInfo *cast = bld_conv_sinfo(b, arg[1], true);
	SInfo *ann = s->ann ? bld_conv_sinfo(b, s->ann, false) : NULL;
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
		bool names = true;
		for (Syn *x = s->target->items; x; x = x->next)
			names &= x->kind == X_NAME;
		diag_error(b->d, s->target->span, s->ann
			   ? "an unpacking assignment cannot be annotated"
			   : !names ? "only names can be unpacked into (a, b = R.split(...))"
			   : "a tuple written out unpacks only into declarations "
			     "(m, n = T.int64(), T.int64(); C = I.meta_var(T.int64(16)))");
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
		    !(bld_is_named(y, "T.int64") || bld_is_named(y, "I.meta_var")))
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
	Expr *e = bld_conv_value(b, s->value);
	Expr *t = e ? (ir_is_leaf(e) ? e : bld_bind_fresh(b, e, "lv", &b->lv_next)) : NULL;
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
	if (x->kind == X_CALL && bld_is_named(x, "I.meta_var")) {
		build_symvar_decl(b, s, w);
		return;
	}
	if (x->kind == X_CALL && bld_is_named(x, "R.match_cast")) {
		Var *y = build_match_cast(b, s);
		if (y)
			bind_name(b, y);
		else
			bind_poisoned(b, s->target->s, s->target->span);
		return;
	}
	Expr *e = bld_conv_value(b, x);
	SInfo *ann = s->ann ? bld_conv_sinfo(b, s->ann, false) : NULL;
	if (!e || (s->ann && !ann)) {
		bind_poisoned(b, s->target->s, s->target->span);
		return;
	}
	Var *v = ir_var(b->m, s->target->s, ann, b->sb->df, s->target->span);
	Binding *bd = ir_binding(b->m, v, e, s->span);
	bd->annotated = ann != NULL;
	bd->bare = s->bare;
	emit(b, bd);
	bind_name(b, v);
}

/* R.func_attr({"key": value, ...}). */
static void
build_func_attr(B *b, Syn *x)
{
	Syn *d = bld_one_arg(b, x, "R.func_attr");
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
		} else if (bld_int_lit(v, &fa->val.i)) {
			fa->val.kind = AV_INT;
		} else if (bld_num_lit(v, &f, &isf)) {
			fa->val.kind = AV_FLOAT;
			fa->val.f = f;
		} else if (v->kind == X_DICT || v->kind == X_LIST ||
			   v->kind == X_TUPLE || v->kind == X_CALL ||
			   v->kind == X_NONE) {
			/* {"s27": 2}, T.int64(65536): kept as text */
			StrBuf t = {0};
			bool ok = bld_syn_text(&t, v);
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
		Entry *e = bld_find_entry(b, a->s);
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
	if (!bld_is_named(s->value, "R.dataflow") || s->value->kind != X_CALL ||
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
 * A call standing alone as a statement (R.print(x)), as the assignment to
 * `_` TVM's parser makes of it; `bare` has inference check that the call
 * has no result.
 */
static Stm *
bare_call(B *b, Stm *s)
{
	Stm *a = stm_new(b->ps, S_ASSIGN, s->span);
	*a = *s;
	a->kind = S_ASSIGN;
	a->target = syn_new(b->ps, X_NAME, s->value->span);
	a->target->s = "_";
	a->ann = NULL;
	a->bare = true;
	return a;
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
	Stm *dl = NULL; /* a branch ending in a dataflow block: its last assignment */
	if (l->kind == S_WITH && l->value && bld_is_named(l->value, "R.dataflow"))
		for (Stm *t = l->body; t; t = t->next)
			if (t->kind == S_ASSIGN && t->target->kind == X_NAME)
				dl = t;
	if (dl) {
		/* TVM: the branch's value is the variable its last binding
		 * defines, here an output of the block */
		build_stmts(b, body, NULL, W_BRANCH);
		Entry *en = bld_find_entry(b, dl->target->s);
		Expr *res = NULL;
		*last = dl;
		if (!en || en->dead)
			diag_error(b->d, dl->target->span,
				   "'%s' ends the branch but is not an output of its dataflow "
				   "block (R.output(%s))", dl->target->s, dl->target->s);
		else
			res = ir_var_ref(b->m, en->var, dl->target->span);
		Expr *seq = finish_seq(b, res, body->span);
		vec_free(&sb.blocks);
		vec_free(&sb.cur);
		b->sb = outer;
		return res ? seq : NULL;
	}
	build_stmts(b, body, l, W_BRANCH);
	if (l->kind == S_EXPR && l->value->kind == X_CALL &&
	    !bld_is_named(l->value, "R.output") &&
	    !bld_is_named(l->value, "R.func_attr") &&
	    !bld_is_named(l->value, "T.prim_func"))
		/* `_` also names the branch's value and the if's variable */
		*last = l = bare_call(b, l);
	Expr *res = NULL;
	if (l->kind != S_ASSIGN) {
		diag_error(b->d, l->span,
			   "the last statement of an if branch must assign the if's variable");
	} else if (check_target(b, l)) {
		if (l->value->kind == X_CALL && bld_is_named(l->value, "R.match_cast")) {
			Var *y = build_match_cast(b, l);
			if (y)
				res = ir_var_ref(b->m, y, l->target->span);
		} else {
			Expr *e = bld_conv_value(b, l->value);
			SInfo *ann = l->ann ? bld_conv_sinfo(b, l->ann, false) : NULL;
			if (e && ir_is_leaf(e)) {
				res = e;
			} else if (e && (!l->ann || ann)) {
				Var *y = ir_var(b->m, l->target->s, ann, false,
						l->target->span);
				Binding *bd = ir_binding(b->m, y, e, l->span);
				bd->annotated = ann != NULL;
				bd->bare = l->bare;
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
	Expr *cond = cx->kind == X_BIN && PE_IS_CMP(cx->op) ? bld_conv_prim(b, cx)
							    : bld_conv_leaf(b, cx);
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
	Expr *e = bld_conv_value(b, s->value);
	if (e && !ir_is_leaf(e))
		e = bld_bind_fresh(b, e, "gv", &b->gv_next);
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
	       !bld_find_entry(b, s->value->s);
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
			    bld_is_named(s->value, "R.func_attr")) {
				if (w != W_FUNC)
					diag_error(b->d, s->span,
						   "R.func_attr must be at the top level of a function");
				else
					build_func_attr(b, s->value);
			} else if (s->value->kind == X_CALL &&
				   bld_is_named(s->value, "R.output")) {
				if (w != W_DF)
					diag_error(b->d, s->span,
						   "R.output outside a dataflow block");
				else {
					/* the outputs leave the block even
					 * after an error: no follow-on errors */
					Stm *n = s->next;
					if (n && n->kind == S_EXPR &&
					    bld_is_named(n->value, "R.output"))
						diag_error(b->d, n->span,
							   "a second R.output in this dataflow block: name all the outputs in one R.output(a, b, ...)");
					else if (n && n->kind != S_RETURN)
						diag_error(b->d, n->span,
							   "statement after R.output: R.output must be the last statement of a dataflow block");
					build_output(b, s->value);
				}
			} else if (s->value->kind == X_CALL &&
				   bld_is_named(s->value, "T.prim_func")) {
				diag_error(b->d, s->span, "T.prim_func is not supported by rlx");
			} else if (s->value->kind == X_CALL) {
				build_assign(b, bare_call(b, s), w);
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
		case S_FOR:
			diag_error(b->d, s->span,
				   "'for' is not supported in a Relax function (loops are TIR: write them in a @T.prim_func)");
			break;
		case S_AUG:
			diag_error(b->d, s->span,
				   "'%s=' is not supported in a Relax function (bind a new name: y = x %s z)",
				   syn_op_text(s->op), syn_op_text(s->op));
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
		SInfo *si = bld_conv_sinfo(b, p->a, true);
		ok &= si != NULL;
		Var *v = ir_var(b->m, p->s, si, false, p->span);
		vec_push(&params, v);
		bind_name(b, v);
	}
	g->nparams = params.n;
	g->params = (Var **)vec_to_arena(&params, &b->m->arena);
	if (s->ann && !(g->ret = bld_conv_sinfo(b, s->ann, true)))
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
		if (bld_is_named(x, "T.prim_func")) {
			diag_error(b->d, x->span, "T.prim_func is not supported by rlx");
			return false;
		}
		if (!bld_is_named(x, "R.function")) {
			const char *n = bld_callee_name(b, x);
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
	bld_idx_truncate(&b->used_ix, &b->used, 0, bld_str_name);
	bld_idx_truncate(&b->symvars_ix, &b->symvars, 0, bld_symvar_name);
	b->dimconsts.n = 0;
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
			(void)bld_conv_sinfo(b, p->a, true);
	b->d = real;
	b->ps->d = real_ps;
	rlx_diags_free(scratch);
	Vec params = {0};
	for (Syn *p = s->params; p; p = p->next) {
		if (bld_find_entry(b, p->s))
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
		SInfo *si = bld_conv_sinfo(b, p->a, true);
		Var *v = ir_var(b->m, p->s, si, false, p->span);
		vec_push(&params, v);
		bind_name(b, v);
	}
	f->nparams = params.n;
	f->params = (Var **)vec_to_arena(&params, &b->m->arena);
	if (s->ann)
		f->ret = bld_conv_sinfo(b, s->ann, true);
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
		if (bld_idx_find(&b->funcs_ix, &b->funcs, s->name, bld_str_name))
			diag_error(b->d, s->span, "function '%s' is defined twice",
				   s->name);
		vec_push(&b->funcs, (void *)s->name);
		idx_push(&b->funcs_ix, &b->funcs, bld_str_name);
	}
	Vec funcs = {0}, decls = {0}, prims = {0};
	for (Stm *s = cls->body; s; s = s->next) {
		if (s->kind == S_PASS ||
		    (s->kind == S_EXPR && s->value->kind == X_STR))
			continue; /* pass, a docstring */
		if (s->kind == S_EXPR && s->value->kind == X_CALL &&
		    (bld_is_named(s->value, "I.module_attrs") ||
		     bld_is_named(s->value, "I.module_global_infos"))) {
			/* kept as their text, printed back after the class line */
			StrBuf t = {0};
			if (!bld_syn_text(&t, s->value) || s->value->n != 1 ||
			    s->value->items->kind != X_DICT)
				diag_error(b->d, s->span,
					   "%s takes a dict of Python literals",
					   bld_callee_name(b, s->value));
			else
				vec_push(&decls, arena_strdup(&b->m->arena, t.p));
			sb_free(&t);
			continue;
		}
		if (s->kind == S_ASSIGN && !s->ann && s->target->kind == X_NAME &&
		    s->value->kind == X_CALL && bld_is_named(s->value, "R.ExternFunc")) {
			/* `my_ext = R.ExternFunc("my_ext"[, R.Callable(...)])`: an
			 * external function of the module (TVM's ExternFunc member),
			 * kept as its text like the module attributes */
			Syn *a0 = s->value->n >= 1 ? s->value->items : NULL;
			Syn *a1 = a0 && s->value->n == 2 ? a0->next : NULL;
			StrBuf t = {0};
			if (!a0 || a0->kind != X_STR || s->value->n > 2 ||
			    (a1 && (a1->kind == X_KWARG || !bld_is_named(a1, "R.Callable")))) {
				diag_error(b->d, s->value->span, "R.ExternFunc takes the "
					   "function's name as a string and an optional R.Callable");
			} else if ((!a1 || bld_conv_sinfo(b, a1, false)) &&
				   bld_syn_text(&t, s->value)) {
				char *line = arena_printf(&b->m->arena, "%s = %s", s->target->s, t.p);
				vec_push(&decls, line);
			}
			sb_free(&t);
			continue;
		}
		if (s->kind != S_DEF) {
			diag_error(b->d, s->span,
				   "only @R.function definitions (and I.module_attrs, "
				   "I.module_global_infos, NAME = R.ExternFunc(...)) may appear "
				   "in an @I.ir_module class");
			continue;
		}
		bool tir = false;
		for (Syn *x = s->decorators; x; x = x->next)
			tir |= bld_is_named(x, "T.prim_func");
		if (tir) {
			PrimFunc *p = bld_prim_func(b, s);
			if (p)
				vec_push(&prims, p);
			continue;
		}
		Func *f = build_func(b, s);
		if (f)
			vec_push(&funcs, f);
	}
	b->m->nprims = prims.n;
	b->m->prims = (PrimFunc **)vec_to_arena(&prims, &b->m->arena);
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
				ok |= bld_is_named(x, "I.ir_module") ||
				      bld_is_named(x, "tvm.script.ir_module");
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
			while (x && !bld_is_named(x, "T.prim_func"))
				x = x->next;
			if (x)
				diag_error(b.d, x->span,
					   "a @T.prim_func must be inside an @I.ir_module class");
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
		for (Syn *x = cls->decorators; x; x = x->next)
			for (Syn *a = x->kind == X_CALL ? x->items : NULL; a; a = a->next)
				if (a->kind == X_KWARG && !strcmp(a->s, "s_tir") &&
				    a->a->kind == X_TRUE)
					b.m->s_tir = true;
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
	vec_free(&b.dimconsts);
	vec_free(&b.used);
	idx_free(&b.used_ix);
	vec_free(&b.attrs);
}
