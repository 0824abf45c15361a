/*
 * util.c — the arena, growing buffers and arrays, dtypes, and ir_bug().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ir.h"

/* ------------------------------------------------------------------ arena */

struct ArenaChunk {
	struct ArenaChunk *next;
	size_t cap;
	_Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void *
arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!a->head || a->used + n > a->cap) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		struct ArenaChunk *c = malloc(sizeof *c + cap);
		if (!c)
			ir_bug("out of memory (%zu bytes)", cap);
		c->next = a->head;
		c->cap = cap;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void *
arena_memdup(Arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

char *
arena_printf(Arena *a, const char *fmt, ...)
{
	StrBuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	char *s = arena_strndup(a, b.p ? b.p : "", b.len);
	sb_free(&b);
	return s;
}

void
arena_free(Arena *a)
{
	struct ArenaChunk *c = a->head;
	while (c) {
		struct ArenaChunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

/* ----------------------------------------------------------------- StrBuf */

static void
sb_reserve(StrBuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		ir_bug("out of memory (%zu bytes)", cap);
	b->p = p;
	b->cap = cap;
}

void
sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void
sb_putc(StrBuf *b, char c)
{
	sb_putn(b, &c, 1);
}

void
sb_puts(StrBuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void
sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		ir_bug("bad format %s", fmt);
	sb_reserve(b, (size_t)n);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

char *
sb_take(StrBuf *b)
{
	if (!b->p)
		sb_reserve(b, 0), b->p[0] = 0;
	char *p = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

void
sb_free(StrBuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* -------------------------------------------------------------------- Vec */

void
vec_push(Vec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		void **items = realloc(v->items, sizeof *items * (size_t)cap);
		if (!items)
			ir_bug("out of memory");
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = p;
}

void **
vec_to_arena(Vec *v, Arena *a)
{
	void **p = ARENA_ARRAY(a, void *, v->n ? v->n : 1);
	if (v->n)
		memcpy(p, v->items, sizeof *p * (size_t)v->n);
	vec_free(v);
	return p;
}

void
vec_free(Vec *v)
{
	free(v->items);
	v->items = NULL;
	v->n = v->cap = 0;
}

/* ----------------------------------------------------------------- IntVec */

void
ivec_push(IntVec *v, int x)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 64;
		int *items = realloc(v->items, sizeof *items * (size_t)cap);
		if (!items)
			ir_bug("out of memory");
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = x;
}

void
ivec_free(IntVec *v)
{
	free(v->items);
	*v = (IntVec){0};
}

/* ---------------------------------------------------------------- NameMap */

size_t
str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of key: where it is, or the empty one it would take. */
static size_t
namemap_slot(const NameMap *m, const char *key)
{
	size_t mask = m->cap - 1, i = str_hash(key) & mask;
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

int *
namemap_get(const NameMap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t i = namemap_slot(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}

int *
namemap_add(NameMap *m, const char *key, int val)
{
	if (2 * (m->n + 1) > m->cap) {
		NameMap big = {.cap = m->cap ? 2 * m->cap : 64, .n = m->n};
		big.keys = calloc(big.cap, sizeof *big.keys);
		big.vals = calloc(big.cap, sizeof *big.vals);
		if (!big.keys || !big.vals)
			ir_bug("out of memory");
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t k = namemap_slot(&big, m->keys[i]);
				big.keys[k] = m->keys[i];
				big.vals[k] = m->vals[i];
			}
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	size_t i = namemap_slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->vals[i] = val;
		m->n++;
	}
	return &m->vals[i];
}

void
namemap_free(NameMap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (NameMap){0};
}

/* ----------------------------------------------------------------- dtypes */

/* ORDER: DType */
static const struct {
	const char *name;
	int bits;
} dtype_table[DT_COUNT] = {
	[DT_UNKNOWN] = {"void", 0},    [DT_BOOL] = {"bool", 8},
	[DT_I8] = {"int8", 8},         [DT_I16] = {"int16", 16},
	[DT_I32] = {"int32", 32},      [DT_I64] = {"int64", 64},
	[DT_U8] = {"uint8", 8},        [DT_F16] = {"float16", 16},
	[DT_BF16] = {"bfloat16", 16},  [DT_F32] = {"float32", 32},
	[DT_F64] = {"float64", 64},    [DT_U16] = {"uint16", 16},
	[DT_U32] = {"uint32", 32},     [DT_U64] = {"uint64", 64},
	[DT_F8E4M3] = {"float8_e4m3fn", 8},
	[DT_F8E5M2] = {"float8_e5m2", 8},
};

const char *
dtype_name(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].name : "?";
}

bool
dtype_parse(const char *s, DType *out)
{
	if (!*s) {
		*out = DT_UNKNOWN;
		return true;
	}
	for (int i = 0; i < DT_COUNT; i++)
		if (!strcmp(s, dtype_table[i].name)) {
			*out = (DType)i;
			return true;
		}
	return false;
}

int
dtype_bits(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].bits : 0;
}

bool
dtype_is_float(DType t)
{
	return t == DT_F16 || t == DT_BF16 || t == DT_F32 || t == DT_F64 ||
	       dtype_is_float8(t);
}

bool
dtype_is_float8(DType t)
{
	return t == DT_F8E4M3 || t == DT_F8E5M2;
}

bool
dtype_is_narrow_float(DType t)
{
	return t == DT_F16 || t == DT_BF16 || dtype_is_float8(t);
}

bool
dtype_is_unsigned(DType t)
{
	return t == DT_U8 || t == DT_U16 || t == DT_U32 || t == DT_U64 ||
	       t == DT_BOOL;
}

bool
dtype_is_int(DType t)
{
	return t == DT_I8 || t == DT_I16 || t == DT_I32 || t == DT_I64 ||
	       (t != DT_BOOL && dtype_is_unsigned(t));
}

/*
 * The float8 formats: M mantissa bits, exponent bias B, the largest finite
 * code and the codes of infinity and NaN (float8_e4m3fn has no infinity:
 * what would overflow to it is NaN, as in ml_dtypes).
 */
typedef struct {
	int m, bias;
	uint8_t highest, inf, nan;
} F8Format;

static F8Format
f8_format(DType t)
{
	return t == DT_F8E5M2 ? (F8Format){2, 15, 0x7b, 0x7c, 0x7e}
			      : (F8Format){3, 7, 0x7e, 0x7f, 0x7f};
}

uint8_t
dtype_f8_encode(DType t, double d)
{
	F8Format f = f8_format(t);
	uint8_t sign = signbit(d) ? 0x80 : 0;
	double a = fabs(d);
	if (isnan(a))
		return sign | f.nan;
	if (isinf(a))
		return sign | f.inf;
	if (a == 0)
		return sign;
	/* the exponent of a's quantum: a's own, not below the subnormals' */
	int e;
	frexp(a, &e);
	int ue = e - 1 < 1 - f.bias ? 1 - f.bias : e - 1;
	/* a in units of the quantum 2^(ue - m): the significand, its
	 * leading one included, rounded to nearest even (exact: a power
	 * of two scales) */
	double r = rint(ldexp(a, f.m - ue));
	/* (ue + bias - 1) << m plus a significand of 2^m .. 2^(m+1)
	 * (a carry of the rounding moves into the exponent) */
	double code = ldexp(ue + f.bias - 1, f.m) + r;
	return sign | (code > f.highest ? f.inf : (uint8_t)code);
}

double
dtype_f8_decode(DType t, uint8_t b)
{
	F8Format f = f8_format(t);
	int ex = (b & 0x7f) >> f.m, man = b & ((1 << f.m) - 1);
	double v;
	if ((b & 0x7f) > f.highest)
		v = (b & 0x7f) == f.inf && f.inf != f.nan ? INFINITY : NAN;
	else if (ex == 0)
		v = ldexp(man, 1 - f.bias - f.m);
	else
		v = ldexp(man + (1 << f.m), ex - f.bias - f.m);
	return b & 0x80 ? -v : v;
}

/* ---------------------------------------------------------------- the heap */

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		ir_bug("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		ir_bug("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		ir_bug("out of memory (%zu bytes)", n);
	return q;
}

char *
xstrndup(const char *s, size_t n)
{
	const char *end = memchr(s, 0, n);
	size_t len = end ? (size_t)(end - s) : n;
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* -------------------------------------------------------------------- bug */

_Noreturn void
ir_bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: internal error: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ------------------------------------------------------------ suggestions */

/* The edit distance of a and b (insert, delete, replace, swap), 99 when
 * either is longer than 255 characters. Three rows of the table: the
 * swap looks two rows back. */
int
str_edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 255 || nb > 255)
		return 99;
	int rows[3][256], *pp = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < c)
				c = prev[j] + 1;
			if (cur[j - 1] + 1 < c)
				c = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < c)
				c = pp[j - 2] + 1;
			cur[j] = c;
		}
		int *t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

/* Whether a misspelling of `want` at distance dist is close enough. */
bool
str_close_enough(const char *want, int dist)
{
	int n = (int)strlen(want);
	return 2 * dist < n && dist <= (n <= 8 ? 2 : 3);
}

void
suggest_offer(Suggest *s, const char *name)
{
	int d = str_edit_distance(s->want, name);
	/* a difference of case only is as close as it gets */
	bool close = d > 0 && (!strcasecmp(s->want, name) ||
			       str_close_enough(name, d));
	if (close && (!s->best || d < s->dist)) {
		s->best = name;
		s->dist = d;
	}
}

const char *
rlx_suggest(const char *want, const char *const *names, int n)
{
	Suggest s = {.want = want};
	for (int i = 0; i < n; i++)
		suggest_offer(&s, names[i]);
	return s.best;
}

/* --------------------------------------------------------------- text */

/* The length of the valid UTF-8 sequence at p (n bytes left), 0 if none.
 * Overlong forms, surrogates and code points past U+10FFFF are invalid. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t k;
	unsigned cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

bool
text_check_utf8(const char *text, size_t len, size_t *off, const char **why)
{
	const unsigned char *p = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		if (p[i] == 0) {
			*off = i;
			*why = "a NUL byte: this is not a text file";
			return false;
		}
		size_t k = utf8_len(p + i, len - i);
		if (!k) {
			*off = i;
			*why = "not UTF-8 text (TVMScript source is UTF-8, as "
			       "Python's is)";
			return false;
		}
		i += k;
	}
	return true;
}

void
sb_put_escaped(StrBuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i++) {
		unsigned c = p[i];
		bool c1 = c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 &&
			  p[i + 1] <= 0x9f;
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			sb_printf(b, "\\x%02x", c);
		} else if (c1) {
			sb_printf(b, "\\x%02x", p[++i]);
		} else {
			sb_putc(b, (char)c);
		}
	}
}

void
text_escape(char *dst, size_t cap, const char *src)
{
	if (!cap)
		return;
	StrBuf b = {0};
	sb_put_escaped(&b, src, strlen(src));
	size_t n = b.len < cap - 1 ? b.len : cap - 1;
	/* never cut inside an escape or a UTF-8 sequence */
	while (n < b.len && n > 0 &&
	       ((unsigned char)b.p[n] & 0xc0) == 0x80)
		n--;
	if (n)
		memcpy(dst, b.p, n);
	dst[n] = 0;
	sb_free(&b);
}

