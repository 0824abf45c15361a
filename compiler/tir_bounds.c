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
 * asked, so that a T.where on the loop variables narrows it); conditions
 * known to hold (T.where, an if's then branch, if_then_else's then side)
 * narrow the expressions they compare. An access is proven when its index
 * is at least 0 and its dimension minus one minus the index's upper bound
 * is provably at least 0: every monomial left has a positive coefficient
 * over symbols with known lower bounds.
 *
 * Arithmetic follows the lowering's values: +, - and * wrap in two's
 * complement, so a sum of products that ends inside [0, dim) is exact
 * whatever its partial sums did; a node of a narrower type than int64
 * (or unsigned) keeps its operands' interval only when it is constant and
 * fits the type (then narrowed by the facts, which bound the value it
 * has); the other int64 operations (division, min, max, casts) assume
 * their operands did not leave int64, which holds for dims of tensors in
 * memory and loops over them. Loads are unknown (a narrow integer load:
 * its dtype's range); no fact is kept about an expression that reads a
 * buffer (a store may change the value between the condition and the
 * use) or calls anything else than if_then_else and the hints. Anything
 * else is unknown, and a run-time check stays.
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

/* The smaller of a and b when provable, else unknown. */
static Poly
p_min(const TirBounds *tb, const Poly *a, const Poly *b)
{
	if (!a->known || !b->known)
		return p_unknown();
	if (geq(tb, b, a))
		return *a;
	if (geq(tb, a, b))
		return *b;
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
	case TE_SELECT:
		a = ival(tb, e->a, depth);
		b = ival(tb, e->b, depth);
		return (Ival){p_min(tb, &a.lo, &b.lo), p_max(tb, &a.hi, &b.hi)};
	case TE_CALL:
		if ((!strcmp(e->s, "likely") || !strcmp(e->s, "tvm_thread_invariant")) &&
		    e->n == 1)
			return ival(tb, e->args[0], depth);
		if (!strcmp(e->s, "if_then_else") && e->n == 3) {
			TirBounds *mt = (TirBounds *)tb; /* facts pushed, then popped */
			TirBoundsMark m = tir_bounds_mark(tb);
			tir_bounds_assume(mt, e->args[0]);
			a = ival(tb, e->args[1], depth);
			tir_bounds_pop(mt, m);
			b = ival(tb, e->args[2], depth);
			return (Ival){p_min(tb, &a.lo, &b.lo), p_max(tb, &a.hi, &b.hi)};
		}
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

/* Facts from condition c: comparisons of integers, conjunctions. */
void
tir_bounds_assume(TirBounds *tb, const TExpr *c)
{
	if (!c)
		return;
	if (c->kind == TE_AND) {
		tir_bounds_assume(tb, c->a);
		tir_bounds_assume(tb, c->b);
		return;
	}
	if (c->kind == TE_CALL && c->n == 1 &&
	    (!strcmp(c->s, "likely") || !strcmp(c->s, "tvm_thread_invariant"))) {
		tir_bounds_assume(tb, c->args[0]);
		return;
	}
	if (!TE_IS_CMP(c->kind) || c->kind == TE_NE || !int_type(c->a->ty) ||
	    !int_type(c->b->ty))
		return;
	const TExpr *a = c->a, *b = c->b;
	TExprKind k = c->kind;
	if (k == TE_GT || k == TE_GE) {
		a = c->b;
		b = c->a;
		k = k == TE_GT ? TE_LT : TE_LE;
	}
	Ival ia = ival(tb, a, 0), ib = ival(tb, b, 0);
	Poly one = p_const(1);
	if (k == TE_EQ) {
		push_fact(tb, a, NULL, ib);
		push_fact(tb, b, NULL, ia);
		return;
	}
	/* a < b: a <= hi(b) - 1, b >= lo(a) + 1; a <= b likewise */
	int d = k == TE_LT ? 1 : 0;
	push_fact(tb, a, NULL, (Ival){p_unknown(), d ? p_axpy(ib.hi, -1, &one) : ib.hi});
	push_fact(tb, b, NULL, (Ival){d ? p_axpy(ia.lo, 1, &one) : ia.lo, p_unknown()});
}

bool
tir_bounds_inside(const TirBounds *tb, const TExpr *idx, const TExpr *dim)
{
	Ival x = ival(tb, idx, 0), d = ival(tb, dim, 0);
	Poly zero = p_const(0), one = p_const(1);
	Poly last = p_axpy(d.lo, -1, &one);
	return geq(tb, &x.lo, &zero) && geq(tb, &last, &x.hi);
}
