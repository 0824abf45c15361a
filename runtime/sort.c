/*
 * sort.c — the row sort the JIT's sort, argsort and topk kernels call
 * (runtime/codegen.c's gen_sort; defined for the JIT in jit.c).
 *
 * rlx_sort_index returns a malloc'ed array of the n positions of a row
 * (elements row[i * stride], of rlx dtype dt) in stable sorted order,
 * ascending or descending; NaN sorts after every number ascending and
 * before them descending (numpy's sort, and its reverse). The kernel
 * frees it. A merge sort on 64-bit keys: floats mapped to integers that
 * order as the floats do, so one comparison serves every dtype.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "pool.h"

/* A key that orders as the value: integers as themselves, floats by their
 * bits with the sign handled (NaN made the largest). */
static int64_t
key_of(const unsigned char *p, int dt)
{
	double f;
	switch (dt) {
	case DT_BOOL: case DT_U8: return *p;
	case DT_I8: return *(const int8_t *)p;
	case DT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
	case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
	case DT_I64: { int64_t v; memcpy(&v, p, 8); return v; }
	case DT_F16: { _Float16 h; memcpy(&h, p, 2); f = (double)h; break; }
	case DT_BF16: { uint16_t u; memcpy(&u, p, 2); uint32_t w = (uint32_t)u << 16; float x;
			memcpy(&x, &w, 4); f = x; break; }
	case DT_F32: { float x; memcpy(&x, p, 4); f = x; break; }
	default: memcpy(&f, p, 8); break;
	}
	if (isnan(f))
		return INT64_MAX;
	if (f == 0)
		f = 0; /* -0 sorts as 0 */
	int64_t b;
	memcpy(&b, &f, 8);
	return b < 0 ? (int64_t)((uint64_t)INT64_MIN - (uint64_t)b) : b; /* negatives reversed */
}

/* Merge sort of idx[0..n) by key (stable); tmp has n entries. */
static void
msort(int64_t *idx, int64_t *tmp, const int64_t *key, int64_t n, int desc)
{
	if (n < 2)
		return;
	int64_t h = n / 2;
	msort(idx, tmp, key, h, desc);
	msort(idx + h, tmp, key, n - h, desc);
	int64_t i = 0, j = h, o = 0;
	while (i < h && j < n) {
		int64_t a = key[idx[i]], b = key[idx[j]];
		bool take_right = desc ? b > a : b < a;
		tmp[o++] = take_right ? idx[j++] : idx[i++];
	}
	while (i < h)
		tmp[o++] = idx[i++];
	while (j < n)
		tmp[o++] = idx[j++];
	memcpy(idx, tmp, sizeof *idx * (size_t)n);
}

void *
rlx_sort_index(const void *row, int64_t stride, int32_t dt, int64_t n, int32_t desc)
{
	if (n <= 0)
		return NULL;
	int64_t *idx = malloc(sizeof *idx * (size_t)n * 3);
	if (!idx)
		ir_bug("out of memory");
	int64_t *tmp = idx + n, *key = idx + 2 * n;
	int bytes = dtype_bits(dt) / 8;
	for (int64_t i = 0; i < n; i++) {
		idx[i] = i;
		key[i] = key_of((const unsigned char *)row + i * stride * bytes, dt);
	}
	msort(idx, tmp, key, n, desc);
	return idx;
}
