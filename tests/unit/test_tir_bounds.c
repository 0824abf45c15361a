/*
 * test_tir_bounds.c — compiler/tir_bounds.c, the prover of buffer indices,
 * as the lowering drives it: each small prim_func is parsed and lowered
 * by runtime/codegen/codegen_tir.c (which registers loops, blocks, lets
 * and conditions with the prover as it binds them, and checks at run time
 * each index the prover cannot place inside its dimension); the kernel's
 * sites (the checked indices) are compared, index by index, with the
 * case's lists of proven and checked indices.
 *
 * An index is named by its buffer and its source text, a comma for each
 * axis before it: "B[i - 4]", "A[, vk]". Every index of a load or a store
 * in the prim_func must be in exactly one of the two lists (a name twice
 * when the text repeats). Each case holds indices on both sides of the
 * line the prover draws (i - 4 proven where i >= 4 is known, i - 5 checked
 * there), so a prover that learns too little or too much fails it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codegen.h"
#include "parse.h"

/* ------------------------------------------------------------ the fixture */

static int
setup(void **state)
{
	RtError err;
	Jit *jit = jit_new(&err);
	if (!jit)
		fail_msg("jit_new: %s", err.msg);
	*state = jit;
	return 0;
}

static int
teardown(void **state)
{
	jit_free(*state);
	return 0;
}

/* --------------------------------------------------------- the indices */

enum { MAXIDX = 64 };

/* The indices of a prim_func's loads and stores, named, and whether the
 * kernel checks each. */
typedef struct {
	const char *src;
	const CgKernel *k;
	char *name[MAXIDX];
	bool checked[MAXIDX];
	int n;
} Idx;

/* The source text under span sp. */
static void
span_text(const char *src, Span sp, char *out, size_t cap)
{
	const char *p = src;
	for (int line = 1; line < sp.line && *p; p++)
		line += *p == '\n';
	p += sp.col - 1;
	size_t n = (size_t)(sp.len > 0 ? sp.len : 1);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

/* Records index x of axis `axis` of b, accessed at sp (the span the
 * lowering names a site by: the index's own, else the access's). */
static void
add_index(Idx *ix, const TBuf *b, int axis, const TExpr *x, Span sp)
{
	Span at = x->span.line ? x->span : sp;
	char text[128], name[192];
	span_text(ix->src, at, text, sizeof text);
	int n = snprintf(name, sizeof name, "%s[", b->name);
	for (int i = 0; i < axis; i++)
		n += snprintf(name + n, sizeof name - (size_t)n, ", ");
	snprintf(name + n, sizeof name - (size_t)n, "%s]", text);
	if (ix->n == MAXIDX)
		fail_msg("more than %d indices", MAXIDX);
	bool checked = false;
	for (int i = 0; i < ix->k->nsites; i++) {
		const CgSite *s = &ix->k->sites[i];
		checked |= s->buf == b && s->axis == axis && s->span.line == at.line &&
			   s->span.col == at.col;
	}
	ix->name[ix->n] = strdup(name);
	ix->checked[ix->n++] = checked;
}

static void
load_indices(TExpr *e, void *ctx)
{
	if (e->kind == TE_LOAD)
		for (int i = 0; i < e->n; i++)
			add_index(ctx, e->buf, i, e->args[i], e->span);
}

/* The indices of statement s: its store's, its loads' (in what the
 * lowering evaluates; the regions of T.reads / T.writes are not). */
static void
stmt_indices(TStmt *s, void *ctx)
{
	TWalk w = {.expr = load_indices, .ctx = ctx};
	TExpr *es[] = {s->min, s->extent, s->pred, s->value, s->cond};
	for (size_t i = 0; i < sizeof es / sizeof *es; i++)
		if (es[i])
			tir_walk_expr(es[i], &w);
	for (int i = 0; i < s->nidx; i++)
		tir_walk_expr(s->idx[i], &w);
	for (int i = 0; i < s->niters; i++)
		if (s->iters[i].value)
			tir_walk_expr(s->iters[i].value, &w);
	if (s->kind == TS_STORE)
		for (int i = 0; i < s->nidx; i++)
			add_index(ctx, s->buf, i, s->idx[i], s->span);
}

/* Takes name out of the list (false: not in it). */
static bool
take(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name)) {
			free(names[i]);
			names[i] = NULL;
			return true;
		}
	return false;
}

