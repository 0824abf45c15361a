/*
 * print.c — the printer: canonical TVMScript as docs/language.md fixes it.
 *
 * The printer never modifies the module. While printing a function it keeps
 * a table of printed names indexed by Var.id / SymVar.id (the ids share one
 * space per module), so that distinct variables sharing a name print as
 * `y`, `y_1`, ... and names that are not Python identifiers print between
 * backquotes (or, with PrintOpts.tvm_names, as plain identifiers). Names are
 * given in printing order: parameters, symbolic variables, then each binding
 * where it is first printed. Scratch memory (names, renamed dimension trees)
 * lives in a local arena freed at the end of each entry point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ------------------------------------------------------------- the state */

typedef struct {
	StrBuf *b;
	bool tvm_names;     /* plain identifiers instead of backquotes */
	Arena tmp;          /* printed names, renamed dimension trees */
	const char **names; /* printed name by id; NULL outside a function */
	int *uses;          /* E_VAR references by id, in the function */
	int nids;           /* length of names and uses */
	const char **names_tab; /* the module's tables behind names and uses, */
	int *uses_tab;          /* cleared after each function at the ids */
	IntVec touched;         /* it wrote (clearing them whole made
				 * printing O(functions x variables)) */
	NameMap used;       /* printed names taken in the function, each
			     * with the next suffix N to try for NAME_N */
	bool sig;           /* in the signature: symbolic dims as strings */
	int indent;         /* in levels of 4 spaces */
	bool in_df;         /* printing a dataflow block's bindings */
} Printer;

static void put_expr(Printer *p, const Expr *e);
static void put_def_func(Printer *p, const Func *f, int indent, const char *name);
static void put_block(Printer *p, const Block *blk, const Binding *skip);

/* ----------------------------------------------------------------- names */

static const char *const py_keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await",
	"break", "class", "continue", "def", "del", "elif", "else", "except",
	"finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
	"while", "with", "yield",
};

/* Names a function body must not take: they mean the modules and `cls`. */
static const char *const reserved_names[] = {"R", "T", "I", "cls"};

/* Whether c may appear in an identifier (ASCII only, as the lexer reads). */
static bool
is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Whether s is a Python keyword. */
static bool
is_keyword(const char *s)
{
	for (size_t i = 0; i < ARRAY_LEN(py_keywords); i++)
		if (!strcmp(s, py_keywords[i]))
			return true;
	return false;
}

/* Whether s can be written bare: an ASCII identifier and not a keyword. */
static bool
is_identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (const char *q = s; *q; q++)
		if (!is_ident_char(*q))
			return false;
	return !is_keyword(s);
}

/*
 * The base of a printed name, before uniquing: with tvm_names every
 * non-identifier character becomes `_` (a leading digit gets a `_` prefix, a
 * keyword a `_` suffix); otherwise the name itself, but for the two
 * characters backquotes cannot hold. An empty name becomes `v`.
 */
static void
name_base(StrBuf *out, const char *raw, bool tvm_names)
{
	if (!raw || !*raw) {
		sb_puts(out, "v");
		return;
	}
	if (tvm_names && *raw >= '0' && *raw <= '9')
		sb_putc(out, '_');
	for (const char *q = raw; *q; q++) {
		char c = *q;
		if (tvm_names ? !is_ident_char(c) : (c == '`' || c == '\n'))
			c = '_';
		sb_putc(out, c);
	}
	if (tvm_names && is_keyword(out->p))
		sb_putc(out, '_');
}

/* Writes a name as is, only made printable (function and class names). */
static void
put_plain_name(Printer *p, const char *raw)
{
	StrBuf t = {0};
	name_base(&t, raw, p->tvm_names);
	if (p->tvm_names || is_identifier(t.p)) {
		sb_puts(p->b, t.p);
	} else {
		sb_putc(p->b, '`');
		sb_puts(p->b, t.p);
		sb_putc(p->b, '`');
	}
	sb_free(&t);
}

/* A new printed name for raw, unique in the function, marked as taken. */
static const char *
fresh_name(Printer *p, const char *raw)
{
	StrBuf base = {0};
	name_base(&base, raw, p->tvm_names);
	const char *cand = arena_strdup(&p->tmp, base.p);
	int *next = namemap_get(&p->used, cand);
	if (next) {
		/* The suffixes below *next are taken already. */
		int i = *next;
		do
			cand = arena_printf(&p->tmp, "%s_%d", base.p, i++);
		while (namemap_get(&p->used, cand));
		*next = i;
	}
	sb_free(&base);
	namemap_add(&p->used, cand, 1);
	if (!p->tvm_names && !is_identifier(cand))
		cand = arena_printf(&p->tmp, "`%s`", cand);
	return cand;
}

/*
 * The printed name of the variable or symbolic variable `id` named raw,
 * given on first sight. NULL outside a function: then the caller writes raw.
 */
