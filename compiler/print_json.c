/*
 * print_json.c — the module as JSON, for tools (`rlx dump --format json`).
 *
 * Struct info is written as its TVMScript text (the same text the printer
 * uses), so a tool can show it as is or parse it with rlx. Every node that
 * has a source location carries "loc": [line, col].
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ir.h"

/*
 * A JSON string of s. The parser only admits UTF-8 text, so every name
 * and string is valid UTF-8; should one not be, its bad bytes are written
 * as the text \xNN rather than the string being dropped (jansson refuses
 * invalid UTF-8: json_string returns NULL, and a NULL member is silently
 * not set).
 */
static json_t *
jstr(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	StrBuf b = {0};
	size_t n = strlen(s), off;
	const char *why;
	while (!text_check_utf8(s, n, &off, &why)) {
		sb_putn(&b, s, off);
		sb_printf(&b, "\\x%02x", (unsigned char)s[off]);
		s += off + 1;
		n -= off + 1;
	}
	sb_putn(&b, s, n);
	j = json_string(b.p ? b.p : "");
	sb_free(&b);
	return j;
}

static json_t *
sinfo_json(const SInfo *si)
{
	if (!si)
		return json_null();
	StrBuf b = {0};
	print_sinfo(&b, si);
	json_t *j = jstr(b.p ? b.p : "");
	sb_free(&b);
	return j;
}

static json_t *
pe_json(const PExpr *x)
{
	StrBuf b = {0};
	pe_print(&b, x);
	json_t *j = jstr(b.p ? b.p : "");
	sb_free(&b);
	return j;
}

static json_t *
loc_json(Span sp)
{
	return json_pack("[i, i]", sp.line, sp.col);
}

static json_t *
attr_json(const AttrVal *v)
{
	switch (v->kind) {
	case AV_NONE:
		return json_null();
	case AV_INT:
		return json_integer(v->i);
	case AV_FLOAT:
		return json_real(v->f);
	case AV_BOOL:
		return json_boolean(v->i);
	case AV_STR:
	case AV_RAW:
		return jstr(v->s);
	case AV_IMAP: {
		StrBuf b = {0};
		print_attrval(&b, v);
		json_t *s = json_string(b.p ? b.p : "");
		sb_free(&b);
		return s;
	}
	case AV_DTYPE:
		return jstr(dtype_name(v->dtype));
	case AV_INTS: {
		json_t *a = json_array();
		for (int i = 0; i < v->n; i++)
			json_array_append_new(a, json_integer(v->ints[i]));
		return a;
	}
	case AV_DIMS: {
		json_t *a = json_array();
		for (int i = 0; i < v->n; i++) {
			StrBuf b = {0};
			pe_print(&b, v->dims[i]);
			json_array_append_new(a, json_string(b.p ? b.p : ""));
			sb_free(&b);
		}
		return a;
	}
	case AV_SINFO: {
		json_t *a = json_array();
		for (int i = 0; i < v->n; i++)
			json_array_append_new(a, sinfo_json(v->sis[i]));
		return a;
	}
	}
	return json_null();
}

static json_t *
var_json(const Var *v)
{
	return json_pack("{s:s, s:i, s:b, s:o}", "name", v->name, "id", v->id,
			 "dataflow", v->dataflow, "sinfo", sinfo_json(v->sinfo));
}

static json_t *expr_json(const Expr *e);

static json_t *
exprs_json(Expr *const *es, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, expr_json(es[i]));
	return a;
}

static json_t *
block_json(const Block *b)
{
	json_t *bs = json_array();
	for (int k = 0; k < b->n; k++) {
		const Binding *bd = b->bindings[k];
		json_t *j = json_pack("{s:o, s:o, s:o}", "var", var_json(bd->var),
				      "value", expr_json(bd->value), "loc",
				      loc_json(bd->span));
		if (bd->cast)
			json_object_set_new(j, "match_cast", sinfo_json(bd->cast));
		json_array_append_new(bs, j);
	}
	return json_pack("{s:b, s:o}", "dataflow", b->dataflow, "bindings", bs);
}

static json_t *func_json(const Func *f);

