/*
 * tir_access.c — the read and write regions of the blocks whose source
 * omits T.reads / T.writes, as TVM's parser fills them (ScriptComplete
 * with its BlockReadWriteDetector): blocks innermost first; a block's
 * init then body visited; a load is a read, a store a write; each index
 * evaluated as an interval over the loops inside the block (a variable of
 * such a loop stands for its range, the block's own iteration variables and
 * everything outside stay points); a nested block contributes its regions
 * with its iteration variables replaced by their bindings; one region per
 * buffer, the union of its accesses, in the order first met; the block's
 * own allocations (and those of blocks inside it) left out; with a T.init,
 * the buffers written are not also reads. An interval that is one point
 * prints as the index, another as min:min + extent, one not known (an
 * index this arithmetic cannot bound) as the whole dimension.
 */
#include <string.h>

#include "ir.h"

/* ------------------------------------------------- expressions, folded */

static bool
is_int(const TExpr *e, int64_t v)
{
	return e->kind == TE_INT && e->i == v;
}

static TExpr *
mk_bin(Module *m, TExprKind k, TExpr *a, TExpr *b)
{
	TExpr *e = tir_expr(m, k, a->ty, a->span);
	e->a = a;
	e->b = b;
	return e;
}

static TExpr *fold_sub(Module *m, TExpr *a, TExpr *b);

static TExpr *
fold_add(Module *m, TExpr *a, TExpr *b)
{
	if (a->kind == TE_INT && b->kind == TE_INT)
		return tir_int(m, a->ty, a->i + b->i, a->span);
	if (is_int(b, 0))
		return a;
	if (is_int(a, 0))
		return b;
	if (b->kind == TE_INT && b->i < 0)
		return fold_sub(m, a, tir_int(m, b->ty, -b->i, b->span));
	/* (x + c1) + c2 */
	if (b->kind == TE_INT && a->kind == TE_ADD && a->b->kind == TE_INT)
		return fold_add(m, a->a, tir_int(m, b->ty, a->b->i + b->i, b->span));
	if (b->kind == TE_INT && a->kind == TE_SUB && a->b->kind == TE_INT)
		return fold_add(m, a->a, tir_int(m, b->ty, b->i - a->b->i, b->span));
	return mk_bin(m, TE_ADD, a, b);
}

static TExpr *
fold_sub(Module *m, TExpr *a, TExpr *b)
{
	if (a->kind == TE_INT && b->kind == TE_INT)
		return tir_int(m, a->ty, a->i - b->i, a->span);
	if (is_int(b, 0))
		return a;
	if (b->kind == TE_INT && b->i < 0)
		return fold_add(m, a, tir_int(m, b->ty, -b->i, b->span));
	if (b->kind == TE_INT && a->kind == TE_ADD && a->b->kind == TE_INT)
		return fold_add(m, a->a, tir_int(m, b->ty, a->b->i - b->i, b->span));
	if (b->kind == TE_INT && a->kind == TE_SUB && a->b->kind == TE_INT)
		return fold_sub(m, a->a, tir_int(m, b->ty, a->b->i + b->i, b->span));
	if (tir_expr_same(a, b))
		return tir_int(m, a->ty, 0, a->span);
	return mk_bin(m, TE_SUB, a, b);
}

static TExpr *
fold_mul(Module *m, TExpr *a, int64_t c)
{
	if (a->kind == TE_INT)
		return tir_int(m, a->ty, a->i * c, a->span);
	if (c == 1)
		return a;
	if (c == 0)
		return tir_int(m, a->ty, 0, a->span);
	return mk_bin(m, TE_MUL, a, tir_int(m, a->ty, c, a->span));
}

/* ------------------------------------------------------ linear forms */

#define LIN_MAX 16

/* sum(coef[i] * atom[i]) + c; ok false when not linear or too long. */
typedef struct {
	const TExpr *atom[LIN_MAX];
	int64_t coef[LIN_MAX];
	int n;
	int64_t c;
	bool ok;
} Lin;

static void
lin_term(Lin *l, const TExpr *a, int64_t k)
{
	for (int i = 0; i < l->n; i++)
		if (tir_expr_same(l->atom[i], a)) {
			l->coef[i] += k;
			return;
		}
	if (l->n == LIN_MAX) {
		l->ok = false;
		return;
	}
	l->atom[l->n] = a;
	l->coef[l->n++] = k;
}