/*
 * Lowers the prim_func in src (the module's only one) and asserts that
 * the indices named in `proven` (NULL-terminated) are proven and those in
 * `checked` checked, and that there are no others.
 */
static void
expect(Jit *jit, const char *src, const char *const *proven, const char *const *checked)
{
	Diags d = {0};
	Module *m = parse_module("t.py", src, strlen(src), &d);
	if (!m || d.nerrors)
		diag_print(&d, stderr);
	assert_non_null(m);
	assert_int_equal(m->nprims, 1);
	Codegen *cg = cg_new(jit);
	CgKernel *k = cg_tir_kernel(cg, m, m->prims[0], &d);
	if (!k)
		diag_print(&d, stderr);
	assert_non_null(k);
	Idx ix = {.src = src, .k = k};
	TWalk w = {.stmt = stmt_indices, .ctx = &ix};
	tir_walk_stmt(m->prims[0]->body, &w);
	char *got[2][MAXIDX] = {{0}};
	int ngot[2] = {0, 0};
	for (int i = 0; i < ix.n; i++)
		got[ix.checked[i]][ngot[ix.checked[i]]++] = ix.name[i];
	int bad = 0;
	for (int c = 0; c < 2; c++) {
		const char *const *want = c ? checked : proven;
		for (int i = 0; want[i]; i++)
			if (!take(got[c], ngot[c], want[i])) {
				fprintf(stderr, "%s: not %s: %s\n", m->prims[0]->name,
					c ? "checked" : "proven", want[i]);
				bad++;
			}
		for (int i = 0; i < ngot[c]; i++)
			if (got[c][i]) {
				fprintf(stderr, "%s: %s, not expected so: %s\n", m->prims[0]->name,
					c ? "checked" : "proven", got[c][i]);
				free(got[c][i]);
				bad++;
			}
	}
	cg_free(cg);
	ir_module_free(m);
	diag_clear(&d);
	free(d.items);
	assert_int_equal(bad, 0);
}

#define HEAD "@I.ir_module\nclass Module:\n    @T.prim_func\n"
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

/* ------------------------------------------------------------ the cases */

/* Loop ranges: an index proven when its range lies in [0, dim). */
static void
test_loops(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
		"        for i in range(8):\n"
		"            B[i] = A[i + 1]\n"
		"        for i in range(7):\n"
		"            B[i + 1] = A[i]\n"
		"        for i in range(1, 8):\n"
		"            B[i - 1] = A[i - 2]\n"
		"        for i in range(8):\n"
		"            B[7 - i] = A[8 - i]\n"
		"        for i in range(8):\n"
		"            B[i * -1 + 7] = A[0 - i]\n"
		"            B[-i + 7] = A[i * -1 + 8] + A[-i + 8]\n",
		LIST("B[i]", "B[i + 1]", "A[i]", "B[i - 1]", "B[7 - i]", "B[i * -1 + 7]",
		     "B[-i + 7]"),
		LIST("A[i + 1]", "A[i - 2]", "A[8 - i]", "A[0 - i]", "A[i * -1 + 8]", "A[-i + 8]"));
}

/* Symbolic dims: polynomials over a buffer's shape variables; a loop
 * over n says n >= 1 inside it, not after. */
static void
test_symbolic(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, b: T.handle):\n"
		"        n = T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        B = T.match_buffer(b, (n + T.int64(1),), \"float32\")\n"
		"        for i in range(n):\n"
		"            B[i + T.int64(1)] = A[n - T.int64(1) - i]\n"
		"            A[i] = B[i + T.int64(2)]\n"
		"            B[n] = A[T.int64(0)]\n"
		"        B[T.int64(0)] = A[n * T.int64(0)]\n",
		LIST("B[i + T.int64(1)]", "A[n - T.int64(1) - i]", "A[i]", "B[n]",
		     "A[T.int64(0)]", "B[T.int64(0)]"),
		LIST("B[i + T.int64(2)]", "A[n * T.int64(0)]"));
}