static const char *
name_of(Printer *p, int id, const char *raw)
{
	if (!p->names || id < 0 || id >= p->nids)
		return NULL;
	if (!p->names[id]) {
		ivec_push(&p->touched, id);
		p->names[id] = fresh_name(p, raw);
	}
	return p->names[id];
}

/* Writes a use or definition of v. */
static void
put_var(Printer *p, const Var *v)
{
	if (!v) {
		sb_puts(p->b, "?");
		return;
	}
	const char *raw = v->name ? v->name : "";
	const char *s = name_of(p, v->id, raw);
	if (s)
		sb_puts(p->b, s);
	else
		put_plain_name(p, raw);
}

/* --------------------------------------------------------------- scalars */

/* Writes s as a Python string literal with escapes. */
static void
put_quoted(StrBuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\\': sb_puts(b, "\\\\"); break;
		case '"': sb_puts(b, "\\\""); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\r': sb_puts(b, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(b, "\\x%02x", c);
			else
				sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

/* IEEE half-precision bits to float. */
static float
f16_to_float(uint16_t h)
{
	unsigned exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	float v;
	if (exp == 0)
		v = ldexpf((float)man, -24);
	else if (exp == 31)
		v = man ? NAN : INFINITY;
	else
		v = ldexpf((float)(man | 0x400), (int)exp - 25);
	return (h & 0x8000) ? -v : v;
}

/* bfloat16 bits to float: the high half of a float32. */
static float
bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* Writes the attribute value v in Python syntax. */
static void
put_attrval(StrBuf *b, const AttrVal *v)
{
	switch (v->kind) {
	case AV_NONE:
		sb_puts(b, "None");
		break;
	case AV_INT:
		sb_printf(b, "%lld", (long long)v->i);
		break;
	case AV_FLOAT:
		sb_put_float(b, v->f, false);
		break;
	case AV_BOOL:
		sb_puts(b, v->i ? "True" : "False");
		break;
	case AV_STR:
		put_quoted(b, v->s ? v->s : "", v->s ? strlen(v->s) : 0);
		break;
	case AV_DTYPE:
		sb_printf(b, "\"%s\"", dtype_name(v->dtype));
		break;
	case AV_INTS:
		sb_putc(b, '[');
		for (int i = 0; i < v->n; i++)
			sb_printf(b, "%s%lld", i ? ", " : "", (long long)v->ints[i]);
		sb_putc(b, ']');
		break;
	case AV_RAW:
		sb_puts(b, v->s ? v->s : "None");
		break;
	case AV_IMAP:
		sb_puts(b, "T.index_map(lambda ");
		for (int i = 0; i < v->nin; i++)
			sb_printf(b, "%s%s", i ? ", " : "", v->ivars[i]->name);
		sb_puts(b, ": (");
		for (int i = 0; i < v->n; i++) {
			if (i)
				sb_puts(b, ", ");
			pe_print(b, v->dims[i]);
		}
		sb_puts(b, v->n == 1 ? ",))" : "))");
		break;
	case AV_DIMS: /* messages only: put_call renames the variables */
		sb_putc(b, '[');
		for (int i = 0; i < v->n; i++) {
			if (i)
				sb_puts(b, ", ");
			pe_print(b, v->dims[i]);
		}
		sb_putc(b, ']');
		break;
	case AV_SINFO:
		sb_putc(b, '[');
		for (int i = 0; i < v->n; i++) {
			if (i)
				sb_puts(b, ", ");
			print_sinfo(b, v->sis[i]);
		}
		sb_putc(b, ']');
		break;
	}
}

/* --------------------------------------------------- symbolic dimensions */

/*
 * x with each symbolic variable carrying its printed name (a copy in the
 * scratch arena where a name differs; x itself otherwise), so that pe_print
 * writes the function's unique names.
 */
static const PExpr *
dim_rename(Printer *p, const PExpr *x)
{
	if (!x || !p->names)
		return x;
	if (x->kind == PE_INT)
		return x;
	if (x->kind == PE_VAR) {
		if (!x->var || !x->var->name)
			return x;
		const char *s = name_of(p, x->var->id, x->var->name);
		if (!s || !strcmp(s, x->var->name))
			return x;
		SymVar *v = ARENA_NEW(&p->tmp, SymVar);
		*v = *x->var;
		v->name = s;
		PExpr *c = ARENA_NEW(&p->tmp, PExpr);
		*c = *x;
		c->var = v;
		return c;
	}
	const PExpr *a = dim_rename(p, x->a), *b = dim_rename(p, x->b);
	if (a == x->a && b == x->b)
		return x;
	PExpr *c = ARENA_NEW(&p->tmp, PExpr);
	*c = *x;
	c->a = (PExpr *)a;
	c->b = (PExpr *)b;
	return c;
}

/* Writes a dimension: bare, or as a string in the signature unless an int. */
static void
put_dim(Printer *p, const PExpr *x)
{
	if (!x) {
		sb_puts(p->b, "?");
		return;
	}
	const PExpr *y = dim_rename(p, x);
	if (!p->sig || y->kind == PE_INT) {
		pe_print(p->b, y);
		return;
	}
	StrBuf t = {0};
	pe_print(&t, y);
	put_quoted(p->b, t.p ? t.p : "", t.len);
	sb_free(&t);
}

/* Writes n dimensions separated by ", ". */
static void
put_dims(Printer *p, PExpr *const *d, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(p->b, ", ");
		put_dim(p, d ? d[i] : NULL);
	}
}

