/*
 * test_print.c — the printer: modules built by hand, exact text compared
 * with docs/language.md's canonical form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "ir.h"

static const Span sp0 = {0, 0, 0};

#define HDR "@I.ir_module\nclass Module:\n"

/* ---------------------------------------------------------------- helpers */

/* A fresh empty module. */
static Module *
mod(void)
{
	return ir_module_new("t.py", "", 0);
}

/* n integer dims, in m's arena. */
static PExpr **
idims(Module *m, int n, const int64_t *d)
{
	PExpr **p = ARENA_ARRAY(&m->arena, PExpr *, n ? n : 1);
	for (int i = 0; i < n; i++)
		p[i] = pe_int(&m->arena, d[i]);
	return p;
}

/* A tensor struct info with integer dims. */
static SInfo *
tens(Module *m, DType t, int n, ...)
{
	int64_t d[8];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		d[i] = va_arg(ap, int64_t);
	va_end(ap);
	return si_tensor(&m->arena, t, n, idims(m, n, d));
}

/* A use of v. */
static Expr *
ref(Module *m, Var *v)
{
	return ir_var_ref(m, v, sp0);
}

/* An op call with the given expression args and every attribute default. */
static Expr *
call(Module *m, OpKind op, int nargs, ...)
{
	OpSig sig;
	op_sig(op, &sig);
	Expr *e = ir_expr(m, E_CALL, sp0);
	e->call.op = op;
	e->call.nargs = nargs;
	e->call.args = ARENA_ARRAY(&m->arena, Expr *, nargs ? nargs : 1);
	va_list ap;
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
		e->call.args[i] = va_arg(ap, Expr *);
	va_end(ap);
	e->call.nattrs = sig.nattrs;
	e->call.attrs = ARENA_ARRAY(&m->arena, AttrVal, sig.nattrs + 1);
	for (int i = 0; i < sig.nparams; i++) {
		const OpParam *q = &sig.params[i];
		if (q->is_attr && q->has_default)
			e->call.attrs[q->slot] = op_default(m, q);
	}
	return e;
}

