/*
 * tir.h — TIR: the prim_funcs of a module (TVM's tir.PrimFunc), with an IR
 * of their own, kept apart from the Relax functions (Module.prims) in the
 * module's arena. Included by ir.h; a section per file as there.
 *
 * A prim_func has parameters (scalar vars and buffers), a body statement,
 * attributes (T.func_attr) and an implicit root block (its allocations,
 * printed after `# with T.sblock("root"):`). Expressions are typed scalars
 * (every DType rlx knows, plus handles); PExpr stays the int64 language of
 * Relax dimensions. Nodes are immutable once built, every one keeps its
 * source Span (line 0 when made up).
 */
#ifndef RLX_TIR_H
#define RLX_TIR_H

typedef struct TVar TVar;
typedef struct TBuf TBuf;
typedef struct TExpr TExpr;
typedef struct TStmt TStmt;
typedef struct PrimFunc PrimFunc;

/* A TIR type: a DType, or a handle (a pointer: a buffer's data). */
enum { TT_HANDLE = DT_COUNT };
typedef int TType;

/* A scalar variable: a parameter, a loop or block iteration variable, a
 * let, a symbolic shape variable (n = T.int64()). */
struct TVar {
	const char *name;
	int id; /* unique in the module (Module.next_id) */
	TType ty;
	Span span;
};

/* A buffer: T.Buffer parameter, T.match_buffer, T.sblock_alloc_buffer. */
struct TBuf {
	const char *name;
	int id;
	Span span;
	DType dtype;
	int ndim;
	TExpr **shape;
	TExpr **strides;    /* nstrides: 0 (compact) or ndim */
	int nstrides;
	TExpr *elem_offset; /* NULL: 0 */
	const char *scope;  /* NULL: "global" */
	int offset_factor;  /* 0: not given */
	int align;          /* 0: not given */
	const char *buffer_type; /* NULL: "default" */
	TVar *data;         /* the data pointer (a handle var), when named */
};

/* ORDER: tir.c's texpr_ops table follows this enum. */
typedef enum {
	TE_INT,    /* ty, i: integer or bool literal */
	TE_FLOAT,  /* ty, f */
	TE_STR,    /* s: a string argument of an intrinsic (T.call_packed) */
	TE_VAR,    /* var */
	TE_LOAD,   /* buf[idx...] */
	TE_ADD, TE_SUB, TE_MUL, TE_DIV, TE_FLOORDIV, TE_FLOORMOD,
	TE_TRUNCDIV, TE_TRUNCMOD, TE_MIN, TE_MAX,
	TE_EQ, TE_NE, TE_LT, TE_LE, TE_GT, TE_GE,
	TE_AND, TE_OR,
	TE_NOT,    /* a */
	TE_NEG,    /* a */
	TE_CAST,   /* ty, a */
	TE_SELECT, /* c ? a : b (T.Select, both sides evaluated) */
	TE_CALL,   /* s (the intrinsic, "exp", "if_then_else", ...), args */
} TExprKind;

#define TE_IS_BIN(k) ((k) >= TE_ADD && (k) <= TE_OR)
#define TE_IS_CMP(k) ((k) >= TE_EQ && (k) <= TE_GE)

struct TExpr {
	TExprKind kind;
	TType ty;
	Span span;
	int64_t i;
	double f;
	const char *s;
	TVar *var;
	TBuf *buf;
	TExpr *a, *b, *c;
	TExpr **args; /* LOAD: indices, CALL: arguments */
	int n;
};

/* A range of a block's read/write region: min, extent (extent NULL: a
 * single index, printed A[i] rather than A[i:i + 1]). */
typedef struct {
	TExpr *min, *extent;
} TRange;

typedef struct {
	TBuf *buf;
	TRange *ranges;
	int n;
	Span span;
} TRegion;

/* ORDER: tir.c's iter kind names follow this enum. */
typedef enum { TI_SPATIAL, TI_REDUCE, TI_SCAN, TI_OPAQUE } TIterKind;

typedef struct {
	TVar *var;
	TIterKind kind;
	TExpr *min, *extent; /* the domain (min is 0 unless given a range) */
	TExpr *value;        /* the binding (the realize's iter value) */
	Span span;
} TIter;