/* ------------------------------------------------------------ struct info */

/* Writes struct info as an annotation (R.Any for NULL). */
static void
put_sinfo(Printer *p, const SInfo *si)
{
	StrBuf *b = p->b;
	if (!si) {
		sb_puts(b, "R.Any");
		return;
	}
	switch (si->kind) {
	case SI_OBJECT:
		sb_puts(b, "R.Any");
		break;
	case SI_PRIM:
		if (si->value && si->dtype != DT_I64) {
			/* a known value of another dtype: R.Prim(value=0)
			 * alone would read back as int64 */
			sb_printf(b, "R.Prim(\"%s\", value=",
				  dtype_name(si->dtype));
			put_dim(p, si->value);
			sb_putc(b, ')');
		} else if (si->value) {
			sb_puts(b, "R.Prim(value=");
			put_dim(p, si->value);
			sb_putc(b, ')');
		} else {
			sb_printf(b, "R.Prim(\"%s\")", dtype_name(si->dtype));
		}
		break;
	case SI_SHAPE:
		if (si->ndim >= 0 && si->shape) {
			sb_puts(b, "R.Shape([");
			put_dims(p, si->shape, si->ndim);
			sb_puts(b, "])");
		} else if (si->ndim >= 0) {
			sb_printf(b, "R.Shape(ndim=%d)", si->ndim);
		} else {
			sb_puts(b, "R.Shape");
		}
		break;
	case SI_TENSOR:
		if (si->ndim >= 0 && si->shape) {
			sb_puts(b, "R.Tensor((");
			put_dims(p, si->shape, si->ndim);
			sb_puts(b, si->ndim == 1 ? ",)" : ")");
			if (si->dtype != DT_UNKNOWN)
				sb_printf(b, ", dtype=\"%s\"", dtype_name(si->dtype));
			if (si->vdevice)
				sb_printf(b, ", vdevice=\"%s\"", si->vdevice);
			sb_putc(b, ')');
		} else if (si->dtype == DT_UNKNOWN && si->ndim < 0 && !si->vdevice) {
			sb_puts(b, "R.Tensor");
		} else {
			sb_puts(b, "R.Tensor(");
			const char *sep = "";
			if (si->dtype != DT_UNKNOWN) {
				sb_printf(b, "dtype=\"%s\"", dtype_name(si->dtype));
				sep = ", ";
			}
			if (si->ndim >= 0) {
				sb_printf(b, "%sndim=%d", sep, si->ndim);
				sep = ", ";
			}
			if (si->vdevice)
				sb_printf(b, "%svdevice=\"%s\"", sep, si->vdevice);
			sb_putc(b, ')');
		}
		break;
	case SI_TUPLE:
		if (!si->nfields) {
			sb_puts(b, "R.Tuple");
			break;
		}
		sb_puts(b, "R.Tuple(");
		for (int i = 0; i < si->nfields; i++) {
			if (i)
				sb_puts(b, ", ");
			put_sinfo(p, si->fields[i]);
		}
		sb_putc(b, ')');
		break;
	case SI_FUNC:
		sb_puts(b, "R.Callable((");
		for (int i = 0; i < si->nfields; i++) {
			if (i)
				sb_puts(b, ", ");
			put_sinfo(p, si->fields[i]);
		}
		sb_puts(b, si->nfields == 1 ? ",), " : "), ");
		put_sinfo(p, si->ret);
		if (!si->pure)
			sb_puts(b, ", purity=False");
		sb_putc(b, ')');
		break;
	}
}

/* ------------------------------------------------------------ expressions */