/* A scalar parameter has any sign until a condition says otherwise. */
static void
test_scalar(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, m: T.int64):\n"
		"        n = T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        for i in range(n - m):\n"
		"            A[i + m] = T.float32(0)\n"
		"            if m >= T.int64(0):\n"
		"                A[m + i] = T.float32(1)\n"
		"            if m < T.int64(0):\n"
		"                A[i] = T.float32(2)\n"
		"            else:\n"
		"                A[i + m * T.int64(1)] = A[i * T.int64(1)]\n",
		LIST("A[m + i]", "A[i + m * T.int64(1)]", "A[i * T.int64(1)]"),
		LIST("A[i + m]", "A[i]"));
	/* a loop over m says m >= 1 inside it */
	expect(*state, HEAD
		"    def g(a: T.handle, m: T.int64):\n"
		"        A = T.match_buffer(a, (m,), \"float32\")\n"
		"        for i in range(m):\n"
		"            A[m - T.int64(1)] = T.float32(0)\n"
		"        A[m - T.int64(1) + T.int64(0)] = T.float32(0)\n",
		LIST("A[m - T.int64(1)]"), LIST("A[m - T.int64(1) + T.int64(0)]"));
	/* a product is at least 0 when its symbols are, not when one may be
	 * negative (n * m + 1 is -4 at n = 5, m = -1) */
	expect(*state, HEAD
		"    def h(a: T.handle, b: T.handle, m: T.int64):\n"
		"        n = T.int64()\n"
		"        B = T.match_buffer(b, (n,), \"float32\")\n"
		"        A = T.match_buffer(a, (n * m + T.int64(2),), \"float32\")\n"
		"        if m >= T.int64(0):\n"
		"            A[n * m + T.int64(1)] = T.float32(0)\n"
		"        if m >= T.int64(-1):\n"
		"            A[m * n + T.int64(1)] = T.float32(0)\n",
		LIST("A[n * m + T.int64(1)]"), LIST("A[m * n + T.int64(1)]"));
}

/* Block bindings, spatial and reduce; the init; a binding the axis's
 * domain does not hold (the domain is not trusted). */
static void
test_blocks(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
		"        for i, k in T.grid(4, 8):\n"
		"            with T.block(\"s\"):\n"
		"                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
		"                with T.init():\n"
		"                    B[vi] = T.float32(0)\n"
		"                B[vi] = B[vi] + A[vi, vk]\n"
		"        for i in range(4):\n"
		"            with T.block(\"t\"):\n"
		"                vt = T.axis.spatial(4, i + 1)\n"
		"                B[vt] = A[vt - 1, vt + 3]\n",
		LIST("B[vi]", "B[vi]", "B[vi]", "A[vi]", "A[, vk]", "A[vt - 1]", "A[, vt + 3]"),
		LIST("B[vt]"));
}

/* Lets: a variable is its value's range. */
static void
test_lets(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
		"        for i in range(8):\n"
		"            j: T.int32 = i // 2\n"
		"            k: T.int32 = j + 4\n"
		"            B[j] = A[k] + A[k + 1]\n",
		LIST("B[j]", "A[k]"), LIST("A[k + 1]"));
}

/* T.where over a split loop narrows the binding; without it, not. */
static void
test_where(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
		"        for io, ii in T.grid(3, 4):\n"
		"            with T.block(\"w\"):\n"
		"                v = T.axis.spatial(10, io * 4 + ii)\n"
		"                T.where(io * 4 + ii < 10)\n"
		"                B[v] = A[v]\n"
		"        for io, ii in T.grid(3, 4):\n"
		"            with T.block(\"u\"):\n"
		"                u = T.axis.spatial(10, io * 4 + ii)\n"
		"                B[u] = A[u]\n",
		LIST("B[v]", "A[v]"), LIST("B[u]", "A[u]"));
}

