/*
 * test_parse.c — the TVMScript frontend: snippets in, IR asserted (kinds,
 * names, dataflow flags, attributes, spans); malformed snippets in, the
 * located error asserted. Run under ASan, so leaks and crashes fail too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "op_attr.h"
#include "parse.h"

/* Parses text that must be accepted. */
static Module *
parse_ok(const char *text)
{
	Diags d = {0};
	Module *m = parse_module("t.py", text, strlen(text), &d);
	if (!m || d.nerrors)
		diag_print(&d, stderr);
	assert_non_null(m);
	assert_int_equal(d.nerrors, 0);
	diag_clear(&d);
	free(d.items);
	return m;
}

/*
 * Parses text that must be refused; the first error must be at line:col
 * and contain msg. Returns the number of errors.
 */
static int
parse_err(const char *text, size_t len, int line, int col, const char *msg)
{
	Diags d = {0};
	Module *m = parse_module("t.py", text, len, &d);
	if (m || !d.nerrors || d.items[0].span.line != line ||
	    d.items[0].span.col != col || !strstr(d.items[0].msg, msg))
		diag_print(&d, stderr);
	assert_null(m);
	assert_true(d.nerrors > 0);
	assert_int_equal(d.items[0].span.line, line);
	assert_int_equal(d.items[0].span.col, col);
	assert_non_null(strstr(d.items[0].msg, msg));
	int n = d.nerrors;
	diag_clear(&d);
	free(d.items);
	return n;
}

#define ERR(text, line, col, msg) parse_err(text, strlen(text), line, col, msg)

#define HEAD "@I.ir_module\nclass Module:\n"
#define FN "    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n"

/* The binding i of block k of f's body. */
static Binding *
bind_at(const Func *f, int k, int i)
{
	assert_true(k < f->body->seq.nblocks);
	assert_true(i < f->body->seq.blocks[k]->n);
	return f->body->seq.blocks[k]->bindings[i];
}

static void
test_doc_example(void **state)
{
	(void)state;
	Module *m = parse_ok(
		"# from tvm.script import ir as I\n"
		"# from tvm.script import relax as R\n"
		"# from tvm.script import tir as T\n"
		"\n"
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), `model.w`: R.Tensor((4, 4), dtype=\"float32\")) -> R.Tensor((\"n\", 4), dtype=\"float32\"):\n"
		"        n = T.int64()\n"
		"        R.func_attr({\"num_input\": 1})\n"
		"        with R.dataflow():\n"
		"            lv: R.Tensor((4, 4), dtype=\"float32\") = R.permute_dims(`model.w`, axes=None)\n"
		"            gv: R.Tensor((n, 4), dtype=\"float32\") = R.matmul(x, lv, out_dtype=\"void\")\n"
		"            R.output(gv)\n"
		"        return gv\n");
	assert_string_equal(m->name, "Module");
	assert_int_equal(m->nfuncs, 1);
	Func *f = m->funcs[0];
	assert_string_equal(f->name, "main");
	assert_true(f->pure);
	assert_false(f->is_private);
	assert_int_equal(f->nparams, 2);
	assert_string_equal(f->params[0]->name, "x");
	assert_string_equal(f->params[1]->name, "model.w");
	assert_int_equal(f->params[0]->span.line, 8);
	assert_int_equal(f->params[0]->span.col, 14);
	SInfo *si = f->params[0]->sinfo;
	assert_int_equal(si->kind, SI_TENSOR);
	assert_int_equal(si->dtype, DT_F32);
	assert_int_equal(si->ndim, 2);
	assert_int_equal(si->shape[0]->kind, PE_VAR);
	assert_int_equal(si->shape[1]->kind, PE_INT);
	assert_int_equal(si->shape[1]->value, 4);
	/* T.int64() names the SymVar the signature defined */
	assert_int_equal(f->nsymvars, 1);
	assert_string_equal(f->symvars[0]->name, "n");
	assert_ptr_equal(si->shape[0]->var, f->symvars[0]);
	assert_non_null(f->ret);
	assert_ptr_equal(f->ret->shape[0]->var, f->symvars[0]);
	assert_int_equal(f->nattrs, 1);
	assert_string_equal(f->attrs[0].key, "num_input");
	assert_int_equal(f->attrs[0].val.kind, AV_INT);
	assert_int_equal(ir_func_num_input(f), 1);
	/* one dataflow block */
	assert_int_equal(f->body->kind, E_SEQ);
	assert_int_equal(f->body->seq.nblocks, 1);
	Block *blk = f->body->seq.blocks[0];
	assert_true(blk->dataflow);
	assert_int_equal(blk->n, 2);
	Binding *b0 = blk->bindings[0], *b1 = blk->bindings[1];
	assert_string_equal(b0->var->name, "lv");
	assert_true(b0->var->dataflow);
	assert_true(b0->annotated);
	assert_non_null(b0->var->sinfo);
	assert_int_equal(b0->value->kind, E_CALL);
	assert_int_equal(b0->value->call.op, OP_PERMUTE_DIMS);
	assert_int_equal(b0->value->call.nargs, 1);
	assert_ptr_equal(b0->value->call.args[0]->var, f->params[1]);
	assert_int_equal(b0->value->call.nattrs, 1);
	assert_int_equal(b0->value->call.attrs[0].kind, AV_NONE);
	assert_int_equal(b0->span.line, 12);
	assert_int_equal(b0->span.col, 13);
	assert_string_equal(b1->var->name, "gv");
	assert_false(b1->var->dataflow);
	assert_int_equal(b1->value->call.op, OP_MATMUL);
	assert_ptr_equal(b1->value->call.args[1]->var, b0->var);
	assert_int_equal(b1->value->call.attrs[0].kind, AV_DTYPE);
	assert_int_equal(b1->value->call.attrs[0].dtype, DT_UNKNOWN);
	assert_ptr_equal(b1->var->sinfo->shape[0]->var, f->symvars[0]);
	assert_int_equal(b1->value->span.line, 13);
	assert_int_equal(b1->value->span.col, 53);
	assert_int_equal(f->body->seq.body->kind, E_VAR);
	assert_ptr_equal(f->body->seq.body->var, b1->var);
	ir_module_free(m);
}