/* Writes element i of constant data of dtype t. */
static void
put_elem(StrBuf *b, DType t, const unsigned char *data, int64_t i)
{
	if (!data) {
		sb_puts(b, "0");
		return;
	}
	switch (t) {
	case DT_BOOL:
		sb_puts(b, data[i] ? "True" : "False");
		return;
	case DT_I8:
		sb_printf(b, "%d", (int)(int8_t)data[i]);
		return;
	case DT_U8:
		sb_printf(b, "%u", (unsigned)data[i]);
		return;
	case DT_F8E4M3:
	case DT_F8E5M2:
		sb_put_float(b, dtype_f8_decode(t, data[i]), true);
		return;
	case DT_U16: {
		uint16_t v;
		memcpy(&v, data + i * 2, sizeof v);
		sb_printf(b, "%u", (unsigned)v);
		return;
	}
	case DT_U32: {
		uint32_t v;
		memcpy(&v, data + i * 4, sizeof v);
		sb_printf(b, "%lu", (unsigned long)v);
		return;
	}
	case DT_U64: {
		uint64_t v;
		memcpy(&v, data + i * 8, sizeof v);
		sb_printf(b, "%llu", (unsigned long long)v);
		return;
	}
	case DT_I16: {
		int16_t v;
		memcpy(&v, data + i * 2, sizeof v);
		sb_printf(b, "%d", (int)v);
		return;
	}
	case DT_I32: {
		int32_t v;
		memcpy(&v, data + i * 4, sizeof v);
		sb_printf(b, "%ld", (long)v);
		return;
	}
	case DT_I64: {
		int64_t v;
		memcpy(&v, data + i * 8, sizeof v);
		sb_printf(b, "%lld", (long long)v);
		return;
	}
	case DT_F16:
	case DT_BF16: {
		uint16_t v;
		memcpy(&v, data + i * 2, sizeof v);
		sb_put_float(b, t == DT_F16 ? f16_to_float(v) : bf16_to_float(v),
			  true);
		return;
	}
	case DT_F32: {
		float v;
		memcpy(&v, data + i * 4, sizeof v);
		sb_put_float(b, v, true);
		return;
	}
	case DT_F64: {
		double v;
		memcpy(&v, data + i * 8, sizeof v);
		sb_put_float(b, v, false);
		return;
	}
	default:
		sb_puts(b, "0");
		return;
	}
}

/* Writes the constant's elements from dimension dim on as nested lists. */
static void
put_elems(StrBuf *b, const Expr *e, int dim, int64_t *off)
{
	if (dim >= e->cdata.ndim) {
		put_elem(b, e->cdata.dtype, e->cdata.data, (*off)++);
		return;
	}
	sb_putc(b, '[');
	for (int64_t i = 0; i < e->cdata.shape[dim]; i++) {
		if (i)
			sb_puts(b, ", ");
		put_elems(b, e, dim + 1, off);
	}
	sb_putc(b, ']');
}

/* Writes R.prim_value(...). */
static void
put_prim(Printer *p, const Expr *e)
{
	DType t = e->prim.dtype;
	sb_puts(p->b, "R.prim_value(");
	if (dtype_is_float(t)) {
		sb_printf(p->b, "T.%s(", dtype_name(t));
		sb_put_float(p->b, e->prim.f, false);
		sb_putc(p->b, ')');
	} else if (t == DT_I64 || t == DT_UNKNOWN ||
		   (t == DT_BOOL && e->prim.value && PE_IS_CMP(e->prim.value->kind))) {
		put_dim(p, e->prim.value);
	} else {
		sb_printf(p->b, "T.%s(", dtype_name(t));
		put_dim(p, e->prim.value);
		sb_putc(p->b, ')');
	}
	sb_putc(p->b, ')');
}

/* An attribute value; dimensions and struct info with the printed names. */
static void
put_attr(Printer *p, const OpParam *q, const AttrVal *v)
{
	if (v->kind == AV_DIMS) {
		sb_putc(p->b, '[');
		put_dims(p, v->dims, v->n);
		sb_putc(p->b, ']');
	} else if (v->kind == AV_SINFO) {
		bool tuple = q->kind == PK_SINFOS;
		if (v->n == 1 && !tuple) {
			put_sinfo(p, v->sis[0]);
			return;
		}
		sb_putc(p->b, tuple ? '(' : '[');
		for (int i = 0; i < v->n; i++) {
			if (i)
				sb_puts(p->b, ", ");
			put_sinfo(p, v->sis[i]);
		}
		sb_puts(p->b, tuple ? (v->n == 1 ? ",)" : ")") : "]");
	} else {
		put_attrval(p->b, v);
	}
}

/* An argument of a func parameter: an external function prints as its
 * name, as TVM writes it in a call. */
static void
put_arg(Printer *p, const OpParam *q, const Expr *a)
{
	if (q->kind == PK_FUNC && a && a->kind == E_EXTERN)
		put_quoted(p->b, a->str, strlen(a->str));
	else
		put_expr(p, a);
}

/*
 * Writes R.OP(args..., attr=value, ...) in the op's signature order:
 * expression parameters positionally while no attribute or variadic
 * parameter came before them (keywords after), every attribute as a
 * keyword.
 */
static void
put_call(Printer *p, const Expr *e)
{
	OpSig sig;
	op_sig(e->call.op, &sig);
	sb_printf(p->b, "R.%s(", op_info(e->call.op)->name);
	bool first = true, keyword = false;
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (q->is_attr) {
			keyword = true;
			continue;
		}
		int end = q->variadic ? e->call.nargs : q->slot + 1;
		if (!strcmp(q->name, "tir_vars") && q->slot < e->call.nargs &&
		    e->call.args[q->slot]->kind == E_TUPLE &&
		    e->call.args[q->slot]->tuple.n == 0) {
			keyword = true; /* left out when empty, as TVM prints it */
			continue;
		}
		for (int k = q->slot; k < end && k < e->call.nargs; k++) {
			if (!first)
				sb_puts(p->b, ", ");
			first = false;
			if (keyword)
				sb_printf(p->b, "%s=", q->name);
			put_arg(p, q, e->call.args[k]);
		}
		keyword |= q->variadic;
	}
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (!q->is_attr)
			continue;
		if (!first)
			sb_puts(p->b, ", ");
		first = false;
		sb_printf(p->b, "%s=", q->name);
		if (q->slot < e->call.nattrs)
			put_attr(p, q, &e->call.attrs[q->slot]);
		else
			sb_puts(p->b, q->has_default ? q->def_text : "None");
	}
	sb_putc(p->b, ')');
}