static void
lin_add(Lin *l, const TExpr *e, int64_t k, int depth)
{
	if (!l->ok)
		return;
	if (depth > 64) {
		l->ok = false;
		return;
	}
	switch (e->kind) {
	case TE_INT:
		l->c += k * e->i;
		return;
	case TE_ADD:
		lin_add(l, e->a, k, depth + 1);
		lin_add(l, e->b, k, depth + 1);
		return;
	case TE_SUB:
		lin_add(l, e->a, k, depth + 1);
		lin_add(l, e->b, -k, depth + 1);
		return;
	case TE_NEG:
		lin_add(l, e->a, -k, depth + 1);
		return;
	case TE_MUL:
		if (e->b->kind == TE_INT) {
			lin_add(l, e->a, k * e->b->i, depth + 1);
			return;
		}
		if (e->a->kind == TE_INT) {
			lin_add(l, e->b, k * e->a->i, depth + 1);
			return;
		}
		break;
	default:
		break;
	}
	lin_term(l, e, k);
}

/* a - b as a linear form. */
static Lin
lin_diff(const TExpr *a, const TExpr *b)
{
	Lin l = {.ok = true};
	lin_add(&l, a, 1, 0);
	lin_add(&l, b, -1, 0);
	int j = 0;
	for (int i = 0; i < l.n; i++)
		if (l.coef[i] != 0) {
			l.atom[j] = l.atom[i];
			l.coef[j++] = l.coef[i];
		}
	l.n = j;
	return l;
}

/* a - b when it is a constant. */
static bool
const_diff(const TExpr *a, const TExpr *b, int64_t *out)
{
	if (tir_expr_same(a, b)) {
		*out = 0;
		return true;
	}
	Lin l = lin_diff(a, b);
	if (!l.ok || l.n)
		return false;
	*out = l.c;
	return true;
}

/* ----------------------------------------------------------- intervals */

/* [lo, hi] inclusive; all: not bounded (the whole dimension). */
typedef struct {
	TExpr *lo, *hi;
	bool all;
} Ival;

typedef struct {
	TVar *var;
	TExpr *lo, *hi; /* a loop's range; a binding: lo == hi == value */
	bool subst;     /* a let or a nested block's iteration variable */
} Dom;

typedef struct {
	TBuf *buf;
	Ival *dims;
} Acc;

typedef struct {
	Module *m;
	Vec doms;    /* Dom*, innermost last */
	Vec reads;   /* Acc* */
	Vec writes;  /* Acc* */
	Vec exclude; /* TBuf*: allocated in the block or inside it */
	int depth;
} Det;

static Dom *
find_dom(Det *d, const TVar *v)
{
	for (int i = d->doms.n - 1; i >= 0; i--) {
		Dom *x = d->doms.items[i];
		if (x->var == v)
			return x;
	}
	return NULL;
}

/* Whether e mentions a variable with a domain (to be evaluated). */
static bool
touches(Det *d, const TExpr *e, int depth)
{
	if (!e || depth > 200)
		return e != NULL;
	if (e->kind == TE_VAR)
		return find_dom(d, e->var) != NULL;
	if (touches(d, e->a, depth + 1) || touches(d, e->b, depth + 1) ||
	    touches(d, e->c, depth + 1))
		return true;
	for (int i = 0; i < e->n; i++)
		if (touches(d, e->args[i], depth + 1))
			return true;
	return false;
}

static Ival
point(TExpr *e)
{
	return (Ival){e, e, false};
}

static Ival
everything(void)
{
	return (Ival){NULL, NULL, true};
}

