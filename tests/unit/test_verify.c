/*
 * test_verify.c — unit tests for verify.c: each well-formedness rule on IR
 * built by hand (so that a rule is tested without the parser), a well-formed
 * module that must pass, and malformed IR that must not crash.
 *
 * Every node gets a distinct line in its Span so that each error can be
 * checked for where it points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

/* ---------------------------------------------------------------- helpers */

/* A span on line `line`. */
static Span
L(int line)
{
	return (Span){line, 1, 1};
}

/* An empty module. */
static Module *
mod(void)
{
	return ir_module_new("t.py", "", 0);
}

/* A float32 tensor of rank n with dims d0, d1 (NULL: shape unknown). */
static SInfo *
tens(Module *m, int n, PExpr *d0, PExpr *d1)
{
	if (n == 0)
		return si_tensor(&m->arena, DT_F32, 0, NULL);
	if (!d0)
		return si_tensor(&m->arena, DT_F32, n, NULL);
	PExpr **dims = ARENA_ARRAY(&m->arena, PExpr *, n);
	dims[0] = d0;
	if (n > 1)
		dims[1] = d1;
	return si_tensor(&m->arena, DT_F32, n, dims);
}

/* A Var (non-dataflow unless df) on line `line`. */
static Var *
var(Module *m, const char *name, SInfo *si, bool df, int line)
{
	return ir_var(m, name, si, df, L(line));
}

/* A use of v on line `line`. */
static Expr *
ref(Module *m, Var *v, int line)
{
	return ir_var_ref(m, v, L(line));
}