/* Writes one expression on one line. */
static void
put_expr(Printer *p, const Expr *e)
{
	StrBuf *b = p->b;
	if (!e) {
		sb_puts(b, "?");
		return;
	}
	switch (e->kind) {
	case E_VAR:
		put_var(p, e->var);
		break;
	case E_CONST: {
		int64_t off = 0;
		sb_puts(b, "R.const(");
		put_elems(b, e, 0, &off);
		sb_printf(b, ", \"%s\")", dtype_name(e->cdata.dtype));
		break;
	}
	case E_TUPLE:
		sb_putc(b, '(');
		for (int i = 0; i < e->tuple.n; i++) {
			if (i)
				sb_puts(b, ", ");
			put_expr(p, e->tuple.items[i]);
		}
		sb_puts(b, e->tuple.n == 1 ? ",)" : ")");
		break;
	case E_TUPLE_GET:
		put_expr(p, e->tget.tuple);
		sb_printf(b, "[%d]", e->tget.index);
		break;
	case E_SHAPE:
		sb_puts(b, "R.shape([");
		put_dims(p, e->shape.values, e->shape.n);
		sb_puts(b, "])");
		break;
	case E_PRIM:
		put_prim(p, e);
		break;
	case E_STR:
		sb_puts(b, e->dtype_imm ? "R.dtype(" : "R.str(");
		put_quoted(b, e->str ? e->str : "", e->str ? strlen(e->str) : 0);
		sb_putc(b, ')');
		break;
	case E_CALL:
		put_call(p, e);
		break;
	case E_EXTERN:
		sb_puts(b, "R.ExternFunc(");
		put_quoted(b, e->str, strlen(e->str));
		sb_putc(b, ')');
		break;
	case E_GLOBAL:
		sb_puts(b, "cls.");
		put_plain_name(p, e->str ? e->str : "");
		break;
	case E_CALL_FN:
		sb_puts(b, "cls.");
		put_plain_name(p, e->callfn.callee ? e->callfn.callee : "");
		sb_putc(b, '(');
		for (int i = 0; i < e->callfn.nargs; i++) {
			if (i)
				sb_puts(b, ", ");
			put_expr(p, e->callfn.args[i]);
		}
		sb_putc(b, ')');
		break;
	case E_FUNC: /* only in messages; bindings print the def */
		sb_printf(b, "<function %s>", e->fn->name ? e->fn->name : "");
		break;
	case E_CALL_VAR:
		put_expr(p, e->callv.fn);
		sb_putc(b, '(');
		for (int i = 0; i < e->callv.nargs; i++) {
			if (i)
				sb_puts(b, ", ");
			put_expr(p, e->callv.args[i]);
		}
		sb_putc(b, ')');
		break;
	case E_IF: /* only in messages; bindings print the statement form */
		sb_putc(b, '(');
		put_expr(p, e->if_.then_);
		sb_puts(b, " if ");
		put_expr(p, e->if_.cond);
		sb_puts(b, " else ");
		put_expr(p, e->if_.else_);
		sb_putc(b, ')');
		break;
	case E_SEQ:
		put_expr(p, e->seq.body);
		break;
	}
}

/* ---------------------------------------------------------------- bodies */

/* Writes the indentation of the current level. */
static void
put_indent(Printer *p)
{
	for (int i = 0; i < p->indent; i++)
		sb_puts(p->b, "    ");
}

/* Writes `NAME: SINFO = ` at the current indentation. */
static void
put_def(Printer *p, const Var *v)
{
	put_indent(p);
	put_var(p, v);
	sb_puts(p->b, ": ");
	put_sinfo(p, v ? v->sinfo : NULL);
	sb_puts(p->b, " = ");
}

/* Writes a binding's value: the expression, or R.match_cast(value, SINFO). */
static void
put_value(Printer *p, const Binding *bd)
{
	if (!bd->cast) {
		put_expr(p, bd->value);
		return;
	}
	sb_puts(p->b, "R.match_cast(");
	put_expr(p, bd->value);
	sb_puts(p->b, ", ");
	put_sinfo(p, bd->cast);
	sb_putc(p->b, ')');
}

/* Whether a and b print as the same annotation. */
static bool
same_sinfo_text(Printer *p, const SInfo *a, const SInfo *b)
{
	StrBuf ta = {0}, tb = {0};
	StrBuf *out = p->b;
	p->b = &ta;
	put_sinfo(p, a);
	p->b = &tb;
	put_sinfo(p, b);
	p->b = out;
	bool same = ta.len == tb.len && !memcmp(ta.p, tb.p, ta.len);
	sb_free(&ta);
	sb_free(&tb);
	return same;
}