static Ival
eval(Det *d, TExpr *e, int depth)
{
	Module *m = d->m;
	if (depth > 200)
		return everything();
	if (!touches(d, e, 0))
		return point(e);
	switch (e->kind) {
	case TE_VAR: {
		Dom *x = find_dom(d, e->var);
		if (x->subst && x->lo == x->hi) {
			/* a binding: its value, evaluated in turn */
			Dom saved = *x;
			x->var = NULL; /* no self-reference */
			Ival r = eval(d, saved.lo, depth + 1);
			*x = saved;
			return r;
		}
		return (Ival){x->lo, x->hi, false};
	}
	case TE_ADD:
	case TE_SUB: {
		Ival a = eval(d, e->a, depth + 1), b = eval(d, e->b, depth + 1);
		if (a.all || b.all)
			return everything();
		if (e->kind == TE_ADD)
			return (Ival){fold_add(m, a.lo, b.lo), fold_add(m, a.hi, b.hi), false};
		return (Ival){fold_sub(m, a.lo, b.hi), fold_sub(m, a.hi, b.lo), false};
	}
	case TE_MUL: {
		TExpr *k = e->b->kind == TE_INT ? e->b : e->a->kind == TE_INT ? e->a : NULL;
		if (!k)
			return everything();
		Ival a = eval(d, k == e->b ? e->a : e->b, depth + 1);
		if (a.all)
			return a;
		if (k->i >= 0)
			return (Ival){fold_mul(m, a.lo, k->i), fold_mul(m, a.hi, k->i), false};
		return (Ival){fold_mul(m, a.hi, k->i), fold_mul(m, a.lo, k->i), false};
	}
	case TE_NEG: {
		Ival a = eval(d, e->a, depth + 1);
		if (a.all)
			return a;
		return (Ival){fold_mul(m, a.hi, -1), fold_mul(m, a.lo, -1), false};
	}
	case TE_FLOORDIV: {
		if (e->b->kind != TE_INT || e->b->i <= 0)
			return everything();
		Ival a = eval(d, e->a, depth + 1);
		if (a.all)
			return a;
		if (e->b->i == 1)
			return a;
		if (a.lo->kind == TE_INT && a.hi->kind == TE_INT) {
			int64_t c = e->b->i, lo = a.lo->i, hi = a.hi->i;
			lo = lo >= 0 ? lo / c : -((-lo + c - 1) / c);
			hi = hi >= 0 ? hi / c : -((-hi + c - 1) / c);
			return (Ival){tir_int(m, e->ty, lo, e->span), tir_int(m, e->ty, hi, e->span),
				      false};
		}
		return (Ival){mk_bin(m, TE_FLOORDIV, a.lo, e->b), mk_bin(m, TE_FLOORDIV, a.hi, e->b),
			      false};
	}
	case TE_FLOORMOD: {
		if (e->b->kind != TE_INT || e->b->i <= 0)
			return everything();
		Ival a = eval(d, e->a, depth + 1);
		int64_t w;
		if (!a.all && a.lo->kind == TE_INT && a.hi->kind == TE_INT && a.lo->i >= 0 &&
		    a.hi->i < e->b->i)
			return a; /* within one period */
		if (!a.all && const_diff(a.hi, a.lo, &w) && w == 0)
			return (Ival){mk_bin(m, TE_FLOORMOD, a.lo, e->b),
				      mk_bin(m, TE_FLOORMOD, a.lo, e->b), false};
		return (Ival){tir_int(m, e->ty, 0, e->span), tir_int(m, e->ty, e->b->i - 1, e->span),
			      false};
	}
	case TE_CAST: {
		Ival a = eval(d, e->a, depth + 1);
		if (a.all)
			return a;
		TExpr *lo = tir_expr(m, TE_CAST, e->ty, e->span), *hi;
		lo->a = a.lo;
		if (a.lo == a.hi) {
			hi = lo;
		} else {
			hi = tir_expr(m, TE_CAST, e->ty, e->span);
			hi->a = a.hi;
		}
		if (a.lo->kind == TE_INT)
			lo = tir_int(m, e->ty, a.lo->i, e->span);
		if (a.hi->kind == TE_INT)
			hi = tir_int(m, e->ty, a.hi->i, e->span);
		return (Ival){lo, hi, false};
	}
	default:
		return everything();
	}
}

/* The union of two intervals of one dimension. */
static Ival
join(Ival a, Ival b)
{
	if (a.all || b.all)
		return everything();
	int64_t dl, dh;
	if (!const_diff(a.lo, b.lo, &dl) || !const_diff(a.hi, b.hi, &dh))
		return everything();
	return (Ival){dl <= 0 ? a.lo : b.lo, dh >= 0 ? a.hi : b.hi, false};
}

static void
update(Det *d, Vec *accs, TBuf *buf, Ival *dims)
{
	for (int i = 0; i < d->exclude.n; i++)
		if (d->exclude.items[i] == buf)
			return;
	for (int i = 0; i < accs->n; i++) {
		Acc *a = accs->items[i];
		if (a->buf == buf) {
			for (int j = 0; j < buf->ndim; j++)
				a->dims[j] = join(a->dims[j], dims[j]);
			return;
		}
	}
	Acc *a = ARENA_NEW(&d->m->arena, Acc);
	a->buf = buf;
	a->dims = dims;
	vec_push(accs, a);
}

