/*
 * sort.c — the row sort the JIT's sort, argsort and topk kernels call
 * (runtime/codegen/codegen_nn.c's gen_sort; defined for the JIT in jit.c).
 *
 * rlx_sort_row sorts one row (n elements row[i * stride] of rlx dtype dt),
 * ascending or descending, and writes the first k of the order: the values
 * to vals (vals[j * vstride], dtype dt) when vals is not NULL, and returns
 * the positions as a malloc'ed int64 array when want_idx is set (the
 * kernel converts them to the index dtype and frees the array). NaN sorts
 * after every number ascending and before them descending (NumPy's sort,
 * and its reverse); the order of the positions is stable (equal elements,
 * -0 and 0 among them, keep their order, descending too: TVM's argsort and
 * topk, NumPy's argsort(kind="stable")).
 *
 * How: every dtype maps to an unsigned key of its width that orders as
 * the values do (integers with the sign bit flipped; floats by their bits,
 * negatives reversed, every NaN the largest key). The keys are sorted by
 * an LSD radix sort (8-bit digits, 11-bit for long rows of 32-bit keys;
 * all histograms in one pass, digits every key shares skipped), which is stable: for positions the key and
 * the position travel as one 64-bit word (key above, position below; a
 * descending order sorts the complemented key, so ties stay in order).
 * Sorted values are the keys mapped back (bijective but for NaN's payload
 * and sign) or, when positions are wanted, the elements copied. Short rows
 * take an insertion sort.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "sort.h"

enum { SMALL = 48 }; /* rows this short take the insertion sort */

/* The key width of dtype dt in bits. */
static int
key_bits(int dt)
{
	return dtype_bits(dt) < 8 ? 8 : dtype_bits(dt);
}

/* The order-preserving key of the element at p. */
static uint64_t
key_of(const unsigned char *p, int dt)
{
	uint64_t u = 0;
	switch (dt) {
	case DT_BOOL: case DT_U8: return *p;
	case DT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
	case DT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
	case DT_U64: memcpy(&u, p, 8); return u;
	case DT_F8E4M3: case DT_F8E5M2: {
		uint8_t mag = *p & 0x7fu;
		if (mag > (dt == DT_F8E4M3 ? 0x7eu : 0x7cu))
			return 0xffu; /* NaN */
		return *p & 0x80u ? (uint8_t)~*p : (uint8_t)(*p | 0x80u);
	}
	case DT_I8: return (uint8_t)(*p ^ 0x80u);
	case DT_I16: { uint16_t v; memcpy(&v, p, 2); return (uint16_t)(v ^ 0x8000u); }
	case DT_I32: { uint32_t v; memcpy(&v, p, 4); return v ^ 0x80000000u; }
	case DT_I64: { uint64_t v; memcpy(&v, p, 8); return v ^ (1ull << 63); }
	case DT_F16: case DT_BF16: {
		uint16_t v;
		memcpy(&v, p, 2);
		uint16_t mag = v & 0x7fffu;
		uint16_t nan_min = dt == DT_F16 ? 0x7c01u : 0x7f81u;
		if (mag >= nan_min)
			return 0xffffu;
		return v & 0x8000u ? (uint16_t)~v : (uint16_t)(v | 0x8000u);
	}
	case DT_F32: {
		uint32_t v;
		memcpy(&v, p, 4);
		if ((v & 0x7fffffffu) > 0x7f800000u)
			return 0xffffffffu;
		return v & 0x80000000u ? ~v : v | 0x80000000u;
	}
	default: /* f64 */
		memcpy(&u, p, 8);
		if ((u & ~(1ull << 63)) > 0x7ff0000000000000ull)
			return ~0ull;
		return u >> 63 ? ~u : u | (1ull << 63);
	}
}

/* The key of the element at p for positions: -0 equal to 0 (a stable
 * order keeps them as they come). */
