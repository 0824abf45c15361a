/*
 * tir_bounds.c — proves a prim_func's buffer accesses in range before
 * they are lowered (runtime/codegen/codegen_tir.c checks the others at
 * run time).
 *
 * An interval [lo, hi] per integer expression, its bounds polynomials
 * with int64 coefficients over the symbols: the shape variables bound
 * from buffer dims (never negative) and the scalar parameters (any sign).
 * The caller registers every variable as the lowering binds it, in
 * scopes (tir_bounds_mark / tir_bounds_pop): a loop variable runs over
 * [min, min + extent - 1] and, inside, the extent is at least 1; a block
 * iteration variable or a let is its value's interval (computed when
 * asked, so that a T.where on the loop variables narrows it).
 *
 * Conditions: one known to hold (T.where, an if's then branch,
 * if_then_else's true side) or known not to (an else branch, the false
 * side) gives facts, intervals of the expressions it compares, which
 * narrow those expressions wherever they recur: a < b bounds a by b's
 * upper bound less one and b by a's lower bound plus one (<=, == alike;
 * a negated comparison is the opposite one; x != p with p a single value
 * moves x's bound off p when x lies on one side of it); a fact about
 * x + p, x - p or p - x (p a single value) is also one about x. A
 * conjunction that holds, or a disjunction that does not, gives both
 * sides' facts; a disjunction that holds (a conjunction that does not)
 * gives one side's only when the other side is known false (true); not
 * swaps the two. The value of c ? a : b (if_then_else, T.Select) is a's
 * interval under c's facts joined with b's under c's negation. No fact is
 * kept about an expression that reads a buffer (a store may change the
 * value between the condition and the use) or calls anything else than
 * if_then_else and the hints.
 *
 * An access is proven when its index is at least 0 and its dimension
 * minus one minus the index's upper bound is provably at least 0: every
 * monomial left has a positive coefficient over symbols with known lower
 * bounds.
 *
 * Arithmetic follows the lowering's values: +, - and * wrap in two's
 * complement, so a sum of products that ends inside [0, dim) is exact
 * whatever its partial sums did; a node of a narrower type than int64
 * (or unsigned) keeps its operands' interval only when it is constant and
 * fits the type (then narrowed by the facts, which bound the value it
 * has); the other int64 operations (division, min, max, casts, the
 * comparisons of conditions, solving x + p for x) assume their operands
 * did not leave int64, which holds for dims of tensors in memory and
 * loops over them. Loads are unknown (a narrow integer load: its dtype's
 * range). Anything else is unknown, and a run-time check stays.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

enum {
	TB_TERMS = 8, /* monomials of a bound */
	TB_DEG = 3,   /* symbols of a monomial */
	TB_DEPTH = 24, /* nested lets / iteration variables followed */
};

typedef struct {
	int64_t c;
	int n;                    /* degree; 0: the constant */
	const TVar *s[TB_DEG];    /* sorted by id */
} Mono;

typedef struct {
	bool known;
	int n;
	Mono m[TB_TERMS];
} Poly;

typedef struct {
	Poly lo, hi;
} Ival;

typedef enum { V_IVAL, V_EXPR, V_DIM, V_SYM } VKind;

typedef struct {
	const TVar *v;
	VKind kind;
	Ival iv;          /* V_IVAL */
	const TExpr *x;   /* V_EXPR */
} BVar;

/* A known condition: expression x (or symbol sym) lies in iv (either
 * bound may be unknown). */
typedef struct {
	const TExpr *x;
	const TVar *sym;
	Ival iv;
} Fact;

struct TirBounds {
	BVar *vars;
	int nv, cv;
	Fact *facts;
	int nf, cf;
};

/* ------------------------------------------------------------ polynomials */

static Poly
p_unknown(void)
{
	Poly p;
	p.known = false;
	p.n = 0;
	return p;
}

static Poly
p_const(int64_t c)
{
	Poly p = {.known = true, .n = 0};
	if (c)
		p.m[p.n++] = (Mono){.c = c, .n = 0};
	return p;
}

static Poly
p_sym(const TVar *v)
{
	Poly p = {.known = true, .n = 1};
	p.m[0] = (Mono){.c = 1, .n = 1, .s = {v}};
	return p;
}