/* An op call with n expression arguments. */
static Expr *
opcall(Module *m, OpKind op, int line, int n, ...)
{
	Expr *e = ir_expr(m, E_CALL, L(line));
	e->call.op = op;
	e->call.nargs = n;
	e->call.args = ARENA_ARRAY(&m->arena, Expr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->call.args[i] = va_arg(ap, Expr *);
	va_end(ap);
	OpSig sig;
	op_sig(op, &sig);
	e->call.nattrs = sig.nattrs; /* AV_NONE each: verify checks the count */
	e->call.attrs = ARENA_ARRAY(&m->arena, AttrVal, sig.nattrs ? sig.nattrs : 1);
	return e;
}

/* A call of module function `callee` with n arguments. */
static Expr *
fncall(Module *m, const char *callee, int line, int n, ...)
{
	Expr *e = ir_expr(m, E_CALL_FN, L(line));
	e->callfn.callee = callee;
	e->callfn.nargs = n;
	e->callfn.args = ARENA_ARRAY(&m->arena, Expr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->callfn.args[i] = va_arg(ap, Expr *);
	va_end(ap);
	return e;
}

/* A tuple of n expressions. */
static Expr *
tuple(Module *m, int line, int n, ...)
{
	Expr *e = ir_expr(m, E_TUPLE, L(line));
	e->tuple.n = n;
	e->tuple.items = ARENA_ARRAY(&m->arena, Expr *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->tuple.items[i] = va_arg(ap, Expr *);
	va_end(ap);
	return e;
}

/* `v = value` on line `line`. */
static Binding *
bind(Module *m, Var *v, Expr *value, int line)
{
	return ir_binding(m, v, value, L(line));
}

/* A block of n bindings. */
static Block *
block(Module *m, bool df, int n, ...)
{
	Block *b = ARENA_NEW(&m->arena, Block);
	b->dataflow = df;
	b->n = n;
	b->bindings = ARENA_ARRAY(&m->arena, Binding *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		b->bindings[i] = va_arg(ap, Binding *);
	va_end(ap);
	return b;
}

/* A sequence of n blocks then `result`. */
static Expr *
seq(Module *m, Expr *result, int n, ...)
{
	Expr *e = ir_expr(m, E_SEQ, result ? result->span : L(0));
	e->seq.nblocks = n;
	e->seq.blocks = ARENA_ARRAY(&m->arena, Block *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		e->seq.blocks[i] = va_arg(ap, Block *);
	va_end(ap);
	e->seq.body = result;
	return e;
}

/* `if cond: then_ else: else_` (both E_SEQ). */
static Expr *
ifexpr(Module *m, Expr *cond, Expr *then_, Expr *else_, int line)
{
	Expr *e = ir_expr(m, E_IF, L(line));
	e->if_.cond = cond;
	e->if_.then_ = then_;
	e->if_.else_ = else_;
	return e;
}

/* Appends a pure function with n params and the given body to m. */
static Func *
func(Module *m, const char *name, Expr *body, int line, int n, ...)
{
	Func *f = ARENA_NEW(&m->arena, Func);
	f->name = arena_strdup(&m->arena, name);
	f->span = L(line);
	f->pure = true;
	f->nparams = n;
	f->params = ARENA_ARRAY(&m->arena, Var *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		f->params[i] = va_arg(ap, Var *);
	va_end(ap);
	f->body = body;
	Func **fs = ARENA_ARRAY(&m->arena, Func *, m->nfuncs + 1);
	for (int i = 0; i < m->nfuncs; i++)
		fs[i] = m->funcs[i];
	fs[m->nfuncs++] = f;
	m->funcs = fs;
	return f;
}

/* Lists n symbolic variables as f's. */
static void
symvars(Module *m, Func *f, int n, ...)
{
	f->nsymvars = n;
	f->symvars = ARENA_ARRAY(&m->arena, SymVar *, n ? n : 1);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		f->symvars[i] = va_arg(ap, SymVar *);
	va_end(ap);
}

/* Gives f the one attribute key = val. */
static void
attr(Module *m, Func *f, const char *key, AttrVal val)
{
	f->attrs = ARENA_NEW(&m->arena, FuncAttr);
	f->attrs[0].key = key;
	f->attrs[0].val = val;
	f->nattrs = 1;
}

/* Runs the verifier; checks it reports as many errors as it says. */
static int
run(Module *m, Diags *d)
{
	int before = d->nerrors;
	int n = verify_module(m, d);
	assert_int_equal(d->nerrors - before, n);
	return n;
}

/* Diagnostic i is an error on line `line` saying exactly `msg`. */
static void
expect(const Diags *d, int i, int line, const char *msg)
{
	assert_true(i < d->n);
	assert_int_equal(d->items[i].level, DIAG_ERROR);
	assert_string_equal(d->items[i].msg, msg);
	assert_int_equal(d->items[i].span.line, line);
}

/* Frees the diagnostics and the module. */
static void
done(Module *m, Diags *d)
{
	diag_clear(d);
	free(d->items);
	ir_module_free(m);
}

/* ------------------------------------------------------------- well formed */

/*
 * main(x: (n, 4), w: (4, 4)) with num_input 1: a dataflow block computing
 * gv from DataflowVar lv, a call of the pure helper, a match_cast defining
 * m and a shape using m * 2; cond(x, flag: bool) with an if whose branches
 * use outer vars and define their own; helper(a) -> a.
 */
static Module *
good_module(void)
{
	Module *m = mod();
	SymVar *n = ir_symvar(m, "n", L(1));
	SymVar *mm = ir_symvar(m, "m", L(1));

	Var *x = var(m, "x", tens(m, 2, pe_var(&m->arena, n), pe_int(&m->arena, 4)), false, 2);
	Var *w = var(m, "w", tens(m, 2, pe_int(&m->arena, 4), pe_int(&m->arena, 4)), false, 2);
	Var *lv = var(m, "lv", tens(m, 2, NULL, NULL), true, 4);
	Var *gv = var(m, "gv", tens(m, 2, NULL, NULL), false, 5);
	Var *h = var(m, "h", NULL, false, 7);
	Var *z = var(m, "z", tens(m, 1, pe_var(&m->arena, mm), NULL), false, 8);
	PExpr *m2 = pe_bin(&m->arena, PE_MUL, pe_var(&m->arena, mm), pe_int(&m->arena, 2));
	PExpr **vals = ARENA_ARRAY(&m->arena, PExpr *, 1);
	vals[0] = m2;
	Var *s = var(m, "s", si_shape(&m->arena, 1, vals), false, 9);
	Expr *shp = ir_expr(m, E_SHAPE, L(9));
	shp->shape.values = vals;
	shp->shape.n = 1;
	/* a second Var with the same name: shadowing is fine */
	Var *gv2 = var(m, "gv", NULL, false, 10);

	Binding *mc = bind(m, z, ref(m, gv, 8), 8);
	mc->cast = tens(m, 1, pe_var(&m->arena, mm), NULL);
	Binding *sb = bind(m, s, shp, 9);
	sb->annotated = true;
	Expr *body = seq(m, ref(m, gv2, 11), 2,
		block(m, true, 2,
			bind(m, lv, opcall(m, OP_PERMUTE_DIMS, 4, 1, ref(m, w, 4)), 4),
			bind(m, gv, opcall(m, OP_MATMUL, 5, 2, ref(m, x, 5), ref(m, lv, 5)), 5)),
		block(m, false, 4,
			bind(m, h, fncall(m, "helper", 7, 1, ref(m, gv, 7)), 7),
			mc, sb,
			bind(m, gv2, tuple(m, 10, 2, ref(m, h, 10), ref(m, s, 10)), 10)));
	Func *f = func(m, "main", body, 1, 2, x, w);
	symvars(m, f, 2, n, mm);
	attr(m, f, "num_input", (AttrVal){.kind = AV_INT, .i = 1});

	Var *cx = var(m, "x", tens(m, 1, NULL, NULL), false, 20);
	Var *flag = var(m, "flag", si_prim(&m->arena, DT_BOOL, NULL), false, 20);
	Var *a = var(m, "a", NULL, false, 22);
	Var *y = var(m, "y", NULL, false, 21);
	Expr *then_ = seq(m, ref(m, a, 23), 1,
		block(m, false, 1, bind(m, a, opcall(m, OP_EXP, 22, 1, ref(m, cx, 22)), 22)));
	Expr *else_ = seq(m, ref(m, cx, 24), 0);
	Expr *cbody = seq(m, ref(m, y, 25), 1,
		block(m, false, 1, bind(m, y, ifexpr(m, ref(m, flag, 21), then_, else_, 21), 21)));
	func(m, "cond", cbody, 20, 2, cx, flag);

	Var *ha = var(m, "a", NULL, false, 30);
	func(m, "helper", seq(m, ref(m, ha, 31), 0), 30, 1, ha);
	return m;
}

/* A well-formed module passes, twice (verify changes nothing). */
static void
test_well_formed(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = good_module();
	assert_int_equal(run(m, &d), 0);
	assert_int_equal(run(m, &d), 0);
	assert_int_equal(d.n, 0);
	done(m, &d);
}

/* An empty module and a function with empty blocks are well formed. */
static void
test_empty(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	assert_int_equal(run(m, &d), 0);
	Var *x = var(m, "x", NULL, false, 1);
	func(m, "f", seq(m, ref(m, x, 2), 2, block(m, false, 0), block(m, true, 0)), 1, 1, x);
	assert_int_equal(run(m, &d), 0);
	assert_int_equal(verify_module(NULL, &d), 0);
	done(m, &d);
}

/* ---------------------------------------------------------------- vars */

/* The same Var bound twice, or a parameter twice, is an error. */
static void
test_defined_twice(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *y = var(m, "y", NULL, false, 2);
	func(m, "f", seq(m, ref(m, y, 4), 1,
		block(m, false, 2,
			bind(m, y, ref(m, x, 2), 2),
			bind(m, y, ref(m, x, 3), 3))), 1, 1, x);
	Var *p = var(m, "p", NULL, false, 10);
	func(m, "g", seq(m, ref(m, p, 11), 0), 10, 2, p, p);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 3, "variable y is defined more than once");
	expect(&d, 1, 10, "variable p is defined more than once");
	done(m, &d);
}

/* Uses before the definition, and of a var never defined. */
static void
test_use_before_def(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *a = var(m, "a", NULL, false, 2);
	Var *b = var(m, "b", NULL, false, 3);
	Var *ghost = var(m, "ghost", NULL, false, 99);
	func(m, "f", seq(m, ref(m, ghost, 5), 1,
		block(m, false, 2,
			bind(m, a, opcall(m, OP_ADD, 2, 2, ref(m, x, 2), ref(m, b, 2)), 2),
			bind(m, b, ref(m, a, 3), 3))), 1, 1, x);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 2, "variable b is used before it is defined");
	expect(&d, 1, 5, "variable ghost is used before it is defined");
	done(m, &d);
}

/* Vars of an if-branch are not visible after it; the if's var is. */
static void
test_branch_scope(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *c = var(m, "c", si_tensor(&m->arena, DT_BOOL, 0, NULL), false, 1);
	Var *t = var(m, "t", NULL, false, 3);
	Var *e = var(m, "e", NULL, false, 4);
	Var *y = var(m, "y", NULL, false, 2);
	Var *z = var(m, "z", NULL, false, 5);
	Expr *then_ = seq(m, ref(m, t, 3), 1,
		block(m, false, 1, bind(m, t, opcall(m, OP_EXP, 3, 1, ref(m, x, 3)), 3)));
	/* the else branch sees t? no: t belongs to the then branch */
	Expr *else_ = seq(m, ref(m, e, 4), 1,
		block(m, false, 1, bind(m, e, ref(m, t, 4), 4)));
	func(m, "f", seq(m, ref(m, t, 6), 1,
		block(m, false, 2,
			bind(m, y, ifexpr(m, ref(m, c, 2), then_, else_, 2), 2),
			bind(m, z, tuple(m, 5, 2, ref(m, y, 5), ref(m, e, 5)), 5))),
		1, 2, x, c);
	assert_int_equal(run(m, &d), 3);
	expect(&d, 0, 4, "variable t is used outside the scope that defines it");
	expect(&d, 1, 5, "variable e is used outside the scope that defines it");
	expect(&d, 2, 6, "variable t is used outside the scope that defines it");
	done(m, &d);
}

/* ------------------------------------------------------------- dataflow */

/* DataflowVar rules: where defined, where used, never a parameter. */
static void
test_dataflow_vars(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *p = var(m, "p", NULL, true, 1);
	Var *lv = var(m, "lv", NULL, true, 2);
	Var *out = var(m, "out", NULL, false, 3);
	Var *bad = var(m, "bad", NULL, true, 5);
	Var *lv2 = var(m, "lv2", NULL, true, 7);
	Var *r = var(m, "r", NULL, false, 8);
	func(m, "f", seq(m, tuple(m, 9, 3, ref(m, out, 9), ref(m, lv, 9), ref(m, r, 9)), 3,
		block(m, true, 2,
			bind(m, lv, opcall(m, OP_EXP, 2, 1, ref(m, x, 2)), 2),
			bind(m, out, ref(m, lv, 3), 3)),
		block(m, false, 1, bind(m, bad, ref(m, out, 5), 5)),
		block(m, true, 2,
			bind(m, lv2, ref(m, lv, 7), 7),
			bind(m, r, ref(m, lv2, 8), 8))),
		1, 2, x, p);
	assert_int_equal(run(m, &d), 4);
	expect(&d, 0, 1, "parameter p of function f is a dataflow variable");
	expect(&d, 1, 5, "dataflow variable bad is defined outside a dataflow block");
	expect(&d, 2, 7, "dataflow variable lv is used outside its dataflow block");
	expect(&d, 3, 9, "dataflow variable lv is used outside its dataflow block");
	done(m, &d);
}

/* --------------------------------------------------------------- purity */

/* Impure calls: not in dataflow blocks, not from pure functions. */
static void
test_purity(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *ia = var(m, "a", NULL, false, 1);
	Func *imp = func(m, "io", seq(m, ref(m, ia, 1), 0), 1, 1, ia);
	imp->pure = false;
	Var *pa = var(m, "a", NULL, false, 2);
	func(m, "id", seq(m, ref(m, pa, 2), 0), 2, 1, pa);

	/* pure f: impure call in a dataflow block, then outside */
	Var *x = var(m, "x", NULL, false, 10);
	Var *lv = var(m, "lv", NULL, true, 11);
	Var *o = var(m, "o", NULL, false, 12);
	Var *q = var(m, "q", NULL, false, 13);
	Var *k = var(m, "k", NULL, false, 14);
	func(m, "f", seq(m, ref(m, k, 15), 2,
		block(m, true, 2,
			bind(m, lv, fncall(m, "io", 11, 1, ref(m, x, 11)), 11),
			bind(m, o, fncall(m, "id", 12, 1, ref(m, lv, 12)), 12)),
		block(m, false, 2,
			bind(m, q, fncall(m, "io", 13, 1, ref(m, o, 13)), 13),
			bind(m, k, fncall(m, "id", 14, 1, ref(m, q, 14)), 14))),
		10, 1, x);

	/* impure g may call io outside dataflow blocks */
	Var *gx = var(m, "x", NULL, false, 20);
	Var *gy = var(m, "y", NULL, false, 21);
	Func *g = func(m, "g", seq(m, ref(m, gy, 22), 1,
		block(m, false, 1, bind(m, gy, fncall(m, "io", 21, 1, ref(m, gx, 21)), 21))),
		20, 1, gx);
	g->pure = false;
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 11, "impure call to function io in a dataflow block");
	expect(&d, 1, 13, "pure function f calls impure function io");
	done(m, &d);
}

/* -------------------------------------------------------------- shape */

/* if only as a binding value outside dataflow; sequences only as bodies. */
static void
test_if_and_seq_places(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *c = var(m, "c", si_prim(&m->arena, DT_BOOL, NULL), false, 1);
	Var *a = var(m, "a", NULL, true, 2);
	Var *o = var(m, "o", NULL, false, 3);
	Var *s = var(m, "s", NULL, false, 4);
	Expr *if1 = ifexpr(m, ref(m, c, 2), seq(m, ref(m, x, 2), 0),
			   seq(m, ref(m, x, 2), 0), 2);
	Expr *inner = seq(m, ref(m, x, 4), 0);
	inner->span = L(4);
	Expr *if2 = ifexpr(m, ref(m, c, 5), seq(m, ref(m, x, 5), 0),
			   seq(m, ref(m, x, 5), 0), 5);
	func(m, "f", seq(m, if2, 2,
		block(m, true, 2,
			bind(m, a, if1, 2),
			bind(m, o, ref(m, a, 3), 3)),
		block(m, false, 1, bind(m, s, inner, 4))),
		1, 2, x, c);
	assert_int_equal(run(m, &d), 3);
	expect(&d, 0, 2, "if is not allowed in a dataflow block");
	expect(&d, 1, 4, "a sequence is only allowed as a function body or an if branch");
	expect(&d, 2, 5, "if is only allowed as the value of a binding");
	done(m, &d);
}

/* Call arguments must be leaves; tuples of leaves are leaves. */
static void
test_leaf_args(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *a = var(m, "a", NULL, false, 2);
	Var *b = var(m, "b", NULL, false, 3);
	Var *c = var(m, "c", NULL, false, 4);
	Expr *cst = ir_expr(m, E_CONST, L(2));
	Expr *nested = opcall(m, OP_EXP, 3, 1, ref(m, x, 3));
	Expr *tget = ir_expr(m, E_TUPLE_GET, L(4));
	tget->tget.tuple = ref(m, x, 4);
	func(m, "f", seq(m, ref(m, c, 5), 1,
		block(m, false, 3,
			bind(m, a, opcall(m, OP_CONCAT, 2, 1,
				tuple(m, 2, 2, ref(m, x, 2), cst)), 2),
			bind(m, b, opcall(m, OP_ADD, 3, 2, ref(m, a, 3), nested), 3),
			bind(m, c, opcall(m, OP_CONCAT, 4, 1,
				tuple(m, 4, 2, ref(m, x, 4), tget)), 4))),
		1, 1, x);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 3, "argument 2 of R.add must be a variable, constant, "
	       "shape, prim value, string or tuple of those, not a op call");
	expect(&d, 1, 4, "argument 1 of R.concat must be a variable, constant, "
	       "shape, prim value, string or tuple of those, not a tuple");
	done(m, &d);
}

/* Bodies and branches must be sequences. */
static void
test_not_a_seq(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	func(m, "f", ref(m, x, 2), 1, 1, x);
	Var *gx = var(m, "x", NULL, false, 10);
	Var *c = var(m, "c", NULL, false, 10);
	Var *y = var(m, "y", NULL, false, 11);
	func(m, "g", seq(m, ref(m, y, 13), 1,
		block(m, false, 1, bind(m, y,
			ifexpr(m, ref(m, c, 11), ref(m, gx, 12),
			       seq(m, ref(m, gx, 11), 0), 11), 11))),
		10, 2, gx, c);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 2, "the body of function f must be a sequence, not a var");
	expect(&d, 1, 12, "the then branch of an if must be a sequence, not a var");
	done(m, &d);
}

/* ------------------------------------------------------------- symbolic */

/* Defined at the first bare occurrence, in order; not used before. */
static void
test_symvar_order(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Arena *A = &m->arena;
	SymVar *n = ir_symvar(m, "n", L(1));
	SymVar *k = ir_symvar(m, "k", L(1));
	SymVar *mm = ir_symvar(m, "m", L(1));
	PExpr *n2 = pe_bin(A, PE_MUL, pe_var(A, n), pe_int(A, 2));
	n2->span = L(2);
	/* p0: (n * 2,) uses n, which the later p1 defines: fine, as in TVM's
	 * well-formedness (every parameter's bare dims are definitions) */
	Var *p0 = var(m, "p0", tens(m, 1, n2, NULL), false, 2);
	Var *p1 = var(m, "p1", tens(m, 1, pe_var(A, n), NULL), false, 3);
	/* p2: (k + 1, k): k is bare in the same annotation: fine */
	Var *p2 = var(m, "p2", tens(m, 2, pe_bin(A, PE_ADD, pe_var(A, k), pe_int(A, 1)),
				    pe_var(A, k)), false, 4);
	/* a binding annotated with m before the match_cast defining m */
	PExpr *mu = pe_var(A, mm);
	mu->span = L(5);
	Var *a = var(m, "a", tens(m, 1, mu, NULL), false, 5);
	Var *b = var(m, "b", NULL, false, 6);
	Var *cc = var(m, "c", tens(m, 1, pe_var(A, mm), NULL), false, 7);
	Binding *mc = bind(m, b, ref(m, p1, 6), 6);
	mc->cast = tens(m, 1, pe_var(A, mm), NULL);
	b->sinfo = mc->cast;
	Func *f = func(m, "f", seq(m, ref(m, cc, 8), 1,
		block(m, false, 3,
			bind(m, a, ref(m, p0, 5), 5),
			mc,
			bind(m, cc, ref(m, b, 7), 7))),
		1, 3, p0, p1, p2);
	symvars(m, f, 3, n, k, mm);
	assert_int_equal(run(m, &d), 1);
	expect(&d, 0, 5, "symbolic variable m is used before it is defined");
	done(m, &d);
}

/* Each SymVar belongs to the one function that lists it. */
static void
test_symvar_owner(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Arena *A = &m->arena;
	SymVar *n = ir_symvar(m, "n", L(1));
	SymVar *u = ir_symvar(m, "u", L(1));
	Var *x = var(m, "x", tens(m, 1, pe_var(A, n), NULL), false, 1);
	Func *f = func(m, "f", seq(m, ref(m, x, 2), 0), 1, 1, x);
	symvars(m, f, 1, n);
	/* g lists n too */
	Var *gx = var(m, "x", tens(m, 1, pe_var(A, n), NULL), false, 10);
	Func *g = func(m, "g", seq(m, ref(m, gx, 11), 0), 10, 1, gx);
	symvars(m, g, 1, n);
	/* h uses n (f's) and u (nobody's) without listing them */
	PExpr *nu = pe_var(A, n);
	nu->span = L(20);
	PExpr *uu = pe_var(A, u);
	uu->span = L(21);
	Var *hx = var(m, "x", tens(m, 1, nu, NULL), false, 20);
	Var *hy = var(m, "y", tens(m, 1, uu, NULL), false, 21);
	func(m, "h", seq(m, ref(m, hx, 22), 0), 20, 2, hx, hy);
	assert_int_equal(run(m, &d), 3);
	expect(&d, 0, 10, "symbolic variable n is shared between functions f and g");
	expect(&d, 1, 20, "symbolic variable n of function f is used in function h");
	expect(&d, 2, 21, "symbolic variable u is used in function h, which does not define it");
	done(m, &d);
}

/* Symbolic variables in shape and prim values of expressions are uses. */
static void
test_symvar_in_exprs(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Arena *A = &m->arena;
	SymVar *n = ir_symvar(m, "n", L(1));
	Var *x = var(m, "x", NULL, false, 1);
	Var *s = var(m, "s", NULL, false, 2);
	Var *p = var(m, "p", NULL, false, 3);
	Var *y = var(m, "y", NULL, false, 4);
	Expr *shp = ir_expr(m, E_SHAPE, L(2));
	shp->shape.values = ARENA_ARRAY(A, PExpr *, 1);
	shp->shape.values[0] = pe_var(A, n);
	shp->shape.n = 1;
	Expr *pv = ir_expr(m, E_PRIM, L(3));
	pv->prim.dtype = DT_I64;
	pv->prim.value = pe_var(A, n);
	Binding *mc = bind(m, y, ref(m, x, 4), 4);
	mc->cast = tens(m, 1, pe_var(A, n), NULL);
	Func *f = func(m, "f", seq(m, ref(m, y, 5), 1,
		block(m, false, 3, bind(m, s, shp, 2), bind(m, p, pv, 3), mc)),
		1, 1, x);
	symvars(m, f, 1, n);
	/* said once per variable */
	assert_int_equal(run(m, &d), 1);
	expect(&d, 0, 2, "symbolic variable n is used before it is defined");
	done(m, &d);
}

/* ------------------------------------------------------------ attributes */

/* num_input: an integer in 0..nparams. */
static void
test_num_input(void **state)
{
	(void)state;
	static const struct {
		AttrVal val;
		const char *msg; /* NULL: fine */
	} cases[] = {
		{{.kind = AV_INT, .i = 0}, NULL},
		{{.kind = AV_INT, .i = 2}, NULL},
		{{.kind = AV_INT, .i = 3}, "num_input of function f is 3, but it has 2 parameters"},
		{{.kind = AV_INT, .i = -1}, "num_input of function f is -1, but it has 2 parameters"},
		{{.kind = AV_STR, .s = "1"}, "num_input of function f must be an integer"},
		{{.kind = AV_FLOAT, .f = 1.0}, "num_input of function f must be an integer"},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		Diags d = {0};
		Module *m = mod();
		Var *x = var(m, "x", NULL, false, 2);
		Var *w = var(m, "w", NULL, false, 2);
		Func *f = func(m, "f", seq(m, ref(m, x, 3), 0), 1, 2, x, w);
		attr(m, f, "num_input", cases[i].val);
		assert_int_equal(run(m, &d), cases[i].msg ? 1 : 0);
		if (cases[i].msg)
			expect(&d, 0, 1, cases[i].msg);
		done(m, &d);
	}
}

/* ------------------------------------------------------------ conditions */

/* An if condition must be a bool scalar when its struct info is known. */
static void
test_if_condition(void **state)
{
	(void)state;
	for (int i = 0; i < 7; i++) {
		Diags d = {0};
		Module *m = mod();
		Arena *A = &m->arena;
		SInfo *si = NULL;
		bool bad = false;
		switch (i) {
		case 0: si = si_tensor(A, DT_BOOL, 0, NULL); break;
		case 1: si = si_prim(A, DT_BOOL, NULL); break;
		case 2: si = si_object(A); break;
		case 3: si = NULL; break;
		case 4: si = si_tensor(A, DT_F32, 0, NULL); bad = true; break;
		case 5: si = si_tensor(A, DT_BOOL, 1, NULL); bad = true; break;
		case 6: si = si_shape(A, 1, NULL); bad = true; break;
		}
		Var *c = var(m, "c", si, false, 1);
		Var *y = var(m, "y", NULL, false, 2);
		func(m, "f", seq(m, ref(m, y, 3), 1,
			block(m, false, 1, bind(m, y,
				ifexpr(m, ref(m, c, 2), seq(m, ref(m, c, 2), 0),
				       seq(m, ref(m, c, 2), 0), 2), 2))),
			1, 1, c);
		assert_int_equal(run(m, &d), bad ? 1 : 0);
		if (bad) {
			assert_int_equal(d.items[0].span.line, 2);
			assert_non_null(strstr(d.items[0].msg,
				"if condition c must be a bool scalar, not "));
		}
		done(m, &d);
	}
}

/* ---------------------------------------------------------------- calls */

/* Callees exist and get as many arguments as they have parameters. */
static void
test_calls(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *ha = var(m, "a", NULL, false, 1);
	Var *hb = var(m, "b", NULL, false, 1);
	func(m, "h", seq(m, ref(m, ha, 1), 0), 1, 2, ha, hb);
	Var *x = var(m, "x", NULL, false, 10);
	Var *a = var(m, "a", NULL, false, 11);
	Var *b = var(m, "b", NULL, false, 12);
	Var *c = var(m, "c", NULL, false, 13);
	func(m, "f", seq(m, ref(m, c, 14), 1,
		block(m, false, 3,
			bind(m, a, fncall(m, "nope", 11, 1, ref(m, x, 11)), 11),
			bind(m, b, fncall(m, "h", 12, 1, ref(m, x, 12)), 12),
			bind(m, c, fncall(m, "h", 13, 2, ref(m, x, 13), ref(m, b, 13)), 13))),
		10, 1, x);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 11, "call to unknown function nope");
	expect(&d, 1, 12, "function h takes 2 arguments but is called with 1");
	done(m, &d);
}

