/* test_equal.c — unit tests for equal.c: structural equality of modules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

/*
 * The variations of one small module:
 *
 *   @R.function
 *   def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((YDIM, 4), "float32")):
 *       R.func_attr({"num_input": 1})
 *       with R.dataflow():
 *           lv = R.add(x, y)
 *           gv = R.sum(lv, axis=[1], keepdims=False)
 *           R.output(gv)
 *       return gv
 *
 * Each node has its own span: line 2 the parameters (x at col 10, y at col
 * 40), line 4 lv (call at col 18), line 5 gv (call at col 18), line 6 the
 * extra binding.
 */
typedef struct {
	const char *xname, *lvname, *symname;
	OpKind op;     /* of lv: OP_ADD */
	int64_t axis;  /* of the sum: 1 */
	DType dtype;   /* of x: float32 */
	int64_t dim1;  /* x's second dimension: 4 */
	int ydim;      /* y's first dim: 0 n, 1 n * 2, 2 2 * n, 3 a second var m */
	bool no_dataflow;
	bool extra_binding;
	bool extra_func;
	bool pad_ids;  /* allocate unrelated ids first */
	bool gv_uses_x; /* gv = R.sum(x, ...) */
	int64_t num_input;
	bool impure;
} Opts;

static Span
sp(int line, int col)
{
	return (Span){line, col, 1};
}

/* R.Tensor((d0, d1), dtype) with span s. */
static SInfo *
tensor2(Module *m, DType t, PExpr *d0, PExpr *d1, Span s)
{
	PExpr **dims = ARENA_ARRAY(&m->arena, PExpr *, 2);
	dims[0] = d0;
	dims[1] = d1;
	SInfo *si = si_tensor(&m->arena, t, 2, dims);
	si->span = s;
	return si;
}

/* A function `name` whose body is one block of the given bindings. */
static Func *
make_func(Module *m, const char *name, Var **params, int np, Binding **bs,
	  int nb, bool dataflow, Expr *ret)
{
	Arena *a = &m->arena;
	Func *f = ARENA_NEW(a, Func);
	f->name = arena_strdup(a, name);
	f->params = ARENA_ARRAY(a, Var *, np ? np : 1);
	memcpy(f->params, params, sizeof(Var *) * (size_t)np);
	f->nparams = np;
	f->pure = true;
	f->span = sp(1, 1);
	Block *b = ARENA_NEW(a, Block);
	b->dataflow = dataflow;
	b->bindings = ARENA_ARRAY(a, Binding *, nb);
	memcpy(b->bindings, bs, sizeof(Binding *) * (size_t)nb);
	b->n = nb;
	b->span = sp(3, 9);
	Expr *body = ir_expr(m, E_SEQ, sp(7, 9));
	body->seq.blocks = ARENA_ARRAY(a, Block *, 1);
	body->seq.blocks[0] = b;
	body->seq.nblocks = 1;
	body->seq.body = ret;
	f->body = body;
	return f;
}

/* An op call with two var arguments or one var and the sum's attrs. */
static Expr *
call(Module *m, OpKind op, Var *x, Var *y, Span s)
{
	Expr *c = ir_expr(m, E_CALL, s);
	c->call.op = op;
	c->call.args = ARENA_ARRAY(&m->arena, Expr *, 2);
	c->call.args[0] = ir_var_ref(m, x, s);
	c->call.nargs = 1;
	if (y) {
		c->call.args[1] = ir_var_ref(m, y, s);
		c->call.nargs = 2;
	}
	return c;
}

