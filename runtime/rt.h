/*
 * rt.h — the runtime: tensors in host memory, the files they come from and
 * go to (safetensors, .npy, tensor cache), the JIT and the executor.
 *
 * The runtime knows tensors, kernels and files, not the grammar. Like the
 * compiler, it never exits: errors are returned as a message in RtError.
 * A section per file, prefix rt_ (jit_ for the JIT).
 */
#ifndef RLX_RT_H
#define RLX_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

enum { RT_MAX_DIMS = 8, RT_ALIGN = 64 };

/* An error from the runtime: a message naming the file, tensor or binding. */
typedef struct {
	char msg[1024];
} RtError;

void rt_error(RtError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --------------------------------------------------------------- tensor.c */

typedef enum {
	RT_OWNED,    /* data is ours, RT_ALIGN-aligned, freed with the tensor */
	RT_BORROWED, /* data belongs to someone else (a mapped file) */
} RtOwnership;

/* A dense C-order tensor in host memory. bool is one byte per element. */
typedef struct {
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	void *data;
	size_t nbytes;
	RtOwnership own;
} RtTensor;

/* A new owned tensor with uninitialized (64-byte aligned) data; NULL with
 * a message when the size overflows or memory runs out. */
RtTensor *rt_tensor_new(DType dt, int ndim, const int64_t *shape, RtError *e);
/* A tensor viewing someone else's bytes. */
RtTensor *rt_tensor_borrow(DType dt, int ndim, const int64_t *shape,
			   void *data, RtError *e);
void rt_tensor_free(RtTensor *t);
int64_t rt_numel(const RtTensor *t);
/* nbytes of ndim/shape/dtype; false on overflow. */
bool rt_size(DType dt, int ndim, const int64_t *shape, size_t *nbytes);

/* IEEE half and bfloat16 conversion (round to nearest even). */
float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);
float rt_bf16_to_f32(uint16_t h);
uint16_t rt_f32_to_bf16(float f);