static void
access(Det *d, Vec *accs, TBuf *buf, TExpr **idx, int n)
{
	if (n != buf->ndim)
		return; /* the verifier reports it */
	Ival *dims = ARENA_ARRAY(&d->m->arena, Ival, n ? n : 1);
	for (int i = 0; i < n; i++)
		dims[i] = eval(d, idx[i], 0);
	update(d, accs, buf, dims);
}

/* The loads of an expression, in TVM's visiting order. */
static void
loads(Det *d, TExpr *e, int depth)
{
	if (!e || depth > 1000)
		return;
	if (e->kind == TE_LOAD) {
		access(d, &d->reads, e->buf, e->args, e->n);
		for (int i = 0; i < e->n; i++)
			loads(d, e->args[i], depth + 1);
		return;
	}
	loads(d, e->c, depth + 1); /* T.Select's condition comes first */
	loads(d, e->a, depth + 1);
	loads(d, e->b, depth + 1);
	for (int i = 0; i < e->n; i++)
		loads(d, e->args[i], depth + 1);
}

static void
push_dom(Det *d, TVar *v, TExpr *lo, TExpr *hi, bool subst)
{
	Dom *x = ARENA_NEW(&d->m->arena, Dom);
	x->var = v;
	x->lo = lo;
	x->hi = hi;
	x->subst = subst;
	vec_push(&d->doms, x);
}

/* A nested block's regions, its iteration variables bound. */
static void
nested(Det *d, TStmt *b)
{
	int mark = d->doms.n;
	for (int i = 0; i < b->niters; i++)
		push_dom(d, b->iters[i].var, b->iters[i].value, b->iters[i].value, true);
	for (int w = 0; w < 2; w++) {
		TRegion *rs = w ? b->writes : b->reads;
		int nr = w ? b->nwrites : b->nreads;
		for (int i = 0; i < nr; i++) {
			TRegion *r = &rs[i];
			if (r->n != r->buf->ndim)
				continue;
			Ival *dims = ARENA_ARRAY(&d->m->arena, Ival, r->n ? r->n : 1);
			for (int j = 0; j < r->n; j++) {
				TRange *g = &r->ranges[j];
				Ival lo = eval(d, g->min, 0);
				if (!g->extent || is_int(g->extent, 1)) {
					dims[j] = lo;
					continue;
				}
				TExpr *last = fold_sub(d->m, fold_add(d->m, g->min, g->extent),
						       tir_int(d->m, g->min->ty, 1, g->min->span));
				Ival hi = eval(d, last, 0);
				dims[j] = lo.all || hi.all ? everything()
							   : (Ival){lo.lo, hi.hi, false};
			}
			update(d, w ? &d->writes : &d->reads, r->buf, dims);
		}
	}
	d->doms.n = mark;
}

static void
visit(Det *d, TStmt *s)
{
	if (!s || ++d->depth > 2000) {
		if (s)
			d->depth--;
		return;
	}
	switch (s->kind) {
	case TS_SEQ:
		for (int i = 0; i < s->n; i++)
			visit(d, s->body[i]);
		break;
	case TS_FOR: {
		loads(d, s->min, 0);
		loads(d, s->extent, 0);
		TExpr *hi = fold_sub(d->m, fold_add(d->m, s->min, s->extent),
				     tir_int(d->m, s->extent->ty, 1, s->span));
		push_dom(d, s->var, s->min, hi, false);
		visit(d, s->inner);
		d->doms.n--;
		break;
	}
	case TS_BLOCK:
		nested(d, s);
		break;
	case TS_STORE:
		access(d, &d->writes, s->buf, s->idx, s->nidx);
		loads(d, s->value, 0);
		for (int i = 0; i < s->nidx; i++)
			loads(d, s->idx[i], 0);
		break;
	case TS_LET:
		loads(d, s->value, 0);
		push_dom(d, s->var, s->value, s->value, true);
		visit(d, s->inner);
		d->doms.n--;
		break;
	case TS_IF:
		loads(d, s->cond, 0);
		visit(d, s->inner);
		visit(d, s->else_);
		break;
	case TS_EVAL:
		loads(d, s->value, 0);
		break;
	case TS_ATTR:
		loads(d, s->value, 0);
		visit(d, s->inner);
		break;
	case TS_ALLOC:
	case TS_ASSERT:
		loads(d, s->cond, 0);
		visit(d, s->inner);
		break;
	}
	d->depth--;
}