static void
test_llama_mlp_normalized(void **state)
{
	(void)state;
	Module *m = parse_ok(
		"from tvm.script import ir as I\n"
		"from tvm.script import relax as R\n"
		"import tvm\n"
		"@tvm.script.ir_module\n"
		"class MLP:\n"
		"    @R.function\n"
		"    def mlp(x: R.Tensor((1, \"seq\", 64), \"float16\"),\n"
		"            `model.layers.0.mlp.gate_proj.weight`: R.Tensor((128, 64), \"float16\"),\n"
		"            `model.layers.0.mlp.up_proj.weight`: R.Tensor((128, 64), \"float16\"),\n"
		"            `model.layers.0.mlp.down_proj.weight`: R.Tensor((64, 128), \"float16\")):\n"
		"        R.func_attr({\"num_input\": 1, \"global_symbol\": \"mlp\"})\n"
		"        with R.dataflow():\n"
		"            gate = R.nn.silu(R.matmul(x, R.permute_dims(`model.layers.0.mlp.gate_proj.weight`)))\n"
		"            up = R.matmul(x, R.permute_dims(`model.layers.0.mlp.up_proj.weight`))\n"
		"            out = R.matmul(R.multiply(gate, up), R.permute_dims(`model.layers.0.mlp.down_proj.weight`))\n"
		"            R.output(out)\n"
		"        return out\n");
	assert_string_equal(m->name, "MLP");
	Func *f = m->funcs[0];
	assert_int_equal(f->nparams, 4);
	assert_string_equal(f->params[3]->name, "model.layers.0.mlp.down_proj.weight");
	assert_int_equal(f->params[0]->sinfo->dtype, DT_F16);
	assert_int_equal(f->nattrs, 2);
	assert_string_equal(f->attrs[1].key, "global_symbol");
	assert_string_equal(f->attrs[1].val.s, "mlp");
	Block *blk = f->body->seq.blocks[0];
	assert_true(blk->dataflow);
	/* lv = permute, lv1 = matmul, gate, lv2 = permute, up, lv3, lv4, out */
	static const char *const names[] = {"lv", "lv1", "gate", "lv2", "up",
					    "lv3", "lv4", "out"};
	assert_int_equal(blk->n, 8);
	for (int i = 0; i < 8; i++) {
		assert_string_equal(blk->bindings[i]->var->name, names[i]);
		assert_int_equal(blk->bindings[i]->var->dataflow, i != 7);
		assert_false(blk->bindings[i]->annotated);
		assert_null(blk->bindings[i]->var->sinfo);
	}
	assert_int_equal(blk->bindings[0]->value->call.op, OP_PERMUTE_DIMS);
	assert_int_equal(blk->bindings[2]->value->call.op, OP_SILU);
	assert_ptr_equal(blk->bindings[2]->value->call.args[0]->var,
			 blk->bindings[1]->var);
	assert_int_equal(blk->bindings[5]->value->call.op, OP_MULTIPLY);
	/* generated bindings keep the span of their expression */
	assert_int_equal(blk->bindings[0]->span.line, 13);
	assert_int_equal(blk->bindings[0]->span.col, 42);
	ir_module_free(m);
}