/* if: the then branch knows the condition, the else branch its
 * negation (i >= 4 after i < 4 fails: i - 4 inside, i - 5 not), nothing
 * after the if. */
static void
test_if_else(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
		"        for i in range(8):\n"
		"            if i < 4:\n"
		"                B[i] = A[i + 4]\n"
		"            else:\n"
		"                B[i - 4] = A[i - 5]\n"
		"            if i <= 3:\n"
		"                B[i + 0] = A[i + 3]\n"
		"            else:\n"
		"                B[i - 5] = A[i + 1]\n"
		"            if i >= 4:\n"
		"                B[i - 3] = A[i - 1]\n"
		"            else:\n"
		"                B[i + 1] = A[i - 0]\n"
		"            if i > 3:\n"
		"                B[i - 1] = T.float32(0)\n"
		"            else:\n"
		"                B[i * 1] = A[i * 1]\n"
		"                B[1 + i] = T.float32(0)\n"
		"            B[1 * i] = T.float32(1)\n",
		LIST("B[i]", "A[i + 4]", "B[i - 4]", "B[i + 0]", "A[i + 3]",
		     "A[i - 1]", "A[i - 0]", "B[i * 1]", "A[i * 1]"),
		LIST("A[i - 5]", "B[i - 5]", "A[i + 1]", "B[i - 3]", "B[i + 1]", "B[i - 1]",
		     "B[1 + i]", "B[1 * i]"));
}

/* if_then_else: the true side knows the condition, the false side its
 * negation (a concatenation, as TVM's topi writes it: three inputs); the
 * sides swapped are checked, and what one side learns does not reach the
 * other. */
static void
test_if_then_else(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((8,), \"float32\"), "
		"D: T.Buffer((2,), \"float32\"), C: T.Buffer((14,), \"float32\")):\n"
		"        for i in range(14):\n"
		"            C[i] = T.if_then_else(12 <= i, D[i - 12], T.if_then_else(4 <= i, B[i - 4], A[i]))\n"
		"        for j in range(12):\n"
		"            C[j] = T.if_then_else(j < 4, B[j - 4], A[j])\n"
		"        for k in range(8):\n"
		"            C[k] = T.if_then_else(k < 4, A[k], A[k + 0])\n",
		LIST("C[i]", "D[i - 12]", "B[i - 4]", "A[i]", "C[j]", "C[k]", "A[k]"),
		LIST("B[j - 4]", "A[j]", "A[k + 0]"));
}

/* A concatenation over symbolic dims, both ways round. */
static void
test_concat_symbolic(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, b: T.handle, c: T.handle):\n"
		"        n, m = T.int64(), T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        B = T.match_buffer(b, (m,), \"float32\")\n"
		"        C = T.match_buffer(c, (n + m,), \"float32\")\n"
		"        for i in range(n + m):\n"
		"            C[i] = T.if_then_else(i < n, A[i], B[i - n])\n"
		"        for j in range(n + m):\n"
		"            C[j] = T.if_then_else(n <= j, B[j - n], A[j]) + "
		"T.if_then_else(j < n, B[j - n + T.int64(1)], A[j - m])\n"
		"        C[n * T.int64(0)] = T.float32(0)\n",
		LIST("C[i]", "A[i]", "B[i - n]", "C[j]", "B[j - n]", "A[j]"),
		LIST("B[j - n + T.int64(1)]", "A[j - m]", "C[n * T.int64(0)]"));
}

/* A condition on v - p, v + p or p - v (p a constant or a symbol) says
 * what it does of v: a concatenation as TVM's topi builds it, before any
 * simplification (ind >= 0 with ind the index less each input's size),
 * over constant and symbolic sizes. */
