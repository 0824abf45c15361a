/* test_prim.c — unit tests for prim.c: canonical forms, printing, folding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

/* A module to allocate in, with symbolic vars n, m, k (ids in that order). */
typedef struct {
	Module *mod;
	Arena *a;
	SymVar *n, *m, *k;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->mod = ir_module_new("t.py", "", 0);
	f->a = &f->mod->arena;
	f->n = ir_symvar(f->mod, "n", (Span){1, 1, 1});
	f->m = ir_symvar(f->mod, "m", (Span){1, 2, 1});
	f->k = ir_symvar(f->mod, "k", (Span){1, 3, 1});
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	ir_module_free(f->mod);
	free(f);
	return 0;
}

/* Short constructors. */
#define I(v) pe_int(f->a, (v))
#define V(x) pe_var(f->a, f->x)
#define ADD(x, y) pe_bin(f->a, PE_ADD, (x), (y))
#define SUB(x, y) pe_bin(f->a, PE_SUB, (x), (y))
#define MUL(x, y) pe_bin(f->a, PE_MUL, (x), (y))
#define DIV(x, y) pe_bin(f->a, PE_FLOORDIV, (x), (y))
#define MOD(x, y) pe_bin(f->a, PE_FLOORMOD, (x), (y))
#define MIN(x, y) pe_bin(f->a, PE_MIN, (x), (y))
#define MAX(x, y) pe_bin(f->a, PE_MAX, (x), (y))

/* The printed text of x (static buffer per call site is enough here). */
static char *
show(const PExpr *x)
{
	StrBuf b = {0};
	pe_print(&b, x);
	return sb_take(&b);
}

/* Asserts that x prints as `want`. */
static void
check_print(const PExpr *x, const char *want)
{
	char *s = show(x);
	if (strcmp(s, want))
		print_error("printed '%s', want '%s'\n", s, want);
	bool ok = !strcmp(s, want);
	free(s);
	assert_true(ok);
}

/* Asserts that simplify(x) prints as `want`. */
static void
check_simp(Arena *a, PExpr *x, const char *want)
{
	check_print(pe_simplify(a, x), want);
}

/* Asserts that simplify(x) is the constant v. */
static void
check_const(Arena *a, PExpr *x, int64_t v)
{
	int64_t got = 0;
	assert_true(pe_is_const(pe_simplify(a, x), &got));
	assert_int_equal(got, v);
}

static void
test_canonical_equal(void **state)
{
	Fix *f = *state;
	/* (n*4)//4 == n */
	assert_true(pe_equal(f->a, DIV(MUL(V(n), I(4)), I(4)), V(n)));
	/* (n*4)%4 == 0 */
	assert_true(pe_equal(f->a, MOD(MUL(V(n), I(4)), I(4)), I(0)));
	/* n//1 == n, n%1 == 0 */
	assert_true(pe_equal(f->a, DIV(V(n), I(1)), V(n)));
	assert_true(pe_equal(f->a, MOD(V(n), I(1)), I(0)));
	/* x - x == 0 */
	assert_true(pe_equal(f->a, SUB(ADD(V(n), V(m)), ADD(V(m), V(n))), I(0)));
	/* 2*n == n*2 */
	assert_true(pe_equal(f->a, MUL(I(2), V(n)), MUL(V(n), I(2))));
	/* (n+1)-1 == n */
	assert_true(pe_equal(f->a, SUB(ADD(V(n), I(1)), I(1)), V(n)));
	/* n*(m+1) == n*m + n */
	assert_true(pe_equal(f->a, MUL(V(n), ADD(V(m), I(1))),
			     ADD(MUL(V(n), V(m)), V(n))));
	/* m*n == n*m, (n+m)+k == k+(m+n) */
	assert_true(pe_equal(f->a, MUL(V(m), V(n)), MUL(V(n), V(m))));
	assert_true(pe_equal(f->a, ADD(ADD(V(n), V(m)), V(k)),
			     ADD(V(k), ADD(V(m), V(n)))));
	/* (n*8 + m*4) // 4 == n*2 + m; (n*4 + 3) // 4 == n; (n*4 - 1)//4 == n - 1 */
	assert_true(pe_equal(f->a, DIV(ADD(MUL(V(n), I(8)), MUL(V(m), I(4))), I(4)),
			     ADD(MUL(V(n), I(2)), V(m))));
	assert_true(pe_equal(f->a, DIV(ADD(MUL(V(n), I(4)), I(3)), I(4)), V(n)));
	assert_true(pe_equal(f->a, DIV(SUB(MUL(V(n), I(4)), I(1)), I(4)),
			     SUB(V(n), I(1))));
	/* (n*4 + m) % 4 == m % 4 */
	assert_true(pe_equal(f->a, MOD(ADD(MUL(V(n), I(4)), V(m)), I(4)),
			     MOD(V(m), I(4))));
	/* (n + 1) // 2 is kept and equal to itself written differently */
	assert_true(pe_equal(f->a, DIV(ADD(I(1), V(n)), I(2)),
			     DIV(SUB(ADD(V(n), I(2)), I(1)), I(2))));
	/* min/max are commutative; equal operands collapse */
	assert_true(pe_equal(f->a, MIN(V(n), V(m)), MIN(V(m), V(n))));
	assert_true(pe_equal(f->a, MAX(V(n), V(n)), V(n)));
	assert_true(pe_equal(f->a, MAX(V(n), ADD(V(n), I(1))), ADD(V(n), I(1))));
	assert_true(pe_equal(f->a, MIN(V(n), ADD(V(n), I(1))), V(n)));
	/* n // -1 == -n */
	assert_true(pe_equal(f->a, DIV(V(n), I(-1)), MUL(V(n), I(-1))));
}

