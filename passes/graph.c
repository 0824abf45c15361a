/*
 * graph.c — the dataflow graph of each function in Graphviz dot
 * (`rlx dump --format dot`).
 *
 * One cluster per function. Runtime inputs are drawn as ellipses, weights
 * as cylinders; each binding is a box labelled `name = op`. When the
 * function has num_input, the weights and the bindings that
 * lift-transform-params would move sit in a separate dashed cluster
 * "transform (lifted)", so the split can be seen before it is made.
 * The module's prim_funcs are drawn as components in a cluster of their
 * own, each call of one (R.call_tir and its kin, a direct call) a dashed
 * edge from the binding to the prim_func.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* Writes s as a dot string body (escaping quotes and backslashes). */
static void
dot_str(StrBuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(b, '\\');
		sb_putc(b, *s);
	}
}

static const char *
value_label(Module *m, const Expr *e, char *buf, size_t n)
{
	const char *how;
	const PrimFunc *p = tir_called(m, e, &how);
	if (p) {
		snprintf(buf, n, "%s %s", how, p->name);
		return buf;
	}
	switch (e->kind) {
	case E_CALL:
		return op_info(e->call.op)->name;
	case E_CALL_FN:
		return e->callfn.callee;
	default:
		return ir_expr_kind_name(e->kind);
	}
}

typedef struct {
	StrBuf *b;
	int fi;
	const Var *to;
} EdgeCtx;

static void
edge(Var *v, void *ctx)
{
	EdgeCtx *c = ctx;
	sb_printf(c->b, "    f%d_v%d -> f%d_v%d;\n", c->fi, v->id, c->fi,
		  c->to->id);
}

static void
node(StrBuf *b, int fi, const Var *v, const char *label, const char *shape)
{
	sb_printf(b, "      f%d_v%d [shape=%s, label=\"", fi, v->id, shape);
	dot_str(b, v->name);
	if (label) {
		sb_puts(b, " = ");
		dot_str(b, label);
	}
	sb_puts(b, "\\n");
	if (v->sinfo) {
		StrBuf s = {0};
		print_sinfo(&s, v->sinfo);
		dot_str(b, s.p ? s.p : "");
		sb_free(&s);
	}
	sb_puts(b, "\"];\n");
}

/* Draws the bindings of a sequence; nested ones flattened into the graph. */
static void
seq_nodes(Module *m, StrBuf *b, int fi, const Expr *seq, const bool *lifted, bool want)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *bl = seq->seq.blocks[i];
		for (int k = 0; k < bl->n; k++) {
			const Binding *bd = bl->bindings[k];
			char buf[256];
			if (lifted[bd->var->id] == want)
				node(b, fi, bd->var, value_label(m, bd->value, buf, sizeof buf), "box");
			if (bd->value->kind == E_IF && !want) {
				seq_nodes(m, b, fi, bd->value->if_.then_, lifted, want);
				seq_nodes(m, b, fi, bd->value->if_.else_, lifted, want);
			}
		}
	}
}

static void
seq_edges(Module *m, StrBuf *b, int fi, const Expr *seq)
{
	for (int i = 0; i < seq->seq.nblocks; i++) {
		const Block *bl = seq->seq.blocks[i];
		for (int k = 0; k < bl->n; k++) {
			const Binding *bd = bl->bindings[k];
			EdgeCtx c = {b, fi, bd->var};
			const char *how;
			const PrimFunc *p = tir_called(m, bd->value, &how);
			for (int j = 0; p && j < m->nprims; j++)
				if (m->prims[j] == p)
					sb_printf(b, "    f%d_v%d -> p%d [style=dashed, label=\"%s\"];\n",
						  fi, bd->var->id, j, how);
			if (bd->value->kind == E_IF) {
				ir_visit_uses(bd->value->if_.cond, edge, &c);
				seq_edges(m, b, fi, bd->value->if_.then_);
				seq_edges(m, b, fi, bd->value->if_.else_);
				ir_visit_uses(bd->value->if_.then_->seq.body, edge, &c);
				ir_visit_uses(bd->value->if_.else_->seq.body, edge, &c);
			} else {
				ir_visit_uses(bd->value, edge, &c);
			}
		}
	}
}

void
graph_dot(StrBuf *b, Module *m)
{
	sb_puts(b, "digraph rlx {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n");
	if (m->nprims) {
		sb_puts(b, "  subgraph cluster_prims {\n    label=\"prim_funcs\"; style=dotted;\n");
		for (int j = 0; j < m->nprims; j++) {
			const PrimFunc *p = m->prims[j];
			sb_printf(b, "    p%d [shape=component, label=\"", j);
			dot_str(b, p->name);
			sb_puts(b, "(");
			for (int i = 0; i < p->nparams; i++) {
				const TParam *q = &p->params[i];
				if (i)
					sb_puts(b, ", ");
				if (q->buf) {
					dot_str(b, q->buf->name);
					sb_printf(b, ": %s[", dtype_name(q->buf->dtype));
					for (int k = 0; k < q->buf->ndim; k++) {
						StrBuf t = {0};
						print_texpr(&t, q->buf->shape[k]);
						if (k)
							sb_puts(b, ", ");
						dot_str(b, t.p ? t.p : "");
						sb_free(&t);
					}
					sb_puts(b, "]");
				} else {
					dot_str(b, q->var->name);
					sb_printf(b, ": %s", tir_type_name(q->var->ty));
				}
			}
			sb_puts(b, ")\"];\n");
		}
		sb_puts(b, "  }\n");
	}
	bool *lifted = xcalloc((size_t)m->next_id + 1, sizeof(bool));
	for (int fi = 0; fi < m->nfuncs; fi++) {
		Func *f = m->funcs[fi];
		memset(lifted, 0, (size_t)m->next_id + 1);
		bool split = lift_plan(m, f, lifted);
		int ninput = split ? ir_func_num_input(f) : f->nparams;
		sb_printf(b, "  subgraph cluster_f%d {\n    label=\"", fi);
		dot_str(b, f->name);
		sb_puts(b, "\";\n");
		if (split) {
			sb_printf(b, "    subgraph cluster_f%d_lift {\n", fi);
			sb_puts(b, "      label=\"transform (lifted)\"; style=dashed; color=blue;\n");
			for (int i = ninput; i < f->nparams; i++)
				node(b, fi, f->params[i], NULL, "cylinder");
			seq_nodes(m, b, fi, f->body, lifted, true);
			sb_puts(b, "    }\n");
		}
		sb_printf(b, "    subgraph cluster_f%d_run {\n", fi);
		sb_puts(b, "      label=\"runtime\"; style=solid;\n");
		for (int i = 0; i < ninput; i++)
			node(b, fi, f->params[i], NULL, "ellipse");
		seq_nodes(m, b, fi, f->body, lifted, false);
		sb_printf(b, "      f%d_ret [shape=plaintext, label=\"return\"];\n", fi);
		sb_puts(b, "    }\n");
		seq_edges(m, b, fi, f->body);
		EdgeCtx c = {b, fi, NULL};
		(void)c;
		const Expr *ret = f->body->seq.body;
		if (ret->kind == E_VAR)
			sb_printf(b, "    f%d_v%d -> f%d_ret;\n", fi, ret->var->id, fi);
		sb_puts(b, "  }\n");
	}
	free(lifted);
	sb_puts(b, "}\n");
}

/* rlx.h */
char *
rlx_print_dot(const rlx_module *m)
{
	StrBuf b = {0};
	graph_dot(&b, (Module *)m);
	return sb_take(&b);
}