static void
test_solving(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((8,), \"float32\"), "
		"D: T.Buffer((2,), \"float32\"), C: T.Buffer((14,), \"float32\")):\n"
		"        for i in range(14):\n"
		"            C[i] = T.if_then_else(i - 4 - 8 >= 0, D[i - 4 - 8], "
		"T.if_then_else(i - 4 >= 0, B[i - 4], A[i]))\n"
		"        for j in range(12):\n"
		"            if 7 - j >= 4:\n"
		"                A[j] = A[3 - j]\n"
		"            else:\n"
		"                B[j - 4] = B[11 - j] + A[10 - j]\n"
		"            if 1 + j == 4:\n"
		"                A[j + 0] = D[j - 2] + D[j - 1]\n",
		LIST("C[i]", "D[i - 4 - 8]", "B[i - 4]", "A[i]", "A[j]", "A[3 - j]", "B[j - 4]",
		     "B[11 - j]", "A[j + 0]", "D[j - 2]"),
		LIST("A[10 - j]", "D[j - 1]"));
	expect(*state, HEAD
		"    def g(a: T.handle, b: T.handle, c: T.handle):\n"
		"        n, m = T.int64(), T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        B = T.match_buffer(b, (m,), \"float32\")\n"
		"        C = T.match_buffer(c, (n + m,), \"float32\")\n"
		"        for i in range(n + m):\n"
		"            C[i] = T.if_then_else(i - n >= T.int64(0), B[i - n], A[i])\n"
		"            C[i + T.int64(0)] = T.if_then_else(i - n - T.int64(1) >= T.int64(0), "
		"B[i - n], A[i - T.int64(1)])\n",
		LIST("C[i]", "B[i - n]", "A[i]", "C[i + T.int64(0)]", "B[i - n]"),
		LIST("A[i - T.int64(1)]"));
}

/* not, T.Not, !=, == (its negation on the false side). */
static void
test_negations(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
		"        for i in range(8):\n"
		"            if not (i < 4):\n"
		"                B[i - 4] = A[i - 4]\n"
		"            if T.Not(i >= 4):\n"
		"                B[i] = A[i + 4]\n"
		"            if not not (i < 4):\n"
		"                B[i + 0] = A[i + 5]\n"
		"            if i != 0:\n"
		"                A[i - 1] = B[0]\n"
		"            if i != 7:\n"
		"                A[i + 1] = B[1]\n"
		"            if i != 3:\n"
		"                A[i - 2] = B[2]\n"
		"                B[i + 1] = B[i - 1]\n"
		"            if T.likely(i != 0):\n"
		"                A[i - 1 + 0] = T.float32(0)\n"
		"            A[i] = T.if_then_else(i == 0, B[3], A[i + 0 - 1])\n"
		"            A[i + 0] = T.if_then_else(i == 7, B[i - 4], A[i * 1 + 1])\n",
		LIST("B[i - 4]", "A[i - 4]", "B[i]", "A[i + 4]", "B[i + 0]", "A[i - 1]",
		     "B[0]", "A[i + 1]", "B[1]", "B[2]", "A[i]", "B[3]", "A[i + 0 - 1]",
		     "A[i + 0]", "B[i - 4]", "A[i * 1 + 1]", "A[i - 1 + 0]"),
		LIST("A[i + 5]", "A[i - 2]", "B[i + 1]", "B[i - 1]"));
}

/* and, or: a conjunction that holds and a disjunction that fails give
 * both sides; the other two only with one side known. */