static bool
mono_same(const Mono *a, const Mono *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->s[i] != b->s[i])
			return false;
	return true;
}

/* Adds c * m into p; false on overflow or too many terms. */
static bool
p_addm(Poly *p, const Mono *m, int64_t c)
{
	int64_t cc;
	if (__builtin_mul_overflow(m->c, c, &cc))
		return false;
	if (!cc)
		return true;
	for (int i = 0; i < p->n; i++) {
		if (!mono_same(&p->m[i], m))
			continue;
		if (__builtin_add_overflow(p->m[i].c, cc, &p->m[i].c))
			return false;
		if (!p->m[i].c)
			p->m[i] = p->m[--p->n];
		return true;
	}
	if (p->n == TB_TERMS)
		return false;
	p->m[p->n] = *m;
	p->m[p->n++].c = cc;
	return true;
}

/* a + c * b */
static Poly
p_axpy(Poly a, int64_t c, const Poly *b)
{
	if (!a.known || !b->known)
		return p_unknown();
	for (int i = 0; i < b->n; i++)
		if (!p_addm(&a, &b->m[i], c))
			return p_unknown();
	return a;
}

static Poly
p_scale(const Poly *a, int64_t c)
{
	return p_axpy(p_const(0), c, a);
}

static Poly
p_mul(const Poly *a, const Poly *b)
{
	if (!a->known || !b->known)
		return p_unknown();
	Poly r = p_const(0);
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			const Mono *x = &a->m[i], *y = &b->m[j];
			if (x->n + y->n > TB_DEG)
				return p_unknown();
			Mono m = {.c = x->c, .n = 0};
			int p = 0, q = 0;
			while (p < x->n || q < y->n) /* merge, sorted by id */
				m.s[m.n++] = q == y->n || (p < x->n && x->s[p]->id <= y->s[q]->id)
					     ? x->s[p++] : y->s[q++];
			if (!p_addm(&r, &m, y->c))
				return p_unknown();
		}
	return r;
}

static bool
p_is_const(const Poly *p, int64_t *c)
{
	if (!p->known)
		return false;
	*c = 0;
	for (int i = 0; i < p->n; i++) {
		if (p->m[i].n)
			return false;
		*c = p->m[i].c;
	}
	return true;
}

static bool
p_equal(const Poly *a, const Poly *b)
{
	Poly d = p_axpy(*a, -1, b);
	int64_t c;
	return d.known && p_is_const(&d, &c) && c == 0;
}

/* ----------------------------------------------------------- the context */

TirBounds *
tir_bounds_new(void)
{
	return xcalloc(1, sizeof(TirBounds));
}

void
tir_bounds_free(TirBounds *tb)
{
	if (!tb)
		return;
	free(tb->vars);
	free(tb->facts);
	free(tb);
}

TirBoundsMark
tir_bounds_mark(const TirBounds *tb)
{
	return (TirBoundsMark){tb->nv, tb->nf};
}

void
tir_bounds_pop(TirBounds *tb, TirBoundsMark m)
{
	tb->nv = m.nv;
	tb->nf = m.nf;
}

static BVar *
push_var(TirBounds *tb, const TVar *v, VKind kind)
{
	if (tb->nv == tb->cv) {
		tb->cv = tb->cv ? 2 * tb->cv : 32;
		tb->vars = xrealloc(tb->vars, sizeof *tb->vars * (size_t)tb->cv);
	}
	BVar *x = &tb->vars[tb->nv++];
	memset(x, 0, sizeof *x);
	x->v = v;
	x->kind = kind;
	return x;
}

static const BVar *
find_var(const TirBounds *tb, const TVar *v)
{
	for (int i = tb->nv - 1; i >= 0; i--)
		if (tb->vars[i].v == v)
			return &tb->vars[i];
	return NULL;
}

/* Can a fact about e go stale before a use? A value read from a buffer
 * can (a store may come between the condition and the use; a let bound
 * to it earlier holds the older value), and so can a call other than
 * if_then_else and the hints: facts are kept only about the rest, whose
 * variables never change in a fact's scope. */