static json_t *
expr_json(const Expr *e)
{
	json_t *j = json_object();
	json_object_set_new(j, "kind", jstr(ir_expr_kind_name(e->kind)));
	switch (e->kind) {
	case E_VAR:
		json_object_set_new(j, "name", jstr(e->var->name));
		json_object_set_new(j, "id", json_integer(e->var->id));
		break;
	case E_CONST: {
		json_t *shape = json_array();
		for (int i = 0; i < e->cdata.ndim; i++)
			json_array_append_new(shape, json_integer(e->cdata.shape[i]));
		json_object_set_new(j, "dtype", jstr(dtype_name(e->cdata.dtype)));
		json_object_set_new(j, "shape", shape);
		StrBuf b = {0};
		print_expr(&b, e);
		json_object_set_new(j, "text", jstr(b.p ? b.p : ""));
		sb_free(&b);
		break;
	}
	case E_TUPLE:
		json_object_set_new(j, "items", exprs_json(e->tuple.items, e->tuple.n));
		break;
	case E_TUPLE_GET:
		json_object_set_new(j, "tuple", expr_json(e->tget.tuple));
		json_object_set_new(j, "index", json_integer(e->tget.index));
		break;
	case E_SHAPE: {
		json_t *vals = json_array();
		for (int i = 0; i < e->shape.n; i++)
			json_array_append_new(vals, pe_json(e->shape.values[i]));
		json_object_set_new(j, "values", vals);
		break;
	}
	case E_PRIM:
		json_object_set_new(j, "dtype", jstr(dtype_name(e->prim.dtype)));
		json_object_set_new(j, "value", e->prim.value ? pe_json(e->prim.value)
							      : json_real(e->prim.f));
		break;
	case E_STR:
	case E_EXTERN:
	case E_GLOBAL:
		json_object_set_new(j, "value", jstr(e->str));
		break;
	case E_CALL: {
		OpSig sig;
		op_sig(e->call.op, &sig);
		json_t *attrs = json_object();
		for (int i = 0; i < sig.nparams; i++)
			if (sig.params[i].is_attr && sig.params[i].slot < e->call.nattrs)
				json_object_set_new(attrs, sig.params[i].name,
						    attr_json(&e->call.attrs[sig.params[i].slot]));
		json_object_set_new(j, "op", jstr(op_info(e->call.op)->name));
		json_object_set_new(j, "args", exprs_json(e->call.args, e->call.nargs));
		json_object_set_new(j, "attrs", attrs);
		break;
	}
	case E_FUNC:
		json_object_set_new(j, "function", func_json(e->fn));
		break;
	case E_CALL_VAR:
		json_object_set_new(j, "callee", expr_json(e->callv.fn));
		json_object_set_new(j, "args", exprs_json(e->callv.args, e->callv.nargs));
		break;
	case E_CALL_FN:
		json_object_set_new(j, "callee", jstr(e->callfn.callee));
		json_object_set_new(j, "args", exprs_json(e->callfn.args, e->callfn.nargs));
		break;
	case E_IF:
		json_object_set_new(j, "cond", expr_json(e->if_.cond));
		json_object_set_new(j, "then", expr_json(e->if_.then_));
		json_object_set_new(j, "else", expr_json(e->if_.else_));
		break;
	case E_SEQ: {
		json_t *blocks = json_array();
		for (int i = 0; i < e->seq.nblocks; i++)
			json_array_append_new(blocks, block_json(e->seq.blocks[i]));
		json_object_set_new(j, "blocks", blocks);
		json_object_set_new(j, "body", expr_json(e->seq.body));
		break;
	}
	}
	if (e->sinfo)
		json_object_set_new(j, "sinfo", sinfo_json(e->sinfo));
	return j;
}

static json_t *
func_json(const Func *f)
{
	json_t *params = json_array(), *attrs = json_object(), *svs = json_array();
	for (int i = 0; i < f->nparams; i++)
		json_array_append_new(params, var_json(f->params[i]));
	for (int i = 0; i < f->nattrs; i++)
		json_object_set_new(attrs, f->attrs[i].key, attr_json(&f->attrs[i].val));
	for (int i = 0; i < f->nsymvars; i++)
		json_array_append_new(svs, jstr(f->symvars[i]->name));
	return json_pack("{s:s, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
			 f->name, "private", f->is_private, "pure", f->pure,
			 "attrs", attrs, "symbolic_vars", svs, "params", params,
			 "ret", sinfo_json(f->ret), "body", expr_json(f->body),
			 "loc", loc_json(f->span));
}