static void
test_and_or(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
		"        for i, j in T.grid(8, 8):\n"
		"            if i >= 2 and i < 6:\n"
		"                B[i - 2] = T.float32(0)\n"
		"            if i < 4 and j < 4:\n"
		"                B[i] = A[j]\n"
		"            else:\n"
		"                B[i - 4] = A[j - 4]\n"
		"            if i < 2 or i >= 6:\n"
		"                B[i + 0] = T.float32(1)\n"
		"            else:\n"
		"                B[i - 2] = T.float32(2)\n"
		"            if i < 8 and j < 4:\n"
		"                B[j] = T.float32(3)\n"
		"            else:\n"
		"                B[j - 4] = T.float32(4)\n"
		"            if i >= 8 or j >= 4:\n"
		"                B[j - 4] = T.float32(5)\n"
		"            if i >= 4 or j >= 4:\n"
		"                B[j - 4 + 0] = T.float32(6)\n"
		"            if T.And(i < 4, T.Or(j < 2, j >= 6)):\n"
		"                B[i] = T.float32(7)\n"
		"            if i >= 0 and j < 4:\n"
		"                B[j] = T.float32(8)\n"
		"            else:\n"
		"                B[j - 4 + 1 - 1] = T.float32(8)\n"
		"            if i <= 7 and j < 4:\n"
		"                B[j] = T.float32(9)\n"
		"            else:\n"
		"                B[j - 3 - 1] = T.float32(9)\n"
		"            if i != 8 and j < 4:\n"
		"                B[j] = T.float32(10)\n"
		"            else:\n"
		"                B[j - 2 - 2] = T.float32(10)\n"
		"            if i > 7 or i == 9 or j >= 4:\n"
		"                B[j - 1 - 3] = T.float32(11)\n"
		"            if i < 7 and j < 4:\n"
		"                B[j] = T.float32(12)\n"
		"            else:\n"
		"                B[j + 0 - 4] = T.float32(12)\n"
		"            if i > 6 or j >= 4:\n"
		"                B[j * 1 - 4] = T.float32(13)\n"
		"            if i == 7 or j >= 4:\n"
		"                B[1 * j - 4] = T.float32(14)\n"
		"            if i >= 1 and j < 4:\n"
		"                B[j] = T.float32(15)\n"
		"            else:\n"
		"                B[j - 4 * 1] = T.float32(15)\n"
		"            if i <= 6 and j < 4:\n"
		"                B[j] = T.float32(16)\n"
		"            else:\n"
		"                B[j - 1 * 4] = T.float32(16)\n",
		LIST("B[i - 2]", "B[i]", "A[j]", "B[i - 2]", "B[j]", "B[j - 4]", "B[j - 4]",
		     "B[i]", "B[j]", "B[j - 4 + 1 - 1]", "B[j]", "B[j - 3 - 1]", "B[j]",
		     "B[j - 2 - 2]", "B[j - 1 - 3]", "B[j]", "B[j]", "B[j]"),
		LIST("B[i - 4]", "A[j - 4]", "B[i + 0]", "B[j - 4 + 0]", "B[j + 0 - 4]",
		     "B[j * 1 - 4]", "B[1 * j - 4]", "B[j - 4 * 1]", "B[j - 1 * 4]"));
}

/* T.Select evaluates both sides: no index inside it learns from the
 * condition, but the value it takes does. */
static void
test_select(void **state)
{
	expect(*state, HEAD
		"    def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((8,), \"float32\"), "
		"C: T.Buffer((12,), \"float32\")):\n"
		"        for i in range(12):\n"
		"            C[i] = T.Select(i < 4, A[i], B[i - 4])\n"
		"            C[i + 0] = B[T.Select(i < 4, i + 4, i - 4)]\n"
		"            C[i * 1] = B[T.Select(i < 4, i - 4, i + 4)]\n"
		"            C[1 * i] = B[T.Select(i < 4, i + 4, i)]\n",
		LIST("C[i]", "C[i + 0]", "B[T.Select(i < 4, i + 4, i - 4)]", "C[i * 1]", "C[1 * i]"),
		LIST("A[i]", "B[i - 4]", "B[T.Select(i < 4, i - 4, i + 4)]",
		     "B[T.Select(i < 4, i + 4, i)]"));
}

/* floordiv / floormod / truncdiv / truncmod: negative dividends, a
 * negative divisor, a divisor that is a dim (>= 0: division by zero gives
 * 0 in the lowering) or a scalar of any sign. */
