/*
 * prim.c — symbolic integer expressions (TVM's PrimExpr over int64 tir.Vars).
 *
 * pe_simplify brings an expression into a canonical form so that equal
 * expressions compare equal as trees. Internally an expression is turned
 * into a polynomial: a sum of monomials, each an int64 coefficient times a
 * sorted product of atoms. Atoms are variables and the terms we cannot
 * expand: // and % whose divisor is not a constant or does not divide,
 * T.min and T.max, and (only when folding a constant would overflow) an
 * unfolded + - * node. The operands of an atom are canonical themselves.
 *
 * The canonical tree of a polynomial is a left-leaning chain
 *     ((m1 + m2) - m3) + c
 * where each monomial is the product of its atoms, left to right, times
 * its coefficient last (`n * m * 4`); a negative coefficient after the
 * first term becomes a subtraction, the first term keeps it (`n * -1`).
 * Monomials are ordered by their atoms (variables by id, then compound
 * atoms by structure), the constant comes last.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ------------------------------------------------------------ construction */

/* Constructors: fresh nodes in the arena, spans left empty. */
PExpr *
pe_int(Arena *a, int64_t v)
{
	PExpr *e = ARENA_NEW(a, PExpr);
	e->kind = PE_INT;
	e->value = v;
	return e;
}

PExpr *
pe_var(Arena *a, SymVar *v)
{
	PExpr *e = ARENA_NEW(a, PExpr);
	e->kind = PE_VAR;
	e->var = v;
	return e;
}

PExpr *
pe_bin(Arena *a, PExprKind k, PExpr *x, PExpr *y)
{
	PExpr *e = ARENA_NEW(a, PExpr);
	e->kind = k;
	e->a = x;
	e->b = y;
	return e;
}

/* ------------------------------------------------------------- comparison */

/* A total structural order: kind, then value or variable id, then operands. */
static int
pe_cmp(const PExpr *x, const PExpr *y)
{
	if (x == y)
		return 0;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	switch (x->kind) {
	case PE_INT:
		return x->value < y->value ? -1 : x->value > y->value;
	case PE_VAR:
		if (x->var == y->var)
			return 0;
		if (x->var->id != y->var->id)
			return x->var->id < y->var->id ? -1 : 1;
		/* Same id, different vars (two modules): order by name. */
		return strcmp(x->var->name, y->var->name);
	default: {
		int c = pe_cmp(x->a, y->a);
		return c ? c : pe_cmp(x->b, y->b);
	}
	}
}

/* The same tree: kinds, values and variables (by identity). */
bool
pe_struct_equal(const PExpr *x, const PExpr *y)
{
	if (x == y)
		return true;
	if (!x || !y || x->kind != y->kind)
		return false;
	switch (x->kind) {
	case PE_INT:
		return x->value == y->value;
	case PE_VAR:
		return x->var == y->var;
	default:
		return pe_struct_equal(x->a, y->a) &&
		       pe_struct_equal(x->b, y->b);
	}
}

/* ------------------------------------------------------ integer arithmetic */

/* Python's a // b; false when b is 0 or the result overflows. */
static bool
floordiv64(int64_t a, int64_t b, int64_t *out)
{
	if (b == 0 || (b == -1 && a == INT64_MIN))
		return false;
	int64_t q = a / b;
	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	*out = q;
	return true;
}

/* Python's a % b (the sign of b); false when b is 0. */
static bool
floormod64(int64_t a, int64_t b, int64_t *out)
{
	if (b == 0)
		return false;
	if (b == -1) {
		*out = 0;
		return true;
	}
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	*out = r;
	return true;
}

/* ------------------------------------------------------------- polynomials */

typedef struct {
	int64_t coef;
	PExpr **atoms; /* sorted by pe_cmp; repeated for powers */
	int n;
} Mono;

typedef struct {
	Mono *t; /* sorted by mono_cmp, atom lists unique, coefs nonzero */
	int n;
} Poly;

/* Monomials by their atoms, lexicographically; the constant last. */
static int
mono_cmp(const Mono *x, const Mono *y)
{
	if (!x->n || !y->n)
		return (x->n == 0) - (y->n == 0);
	for (int i = 0; i < x->n && i < y->n; i++) {
		int c = pe_cmp(x->atoms[i], y->atoms[i]);
		if (c)
			return c;
	}
	return (x->n > y->n) - (x->n < y->n);
}