static void
test_canonical_not_equal(void **state)
{
	Fix *f = *state;
	assert_false(pe_equal(f->a, V(n), V(m)));
	assert_false(pe_equal(f->a, MUL(V(n), I(2)), MUL(V(n), I(3))));
	assert_false(pe_equal(f->a, MUL(DIV(V(n), I(2)), I(2)), V(n)));
	assert_false(pe_equal(f->a, DIV(V(n), I(2)), MOD(V(n), I(2))));
	assert_false(pe_equal(f->a, MIN(V(n), V(m)), MAX(V(n), V(m))));
	assert_false(pe_equal(f->a, ADD(V(n), I(1)), V(n)));
	assert_false(pe_equal(f->a, MUL(V(n), V(n)), MUL(V(n), I(2))));
	assert_false(pe_equal(f->a, DIV(V(n), V(m)), DIV(V(m), V(n))));
	/* x // x is not 1 (x may be 0) */
	assert_false(pe_equal(f->a, DIV(V(n), V(n)), I(1)));
	assert_false(pe_equal(f->a, V(n), NULL));
}

static void
test_canonical_is_fixpoint(void **state)
{
	Fix *f = *state;
	PExpr *xs[] = {
		ADD(MUL(I(2), V(m)), SUB(V(n), I(3))),
		DIV(ADD(V(n), I(1)), I(2)),
		MUL(MAX(V(m), I(1)), MIN(V(n), V(k))),
		SUB(I(0), V(n)),
		MOD(V(n), V(m)),
		DIV(V(n), I(0)),
		ADD(MUL(I(INT64_MAX), V(n)), MUL(I(INT64_MAX), V(n))),
	};
	for (size_t i = 0; i < ARRAY_LEN(xs); i++) {
		PExpr *c = pe_simplify(f->a, xs[i]);
		/* Already canonical: simplify returns its argument. */
		assert_ptr_equal(pe_simplify(f->a, c), c);
		assert_true(pe_equal(f->a, c, xs[i]));
	}
	PExpr *n = V(n);
	assert_ptr_equal(pe_simplify(f->a, n), n);
}

