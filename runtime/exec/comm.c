/*
 * comm.c — the workers of a tensor-parallel run (see rt.h): Open MPI's
 * MPI_COMM_WORLD under mpirun, else one process.
 *
 * MPI is initialized only when the environment says mpirun started us
 * (OMPI_COMM_WORLD_SIZE, set by Open MPI's launcher for every rank), so a
 * plain `rlx` never pays for MPI_Init and never talks to a daemon. A build
 * without MPI (meson found no Open MPI) keeps the single-process worker
 * and refuses to run under mpirun with a message saying so.
 *
 * Under mpirun the ranks of one host share its cores: unless RLX_NUM_THREADS
 * is set, each rank's thread pool gets cores / ranks-on-this-host threads
 * (OMPI_COMM_WORLD_LOCAL_SIZE), so two ranks on two cores do not fight over
 * four threads.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RLX_HAVE_MPI
#include <mpi.h>
#endif

#include "rt_exec.h"

struct RtComm {
	int rank, size;
	bool mpi;
};

bool
rt_comm_launched(void)
{
	const char *s = getenv("OMPI_COMM_WORLD_SIZE");
	return s && *s;
}

#ifdef RLX_HAVE_MPI
/* Threads per rank: the host's cores shared among its ranks. */
static void
share_cores(void)
{
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (getenv("RLX_NUM_THREADS") || !local)
		return;
	long n = atol(local), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 1 || cpus <= 0)
		return;
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", cpus / n > 0 ? cpus / n : 1);
	setenv("RLX_NUM_THREADS", buf, 0);
}
#endif

RtComm *
rt_comm_single(int rank, RtError *e)
{
	RtComm *c = calloc(1, sizeof *c);
	if (!c) {
		rt_error(e, "out of memory");
		return NULL;
	}
	c->rank = rank;
	c->size = 1;
	return c;
}

RtComm *
rt_comm_open(RtError *e)
{
	if (!rt_comm_launched())
		return rt_comm_single(0, e);
#ifdef RLX_HAVE_MPI
	RtComm *c = rt_comm_single(0, e);
	if (!c)
		return NULL;
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		rt_error(e, "MPI_Init failed");
		free(c);
		return NULL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->size);
	c->mpi = true;
	share_cores();
	return c;
#else
	rt_error(e, "started by mpirun, but this rlx was built without MPI "
		 "(install libopenmpi-dev and rebuild)");
	return NULL;
#endif
}

void
rt_comm_close(RtComm *c)
{
	if (!c)
		return;
#ifdef RLX_HAVE_MPI
	if (c->mpi)
		MPI_Finalize();
#endif
	free(c);
}

void
rt_comm_release(RtComm *c)
{
	free(c);
}

void
rt_comm_finalize(void)
{
#ifdef RLX_HAVE_MPI
	int inited = 0, done = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&done);
	if (inited && !done)
		MPI_Finalize();
#endif
}

int
rt_comm_rank(const RtComm *c)
{
	return c ? c->rank : 0;
}

int
rt_comm_size(const RtComm *c)
{
	return c ? c->size : 1;
}

bool
rt_comm_is_mpi(const RtComm *c)
{
	return c && c->mpi;
}

bool
rt_comm_all(RtComm *c, bool ok)
{
#ifdef RLX_HAVE_MPI
	if (c && c->mpi) {
		int in = ok, out = 0;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
		return out != 0;
	}
#endif
	(void)c;
	return ok;
}

void
rt_comm_barrier(RtComm *c)
{
#ifdef RLX_HAVE_MPI
	if (c && c->mpi)
		MPI_Barrier(MPI_COMM_WORLD);
#endif
	(void)c;
}

#ifdef RLX_HAVE_MPI
/* The average's division of n values of dtype dt, after the sum. */
static void
avg_div(DType dt, void *p, int64_t n, int size)
{
	for (int64_t i = 0; i < n; i++)
		switch (dt) {
		case DT_F32: ((float *)p)[i] /= (float)size; break;
		case DT_F64: ((double *)p)[i] /= size; break;
		case DT_I8: ((int8_t *)p)[i] /= size; break;
		case DT_I16: ((int16_t *)p)[i] /= size; break;
		case DT_I32: ((int32_t *)p)[i] /= size; break;
		case DT_I64: ((int64_t *)p)[i] /= size; break;
		case DT_U8: case DT_BOOL: ((uint8_t *)p)[i] /= size; break;
		case DT_U16: ((uint16_t *)p)[i] /= size; break;
		case DT_U32: ((uint32_t *)p)[i] /= size; break;
		case DT_U64: ((uint64_t *)p)[i] /= size; break;
		default: break;
		}
}

static MPI_Datatype
mpi_type(DType dt)
{
	switch (dt) {
	case DT_BOOL: case DT_U8: return MPI_UINT8_T;
	case DT_U16: return MPI_UINT16_T;
	case DT_U32: return MPI_UINT32_T;
	case DT_U64: return MPI_UINT64_T;
	case DT_I8: return MPI_INT8_T;
	case DT_I16: return MPI_INT16_T;
	case DT_I32: return MPI_INT32_T;
	case DT_I64: return MPI_INT64_T;
	case DT_F32: case DT_F16: case DT_BF16: return MPI_FLOAT;
	case DT_F8E4M3: case DT_F8E5M2: return MPI_FLOAT;
	case DT_F64: return MPI_DOUBLE;
	default: return MPI_DATATYPE_NULL;
	}
}

