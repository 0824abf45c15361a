/*
 * index_error.h — what a prim_func's kernel calls when an index it could
 * not prove in range is outside its buffer (runtime/kernels/index_error.c;
 * the JIT defines the symbol rlx_index_error; codegen_tir.c generates the
 * calls, the executor reads the record).
 */
#ifndef RLX_INDEX_ERROR_H
#define RLX_INDEX_ERROR_H

#include <stdint.h>

/* The record a kernel is given: the first access found outside wins
 * (threads may race; one of them writes value and extent). */
typedef struct {
	int64_t site;   /* 0: none; else 1 + the access's number (its site) */
	int64_t value;  /* the index */
	int64_t extent; /* the dimension it indexes */
	int64_t pad;
	unsigned char spare[64]; /* where an access of an empty buffer goes */
} RlxIndexRec;

/* Records access `site` (0-based) reading index `value` of a dimension of
 * `extent` into rec, unless an access was recorded before. */
void rlx_index_error(RlxIndexRec *rec, int64_t site, int64_t value, int64_t extent);

#endif