/* Op calls have their signature's arity; tuple indices are in range. */
static void
test_op_arity_and_index(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Arena *A = &m->arena;
	Var *x = var(m, "x", NULL, false, 1);
	SInfo **fl = ARENA_ARRAY(A, SInfo *, 2);
	fl[0] = fl[1] = tens(m, 1, NULL, NULL);
	Var *t = var(m, "t", si_tuple(A, fl, 2), false, 1);
	Var *a = var(m, "a", NULL, false, 2);
	Var *b = var(m, "b", NULL, false, 3);
	Var *c = var(m, "c", NULL, false, 4);
	Var *g0 = var(m, "g0", NULL, false, 5);
	Var *g2 = var(m, "g2", NULL, false, 6);
	Var *gn = var(m, "gn", NULL, false, 7);
	Expr *noattrs = opcall(m, OP_MATMUL, 4, 2, ref(m, x, 4), ref(m, x, 4));
	noattrs->call.nattrs = 0;
	Expr *tg[3];
	int idx[3] = {1, 2, 0};
	for (int i = 0; i < 3; i++) {
		tg[i] = ir_expr(m, E_TUPLE_GET, L(5 + i));
		tg[i]->tget.tuple = ref(m, t, 5 + i);
		tg[i]->tget.index = idx[i];
	}
	func(m, "f", seq(m, ref(m, gn, 8), 1,
		block(m, false, 6,
			bind(m, a, opcall(m, OP_ADD, 2, 1, ref(m, x, 2)), 2),
			bind(m, b, opcall(m, OP_EXP, 3, 1, ref(m, a, 3)), 3),
			bind(m, c, noattrs, 4),
			bind(m, g0, tg[0], 5),
			bind(m, g2, tg[1], 6),
			bind(m, gn, tg[2], 7))),
		1, 2, x, t);
	assert_int_equal(run(m, &d), 3);
	expect(&d, 0, 2, "R.add takes 2 arguments but is given 1");
	expect(&d, 1, 4, "malformed IR: R.matmul has 0 attributes instead of 1");
	expect(&d, 2, 6, "tuple index 2 is out of range for a tuple of 2 fields");
	done(m, &d);
	/* negative index, separately so the count above stays exact */
	d = (Diags){0};
	m = mod();
	x = var(m, "x", NULL, false, 1);
	a = var(m, "a", NULL, false, 2);
	Expr *neg = ir_expr(m, E_TUPLE_GET, L(2));
	neg->tget.tuple = ref(m, x, 2);
	neg->tget.index = -1;
	func(m, "f", seq(m, ref(m, a, 3), 1, block(m, false, 1, bind(m, a, neg, 2))), 1, 1, x);
	assert_int_equal(run(m, &d), 1);
	expect(&d, 0, 2, "tuple index -1 is negative");
	done(m, &d);
}