static bool
stable(const TExpr *e)
{
	if (!e)
		return true;
	if (e->kind == TE_LOAD)
		return false;
	if (e->kind == TE_CALL && strcmp(e->s, "if_then_else") && strcmp(e->s, "likely") &&
	    strcmp(e->s, "tvm_thread_invariant"))
		return false;
	for (int i = 0; i < e->n; i++)
		if (!stable(e->args[i]))
			return false;
	return stable(e->a) && stable(e->b) && stable(e->c);
}

/* Records that x (or symbol sym) lies in iv until the scope is popped;
 * nothing when iv says nothing or x is not stable. */
static void
push_fact(TirBounds *tb, const TExpr *x, const TVar *sym, Ival iv)
{
	if ((!iv.lo.known && !iv.hi.known) || (x && !stable(x)))
		return;
	if (tb->nf == tb->cf) {
		tb->cf = tb->cf ? 2 * tb->cf : 16;
		tb->facts = xrealloc(tb->facts, sizeof *tb->facts * (size_t)tb->cf);
	}
	tb->facts[tb->nf++] = (Fact){x, sym, iv};
}

/* The lower bound of symbol v known now (false: none). */
static bool
sym_lo(const TirBounds *tb, const TVar *v, int64_t *lo)
{
	const BVar *x = find_var(tb, v);
	bool have = x && x->kind == V_DIM;
	*lo = 0;
	for (int i = 0; i < tb->nf; i++) {
		const Fact *f = &tb->facts[i];
		int64_t c;
		if ((f->sym == v || (f->x && f->x->kind == TE_VAR && f->x->var == v)) &&
		    p_is_const(&f->iv.lo, &c) &&
		    (!have || c > *lo)) {
			*lo = c;
			have = true;
		}
	}
	return have;
}

/* Is p >= 0 for every value of its symbols? Every monomial's coefficient
 * positive, its symbols bounded below (by >= 0 when it is a product), and
 * the sum of those least values at least 0. */
static bool
nonneg(const TirBounds *tb, const Poly *p)
{
	if (!p->known)
		return false;
	int64_t sum = 0;
	for (int i = 0; i < p->n; i++) {
		const Mono *m = &p->m[i];
		int64_t least = m->c;
		if (m->n && m->c < 0)
			return false;
		for (int j = 0; j < m->n; j++) {
			int64_t l;
			if (!sym_lo(tb, m->s[j], &l) || (m->n > 1 && l < 0) ||
			    __builtin_mul_overflow(least, l, &least))
				return false;
		}
		if (__builtin_add_overflow(sum, least, &sum))
			return false;
	}
	return sum >= 0;
}

/* a >= b? */
static bool
geq(const TirBounds *tb, const Poly *a, const Poly *b)
{
	Poly d = p_axpy(*a, -1, b);
	return nonneg(tb, &d);
}

/* Of two lower bounds of one value, b when it is provably the tighter,
 * else a (a fact's constant bound does not replace a symbolic one that
 * the comparison with a dimension needs). */
static Poly
pick_lo(const TirBounds *tb, const Poly *a, const Poly *b)
{
	if (!b->known)
		return *a;
	if (!a->known)
		return *b;
	return geq(tb, b, a) ? *b : *a;
}

static Poly
pick_hi(const TirBounds *tb, const Poly *a, const Poly *b)
{
	if (!b->known)
		return *a;
	if (!a->known)
		return *b;
	return geq(tb, a, b) ? *b : *a;
}

/* The smaller of a and b when provable; else 0 when both are provably
 * at least 0 (a lower bound of both, as of their minimum); else unknown. */
static Poly
p_min(const TirBounds *tb, const Poly *a, const Poly *b)
{
	if (!a->known || !b->known)
		return p_unknown();
	if (geq(tb, b, a))
		return *a;
	if (geq(tb, a, b))
		return *b;
	if (nonneg(tb, a) && nonneg(tb, b))
		return p_const(0);
	return p_unknown();
}

static Poly
p_max(const TirBounds *tb, const Poly *a, const Poly *b)
{
	if (!a->known || !b->known)
		return p_unknown();
	if (geq(tb, a, b))
		return *a;
	if (geq(tb, b, a))
		return *b;
	return p_unknown();
}

/* ------------------------------------------------------------ intervals */

static Ival
iv_unknown(void)
{
	return (Ival){p_unknown(), p_unknown()};
}