static json_t *
texpr_json(const TExpr *e)
{
	StrBuf b = {0};
	print_texpr(&b, e);
	json_t *j = jstr(b.p ? b.p : "");
	sb_free(&b);
	return j;
}

/* A prim_func: its signature as data, its body as TVMScript text. */
static json_t *
prim_json(const PrimFunc *f)
{
	json_t *params = json_array(), *attrs = json_object();
	for (int i = 0; i < f->nparams; i++) {
		const TParam *q = &f->params[i];
		json_t *p = json_object();
		json_object_set_new(p, "name", jstr(q->var ? q->var->name : q->buf->name));
		if (q->buf) {
			json_t *shape = json_array();
			for (int k = 0; k < q->buf->ndim; k++)
				json_array_append_new(shape, texpr_json(q->buf->shape[k]));
			json_object_set_new(p, "kind", jstr("buffer"));
			json_object_set_new(p, "buffer", jstr(q->buf->name));
			json_object_set_new(p, "dtype", jstr(dtype_name(q->buf->dtype)));
			json_object_set_new(p, "shape", shape);
		} else {
			json_object_set_new(p, "kind", jstr(q->var->ty == TT_HANDLE ? "handle" : "scalar"));
			json_object_set_new(p, "dtype", jstr(tir_type_name(q->var->ty)));
		}
		json_array_append_new(params, p);
	}
	for (int i = 0; i < f->nattrs; i++)
		json_object_set_new(attrs, f->attrs[i].key, attr_json(&f->attrs[i].val));
	StrBuf b = {0};
	print_prim_func(&b, f, 0, f->s_tir ? TIR_MAIN : TIR_RELEASE);
	json_t *j = json_pack("{s:s, s:b, s:b, s:b, s:o, s:o, s:o, s:o}", "name", f->name,
			      "private", f->is_private, "s_tir", f->s_tir,
			      "pure", tir_func_pure(f), "attrs", attrs, "params", params,
			      "text", jstr(b.p ? b.p : ""), "loc", loc_json(f->span));
	sb_free(&b);
	return j;
}

/* The calls of prim_funcs in a sequence (branches too): the edges. */
static void
call_edges(const Module *m, const Func *f, const Expr *seq, json_t *out, int depth)
{
	if (!seq || seq->kind != E_SEQ || depth > 200)
		return;
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *bl = seq->seq.blocks[i];
		for (int k = 0; k < bl->n; k++) {
			const Binding *bd = bl->bindings[k];
			const char *how;
			const PrimFunc *p = tir_called(m, bd->value, &how);
			if (p)
				json_array_append_new(out, json_pack(
					"{s:s, s:s, s:s, s:s, s:o}", "caller", f->name,
					"var", bd->var ? bd->var->name : "_", "via", how,
					"prim_func", p->name, "loc", loc_json(bd->span)));
			if (bd->value->kind == E_IF) {
				call_edges(m, f, bd->value->if_.then_, out, depth + 1);
				call_edges(m, f, bd->value->if_.else_, out, depth + 1);
			}
		}
	}
}

void
print_module_json(StrBuf *b, const Module *m)
{
	json_t *fs = json_array(), *ps = json_array(), *es = json_array();
	for (int i = 0; i < m->nfuncs; i++) {
		json_array_append_new(fs, func_json(m->funcs[i]));
		call_edges(m, m->funcs[i], m->funcs[i]->body, es, 0);
	}
	for (int i = 0; i < m->nprims; i++)
		json_array_append_new(ps, prim_json(m->prims[i]));
	json_t *root = json_pack("{s:s, s:s, s:o, s:o, s:o}", "rlx_version", RLX_VERSION,
				 "module", m->name, "functions", fs, "prim_funcs", ps,
				 "prim_calls", es);
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	sb_puts(b, text);
	sb_putc(b, '\n');
	free(text);
	json_decref(root);
}