/*
 * The binding of a branch that is printed merged with the branch's result
 * line `y: SINFO = VALUE`: the last binding of the last (non-dataflow)
 * block, when it defines the variable the branch returns, nothing else
 * uses that variable, and its struct info prints as y's (the merged line
 * gives it y's annotation when read back: a branch's own annotation, more
 * precise than the if's join, keeps its binding and a result line), and
 * its value is not a bare variable.
 */
static const Binding *
merged_last(Printer *p, const Var *y, const Expr *seq)
{
	if (!p->uses || seq->seq.nblocks == 0)
		return NULL;
	const Expr *res = seq->seq.body;
	const Block *blk = seq->seq.blocks[seq->seq.nblocks - 1];
	if (!res || res->kind != E_VAR || !res->var || blk->dataflow ||
	    blk->n == 0)
		return NULL;
	const Binding *last = blk->bindings[blk->n - 1];
	/* `y = v` of a bare variable reads back as a branch returning v
	 * itself, without the binding: kept apart */
	if (last->var != res->var || !last->value ||
	    (last->value->kind == E_IF && !last->cast) ||
	    (last->value->kind == E_VAR && !last->cast))
		return NULL;
	int id = res->var->id;
	if (id < 0 || id >= p->nids || p->uses[id] != 1)
		return NULL;
	if (y && !same_sinfo_text(p, last->var->sinfo, y->sinfo))
		return NULL;
	return last;
}

/* Writes a branch of an if binding y, ending in `y: SINFO = RESULT`. */
static void
put_branch(Printer *p, const Var *y, const Expr *seq)
{
	p->indent++;
	if (!seq || seq->kind != E_SEQ) {
		put_def(p, y);
		put_expr(p, seq);
		sb_putc(p->b, '\n');
		p->indent--;
		return;
	}
	const Binding *last = merged_last(p, y, seq);
	for (int i = 0; i < seq->seq.nblocks; i++)
		put_block(p, seq->seq.blocks[i], last);
	put_def(p, y);
	if (last)
		put_value(p, last);
	else
		put_expr(p, seq->seq.body);
	sb_putc(p->b, '\n');
	p->indent--;
}

/* Writes one binding (an if binding as an if/else statement). */
static void
put_binding(Printer *p, const Binding *bd)
{
	if (bd->value && bd->value->kind == E_IF && !bd->cast) {
		const Expr *e = bd->value;
		name_of(p, bd->var ? bd->var->id : -1,
			bd->var ? bd->var->name : ""); /* before the branches */
		put_indent(p);
		sb_puts(p->b, "if ");
		put_expr(p, e->if_.cond);
		sb_puts(p->b, ":\n");
		put_branch(p, bd->var, e->if_.then_);
		put_indent(p);
		sb_puts(p->b, "else:\n");
		put_branch(p, bd->var, e->if_.else_);
		return;
	}
	if (!bd->cast && bd->value && bd->value->kind == E_FUNC && bd->var) {
		const char *name = name_of(p, bd->var->id, bd->var->name);
		put_def_func(p, bd->value->fn, p->indent, name);
		return;
	}
	const SInfo *si = bd->var ? bd->var->sinfo : NULL;
	if (!bd->cast && bd->value &&
	    (bd->value->kind == E_CALL || bd->value->kind == E_CALL_VAR ||
	     bd->value->kind == E_CALL_FN) && si &&
	    si->kind == SI_TUPLE && !si->nfields && p->uses &&
	    bd->var->id < p->nids && !p->uses[bd->var->id] &&
	    (!p->in_df || bd->var->dataflow)) {
		/* an unused result of nothing: TVM writes the call alone
		 * (R.print(...)), and the parser reads it back so */
		put_indent(p);
		put_value(p, bd);
		sb_putc(p->b, '\n');
		return;
	}
	put_def(p, bd->var);
	put_value(p, bd);
	sb_putc(p->b, '\n');
}

/* Writes a block; skip (if not NULL) is printed by the caller instead. */
static void
put_block(Printer *p, const Block *blk, const Binding *skip)
{
	if (!blk->dataflow) {
		for (int i = 0; i < blk->n; i++)
			if (blk->bindings[i] != skip)
				put_binding(p, blk->bindings[i]);
		return;
	}
	put_indent(p);
	sb_puts(p->b, "with R.dataflow():\n");
	p->indent++;
	p->in_df = true;
	for (int i = 0; i < blk->n; i++)
		put_binding(p, blk->bindings[i]);
	p->in_df = false;
	put_indent(p);
	sb_puts(p->b, "R.output(");
	bool first = true;
	for (int i = 0; i < blk->n; i++) {
		const Var *v = blk->bindings[i]->var;
		if (!v || v->dataflow)
			continue;
		if (!first)
			sb_puts(p->b, ", ");
		first = false;
		put_var(p, v);
	}
	sb_puts(p->b, ")\n");
	p->indent--;
}

