/*
 * index_error.c — the record of a prim_func's first access outside its
 * buffer (index_error.h). Cold: called only on the way to an error.
 */
#include "index_error.h"

void
rlx_index_error(RlxIndexRec *rec, int64_t site, int64_t value, int64_t extent)
{
	int64_t none = 0;
	if (__atomic_compare_exchange_n(&rec->site, &none, site + 1, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		rec->value = value;
		rec->extent = extent;
	}
}