static void
test_print_canonical(void **state)
{
	Fix *f = *state;
	check_simp(f->a, ADD(ADD(I(1), V(m)), V(n)), "n + m + 1");
	check_simp(f->a, SUB(MUL(I(2), V(n)), I(1)), "n * 2 - 1");
	check_simp(f->a, MUL(MUL(I(4), V(m)), V(n)), "n * m * 4");
	check_simp(f->a, MUL(I(2), V(n)), "n * 2");
	check_simp(f->a, SUB(V(m), V(n)), "n * -1 + m");
	check_simp(f->a, SUB(V(n), MUL(V(m), I(3))), "n - m * 3");
	check_simp(f->a, DIV(ADD(V(n), I(1)), I(2)), "(n + 1) // 2");
	check_simp(f->a, MUL(ADD(V(n), I(1)), V(m)), "n * m + m");
	check_simp(f->a, MOD(V(n), I(8)), "n % 8");
	check_simp(f->a, MUL(DIV(V(n), I(2)), I(2)), "n // 2 * 2");
	check_simp(f->a, MAX(I(1), V(n)), "T.max(n, 1)");
	check_simp(f->a, MIN(ADD(V(m), I(1)), V(n)), "T.min(n, m + 1)");
	check_simp(f->a, ADD(DIV(V(n), V(m)), V(n)), "n + n // m");
	check_simp(f->a, SUB(V(n), V(n)), "0");
	check_simp(f->a, I(-5), "-5");
	check_simp(f->a, SUB(I(3), V(n)), "n * -1 + 3");
	check_simp(f->a, DIV(V(n), I(0)), "n // 0");
	check_simp(f->a, MOD(ADD(V(n), I(3)), ADD(V(m), I(1))),
		   "(n + 3) % (m + 1)");
}

static void
test_print_raw_trees(void **state)
{
	Fix *f = *state;
	/* Non-canonical trees still print as Python with the same meaning. */
	check_print(MUL(ADD(V(n), I(1)), V(m)), "(n + 1) * m");
	check_print(SUB(V(n), ADD(V(m), I(1))), "n - (m + 1)");
	check_print(SUB(V(n), SUB(V(m), I(1))), "n - (m - 1)");
	check_print(ADD(SUB(V(n), V(m)), I(1)), "n - m + 1");
	check_print(DIV(V(n), MUL(V(m), I(2))), "n // (m * 2)");
	check_print(MUL(DIV(V(n), V(m)), I(2)), "n // m * 2");
	check_print(MUL(I(2), MOD(V(n), I(3))), "2 * (n % 3)");
	check_print(MUL(I(-1), V(n)), "-1 * n");
	check_print(ADD(V(n), I(-1)), "n + -1");
	check_print(MAX(ADD(V(n), V(m)), DIV(V(k), I(2))), "T.max(n + m, k // 2)");
	check_print(I(INT64_MIN), "(-9223372036854775807 - 1)");
	check_print(I(INT64_MAX), "9223372036854775807");
}

static void
test_const_floor_semantics(void **state)
{
	Fix *f = *state;
	check_const(f->a, DIV(I(7), I(2)), 3);
	check_const(f->a, DIV(I(-7), I(2)), -4);
	check_const(f->a, DIV(I(7), I(-2)), -4);
	check_const(f->a, DIV(I(-7), I(-2)), 3);
	check_const(f->a, DIV(I(-8), I(2)), -4);
	check_const(f->a, MOD(I(7), I(3)), 1);
	check_const(f->a, MOD(I(-7), I(3)), 2);
	check_const(f->a, MOD(I(7), I(-3)), -2);
	check_const(f->a, MOD(I(-7), I(-3)), -1);
	check_const(f->a, MOD(I(-6), I(3)), 0);
	check_const(f->a, MOD(I(INT64_MIN), I(-1)), 0);
	check_const(f->a, MIN(I(3), I(-2)), -2);
	check_const(f->a, MAX(I(3), I(-2)), 3);
	check_const(f->a, ADD(MUL(I(3), I(4)), SUB(I(1), I(20))), -7);
	/* Variables cancel out to a constant. */
	check_const(f->a, SUB(ADD(V(n), I(5)), V(n)), 5);
	int64_t v;
	assert_false(pe_is_const(V(n), &v));
}