static void
test_symbolic(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((\"n\", \"m\"), \"float32\"), y: R.Tensor((\"n * 2\",), \"float32\")) -> R.Shape(ndim=2):\n"
		"        n = T.int64()\n"
		"        m = T.int64()\n"
		"        k = T.int64()\n"
		"        s = R.shape([n, m * 4 + 1])\n"
		"        z = R.match_cast(y, R.Tensor((\"p\",), \"float32\"))\n"
		"        w: R.Tensor((p,), \"float32\") = R.reshape(z, (p,))\n"
		"        q = R.prim_value(T.max(n, 1))\n"
		"        return s\n");
	Func *f = m->funcs[0];
	assert_int_equal(f->nsymvars, 4);
	assert_string_equal(f->symvars[0]->name, "n");
	assert_string_equal(f->symvars[1]->name, "m");
	assert_string_equal(f->symvars[2]->name, "k");
	assert_string_equal(f->symvars[3]->name, "p");
	SInfo *ys = f->params[1]->sinfo;
	assert_int_equal(ys->ndim, 1);
	assert_int_equal(ys->shape[0]->kind, PE_MUL);
	assert_int_equal(f->ret->kind, SI_SHAPE);
	assert_int_equal(f->ret->ndim, 2);
	Binding *s = bind_at(f, 0, 0);
	assert_int_equal(s->value->kind, E_SHAPE);
	assert_int_equal(s->value->shape.n, 2);
	assert_ptr_equal(s->value->shape.values[0]->var, f->symvars[0]);
	Binding *z = bind_at(f, 0, 1);
	assert_non_null(z->cast);
	assert_int_equal(z->value->kind, E_VAR);
	assert_ptr_equal(z->cast->shape[0]->var, f->symvars[3]);
	assert_false(z->annotated);
	Binding *w = bind_at(f, 0, 2);
	assert_true(w->annotated);
	assert_ptr_equal(w->var->sinfo->shape[0]->var, f->symvars[3]);
	assert_int_equal(w->value->call.args[1]->kind, E_SHAPE);
	Binding *q = bind_at(f, 0, 3);
	assert_int_equal(q->value->kind, E_PRIM);
	assert_int_equal(q->value->prim.dtype, DT_I64);
	assert_int_equal(q->value->prim.value->kind, PE_MAX);
	ir_module_free(m);
}

static void
test_bare_dims_and_empty_dataflow(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((2, n), dtype=\"float32\"), s: R.Shape([\"a\", \"a + 1\"])) -> R.Prim(value=\"n\"):\n"
		"        with R.dataflow():\n"
		"            R.output()\n"
		"        y = R.reshape(x, s)\n"
		"        return R.prim_value(n)\n");
	Func *f = m->funcs[0];
	assert_int_equal(f->nsymvars, 2);
	assert_string_equal(f->symvars[0]->name, "n");
	assert_string_equal(f->symvars[1]->name, "a");
	assert_int_equal(f->params[1]->sinfo->kind, SI_SHAPE);
	assert_int_equal(f->params[1]->sinfo->ndim, 2);
	assert_int_equal(f->ret->kind, SI_PRIM);
	assert_int_equal(f->ret->dtype, DT_I64);
	assert_ptr_equal(f->ret->value->var, f->symvars[0]);
	assert_int_equal(f->body->seq.nblocks, 2);
	assert_true(f->body->seq.blocks[0]->dataflow);
	assert_int_equal(f->body->seq.blocks[0]->n, 0);
	assert_false(f->body->seq.blocks[1]->dataflow);
	/* a prim value is a leaf: returned as it is */
	assert_int_equal(f->body->seq.body->kind, E_PRIM);
	ir_module_free(m);
}

static void
test_tuples_and_return(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function(private=True)\n"
		"    def f(x: R.Tensor((4, 6), \"float32\")) -> R.Tuple(R.Tensor, R.Tensor):\n"
		"        t = R.split(x, 2, axis=1)\n"
		"        a = t[0]\n"
		"        b = R.split(x, indices_or_sections=[1, 3])[1]\n"
		"        e = ()\n"
		"        return (a, R.add(a, b))\n"
		"    @R.function(pure=False)\n"
		"    def g(x: R.Tensor((4, 6), \"float32\")):\n"
		"        return cls.f(x)\n");
	assert_int_equal(m->nfuncs, 2);
	Func *f = m->funcs[0], *g = m->funcs[1];
	assert_true(f->is_private);
	assert_true(f->pure);
	assert_false(g->pure);
	assert_int_equal(f->ret->kind, SI_TUPLE);
	assert_int_equal(f->ret->nfields, 2);
	assert_int_equal(f->body->seq.nblocks, 1);
	Block *blk = f->body->seq.blocks[0];
	assert_false(blk->dataflow);
	/* t, a, lv, b, e, lv1; the returned tuple of leaves is a leaf */
	assert_int_equal(blk->n, 6);
	Expr *split = blk->bindings[0]->value;
	assert_int_equal(split->call.attrs[0].kind, AV_INT);
	assert_int_equal(split->call.attrs[0].i, 2);
	assert_int_equal(split->call.attrs[1].i, 1);
	assert_int_equal(blk->bindings[1]->value->kind, E_TUPLE_GET);
	assert_int_equal(blk->bindings[1]->value->tget.index, 0);
	assert_string_equal(blk->bindings[2]->var->name, "lv");
	assert_int_equal(blk->bindings[2]->value->call.attrs[0].kind, AV_INTS);
	assert_int_equal(blk->bindings[2]->value->call.attrs[0].n, 2);
	assert_int_equal(blk->bindings[2]->value->call.attrs[0].ints[1], 3);
	assert_int_equal(blk->bindings[3]->value->tget.index, 1);
	assert_int_equal(blk->bindings[4]->value->kind, E_TUPLE);
	assert_int_equal(blk->bindings[4]->value->tuple.n, 0);
	assert_string_equal(blk->bindings[5]->var->name, "lv1");
	assert_int_equal(blk->bindings[5]->value->call.op, OP_ADD);
	assert_int_equal(f->body->seq.body->kind, E_TUPLE);
	assert_ptr_equal(f->body->seq.body->tuple.items[1]->var,
			 blk->bindings[5]->var);
	/* cls.f(x) is bound to gv in g */
	Binding *cb = bind_at(g, 0, 0);
	assert_string_equal(cb->var->name, "gv");
	assert_int_equal(cb->value->kind, E_CALL_FN);
	assert_string_equal(cb->value->callfn.callee, "f");
	assert_int_equal(cb->value->callfn.nargs, 1);
	ir_module_free(m);
}