/* The allocations of the blocks inside s (they are not the outer's). */
static void
inner_allocs(TStmt *s, void *ctx)
{
	Det *d = ctx;
	if (s->kind == TS_BLOCK)
		for (int i = 0; i < s->nallocs; i++)
			vec_push(&d->exclude, s->allocs[i]);
}

static TRegion *
regions(Det *d, Vec *accs, Vec *skip, int *n)
{
	Module *m = d->m;
	TRegion *out = ARENA_ARRAY(&m->arena, TRegion, accs->n ? accs->n : 1);
	int k = 0;
	for (int i = 0; i < accs->n; i++) {
		Acc *a = accs->items[i];
		bool skipped = false;
		for (int j = 0; skip && j < skip->n; j++)
			skipped |= ((Acc *)skip->items[j])->buf == a->buf;
		if (skipped)
			continue;
		TRegion *r = &out[k++];
		r->buf = a->buf;
		r->n = a->buf->ndim;
		r->span = a->buf->span;
		r->ranges = ARENA_ARRAY(&m->arena, TRange, r->n ? r->n : 1);
		for (int j = 0; j < r->n; j++) {
			Ival v = a->dims[j];
			int64_t w;
			TExpr *dim = a->buf->shape[j];
			if (v.all) {
				r->ranges[j].min = tir_int(m, dim->ty, 0, dim->span);
				r->ranges[j].extent = dim;
			} else if (const_diff(v.hi, v.lo, &w) && w == 0) {
				r->ranges[j].min = v.lo;
			} else if (const_diff(v.hi, v.lo, &w)) {
				r->ranges[j].min = v.lo;
				r->ranges[j].extent = tir_int(m, v.lo->ty, w + 1, v.lo->span);
			} else {
				/* a symbolic extent: hi - lo + 1, folded */
				Lin l = lin_diff(v.hi, v.lo);
				TExpr *ext = NULL;
				if (l.ok && l.n == 1 && l.coef[0] == 1)
					ext = fold_add(m, (TExpr *)l.atom[0],
						       tir_int(m, v.lo->ty, l.c + 1, v.lo->span));
				r->ranges[j].min = v.lo;
				r->ranges[j].extent = ext ? ext
					: fold_add(m, fold_sub(m, v.hi, v.lo),
						   tir_int(m, v.lo->ty, 1, v.lo->span));
			}
		}
	}
	*n = k;
	return out;
}

static void detect_stmt(Module *m, TStmt *s, int depth);

static void
detect_block(Module *m, TStmt *b, int depth)
{
	detect_stmt(m, b->init, depth + 1);
	detect_stmt(m, b->inner, depth + 1);
	if (b->reads_given && b->writes_given)
		return;
	Det d = {.m = m};
	for (int i = 0; i < b->nallocs; i++)
		vec_push(&d.exclude, b->allocs[i]);
	TWalk w = {inner_allocs, NULL, &d};
	tir_walk_stmt(b->init, &w);
	tir_walk_stmt(b->inner, &w);
	visit(&d, b->init);
	visit(&d, b->inner);
	if (!b->writes_given)
		b->writes = regions(&d, &d.writes, NULL, &b->nwrites);
	if (!b->reads_given)
		b->reads = regions(&d, &d.reads, b->init ? &d.writes : NULL, &b->nreads);
	vec_free(&d.doms);
	vec_free(&d.reads);
	vec_free(&d.writes);
	vec_free(&d.exclude);
}

static void
detect_stmt(Module *m, TStmt *s, int depth)
{
	if (!s || depth > 4000)
		return;
	if (s->kind == TS_BLOCK) {
		detect_block(m, s, depth);
		return;
	}
	for (int i = 0; i < s->n; i++)
		detect_stmt(m, s->body[i], depth + 1);
	detect_stmt(m, s->inner, depth + 1);
	detect_stmt(m, s->else_, depth + 1);
}

void
tir_detect_access(Module *m, PrimFunc *f)
{
	detect_stmt(m, f->body, 0);
}