/* An annotation (T.sblock_attr, a for's annotations=): key and value as
 * canonical Python text. */
typedef struct {
	const char *key;
	const char *text;
} TAnn;

/* ORDER: tir.c's for kind names follow this enum. */
typedef enum {
	TF_SERIAL, TF_PARALLEL, TF_VECTORIZED, TF_UNROLL, TF_THREAD
} TForKind;

typedef enum {
	TS_SEQ,    /* body[n] */
	TS_FOR,    /* for var in kind(min, min + extent) */
	TS_BLOCK,  /* with T.sblock(name): a block realize */
	TS_STORE,  /* buf[idx] = value */
	TS_LET,    /* var: T.let[ty] = value; body (the rest of the block) */
	TS_IF,     /* if cond: then_ else: else_ (else_ NULL) */
	TS_EVAL,   /* T.evaluate(value) (a call standing alone) */
	TS_ATTR,   /* with T.attr(node, key, value): body */
	TS_ALLOC,  /* buf = T.alloc_buffer(...) outside a block: body the rest */
	TS_ASSERT, /* assert cond, message: body the rest */
} TStmtKind;

struct TStmt {
	TStmtKind kind;
	Span span;
	TStmt **body; /* SEQ: n statements */
	int n;
	TStmt *inner; /* FOR, BLOCK, LET, ATTR, ALLOC, ASSERT: the body; IF:
		       * then */
	TStmt *else_; /* IF */
	/* FOR */
	TVar *var;    /* FOR, LET */
	TExpr *min, *extent;
	TForKind for_kind;
	const char *thread; /* TF_THREAD: "threadIdx.x" */
	/* BLOCK */
	const char *name;
	TIter *iters;
	int niters;
	TExpr *pred;  /* T.where: NULL when always true */
	TRegion *reads, *writes;
	int nreads, nwrites;
	bool reads_given, writes_given; /* written in the source */
	TStmt *init;
	TBuf **allocs; /* BLOCK: T.sblock_alloc_buffer; ALLOC: the one */
	int nallocs;
	TAnn *anns;  /* BLOCK: T.sblock_attr; FOR: annotations= */
	int nanns;
	/* STORE, LET, IF, EVAL, ATTR, ASSERT */
	TBuf *buf;
	TExpr **idx;
	int nidx;
	TExpr *value; /* STORE, LET, EVAL, ATTR's value, ASSERT's message */
	TExpr *cond;  /* IF, ASSERT; ATTR's node */
	const char *key; /* ATTR */
};

/* A parameter: a scalar var or a buffer (buf set; var its handle). */
typedef struct {
	TVar *var;
	TBuf *buf;
	bool handle; /* written A: T.handle + A = T.match_buffer(...) */
} TParam;

struct PrimFunc {
	const char *name;
	Span span;
	TParam *params;
	int nparams;
	TVar **symvars;   /* n = T.int64() declared in the body, in order */
	int nsymvars;
	TBuf **root_allocs; /* the implicit root block's allocations */
	int nroot_allocs;
	bool root;        /* the body is inside a root block (it has blocks) */
	TStmt *body;
	FuncAttr *attrs;  /* T.func_attr, in the order written */
	int nattrs;
	bool is_private;
	bool s_tir;       /* @T.prim_func(s_tir=True) (TVM main's spelling) */
	TType ret;        /* -> T.int32 ...; DT_UNKNOWN: none */
};

/* ------------------------------------------------------------------- tir.c */

TVar *tir_var(Module *m, const char *name, TType ty, Span sp);
TExpr *tir_expr(Module *m, TExprKind k, TType ty, Span sp);
TExpr *tir_int(Module *m, TType ty, int64_t v, Span sp);
TStmt *tir_stmt(Module *m, TStmtKind k, Span sp);
/* "float32", "handle"; tir_type_parse also reads "handle". */
const char *tir_type_name(TType t);
bool tir_type_parse(const char *s, TType *out);
/* The binary op of kind k as TVM's intrinsic name ("T.max") or Python
 * operator ("+"), and whether it prints as an operator. */
const char *tir_op_text(TExprKind k, bool *infix);
/* The prim_func of m called name, NULL if none. */
PrimFunc *tir_find(const Module *m, const char *name);