/* qsort adapters. */
static int
mono_qsort_cmp(const void *x, const void *y)
{
	return mono_cmp(x, y);
}

static int
atom_qsort_cmp(const void *x, const void *y)
{
	return pe_cmp(*(PExpr *const *)x, *(PExpr *const *)y);
}

/*
 * Sorts t[0..n) and merges monomials with equal atoms, dropping zeros, into
 * *out. False when a merged coefficient overflows.
 */
static bool
poly_normalize(Mono *t, int n, Poly *out)
{
	qsort(t, (size_t)n, sizeof *t, mono_qsort_cmp);
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (k > 0 && mono_cmp(&t[k - 1], &t[i]) == 0) {
			if (__builtin_add_overflow(t[k - 1].coef, t[i].coef,
						   &t[k - 1].coef))
				return false;
		} else {
			t[k++] = t[i];
		}
	}
	int j = 0;
	for (int i = 0; i < k; i++)
		if (t[i].coef != 0)
			t[j++] = t[i];
	out->t = t;
	out->n = j;
	return true;
}

/* The constant v (the empty sum for 0). */
static Poly
poly_const(Arena *a, int64_t v)
{
	Poly p = {0};
	if (v != 0) {
		p.t = ARENA_NEW(a, Mono);
		p.t[0].coef = v;
		p.n = 1;
	}
	return p;
}

/* 1 * atom. */
static Poly
poly_atom(Arena *a, PExpr *atom)
{
	Poly p = {ARENA_NEW(a, Mono), 1};
	p.t[0].coef = 1;
	p.t[0].atoms = ARENA_NEW(a, PExpr *);
	p.t[0].atoms[0] = atom;
	p.t[0].n = 1;
	return p;
}

/* True when p is a constant (the empty sum is 0); its value in *v. */
static bool
poly_is_const(const Poly *p, int64_t *v)
{
	if (p->n == 0) {
		*v = 0;
		return true;
	}
	if (p->n == 1 && p->t[0].n == 0) {
		*v = p->t[0].coef;
		return true;
	}
	return false;
}

/*
 * The most monomials a polynomial may have. Expanding a product of sums
 * multiplies their sizes ((a + b + ... + h) ** 16 has 245,157 monomials,
 * and its canonical tree that depth), so a larger result is treated as an
 * overflow: the node stays unfolded.
 */
#define POLY_MAX_TERMS 256

/* x + s*y for s = 1 or -1. False on overflow or too many terms. */
static bool
poly_add(Arena *a, const Poly *x, const Poly *y, int s, Poly *out)
{
	int n = x->n + y->n;
	if (n > POLY_MAX_TERMS)
		return false;
	Mono *t = ARENA_ARRAY(a, Mono, n ? n : 1);
	if (x->n)
		memcpy(t, x->t, sizeof *t * (size_t)x->n);
	for (int i = 0; i < y->n; i++) {
		t[x->n + i] = y->t[i];
		if (s < 0 && __builtin_mul_overflow(y->t[i].coef, (int64_t)-1,
						    &t[x->n + i].coef))
			return false;
	}
	return poly_normalize(t, n, out);
}

/* x * y, distributed. False on overflow or too many terms. */
static bool
poly_mul(Arena *a, const Poly *x, const Poly *y, Poly *out)
{
	if ((int64_t)x->n * y->n > POLY_MAX_TERMS)
		return false;
	int n = x->n * y->n;
	Mono *t = ARENA_ARRAY(a, Mono, n ? n : 1);
	int k = 0;
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < y->n; j++, k++) {
			const Mono *p = &x->t[i], *q = &y->t[j];
			if (__builtin_mul_overflow(p->coef, q->coef, &t[k].coef))
				return false;
			t[k].n = p->n + q->n;
			t[k].atoms = ARENA_ARRAY(a, PExpr *, t[k].n ? t[k].n : 1);
			if (p->n)
				memcpy(t[k].atoms, p->atoms,
				       sizeof(PExpr *) * (size_t)p->n);
			if (q->n)
				memcpy(t[k].atoms + p->n, q->atoms,
				       sizeof(PExpr *) * (size_t)q->n);
			qsort(t[k].atoms, (size_t)t[k].n, sizeof(PExpr *),
			      atom_qsort_cmp);
		}
	return poly_normalize(t, n, out);
}

/* -------------------------------------------------------------- to a tree */