static Ival
iv_const(int64_t lo, int64_t hi)
{
	return (Ival){p_const(lo), p_const(hi)};
}

static Ival ival(const TirBounds *tb, const TExpr *e, int depth);

static bool
int_type(TType ty)
{
	return ty != TT_HANDLE && (dtype_is_int((DType)ty) || ty == DT_BOOL);
}

/* The range of integer type ty. */
static void
type_range(TType ty, int64_t *lo, int64_t *hi)
{
	if (ty == DT_BOOL) {
		*lo = 0;
		*hi = 1;
		return;
	}
	int bits = dtype_bits((DType)ty);
	if (dtype_is_unsigned((DType)ty)) {
		*lo = 0;
		*hi = bits >= 64 ? INT64_MAX : (int64_t)((1ULL << bits) - 1);
	} else {
		*lo = bits >= 64 ? INT64_MIN : -(int64_t)(1ULL << (bits - 1));
		*hi = bits >= 64 ? INT64_MAX : (int64_t)((1ULL << (bits - 1)) - 1);
	}
}

/* A node of type ty keeps iv when ty is int64, or when iv is constant
 * and fits ty (the lowering computes it in ty). */
static Ival
fit(TType ty, Ival iv)
{
	if (ty == DT_I64)
		return iv;
	int64_t lo, hi, a, b;
	if (!int_type(ty))
		return iv_unknown();
	type_range(ty, &lo, &hi);
	if (p_is_const(&iv.lo, &a) && p_is_const(&iv.hi, &b) && a >= lo && b <= hi)
		return iv;
	return iv_unknown();
}

/* floor(a / c), c > 0 */
static int64_t
fdiv(int64_t a, int64_t c)
{
	return a / c - (a % c != 0 && a < 0);
}

/* p / c when every monomial but the constant divides by c (the constant
 * floor-divided): floor(p / c) exactly. */
static Poly
p_fdiv(const Poly *p, int64_t c)
{
	if (!p->known)
		return p_unknown();
	Poly r = p_const(0);
	for (int i = 0; i < p->n; i++) {
		Mono m = p->m[i];
		if (m.n && m.c % c)
			return p_unknown();
		m.c = m.n ? m.c / c : fdiv(m.c, c);
		if (!p_addm(&r, &m, 1))
			return p_unknown();
	}
	return r;
}

/* x // y, x % y (floor or trunc). */
static Ival
iv_div(const TirBounds *tb, TExprKind k, Ival x, Ival y)
{
	bool mod = k == TE_FLOORMOD || k == TE_TRUNCMOD;
	bool floor = k == TE_FLOORDIV || k == TE_FLOORMOD;
	Poly zero = p_const(0);
	bool xnn = nonneg(tb, &x.lo);
	int64_t c;
	if (p_is_const(&y.lo, &c) && p_equal(&y.lo, &y.hi) && c > 0) {
		if (!mod) {
			int64_t a, b;
			if (p_is_const(&x.lo, &a) && p_is_const(&x.hi, &b))
				return floor ? iv_const(fdiv(a, c), fdiv(b, c))
					     : iv_const(a / c, b / c);
			if (!floor && !xnn)
				return iv_unknown();
			Poly lo = p_fdiv(&x.lo, c), hi = p_fdiv(&x.hi, c);
			if (!lo.known && xnn)
				lo = zero;
			if (!hi.known && xnn)
				hi = x.hi; /* x // c <= x when x >= 0 */
			return (Ival){lo, hi};
		}
		Poly top = p_const(c - 1);
		if (xnn && geq(tb, &top, &x.hi))
			return x;
		if (floor || xnn)
			return (Ival){zero, top};
		return (Ival){p_const(1 - c), top};
	}
	/* a divisor that is a non-negative symbolic value, a dividend >= 0:
	 * the quotient and the remainder lie in [0, x] (a zero divisor gives
	 * 0); the remainder below y when y >= 1 */
	if (!xnn || !p_equal(&y.lo, &y.hi) || !nonneg(tb, &y.lo))
		return iv_unknown();
	if (!mod)
		return (Ival){zero, x.hi};
	Poly one = p_const(1);
	if (geq(tb, &y.lo, &one)) {
		Poly ym1 = p_axpy(y.hi, -1, &one);
		return (Ival){zero, pick_hi(tb, &x.hi, &ym1)};
	}
	return (Ival){zero, x.hi};
}

