/*
 * build.h — what the three files of the builder share (grammar/, internal):
 * the builder's state and the functions one file calls in another, each
 * bld_NAME. build.c: names and scopes, blocks, statements, functions and
 * build_module; build_sinfo.c: dimensions and struct-info annotations;
 * build_value.c: values, op calls matched against the op table, and
 * normalization to A-normal form.
 */
#ifndef RLX_BUILD_H
#define RLX_BUILD_H

#include "syntax.h"

/* A name in scope. */
typedef struct {
	const char *name;
	Var *var;
	bool dead; /* a DataflowVar of a dataflow block that has ended */
	int index; /* in the scope */
} Entry;

/* The blocks of the E_SEQ being built and its open block. */
typedef struct {
	Vec blocks;
	Vec cur; /* Binding* of the open block */
	bool df; /* the open block is a dataflow block */
	Span span;
} SeqB;

typedef enum { W_FUNC, W_DF, W_BRANCH } Where;

/*
 * A hash index over the names of a Vec used as a stack (the scope, the used
 * names), so that a function of n bindings is built in O(n), not O(n^2).
 * Each bucket chains its items newest first; popping items unlinks them.
 */
typedef struct {
	int *head; /* per bucket: 1 + index of the newest item, 0 none */
	int *prev; /* per item: 1 + index of the previous item of its bucket */
	int nb;    /* buckets, a power of two */
	int cap;   /* entries of prev */
	int n;     /* items indexed */
} NameIdx;

typedef const char *(*NameOf)(const void *item);

/* `C = I.meta_var(T.int64(16))`: in a dimension, C is 16. */
typedef struct {
	const char *name;
	int64_t value;
} DimConst;

typedef struct {
	PState *ps;
	Module *m;
	Diags *d;
	Vec funcs;     /* const char *: the names of the module's functions */
	NameIdx funcs_ix;
	/* per function */
	Func *f;
	Vec scope;     /* Entry* */
	NameIdx scope_ix;
	Vec symvars;   /* SymVar* */
	NameIdx symvars_ix;
	Vec dimconsts; /* DimConst*: names bound to a constant dimension */
	Vec used;      /* const char *: names the function uses */
	NameIdx used_ix;
	Vec attrs;     /* FuncAttr* */
	int lv_next, gv_next;
	int df_mark;   /* scope index where the dataflow block began */
	bool stray_return; /* a misplaced return was reported */
	SeqB *sb;
} B;

/* build.c */
Expr *bld_bind_fresh(B *b, Expr *e, const char *prefix, int *next);
const char *bld_callee_name(B *b, const Syn *x);
SymVar *bld_define_symvar(B *b, const char *name, Span sp);
Entry *bld_find_entry(B *b, const char *name);
SymVar *bld_find_symvar(B *b, const char *name);
const DimConst *bld_find_dimconst(B *b, const char *name);
void *bld_idx_find(const NameIdx *ix, const Vec *v, const char *name, NameOf nameof);
void bld_idx_truncate(NameIdx *ix, Vec *v, int n, NameOf name);
bool bld_int_item(const Syn *x, int64_t *out);
bool bld_int_lit(const Syn *x, int64_t *out);
bool bld_is_named(const Syn *x, const char *name);
Var *bld_lookup(B *b, const Syn *x);
bool bld_match_args(B *b, const Syn *call, const char *fname, const char *const *names,
	   int n, Syn **out);
bool bld_num_lit(const Syn *x, double *out, bool *is_float);
const char *bld_str_name(const void *item);
const char *bld_suggest_dtype(const char *s);
const char *bld_suggest_op(B *b, const char *r);
const char *bld_symvar_name(const void *item);
bool bld_syn_text(StrBuf *out, const Syn *x);

/* build_sinfo.c */
PExpr *bld_conv_dim(B *b, Syn *x, bool define);
PExpr *bld_conv_size(B *b, Syn *x, bool define); /* not a comparison */
PExpr **bld_conv_dims(B *b, Syn *x, bool define, int *n, bool *ok);
bool bld_conv_dtype(B *b, Syn *x, DType *out);
SInfo *bld_conv_sinfo(B *b, Syn *x, bool define);

/* build_tir.c: a @T.prim_func; NULL after errors */
PrimFunc *bld_prim_func(B *b, Stm *s);

/* build_value.c */
Expr *bld_conv_leaf(B *b, Syn *x);
Expr *bld_conv_prim(B *b, Syn *x);
Expr *bld_conv_value(B *b, Syn *x);
Syn *bld_one_arg(B *b, Syn *x, const char *fname);

#endif
