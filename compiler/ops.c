/*
 * ops.c — the op table (ops.def) and its signatures.
 *
 * A signature is Python-like text ("x, axes:ints?=None"); op_sig() reads it
 * into an OpSig each time it is asked. Signatures are short and fixed, so
 * this is cheap and keeps the table in one readable place.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* gen_params (compiler/meson.build) compiles this file alone, without the
 * rules: it writes op_params.h, which the rules (infer_ops.c) read. */
#ifdef RLX_OPS_WITHOUT_RULES
#define RULE(infer) NULL
#else
#define RULE(infer) infer
#endif

/* ORDER: OpKind */
static const OpInfo op_table[OP_COUNT] = {
	[OP_NONE] = {"", "", NULL, OC_OTHER, 0},
#define OP(id, name, sig, infer, cls) \
	[OP_##id] = {name, sig, RULE(infer), (OpClass)((cls) & OC_MASK), \
		     (cls) & ~OC_MASK},
#include "ops.def"
#undef OP
};

const OpInfo *
op_info(OpKind op)
{
	if (op <= OP_NONE || op >= OP_COUNT)
		ir_bug("bad op %d", (int)op);
	return &op_table[op];
}

OpKind
op_lookup(const char *name)
{
	for (int i = 1; i < OP_COUNT; i++)
		if (!strcmp(op_table[i].name, name))
			return (OpKind)i;
	return OP_NONE;
}

static const struct {
	const char *name;
	ParamKind kind;
	bool is_attr;
} param_kinds[] = {
	{"shape", PK_SHAPE, false}, {"prim", PK_PRIM, false},
	{"int|ints", PK_INT_OR_INTS, true}, {"ints", PK_INTS, true},
	{"int", PK_INT, true},       {"float", PK_FLOAT, true},
	{"bool", PK_BOOL, true},     {"str", PK_STR, true},
	{"dtype", PK_DTYPE, true},   {"dims", PK_DIMS, true},
	{"sinfos", PK_SINFOS, true}, {"sinfo", PK_SINFO, true},
	{"func", PK_FUNC, false},    {"raw", PK_RAW, true},
	{"imap", PK_IMAP, true},     {"tuple", PK_TUPLE, false},
};

/* Reads a default value written in Python syntax into v. */
static void
parse_default(const char *text, ParamKind kind, AttrVal *v)
{
	memset(v, 0, sizeof *v);
	if (!strcmp(text, "None")) {
		v->kind = AV_NONE;
	} else if (kind == PK_RAW) {
		v->kind = AV_RAW; /* s: the def_text copy (op_default) */
	} else if (!strcmp(text, "True") || !strcmp(text, "False")) {
		v->kind = AV_BOOL;
		v->i = text[0] == 'T';
	} else if (text[0] == '"') {
		size_t n = strlen(text);
		if (kind == PK_DTYPE) {
			char name[32];
			snprintf(name, sizeof name, "%.*s", (int)(n - 2), text + 1);
			v->kind = AV_DTYPE;
			if (!dtype_parse(name, &v->dtype))
				ir_bug("bad default dtype %s", text);
		} else {
			v->kind = AV_STR; /* s points into the def_text copy */
		}
	} else if (text[0] == '[') {
		/* Default lists are short: at most 4 ints, kept in the param. */
		v->kind = AV_INTS;
	} else if (kind == PK_FLOAT) {
		v->kind = AV_FLOAT;
		v->f = strtod(text, NULL);
	} else {
		v->kind = AV_INT;
		v->i = strtoll(text, NULL, 10);
	}
}

void
op_sig(OpKind op, OpSig *out)
{
	const char *p = op_info(op)->sig;
	memset(out, 0, sizeof *out);
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		if (out->nparams == (int)ARRAY_LEN(out->params))
			ir_bug("signature of %s too long", op_info(op)->name);
		OpParam *q = &out->params[out->nparams++];
		size_t n = 0;
		if (*p == '*') {
			q->variadic = true;
			p++;
		}
		while (isalnum((unsigned char)*p) || *p == '_')
			q->name[n++] = *p++;
		q->kind = PK_EXPR;
		if (*p == '?') { /* an optional expression: may be absent */
			q->optional = true;
			p++;
		}
		if (*p == ':') {
			p++;
			size_t best = 0;
			for (size_t i = 0; i < ARRAY_LEN(param_kinds); i++) {
				size_t l = strlen(param_kinds[i].name);
				if (!strncmp(p, param_kinds[i].name, l) && l > best) {
					best = l;
					q->kind = param_kinds[i].kind;
					q->is_attr = param_kinds[i].is_attr;
				}
			}
			if (!best)
				ir_bug("bad kind in signature of %s", op_info(op)->name);
			p += best;
			if (*p == '?') {
				q->optional = true;
				p++;
			}
		}
		if (*p == '=') {
			p++;
			const char *s = p;
			int depth = 0;
			while (*p && (depth > 0 || *p != ',')) {
				if (*p == '[' || *p == '(')
					depth++;
				else if (*p == ']' || *p == ')')
					depth--;
				p++;
			}
			snprintf(q->def_text, sizeof q->def_text, "%.*s",
				 (int)(p - s), s);
			q->has_default = true;
			parse_default(q->def_text, q->kind, &q->def);
		}
		q->slot = q->is_attr ? out->nattrs++ : out->nargs++;
		if (!q->is_attr && !q->optional)
			out->nreq = out->nargs;
	}
	/* the variadic parameter takes the last expression slot: the
	 * arguments it collects are the tail of call.args */
	for (int i = 0; i < out->nparams; i++) {
		OpParam *v = &out->params[i];
		if (!v->variadic)
			continue;
		out->variadic = true;
		for (int k = 0; k < out->nparams; k++)
			if (!out->params[k].is_attr && out->params[k].slot > v->slot)
				out->params[k].slot--;
		v->slot = out->nargs - 1;
	}
}

/* The default of attribute q as a value in m's arena (lists and strings). */
AttrVal
op_default(Module *m, const OpParam *q)
{
	AttrVal v = q->def;
	const char *t = q->def_text;
	if (v.kind == AV_STR) {
		v.s = arena_strndup(&m->arena, t + 1, strlen(t) - 2);
	} else if (v.kind == AV_RAW) {
		v.s = arena_strdup(&m->arena, t);
	} else if (v.kind == AV_INTS) {
		int64_t tmp[16];
		int n = 0;
		const char *p = t + 1;
		while (*p && *p != ']' && n < 16) {
			char *end;
			tmp[n++] = strtoll(p, &end, 10);
			p = end;
			while (*p == ',' || *p == ' ')
				p++;
		}
		v.n = n;
		v.ints = arena_memdup(&m->arena, tmp, sizeof(int64_t) * (size_t)n);
	}
	return v;
}