/* x * y */
static Ival
iv_mul(const TirBounds *tb, Ival x, Ival y)
{
	int64_t c;
	for (int sw = 0; sw < 2; sw++) {
		Ival a = sw ? y : x, b = sw ? x : y;
		if (p_is_const(&b.lo, &c) && p_equal(&b.lo, &b.hi)) {
			Poly lo = p_scale(&a.lo, c), hi = p_scale(&a.hi, c);
			return c >= 0 ? (Ival){lo, hi} : (Ival){hi, lo};
		}
	}
	if (nonneg(tb, &x.lo) && nonneg(tb, &y.lo))
		return (Ival){p_mul(&x.lo, &y.lo), p_mul(&x.hi, &y.hi)};
	return iv_unknown();
}

/* Narrows iv by the facts about e. */
static Ival
narrow(const TirBounds *tb, const TExpr *e, Ival iv)
{
	for (int i = 0; i < tb->nf; i++) {
		const Fact *f = &tb->facts[i];
		if (!f->x || !tir_expr_same(f->x, e))
			continue;
		iv.lo = pick_lo(tb, &iv.lo, &f->iv.lo);
		iv.hi = pick_hi(tb, &iv.hi, &f->iv.hi);
	}
	return iv;
}

static Ival
ival_var(const TirBounds *tb, const TExpr *e, int depth)
{
	const BVar *x = find_var(tb, e->var);
	if (!x)
		return iv_unknown();
	switch (x->kind) {
	case V_IVAL:
		return x->iv;
	case V_EXPR:
		return depth < TB_DEPTH ? ival(tb, x->x, depth + 1) : iv_unknown();
	case V_DIM:
	case V_SYM:
		return (Ival){p_sym(e->var), p_sym(e->var)};
	}
	return iv_unknown();
}

/* T.likely(c), T.tvm_thread_invariant(c): the value of c. */
static bool
is_hint(const TExpr *c)
{
	return c->kind == TE_CALL && c->n == 1 &&
	       (!strcmp(c->s, "likely") || !strcmp(c->s, "tvm_thread_invariant"));
}

static void learn(TirBounds *tb, const TExpr *c, bool holds, int depth);

/* The value of c ? a : b: a's interval with what c gives, b's with what
 * its negation gives (the facts pushed for the while, then popped). */
static Ival
ival_choice(const TirBounds *tb, const TExpr *c, const TExpr *a, const TExpr *b, int depth)
{
	TirBounds *mt = (TirBounds *)tb;
	TirBoundsMark m = tir_bounds_mark(tb);
	learn(mt, c, true, 0);
	Ival x = ival(tb, a, depth);
	tir_bounds_pop(mt, m);
	learn(mt, c, false, 0);
	Ival y = ival(tb, b, depth);
	tir_bounds_pop(mt, m);
	return (Ival){p_min(tb, &x.lo, &y.lo), p_max(tb, &x.hi, &y.hi)};
}