/* ------------------------------------------------------- shared / names */

/* Vars shared between functions are reported at the second function. */
static void
test_shared_vars(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *t = var(m, "t", NULL, false, 2);
	func(m, "f", seq(m, ref(m, t, 3), 1,
		block(m, false, 1, bind(m, t, ref(m, x, 2), 2))), 1, 1, x);
	Var *y = var(m, "y", NULL, false, 11);
	func(m, "g", seq(m, ref(m, y, 12), 1,
		block(m, false, 1, bind(m, y, ref(m, t, 11), 11))), 10, 1, x);
	assert_int_equal(run(m, &d), 2);
	expect(&d, 0, 1, "variable x is already defined in function f");
	expect(&d, 1, 11, "variable t of function f is used in function g");
	done(m, &d);
}

/* Two functions with one name. */
static void
test_duplicate_function(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", NULL, false, 1);
	Var *y = var(m, "y", NULL, false, 5);
	func(m, "f", seq(m, ref(m, x, 1), 0), 1, 1, x);
	func(m, "f", seq(m, ref(m, y, 5), 0), 5, 1, y);
	assert_int_equal(run(m, &d), 1);
	expect(&d, 0, 5, "function f is defined more than once");
	done(m, &d);
}

/* ir_find_func's index follows passes that edit m->funcs directly. */
static void
test_find_func(void **state)
{
	(void)state;
	Module *m = mod();
	Func *fs[40];
	char name[16];
	for (int i = 0; i < 40; i++) {
		Var *x = var(m, "x", NULL, false, i + 1);
		snprintf(name, sizeof name, "f%d", i);
		fs[i] = func(m, name, seq(m, ref(m, x, i + 1), 0), i + 1, 1, x);
	}
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "f%d", i);
		assert_ptr_equal(ir_find_func(m, name), fs[i]);
		assert_int_equal(ir_func_index(m, name), i);
	}
	assert_null(ir_find_func(m, "f40"));
	assert_null(ir_find_func(m, "f"));
	/* reorder, drop the last ten, rename one, as passes do */
	Func *t = m->funcs[0];
	m->funcs[0] = m->funcs[29];
	m->funcs[29] = t;
	m->nfuncs = 30;
	fs[5]->name = "renamed";
	assert_ptr_equal(ir_find_func(m, "f0"), fs[0]);
	assert_int_equal(ir_func_index(m, "f0"), 29);
	assert_int_equal(ir_func_index(m, "f29"), 0);
	assert_null(ir_find_func(m, "f35"));
	assert_null(ir_find_func(m, "f5"));
	assert_ptr_equal(ir_find_func(m, "renamed"), fs[5]);
	/* a new function, and a duplicate name: the first one wins */
	Var *y = var(m, "y", NULL, false, 50);
	Func *g = func(m, "g", seq(m, ref(m, y, 50), 0), 50, 1, y);
	assert_ptr_equal(ir_find_func(m, "g"), g);
	Var *z = var(m, "z", NULL, false, 51);
	func(m, "f3", seq(m, ref(m, z, 51), 0), 51, 1, z);
	assert_ptr_equal(ir_find_func(m, "f3"), fs[3]);
	ir_module_free(m);
}