/* Counts the E_VAR references in e by variable id. */
static void
count_uses(Printer *p, const Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_VAR:
		if (e->var && e->var->id >= 0 && e->var->id < p->nids &&
		    !p->uses[e->var->id]++)
			ivec_push(&p->touched, e->var->id);
		break;
	case E_TUPLE:
		for (int i = 0; i < e->tuple.n; i++)
			count_uses(p, e->tuple.items[i]);
		break;
	case E_TUPLE_GET:
		count_uses(p, e->tget.tuple);
		break;
	case E_CALL:
		for (int i = 0; i < e->call.nargs; i++)
			count_uses(p, e->call.args[i]);
		break;
	case E_CALL_FN:
		for (int i = 0; i < e->callfn.nargs; i++)
			count_uses(p, e->callfn.args[i]);
		break;
	case E_CALL_VAR:
		count_uses(p, e->callv.fn);
		for (int i = 0; i < e->callv.nargs; i++)
			count_uses(p, e->callv.args[i]);
		break;
	case E_FUNC:
		count_uses(p, e->fn->body);
		break;
	case E_IF:
		count_uses(p, e->if_.cond);
		count_uses(p, e->if_.then_);
		count_uses(p, e->if_.else_);
		break;
	case E_SEQ:
		for (int i = 0; i < e->seq.nblocks; i++) {
			const Block *blk = e->seq.blocks[i];
			for (int j = 0; j < blk->n; j++)
				count_uses(p, blk->bindings[j]->value);
		}
		count_uses(p, e->seq.body);
		break;
	default:
		break;
	}
}

/* The return annotation: the written one, else the body's struct info. */
static const SInfo *
func_ret(const Func *f)
{
	if (f->ret)
		return f->ret;
	if (!f->body)
		return NULL;
	if (f->body->sinfo)
		return f->body->sinfo;
	if (f->body->kind == E_SEQ && f->body->seq.body)
		return f->body->seq.body->sinfo;
	return NULL;
}

/* Writes one function, decorator to return, at class indentation. */
static void
put_func(Printer *p, const Func *f)
{
	p->names = p->names_tab;
	p->uses = p->uses_tab;
	for (size_t i = 0; i < ARRAY_LEN(reserved_names); i++)
		namemap_add(&p->used, reserved_names[i], 1);
	count_uses(p, f->body);
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i])
			name_of(p, f->params[i]->id, f->params[i]->name);
	for (int i = 0; i < f->nsymvars; i++)
		name_of(p, f->symvars[i]->id, f->symvars[i]->name);
	put_def_func(p, f, 1, f->name);
	for (int i = 0; i < p->touched.n; i++) {
		p->names[p->touched.items[i]] = NULL;
		p->uses[p->touched.items[i]] = 0;
	}
	p->touched.n = 0;
	p->names = NULL;
	p->uses = NULL;
	namemap_free(&p->used);
}

/* Pushes the symbolic variables that si has as a bare dimension (or
 * value), in order, onto out. */
static void
bare_symvars(const SInfo *si, Vec *out)
{
	if (!si)
		return;
	for (int i = 0; si->shape && i < si->ndim; i++)
		if (si->shape[i] && si->shape[i]->kind == PE_VAR)
			vec_push(out, si->shape[i]->var);
	if (si->value && si->value->kind == PE_VAR)
		vec_push(out, si->value->var);
	for (int i = 0; i < si->nfields; i++)
		bare_symvars(si->fields[i], out);
	bare_symvars(si->ret, out);
}

/*
 * The `N = T.int64()` declarations of f in the order the parser defines
 * them when it reads the printed function back: the bare dimension names
 * of the parameters' annotations, in order, then any other symbolic
 * variable of theirs or of the return annotation, then f's others (those
 * of match_cast) in f's order. The text then depends only on the
 * function, not on the order a pass happened to build its table in.
 */
static void
put_symvar_decls(Printer *p, const Func *f)
{
	Vec order = {0};
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i])
			bare_symvars(f->params[i]->sinfo, &order);
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i])
			ir_sinfo_symvars(f->params[i]->sinfo, &order);
	ir_sinfo_symvars(func_ret(f), &order);
	for (int i = 0; i < f->nsymvars; i++)
		vec_push(&order, f->symvars[i]);
	/* each of f's own, once */
	bool *mine = xcalloc((size_t)p->nids + 1, 1);
	for (int i = 0; i < f->nsymvars; i++)
		if (f->symvars[i]->id >= 0 && f->symvars[i]->id < p->nids)
			mine[f->symvars[i]->id] = true;
	for (int i = 0; i < order.n; i++) {
		const SymVar *v = order.items[i];
		if (v->id < 0 || v->id >= p->nids || !mine[v->id])
			continue;
		mine[v->id] = false;
		put_indent(p);
		sb_printf(p->b, "%s = T.int64()\n", name_of(p, v->id, v->name));
	}
	free(mine);
	vec_free(&order);
}