static Ival
ival_raw(const TirBounds *tb, const TExpr *e, int depth)
{
	Ival a, b;
	int64_t lo, hi;
	switch (e->kind) {
	case TE_INT:
		return iv_const(e->i, e->i);
	case TE_VAR:
		return ival_var(tb, e, depth);
	case TE_LOAD:
		if (!int_type(e->buf->dtype) || dtype_bits(e->buf->dtype) >= 64)
			return iv_unknown();
		type_range((TType)e->buf->dtype, &lo, &hi);
		return iv_const(lo, hi);
	case TE_CAST:
		if (!int_type(e->a->ty))
			return iv_unknown();
		return ival(tb, e->a, depth);
	case TE_NEG:
		a = ival(tb, e->a, depth);
		return (Ival){p_scale(&a.hi, -1), p_scale(&a.lo, -1)};
	case TE_ADD:
	case TE_SUB: {
		a = ival(tb, e->a, depth);
		b = ival(tb, e->b, depth);
		int s = e->kind == TE_ADD ? 1 : -1;
		return (Ival){p_axpy(a.lo, s, s > 0 ? &b.lo : &b.hi),
			      p_axpy(a.hi, s, s > 0 ? &b.hi : &b.lo)};
	}
	case TE_MUL:
		return iv_mul(tb, ival(tb, e->a, depth), ival(tb, e->b, depth));
	case TE_DIV:
	case TE_TRUNCDIV:
	case TE_TRUNCMOD:
	case TE_FLOORDIV:
	case TE_FLOORMOD:
		if (dtype_is_unsigned((DType)e->ty))
			return iv_unknown();
		return iv_div(tb, e->kind == TE_DIV ? TE_TRUNCDIV : e->kind,
			      ival(tb, e->a, depth), ival(tb, e->b, depth));
	case TE_MIN:
	case TE_MAX:
		if (dtype_is_unsigned((DType)e->ty))
			return iv_unknown();
		a = ival(tb, e->a, depth);
		b = ival(tb, e->b, depth);
		if (e->kind == TE_MIN)
			return (Ival){p_min(tb, &a.lo, &b.lo), pick_hi(tb, &a.hi, &b.hi)};
		return (Ival){pick_lo(tb, &a.lo, &b.lo), p_max(tb, &a.hi, &b.hi)};
	case TE_SELECT: /* both sides evaluated, a's value taken when c holds */
		return ival_choice(tb, e->c, e->a, e->b, depth);
	case TE_CALL:
		if (is_hint(e))
			return ival(tb, e->args[0], depth);
		if (!strcmp(e->s, "if_then_else") && e->n == 3)
			return ival_choice(tb, e->args[0], e->args[1], e->args[2], depth);
		return iv_unknown();
	default:
		if (TE_IS_CMP(e->kind) || e->kind == TE_AND || e->kind == TE_OR ||
		    e->kind == TE_NOT)
			return iv_const(0, 1);
		return iv_unknown();
	}
}

/* The interval of e's value: its operands' arithmetic kept when it fits
 * e's type (fit), then narrowed by the facts about e (which bound the
 * value e has, wrapped or not). */
static Ival
ival(const TirBounds *tb, const TExpr *e, int depth)
{
	if (!e || !int_type(e->ty))
		return iv_unknown();
	return narrow(tb, e, fit(e->ty, ival_raw(tb, e, depth)));
}

/* ---------------------------------------------------------- registering */

void
tir_bounds_dim(TirBounds *tb, const TVar *v)
{
	push_var(tb, v, V_DIM);
}

void
tir_bounds_sym(TirBounds *tb, const TVar *v)
{
	push_var(tb, v, V_SYM);
}

void
tir_bounds_let(TirBounds *tb, const TVar *v, const TExpr *value)
{
	push_var(tb, v, V_EXPR)->x = value;
}

void
tir_bounds_point(TirBounds *tb, const TVar *v, int64_t c)
{
	push_var(tb, v, V_IVAL)->iv = iv_const(c, c);
}

void
tir_bounds_unknown(TirBounds *tb, const TVar *v)
{
	push_var(tb, v, V_IVAL)->iv = iv_unknown();
}

void
tir_bounds_loop(TirBounds *tb, const TVar *v, const TExpr *min, const TExpr *extent)
{
	/* inside the loop the extent is at least 1 */
	push_fact(tb, extent, NULL, (Ival){p_const(1), p_unknown()});
	/* an extent at most c * s1 * s2.. + k (c > 0, k <= 0, dims s): then
	 * each of those dims is at least 1 */
	Ival ex = ival(tb, extent, 0);
	const Mono *mono = NULL;
	bool ok = ex.hi.known;
	for (int i = 0; ok && i < ex.hi.n; i++) {
		const Mono *m = &ex.hi.m[i];
		if (!m->n)
			ok = m->c <= 0;
		else if (mono || m->c <= 0)
			ok = false;
		else
			mono = m;
	}
	for (int i = 0; ok && mono && i < mono->n; i++) {
		const BVar *x = find_var(tb, mono->s[i]);
		if (x && x->kind == V_DIM)
			push_fact(tb, NULL, mono->s[i], (Ival){p_const(1), p_unknown()});
	}
	Ival m = ival(tb, min, 0);
	Poly one = p_const(1);
	Poly top = p_axpy(p_axpy(m.hi, 1, &ex.hi), -1, &one);
	BVar *x = push_var(tb, v, V_IVAL);
	x->iv = fit(v->ty, (Ival){m.lo, top});
}