/* ---------------------------------------------------------- annotations */

/*
 * Annotated bindings and return values go through si_check; whatever it
 * answers, verify must not crash, including on NULL struct info.
 */
static void
test_annotations_no_crash(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *x = var(m, "x", tens(m, 2, NULL, NULL), false, 1);
	Var *a = var(m, "a", tens(m, 1, NULL, NULL), false, 2);
	Var *b = var(m, "b", NULL, false, 3);
	Expr *v1 = opcall(m, OP_EXP, 2, 1, ref(m, x, 2));
	v1->sinfo = tens(m, 2, NULL, NULL);
	Binding *b1 = bind(m, a, v1, 2);
	b1->annotated = true;
	Binding *b2 = bind(m, b, opcall(m, OP_EXP, 3, 1, ref(m, a, 3)), 3);
	b2->annotated = true; /* NULL on both sides */
	Expr *r = ref(m, b, 4);
	r->sinfo = si_shape(&m->arena, 1, NULL);
	Func *f = func(m, "f", seq(m, r, 1, block(m, false, 2, b1, b2)), 1, 1, x);
	f->ret = tens(m, 2, NULL, NULL);
	int n = run(m, &d);
	assert_true(n >= 0 && n <= 2);
	for (int i = 0; i < d.n; i++)
		assert_true(d.items[i].span.line == 2 || d.items[i].span.line == 4);
	done(m, &d);
}