/* The product of m's atoms times coef (coef 1 is not written). */
static PExpr *
mono_tree(Arena *a, const Mono *m, int64_t coef)
{
	if (m->n == 0)
		return pe_int(a, coef);
	PExpr *t = m->atoms[0];
	for (int i = 1; i < m->n; i++)
		t = pe_bin(a, PE_MUL, t, m->atoms[i]);
	if (coef != 1)
		t = pe_bin(a, PE_MUL, t, pe_int(a, coef));
	return t;
}

/* The canonical tree of p (see the comment at the top of the file). */
static PExpr *
poly_tree(Arena *a, const Poly *p)
{
	if (p->n == 0)
		return pe_int(a, 0);
	PExpr *t = mono_tree(a, &p->t[0], p->t[0].coef);
	for (int i = 1; i < p->n; i++) {
		int64_t c = p->t[i].coef;
		if (c < 0 && c != INT64_MIN)
			t = pe_bin(a, PE_SUB, t, mono_tree(a, &p->t[i], -c));
		else
			t = pe_bin(a, PE_ADD, t, mono_tree(a, &p->t[i], c));
	}
	return t;
}

/* --------------------------------------------------------- simplification */

static Poly poly_of(Arena *a, PExpr *x);

/* x // y or x % y when y is a nonzero constant c. */
static Poly
poly_divmod_const(Arena *a, PExprKind k, const Poly *p, int64_t c)
{
	int64_t v, r;
	if (poly_is_const(p, &v)) {
		bool ok = k == PE_FLOORDIV ? floordiv64(v, c, &r)
					   : floormod64(v, c, &r);
		if (ok)
			return poly_const(a, r);
	}
	/*
	 * (c*q + rest) // c == q + rest // c and (c*q + rest) % c == rest % c
	 * for any integer q: split off the non-constant monomials whose
	 * coefficient c divides.
	 */
	Mono *qt = ARENA_ARRAY(a, Mono, p->n ? p->n : 1);
	Mono *rt = ARENA_ARRAY(a, Mono, p->n ? p->n : 1);
	int nq = 0, nr = 0;
	for (int i = 0; i < p->n; i++) {
		const Mono *m = &p->t[i];
		/* INT64_MIN / -1 overflows (and INT64_MIN % -1 traps). */
		if (m->n > 0 && !(c == -1 && m->coef == INT64_MIN) &&
		    m->coef % c == 0) {
			qt[nq] = *m;
			qt[nq++].coef = m->coef / c;
		} else {
			rt[nr++] = *m;
		}
	}
	Poly quot = {qt, nq}, rest = {rt, nr}, out;
	if (poly_is_const(&rest, &v)) {
		bool ok = k == PE_FLOORDIV ? floordiv64(v, c, &r)
					   : floormod64(v, c, &r);
		if (ok) {
			if (k == PE_FLOORMOD)
				return poly_const(a, r);
			Poly rc = poly_const(a, r);
			if (poly_add(a, &quot, &rc, 1, &out))
				return out;
		}
	}
	PExpr *atom = pe_bin(a, k, poly_tree(a, &rest), pe_int(a, c));
	Poly pa = poly_atom(a, atom);
	if (k == PE_FLOORMOD)
		return pa;
	if (poly_add(a, &quot, &pa, 1, &out))
		return out;
	/* Cannot overflow in practice (quot has no constant); stay sound. */
	return poly_atom(a, pe_bin(a, k, poly_tree(a, p), pe_int(a, c)));
}

/* T.min / T.max of canonical operands. */
static Poly
poly_minmax(Arena *a, PExprKind k, const Poly *p, const Poly *q)
{
	Poly d;
	int64_t v;
	/* Operands differing by a constant: the smaller or larger one. */
	if (poly_add(a, p, q, -1, &d) && poly_is_const(&d, &v)) {
		bool p_wins = k == PE_MIN ? v <= 0 : v >= 0;
		return p_wins ? *p : *q;
	}
	PExpr *x = poly_tree(a, p), *y = poly_tree(a, q);
	/* Commutative: order the operands, a constant last (`T.max(n, 1)`). */
	bool swap = x->kind == PE_INT ? y->kind != PE_INT
				      : y->kind != PE_INT && pe_cmp(x, y) > 0;
	if (swap) {
		PExpr *t = x;
		x = y;
		y = t;
	}
	return poly_atom(a, pe_bin(a, k, x, y));
}