/* Whether text reads back as v (as a float32 when single). */
static bool
reads_back(const char *text, double v, bool single)
{
	double r = strtod(text, NULL);
	if (!single)
		return r == v;
	float f = (float)v;
	return (float)r == f && strtof(text, NULL) == f;
}

void
sb_put_float(StrBuf *b, double v, bool single)
{
	if (isnan(v)) {
		sb_puts(b, "float(\"nan\")");
		return;
	}
	if (isinf(v)) {
		sb_puts(b, v < 0 ? "float(\"-inf\")" : "float(\"inf\")");
		return;
	}
	char e[40], f[400];
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec - 1, v);
		if (reads_back(e, v, single))
			break;
	}
	snprintf(e, sizeof e, "%.*e", prec - 1, v);
	int exp = atoi(strchr(e, 'e') + 1);
	if (exp < -4 || exp >= 16) {
		/* Python's exponent form: no trailing zeros, as %g */
		snprintf(e, sizeof e, "%.*g", prec, v);
		sb_puts(b, e);
		return;
	}
	snprintf(f, sizeof f, "%.*f", prec - 1 - exp > 0 ? prec - 1 - exp : 0, v);
	sb_puts(b, f);
	if (!strchr(f, '.'))
		sb_puts(b, ".0");
}