static Module *
build(const Opts *o)
{
	Module *m = ir_module_new("t.py", "", 0);
	Arena *a = &m->arena;
	if (o->pad_ids)
		for (int i = 0; i < 5; i++)
			ir_symvar(m, "unused", sp(0, 0));
	SymVar *n = ir_symvar(m, o->symname ? o->symname : "n", sp(2, 25));
	SymVar *m2 = ir_symvar(m, "m", sp(2, 55));
	PExpr *d1 = pe_int(a, o->dim1 ? o->dim1 : 4);
	Var *x = ir_var(m, o->xname ? o->xname : "x",
			tensor2(m, o->dtype ? o->dtype : DT_F32, pe_var(a, n), d1,
				sp(2, 13)),
			false, sp(2, 10));
	PExpr *yd;
	switch (o->ydim) {
	case 1:
		yd = pe_bin(a, PE_MUL, pe_var(a, n), pe_int(a, 2));
		break;
	case 2:
		yd = pe_bin(a, PE_MUL, pe_int(a, 2), pe_var(a, n));
		break;
	case 3:
		yd = pe_var(a, m2);
		break;
	default:
		yd = pe_var(a, n);
		break;
	}
	Var *y = ir_var(m, "y", tensor2(m, DT_F32, yd, pe_int(a, 4), sp(2, 43)),
			false, sp(2, 40));

	Binding *bs[3];
	int nb = 0;
	Var *lv = ir_var(m, o->lvname ? o->lvname : "lv", NULL, true, sp(4, 13));
	bs[nb++] = ir_binding(m, lv, call(m, o->op ? o->op : OP_ADD, x, y,
					  sp(4, 18)),
			      sp(4, 13));
	Expr *sum = call(m, OP_SUM, o->gv_uses_x ? x : lv, NULL, sp(5, 18));
	sum->call.attrs = ARENA_ARRAY(a, AttrVal, 2);
	sum->call.nattrs = 2;
	sum->call.attrs[0].kind = AV_INTS;
	sum->call.attrs[0].ints = ARENA_NEW(a, int64_t);
	sum->call.attrs[0].ints[0] = o->axis ? o->axis : 1;
	sum->call.attrs[0].n = 1;
	sum->call.attrs[1].kind = AV_BOOL;
	Var *gv = ir_var(m, "gv", NULL, false, sp(5, 13));
	bs[nb++] = ir_binding(m, gv, sum, sp(5, 13));
	if (o->extra_binding) {
		Var *z = ir_var(m, "z", NULL, true, sp(6, 13));
		bs[nb++] = ir_binding(m, z, call(m, OP_NEGATIVE, gv, NULL,
						 sp(6, 18)),
				      sp(6, 13));
	}
	Var *params[] = {x, y};
	Func *f = make_func(m, "main", params, 2, bs, nb, !o->no_dataflow,
			    ir_var_ref(m, gv, sp(7, 16)));
	f->symvars = ARENA_ARRAY(a, SymVar *, 2);
	f->symvars[0] = n;
	f->nsymvars = 1;
	if (o->ydim == 3)
		f->symvars[f->nsymvars++] = m2;
	f->attrs = ARENA_NEW(a, FuncAttr);
	f->attrs[0].key = "num_input";
	f->attrs[0].val.kind = AV_INT;
	f->attrs[0].val.i = o->num_input ? o->num_input : 1;
	f->nattrs = 1;
	f->pure = !o->impure;

	m->nfuncs = o->extra_func ? 2 : 1;
	m->funcs = ARENA_ARRAY(a, Func *, m->nfuncs);
	m->funcs[0] = f;
	if (o->extra_func) {
		Var *p = ir_var(m, "p", si_object(a), false, sp(9, 7));
		Var *q = ir_var(m, "q", NULL, false, sp(10, 9));
		Binding *qb = ir_binding(m, q, ir_var_ref(m, p, sp(10, 13)),
					 sp(10, 9));
		Var *pp[] = {p};
		Func *g = make_func(m, "g", pp, 1, &qb, 1, false,
				    ir_var_ref(m, q, sp(11, 16)));
		g->span = sp(8, 1);
		/* g comes first so the order of functions does not matter. */
		m->funcs[1] = m->funcs[0];
		m->funcs[0] = g;
	}
	return m;
}

/* The result of comparing build(oa) and build(ob). */
typedef struct {
	bool eq;
	Span sa, sb;
	char *why;
} Res;

