/*
 * ir.h — the one internal header of rlx, in the manner of QBE's all.h.
 *
 * A section per file. Everything a stage exports is declared here with the
 * prefix of the file that owns it; everything else in that file is static.
 *
 * Memory: every IR node of a module lives in the module's arena and is never
 * freed one by one; rlx_module_free() drops the arena. Strings in the IR are
 * arena copies. Library code never exits: user errors go to a Diags and are
 * counted; broken invariants abort through ir_bug() with file and line.
 */
#ifndef RLX_IR_H
#define RLX_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rlx.h"

typedef struct Arena Arena;
typedef struct StrBuf StrBuf;
typedef struct Source Source;
typedef struct Span Span;
typedef struct rlx_diags Diags;
typedef struct SymVar SymVar;
typedef struct PExpr PExpr;
typedef struct SInfo SInfo;
typedef struct Var Var;
typedef struct Expr Expr;
typedef struct Assume Assume;
typedef struct AttrVal AttrVal;
typedef struct Binding Binding;
typedef struct Block Block;
typedef struct Func Func;
typedef struct rlx_module Module;

#define ir_bug(...) ir_bug_at(__FILE__, __LINE__, __VA_ARGS__)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ util.c */

/* Bump allocator. Chunks are malloc'ed and freed together by arena_free. */
struct Arena {
	struct ArenaChunk *head;
	size_t used, cap; /* of the head chunk */
};