static void
test_division(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, B: T.Buffer((4,), \"float32\"), d: T.int64):\n"
		"        m = T.int64()\n"
		"        A = T.match_buffer(a, (m,), \"float32\")\n"
		"        for i in range(16):\n"
		"            B[i // 4] = B[i % 4]\n"
		"            B[T.floordiv(i - 8, 4) + 2] = B[T.floormod(i - 8, 4)]\n"
		"            B[T.truncdiv(i - 8, 4) + 2] = B[T.truncmod(i - 8, 4)]\n"
		"            B[T.floordiv(i, -4) + 4] = B[T.floormod(i, -4)]\n"
		"            B[i // 5] = B[T.floordiv(i, 4) + 1]\n"
		"            B[T.floordiv(i - 9, 4) + 2] = B[T.truncdiv(i - 9, 4) + 2]\n"
		"        for i in range(T.int64(4)):\n"
		"            B[i // m] = B[T.floormod(i, m)]\n"
		"            B[i // d] = B[T.floormod(i, d)]\n"
		"            B[T.truncdiv(i, d)] = B[T.truncmod(i, m)]\n",
		LIST("B[i // 4]", "B[i % 4]", "B[T.floordiv(i - 8, 4) + 2]",
		     "B[T.floormod(i - 8, 4)]", "B[T.truncdiv(i - 8, 4) + 2]", "B[i // 5]",
		     "B[T.truncdiv(i - 9, 4) + 2]",
		     "B[i // m]", "B[T.floormod(i, m)]", "B[T.truncmod(i, m)]"),
		LIST("B[T.truncmod(i - 8, 4)]", "B[T.floordiv(i, -4) + 4]",
		     "B[T.floormod(i, -4)]", "B[T.floordiv(i, 4) + 1]",
		     "B[T.floordiv(i - 9, 4) + 2]", "B[i // d]",
		     "B[T.floormod(i, d)]", "B[T.truncdiv(i, d)]"));
}

/* A split of a flat index by a constant is proven over a symbolic
 * extent; by a symbolic one, not (what is left to prove). */
static void
test_flat_index(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, b: T.handle):\n"
		"        n, m = T.int64(), T.int64()\n"
		"        A = T.match_buffer(a, (n, T.int64(64)), \"float32\")\n"
		"        B = T.match_buffer(b, (n, m), \"float32\")\n"
		"        for i in range(n * T.int64(64)):\n"
		"            A[i // T.int64(64), i % T.int64(64)] = T.float32(0)\n"
		"        for j in range(n * m):\n"
		"            B[j // m, j % m] = T.float32(0)\n",
		LIST("A[i // T.int64(64)]", "A[, i % T.int64(64)]"),
		LIST("B[j // m]", "B[, j % m]"));
}

/* min, max; over symbolic bounds, min(i, n - 1) stays checked (n may be
 * 0). */
static void
test_min_max(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, B: T.Buffer((4,), \"float32\")):\n"
		"        n = T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        for i in range(8):\n"
		"            B[T.min(i, 3)] = B[T.max(i - 4, 0)]\n"
		"            B[T.min(i, 4)] = B[T.max(i, 0)]\n"
		"            B[T.max(T.min(i, 3), 0)] = B[T.min(T.max(i - 5, 0), 3)]\n"
		"        for j in range(n + T.int64(1)):\n"
		"            A[T.min(j, n - T.int64(1))] = T.float32(0)\n"
		"        for k in range(n):\n"
		"            A[T.min(k + T.int64(1), n - T.int64(1))] = T.float32(0)\n"
		"            A[T.min(k + T.int64(1), n - T.int64(1)) - T.int64(1)] = T.float32(0)\n",
		LIST("B[T.min(i, 3)]", "B[T.max(i - 4, 0)]", "B[T.max(T.min(i, 3), 0)]",
		     "B[T.min(T.max(i - 5, 0), 3)]", "A[T.min(k + T.int64(1), n - T.int64(1))]"),
		LIST("B[T.min(i, 4)]", "B[T.max(i, 0)]", "A[T.min(j, n - T.int64(1))]",
		     "A[T.min(k + T.int64(1), n - T.int64(1)) - T.int64(1)]"));
}