static void
test_if_else(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f(c: R.Tensor((), \"bool\"), x: R.Tensor((3,), \"float32\")):\n"
		"        if c:\n"
		"            t = R.exp(x)\n"
		"            y: R.Tensor((3,), \"float32\") = R.add(t, x)\n"
		"        else:\n"
		"            y = x\n"
		"        z = R.add(y, y)\n"
		"        return z\n");
	Func *f = m->funcs[0];
	Binding *ib = bind_at(f, 0, 0);
	assert_string_equal(ib->var->name, "y");
	assert_int_equal(ib->value->kind, E_IF);
	assert_int_equal(ib->value->if_.cond->kind, E_VAR);
	Expr *th = ib->value->if_.then_, *el = ib->value->if_.else_;
	assert_int_equal(th->kind, E_SEQ);
	assert_int_equal(th->seq.nblocks, 1);
	assert_int_equal(th->seq.blocks[0]->n, 2);
	Binding *ty = th->seq.blocks[0]->bindings[1];
	assert_string_equal(ty->var->name, "y");
	assert_true(ty->annotated);
	assert_ptr_equal(th->seq.body->var, ty->var);
	/* a leaf result is the branch's body itself */
	assert_int_equal(el->seq.nblocks, 0);
	assert_ptr_equal(el->seq.body->var, f->params[1]);
	Binding *zb = bind_at(f, 0, 1);
	assert_ptr_equal(zb->value->call.args[0]->var, ib->var);
	ir_module_free(m);

	/* names of a branch are not visible after the if */
	ERR(HEAD
	    "    @R.function\n"
	    "    def f(c: R.Tensor((), \"bool\"), x: R.Tensor((3,), \"float32\")):\n"
	    "        if c:\n"
	    "            t = R.exp(x)\n"
	    "            y = t\n"
	    "        else:\n"
	    "            y = x\n"
	    "        return t\n",
	    10, 16, "undefined name 't'");
}

static void
test_op_arguments(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((2, 3), \"float32\"), s: R.Shape([6])):\n"
		"        a = R.nn.softmax(x)\n"
		"        b = R.sum(x, axis=1, keepdims=True)\n"
		"        c = R.reshape(x, (3, 2))\n"
		"        d = R.reshape(x, s)\n"
		"        e = R.zeros(R.shape([2, 3]), \"int32\")\n"
		"        g = R.clip(x, 0, 6)\n"
		"        h = R.nn.layer_norm(x, x, x, axes=-1, epsilon=1)\n"
		"        i = R.arange(0, 10, 1)\n"
		"        j = R.astype(x, dtype=\"bfloat16\")\n"
		"        k = R.nn.conv2d(x, x, padding=(1, 1, 1, 1))\n"
		"        l = R.concat([x, x], axis=None)\n"
		"        n = R.builtin.stop_lift_params(x)\n"
		"        o = R.full((2,), R.const(1.5, \"float16\"))\n"
		"        return o\n");
	Func *f = m->funcs[0];
	Expr *e;
	e = bind_at(f, 0, 0)->value; /* default axis */
	assert_int_equal(e->call.attrs[0].kind, AV_INT);
	assert_int_equal(e->call.attrs[0].i, -1);
	e = bind_at(f, 0, 1)->value;
	assert_int_equal(e->call.attrs[0].kind, AV_INTS);
	assert_int_equal(e->call.attrs[0].n, 1);
	assert_int_equal(e->call.attrs[0].ints[0], 1);
	assert_int_equal(e->call.attrs[1].kind, AV_BOOL);
	assert_int_equal(e->call.attrs[1].i, 1);
	e = bind_at(f, 0, 2)->value;
	assert_int_equal(e->call.args[1]->kind, E_SHAPE);
	assert_int_equal(e->call.args[1]->shape.n, 2);
	e = bind_at(f, 0, 3)->value;
	assert_int_equal(e->call.args[1]->kind, E_VAR);
	e = bind_at(f, 0, 4)->value;
	assert_int_equal(e->call.nargs, 1);
	assert_int_equal(e->call.args[0]->kind, E_SHAPE);
	assert_int_equal(e->call.attrs[0].dtype, DT_I32);
	e = bind_at(f, 0, 5)->value;
	assert_int_equal(e->call.nargs, 3);
	assert_int_equal(e->call.args[1]->kind, E_PRIM);
	assert_int_equal(e->call.args[2]->prim.value->value, 6);
	e = bind_at(f, 0, 6)->value;
	assert_int_equal(e->call.attrs[0].kind, AV_INTS);
	assert_int_equal(e->call.attrs[0].ints[0], -1);
	assert_int_equal(e->call.attrs[1].kind, AV_FLOAT);
	assert_true(e->call.attrs[1].f == 1.0);
	assert_int_equal(e->call.attrs[2].kind, AV_BOOL);
	e = bind_at(f, 0, 7)->value;
	assert_int_equal(e->call.nargs, 3);
	assert_int_equal(e->call.attrs[0].dtype, DT_I64);
	e = bind_at(f, 0, 8)->value;
	assert_int_equal(e->call.attrs[0].dtype, DT_BF16);
	e = bind_at(f, 0, 9)->value;
	assert_int_equal(e->call.nattrs, 8);
	assert_int_equal(e->call.attrs[1].n, 4);
	assert_string_equal(e->call.attrs[4].s, "NCHW");
	assert_int_equal(e->call.attrs[7].kind, AV_DTYPE);
	e = bind_at(f, 0, 10)->value;
	assert_int_equal(e->call.args[0]->kind, E_TUPLE);
	assert_int_equal(e->call.attrs[0].kind, AV_NONE);
	assert_int_equal(bind_at(f, 0, 11)->value->call.op, OP_STOP_LIFT_PARAMS);
	e = bind_at(f, 0, 12)->value;
	assert_int_equal(e->call.args[1]->kind, E_CONST);
	assert_int_equal(e->call.args[1]->cdata.dtype, DT_F16);
	assert_int_equal(*(uint16_t *)e->call.args[1]->cdata.data, 0x3e00);
	assert_int_equal(e->call.attrs[0].kind, AV_NONE);

	/* the same attributes by name, through the generated slot table */
	e = bind_at(f, 0, 1)->value; /* sum(x, axis=1, keepdims=True) */
	assert_ptr_equal(op_attr(e, P_axis), &e->call.attrs[0]);
	assert_int_equal(op_attr(e, P_keepdims)->i, 1);
	assert_null(op_attr_opt(e, P_epsilon));
	assert_true(op_has_param(OP_SUM, P_axis));
	assert_false(op_has_param(OP_SUM, P_axes));
	assert_ptr_equal(op_arg(e, P_x), e->call.args[0]);
	assert_null(op_arg(e, P_axis)); /* an attribute, not an argument */
	e = bind_at(f, 0, 5)->value; /* clip(x, 0, 6) */
	assert_int_equal(op_arg(e, P_max)->prim.value->value, 6);
	assert_null(op_attr_opt(e, P_max));
	e = bind_at(f, 0, 9)->value; /* conv2d: the 5th attribute */
	assert_string_equal(op_attr(e, P_data_layout)->s, "NCHW");
	assert_string_equal(op_param_names[P_data_layout], "data_layout");
	ir_module_free(m);
}

static void
test_constants(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f():\n"
		"        a = R.const(1.5, \"float32\")\n"
		"        b = R.const([[1, 2], [3, -4]], \"int32\")\n"
		"        c = R.const(2)\n"
		"        d = R.const([True, False])\n"
		"        e = R.const(-1.0, \"bfloat16\")\n"
		"        g = R.const(float(\"inf\"), \"float64\")\n"
		"        h = R.prim_value(T.float32(0.5))\n"
		"        i = R.str(\"hi\")\n"
		"        return (a, b, c, d, e, g, h, i)\n");
	Func *f = m->funcs[0];
	Expr *a = bind_at(f, 0, 0)->value;
	assert_int_equal(a->kind, E_CONST);
	assert_int_equal(a->cdata.ndim, 0);
	assert_true(*(float *)a->cdata.data == 1.5f);
	Expr *b = bind_at(f, 0, 1)->value;
	assert_int_equal(b->cdata.ndim, 2);
	assert_int_equal(b->cdata.shape[0], 2);
	assert_int_equal(((int32_t *)b->cdata.data)[3], -4);
	Expr *c = bind_at(f, 0, 2)->value;
	/* as TVM's relax.const: a Python int without a dtype is int32 */
	assert_int_equal(c->cdata.dtype, DT_I32);
	assert_int_equal(*(int32_t *)c->cdata.data, 2);
	Expr *d = bind_at(f, 0, 3)->value;
	assert_int_equal(d->cdata.dtype, DT_BOOL);
	assert_int_equal(((uint8_t *)d->cdata.data)[0], 1);
	assert_int_equal(((uint8_t *)d->cdata.data)[1], 0);
	Expr *e = bind_at(f, 0, 4)->value;
	assert_int_equal(*(uint16_t *)e->cdata.data, 0xbf80);
	Expr *g = bind_at(f, 0, 5)->value;
	assert_true(*(double *)g->cdata.data > 1e308);
	Expr *h = bind_at(f, 0, 6)->value;
	assert_int_equal(h->prim.dtype, DT_F32);
	assert_true(h->prim.f == 0.5);
	assert_string_equal(bind_at(f, 0, 7)->value->str, "hi");
	/* the returned tuple of leaves is a leaf: no gv binding */
	assert_int_equal(f->body->seq.blocks[0]->n, 8);
	assert_int_equal(f->body->seq.body->kind, E_TUPLE);
	ir_module_free(m);
}