static MPI_Op
mpi_op(RtReduce op)
{
	switch (op) {
	case RT_RED_PROD: return MPI_PROD;
	case RT_RED_MIN: return MPI_MIN;
	case RT_RED_MAX: return MPI_MAX;
	default: return MPI_SUM;
	}
}

/* MPI counts are ints: reduce in pieces of at most this many elements. */
enum { PIECE = 1 << 28 };
#endif

bool
rt_comm_allreduce(RtComm *c, const RtTensor *in, RtTensor *out, RtReduce op,
		  RtError *e)
{
	if (in->nbytes != out->nbytes || in->dtype != out->dtype) {
		rt_error(e, "allreduce: output differs from the input");
		return false;
	}
	if (!rt_comm_is_mpi(c) || c->size == 1) {
		memcpy(out->data, in->data, in->nbytes);
		return true;
	}
#ifdef RLX_HAVE_MPI
	int64_t n = rt_numel(in);
	bool half = dtype_is_narrow_float(in->dtype);
	MPI_Datatype t = mpi_type(in->dtype);
	if (t == MPI_DATATYPE_NULL) {
		rt_error(e, "allreduce: no MPI type for %s",
			 dtype_name(in->dtype));
		return false;
	}
	float *wide = NULL;
	if (half) {
		/* f16/bf16: each worker widens, MPI reduces floats, one
		 * rounding back at the end */
		wide = malloc(sizeof *wide * (size_t)(n ? n : 1));
		if (!wide) {
			rt_error(e, "allreduce: out of memory");
			return false;
		}
		for (int64_t i = 0; i < n; i++)
			wide[i] = rt_narrow_to_f32(in->dtype, in->data, i);
	} else {
		memcpy(out->data, in->data, in->nbytes);
	}
	char *buf = half ? (char *)wide : (char *)out->data;
	size_t isz = half ? sizeof(float) : (size_t)dtype_bits(in->dtype) / 8;
	for (int64_t off = 0; off < n; off += PIECE) {
		int k = (int)(n - off < PIECE ? n - off : PIECE);
		if (MPI_Allreduce(MPI_IN_PLACE, buf + (size_t)off * isz, k, t,
				  mpi_op(op), MPI_COMM_WORLD) != MPI_SUCCESS) {
			rt_error(e, "allreduce: MPI_Allreduce failed");
			free(wide);
			return false;
		}
	}
	if (op == RT_RED_AVG)
		avg_div(half ? DT_F32 : in->dtype, buf, n, c->size);
	if (half) {
		for (int64_t i = 0; i < n; i++)
			rt_narrow_from_f32(in->dtype, out->data, i, wide[i]);
		free(wide);
	}
	return true;
#else
	(void)op;
	return false;
#endif
}

bool
rt_comm_allgather(RtComm *c, const RtTensor *in, RtTensor *out, RtError *e)
{
	int size = rt_comm_size(c);
	if (out->nbytes != in->nbytes * (size_t)size) {
		rt_error(e, "allgather: the output is not %d times the input",
			 size);
		return false;
	}
	if (!rt_comm_is_mpi(c) || size == 1) {
		memcpy(out->data, in->data, in->nbytes);
		return true;
	}
#ifdef RLX_HAVE_MPI
	if (in->nbytes > INT_MAX) {
		rt_error(e, "allgather: %zu bytes per worker is more than MPI "
			 "takes at once", in->nbytes);
		return false;
	}
	if (MPI_Allgather(in->data, (int)in->nbytes, MPI_BYTE, out->data,
			  (int)in->nbytes, MPI_BYTE, MPI_COMM_WORLD) !=
	    MPI_SUCCESS) {
		rt_error(e, "allgather: MPI_Allgather failed");
		return false;
	}
	return true;
#else
	return false;
#endif
}

bool
rt_comm_bcast(RtComm *c, void *buf, size_t n, int root, RtError *e)
{
	if (!rt_comm_is_mpi(c) || c->size == 1)
		return true;
#ifdef RLX_HAVE_MPI
	for (size_t off = 0; off < n; off += (size_t)1 << 30) {
		size_t k = n - off < ((size_t)1 << 30) ? n - off
						       : (size_t)1 << 30;
		if (MPI_Bcast((char *)buf + off, (int)k, MPI_BYTE, root,
			      MPI_COMM_WORLD) != MPI_SUCCESS) {
			rt_error(e, "broadcast: MPI_Bcast failed");
			return false;
		}
	}
	return true;
#else
	(void)buf; (void)n; (void)root; (void)e;
	return false;
#endif
}

bool
rt_comm_sum_u64(RtComm *c, uint64_t *buf, size_t n, RtError *e)
{
	if (!rt_comm_is_mpi(c) || c->size == 1)
		return true;
#ifdef RLX_HAVE_MPI
	for (size_t off = 0; off < n; off += (size_t)1 << 26) {
		size_t k = n - off < ((size_t)1 << 26) ? n - off
						       : (size_t)1 << 26;
		if (MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)k,
				  MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) !=
		    MPI_SUCCESS) {
			rt_error(e, "MPI_Allreduce failed");
			return false;
		}
	}
	return true;
#else
	(void)buf; (void)n; (void)e;
	return false;
#endif
}
