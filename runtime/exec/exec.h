/*
 * exec.h — the executor's plan, shared by its two halves: exec_plan.c
 * (rt_compile: steps, slots, fusion, liveness, streaming; --print-plan)
 * and exec.c (values, frames, checks, running). Internal to runtime/.
 */
#ifndef RLX_EXEC_H
#define RLX_EXEC_H

#include "codegen.h"
#include "rt_exec.h"

enum {
	MAX_BUFS = 64,    /* buffers of one kernel call (as codegen's MAXBUF) */
	MAX_DEPTH = 100,  /* nested function calls */
	FUSE_LEAVES = 16, /* tensor operands of one fused kernel at most */
	WHO_LEN = 160,    /* "parameter 'x'" descriptions */
};

typedef struct SeqPlan SeqPlan;
typedef struct FnPlan FnPlan;

/* Slots released at each position of a sequence, in CSR form: position p
 * (0 before the first binding, i + 1 after binding i, n + 1 after the
 * result) releases slots[off[p] .. off[p + 1]). */
typedef struct {
	int *off;
	int *slots;
} Rel;

/* One binding, planned. */
typedef struct {
	Binding *b;
	Expr *x;                /* what runs: b->value; NULL when fused into
				 * a later step's kernel */
	const CgFusion *fu;     /* a kernel computing producers too: the
				 * calls it computes (codegen.h); NULL when
				 * it computes x alone */
	const Expr **ins;       /* fu: the arguments giving the kernel's */
	int nins;               /* input buffers, in order */
	int slot;               /* of b->var */
	CgKernel *k;            /* op calls with a kernel */
	const PrimFunc *prim;   /* call_tir: the prim_func k runs */
	bool direct;            /* prim: called directly (cls.f(args), as
				 * lowered code does, or R.vm.call_tir_dyn):
				 * it writes into the tensors it is given */
	const bool *stores;     /* direct: per parameter of prim, whether
				 * its body stores into that buffer */
	unsigned donate;        /* call_tir_inplace: bit k when in-place
				 * output k's input is a var whose last use
				 * this is (its tensor may be written, not
				 * copied, when nothing else holds it) */
	bool zero_out;          /* call_tir: outputs start zeroed (the
				 * prim_func has a T.init, which an empty
				 * reduction never runs) */
	SeqPlan *then_, *else_; /* E_IF */
	FnPlan *callee;         /* E_CALL_FN */
	int *emit;              /* streaming: result fields this var gives */
	int nemit;
	const Binding *into;    /* fused: the binding whose kernel computes
				 * it (--print-plan) */
} Step;

struct SeqPlan {
	int id;
	Expr *seq;
	Step *steps;
	int n;
	Rel rel;  /* liveness */
	Rel srel; /* streaming liveness (top sequence only): the result
		   * tuple's uses do not count, its fields are emitted */
};

struct FnPlan {
	Func *f;
	SeqPlan *top;
	int nslots, nsyms;
	int *sym_param;   /* the parameter whose annotation binds each sym */
	/* streaming: the result tuple literal, when there is one */
	Expr **fields;
	int nfields;
	int skip_step;    /* the step binding the tuple, -1 when none */
	int **param_fields; /* per parameter: fields it gives, -1 ended */
	bool *param_used; /* per parameter: used outside the result tuple */
	int *end_fields;  /* fields that are not vars: emitted at the end */
	int nend;
	bool tuple_mode;
	int *uses;        /* while planning: uses of each var id in f */
	bool mutates;     /* a step writes into tensors it is given (a
			   * direct prim_func call): no fusion, and result
			   * fields are emitted at the end, not when bound */
};

/* Expr* → its constant value, open addressing. */
typedef struct {
	const Expr *key;
	RtValue *val;
} ConstEntry;

struct RtProgram {
	Module *m;
	Jit *jit;
	Codegen *cg;
	int *idx;        /* Var.id and SymVar.id → slot in their function */
	int nidx;
	FnPlan **plans;
	int nplans;
	FnPlan *main;
	Vec allocs;      /* every malloc'ed piece of the plans */
	ConstEntry *consts;
	int nconsts, cconsts;
	int nseqs;
	RtBufPool *pool;    /* large outputs, reused once freed */
	RtComm *comm;    /* the workers (NULL: worker 0 of 1); not owned */
	bool no_index_check; /* rt_program_set_index_check(p, false) */
};

/* The slot of a Var or SymVar id, -1 when it has none. */
int exec_slot_of(const RtProgram *p, int id);
/* strided_slice whose begin or strides are symbolic (r * 64, the worker's
 * slice): run by the executor, which knows the values; the kernels take
 * constant bounds. */
bool exec_is_dyn_slice(const Expr *e);
/* Calls fn on every var step st reads: its call's arguments, or, for a
 * fused kernel, the arguments of every call it computes that no producer
 * computes. */
void exec_step_uses(const Step *st, void (*fn)(Var *v, void *ctx), void *ctx);

/* The memory ops of lowered code the executor runs itself (alloc_storage,
 * alloc_tensor, view, the kills): no kernel. */
bool exec_is_memory_op(OpKind op);
/* The input that output k of call e is written into: call_tir_inplace's
 * inplace_indices (one index: every output's); -1 for a new output. */
int64_t exec_inplace_input(const Expr *e, int k);
/* R.call_pure_packed("vm.builtin.tuple_reset_item", params, i), which
 * TVM's consume_params lift writes after a weight's first read to free it:
 * nothing to do here (a value is freed after its last use), and no use of
 * params. */
bool exec_is_noop_packed(const Expr *e);
/* exec_tir.c: one argument of a prim_func call, the role it plays in
 * messages ("input 0", "output 1", "tir_vars[0]"). */
typedef struct {
	bool tensor, scalar;
	DType dt;
	int ndim;
	const int64_t *shape;
	bool isf;  /* a scalar's value: f when isf, else i */
	int64_t i;
	double f;
	const char *role;
} TirArg;
/* Checks args[0..n) against f's parameters as TVM's packed-function
 * wrapper (scalars bind their variables; buffers: rank, dtype, dims, a
 * symbolic variable bound at its first bare occurrence and checked at the
 * others, then the dims that are expressions); fills dims[0..*ndims) for
 * cg_tir_kernel's kernel. false with a message naming f, the parameter
 * and both shapes. */
bool exec_tir_check(const PrimFunc *f, const TirArg *args, int n, int64_t *dims,
		    int maxdims, int *ndims, char *msg, size_t msz);
/* The shape of f's buffer parameter p computed from the variables the
 * first nin arguments bind (an output whose annotation has no shape). */
bool exec_tir_out_shape(const PrimFunc *f, const TirArg *args, int nin, int p,
			int64_t *shape);

#endif