/* A block of n bindings. */
static Block *
block(Module *m, bool dataflow, int n, ...)
{
	Block *b = ARENA_NEW(&m->arena, Block);
	b->dataflow = dataflow;
	b->n = n;
	b->bindings = ARENA_ARRAY(&m->arena, Binding *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		b->bindings[i] = va_arg(ap, Binding *);
	va_end(ap);
	return b;
}

/* `v = value` */
static Binding *
bind(Module *m, Var *v, Expr *value)
{
	return ir_binding(m, v, value, sp0);
}

/* A sequence of nb blocks ending in body. */
static Expr *
seq(Module *m, Expr *body, int nb, ...)
{
	Expr *e = ir_expr(m, E_SEQ, sp0);
	e->seq.nblocks = nb;
	e->seq.blocks = ARENA_ARRAY(&m->arena, Block *, nb ? nb : 1);
	va_list ap;
	va_start(ap, nb);
	for (int i = 0; i < nb; i++)
		e->seq.blocks[i] = va_arg(ap, Block *);
	va_end(ap);
	e->seq.body = body;
	return e;
}

/* Adds a pure public function to m. */
static Func *
func(Module *m, const char *name, int np, Var **params, Expr *body)
{
	Func *f = ARENA_NEW(&m->arena, Func);
	f->name = arena_strdup(&m->arena, name);
	f->nparams = np;
	f->params = ARENA_ARRAY(&m->arena, Var *, np ? np : 1);
	for (int i = 0; i < np; i++)
		f->params[i] = params[i];
	f->body = body;
	f->pure = true;
	Func **fs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	for (int i = 0; i < m->nfuncs; i++)
		fs[i] = m->funcs[i];
	fs[m->nfuncs++] = f;
	m->funcs = fs;
	return f;
}

/* The module's text (no header unless asked); the caller frees it. */
static char *
text(const Module *m, bool header, bool tvm_names)
{
	PrintOpts o = {.tvm_names = tvm_names, .no_header = !header};
	StrBuf b = {0};
	print_module(&b, m, &o);
	return sb_take(&b);
}

/* Asserts that m prints (without header) as expected, then frees m. */
static void
check_module(Module *m, bool tvm_names, const char *expected)
{
	char *got = text(m, false, tvm_names);
	assert_string_equal(got, expected);
	free(got);
	ir_module_free(m);
}

static char *
sinfo_text(const SInfo *si)
{
	StrBuf b = {0};
	print_sinfo(&b, si);
	return sb_take(&b);
}

#define assert_sinfo(si, want)                                                \
	do {                                                                  \
		char *got_ = sinfo_text(si);                                  \
		assert_string_equal(got_, want);                              \
		free(got_);                                                   \
	} while (0)

static char *
expr_text(const Expr *e)
{
	StrBuf b = {0};
	print_expr(&b, e);
	return sb_take(&b);
}

#define assert_expr(e, want)                                                  \
	do {                                                                  \
		char *got_ = expr_text(e);                                    \
		assert_string_equal(got_, want);                              \
		free(got_);                                                   \
	} while (0)

/* A constant of the given dtype and shape over a copy of data. */
static Expr *
konst(Module *m, DType t, int ndim, const int64_t *shape, const void *data,
      size_t nbytes)
{
	Expr *e = ir_expr(m, E_CONST, sp0);
	e->cdata.dtype = t;
	e->cdata.ndim = ndim;
	e->cdata.shape = arena_memdup(&m->arena, shape,
				      sizeof(int64_t) * (size_t)ndim);
	e->cdata.data = arena_memdup(&m->arena, data, nbytes);
	return e;
}

/* ------------------------------------------------------------------ tests */

/* The example of docs/language.md, with integer dims, and a second function. */
static void
test_full_module(void **state)
{
	(void)state;
	Module *m = mod();
	Var *x = ir_var(m, "x", tens(m, DT_F32, 2, (int64_t)2, (int64_t)4),
			false, sp0);
	Var *w = ir_var(m, "model.w",
			tens(m, DT_F32, 2, (int64_t)4, (int64_t)4), false, sp0);
	Var *lv = ir_var(m, "lv", tens(m, DT_F32, 2, (int64_t)4, (int64_t)4),
			 true, sp0);
	Var *gv = ir_var(m, "gv", tens(m, DT_F32, 2, (int64_t)2, (int64_t)4),
			 false, sp0);
	Block *df = block(m, true, 2,
			  bind(m, lv, call(m, OP_PERMUTE_DIMS, 1, ref(m, w))),
			  bind(m, gv, call(m, OP_MATMUL, 2, ref(m, x),
					   ref(m, lv))));
	Var *ps[] = {x, w};
	Func *f = func(m, "main", 2, ps, seq(m, ref(m, gv), 1, df));
	f->ret = tens(m, DT_F32, 2, (int64_t)2, (int64_t)4);
	f->nattrs = 1;
	f->attrs = ARENA_NEW(&m->arena, FuncAttr);
	f->attrs[0].key = "num_input";
	f->attrs[0].val.kind = AV_INT;
	f->attrs[0].val.i = 1;

	Var *a = ir_var(m, "a", si_prim(&m->arena, DT_I64, NULL), false, sp0);
	Func *g = func(m, "helper", 1, &a, seq(m, ref(m, a), 0));
	g->is_private = true;

	char *got = text(m, true, false);
	assert_string_equal(got,
		"# from tvm.script import ir as I\n"
		"# from tvm.script import relax as R\n"
		"# from tvm.script import tir as T\n"
		"\n"
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(x: R.Tensor((2, 4), dtype=\"float32\"), `model.w`: R.Tensor((4, 4), dtype=\"float32\")) -> R.Tensor((2, 4), dtype=\"float32\"):\n"
		"        R.func_attr({\"num_input\": 1})\n"
		"        with R.dataflow():\n"
		"            lv: R.Tensor((4, 4), dtype=\"float32\") = R.permute_dims(`model.w`, axes=None)\n"
		"            gv: R.Tensor((2, 4), dtype=\"float32\") = R.matmul(x, lv, out_dtype=\"void\")\n"
		"            R.output(gv)\n"
		"        return gv\n"
		"\n"
		"    @R.function(private=True)\n"
		"    def helper(a: R.Prim(\"int64\")) -> R.Prim(\"int64\"):\n"
		"        return a\n");
	/* Printing does not change the module and is repeatable. */
	char *again = text(m, true, false);
	assert_string_equal(got, again);
	assert_string_equal(w->name, "model.w");
	free(again);
	free(got);
	ir_module_free(m);
}

/* The four decorators, and func_attr of several kinds. */
static void
test_decorators(void **state)
{
	(void)state;
	Module *m = mod();
	bool priv[] = {false, true, false, true}, pure[] = {true, true, false, false};
	const char *names[] = {"a", "b", "c", "d"};
	for (int i = 0; i < 4; i++) {
		Func *f = func(m, names[i], 0, NULL,
			       seq(m, ir_expr(m, E_TUPLE, sp0), 0));
		f->is_private = priv[i];
		f->pure = pure[i];
		f->ret = si_tuple(&m->arena, NULL, 0);
	}
	Func *f = m->funcs[0];
	f->nattrs = 3;
	f->attrs = ARENA_ARRAY(&m->arena, FuncAttr, 3);
	f->attrs[0] = (FuncAttr){"global_symbol", {.kind = AV_STR, .s = "a"}};
	f->attrs[1] = (FuncAttr){"flag", {.kind = AV_BOOL, .i = 1}};
	f->attrs[2] = (FuncAttr){"scale", {.kind = AV_FLOAT, .f = 0.5}};
	check_module(m, false, HDR
		"    @R.function\n"
		"    def a() -> R.Tuple:\n"
		"        R.func_attr({\"global_symbol\": \"a\", \"flag\": True, \"scale\": 0.5})\n"
		"        return ()\n"
		"\n"
		"    @R.function(private=True)\n"
		"    def b() -> R.Tuple:\n"
		"        return ()\n"
		"\n"
		"    @R.function(pure=False)\n"
		"    def c() -> R.Tuple:\n"
		"        return ()\n"
		"\n"
		"    @R.function(private=True, pure=False)\n"
		"    def d() -> R.Tuple:\n"
		"        return ()\n");
}

/* Every struct info form, as print_sinfo writes it (body form). */
static void
test_sinfo_forms(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	assert_sinfo(NULL, "R.Any");
	assert_sinfo(si_object(a), "R.Any");
	assert_sinfo(tens(m, DT_F32, 2, (int64_t)2, (int64_t)3),
		     "R.Tensor((2, 3), dtype=\"float32\")");
	assert_sinfo(tens(m, DT_F32, 0), "R.Tensor((), dtype=\"float32\")");
	/* rank 0 with no shape is not the empty shape (TVM: shape None vs
	 * ShapeExpr([])); reading R.Tensor((), ...) back gives the latter */
	assert_sinfo(si_tensor(a, DT_F16, 0, NULL),
		     "R.Tensor(dtype=\"float16\", ndim=0)");
	assert_sinfo(tens(m, DT_I64, 1, (int64_t)4),
		     "R.Tensor((4,), dtype=\"int64\")");
	assert_sinfo(tens(m, DT_UNKNOWN, 2, (int64_t)2, (int64_t)3),
		     "R.Tensor((2, 3))");
	assert_sinfo(si_tensor(a, DT_F32, 2, NULL),
		     "R.Tensor(dtype=\"float32\", ndim=2)");
	assert_sinfo(si_tensor(a, DT_BF16, -1, NULL),
		     "R.Tensor(dtype=\"bfloat16\")");
	assert_sinfo(si_tensor(a, DT_UNKNOWN, 2, NULL), "R.Tensor(ndim=2)");
	assert_sinfo(si_tensor(a, DT_UNKNOWN, -1, NULL), "R.Tensor");
	int64_t d[] = {2, 5};
	assert_sinfo(si_shape(a, 2, idims(m, 2, d)), "R.Shape([2, 5])");
	assert_sinfo(si_shape(a, 1, idims(m, 1, d)), "R.Shape([2])");
	assert_sinfo(si_shape(a, 0, idims(m, 0, d)), "R.Shape([])");
	assert_sinfo(si_shape(a, 0, NULL), "R.Shape(ndim=0)");
	assert_sinfo(si_shape(a, 2, NULL), "R.Shape(ndim=2)");
	assert_sinfo(si_shape(a, -1, NULL), "R.Shape");
	assert_sinfo(si_prim(a, DT_I64, NULL), "R.Prim(\"int64\")");
	assert_sinfo(si_prim(a, DT_BOOL, NULL), "R.Prim(\"bool\")");
	assert_sinfo(si_prim(a, DT_I64, pe_int(a, 7)), "R.Prim(value=7)");
	SInfo *fs[] = {tens(m, DT_F32, 1, (int64_t)3), si_object(a)};
	assert_sinfo(si_tuple(a, fs, 2),
		     "R.Tuple(R.Tensor((3,), dtype=\"float32\"), R.Any)");
	assert_sinfo(si_tuple(a, fs, 1),
		     "R.Tuple(R.Tensor((3,), dtype=\"float32\"))");
	assert_sinfo(si_tuple(a, NULL, 0), "R.Tuple");
	SInfo *nested[] = {si_tuple(a, fs, 2), si_tuple(a, NULL, 0)};
	assert_sinfo(si_tuple(a, nested, 2),
		     "R.Tuple(R.Tuple(R.Tensor((3,), dtype=\"float32\"), R.Any), R.Tuple)");
	assert_sinfo(si_func(a, fs, 2, si_object(a), true),
		     "R.Callable((R.Tensor((3,), dtype=\"float32\"), R.Any), R.Any)");
	assert_sinfo(si_func(a, fs + 1, 1, fs[0], true),
		     "R.Callable((R.Any,), R.Tensor((3,), dtype=\"float32\"))");
	assert_sinfo(si_func(a, NULL, 0, NULL, true),
		     "R.Callable((), R.Any)");
	ir_module_free(m);
}

/* pe_print's text of x, for expectations about symbolic dims. */
static char *
pe_text(const PExpr *x)
{
	StrBuf b = {0};
	pe_print(&b, x);
	return sb_take(&b);
}

/*
 * Symbolic dims are strings in the signature and bare in the body, after
 * one `n = T.int64()` line per symbolic variable. The expected text is built
 * from pe_print, so it holds whatever prim.c writes.
 */
static void
test_symbolic_dims(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	SymVar *n = ir_symvar(m, "n", sp0);
	PExpr *pn = pe_var(a, n);
	PExpr *n2 = pe_bin(a, PE_MUL, pn, pe_int(a, 2));
	PExpr **xd = ARENA_ARRAY(a, PExpr *, 2);
	xd[0] = pn;
	xd[1] = pe_int(a, 4);
	Var *x = ir_var(m, "x", si_tensor(a, DT_F32, 2, xd), false, sp0);
	PExpr **pd = ARENA_ARRAY(a, PExpr *, 1);
	pd[0] = n2;
	Var *s = ir_var(m, "s", si_prim(a, DT_I64, pn), false, sp0);
	Var *y = ir_var(m, "y", si_tensor(a, DT_F32, 1, pd), false, sp0);
	Expr *shp = ir_expr(m, E_SHAPE, sp0);
	shp->shape.n = 1;
	shp->shape.values = pd;
	Block *blk = block(m, false, 1,
			   bind(m, y, call(m, OP_RESHAPE, 2, ref(m, x), shp)));
	Var *ps[] = {x, s};
	Func *f = func(m, "f", 2, ps, seq(m, ref(m, y), 1, blk));
	f->nsymvars = 1;
	f->symvars = ARENA_NEW(a, SymVar *);
	f->symvars[0] = n;
	f->ret = si_tensor(a, DT_F32, 1, pd);

	char *tn = pe_text(pn), *tn2 = pe_text(n2);
	char want[1024];
	snprintf(want, sizeof want, HDR
		 "    @R.function\n"
		 "    def f(x: R.Tensor((\"%s\", 4), dtype=\"float32\"), s: R.Prim(value=\"%s\")) -> R.Tensor((\"%s\",), dtype=\"float32\"):\n"
		 "        n = T.int64()\n"
		 "        y: R.Tensor((%s,), dtype=\"float32\") = R.reshape(x, R.shape([%s]))\n"
		 "        return y\n",
		 tn, tn, tn2, tn2, tn2);
	check_module(m, false, want);
	free(tn);
	free(tn2);
}

/* Two symbolic variables sharing a name: the second prints as n_1. */
static void
test_symvar_names(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	SymVar *n = ir_symvar(m, "n", sp0);
	SymVar *n1 = ir_symvar(m, "n", sp0);
	SymVar *w = ir_symvar(m, "x", sp0); /* clashes with the param x */
	Var *x = ir_var(m, "x", si_prim(a, DT_I64, NULL), false, sp0);
	Func *f = func(m, "f", 1, &x, seq(m, ref(m, x), 0));
	f->nsymvars = 3;
	f->symvars = ARENA_ARRAY(a, SymVar *, 3);
	f->symvars[0] = n;
	f->symvars[1] = n1;
	f->symvars[2] = w;
	f->ret = si_prim(a, DT_I64, NULL);
	/* A dim over the second n prints with the name n_1, as pe_print
	 * writes a variable so named. */
	SymVar fake = *n1;
	fake.name = "n_1";
	PExpr fk = {.kind = PE_VAR, .var = &fake};
	char *tf = pe_text(&fk);
	PExpr **d = ARENA_ARRAY(a, PExpr *, 1);
	d[0] = pe_var(a, n1);
	Var *y = ir_var(m, "y", si_tensor(a, DT_F32, 1, d), false, sp0);
	Expr *shp = ir_expr(m, E_SHAPE, sp0);
	shp->shape.n = 1;
	shp->shape.values = d;
	Block *blk = block(m, false, 1,
			   bind(m, y, call(m, OP_ZEROS, 1, shp)));
	blk->bindings[0]->value->call.attrs[0] =
		(AttrVal){.kind = AV_DTYPE, .dtype = DT_F32};
	f->body = seq(m, ref(m, x), 1, blk);
	char want[1024];
	snprintf(want, sizeof want, HDR
		 "    @R.function\n"
		 "    def f(x: R.Prim(\"int64\")) -> R.Prim(\"int64\"):\n"
		 "        n = T.int64()\n"
		 "        n_1 = T.int64()\n"
		 "        x_1 = T.int64()\n"
		 "        y: R.Tensor((%s,), dtype=\"float32\") = R.zeros(R.shape([%s]), dtype=\"float32\")\n"
		 "        return x\n",
		 tf, tf);
	check_module(m, false, want);
	free(tf);
}

/*
 * The same with literal text, once prim.c prints variables (skipped while
 * its stub writes "?"): string dims in the signature, bare in the body, and
 * a second symbolic `n` renamed inside dimension expressions.
 */
static void
test_symbolic_literal(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	SymVar *n = ir_symvar(m, "n", sp0);
	SymVar *n1 = ir_symvar(m, "n", sp0);
	char *probe = pe_text(pe_var(a, n));
	bool stub = !strcmp(probe, "?");
	free(probe);
	if (stub) {
		ir_module_free(m);
		skip();
	}
	PExpr *pn = pe_var(a, n), *pn1 = pe_var(a, n1);
	PExpr **xd = ARENA_ARRAY(a, PExpr *, 2);
	xd[0] = pn;
	xd[1] = pe_int(a, 4);
	PExpr **yd = ARENA_ARRAY(a, PExpr *, 1);
	yd[0] = pe_bin(a, PE_MUL, pn1, pe_int(a, 2));
	Var *x = ir_var(m, "x", si_tensor(a, DT_F32, 2, xd), false, sp0);
	Var *s = ir_var(m, "s", si_prim(a, DT_I64, pn1), false, sp0);
	Var *y = ir_var(m, "y", si_tensor(a, DT_F32, 1, yd), false, sp0);
	Expr *shp = ir_expr(m, E_SHAPE, sp0);
	shp->shape.n = 1;
	shp->shape.values = yd;
	Block *blk = block(m, false, 1,
			   bind(m, y, call(m, OP_RESHAPE, 2, ref(m, x), shp)));
	Var *ps[] = {x, s};
	Func *f = func(m, "f", 2, ps, seq(m, ref(m, y), 1, blk));
	f->nsymvars = 2;
	f->symvars = ARENA_ARRAY(a, SymVar *, 2);
	f->symvars[0] = n;
	f->symvars[1] = n1;
	f->ret = si_tensor(a, DT_F32, 1, yd);
	assert_sinfo(f->ret, "R.Tensor((n * 2,), dtype=\"float32\")");
	check_module(m, false, HDR
		"    @R.function\n"
		"    def f(x: R.Tensor((\"n\", 4), dtype=\"float32\"), s: R.Prim(value=\"n_1\")) -> R.Tensor((\"n_1 * 2\",), dtype=\"float32\"):\n"
		"        n = T.int64()\n"
		"        n_1 = T.int64()\n"
		"        y: R.Tensor((n_1 * 2,), dtype=\"float32\") = R.reshape(x, R.shape([n_1 * 2]))\n"
		"        return y\n");
}

/* A scalar constant of dtype t, printed. */
static char *
scalar_text(DType t, const void *v, size_t n)
{
	Module *m = mod();
	char *s = expr_text(konst(m, t, 0, NULL, v, n));
	ir_module_free(m);
	return s;
}

#define assert_scalar(t, ctype, val, want)                                    \
	do {                                                                  \
		ctype v_ = (val);                                             \
		char *got_ = scalar_text(t, &v_, sizeof v_);                  \
		assert_string_equal(got_, want);                              \
		free(got_);                                                   \
	} while (0)

/* Constants: scalars of each dtype, nested lists, bools, f16/bf16, inf/nan. */
static void
test_constants(void **state)
{
	(void)state;
	assert_scalar(DT_F32, float, 1.5f, "R.const(1.5, \"float32\")");
	assert_scalar(DT_F32, float, 0.1f, "R.const(0.1, \"float32\")");
	assert_scalar(DT_F32, float, 3.0f, "R.const(3.0, \"float32\")");
	assert_scalar(DT_F32, float, 1e-05f, "R.const(1e-05, \"float32\")");
	assert_scalar(DT_F32, float, -0.0f, "R.const(-0.0, \"float32\")");
	assert_scalar(DT_F32, float, 1e20f, "R.const(1e+20, \"float32\")");
	assert_scalar(DT_F32, float, 16777216.0f,
		      "R.const(16777216.0, \"float32\")");
	assert_scalar(DT_F32, float, INFINITY,
		      "R.const(float(\"inf\"), \"float32\")");
	assert_scalar(DT_F32, float, -INFINITY,
		      "R.const(float(\"-inf\"), \"float32\")");
	assert_scalar(DT_F32, float, NAN,
		      "R.const(float(\"nan\"), \"float32\")");
	assert_scalar(DT_F64, double, 0.1, "R.const(0.1, \"float64\")");
	assert_scalar(DT_F64, double, 1.0 / 3,
		      "R.const(0.3333333333333333, \"float64\")");
	assert_scalar(DT_F64, double, (double)0.1f,
		      "R.const(0.10000000149011612, \"float64\")");
	assert_scalar(DT_F16, uint16_t, 0x3C00, "R.const(1.0, \"float16\")");
	assert_scalar(DT_F16, uint16_t, 0xC000, "R.const(-2.0, \"float16\")");
	assert_scalar(DT_F16, uint16_t, 0x3555,
		      "R.const(0.33325195, \"float16\")");
	assert_scalar(DT_F16, uint16_t, 0x0001,
		      "R.const(5.9604645e-08, \"float16\")");
	assert_scalar(DT_F16, uint16_t, 0x7C00,
		      "R.const(float(\"inf\"), \"float16\")");
	assert_scalar(DT_F16, uint16_t, 0x7E00,
		      "R.const(float(\"nan\"), \"float16\")");
	assert_scalar(DT_BF16, uint16_t, 0x3F80, "R.const(1.0, \"bfloat16\")");
	assert_scalar(DT_BF16, uint16_t, 0x4049,
		      "R.const(3.140625, \"bfloat16\")");
	assert_scalar(DT_I64, int64_t, -5, "R.const(-5, \"int64\")");
	assert_scalar(DT_I8, int8_t, -128, "R.const(-128, \"int8\")");
	assert_scalar(DT_U8, uint8_t, 255, "R.const(255, \"uint8\")");
	assert_scalar(DT_I16, int16_t, 300, "R.const(300, \"int16\")");
	assert_scalar(DT_BOOL, uint8_t, 1, "R.const(True, \"bool\")");

	Module *m = mod();
	int32_t i4[] = {1, 2, 3, 4};
	int64_t s22[] = {2, 2};
	assert_expr(konst(m, DT_I32, 2, s22, i4, sizeof i4),
		    "R.const([[1, 2], [3, 4]], \"int32\")");
	uint8_t bs[] = {1, 0};
	int64_t s2[] = {2};
	assert_expr(konst(m, DT_BOOL, 1, s2, bs, sizeof bs),
		    "R.const([True, False], \"bool\")");
	float f3[] = {0.5f, -1.0f, 2.25f};
	int64_t s3[] = {3};
	assert_expr(konst(m, DT_F32, 1, s3, f3, sizeof f3),
		    "R.const([0.5, -1.0, 2.25], \"float32\")");
	int64_t s1[] = {1};
	assert_expr(konst(m, DT_F32, 1, s1, f3, sizeof(float)),
		    "R.const([0.5], \"float32\")");
	int64_t s0[] = {0};
	assert_expr(konst(m, DT_F32, 1, s0, f3, 0),
		    "R.const([], \"float32\")");
	int64_t s122[] = {1, 2, 2};
	assert_expr(konst(m, DT_I32, 3, s122, i4, sizeof i4),
		    "R.const([[[1, 2], [3, 4]]], \"int32\")");
	ir_module_free(m);
}

/* print_attrval of every kind. */
static void
test_attrvals(void **state)
{
	(void)state;
	int64_t ints[] = {0, -1};
	struct {
		AttrVal v;
		const char *want;
	} cases[] = {
		{{.kind = AV_NONE}, "None"},
		{{.kind = AV_INT, .i = -3}, "-3"},
		{{.kind = AV_FLOAT, .f = 1e-05}, "1e-05"},
		{{.kind = AV_FLOAT, .f = 1.0}, "1.0"},
		{{.kind = AV_FLOAT, .f = 0.1}, "0.1"},
		{{.kind = AV_FLOAT, .f = -2.5e-300}, "-2.5e-300"},
		{{.kind = AV_FLOAT, .f = 123456789.0}, "123456789.0"},
		{{.kind = AV_BOOL, .i = 1}, "True"},
		{{.kind = AV_BOOL, .i = 0}, "False"},
		{{.kind = AV_STR, .s = "NCHW"}, "\"NCHW\""},
		{{.kind = AV_STR, .s = "a\"b\\"}, "\"a\\\"b\\\\\""},
		{{.kind = AV_DTYPE, .dtype = DT_F16}, "\"float16\""},
		{{.kind = AV_DTYPE, .dtype = DT_UNKNOWN}, "\"void\""},
		{{.kind = AV_INTS, .ints = ints, .n = 2}, "[0, -1]"},
		{{.kind = AV_INTS, .ints = ints, .n = 0}, "[]"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		StrBuf b = {0};
		print_attrval(&b, &cases[i].v);
		char *got = sb_take(&b);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/* Op calls: args positionally, every attribute as a keyword in order. */
static void
test_op_calls(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	Var *x = ir_var(m, "x", NULL, false, sp0);
	Var *w = ir_var(m, "w", NULL, false, sp0);
	assert_expr(call(m, OP_ADD, 2, ref(m, x), ref(m, w)), "R.add(x, w)");
	assert_expr(call(m, OP_RELU, 1, ref(m, x)), "R.nn.relu(x)");
	assert_expr(call(m, OP_CONV2D, 2, ref(m, x), ref(m, w)),
		    "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], "
		    "dilation=[1, 1], groups=1, data_layout=\"NCHW\", "
		    "kernel_layout=\"OIHW\", out_layout=None, out_dtype=\"void\")");
	assert_expr(call(m, OP_RMS_NORM, 2, ref(m, x), ref(m, w)),
		    "R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-05)");
	assert_expr(call(m, OP_SUM, 1, ref(m, x)),
		    "R.sum(x, axis=None, keepdims=False)");
	Expr *e = call(m, OP_LAYER_NORM, 3, ref(m, x), ref(m, w), ref(m, w));
	int64_t ax[] = {-1};
	e->call.attrs[0] = (AttrVal){.kind = AV_INTS, .ints = ax, .n = 1};
	assert_expr(e, "R.nn.layer_norm(x, w, w, axes=[-1], epsilon=1e-05, "
		       "center=True, scale=True)");
	e = call(m, OP_ASTYPE, 1, ref(m, x));
	e->call.attrs[0] = (AttrVal){.kind = AV_DTYPE, .dtype = DT_F16};
	assert_expr(e, "R.astype(x, dtype=\"float16\")");
	e = call(m, OP_SPLIT, 1, ref(m, x));
	e->call.attrs[0] = (AttrVal){.kind = AV_INT, .i = 2};
	e->call.attrs[1] = (AttrVal){.kind = AV_INT, .i = 1};
	assert_expr(e, "R.split(x, indices_or_sections=2, axis=1)");
	e = call(m, OP_SQUEEZE, 1, ref(m, x));
	e->call.attrs[0] = (AttrVal){.kind = AV_INTS, .ints = ax, .n = 1};
	assert_expr(e, "R.squeeze(x, axis=[-1])");

	/* shape and prim parameters */
	Expr *shp = ir_expr(m, E_SHAPE, sp0);
	int64_t d[] = {2, 3};
	shp->shape.n = 2;
	shp->shape.values = idims(m, 2, d);
	assert_expr(call(m, OP_RESHAPE, 2, ref(m, x), shp),
		    "R.reshape(x, R.shape([2, 3]))");
	assert_expr(call(m, OP_RESHAPE, 2, ref(m, x), ref(m, w)),
		    "R.reshape(x, w)");
	Expr *lo = ir_expr(m, E_PRIM, sp0), *hi = ir_expr(m, E_PRIM, sp0);
	lo->prim.dtype = hi->prim.dtype = DT_I64;
	lo->prim.value = pe_int(a, 0);
	hi->prim.value = pe_int(a, 6);
	assert_expr(call(m, OP_CLIP, 3, ref(m, x), lo, hi),
		    "R.clip(x, R.prim_value(0), R.prim_value(6))");
	Expr *one = ir_expr(m, E_PRIM, sp0);
	one->prim.dtype = DT_F32;
	one->prim.f = 1.0;
	e = call(m, OP_FULL, 2, shp, one);
	e->call.attrs[0] = (AttrVal){.kind = AV_DTYPE, .dtype = DT_F32};
	assert_expr(e, "R.full(R.shape([2, 3]), R.prim_value(T.float32(1.0)), "
		       "dtype=\"float32\")");
	Expr *empty = ir_expr(m, E_SHAPE, sp0);
	assert_expr(empty, "R.shape([])");
	ir_module_free(m);
}

/* Tuples, tuple get, prim values, strings, cls.f calls. */
static void
test_other_exprs(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	Var *x = ir_var(m, "x", NULL, false, sp0);
	Var *y = ir_var(m, "y", NULL, false, sp0);
	Expr *t2 = ir_expr(m, E_TUPLE, sp0);
	t2->tuple.n = 2;
	t2->tuple.items = ARENA_ARRAY(a, Expr *, 2);
	t2->tuple.items[0] = ref(m, x);
	t2->tuple.items[1] = ref(m, y);
	assert_expr(t2, "(x, y)");
	Expr *t1 = ir_expr(m, E_TUPLE, sp0);
	t1->tuple.n = 1;
	t1->tuple.items = t2->tuple.items;
	assert_expr(t1, "(x,)");
	assert_expr(ir_expr(m, E_TUPLE, sp0), "()");
	Expr *tn = ir_expr(m, E_TUPLE, sp0);
	tn->tuple.n = 2;
	tn->tuple.items = ARENA_ARRAY(a, Expr *, 2);
	tn->tuple.items[0] = t1;
	tn->tuple.items[1] = ir_expr(m, E_TUPLE, sp0);
	assert_expr(tn, "((x,), ())");
	Expr *g = ir_expr(m, E_TUPLE_GET, sp0);
	g->tget.tuple = ref(m, x);
	g->tget.index = 1;
	assert_expr(g, "x[1]");

	Expr *p = ir_expr(m, E_PRIM, sp0);
	p->prim.dtype = DT_I64;
	p->prim.value = pe_int(a, 1);
	assert_expr(p, "R.prim_value(1)");
	p->prim.dtype = DT_I32;
	p->prim.value = pe_int(a, 3);
	assert_expr(p, "R.prim_value(T.int32(3))");
	p->prim.dtype = DT_F32;
	p->prim.f = 0.5;
	assert_expr(p, "R.prim_value(T.float32(0.5))");
	p->prim.dtype = DT_F64;
	p->prim.f = 2.0;
	assert_expr(p, "R.prim_value(T.float64(2.0))");

	Expr *s = ir_expr(m, E_STR, sp0);
	s->str = "plain";
	assert_expr(s, "R.str(\"plain\")");
	s->str = "q\"b\\n\nt\tr\r\x01é";
	assert_expr(s, "R.str(\"q\\\"b\\\\n\\nt\\tr\\r\\x01é\")");

	Expr *c = ir_expr(m, E_CALL_FN, sp0);
	c->callfn.callee = "helper";
	c->callfn.nargs = 2;
	c->callfn.args = t2->tuple.items;
	assert_expr(c, "cls.helper(x, y)");
	c->callfn.nargs = 0;
	assert_expr(c, "cls.helper()");

	/* print_expr uses the var's own name; odd names in backquotes */
	Var *d = ir_var(m, "model.layers.0.weight", NULL, false, sp0);
	Var *k = ir_var(m, "if", NULL, false, sp0);
	assert_expr(ref(m, d), "`model.layers.0.weight`");
	assert_expr(ref(m, k), "`if`");
	ir_module_free(m);
}

/* Shadowing: distinct vars sharing a name print as y, y_1, y_1_1; per function. */
static void
test_shadowed_names(void **state)
{
	(void)state;
	Module *m = mod();
	SInfo *s = tens(m, DT_F32, 1, (int64_t)2);
	Var *x = ir_var(m, "y", s, false, sp0);
	Var *y1 = ir_var(m, "y", s, false, sp0);
	Var *y2 = ir_var(m, "y", s, false, sp0);
	Var *y3 = ir_var(m, "y_1", s, false, sp0);
	Var *r = ir_var(m, "R", s, false, sp0);
	Block *blk = block(m, false, 4,
			   bind(m, y1, call(m, OP_EXP, 1, ref(m, x))),
			   bind(m, y2, call(m, OP_EXP, 1, ref(m, y1))),
			   bind(m, y3, call(m, OP_ADD, 2, ref(m, y2), ref(m, x))),
			   bind(m, r, call(m, OP_EXP, 1, ref(m, y3))));
	func(m, "f", 1, &x, seq(m, ref(m, r), 1, blk))->ret = s;
	Var *z = ir_var(m, "y", s, false, sp0);
	func(m, "g", 1, &z, seq(m, ref(m, z), 0))->ret = s;
	/* print_expr is not uniqued */
	assert_expr(ref(m, y2), "y");
	check_module(m, false, HDR
		"    @R.function\n"
		"    def f(y: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        y_1: R.Tensor((2,), dtype=\"float32\") = R.exp(y)\n"
		"        y_2: R.Tensor((2,), dtype=\"float32\") = R.exp(y_1)\n"
		"        y_1_1: R.Tensor((2,), dtype=\"float32\") = R.add(y_2, y)\n"
		"        R_1: R.Tensor((2,), dtype=\"float32\") = R.exp(y_1_1)\n"
		"        return R_1\n"
		"\n"
		"    @R.function\n"
		"    def g(y: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        return y\n");
}

/* Builds a function over dotted and odd names, for the two naming modes. */
static Module *
odd_names_module(void)
{
	Module *m = mod();
	SInfo *s = tens(m, DT_F32, 1, (int64_t)2);
	Var *a = ir_var(m, "model.layers.0.weight", s, false, sp0);
	Var *b = ir_var(m, "model_layers_0_weight", s, false, sp0);
	Var *c = ir_var(m, "0abc", s, false, sp0);
	Var *d = ir_var(m, "if", s, false, sp0);
	Var *e = ir_var(m, "model.layers.0.weight", s, false, sp0);
	Block *blk = block(m, false, 3,
			   bind(m, c, call(m, OP_ADD, 2, ref(m, a), ref(m, b))),
			   bind(m, d, call(m, OP_EXP, 1, ref(m, c))),
			   bind(m, e, call(m, OP_EXP, 1, ref(m, d))));
	Var *ps[] = {a, b};
	func(m, "f", 2, ps, seq(m, ref(m, e), 1, blk))->ret = s;
	return m;
}

/* Names that are not identifiers: backquotes, or tvm_names identifiers. */
static void
test_odd_names(void **state)
{
	(void)state;
#define T2 "R.Tensor((2,), dtype=\"float32\")"
	check_module(odd_names_module(), false, HDR
		"    @R.function\n"
		"    def f(`model.layers.0.weight`: " T2 ", model_layers_0_weight: " T2 ") -> " T2 ":\n"
		"        `0abc`: " T2 " = R.add(`model.layers.0.weight`, model_layers_0_weight)\n"
		"        `if`: " T2 " = R.exp(`0abc`)\n"
		"        `model.layers.0.weight_1`: " T2 " = R.exp(`if`)\n"
		"        return `model.layers.0.weight_1`\n");
	check_module(odd_names_module(), true, HDR
		"    @R.function\n"
		"    def f(model_layers_0_weight: " T2 ", model_layers_0_weight_1: " T2 ") -> " T2 ":\n"
		"        _0abc: " T2 " = R.add(model_layers_0_weight, model_layers_0_weight_1)\n"
		"        if_: " T2 " = R.exp(_0abc)\n"
		"        model_layers_0_weight_2: " T2 " = R.exp(if_)\n"
		"        return model_layers_0_weight_2\n");
}

/*
 * if/else: the then-branch's last binding defines the result and is used
 * nowhere else, so it merges into `y: S = VALUE`; the else-branch returns
 * a var used twice, so it prints `y: S = RESULT` after its bindings.
 */
static void
test_if_else(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	SInfo *s = tens(m, DT_F32, 1, (int64_t)2);
	Var *c = ir_var(m, "c", tens(m, DT_BOOL, 0), false, sp0);
	Var *x = ir_var(m, "x", s, false, sp0);
	Var *t1 = ir_var(m, "t", s, false, sp0);
	Var *t2 = ir_var(m, "t", s, false, sp0);
	Var *e1 = ir_var(m, "e", s, false, sp0);
	Var *e2 = ir_var(m, "y", s, false, sp0); /* named as the outer y */
	Var *y = ir_var(m, "y", s, false, sp0);
	Var *z = ir_var(m, "z", s, false, sp0);
	Expr *then_ = seq(m, ref(m, t2), 1,
			  block(m, false, 2,
				bind(m, t1, call(m, OP_EXP, 1, ref(m, x))),
				bind(m, t2, call(m, OP_ADD, 2, ref(m, t1),
						 ref(m, x)))));
	Expr *else_ = seq(m, ref(m, e1), 1,
			  block(m, false, 2,
				bind(m, e1, call(m, OP_EXP, 1, ref(m, x))),
				bind(m, e2, call(m, OP_ADD, 2, ref(m, e1),
						 ref(m, e1)))));
	Expr *ife = ir_expr(m, E_IF, sp0);
	ife->if_.cond = ref(m, c);
	ife->if_.then_ = then_;
	ife->if_.else_ = else_;
	/* an if whose branches are bare results */
	Expr *if2 = ir_expr(m, E_IF, sp0);
	if2->if_.cond = ref(m, c);
	if2->if_.then_ = seq(m, ref(m, x), 0);
	if2->if_.else_ = seq(m, ref(m, y), 0);
	Block *blk = block(m, false, 2, bind(m, y, ife), bind(m, z, if2));
	Var *ps[] = {c, x};
	func(m, "f", 2, ps, seq(m, ref(m, z), 1, blk))->ret = s;
	(void)a;
	assert_expr(ife, "(t if c else e)");
	check_module(m, false, HDR
		"    @R.function\n"
		"    def f(c: R.Tensor((), dtype=\"bool\"), x: " T2 ") -> " T2 ":\n"
		"        if c:\n"
		"            t: " T2 " = R.exp(x)\n"
		"            y: " T2 " = R.add(t, x)\n"
		"        else:\n"
		"            e: " T2 " = R.exp(x)\n"
		"            y_1: " T2 " = R.add(e, e)\n"
		"            y: " T2 " = e\n"
		"        if c:\n"
		"            z: " T2 " = x\n"
		"        else:\n"
		"            z: " T2 " = y\n"
		"        return z\n");
}

/* match_cast, unknown sinfo, return annotation fallback, dataflow outputs. */
static void
test_bindings(void **state)
{
	(void)state;
	Module *m = mod();
	Arena *a = &m->arena;
	Var *x = ir_var(m, "x", si_tensor(a, DT_F32, -1, NULL), false, sp0);
	SInfo *cast = tens(m, DT_F32, 2, (int64_t)2, (int64_t)4);
	Var *y = ir_var(m, "y", cast, false, sp0);
	Binding *mc = bind(m, y, ref(m, x));
	mc->cast = cast;
	Var *u = ir_var(m, "u", NULL, true, sp0);   /* not inferred */
	Var *o1 = ir_var(m, "o1", cast, false, sp0);
	Var *o2 = ir_var(m, "o2", cast, false, sp0);
	Block *df = block(m, true, 3,
			  bind(m, u, call(m, OP_EXP, 1, ref(m, y))),
			  bind(m, o1, call(m, OP_EXP, 1, ref(m, u))),
			  bind(m, o2, call(m, OP_EXP, 1, ref(m, o1))));
	Block *empty = block(m, true, 0);
	Expr *tup = ir_expr(m, E_TUPLE, sp0);
	tup->tuple.n = 2;
	tup->tuple.items = ARENA_ARRAY(a, Expr *, 2);
	tup->tuple.items[0] = ref(m, o1);
	tup->tuple.items[1] = ref(m, o2);
	Expr *body = seq(m, tup, 3, block(m, false, 1, mc), df, empty);
	SInfo *pair[] = {cast, cast};
	body->sinfo = si_tuple(a, pair, 2); /* f->ret is NULL: printed */
	func(m, "f", 1, &x, body);
	Var *q = ir_var(m, "q", NULL, false, sp0);
	func(m, "g", 1, &q, seq(m, ref(m, q), 0));
#define T24 "R.Tensor((2, 4), dtype=\"float32\")"
	check_module(m, false, HDR
		"    @R.function\n"
		"    def f(x: R.Tensor(dtype=\"float32\")) -> R.Tuple(" T24 ", " T24 "):\n"
		"        y: " T24 " = R.match_cast(x, " T24 ")\n"
		"        with R.dataflow():\n"
		"            u: R.Any = R.exp(y)\n"
		"            o1: " T24 " = R.exp(u)\n"
		"            o2: " T24 " = R.exp(o1)\n"
		"            R.output(o1, o2)\n"
		"        with R.dataflow():\n"
		"            R.output()\n"
		"        return (o1, o2)\n"
		"\n"
		"    @R.function\n"
		"    def g(q: R.Any) -> R.Any:\n"
		"        return q\n");
}

/* A class name other than Module; the header alone when there is nothing. */
static void
test_header_and_class(void **state)
{
	(void)state;
	Module *m = mod();
	m->name = "MyMod";
	char *got = text(m, true, false);
	assert_string_equal(got, "# from tvm.script import ir as I\n"
				 "# from tvm.script import relax as R\n"
				 "# from tvm.script import tir as T\n"
				 "\n"
				 "@I.ir_module\n"
				 "class MyMod:\n"
				 "    pass\n"); /* an empty module, as TVM */
	free(got);
	ir_module_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_module),
		cmocka_unit_test(test_decorators),
		cmocka_unit_test(test_sinfo_forms),
		cmocka_unit_test(test_symbolic_dims),
		cmocka_unit_test(test_symvar_names),
		cmocka_unit_test(test_symbolic_literal),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_attrvals),
		cmocka_unit_test(test_op_calls),
		cmocka_unit_test(test_other_exprs),
		cmocka_unit_test(test_shadowed_names),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_if_else),
		cmocka_unit_test(test_bindings),
		cmocka_unit_test(test_header_and_class),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