static Res
cmp(const Opts *oa, const Opts *ob, bool names)
{
	Module *a = build(oa), *b = build(ob);
	Res r = {0};
	r.eq = equal_modules(a, b, names, &r.sa, &r.sb, &r.why);
	ir_module_free(a);
	ir_module_free(b);
	return r;
}

/* Asserts a difference whose message contains `msg`, at the given lines and
 * columns (col 0: any). */
static void
expect_diff(const Opts *oa, const Opts *ob, bool names, const char *msg,
	    int la, int ca, int lb, int cb)
{
	Res r = cmp(oa, ob, names);
	assert_false(r.eq);
	assert_non_null(r.why);
	if (!strstr(r.why, msg))
		print_error("message '%s', want '%s'\n", r.why, msg);
	assert_non_null(strstr(r.why, msg));
	assert_int_equal(r.sa.line, la);
	assert_int_equal(r.sb.line, lb);
	if (ca)
		assert_int_equal(r.sa.col, ca);
	if (cb)
		assert_int_equal(r.sb.col, cb);
	free(r.why);
}

static void
expect_equal(const Opts *oa, const Opts *ob, bool names)
{
	Res r = cmp(oa, ob, names);
	if (!r.eq)
		print_error("unexpected difference: %s\n", r.why);
	assert_true(r.eq);
	free(r.why);
}

static void
test_same(void **state)
{
	(void)state;
	Opts o = {0};
	expect_equal(&o, &o, false);
	expect_equal(&o, &o, true);
	Opts all = {.extra_binding = true, .extra_func = true, .ydim = 3};
	expect_equal(&all, &all, true);
}

static void
test_alpha_equivalent(void **state)
{
	(void)state;
	Opts o = {0};
	Opts r = {.xname = "a", .lvname = "t", .symname = "k", .pad_ids = true};
	expect_equal(&o, &r, false);
	expect_equal(&r, &o, false);
	/* With names: the first renamed definition is reported. */
	expect_diff(&o, &r, true, "name x vs a", 2, 10, 2, 10);
	Opts r2 = {.lvname = "t"};
	expect_diff(&o, &r2, true, "name lv vs t", 4, 13, 4, 13);
}

static void
test_op_differs(void **state)
{
	(void)state;
	Opts o = {0}, p = {.op = OP_MULTIPLY};
	expect_diff(&o, &p, false, "op R.add vs R.multiply", 4, 18, 4, 18);
}

static void
test_attr_differs(void **state)
{
	(void)state;
	Opts o = {0}, p = {.axis = 2};
	expect_diff(&o, &p, false, "attribute axis of R.sum [1] vs [2]", 5, 18,
		    5, 18);
	Opts q = {.num_input = 2};
	expect_diff(&o, &q, false, "attribute num_input 1 vs 2", 1, 1, 1, 1);
	Opts r = {.impure = true};
	expect_diff(&o, &r, false, "pure vs impure", 1, 1, 1, 1);
}

static void
test_shape_and_dtype_differ(void **state)
{
	(void)state;
	Opts o = {0}, p = {.dim1 = 8};
	/* At x's annotation. */
	expect_diff(&o, &p, false, "dimension 1: 4 vs 8", 2, 13, 2, 13);
	Opts q = {.dtype = DT_F16};
	expect_diff(&o, &q, false, "dtype float32 vs float16", 2, 13, 2, 13);
}

static void
test_block_differs(void **state)
{
	(void)state;
	Opts o = {0}, p = {.no_dataflow = true};
	expect_diff(&o, &p, false, "dataflow block vs binding block", 3, 9, 3,
		    9);
	Opts q = {.extra_binding = true};
	expect_diff(&o, &q, false, "binding count 2 vs 3", 3, 9, 3, 9);
	expect_diff(&q, &o, false, "binding count 3 vs 2", 3, 9, 3, 9);
}

static void
test_var_use_differs(void **state)
{
	(void)state;
	Opts o = {0}, p = {.gv_uses_x = true};
	expect_diff(&o, &p, false, "variable lv vs x", 5, 18, 5, 18);
}