/* ----------------------------------------------------------- conditions */

/* Is a < b (strict) or a <= b proven from their intervals? */
static bool
below(const TirBounds *tb, const Ival *a, const Ival *b, bool strict)
{
	Poly one = p_const(1);
	Poly top = strict ? p_axpy(b->lo, -1, &one) : b->lo;
	return geq(tb, &top, &a->hi);
}

/* What condition c is known to be now: 1 true, 0 false, -1 not known
 * (comparisons of integers from their intervals, and, or, not). */
static int
truth(const TirBounds *tb, const TExpr *c, int depth)
{
	if (!c || depth > TB_DEPTH)
		return -1;
	if (c->kind == TE_INT && c->ty == DT_BOOL)
		return c->i != 0;
	if (c->kind == TE_NOT) {
		int t = truth(tb, c->a, depth + 1);
		return t < 0 ? t : !t;
	}
	if (c->kind == TE_AND || c->kind == TE_OR) {
		int decides = c->kind == TE_OR; /* the value one side decides */
		int a = truth(tb, c->a, depth + 1), b = truth(tb, c->b, depth + 1);
		if (a == decides || b == decides)
			return decides;
		return a == !decides && b == !decides ? !decides : -1;
	}
	if (is_hint(c))
		return truth(tb, c->args[0], depth + 1);
	if (!TE_IS_CMP(c->kind) || !int_type(c->a->ty) || !int_type(c->b->ty))
		return -1;
	Ival a = ival(tb, c->a, 0), b = ival(tb, c->b, 0);
	switch (c->kind) {
	case TE_LT:
		return below(tb, &a, &b, true) ? 1 : below(tb, &b, &a, false) ? 0 : -1;
	case TE_LE:
		return below(tb, &a, &b, false) ? 1 : below(tb, &b, &a, true) ? 0 : -1;
	case TE_GT:
		return below(tb, &b, &a, true) ? 1 : below(tb, &a, &b, false) ? 0 : -1;
	case TE_GE:
		return below(tb, &b, &a, false) ? 1 : below(tb, &a, &b, true) ? 0 : -1;
	default: { /* EQ, NE: equal when each is at most the other */
		int eq = below(tb, &a, &b, false) && below(tb, &b, &a, false) ? 1
			 : below(tb, &a, &b, true) || below(tb, &b, &a, true) ? 0 : -1;
		return c->kind == TE_EQ || eq < 0 ? eq : !eq;
	}
	}
}

/* The comparison that holds when one of kind k does not. */
static TExprKind
cmp_not(TExprKind k)
{
	switch (k) {
	case TE_EQ: return TE_NE;
	case TE_NE: return TE_EQ;
	case TE_LT: return TE_GE;
	case TE_LE: return TE_GT;
	case TE_GT: return TE_LE;
	default: return TE_LT; /* TE_GE */
	}
}

/* Is iv a single value (its bounds one polynomial)? */
static bool
is_point(const Ival *iv)
{
	return p_equal(&iv->lo, &iv->hi);
}

/*
 * Records that x lies in iv and, while x is y + p, y - p, p + y or p - y
 * with p a single value (a constant, a symbol), what that says of y: so
 * that `v - n >= 0` (as TVM's topi writes a concatenation) says v >= n.
 * Only across a sum that cannot have wrapped: an int64 one (assumed not
 * to leave int64, as everywhere here) or one whose interval fits its type.
 */
static void
push_solved(TirBounds *tb, const TExpr *x, Ival iv)
{
	for (int k = 0; x && k < TB_DEPTH; k++) {
		push_fact(tb, x, NULL, iv);
		if (x->kind != TE_ADD && x->kind != TE_SUB)
			return;
		Ival raw = fit(x->ty, ival_raw(tb, x, 0));
		if (x->ty != DT_I64 && (!raw.lo.known || !raw.hi.known))
			return;
		Ival ia = ival(tb, x->a, 0), ib = ival(tb, x->b, 0);
		if (is_point(&ib)) { /* y = x - p, or x + p */
			int s = x->kind == TE_ADD ? -1 : 1;
			iv = (Ival){p_axpy(iv.lo, s, &ib.lo), p_axpy(iv.hi, s, &ib.lo)};
			x = x->a;
		} else if (is_point(&ia)) { /* y = x - p, or p - x */
			if (x->kind == TE_ADD)
				iv = (Ival){p_axpy(iv.lo, -1, &ia.lo), p_axpy(iv.hi, -1, &ia.lo)};
			else
				iv = (Ival){p_axpy(ia.lo, -1, &iv.hi), p_axpy(ia.lo, -1, &iv.lo)};
			x = x->b;
		} else {
			return;
		}
	}
}