static void
test_layout_crlf_comments_tabs(void **state)
{
	(void)state;
	Module *m = parse_ok(
		"# leading comment\r\n"
		"\r\n"
		"@I.ir_module\r\n"
		"class Module:  # trailing comment\r\n"
		"\t@R.function\r\n"
		"\tdef f(x: R.Tensor((2,),\r\n"
		"\t                  \"float32\"),  # inside brackets\r\n"
		"\t      ) -> R.Tensor((2,), \"float32\"):\r\n"
		"\t\t# a comment line\r\n"
		"\r\n"
		"\t\ty = R.add(x, \\\r\n"
		"\t\t          x)\r\n"
		"\t\treturn y");
	Func *f = m->funcs[0];
	assert_int_equal(f->nparams, 1);
	Binding *y = bind_at(f, 0, 0);
	assert_int_equal(y->span.line, 11);
	assert_int_equal(y->span.col, 3);
	ir_module_free(m);
}

static void
test_shadowing_and_fresh_names(void **state)
{
	(void)state;
	Module *m = parse_ok(
		HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((2,), \"float32\")):\n"
		"        y = R.add(x, x)\n"
		"        y = R.add(y, R.exp(y))\n"
		"        lv = R.exp(y)\n"
		"        return R.add(lv, y)\n");
	Func *f = m->funcs[0];
	Binding *y1 = bind_at(f, 0, 0), *t = bind_at(f, 0, 1),
		*y2 = bind_at(f, 0, 2);
	assert_ptr_not_equal(y1->var, y2->var);
	assert_string_equal(y2->var->name, "y");
	assert_ptr_equal(y2->value->call.args[0]->var, y1->var);
	/* `lv` is taken by the user: the generated name skips it */
	assert_string_equal(t->var->name, "lv1");
	assert_ptr_equal(bind_at(f, 0, 3)->value->call.args[0]->var, y2->var);
	assert_string_equal(bind_at(f, 0, 4)->var->name, "gv");
	assert_ptr_equal(bind_at(f, 0, 4)->value->call.args[1]->var, y2->var);
	ir_module_free(m);
}

static void
test_empty_module(void **state)
{
	(void)state;
	Module *m = parse_ok(HEAD "    pass\n");
	assert_int_equal(m->nfuncs, 0);
	ir_module_free(m);
	/* a file without a module class is refused */
	ERR("", 1, 1, "no @I.ir_module class");
	ERR("# nothing\nimport tvm\n", 1, 1, "no @I.ir_module class");
}

/* ------------------------------------------------- TVM's printed syntax */

/* Docstrings (module, class, function; triple-quoted, over lines). */
static void
test_docstrings(void **state)
{
	(void)state;
	Module *m = parse_ok(
		"\"\"\"A module\nover two lines.\"\"\"\n"
		"@I.ir_module\nclass Module:\n"
		"    '''Class doc with \"quotes\" and ''two''.'''\n\n"
		"    @R.function\n"
		"    def f(x: R.Tensor((2,), \"float32\")):\n"
		"        \"\"\"Function doc.\n\n        More.\n        \"\"\"\n"
		"        \"a plain string statement\"\n"
		"        y = R.exp(x)\n"
		"        return y\n");
	assert_int_equal(m->nfuncs, 1);
	Func *f = m->funcs[0];
	assert_int_equal(f->body->seq.nblocks, 1);
	assert_int_equal(f->body->seq.blocks[0]->n, 1);
	assert_int_equal(bind_at(f, 0, 0)->span.line, 14);
	ir_module_free(m);
	ERR(HEAD "    \"\"\"never closed\n    pass\n", 3, 5,
	    "unterminated triple-quoted string");
	/* a docstring is not a value */
	ERR(HEAD FN "        y = \"\"\"s\"\"\"\n        return y\n", 5, 13,
	    "unexpected expression");
}

/* `cls = Module` (any class name) is TVM's alias of the module. */
static void
test_cls_alias(void **state)
{
	(void)state;
	Module *m = parse_ok(HEAD
		"    @R.function\n"
		"    def g(x: R.Tensor((2,), \"float32\")):\n"
		"        return x\n"
		"    @R.function\n"
		"    def f(x: R.Tensor((2,), \"float32\")):\n"
		"        cls = Before\n"
		"        y = cls.g(x)\n"
		"        return y\n");
	Func *f = m->funcs[1];
	assert_int_equal(f->body->seq.blocks[0]->n, 1);
	assert_int_equal(bind_at(f, 0, 0)->value->kind, E_CALL_FN);
	ir_module_free(m);
	/* naming a variable, it is an ordinary binding */
	m = parse_ok(HEAD FN "        cls = x\n        return cls\n");
	assert_int_equal(m->funcs[0]->body->seq.blocks[0]->n, 1);
	ir_module_free(m);
}

/* T.int64(16) dims, R.ShapeExpr, list shapes, conv2d padding widened. */
static void
test_tvm_dims_and_shapes(void **state)
{
	(void)state;
	Module *m = parse_ok(HEAD
		"    @R.function(pure=True)\n"
		"    def f(\n"
		"        x: R.Tensor([16, \"n\"], \"float32\"),\n"
		"        w: R.Tensor((4, 16, 3, 3), \"float32\"),\n"
		"        s: R.Shape([\"n\"]),\n"
		"    ) -> R.Tensor((T.int64(16), \"n\"), \"float32\"):\n"
		"        n = T.int64()\n"
		"        a = R.shape([T.int64(16), n])\n"
		"        b = R.reshape(x, R.ShapeExpr([n, 16]))\n"
		"        c = R.reshape(x, [2, T.int64(8), n])\n"
		"        return x\n");
	Func *f = m->funcs[0];
	assert_int_equal(f->nparams, 3);
	assert_int_equal(f->params[0]->sinfo->ndim, 2);
	assert_int_equal(f->ret->shape[0]->kind, PE_INT);
	assert_int_equal(f->ret->shape[0]->value, 16);
	Expr *a = bind_at(f, 0, 0)->value;
	assert_int_equal(a->kind, E_SHAPE);
	assert_int_equal(a->shape.values[0]->value, 16);
	assert_ptr_equal(a->shape.values[1]->var, f->symvars[0]);
	assert_int_equal(bind_at(f, 0, 1)->value->call.args[1]->kind, E_SHAPE);
	assert_int_equal(bind_at(f, 0, 2)->value->call.args[1]->shape.n, 3);
	ir_module_free(m);

	m = parse_ok(HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((1, 16, 8, 8), \"float32\"), w: R.Tensor((4, 16, 3, 3), \"float32\")):\n"
		"        a = R.nn.conv2d(x, w, strides=2, padding=(1, 2), dilation=[1, 1])\n"
		"        b = R.nn.conv2d(x, w, padding=1)\n"
		"        return a\n");
	f = m->funcs[0];
	AttrVal *at = bind_at(f, 0, 0)->value->call.attrs;
	assert_int_equal(at[0].n, 2);
	assert_int_equal(at[0].ints[1], 2);
	assert_int_equal(at[1].n, 4);
	assert_int_equal(at[1].ints[0], 1);
	assert_int_equal(at[1].ints[1], 2);
	assert_int_equal(at[1].ints[2], 1);
	assert_int_equal(at[1].ints[3], 2);
	at = bind_at(f, 0, 1)->value->call.attrs;
	assert_int_equal(at[1].n, 4);
	assert_int_equal(at[1].ints[3], 1);
	ir_module_free(m);
}

/* Python operators, `m, n = T.int64(), T.int64()`, unparenthesized tuples. */
static void
test_python_operators(void **state)
{
	(void)state;
	Module *m = parse_ok(HEAD
		"    @R.function\n"
		"    def f(x: R.Tensor((\"m\", \"n\"), \"float32\"), y: R.Tensor((\"m\", \"n\"), \"float32\")):\n"
		"        m, n = T.int64(), T.int64()\n"
		"        a = x + y\n"
		"        b = x * y - a / y\n"
		"        c = -b // x\n"
		"        t = a, b\n"
		"        return c, t\n");
	Func *f = m->funcs[0];
	assert_int_equal(f->nsymvars, 2);
	assert_string_equal(f->symvars[1]->name, "n");
	static const OpKind want[] = {OP_ADD, OP_MULTIPLY, OP_DIVIDE,
				      OP_SUBTRACT, OP_NEGATIVE, OP_FLOOR_DIVIDE};
	for (int i = 0; i < 6; i++)
		assert_int_equal(bind_at(f, 0, i)->value->call.op, want[i]);
	/* `a / y` is bound to lv1 before `b` */
	assert_string_equal(bind_at(f, 0, 2)->var->name, "lv1");
	assert_int_equal(bind_at(f, 0, 4)->value->call.nargs, 1);
	assert_int_equal(bind_at(f, 0, 6)->value->kind, E_TUPLE);
	assert_int_equal(f->body->seq.body->kind, E_TUPLE);
	ir_module_free(m);
	ERR(HEAD FN "        y = x * 2\n        return y\n", 5, 17,
	    "operand of operator must be a Relax expression, not a Python number");
	ERR(HEAD FN "        y = x % x\n        return y\n", 5, 13,
	    "operator '%' on Relax values is not supported");
	ERR(HEAD FN "        y = R.reshape(x, (1 / 2,))\n        return y\n", 5, 27,
	    "'/' in a dimension expression");
}

/* ------------------------------------------------------------- errors */

static void
test_lexical_errors(void **state)
{
	(void)state;
	ERR(HEAD FN "        y = R.str(\"abc)\n        return x\n", 5, 19,
	    "unterminated string");
	ERR(HEAD FN "        y = `model.w\n        return x\n", 5, 13,
	    "unterminated backquoted name");
	ERR(HEAD FN "        y = x $ 2\n        return x\n", 5, 15, "stray '$'");
	static const char garbage[] = HEAD FN "        y = \x01x\n";
	parse_err(garbage, sizeof garbage - 1, 5, 13, "stray byte");
	/* not text: the first NUL or malformed UTF-8 byte, located */
	static const char bin[] = HEAD FN "        y = \x01\xff\x00x\n";
	parse_err(bin, sizeof bin - 1, 5, 14, "not UTF-8 text");
	static const char nul[] = HEAD FN "        y = \"a\x00\"\n";
	parse_err(nul, sizeof nul - 1, 5, 15, "a NUL byte");
	static const char overlong[] = HEAD FN "        y = \"\xc0\xaf\"\n";
	parse_err(overlong, sizeof overlong - 1, 5, 14, "not UTF-8 text");
	static const char surrogate[] = HEAD FN "        y = \"\xed\xa0\x80\"\n";
	parse_err(surrogate, sizeof surrogate - 1, 5, 14, "not UTF-8 text");
	static const char cut[] = HEAD FN "        y = \"\xe2\x82";
	parse_err(cut, sizeof cut - 1, 5, 14, "not UTF-8 text");
	ERR("  @I.ir_module\nclass M:\n    pass\n", 1, 1,
	    "unexpected indentation");
}

static void
test_indentation_errors(void **state)
{
	(void)state;
	ERR(HEAD FN "        y = R.add(x, x)\n      return y\n", 6, 7,
	    "unindent does not match");
	ERR(HEAD FN "        y = R.add(x, x)\n            z = y\n        return y\n",
	    6, 13, "unexpected indentation");
}

static void
test_syntax_errors(void **state)
{
	(void)state;
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor((2,), \"float32\"))\n"
	    "        return x\n", 4, 40, "expected ':' before end of line");
	ERR(HEAD FN "        for i in x:\n            pass\n        return x\n",
	    5, 9, "'for' is not supported in a Relax function");
	/* several errors in one run, then nothing is built */
	int n = ERR(HEAD FN "        y = = x\n        z = R.add(x,, x)\n"
		    "        return x\n", 5, 13, "unexpected '='");
	assert_int_equal(n, 2);
}

static void
test_semantic_errors(void **state)
{
	(void)state;
	ERR(HEAD FN "        y = R.call_tir(x)\n        return y\n", 5, 13,
	    "R.call_tir missing required argument 'args'");
	ERR(HEAD FN "        y = R.astype(x, \"float8\")\n        return y\n",
	    5, 25, "unknown dtype 'float8'");
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor((2,), \"float33\")):\n"
	    "        return x\n", 4, 29, "unknown dtype 'float33'");
	ERR(HEAD "    @R.function\n    def f(x, y: R.Tensor):\n        return x\n",
	    4, 11, "parameter 'x' of 'f' must be annotated");
	ERR(HEAD FN "        y = R.add(x, q)\n        return y\n", 5, 22,
	    "undefined name 'q'");
	ERR(HEAD "    @T.prim_func\n    def k(a: T.handle):\n        T.expp(a)\n", 5, 9,
	    "unknown TIR intrinsic 'T.expp'; did you mean 'T.exp'?");
	ERR(HEAD FN "        y = R.add(x, x, x)\n        return y\n", 5, 25,
	    "R.add takes 2 arguments but 3 were given");
	ERR(HEAD FN "        y = R.nn.softmax(x, dim=1)\n        return y\n", 5, 29,
	    "unexpected keyword argument 'dim'");
	ERR(HEAD FN "        y = R.nn.softmax(x, axis=\"1\")\n        return y\n", 5,
	    34, "argument 'axis' of R.nn.softmax must be an integer");
	ERR(HEAD FN "        y = R.add(x)\n        return y\n", 5, 13,
	    "missing required argument 'x2'");
	ERR(HEAD FN "        y = cls.g(x)\n        return y\n", 5, 13,
	    "unknown function 'g'");
	ERR(HEAD FN "        with R.dataflow():\n            y = R.exp(x)\n"
	    "            z = R.exp(y)\n            R.output(z)\n"
	    "        return y\n", 9, 16, "DataflowVar of a dataflow block that has ended");
	ERR(HEAD FN "        with R.dataflow():\n            y = R.exp(x)\n"
	    "            R.output(x)\n        return y\n", 7, 22,
	    "'x' is not defined in this dataflow block");
	ERR(HEAD FN "        y = R.reshape(x, (m, 2))\n        return y\n", 5, 27,
	    "undefined symbolic variable 'm'");
	ERR(HEAD FN "        y = R.exp(x)\n", 4, 9, "has no return statement");
	ERR(HEAD FN "        a.b, c = R.split(x, 2)\n        return c\n", 5, 9,
	    "only names can be unpacked");
	ERR(HEAD FN "        a, b = T.int64(), 5\n        return x\n", 5, 9,
	    "a tuple written out unpacks only into declarations");
	ERR(HEAD FN "        c = I.meta_var(x)\n        return x\n", 5, 13,
	    "I.meta_var here takes an integer");
	ERR(HEAD FN "        q = R.const([[1, 2], [3]])\n        return q\n", 5, 30,
	    "not a rectangular nested list");
	ERR(HEAD FN "        y = R.add(x, 1)\n        return y\n", 5, 22,
	    "must be an expression, not a Python value");
	ERR(HEAD "    def g(x: R.Tensor):\n        return x\n", 3, 9,
	    "needs the @R.function decorator");
	/* errors in two functions are both reported */
	int n = ERR(HEAD FN "        return R.foo(x)\n"
		    "    @R.function\n    def g(x: R.Tensor):\n"
		    "        return R.bar(x)\n",
		    5, 16, "unknown operator R.foo");
	assert_int_equal(n, 2);
}

/* One mistake, one error; the nearest name is suggested. */
static void
test_no_cascade_and_suggestions(void **state)
{
	(void)state;
	/* a failed value still defines its variable */
	int n = ERR(HEAD FN "        with R.dataflow():\n"
		    "            gv = R.add(x, hidden)\n"
		    "            R.output(gv)\n"
		    "        return gv\n", 6, 27, "undefined name 'hidden'");
	assert_int_equal(n, 1);
	n = ERR(HEAD FN "        y = R.matmul(x)\n        z = R.exp(y)\n"
		"        return z\n", 5, 13, "missing required argument 'x2'");
	assert_int_equal(n, 1);
	/* an undefined name is reported once */
	n = ERR(HEAD FN "        y = R.add(x, q)\n        z = R.add(q, y)\n"
		"        return z\n", 5, 22, "undefined name 'q'");
	assert_int_equal(n, 1);
	n = ERR(HEAD FN "        if x:\n            y = R.foo(x)\n"
		"        else:\n            y = x\n        return y\n", 6, 17,
		"unknown operator R.foo");
	assert_int_equal(n, 1);
	n = ERR(HEAD FN "        a.b, c = R.split(x, 2)\n        return c\n", 5, 9,
		"only names can be unpacked");
	assert_int_equal(n, 2); /* c is undefined: a refused unpacking defines nothing */
	/* suggestions */
	ERR(HEAD FN "        hidden_states = R.exp(x)\n"
	    "        y = R.add(x, hiden_states)\n        return y\n", 6, 22,
	    "undefined name 'hiden_states'; did you mean 'hidden_states'?");
	ERR(HEAD FN "        y = R.add(x, q)\n        return y\n", 5, 22,
	    "undefined name 'q'\0");
	ERR(HEAD FN "        y = R.ad(x, x)\n        return y\n", 5, 13,
	    "unknown operator R.ad; did you mean R.add?");
	ERR(HEAD FN "        y = R.relu(x)\n        return y\n", 5, 13,
	    "did you mean R.nn.relu?");
	ERR(HEAD FN "        y = R.nn.add(x, x)\n        return y\n", 5, 13,
	    "did you mean R.add?");
	ERR(HEAD FN "        y = R.permute(x)\n        return y\n", 5, 13,
	    "did you mean R.permute_dims?");
	ERR(HEAD FN "        y = R.frobnicate(x)\n        return y\n", 5, 13,
	    "listed in docs/language.md");
	ERR(HEAD FN "        y = R.call_packd(x)\n        return y\n", 5, 13,
	    "no TIR or packed functions");
	ERR(HEAD FN "        y = R.astype(x, \"fp16\")\n        return y\n", 5, 25,
	    "unknown dtype 'fp16'; did you mean \"float16\"?");
	ERR(HEAD FN "        y = R.astype(x, \"flaot32\")\n        return y\n", 5, 25,
	    "did you mean \"float32\"?");
	ERR(HEAD FN "        y = R.astype(x, \"BF16\")\n        return y\n", 5, 25,
	    "did you mean \"bfloat16\"?");
	ERR(HEAD FN "        y = R.astype(x, \"float8\")\n        return y\n", 5, 25,
	    "rlx knows bool, int8");
	ERR(HEAD FN "        y = R.sum(x, axes=[0])\n        return y\n", 5, 22,
	    "unexpected keyword argument 'axes'; did you mean 'axis'?");
	ERR(HEAD FN "        y = R.sum(x, dims=[0])\n        return y\n", 5, 22,
	    "(its parameters are x, axis, keepdims)");
	ERR(HEAD FN "        y = R.matmul(x)\n        return y\n", 5, 13,
	    "(R.matmul takes x1, x2, out_dtype");
	ERR(HEAD FN "        y = cls.doubel(x)\n        return y\n"
	    "    @R.function\n    def double(x: R.Tensor):\n        return x\n",
	    5, 13, "unknown function 'doubel' in the module; did you mean cls.double?");
}

/* Misplaced statements and bad dimensions: one clear error each. */
static void
test_statement_and_dim_errors(void **state)
{
	(void)state;
	int n = ERR(HEAD FN "        with R.dataflow():\n            y = R.exp(x)\n"
		    "            R.output(y)\n            return y\n", 8, 13,
		    "return inside a dataflow block");
	assert_int_equal(n, 1);
	n = ERR(HEAD FN "        with R.dataflow():\n            a = R.exp(x)\n"
		"            R.output(a)\n            R.output(a)\n"
		"        return a\n", 8, 13, "a second R.output");
	assert_int_equal(n, 1);
	n = ERR(HEAD FN "        with R.dataflow():\n            a = R.exp(x)\n"
		"            R.output(a)\n            b = R.exp(a)\n"
		"        return a\n", 8, 13, "statement after R.output");
	assert_int_equal(n, 1);
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor((2.5,), \"float32\")):\n"
	    "        return x\n", 4, 24, "a dimension must be an integer, got 2.5");
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor((2, -1), \"float32\")):\n"
	    "        return x\n", 4, 27, "dimension -1 is negative");
	ERR(HEAD "    @R.function\n    def f(x: R.Shape([-4])):\n"
	    "        return x\n", 4, 23, "dimension -4 is negative");
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor, x: R.Tensor):\n"
	    "        return x\n", 4, 24, "duplicate parameter 'x' in function 'f'");
	ERR(HEAD "    @R.function\n    def f(x: R.Tensor) -> None:\n"
	    "        return x\n", 4, 27, "None is not a struct info annotation");
	/* Python's TabError; consistent tabs are fine */
	ERR(HEAD FN "        y = R.exp(x)\n\treturn y\n", 6, 1,
	    "inconsistent use of tabs and spaces");
	n = ERR(HEAD FN "\ty = R.exp(x)\n        return y\n", 5, 1,
		"inconsistent use of tabs and spaces");
	assert_int_equal(n, 1);
	Module *m = parse_ok("@I.ir_module\nclass M:\n\t@R.function\n"
			     "\tdef f(x: R.Tensor):\n\t\treturn x\n");
	ir_module_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_example),
		cmocka_unit_test(test_llama_mlp_normalized),
		cmocka_unit_test(test_symbolic),
		cmocka_unit_test(test_bare_dims_and_empty_dataflow),
		cmocka_unit_test(test_tuples_and_return),
		cmocka_unit_test(test_if_else),
		cmocka_unit_test(test_op_arguments),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_layout_crlf_comments_tabs),
		cmocka_unit_test(test_shadowing_and_fresh_names),
		cmocka_unit_test(test_empty_module),
		cmocka_unit_test(test_docstrings),
		cmocka_unit_test(test_cls_alias),
		cmocka_unit_test(test_tvm_dims_and_shapes),
		cmocka_unit_test(test_python_operators),
		cmocka_unit_test(test_lexical_errors),
		cmocka_unit_test(test_indentation_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_semantic_errors),
		cmocka_unit_test(test_no_cascade_and_suggestions),
		cmocka_unit_test(test_statement_and_dim_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