/* The polynomial of x; operands of new atoms are canonical trees. */
static Poly
poly_of(Arena *a, PExpr *x)
{
	if (!x)
		ir_bug("null PExpr");
	Poly p, q, r;
	int64_t c;
	switch (x->kind) {
	case PE_INT:
		return poly_const(a, x->value);
	case PE_VAR:
		return poly_atom(a, x);
	case PE_ADD:
	case PE_SUB:
	case PE_MUL:
		p = poly_of(a, x->a);
		q = poly_of(a, x->b);
		if (x->kind == PE_MUL ? poly_mul(a, &p, &q, &r)
				      : poly_add(a, &p, &q,
						 x->kind == PE_ADD ? 1 : -1, &r))
			return r;
		/* Overflow: keep this node unfolded, as an atom. */
		return poly_atom(a, pe_bin(a, x->kind, poly_tree(a, &p),
					   poly_tree(a, &q)));
	case PE_FLOORDIV:
	case PE_FLOORMOD:
		p = poly_of(a, x->a);
		q = poly_of(a, x->b);
		if (poly_is_const(&q, &c) && c != 0)
			return poly_divmod_const(a, x->kind, &p, c);
		/* Non-constant divisor or division by zero: irreducible. */
		return poly_atom(a, pe_bin(a, x->kind, poly_tree(a, &p),
					   poly_tree(a, &q)));
	case PE_MIN:
	case PE_MAX:
		p = poly_of(a, x->a);
		q = poly_of(a, x->b);
		return poly_minmax(a, x->kind, &p, &q);
	case PE_EQ:
	case PE_NE:
	case PE_LT:
	case PE_LE:
	case PE_GT:
	case PE_GE: {
		int64_t u, v;
		p = poly_of(a, x->a);
		q = poly_of(a, x->b);
		if (poly_is_const(&p, &u) && poly_is_const(&q, &v)) {
			bool res = x->kind == PE_EQ ? u == v : x->kind == PE_NE ? u != v
			       : x->kind == PE_LT ? u < v : x->kind == PE_LE ? u <= v
			       : x->kind == PE_GT ? u > v : u >= v;
			return poly_const(a, res);
		}
		return poly_atom(a, pe_bin(a, x->kind, poly_tree(a, &p),
					   poly_tree(a, &q)));
	}
	}
	ir_bug("bad PExpr kind %d", (int)x->kind);
}

/*
 * The most nodes a canonical tree may have. An unfolded node (an overflow,
 * too many terms) distributed over sums is shared, not copied, in the
 * canonical form: as a tree, which every walk of the IR sees, it can grow
 * exponentially with the text ((a + ... + h) ** 14: billions of nodes).
 */
#define PE_MAX_NODES 1024

/* Whether the tree x has more nodes than *budget; spends the budget. */
static bool
pe_too_big(const PExpr *x, int *budget)
{
	if (!x)
		return false;
	if (--*budget < 0)
		return true;
	return pe_too_big(x->a, budget) || pe_too_big(x->b, budget);
}

/* The canonical tree of x; x itself when it is canonical already, or when
 * the canonical tree would be larger than PE_MAX_NODES. */
PExpr *
pe_simplify(Arena *a, PExpr *x)
{
	if (!x)
		return NULL;
	Poly p = poly_of(a, x);
	PExpr *t = poly_tree(a, &p);
	int budget = PE_MAX_NODES;
	if (pe_too_big(t, &budget))
		return x;
	if (pe_struct_equal(t, x))
		return x;
	if (t->span.line == 0)
		t->span = x->span;
	return t;
}

/* Equal after simplification (both sides; allocates in a). */
bool
pe_equal(Arena *a, PExpr *x, PExpr *y)
{
	if (pe_struct_equal(x, y))
		return true;
	if (!x || !y)
		return false;
	return pe_struct_equal(pe_simplify(a, x), pe_simplify(a, y));
}

/* An integer literal; callers simplify first. */
bool
pe_is_const(PExpr *x, int64_t *out)
{
	if (!x || x->kind != PE_INT)
		return false;
	*out = x->value;
	return true;
}

/* ------------------------------------------------------- vars, substitution */

/* Variables in order of first appearance, appended to out once. */
void
pe_collect_vars(const PExpr *x, Vec *out)
{
	if (!x)
		return;
	switch (x->kind) {
	case PE_INT:
		return;
	case PE_VAR:
		for (int i = 0; i < out->n; i++)
			if (out->items[i] == x->var)
				return;
		vec_push(out, x->var);
		return;
	default:
		pe_collect_vars(x->a, out);
		pe_collect_vars(x->b, out);
		return;
	}
}

