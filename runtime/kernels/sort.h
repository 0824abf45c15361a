/*
 * sort.h — the row sort the generated sort kernels call
 * (runtime/kernels/sort.c); the JIT defines the symbol rlx_sort_row.
 */
#ifndef RLX_SORT_H
#define RLX_SORT_H

#include <stdint.h>

/* One row sorted for the sort kernels: the first k values to vals (unless
 * NULL), the first k positions returned (malloc'ed int64) when want_idx. */
void *rlx_sort_row(const void *row, int64_t stride, int32_t dt, int64_t n,
		   int32_t desc, int64_t k, void *vals, int64_t vstride,
		   int32_t want_idx);

#endif
