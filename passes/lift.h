/*
 * lift.h — what the two halves of lift-transform-params share, internal to
 * passes/: the per-function analysis and rewrite
 * (lift_transform_params.c) and the transform shared by several functions
 * with --shared (lift_shared.c).
 */
#ifndef RLX_LIFT_H
#define RLX_LIFT_H

#include "pass.h"

enum { K_NONE, K_INPUT, K_WEIGHT, K_LIFT, K_RUNTIME };

/* What lifting knows of one variable (per Var.id). */
typedef struct {
	unsigned char kind; /* K_* */
	bool param_dep;     /* a weight, or computed from one */
	bool rt;            /* required at run time */
	bool rt_use;        /* read at run time */
	Var *alias;         /* the var a runtime `y = x` or `y = t[i]` (t a
			     * tuple literal) stands for */
	Expr *tuple_of;     /* its value when a tuple literal */
} LiftVar;

typedef struct {
	Module *m;
	Func *f;
	int ninput;
	int nids;            /* table size: m->next_id when the function started */
	LiftVar *v;          /* per Var.id */
	/* sets of symbolic variables (per SymVar.id), as mark_defined and
	 * erase_undefined take them */
	bool *sv_defined;    /* defined by a weight annotation */
	bool *sv_rt;         /* required at run time */
	const bool *allow;   /* per Var.id: may be computable (NULL: all) */
	bool rank_known;     /* PassLiftOptions.rank_known */
	Vec rank_vars;       /* with rank_known: the vars bound to the rank */
	Vec rank_syms;       /* ... and the symbolic variables cast from them */
} Lift;

/*
 * The transform of l->f (TVM's MakeCompileTimeFunction): parameter
 * `params`, a tuple of f's weights; one dataflow block with the computable
 * bindings (copied) and `w = params[i]` before each use of a weight; the
 * result (shape of `extra` when non-empty, outs...). Canonicalized, its dead
 * bindings removed. `given` (NULL: none) maps a var of f, by id, to a var
 * that already computes it (another function's, in the union): its binding
 * is not copied and its uses read that var; the copies made are recorded in
 * it.
 */
Func *build_transform(Lift *l, const char *name, const Vec *outs,
		      const Vec *extra, Var **given, Diags *d);
/* Classifies the parameters and top-level bindings of l->f and what the
 * run time needs; returns the number of computable bindings that depend on
 * a weight. */
int classify_func(Lift *l);
/* canonicalize-bindings, then (transforms) dead-code elimination, on fs. */
int clean(Module *m, Func **fs, int n, bool dce, Diags *d);
Var *copy_var(Module *m, const Var *v, bool dataflow);
/*
 * The symbolic variables passed in `symbolic_vars`: defined by a parameter's
 * annotation, needed at run time, defined neither by a runtime input nor by
 * the struct info of an output (TVM's GetPropagatedSymbolicVariables).
 */
void lift_extra(const Lift *l, const Vec *outs, Vec *extra);
void lift_free(Lift *l);
/* Sets up l for f (tables sized by the module's ids now); false when f has
 * no usable num_input. */
bool lift_init(Lift *l, Module *m, Func *f);
/*
 * F keeps the symbolic variables it mentions: first those of its
 * parameters, in their order of appearance (the order in which the printed
 * text defines them, so that printing is a fixed point), then the others in
 * their old order, then `more` (new ones, e.g. a composed function's).
 */
void order_symvars(Module *m, Func *f, SymVar **more, int nmore);
/*
 * The runtime part of l->f (TVM's MakeRuntimeFunction): parameters are the
 * runtime inputs, `shape` (may be NULL), then `outp` (one per transform
 * output); the computable bindings that depend on a weight go,
 * `y = R.builtin.stop_lift_params(x)` becomes `y = x`, and a first dataflow
 * block binds each of f's variables bindv[i] to parameter outp[bindp[i]].
 * The caller canonicalizes f.
 */
void rewrite_runtime(Lift *l, Var *shape, Var **outp, int nout, Var **bindv, const int *bindp, int nbind);
Expr *seq_of(Module *m, Block **blocks, int nblocks, Expr *body, Span sp);
/* lift_shared.c: lifts fs[0..n) with one transform_params (--shared);
 * the error count. */
int lift_shared(Module *m, Func **fs, int n, bool rank_known, Diags *d);

#endif