/* The prim_func a Relax value calls (R.call_tir and its kin,
 * R.vm.call_tir_dyn, or cls.f(...) directly), how in *how ("call_tir",
 * "call"); NULL when it calls none. */
const PrimFunc *tir_called(const Module *m, const Expr *e, const char **how);

/* As TVM's IsPureFunction (the purity of a PrimFunc's struct info): no
 * store into a buffer it does not allocate, no intrinsic with an effect.
 * A pure prim_func may be called directly from a pure Relax function. */
bool tir_func_pure(const PrimFunc *f);

/* Intrinsics called by name, T.NAME(args) (TE_CALL). The result's type: */
typedef enum {
	TR_SAME,   /* the first argument's */
	TR_FLOAT,  /* the first argument's, which must be a float */
	TR_BOOL,
	TR_ARG1,   /* the second's (if_then_else: the third's too) */
	TR_DTYPE,  /* the first argument is the dtype (call_extern) */
	TR_OPAQUE, /* dtype= keyword (printed when not int32), else int32 */
} TRetRule;

typedef struct {
	const char *name;
	int nargs; /* -1: any */
	TRetRule rule;
} TIntrinsic;

const TIntrinsic *tir_intrinsic(const char *name); /* NULL: unknown */
const TIntrinsic *tir_intrinsic_at(int i);         /* NULL past the end */
/* Structural equality of two expressions, the same vars and buffers. */
bool tir_expr_same(const TExpr *a, const TExpr *b);

/*
 * The one walk of TIR: calls fn on each expression slot of s (before its
 * statements' children), ex on each statement, recursing into bodies.
 * A NULL callback is skipped.
 */
typedef struct {
	void (*stmt)(TStmt *s, void *ctx);
	void (*expr)(TExpr *e, void *ctx);
	void *ctx;
} TWalk;
void tir_walk_stmt(TStmt *s, const TWalk *w);
void tir_walk_expr(TExpr *e, const TWalk *w);

/* ----------------------------------------------------------- tir_access.c */

/* Fills T.reads / T.writes of every block of f whose source omits them, as
 * TVM's parser infers them (its BlockReadWriteDetector). */
void tir_detect_access(Module *m, PrimFunc *f);

/* ----------------------------------------------------------- tir_bounds.c */

/* Proves buffer accesses in range (see tir_bounds.c): the lowering
 * registers each variable as it binds it, in scopes, and asks. */
typedef struct TirBounds TirBounds;
typedef struct {
	int nv, nf;
} TirBoundsMark;
TirBounds *tir_bounds_new(void);
void tir_bounds_free(TirBounds *tb);
TirBoundsMark tir_bounds_mark(const TirBounds *tb);
void tir_bounds_pop(TirBounds *tb, TirBoundsMark m);
/* v is a buffer dim (>= 0) / a scalar of any value / let or iteration
 * variable with this value / a constant / nothing known / a loop over
 * [min, min + extent) */
void tir_bounds_dim(TirBounds *tb, const TVar *v);
void tir_bounds_sym(TirBounds *tb, const TVar *v);
void tir_bounds_let(TirBounds *tb, const TVar *v, const TExpr *value);
void tir_bounds_point(TirBounds *tb, const TVar *v, int64_t c);
void tir_bounds_unknown(TirBounds *tb, const TVar *v);
void tir_bounds_loop(TirBounds *tb, const TVar *v, const TExpr *min,
		     const TExpr *extent);
/* Condition c has the value `holds` (an else branch: false) from now
 * until the scope is popped. */
void tir_bounds_assume(TirBounds *tb, const TExpr *c, bool holds);
/* Is 0 <= idx < dim proven? */
bool tir_bounds_inside(const TirBounds *tb, const TExpr *idx, const TExpr *dim);

/* ------------------------------------------------------------ print_tir.c */

typedef enum { TIR_MAIN, TIR_RELEASE } TirSpelling;

/* One prim_func, at indent `ind` (4 inside a class), in TVMScript. */
void print_prim_func(StrBuf *b, const PrimFunc *f, int ind, TirSpelling sp);
void print_texpr(StrBuf *b, const TExpr *e);

/* ----------------------------------------------------------- verify_tir.c */

/* TIR well-formedness of every prim_func: located errors; returns count. */
int verify_tir(Module *m, Diags *d);

#endif