static void
test_overflow_and_zero(void **state)
{
	Fix *f = *state;
	int64_t v;
	/* Folding would overflow: the term stays unfolded, no UB. */
	PExpr *x = pe_simplify(f->a, ADD(I(INT64_MAX), I(1)));
	assert_false(pe_is_const(x, &v));
	check_print(x, "9223372036854775807 + 1");
	x = pe_simplify(f->a, MUL(I(INT64_MAX), I(2)));
	assert_false(pe_is_const(x, &v));
	x = pe_simplify(f->a, SUB(I(INT64_MIN), I(1)));
	assert_false(pe_is_const(x, &v));
	x = pe_simplify(f->a, DIV(I(INT64_MIN), I(-1)));
	assert_false(pe_is_const(x, &v));
	x = pe_simplify(f->a, MUL(V(n), MUL(I(INT64_MAX), I(INT64_MAX))));
	assert_false(pe_is_const(x, &v));
	x = pe_simplify(f->a, ADD(MUL(V(n), I(INT64_MAX)), MUL(V(n), I(2))));
	assert_non_null(x);
	x = pe_simplify(f->a, DIV(MUL(V(n), I(INT64_MIN)), I(-1)));
	assert_non_null(x);
	x = pe_simplify(f->a, SUB(I(0), I(INT64_MIN)));
	assert_false(pe_is_const(x, &v));
	/* INT64_MIN itself is fine. */
	check_const(f->a, SUB(I(-INT64_MAX), I(1)), INT64_MIN);
	/* Division by zero: kept as a term, never folded. */
	x = pe_simplify(f->a, DIV(I(4), I(0)));
	assert_false(pe_is_const(x, &v));
	check_print(x, "4 // 0");
	x = pe_simplify(f->a, MOD(V(n), SUB(V(m), V(m))));
	check_print(x, "n % 0");
}

static void
test_subst(void **state)
{
	Fix *f = *state;
	SymVar *from[] = {f->n, f->m};
	PExpr *to[] = {I(3), ADD(V(k), I(1))};
	/* n * 2 + m -> 3 * 2 + k + 1 = k + 7 */
	PExpr *x = pe_subst(f->a, ADD(MUL(V(n), I(2)), V(m)), from, to, 2);
	check_print(x, "k + 7");
	/* (n * 4) // m with n := 3 -> 12 // (k + 1) */
	x = pe_subst(f->a, DIV(MUL(V(n), I(4)), V(m)), from, to, 2);
	check_print(x, "12 // (k + 1)");
	/* No match: unchanged meaning. */
	x = pe_subst(f->a, ADD(V(k), V(k)), from, to, 2);
	check_print(x, "k * 2");
	/* Substituting to a var reorders by id. */
	SymVar *f2[] = {f->k};
	PExpr *t2[] = {V(n)};
	x = pe_subst(f->a, ADD(V(m), V(k)), f2, t2, 1);
	check_print(x, "n + m");
	/* Fully constant */
	SymVar *f3[] = {f->n};
	PExpr *t3[] = {I(10)};
	x = pe_subst(f->a, DIV(V(n), I(4)), f3, t3, 1);
	int64_t v;
	assert_true(pe_is_const(x, &v));
	assert_int_equal(v, 2);
}

static void
test_collect_vars(void **state)
{
	Fix *f = *state;
	Vec out = {0};
	pe_collect_vars(ADD(MUL(V(m), V(n)), DIV(V(m), MAX(V(k), V(n)))), &out);
	assert_int_equal(out.n, 3);
	assert_ptr_equal(out.items[0], f->m);
	assert_ptr_equal(out.items[1], f->n);
	assert_ptr_equal(out.items[2], f->k);
	/* Appends, keeping uniqueness with what is already there. */
	pe_collect_vars(ADD(V(n), I(1)), &out);
	assert_int_equal(out.n, 3);
	pe_collect_vars(I(3), &out);
	assert_int_equal(out.n, 3);
	vec_free(&out);
}

static void
test_struct_equal(void **state)
{
	Fix *f = *state;
	assert_true(pe_struct_equal(ADD(V(n), I(1)), ADD(V(n), I(1))));
	assert_false(pe_struct_equal(ADD(V(n), I(1)), ADD(I(1), V(n))));
	assert_false(pe_struct_equal(V(n), V(m)));
	assert_false(pe_struct_equal(I(1), I(2)));
	assert_false(pe_struct_equal(MIN(V(n), V(m)), MAX(V(n), V(m))));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_canonical_equal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_canonical_not_equal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_canonical_is_fixpoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_canonical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_raw_trees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_const_floor_semantics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_and_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collect_vars, setup, teardown),
		cmocka_unit_test_setup_teardown(test_struct_equal, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