/* ------------------------------------------------------------ robustness */

/* Broken IR is reported, never followed into a crash. */
static void
test_malformed_ir(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Arena *A = &m->arena;
	/* f: no body; g: a NULL param; h: NULL everything in a body */
	func(m, "f", NULL, 1, 0);
	Func *g = func(m, "g", seq(m, NULL, 0), 2, 1, NULL);
	(void)g;
	Var *x = var(m, "x", NULL, false, 3);
	Block *nb = ARENA_NEW(A, Block);
	nb->n = 3; /* bindings NULL */
	Binding *nob = bind(m, NULL, NULL, 4);
	Expr *novar = ir_expr(m, E_VAR, L(5));
	Var *y = var(m, "y", NULL, false, 5);
	Expr *badop = ir_expr(m, E_CALL, L(6));
	badop->call.op = (OpKind)9999;
	Var *z = var(m, "z", NULL, false, 6);
	Expr *noargs = ir_expr(m, E_CALL, L(7));
	noargs->call.op = OP_ADD;
	noargs->call.nargs = 2;
	Var *w = var(m, "w", NULL, false, 7);
	Var *bad_id = var(m, "q", NULL, false, 8);
	bad_id->id = 1 << 20;
	Var *v8 = var(m, "v8", NULL, false, 8);
	Expr *noif = ir_expr(m, E_IF, L(9));
	Var *v9 = var(m, "v9", NULL, false, 9);
	PExpr *pv = pe_var(A, NULL);
	Var *v10 = var(m, "v10", tens(m, 1, pv, NULL), false, 10);
	Block *holes = block(m, false, 8, nob, bind(m, y, novar, 5),
			     bind(m, z, badop, 6), bind(m, w, noargs, 7),
			     bind(m, v8, ref(m, bad_id, 8), 8),
			     bind(m, v9, noif, 9), bind(m, v10, ref(m, x, 10), 10),
			     NULL);
	Expr *body = seq(m, NULL, 3, nb, holes, NULL);
	func(m, "h", body, 3, 1, x);
	/* k: NULL name, attrs NULL with nattrs set, symvars NULL with count */
	Func *k = func(m, "k", seq(m, NULL, 0), 20, 0);
	k->name = NULL;
	k->nattrs = 2;
	k->nsymvars = 1;
	/* a call of a function whose name is NULL must not crash lookup */
	Var *cx = var(m, "cx", NULL, false, 30);
	Var *cy = var(m, "cy", NULL, false, 31);
	func(m, "c", seq(m, ref(m, cy, 32), 1,
		block(m, false, 1, bind(m, cy, fncall(m, NULL, 31, 1, ref(m, cx, 31)), 31))),
		30, 1, cx);
	int n = run(m, &d);
	assert_true(n >= 15);
	for (int i = 0; i < d.n; i++)
		assert_non_null(d.items[i].msg);
	diag_clear(&d);

	/* a module whose function array is missing, and one with NULL slots */
	Module *m2 = mod();
	m2->nfuncs = 2;
	assert_int_equal(run(m2, &d), 1);
	m2->funcs = ARENA_ARRAY(&m2->arena, Func *, 2);
	assert_int_equal(run(m2, &d), 2);
	ir_module_free(m2);
	done(m, &d);
}