/*
 * `@R.function ... def NAME(...) -> R: body` at indentation level `indent`:
 * a module function (1) or a local one, printed where it is bound. The
 * symbolic variables of a local function are its enclosing function's,
 * declared there.
 */
static void
put_def_func(Printer *p, const Func *f, int indent, const char *name)
{
	StrBuf *b = p->b;
	bool local = indent > 1;
	for (int i = 0; local && i < f->nparams; i++)
		if (f->params[i])
			name_of(p, f->params[i]->id, f->params[i]->name);
	int saved = p->indent;
	p->indent = indent;
	put_indent(p);
	sb_puts(b, "@R.function");
	if (f->is_private || !f->pure)
		sb_printf(b, "(%s%s%s)", f->is_private ? "private=True" : "",
			  f->is_private && !f->pure ? ", " : "",
			  !f->pure ? "pure=False" : "");
	sb_putc(b, '\n');
	put_indent(p);
	sb_puts(b, "def ");
	put_plain_name(p, name ? name : "");
	sb_putc(b, '(');
	p->sig = !local;
	for (int i = 0; i < f->nparams; i++) {
		if (i)
			sb_puts(b, ", ");
		put_var(p, f->params[i]);
		sb_puts(b, ": ");
		put_sinfo(p, f->params[i] ? f->params[i]->sinfo : NULL);
	}
	sb_puts(b, ") -> ");
	put_sinfo(p, func_ret(f));
	p->sig = false;
	sb_puts(b, ":\n");

	p->indent = indent + 1;
	if (!local)
		put_symvar_decls(p, f);
	if (f->nattrs) {
		put_indent(p);
		sb_puts(b, "R.func_attr({");
		for (int i = 0; i < f->nattrs; i++) {
			const char *k = f->attrs[i].key ? f->attrs[i].key : "";
			if (i)
				sb_puts(b, ", ");
			put_quoted(b, k, strlen(k));
			sb_puts(b, ": ");
			put_attrval(b, &f->attrs[i].val);
		}
		sb_puts(b, "})\n");
	}
	const Expr *body = f->body;
	if (body && body->kind == E_SEQ) {
		for (int i = 0; i < body->seq.nblocks; i++)
			put_block(p, body->seq.blocks[i], NULL);
		body = body->seq.body;
	}
	put_indent(p);
	sb_puts(b, "return ");
	put_expr(p, body);
	sb_putc(b, '\n');
	p->indent = saved;
}

/* -------------------------------------------------------------- exported */

void
print_module(StrBuf *b, const Module *m, const PrintOpts *o)
{
	Printer p = {.b = b, .tvm_names = o && o->tvm_names,
		     .nids = m->next_id > 0 ? m->next_id : 0};
	if (!(o && o->no_header))
		sb_puts(b, "# from tvm.script import ir as I\n"
			   "# from tvm.script import relax as R\n"
			   "# from tvm.script import tir as T\n"
			   "\n");
	TirSpelling tsp = o ? o->tir : TIR_MAIN;
	bool stir = m->s_tir;
	for (int i = 0; i < m->nprims; i++)
		stir |= m->prims[i]->root; /* T.sblock needs s_tir in TVM main */
	sb_puts(b, stir && tsp == TIR_MAIN ? "@I.ir_module(s_tir=True)\nclass "
					   : "@I.ir_module\nclass ");
	put_plain_name(&p, m->name ? m->name : "Module");
	sb_puts(b, ":\n");
	for (int i = 0; i < m->ndecls; i++)
		sb_printf(b, "    %s\n%s", m->decls[i],
			  i == m->ndecls - 1 && (m->nfuncs || m->nprims) ? "\n" : "");
	p.names_tab = xcalloc((size_t)p.nids + 1, sizeof *p.names_tab);
	p.uses_tab = xcalloc((size_t)p.nids + 1, sizeof *p.uses_tab);
	/* prim_funcs first, as TVM prints a module */
	for (int i = 0; i < m->nprims; i++) {
		if (i)
			sb_putc(b, '\n');
		print_prim_func(b, m->prims[i], 4, tsp);
	}
	for (int i = 0; i < m->nfuncs; i++) {
		if (i || m->nprims)
			sb_putc(b, '\n');
		put_func(&p, m->funcs[i]);
	}
	if (!m->nfuncs && !m->nprims) /* an empty module, as TVM prints it */
		sb_puts(b, "    pass\n");
	free(p.names_tab);
	free(p.uses_tab);
	ivec_free(&p.touched);
	arena_free(&p.tmp);
}

void
print_sinfo(StrBuf *b, const SInfo *si)
{
	Printer p = {.b = b};
	put_sinfo(&p, si);
	arena_free(&p.tmp);
}

void
print_expr(StrBuf *b, const Expr *e)
{
	Printer p = {.b = b};
	put_expr(&p, e);
	arena_free(&p.tmp);
}

void
print_attrval(StrBuf *b, const AttrVal *v)
{
	put_attrval(b, v);
}