/* Casts and widths: a narrow value keeps a range only when it is
 * constant and fits its type (it did not wrap); an 8-bit load is in its
 * type's range ([0, 255] unsigned, [-128, 127] signed); an int32 product
 * that overflows is checked, the same in int64 proven; a condition on an
 * int32 sum that wraps says nothing about the sum's range before it
 * wrapped, nor about its terms. */
static void
test_casts(void **state)
{
	expect(*state, HEAD
		"    def f(a: T.handle, B: T.Buffer((256,), \"float32\"), "
		"U: T.Buffer((8,), \"uint8\"), C: T.Buffer((255,), \"float32\"), "
		"S: T.Buffer((8,), \"int8\")):\n"
		"        n = T.int64()\n"
		"        A = T.match_buffer(a, (n,), \"float32\")\n"
		"        for i in range(8):\n"
		"            B[T.Cast(\"int64\", i)] = C[T.Cast(\"int32\", T.Cast(\"int8\", i + 120))]\n"
		"            B[T.Cast(\"int32\", T.Cast(\"int8\", i + 121))] = B[T.Cast(\"int32\", U[i])]\n"
		"            C[T.Cast(\"int32\", U[i])] = B[T.Cast(\"int32\", S[i])]\n"
		"            B[i * 1073741824 // 1073741824] = T.float32(0)\n"
		"        for j in range(T.int64(8)):\n"
		"            B[j * T.int64(1073741824) // T.int64(1073741824)] = T.float32(0)\n"
		"        for k in range(n):\n"
		"            A[T.Cast(\"int32\", k)] = A[k]\n"
		"        for w in range(8):\n"
		"            if w + 2147483644 < 0:\n"
		"                C[w + 2147483644] = T.Cast(\"float32\", U[w + 4])\n",
		LIST("B[T.Cast(\"int64\", i)]", "C[T.Cast(\"int32\", T.Cast(\"int8\", i + 120))]",
		     "U[i]", "B[T.Cast(\"int32\", U[i])]", "U[i]", "S[i]",
		     "B[j * T.int64(1073741824) // T.int64(1073741824)]", "A[k]"),
		LIST("B[T.Cast(\"int32\", T.Cast(\"int8\", i + 121))]",
		     "C[T.Cast(\"int32\", U[i])]", "B[T.Cast(\"int32\", S[i])]",
		     "B[i * 1073741824 // 1073741824]",
		     "A[T.Cast(\"int32\", k)]", "C[w + 2147483644]", "U[w + 4]"));
}

/* Data-dependent indices stay checked: a gather; a guard on the value
 * read (a store may change it before the use: only a let of the value
 * keeps what the guard says). */
static void
test_data_dependent(void **state)
{
	expect(*state, HEAD
		"    def f(I: T.Buffer((4,), \"int32\"), B: T.Buffer((8,), \"float32\")):\n"
		"        for i in range(4):\n"
		"            B[I[i]] = T.float32(0)\n"
		"            if I[i] >= 0 and I[i] < 8:\n"
		"                I[i] = 100\n"
		"                B[I[i + 0]] = T.float32(1)\n"
		"            x: T.int32 = I[i * 1]\n"
		"            if x >= 0 and x < 8:\n"
		"                I[i - 0] = 100\n"
		"                B[x] = T.float32(2)\n"
		"            B[x + 0] = T.if_then_else(I[0] < 8 and I[0] >= 0, B[I[0]], T.float32(3))\n",
		LIST("I[i]", "I[i]", "I[i]", "I[i]", "I[i + 0]", "I[i * 1]", "I[i - 0]", "B[x]",
		     "I[0]", "I[0]", "I[0]"),
		LIST("B[I[i]]", "B[I[i + 0]]", "B[x + 0]", "B[I[0]]"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_symbolic),
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_lets),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_if_else),
		cmocka_unit_test(test_if_then_else),
		cmocka_unit_test(test_concat_symbolic),
		cmocka_unit_test(test_solving),
		cmocka_unit_test(test_negations),
		cmocka_unit_test(test_and_or),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_division),
		cmocka_unit_test(test_flat_index),
		cmocka_unit_test(test_min_max),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_data_dependent),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