/* Deeply nested ifs are walked (and a self-cycle is cut, not looped). */
static void
test_deep_and_cyclic(void **state)
{
	(void)state;
	Diags d = {0};
	Module *m = mod();
	Var *c = var(m, "c", si_prim(&m->arena, DT_BOOL, NULL), false, 1);
	Expr *inner = seq(m, ref(m, c, 2), 0);
	for (int i = 0; i < 50; i++) {
		Var *y = var(m, "y", NULL, false, 3);
		Expr *e = ifexpr(m, ref(m, c, 3), inner, seq(m, ref(m, c, 3), 0), 3);
		inner = seq(m, ref(m, y, 3), 1, block(m, false, 1, bind(m, y, e, 3)));
	}
	func(m, "f", inner, 1, 1, c);
	assert_int_equal(run(m, &d), 0);

	/* a tuple that contains itself */
	Module *m2 = mod();
	Var *x = var(m2, "x", NULL, false, 1);
	Var *t = var(m2, "t", NULL, false, 2);
	Expr *tup = tuple(m2, 2, 1, NULL);
	tup->tuple.items[0] = tup;
	func(m2, "g", seq(m2, ref(m2, t, 3), 1,
		block(m2, false, 1, bind(m2, t, tup, 2))), 1, 1, x);
	assert_true(run(m2, &d) >= 1);
	ir_module_free(m2);
	done(m, &d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_defined_twice),
		cmocka_unit_test(test_use_before_def),
		cmocka_unit_test(test_branch_scope),
		cmocka_unit_test(test_dataflow_vars),
		cmocka_unit_test(test_purity),
		cmocka_unit_test(test_if_and_seq_places),
		cmocka_unit_test(test_leaf_args),
		cmocka_unit_test(test_not_a_seq),
		cmocka_unit_test(test_symvar_order),
		cmocka_unit_test(test_symvar_owner),
		cmocka_unit_test(test_symvar_in_exprs),
		cmocka_unit_test(test_num_input),
		cmocka_unit_test(test_if_condition),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_op_arity_and_index),
		cmocka_unit_test(test_shared_vars),
		cmocka_unit_test(test_duplicate_function),
		cmocka_unit_test(test_find_func),
		cmocka_unit_test(test_annotations_no_crash),
		cmocka_unit_test(test_malformed_ir),
		cmocka_unit_test(test_deep_and_cyclic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