static uint64_t
pos_key_of(const unsigned char *p, int dt)
{
	uint64_t q = key_of(p, dt);
	if (dtype_is_float(dt)) {
		uint64_t top = 1ull << (key_bits(dt) - 1);
		if (q == top - 1) /* -0 */
			q = top;
	}
	return q;
}

/* The element of key q (a NaN for the NaN key) written to p. */
static void
value_of(uint64_t q, int dt, unsigned char *p)
{
	int bits = key_bits(dt);
	uint64_t top = 1ull << (bits - 1), mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
	uint64_t v;
	switch (dt) {
	case DT_BOOL: case DT_U8: case DT_U16: case DT_U32: case DT_U64:
		v = q;
		break;
	case DT_I8: case DT_I16: case DT_I32: case DT_I64:
		v = q ^ top;
		break;
	default: /* floats: the NaN key maps to the quiet NaN 0x7fff... */
		v = (q & top ? q ^ top : ~q) & mask;
		break;
	}
	memcpy(p, &v, (size_t)bits / 8); /* little-endian */
}

/* The digit width of a radix sort of n keys: 11 bits (3 passes for
 * 32-bit keys, histograms in L1) when there are enough keys to pay for
 * 2048 buckets, else 8. */
static int
digit_bits(int64_t n, int bits)
{
	return n >= 8192 && bits >= 32 ? 11 : 8;
}

/* key_of over a row of f32 (the common case, in a loop that vectorizes). */
static void
f32_keys(const unsigned char *x, int64_t stride, int64_t n, uint32_t *a)
{
	for (int64_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, x + i * stride * 4, 4);
		uint32_t q = v & 0x80000000u ? ~v : v | 0x80000000u;
		a[i] = (v & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : q;
	}
}

/* value_of over the first k f32 keys, ascending. */
static void
f32_values(const uint32_t *a, int64_t k, unsigned char *out, int64_t vstride)
{
	for (int64_t j = 0; j < k; j++) {
		uint32_t q = a[j], v = q & 0x80000000u ? q ^ 0x80000000u : ~q;
		memcpy(out + j * vstride * 4, &v, 4);
	}
}

/* Turns one pass's counts of its nd digits into each digit's first slot;
 * false when digit first holds all n keys (the pass would move nothing). */
static bool
digit_starts(int64_t *c, int nd, int64_t n, int64_t first)
{
	if (c[first] == n)
		return false;
	int64_t sum = 0;
	for (int d = 0; d < nd; d++) {
		int64_t t = c[d];
		c[d] = sum;
		sum += t;
	}
	return true;
}

/* Sorts a[0..n) by bits [lo, hi), stable; tmp has n words. The result is
 * in a. */
static void
radix64(uint64_t *a, uint64_t *tmp, int64_t n, int lo, int hi)
{
	int db = digit_bits(n, hi - lo), nd = 1 << db;
	int passes = (hi - lo + db - 1) / db;
	uint64_t dm = (uint64_t)nd - 1;
	int64_t *count = calloc((size_t)passes * (size_t)nd, sizeof *count);
	if (!count)
		ir_bug("out of memory");
	if (db == 8 && passes == 4) {
		/* 32-bit keys above the positions, bytes: unrolled */
		for (int64_t i = 0; i < n; i++) {
			uint64_t w = a[i] >> lo;
			count[w & 0xff]++;
			count[256 + ((w >> 8) & 0xff)]++;
			count[512 + ((w >> 16) & 0xff)]++;
			count[768 + ((w >> 24) & 0xff)]++;
		}
	} else {
		for (int64_t i = 0; i < n; i++) {
			uint64_t w = a[i] >> lo;
			for (int p = 0; p < passes; p++)
				count[p * nd + (int)((w >> (db * p)) & dm)]++;
		}
	}
	uint64_t *src = a, *dst = tmp;
	for (int p = 0; p < passes; p++) {
		int64_t *c = count + p * nd;
		int sh = lo + db * p;
		if (!digit_starts(c, nd, n, (int64_t)((a[0] >> sh) & dm)))
			continue; /* every key has this digit */
		for (int64_t i = 0; i < n; i++) {
			uint64_t w = src[i];
			dst[c[(w >> sh) & dm]++] = w;
		}
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof *a * (size_t)n);
	free(count);
}