/* x with the substitution applied, not simplified; x itself if unchanged. */
static PExpr *
subst_rec(Arena *a, PExpr *x, SymVar **from, PExpr **to, int n)
{
	switch (x->kind) {
	case PE_INT:
		return x;
	case PE_VAR:
		for (int i = 0; i < n; i++)
			if (from[i] == x->var)
				return to[i];
		return x;
	default: {
		PExpr *l = subst_rec(a, x->a, from, to, n);
		PExpr *r = subst_rec(a, x->b, from, to, n);
		if (l == x->a && r == x->b)
			return x;
		PExpr *e = pe_bin(a, x->kind, l, r);
		e->span = x->span;
		return e;
	}
	}
}

/* x with from[i] replaced by to[i] (by identity), simplified. */
PExpr *
pe_subst(Arena *a, PExpr *x, SymVar **from, PExpr **to, int n)
{
	if (!x)
		return NULL;
	return pe_simplify(a, subst_rec(a, x, from, to, n));
}

/* ----------------------------------------------------------------- printing */

/*
 * Python precedence levels: 0 for comparisons (never chained: both
 * operands bind tighter), 1 for + -, 2 for * // %, 3 for unary minus (a
 * negative literal), 4 for atoms (literals, names, calls).
 * ORDER: PExprKind
 */
static const int pe_prec[] = {
	[PE_INT] = 4,
	[PE_VAR] = 4,
	[PE_ADD] = 1,
	[PE_SUB] = 1,
	[PE_MUL] = 2,
	[PE_FLOORDIV] = 2,
	[PE_FLOORMOD] = 2,
	[PE_MIN] = 4,
	[PE_MAX] = 4,
	[PE_EQ] = 0, [PE_NE] = 0, [PE_LT] = 0, [PE_LE] = 0, [PE_GT] = 0,
	[PE_GE] = 0,
};
_Static_assert(ARRAY_LEN(pe_prec) == PE_GE + 1,
	       "pe_prec has a level per PExprKind");

static const char *const pe_op[] = {
	[PE_ADD] = " + ",
	[PE_SUB] = " - ",
	[PE_MUL] = " * ",
	[PE_FLOORDIV] = " // ",
	[PE_FLOORMOD] = " % ",
	[PE_MIN] = "T.min",
	[PE_MAX] = "T.max",
	[PE_EQ] = " == ", [PE_NE] = " != ", [PE_LT] = " < ", [PE_LE] = " <= ",
	[PE_GT] = " > ", [PE_GE] = " >= ",
};

/* Writes x, parenthesized when its precedence is below min. */
static void
pe_print_prec(StrBuf *b, const PExpr *x, int min)
{
	if (!x) {
		sb_puts(b, "None");
		return;
	}
	if ((unsigned)x->kind >= ARRAY_LEN(pe_prec))
		ir_bug("bad PExpr kind %d", (int)x->kind);
	int prec = pe_prec[x->kind];
	switch (x->kind) {
	case PE_INT:
		if (x->value == INT64_MIN)
			/* 9223372036854775808 is not an int64 literal. */
			sb_puts(b, "(-9223372036854775807 - 1)");
		else if (x->value < 0 && min > 3)
			sb_printf(b, "(%lld)", (long long)x->value);
		else
			sb_printf(b, "%lld", (long long)x->value);
		return;
	case PE_VAR:
		sb_puts(b, x->var ? x->var->name : "?");
		return;
	case PE_MIN:
	case PE_MAX:
		sb_printf(b, "%s(", pe_op[x->kind]);
		pe_print_prec(b, x->a, 0);
		sb_puts(b, ", ");
		pe_print_prec(b, x->b, 0);
		sb_putc(b, ')');
		return;
	default:
		if (prec < min)
			sb_putc(b, '(');
		/* Left-associative: the right operand binds tighter. */
		pe_print_prec(b, x->a, PE_IS_CMP(x->kind) ? prec + 1 : prec);
		sb_puts(b, pe_op[x->kind]);
		pe_print_prec(b, x->b, prec + 1);
		if (prec < min)
			sb_putc(b, ')');
		return;
	}
}

/* Python text of x, parenthesized by precedence. */
void
pe_print(StrBuf *b, const PExpr *x)
{
	pe_print_prec(b, x, 0);
}