/* Facts from a k b holding (k a comparison, a and b integers). */
static void
learn_cmp(TirBounds *tb, const TExpr *a, TExprKind k, const TExpr *b)
{
	if (k == TE_GT || k == TE_GE) {
		const TExpr *x = a;
		a = b;
		b = x;
		k = k == TE_GT ? TE_LT : TE_LE;
	}
	Ival ia = ival(tb, a, 0), ib = ival(tb, b, 0);
	Poly one = p_const(1);
	if (k == TE_EQ) {
		push_solved(tb, a, ib);
		push_solved(tb, b, ia);
		return;
	}
	if (k == TE_NE) {
		/* x != p, p a single value: x >= p gives x >= p + 1, x <= p
		 * gives x <= p - 1 */
		for (int sw = 0; sw < 2; sw++) {
			const TExpr *x = sw ? b : a;
			const Ival *ix = sw ? &ib : &ia, *ip = sw ? &ia : &ib;
			if (!is_point(ip))
				continue;
			if (geq(tb, &ix->lo, &ip->lo))
				push_solved(tb, x, (Ival){p_axpy(ip->lo, 1, &one), p_unknown()});
			else if (geq(tb, &ip->lo, &ix->hi))
				push_solved(tb, x, (Ival){p_unknown(), p_axpy(ip->lo, -1, &one)});
		}
		return;
	}
	/* a < b: a <= hi(b) - 1, b >= lo(a) + 1; a <= b likewise */
	int d = k == TE_LT ? 1 : 0;
	push_solved(tb, a, (Ival){p_unknown(), d ? p_axpy(ib.hi, -1, &one) : ib.hi});
	push_solved(tb, b, (Ival){d ? p_axpy(ia.lo, 1, &one) : ia.lo, p_unknown()});
}

/* Facts from condition c having the value `holds`: comparisons of
 * integers (negated when c is false); not; a conjunction that holds or a
 * disjunction that does not gives both sides' facts; a disjunction that
 * holds (a conjunction that does not) the facts of one side when the
 * other is known not to decide it. */
static void
learn(TirBounds *tb, const TExpr *c, bool holds, int depth)
{
	if (!c || depth > TB_DEPTH)
		return;
	if (c->kind == TE_NOT) {
		learn(tb, c->a, !holds, depth + 1);
		return;
	}
	if (c->kind == TE_AND || c->kind == TE_OR) {
		if ((c->kind == TE_AND) == holds) {
			learn(tb, c->a, holds, depth + 1);
			learn(tb, c->b, holds, depth + 1);
		} else if (truth(tb, c->a, 0) == !holds) {
			learn(tb, c->b, holds, depth + 1);
		} else if (truth(tb, c->b, 0) == !holds) {
			learn(tb, c->a, holds, depth + 1);
		}
		return;
	}
	if (is_hint(c)) {
		learn(tb, c->args[0], holds, depth + 1);
		return;
	}
	if (!TE_IS_CMP(c->kind) || !int_type(c->a->ty) || !int_type(c->b->ty))
		return;
	learn_cmp(tb, c->a, holds ? c->kind : cmp_not(c->kind), c->b);
}

void
tir_bounds_assume(TirBounds *tb, const TExpr *c, bool holds)
{
	learn(tb, c, holds, 0);
}

bool
tir_bounds_inside(const TirBounds *tb, const TExpr *idx, const TExpr *dim)
{
	Ival x = ival(tb, idx, 0), d = ival(tb, dim, 0);
	Poly zero = p_const(0), one = p_const(1);
	Poly last = p_axpy(d.lo, -1, &one);
	return geq(tb, &x.lo, &zero) && geq(tb, &last, &x.hi);
}