static void
test_symbolic_mapping(void **state)
{
	(void)state;
	Opts o = {0};
	/* n vs k used consistently: equal, also when the ids differ. */
	Opts k = {.symname = "k", .pad_ids = true};
	expect_equal(&o, &k, false);
	/* Names of symbolic vars count with `names`. */
	expect_diff(&o, &k, true, "name", 2, 0, 2, 0);
	/* n * 2 and 2 * n are the same dimension. */
	Opts y1 = {.ydim = 1}, y2 = {.ydim = 2, .pad_ids = true};
	expect_equal(&y1, &y2, false);
	/* y's dim n (same var as x's) vs m (a new var): not equal. */
	Opts y3 = {.ydim = 3};
	expect_diff(&o, &y3, false, "dimension 0: n vs m", 2, 43, 2, 43);
	expect_diff(&y3, &o, false, "dimension 0: m vs n", 2, 43, 2, 43);
	/* n vs n * 2 */
	expect_diff(&o, &y1, false, "dimension 0: n vs n * 2", 2, 43, 2, 43);
	/* Both using a second var m consistently: equal. */
	Opts y3k = {.ydim = 3, .symname = "k", .pad_ids = true};
	expect_equal(&y3, &y3k, false);
}

static void
test_function_set(void **state)
{
	(void)state;
	Opts o = {0}, p = {.extra_func = true};
	expect_diff(&o, &p, false, "function g is missing in the first module",
		    0, 0, 8, 1);
	expect_diff(&p, &o, false, "function g is missing in the second module",
		    8, 1, 0, 0);
	expect_equal(&p, &p, false);
}

static void
test_params_and_constants(void **state)
{
	(void)state;
	Module *a = ir_module_new("a.py", "", 0);
	Module *b = ir_module_new("b.py", "", 0);
	Module *ms[] = {a, b};
	int64_t vals[] = {3, 4};
	for (int i = 0; i < 2; i++) {
		Module *m = ms[i];
		Var *p = ir_var(m, "p", si_object(&m->arena), false, sp(2, 5));
		Expr *c = ir_expr(m, E_CONST, sp(3, 20));
		c->cdata.dtype = DT_I64;
		c->cdata.ndim = 1;
		c->cdata.shape = ARENA_NEW(&m->arena, int64_t);
		c->cdata.shape[0] = 1;
		c->cdata.data = arena_memdup(&m->arena, &vals[i], 8);
		Var *v = ir_var(m, "v", NULL, false, sp(3, 9));
		Binding *bd = ir_binding(m, v, c, sp(3, 9));
		Var *pp[] = {p};
		m->funcs = ARENA_ARRAY(&m->arena, Func *, 1);
		m->funcs[0] = make_func(m, "f", pp, 1, &bd, 1, false,
					ir_var_ref(m, v, sp(4, 12)));
		m->nfuncs = 1;
	}
	Span sa, sb;
	char *why = NULL;
	assert_false(equal_modules(a, b, false, &sa, &sb, &why));
	assert_non_null(strstr(why, "constant values differ"));
	assert_int_equal(sa.line, 3);
	assert_int_equal(sa.col, 20);
	free(why);
	why = NULL;
	/* Same values: equal; then a missing parameter. */
	*(int64_t *)b->funcs[0]->body->seq.blocks[0]->bindings[0]->value->cdata
		 .data = 3;
	assert_true(equal_modules(a, b, true, &sa, &sb, &why));
	assert_null(why);
	b->funcs[0]->nparams = 0;
	assert_false(equal_modules(a, b, false, &sa, &sb, &why));
	assert_non_null(strstr(why, "parameter count 1 vs 0"));
	free(why);
	ir_module_free(a);
	ir_module_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_alpha_equivalent),
		cmocka_unit_test(test_op_differs),
		cmocka_unit_test(test_attr_differs),
		cmocka_unit_test(test_shape_and_dtype_differ),
		cmocka_unit_test(test_block_differs),
		cmocka_unit_test(test_var_use_differs),
		cmocka_unit_test(test_symbolic_mapping),
		cmocka_unit_test(test_function_set),
		cmocka_unit_test(test_params_and_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