/* The same for 32-bit words, by bits [lo, hi). */
static void
lsd32(uint32_t *a, uint32_t *tmp, int64_t n, int lo, int hi)
{
	int db = digit_bits(n, hi - lo), nd = 1 << db;
	int passes = (hi - lo + db - 1) / db;
	uint32_t dm = (uint32_t)nd - 1;
	int64_t count[4 << 8 > 3 << 11 ? 4 << 8 : 3 << 11];
	memset(count, 0, sizeof *count * (size_t)(passes * nd));
	if (db == 8 && passes == 4 && lo == 0) {
		/* 32-bit keys, bytes: the common case unrolled */
		for (int64_t i = 0; i < n; i++) {
			uint32_t w = a[i];
			count[w & 0xff]++;
			count[256 + ((w >> 8) & 0xff)]++;
			count[512 + ((w >> 16) & 0xff)]++;
			count[768 + (w >> 24)]++;
		}
	} else {
		for (int64_t i = 0; i < n; i++) {
			uint32_t w = a[i] >> lo;
			for (int p = 0; p < passes; p++)
				count[p * nd + (int)((w >> (db * p)) & dm)]++;
		}
	}
	uint32_t *src = a, *dst = tmp;
	for (int p = 0; p < passes; p++) {
		int64_t *c = count + p * nd;
		int sh = lo + db * p;
		if (!digit_starts(c, nd, n, (int64_t)((a[0] >> sh) & dm)))
			continue; /* every key has this digit */
		for (int64_t i = 0; i < n; i++) {
			uint32_t w = src[i];
			dst[c[(w >> sh) & dm]++] = w;
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof *a * (size_t)n);
}

/* Insertion sort of 32-bit words a[0..n), stable. */
static void
insertion32(uint32_t *a, int64_t n)
{
	for (int64_t i = 1; i < n; i++) {
		uint32_t w = a[i];
		int64_t j = i;
		for (; j > 0 && a[j - 1] > w; j--)
			a[j] = a[j - 1];
		a[j] = w;
	}
}

/* Sorts 32-bit words a[0..n) by bits [0, hi), stable; tmp has n words.
 * Long rows go by their top 11 bits into buckets first (one pass through
 * memory), then each bucket, small enough for the caches, by the rest. */
static void
radix32(uint32_t *a, uint32_t *tmp, int64_t n, int hi)
{
	enum { TOP = 11, NB = 1 << TOP };
	if (n <= SMALL) {
		insertion32(a, n);
		return;
	}
	if (n < (1 << 16) || hi <= 16) {
		lsd32(a, tmp, n, 0, hi);
		return;
	}
	int sh = hi - TOP;
	int64_t *start = calloc(NB + 1, sizeof *start);
	if (!start)
		ir_bug("out of memory");
	for (int64_t i = 0; i < n; i++)
		start[(a[i] >> sh) + 1]++;
	for (int d = 0; d < NB; d++)
		start[d + 1] += start[d];
	int64_t fill[NB];
	memcpy(fill, start, sizeof fill);
	for (int64_t i = 0; i < n; i++)
		tmp[fill[a[i] >> sh]++] = a[i];
	for (int d = 0; d < NB; d++) {
		int64_t b0 = start[d], m = start[d + 1] - b0;
		memcpy(a + b0, tmp + b0, sizeof *a * (size_t)m);
		if (m <= SMALL)
			insertion32(a + b0, m);
		else
			lsd32(a + b0, tmp + b0, m, 0, sh);
	}
	free(start);
}

/* Insertion sort of a[0..n) by bits [lo, 64), stable. */
static void
insertion64(uint64_t *a, int64_t n, int lo)
{
	for (int64_t i = 1; i < n; i++) {
		uint64_t w = a[i], kw = w >> lo;
		int64_t j = i;
		while (j > 0 && (a[j - 1] >> lo) > kw) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = w;
	}
}

/*
 * Before sorting for the k smallest words of w[0..n) by bits [lo, hi):
 * compacts w, in order, to the m >= k words whose key's leading digits are
 * at most those of the k-th smallest key's, and returns m. The k-th key's
 * digits are found from the top, 8 bits at a time, until few words share
 * them (each step one pass over w).
 */
static int64_t
select_smallest(uint64_t *w, int64_t n, int64_t k, int lo, int hi)
{
	uint64_t pfx = 0; /* the k-th key's digits above sh */
	int64_t less = 0; /* words whose digits above sh are below pfx */
	int sh = hi, top = hi - lo;
	int64_t tie = n;
	while (sh - 8 >= lo && tie > 4 * k + 64) {
		int64_t count[256] = {0};
		int nsh = sh - 8;
		for (int64_t i = 0; i < n; i++) {
			uint64_t q = w[i] >> nsh;
			if ((sh - lo == top || (q >> 8) == pfx))
				count[q & 0xff]++;
		}
		int b = 0;
		while (less + count[b] < k)
			less += count[b++];
		tie = count[b];
		pfx = pfx << 8 | (uint64_t)b;
		sh = nsh;
	}
	if (sh == hi)
		return n;
	int64_t m = 0;
	for (int64_t i = 0; i < n; i++)
		if ((w[i] >> sh) <= pfx)
			w[m++] = w[i];
	return m;
}

/* The k first of n sorted values (64-bit keys, no positions) of the row x
 * (byte stride bstride) into out (byte stride vbstride). */
static void
sort_values64(const unsigned char *x, int64_t bstride, int32_t dt, int64_t n,
	      int32_t desc, int64_t k, unsigned char *out, int64_t vbstride)
{
	uint64_t *a = malloc(sizeof *a * (size_t)n * 2);
	if (!a)
		ir_bug("out of memory");
	for (int64_t i = 0; i < n; i++)
		a[i] = key_of(x + i * bstride, dt);
	if (n <= SMALL)
		insertion64(a, n, 0);
	else
		radix64(a, a + n, n, 0, 64);
	for (int64_t j = 0; j < k; j++)
		value_of(a[desc ? n - 1 - j : j], dt, out + j * vbstride);
	free(a);
}

/* Stable sort of keys key[0..n) with their positions pos (64-bit keys):
 * merge sort on the pairs. */
static void
msort_kv(uint64_t *key, int64_t *pos, uint64_t *tk, int64_t *tp, int64_t n)
{
	if (n <= SMALL) {
		for (int64_t i = 1; i < n; i++) {
			uint64_t kv = key[i];
			int64_t pv = pos[i], j = i;
			while (j > 0 && key[j - 1] > kv) {
				key[j] = key[j - 1];
				pos[j] = pos[j - 1];
				j--;
			}
			key[j] = kv;
			pos[j] = pv;
		}
		return;
	}
	int64_t h = n / 2;
	msort_kv(key, pos, tk, tp, h);
	msort_kv(key + h, pos + h, tk, tp, n - h);
	int64_t i = 0, j = h, o = 0;
	while (i < h && j < n) {
		bool right = key[j] < key[i];
		tk[o] = right ? key[j] : key[i];
		tp[o++] = right ? pos[j++] : pos[i++];
	}
	for (; i < h; i++, o++)
		tk[o] = key[i], tp[o] = pos[i];
	for (; j < n; j++, o++)
		tk[o] = key[j], tp[o] = pos[j];
	memcpy(key, tk, sizeof *key * (size_t)n);
	memcpy(pos, tp, sizeof *pos * (size_t)n);
}

void *
rlx_sort_row(const void *row, int64_t stride, int32_t dt, int64_t n, int32_t desc,
	     int64_t k, void *vals, int64_t vstride, int32_t want_idx)
{
	if (n <= 0 || k <= 0)
		return NULL;
	if (k > n)
		k = n;
	const unsigned char *x = row;
	unsigned char *out = vals;
	int bits = key_bits(dt), bytes = dtype_bits(dt) < 8 ? 1 : dtype_bits(dt) / 8;
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
	int64_t bstride = stride * bytes, vbstride = vstride * bytes;
	/* a few of many (topk): the positions' path, which selects first */
	bool select = k <= n / 8 && n > 1024 && bits <= 32;
	if (!want_idx && bits <= 32 && !select) {
		/* values only: the keys alone, mapped back */
		uint32_t *a = malloc(sizeof *a * (size_t)n * 2);
		if (!a)
			ir_bug("out of memory");
		if (dt == DT_F32)
			f32_keys(x, stride, n, a);
		else
			for (int64_t i = 0; i < n; i++)
				a[i] = (uint32_t)key_of(x + i * bstride, dt);
		radix32(a, a + n, n, bits);
		if (dt == DT_F32 && !desc)
			f32_values(a, k, out, vstride);
		else
			for (int64_t j = 0; j < k; j++)
				value_of(a[desc ? n - 1 - j : j], dt, out + j * vbstride);
		free(a);
		return NULL;
	}
	if (!want_idx && bits > 32) {
		sort_values64(x, bstride, dt, n, desc, k, out, vbstride);
		return NULL;
	}
	int64_t *pos = malloc(sizeof *pos * (size_t)n);
	if (!pos)
		ir_bug("out of memory");
	if (bits <= 32 && n <= (int64_t)UINT32_MAX) {
		/* key above, position below: one word, sorted by the key bits */
		uint64_t *w = malloc(sizeof *w * (size_t)n * 2);
		if (!w)
			ir_bug("out of memory");
		uint32_t *q = (uint32_t *)(w + n); /* scratch until the sort */
		if (dt == DT_F32) {
			f32_keys(x, stride, n, q);
			for (int64_t i = 0; i < n; i++)
				q[i] = q[i] == 0x7fffffffu ? 0x80000000u : q[i]; /* -0 is 0 */
		} else {
			for (int64_t i = 0; i < n; i++)
				q[i] = (uint32_t)pos_key_of(x + i * bstride, dt);
		}
		uint64_t flip = desc ? mask : 0;
		for (int64_t i = 0; i < n; i++)
			w[i] = ((uint64_t)q[i] ^ flip) << 32 | (uint64_t)i;
		/* topk: only the words that can be among the first k */
		int64_t m = select ? select_smallest(w, n, k, 32, 32 + bits) : n;
		if (m <= SMALL)
			insertion64(w, m, 32);
		else
			radix64(w, w + n, m, 32, 32 + bits);
		for (int64_t j = 0; j < k; j++)
			pos[j] = (int64_t)(w[j] & 0xffffffffu);
		free(w);
	} else {
		uint64_t *key = malloc(sizeof *key * (size_t)n * 2);
		int64_t *tp = malloc(sizeof *tp * (size_t)n);
		if (!key || !tp)
			ir_bug("out of memory");
		for (int64_t i = 0; i < n; i++) {
			uint64_t q = pos_key_of(x + i * bstride, dt);
			key[i] = desc ? ~q & mask : q;
			pos[i] = i;
		}
		msort_kv(key, pos, key + n, tp, n);
		free(key);
		free(tp);
	}
	if (out)
		for (int64_t j = 0; j < k; j++)
			memcpy(out + j * vbstride, x + pos[j] * bstride, (size_t)bytes);
	if (!want_idx) {
		free(pos);
		return NULL;
	}
	return pos;
}
