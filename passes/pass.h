/*
 * pass.h — module passes and the pipeline.
 *
 * A pass rewrites a module in place (new nodes in the module's arena) and
 * returns the number of errors it reported. The pipeline is a table of
 * {name, fn}; the names drive `rlx dump --passes`, `--print-after-all` and
 * diagnostics. Each pass lives in its own file that opens with a comment
 * saying what it rewrites.
 */
#ifndef RLX_PASS_H
#define RLX_PASS_H

#include "ir.h"

/* A value bound by bind-params: `NAME=VALUE` from `rlx lift --bind`. */
typedef struct {
	const char *name;  /* a parameter or a symbolic variable */
	const char *value; /* "3", "0.5", "@file.npy" */
	/* For "@file.npy": the array, read by the caller (the pass knows no
	 * files). data is C-order element bytes, as Expr.cdata. */
	const void *data;
	DType dtype;
	int ndim;
	const int64_t *shape;
} PassBinding;

/* Each pass that takes options declares them; the others take none. */

/* lift-transform-params (lift_transform_params.c) */
typedef struct {
	bool shared;               /* one transform_params for all functions */
	const char **shared_funcs; /* NULL: every function with num_input */
	int nshared_funcs;
	/* The worker's rank is known to the transform (`rlx transform
	 * --tensor-parallel N` runs it once per worker): the
	 * runtime.disco.worker_id call counts as a weight, and the symbolic
	 * variables a match_cast binds from it as defined by one, so what
	 * depends only on weights and the rank is lifted. */
	bool rank_known;
	/* TVM's relax.lift_transform_params.consume_params: each
	 * *transform_params function releases a weight after reading it,
	 * `_ = R.call_pure_packed("vm.builtin.tuple_reset_item", params,
	 * R.prim_value(T.int32(i)), ty_args=(R.Tuple,))` after the first
	 * `w = params[i]`; a later read of params[i] is bound to w. */
	bool consume_params;
} PassLiftOptions;

/* bind-params (bind_params.c) */
typedef struct {
	const PassBinding *binds;
	int nbinds;
} PassBindOptions;

/* What a pipeline is run with: each pass's options, filled by the caller
 * (the CLI, the engines), and the pipeline's own. */
typedef struct {
	PassLiftOptions lift;
	PassBindOptions bind;
	/* the verifier runs after every pass (always on in test builds) */
	bool verify_each;
} PassOptions;

/* A row of the pass table: fn hands the pass its own options. */
typedef int (*PassFn)(Module *m, const PassOptions *o, Diags *d);

typedef struct {
	const char *name; /* kebab-case: "convert-ssa" */
	PassFn fn;
	const char *doc;  /* one line for --help */
} Pass;

/* pipeline.c */
const Pass *pass_lookup(const char *name);
/* The pass name closest to a misspelt one, or NULL. */
const char *pass_suggest(const char *name);
const Pass *pass_table(int *n);
/*
 * Runs the passes in order. After each pass the module is verified; a pass
 * that breaks an invariant is named in the error. `after` (may be NULL) is
 * called after each pass, for --print-after-all. Returns the error count.
 */
int pass_run(Module *m, const Pass *const *passes, int n, const PassOptions *o,
	     Diags *d, void (*after)(const Pass *p, const Module *m, void *ctx),
	     void *ctx);

/* Runs the passes named in `names`, comma-separated ("lift": the lift
 * pipeline without bind-params), as pass_run; an unknown name is an error
 * (with the closest known one) and nothing runs. rlx_run_passes and
 * rlx_run_passes_with (runtime/engine/func.c) are this. */
int pass_run_names(Module *m, const char *names, const PassOptions *o,
		   Diags *d,
		   void (*after)(const Pass *p, const Module *m, void *ctx),
		   void *ctx);

/* lift_transform_params.c: true for the names lifting gives transforms
 * (`F_transform_params`, `transform_params`); such functions are not lifted. */
bool pass_is_transform(const Func *f);

/* lift_transform_params.c: which vars of f (indexed by Var.id, m->next_id
 * entries) are weights or bindings that lifting would move; false when f
 * has no num_input. For `rlx dump --format dot`. */
bool lift_plan(Module *m, Func *f, bool *lifted);

/* graph.c: the dataflow graph of each function, in Graphviz dot. */
void graph_dot(StrBuf *b, Module *m);

/*
 * The pipeline of `rlx lift`: convert-ssa, [bind-params],
 * lift-transform-params (which canonicalizes what it rewrites, as TVM's).
 * With tidy (`rlx lift --tidy`, and `rlx transform`), rlx's clean-ups
 * around it: canonicalize-bindings and dead-code-elimination before (a
 * weight read twice through trivial bindings is passed once, one read only
 * by dead code is not passed) and dead-code-elimination after. Fills out
 * (at least 6 entries); returns the count.
 */
int pass_lift_pipeline(const Pass **out, bool with_bind, bool tidy);

/* canonicalize_bindings.c: the pass on some functions of m only. */
int pass_canonicalize_funcs(Module *m, Func **fs, int n, Diags *d);
/* dce.c: dead bindings of one function (no function is removed). */
void pass_dce_func(Module *m, Func *f);

/* unbundle_params.c: TVM's transform calling convention (one tuple of the
 * weights) as named parameters, for binding a checkpoint by name.
 * pass_is_bundled: t takes one tuple parameter. pass_weight_names fills the
 * NULL entries of names (one per field) with the names the module gives
 * the weights; entries it cannot name stay NULL. pass_unbundle_params
 * rewrites t to take one parameter per field, names[i] (NULL: params_i). */
bool pass_is_bundled(const Func *t);
void pass_weight_names(const Module *m, const Func *t, const char **names);
void pass_unbundle_params(Module *m, Func *t, const char **names, Diags *d);

/* The passes, one per file, each with its own options (if any). */
int pass_convert_ssa(Module *m, Diags *d);
int pass_canonicalize_bindings(Module *m, Diags *d);
int pass_lift_transform_params(Module *m, const PassLiftOptions *o, Diags *d);
int pass_bind_params(Module *m, const PassBindOptions *o, Diags *d);
int pass_dead_code_elimination(Module *m, Diags *d);

#endif