void *arena_alloc(Arena *a, size_t n);            /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
void *arena_memdup(Arena *a, const void *p, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* The checked heap allocator of the compiler and the passes, for what does
 * not live in an arena (a pass's tables, worklists): running out of memory
 * is ir_bug, so a caller never checks. xcalloc(0, size) is one zeroed
 * element, never NULL; n * size is checked for overflow. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n); /* at most n bytes of s */

/* Growing byte buffer (malloc-backed) used by the printer and diagnostics. */
struct StrBuf {
	char *p;
	size_t len, cap;
};

void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
char *sb_take(StrBuf *b); /* returns the malloc'ed NUL-terminated string */
void sb_free(StrBuf *b);
/*
 * Text made safe for a terminal: control bytes (below 0x20 but tab, 0x7f,
 * and the C1 controls U+0080..U+009F) become \xNN; everything else is
 * kept. For messages that quote names from files (a tensor named with an
 * ESC sequence must not reach the terminal raw). n bytes of s; the width
 * on screen of byte s[i] is text_escape_width(s[i]) columns.
 */
void sb_put_escaped(StrBuf *b, const char *s, size_t n);
/* Escapes the string src into dst (cap bytes, always terminated). */
void text_escape(char *dst, size_t cap, const char *src);
/* v as Python's repr writes a float: the fewest significant digits that
 * read back as v (as a float32 when single), positional from 1e-4 to
 * 1e16 and with an exponent outside, always with a `.` or an exponent;
 * inf and nan as float("inf"), float("nan"). What TVM prints. */
void sb_put_float(StrBuf *b, double v, bool single);
/*
 * Checks that text is a text file in UTF-8 (as Python source is): no NUL
 * byte, no malformed, overlong or surrogate sequence. On failure, *off is
 * the offset of the first bad byte and *why says what is wrong.
 */
bool text_check_utf8(const char *text, size_t len, size_t *off,
		     const char **why);

/*
 * Growing array of pointers (malloc-backed), used while building a node whose
 * arity is not known in advance; vec_to_arena copies it into the arena.
 */
typedef struct {
	void **items;
	int n, cap;
} Vec;

void vec_push(Vec *v, void *p);
void **vec_to_arena(Vec *v, Arena *a); /* copies, then frees v's storage */
void vec_free(Vec *v);

/* Growing array of ints (malloc-backed): ids a pass touched, worklists. */
typedef struct {
	int *items;
	int n, cap;
} IntVec;

void ivec_push(IntVec *v, int x);
void ivec_free(IntVec *v);

/* FNV-1a of a NUL-terminated string. */
size_t str_hash(const char *s);
/* The edit distance of a and b (insert, delete, replace, swap; 99 past 255
 * characters), and whether a misspelling of `want` at that distance is
 * close enough to suggest it ("did you mean"). */
int str_edit_distance(const char *a, const char *b);
bool str_close_enough(const char *want, int dist);
/*
 * The one "did you mean" policy: offer every known name; best is the
 * closest one that is close enough (and not want itself), or NULL.
 *     Suggest s = {.want = typed};
 *     for (...) suggest_offer(&s, names[i]);
 *     if (s.best) ...
 */
typedef struct {
	const char *want;
	const char *best;
	int dist;
} Suggest;
void suggest_offer(Suggest *s, const char *name);

/*
 * A map from strings (kept by pointer, not copied: arena strings) to ints,
 * open addressing at most half full. Names sets with a per-name counter
 * (the next suffix N to try for NAME_N), name -> position indexes.
 */
typedef struct {
	const char **keys;
	int *vals;
	size_t cap, n;
} NameMap;

/* The value of key, NULL when absent; valid until the next add. */
int *namemap_get(const NameMap *m, const char *key);
/* Adds key with value val if absent; the value of key (either way). */
int *namemap_add(NameMap *m, const char *key, int val);
void namemap_free(NameMap *m);

_Noreturn void ir_bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ diag.c */

/* A text the diagnostics can quote lines from. */
struct Source {
	const char *name; /* file name as given by the user, "<stdin>" for - */
	const char *text; /* the whole text (not necessarily NUL-terminated) */
	size_t len;
};

/* A location in a Source: 1-based line and column; line 0 means "made up". */
struct Span {
	int line, col;
	int len; /* characters to underline, at least 1 when printed */
};

typedef enum { DIAG_ERROR, DIAG_NOTE, DIAG_WARNING } DiagLevel;

typedef struct {
	DiagLevel level;
	char *file; /* malloc'ed; NULL when not about a file */
	Span span;
	char *msg;       /* malloc'ed */
	char *line_text; /* the source line, or a window of it, malloc'ed;
			  * NULL if none */
	int text_col;    /* the column of line_text's first byte (1-based) */
	bool cut_left, cut_right; /* the window leaves out part of the line */
} DiagEntry;

/*
 * A collection of diagnostics. `src` is the source that subsequent
 * diag_error() calls refer to; set it before running a stage on a module.
 */
struct rlx_diags {
	const Source *src;
	DiagEntry *items;
	int n, cap;
	int nerrors, nwarnings;
	/* where the last quoted line began, so that finding the next one
	 * resumes there instead of scanning the source from its start */
	const char *memo_text;
	int memo_line;
	size_t memo_off;
	char *program;       /* printed for a diagnostic about no file
			      * (malloc'ed; NULL: "rlx") */
	bool hide_warnings;  /* diag_print leaves warnings out */
};

/* Errors diag_print shows (with their notes) before a count of the rest. */
enum { DIAG_PRINT_LIMIT = 50 };

void diag_error(Diags *d, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_note(Diags *d, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_verror(Diags *d, Span sp, const char *fmt, va_list ap);
/* A diagnostic about a file as a whole (`FILE: error: MSG`; without a file,
 * `PROGRAM: error: MSG`, PROGRAM "rlx" or rlx_diags_set_program's),
 * whatever d->src is: the runtime's channel for checkpoints, caches and
 * outputs. */
void diag_file(Diags *d, DiagLevel level, const char *file,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* FILE:LINE:COL: error: MSG, the source line, a caret line (GCC style). */
void diag_print(const Diags *d, FILE *out);
/* The first n entries, warnings only when `warnings`. */
void diag_print_some(const Diags *d, FILE *out, bool warnings, int n);
/* Frees the entries; d stays usable, empty. */
void diag_clear(Diags *d);

/* ----------------------------------------------------------------- dtype */

/* ORDER: dtype_names in util.c follows this enum. */
typedef enum {
	DT_UNKNOWN, /* "" / "void": not known */
	DT_BOOL,
	DT_I8,
	DT_I16,
	DT_I32,
	DT_I64,
	DT_U8,
	DT_F16,
	DT_BF16,
	DT_F32,
	DT_F64,
	DT_U16,
	DT_U32,
	DT_U64,
	DT_F8E4M3, /* float8_e4m3fn: no infinity, NaN S.1111.111, max 448 */
	DT_F8E5M2, /* float8_e5m2: IEEE-like, max 57344 */
	DT_COUNT
} DType;

const char *dtype_name(DType t);              /* "float32"; "void" for unknown */
bool dtype_parse(const char *s, DType *out);  /* "void" and "" give DT_UNKNOWN */
int dtype_bits(DType t);                      /* bool is 8 (one byte) */
bool dtype_is_float(DType t);
bool dtype_is_int(DType t);                   /* signed or unsigned, not bool */
bool dtype_is_unsigned(DType t);              /* uint8..uint64 and bool */
/* A float stored narrower than float32 and computed as float32 (float16,
 * bfloat16, the float8s). */
bool dtype_is_narrow_float(DType t);
bool dtype_is_float8(DType t);
/* The float8 t (DT_F8E4M3, DT_F8E5M2) nearest to d, as ml_dtypes' astype
 * rounds: to nearest even, once from d; beyond the largest finite value
 * infinity (float8_e4m3fn has none: NaN, 0x7F); NaN stays NaN (0x7F, e5m2
 * 0x7E), the sign kept in every case. */
uint8_t dtype_f8_encode(DType t, double d);
/* The value of float8 bits b of dtype t (exact). */
double dtype_f8_decode(DType t, uint8_t b);

/* ------------------------------------------------------------------ prim.c */

/*
 * Symbolic dimensions (TVM's tir.Var of dtype int64). A SymVar is defined at
 * its first bare occurrence in a parameter annotation or a match_cast, and
 * belongs to one function.
 */
struct SymVar {
	const char *name;
	int id; /* unique in the module; also the canonical sort key */
	Span span;
};

/* ORDER: prim.c's printer precedence table follows this enum. */
typedef enum {
	PE_INT,       /* value */
	PE_VAR,       /* var */
	PE_ADD,       /* a + b */
	PE_SUB,       /* a - b */
	PE_MUL,       /* a * b */
	PE_FLOORDIV,  /* a // b */
	PE_FLOORMOD,  /* a % b */
	PE_MIN,       /* T.min(a, b) */
	PE_MAX,       /* T.max(a, b) */
	PE_EQ,        /* a == b: comparisons are bool (0 or 1), not dims */
	PE_NE,        /* a != b */
	PE_LT,        /* a < b */
	PE_LE,        /* a <= b */
	PE_GT,        /* a > b */
	PE_GE,        /* a >= b */
} PExprKind;

#define PE_IS_CMP(k) ((k) >= PE_EQ && (k) <= PE_GE)

/* An integer expression over symbolic variables. Immutable once built. */
struct PExpr {
	PExprKind kind;
	Span span;
	int64_t value;
	SymVar *var;
	PExpr *a, *b;
};

PExpr *pe_int(Arena *a, int64_t v);
PExpr *pe_var(Arena *a, SymVar *v);
PExpr *pe_bin(Arena *a, PExprKind k, PExpr *x, PExpr *y); /* not simplified */
/*
 * The canonical form: a sum of monomials (coefficient times a product of
 * atoms, atoms being variables and irreducible // and % terms), constants
 * folded, ordered by variable id. Equal expressions have equal canonical forms
 * (2*n == n*2, (n+1)-1 == n). Returns x itself when x is already canonical.
 */
PExpr *pe_simplify(Arena *a, PExpr *x);
bool pe_equal(Arena *a, PExpr *x, PExpr *y);   /* equal after simplification */
bool pe_is_const(PExpr *x, int64_t *out);      /* x canonical and a constant */
bool pe_struct_equal(const PExpr *x, const PExpr *y); /* same tree */
/* Every SymVar in x, in order of first appearance, appended to out (unique). */
void pe_collect_vars(const PExpr *x, Vec *out);
/* x with each var in from[i] replaced by the expression to[i], simplified. */
PExpr *pe_subst(Arena *a, PExpr *x, SymVar **from, PExpr **to, int n);
/* Python syntax: `n * 2 + m`, `n // 4`, `T.max(n, 1)`. */
void pe_print(StrBuf *b, const PExpr *x);

/* --------------------------------------------------------- struct info */

typedef enum {
	SI_OBJECT,
	SI_PRIM,
	SI_SHAPE,
	SI_TENSOR,
	SI_TUPLE,
	SI_FUNC,
} SInfoKind;

/*
 * Struct info (Relax's StructInfo): what is known of a value statically.
 * TENSOR: dtype (DT_UNKNOWN when unknown); ndim (-1 unknown); shape (NULL
 *         unless the dims are known, then ndim entries).
 * SHAPE:  ndim (-1 unknown); values (NULL unless known).
 * PRIM:   dtype; value (NULL unless known).
 * TUPLE:  fields.
 * FUNC:   fields are the parameters, ret the result; pure.
 */
struct SInfo {
	SInfoKind kind;
	Span span;
	DType dtype;
	int ndim;
	PExpr **shape;
	PExpr *value;
	SInfo **fields;
	int nfields;
	SInfo *ret;
	bool pure;
	const char *vdevice; /* TENSOR: "llvm:0:global" (kind:index:scope), or
			      * NULL: TVM's virtual device, kept and printed */
};

/* A vdevice string ("llvm", "cuda:1", "llvm:0:global") in its canonical
 * form kind:index:scope, as TVM prints it; NULL when malformed. */
const char *ir_vdevice_canon(Arena *a, const char *s);
SInfo *si_object(Arena *a);
SInfo *si_prim(Arena *a, DType t, PExpr *value);
SInfo *si_shape(Arena *a, int ndim, PExpr **values);
SInfo *si_tensor(Arena *a, DType t, int ndim, PExpr **shape);
SInfo *si_tuple(Arena *a, SInfo **fields, int n);
SInfo *si_func(Arena *a, SInfo **params, int n, SInfo *ret, bool pure);

/* ------------------------------------------------------------ expressions */

typedef enum {
	AV_NONE,
	AV_INT,
	AV_FLOAT,
	AV_BOOL,
	AV_STR,
	AV_DTYPE,
	AV_INTS,
	AV_DIMS,  /* a list of dimensions, some symbolic (else AV_INTS) */
	AV_SINFO, /* struct info: out_sinfo=, sinfo_args= */
	AV_RAW,   /* another Python value (a dict, T.int64(8)), kept as its
		   * canonical text in s: read, printed, compared as text */
	AV_IMAP,  /* an index map T.index_map(lambda i, j: (j, i)): nin
		   * variables ivars (its own, bound by the lambda), n final
		   * indices dims over them */
} AttrValKind;

/* An attribute value of an op call or of a function (R.func_attr). */
struct AttrVal {
	AttrValKind kind;
	int64_t i;     /* INT, BOOL */
	double f;      /* FLOAT */
	const char *s; /* STR */
	DType dtype;   /* DTYPE */
	int64_t *ints; /* INTS */
	PExpr **dims;  /* DIMS */
	SInfo **sis;   /* SINFO */
	int n;         /* INTS, DIMS, SINFO, IMAP */
	SymVar **ivars; /* IMAP */
	int nin;        /* IMAP */
};

typedef enum {
	OP_NONE = 0,
#define OP(id, name, sig, infer, cls) OP_##id,
#include "ops.def"
#undef OP
	OP_COUNT
} OpKind;

/* ORDER: ir.c's expr_kind_names follows this enum. */
typedef enum {
	E_VAR,       /* var */
	E_CONST,     /* R.const(...): cdata */
	E_TUPLE,     /* (a, b) */
	E_TUPLE_GET, /* t[i] */
	E_SHAPE,     /* R.shape([2, n]) */
	E_PRIM,      /* R.prim_value(...) */
	E_STR,       /* R.str("..."): a string immediate (rare) */
	E_CALL,      /* R.op(args, attrs) */
	E_CALL_FN,   /* cls.f(args) */
	E_IF,        /* if c: ... else: ... (value of a binding) */
	E_SEQ,       /* blocks then a result: function bodies and branches */
	E_EXTERN,    /* R.ExternFunc("name"): a function outside the module (str) */
	E_FUNC,      /* a function defined in a function body (fn) */
	E_CALL_VAR,  /* f(args): a call through a variable (callv) */
	E_GLOBAL,    /* cls.f as a value: the module function named str (TVM's
		      * GlobalVar), its struct info an R.Callable */
} ExprKind;

/*
 * A condition on the dims of an op call that its struct-info rule needed
 * and could not prove at compile time (symbolic dims): the rule records it
 * on the call, the executor evaluates it with the bound symbolic values
 * before the kernel runs and reports a violation at the call, as TVM's
 * legalized code asserts it. `what_a` / `what_b` say where a and b come
 * from ("x's dimension 1", "groups").
 */
typedef enum {
	AS_EQ,  /* a == b */
	AS_DIV, /* a % b == 0 (b > 0) */
	AS_LE,  /* a <= b */
	AS_LT,  /* a < b */
	AS_POS, /* a >= 1 (b unused) */
	AS_BCAST, /* a == b or a == 1 (a broadcasts to b) */
	AS_INDEX, /* every value of argument `arg` (column `col` of its last
		   * dim; -1 every value) lies in [-n, n), n the dimension
		   * `dim` of argument `data` (-1: its size); a and b unused.
		   * A check per index, which rlx run --no-index-check skips */
} AssumeKind;
struct Assume {
	AssumeKind kind;
	PExpr *a, *b;
	const char *what_a, *what_b;
	int arg, col, data, dim; /* AS_INDEX */
};

/* A Relax variable: Var or DataflowVar. Names need not be unique. */
struct Var {
	const char *name;
	int id;        /* unique in the module */
	bool dataflow; /* a DataflowVar: visible only inside its block */
	SInfo *sinfo;  /* annotation if given, else inferred */
	Span span;     /* where it is defined */
};

struct Expr {
	ExprKind kind;
	Span span;
	SInfo *sinfo; /* filled in by inference (infer.c) */
	bool dtype_imm; /* E_STR: R.dtype("float32"), TVM's DataTypeImm */
	union {
		Var *var; /* E_VAR: a use of var */
		struct {  /* E_CONST: a tensor held in host memory, C order */
			DType dtype;
			int ndim;
			int64_t *shape;
			void *data; /* element bytes; for bool one byte each */
		} cdata;
		struct { /* E_TUPLE */
			Expr **items;
			int n;
		} tuple;
		struct { /* E_TUPLE_GET */
			Expr *tuple;
			int index;
		} tget;
		struct { /* E_SHAPE */
			PExpr **values;
			int n;
		} shape;
		struct { /* E_PRIM */
			DType dtype;
			PExpr *value; /* integer values */
			double f;     /* float values, when dtype is a float */
		} prim;
		const char *str; /* E_STR, E_EXTERN, E_GLOBAL */
		struct { /* E_CALL: args and attrs in the op's signature order */
			OpKind op;
			Expr **args;
			int nargs;
			AttrVal *attrs;
			int nattrs;
			/* what the op's rule assumed but could not prove
			 * (infer_ops.c); the executor checks them before
			 * the kernel runs (exec.c) */
			Assume *assume;
			int nassume;
		} call;
		struct { /* E_CALL_FN */
			const char *callee; /* the function's name in the module */
			Expr **args;
			int nargs;
		} callfn;
		Func *fn; /* E_FUNC: its symvars are its enclosing function's */
		struct { /* E_CALL_VAR */
			Expr *fn; /* an E_VAR of function struct info */
			Expr **args;
			int nargs;
		} callv;
		struct { /* E_IF */
			Expr *cond;
			Expr *then_, *else_; /* E_SEQ each */
		} if_;
		struct { /* E_SEQ */
			Block **blocks;
			int nblocks;
			Expr *body;
		} seq;
	};
};

/*
 * `var = value` or, when cast is set, `var = R.match_cast(value, cast)`.
 * `annotated` records whether the text gave `var: SInfo = ...`.
 */
struct Binding {
	Var *var;
	Expr *value;
	SInfo *cast; /* match_cast target, else NULL */
	bool annotated;
	bool bare; /* written as a statement, R.print(x): its value is void */
	Span span;
};

/*
 * A binding block. In a dataflow block, the outputs (R.output) are the
 * bindings whose var is not a DataflowVar.
 */
struct Block {
	bool dataflow;
	Binding **bindings;
	int n;
	Span span;
};

typedef struct {
	const char *key;
	AttrVal val;
} FuncAttr;

struct Func {
	const char *name; /* the global name in the module */
	Var **params;
	int nparams;
	SymVar **symvars; /* every symbolic var defined in this function */
	int nsymvars;
	SInfo *ret;       /* return annotation, or NULL when absent */
	Expr *body;       /* E_SEQ */
	FuncAttr *attrs;  /* R.func_attr, in the order written */
	int nattrs;
	bool is_private;
	bool pure;
	Span span;
};

#include "tir.h"

struct rlx_module {
	Arena arena;
	Source src;       /* the text parsed (owned: arena copies) */
	const char *name; /* the class name ("Module") */
	/* the class's I.module_attrs(...) / I.module_global_infos(...)
	 * statements, as canonical text, in order */
	const char **decls;
	int ndecls;
	Func **funcs;
	int nfuncs;
	PrimFunc **prims; /* the @T.prim_func functions, in source order */
	int nprims;
	bool s_tir;       /* @I.ir_module(s_tir=True) */
	int next_id;      /* for Var.id and SymVar.id */
	struct FuncIndex *fidx; /* ir_find_func's name index (ir.c) */
};

/* -------------------------------------------------------------------- ir.c */

Module *ir_module_new(const char *filename, const char *text, size_t len);
void ir_module_free(Module *m);
/* The first function of m called name (its position in m->funcs), or
 * NULL (-1); hashed, so passes may look up freely. */
Func *ir_find_func(const Module *m, const char *name);
int ir_func_index(const Module *m, const char *name);
int ir_func_num_input(const Func *f); /* -1 when the attribute is absent */
const FuncAttr *ir_func_attr(const Func *f, const char *key);

Var *ir_var(Module *m, const char *name, SInfo *si, bool dataflow, Span sp);
SymVar *ir_symvar(Module *m, const char *name, Span sp);
Expr *ir_expr(Module *m, ExprKind k, Span sp); /* zeroed node of kind k */
Expr *ir_var_ref(Module *m, Var *v, Span sp);
Binding *ir_binding(Module *m, Var *v, Expr *value, Span sp);
const char *ir_expr_kind_name(ExprKind k);
/* e's struct info: the inferred one, else its var's; NULL when unknown. */
const SInfo *ir_expr_sinfo(const Expr *e);

/*
 * The one walk of the expression tree: calls fn on the slot of each direct
 * child expression of e, in evaluation order (tuple items, call arguments,
 * an if's condition then branches, a sequence's binding values then its
 * body, a local function's body), until fn returns false; returns false
 * then. A walker handles the kinds it cares about and hands the rest here.
 */
bool ir_each_child(Expr *e, bool (*fn)(Expr **child, void *ctx), void *ctx);
/* Calls fn on every use of a Var in e, nested blocks included. */
void ir_visit_uses(const Expr *e, void (*fn)(Var *v, void *ctx), void *ctx);
/* Replaces every use of a Var under *slot (the slot included) by what fn
 * returns for it (the use itself to keep it), nested blocks included. */
void ir_map_uses(Expr **slot, Expr *(*fn)(Expr *use, void *ctx), void *ctx);
/* Every symbolic variable si, or e (its shapes, prim values, attributes such
 * as strided_slice's begin=[r * 8], struct info, nested blocks), mentions,
 * in order of first appearance, appended to out once. */
void ir_sinfo_symvars(const SInfo *si, Vec *out);
void ir_expr_symvars(const Expr *e, Vec *out);
/* True when evaluating e has no side effect (op calls and pure callees). */
bool ir_expr_is_pure(const Module *m, const Expr *e);
/* Whether e is a leaf, what a call argument may be: a var, constant,
 * shape, prim value, string, extern, global, or a tuple of leaves (false
 * past IR_MAX_LEAF_DEPTH nested tuples, and for a malformed tuple). */
enum { IR_MAX_LEAF_DEPTH = 2000 };
bool ir_is_leaf(const Expr *e);
/* e is TVM's runtime builtin for the worker's rank,
 * R.call_pure_packed("runtime.disco.worker_id", ...). */
bool ir_is_worker_id(const Expr *e);

/*
 * Symbolic substitution: from[i] := to[i]. ir_subst_sinfo returns a
 * substituted copy (si itself when n is 0); ir_subst_func rewrites every
 * annotation, struct info, shape and prim value of f in place (f's vars must
 * belong to f alone).
 */
SInfo *ir_subst_sinfo(Module *m, SInfo *si, SymVar **from, PExpr **to, int n);
void ir_subst_func(Module *m, Func *f, SymVar **from, PExpr **to, int n);

/* Deep copies; vars and symvars are kept (the copy shares them). */
Expr *ir_copy_expr(Module *m, const Expr *e);
SInfo *ir_copy_sinfo(Module *m, const SInfo *si);

/* ------------------------------------------------------------------ ops.c */

/*
 * The op table (ops.def) gives each op its Python name ("nn.relu", printed
 * R.nn.relu) and a signature in Python syntax, read by the parser and the
 * printer. A parameter is `name` (an expression, usually a tensor) or
 * `name:KIND` (an attribute) with an optional `=DEFAULT`; expression
 * parameters come before attributes. KIND is one of
 *   int ints float bool str dtype       attribute values
 *   int|ints                            either (split's indices_or_sections)
 *   KIND?                               may also be None
 *   dims                                dimensions (ints, symbolic, prim values)
 *   sinfo                               struct info, one or a list
 *   sinfos                              a tuple of struct infos (sinfo_args)
 *   raw                                 any Python literal, kept as text
 *   imap                                an index map (lambda i, j: (j, i))
 * and for expressions:
 *   shape  a shape (R.shape([...]), a Python tuple of dims, or a var)
 *   prim   a prim value (a number is accepted and wrapped)
 *   func   an external function: "name", R.ExternFunc("name") or a var
 * `*name` is variadic: the rest of the positional arguments, each one an
 * expression argument (call.nargs counts them); the parameters after it are
 * keyword-only. An expression parameter `name:KIND?=None` may be left out
 * (it is then an empty tuple, as TVM writes a missing argument); a prim
 * with a default (`k:prim=0`) gets its default. `name?` is the same as
 * `name:KIND?=None` for a plain expression (attention's bias).
 */
typedef enum {
	PK_EXPR,
	PK_SHAPE,
	PK_PRIM,
	PK_INT,
	PK_INTS,
	PK_INT_OR_INTS,
	PK_FLOAT,
	PK_BOOL,
	PK_STR,
	PK_DTYPE,
	PK_DIMS,
	PK_SINFO,
	PK_SINFOS,
	PK_FUNC,
	PK_RAW,   /* any Python literal (a list of floats), kept as its text */
	PK_IMAP,  /* an index map: a lambda, or T.index_map(lambda ...) */
	PK_TUPLE,  /* the arguments of a callee, an in-line tuple: one value
		   * that is not a tuple is wrapped into one (TVM's
		   * _wrap_inline_arg_tuple) */
} ParamKind;

typedef struct {
	char name[32];
	ParamKind kind;
	bool is_attr;     /* stored in call.attrs rather than call.args */
	bool optional;    /* KIND? */
	bool has_default;
	bool variadic;    /* *name */
	AttrVal def;      /* the default, for attributes */
	char def_text[32];
	int slot;         /* index into args or attrs */
} OpParam;

typedef struct {
	OpParam params[16];
	int nparams, nargs, nattrs;
	int nreq; /* expression arguments a call must have (the rest are
		   * optional: `name?`) */
	bool variadic; /* a *param: call.nargs >= nargs - 1 */
} OpSig;

typedef SInfo *(*InferFn)(Module *m, Expr *call, Diags *d);

/*
 * What kind of computation an op is, for the stages after inference (the
 * names follow TVM's OpPatternKind where one fits):
 *   ELEMWISE   one tensor operand, out[i] = f(in[i]) (attributes allowed)
 *   BROADCAST  several tensor operands, numpy broadcasting, out[i] = f(...)
 *   FILL_LIKE  the shape of its tensor operand, filled (zeros_like, ...)
 *   REDUCE     a reduction over axes (sum, max, argmax, ...)
 *   NORM       a normalization along axes, the data's shape (softmax, ...)
 *   LINALG     a contraction (matmul, conv2d)
 *   MOVE       moves or copies elements (permute_dims, concat, take, ...)
 *   VIEW       the same elements in another shape (reshape, squeeze, ...)
 *   CREATE     a new tensor from a shape (zeros, full, arange)
 *   COMM       talks to the other workers or depends on the worker's rank
 *              (R.ccl.*, R.dist.*): run by the executor, not a kernel
 *   OTHER      anything else (builtins)
 *   EXTERN     read, checked and printed but not run by rlx: the
 *              runtime's own (packed calls, closures, memory planning,
 *              devices), not a computation rlx would compile
 *   NOKERNEL   a computation rlx reads, checks, prints and lifts but has
 *              no CPU kernel for yet (conv3d, nll_loss, image.resize2d, ...)
 *   IMPURE     as EXTERN, and with a side effect (R.print, R.call_packed):
 *              not in a dataflow block, nor in a pure function unless it
 *              has the attribute relax.force_pure
 * A row's class may be or'ed with flags (OF_*) for what the class alone
 * does not tell.
 */
typedef enum {
	OC_ELEMWISE, OC_BROADCAST, OC_FILL_LIKE, OC_REDUCE, OC_NORM,
	OC_LINALG, OC_MOVE, OC_VIEW, OC_CREATE, OC_COMM, OC_OTHER, OC_EXTERN,
	OC_NOKERNEL, OC_IMPURE
} OpClass;

enum {
	OC_MASK = 0xff,
	/* the op's data operand (its first) may be computed by a fused
	 * elementwise tree inside its kernel (sum, max, ...: codegen's
	 * gen_reduce reads its input element by element) */
	OF_FUSE_INPUT = 1 << 8,
	/* computed by the executor itself, no kernel (shape_of,
	 * shape_to_tensor, stop_lift_params) */
	OF_NATIVE = 1 << 9,
	/* a COMM op whose result on worker K is worker K's slice of its
	 * input (worker 0's): a per-worker weight transform can run it
	 * without the other workers (runtime/engine/tp.c) */
	OF_WORKER_SLICE = 1 << 10,
};

typedef struct {
	const char *name; /* "add", "nn.relu", "builtin.stop_lift_params" */
	const char *sig;
	InferFn infer;
	OpClass cls;    /* the row's class without its flags */
	unsigned flags; /* OF_* */
} OpInfo;

const OpInfo *op_info(OpKind op);
OpKind op_lookup(const char *name); /* OP_NONE when unknown */
void op_sig(OpKind op, OpSig *out); /* parses the signature text */
AttrVal op_default(Module *m, const OpParam *q); /* q's default value */

/* ---------------------------------------------------------------- infer.c */

/*
 * Struct-info inference (Relax's normalizer). infer_module walks every
 * function in order: it fills Expr.sinfo of each expression, gives each
 * unannotated Var the inferred struct info, and checks annotations against
 * it: provably different is an error at the annotation; not provable is
 * kept (a runtime check). Returns the number of errors.
 */
int infer_module(Module *m, Diags *d);
SInfo *infer_expr(Module *m, Expr *e, Diags *d);
/* Runs op call e's rule again on its arguments' struct infos as they are
 * now, refreshing e->call.assume (e's struct info is kept): the executor's
 * plan calls it, so what passes did to the module cannot leave stale
 * assumptions behind. */
void infer_assumptions(Module *m, Expr *e);
/* The message of a violated assumption of op ("R.matmul"), its sides'
 * values as text: "R.matmul: x's dimension 1 is 3 but w's dimension 0 is 5". */
void assume_message(StrBuf *b, const char *op, const Assume *as, const char *va,
		    const char *vb);
/* The per-op rules named in ops.def, declared by the X-macro: */
#define OP(id, name, sig, infer, cls) SInfo *infer(Module *m, Expr *call, Diags *d);
#include "ops.def"
#undef OP

/*
 * Relations between struct infos, as Relax's StructInfoBaseCheck.
 * SI_PROVEN: every value of `val` is a value of `ann`.
 * SI_UNKNOWN: it may be, with a runtime check (e.g. a symbolic dim).
 * SI_FAIL: it cannot be.
 */
typedef enum { SI_FAIL, SI_UNKNOWN, SI_PROVEN } SiRel;
SiRel si_check(Module *m, const SInfo *ann, const SInfo *val);
bool si_equal(Module *m, const SInfo *a, const SInfo *b); /* same meaning */

/* Helpers shared by infer.c and the op rules of infer_ops.c. */
typedef enum { DIM_DIFFER = -1, DIM_UNKNOWN = 0, DIM_EQUAL = 1 } DimRel;
/* Equal, provably different (constants, or a - b a nonzero constant), or
 * not known statically. */
DimRel infer_dim_rel(Module *m, PExpr *a, PExpr *b);
/* si with every dim or value that mentions a SymVar outside vars[0..n)
 * forgotten (TVM's EraseToWellDefined); a tensor keeps its ndim. */
SInfo *si_erase(Module *m, const SInfo *si, SymVar **vars, int n);
/* einsum subscripts with each `...` written out as letters the subscripts
 * do not use, for operands of ndims[0..n) dims (numpy's rules: the ellipsis
 * dims broadcast right-aligned; without `->` the output is the ellipsis
 * dims, then the letters seen once in alphabetical order), into out, always
 * with `->`. Subscripts without `...` are copied as they are. False, with
 * why, when an ellipsis does not fit. */
bool einsum_expand(const char *s, const int *ndims, int n, char *out, size_t cap,
		   const char **why);
/* print_sinfo into an arena string, for messages. */
const char *infer_sinfo_str(Module *m, const SInfo *si);

/* --------------------------------------------------------------- verify.c */

/* Relax well-formedness, each violation a located error; returns count. */
int verify_module(Module *m, Diags *d);

/* ---------------------------------------------------------------- print.c */

typedef struct {
	bool tvm_names; /* write names TVM can parse (dots → _) */
	bool no_header; /* omit the `from tvm.script import` lines */
	TirSpelling tir; /* T.sblock (TVM main, the default) or T.block */
} PrintOpts;

void print_module(StrBuf *b, const Module *m, const PrintOpts *o);
void print_sinfo(StrBuf *b, const SInfo *si); /* R.Tensor((2, n), dtype="float32") */
void print_expr(StrBuf *b, const Expr *e);    /* one expression, for messages */
void print_attrval(StrBuf *b, const AttrVal *v);

/* ----------------------------------------------------------- print_json.c */

/* The module as JSON (`rlx dump --format json`). */
void print_module_json(StrBuf *b, const Module *m);

/* ---------------------------------------------------------------- equal.c */

/*
 * Structural equality as TVM's assert_structural_equal: vars and symbolic
 * vars are matched by position of definition, names ignored unless
 * `names`. On a difference, *sa and *sb locate it in each module.
 */
bool equal_modules(const Module *a, const Module *b, bool names,
		   Span *sa, Span *sb, char **why);

#endif
