/*
 * syntax.h — the frontend's private header: the syntax tree the bison
 * actions build (a small Python AST), and the parser state shared by the
 * scanner (lexer.l), the grammar (parser.y) and the builders (parse.c,
 * build.c). The tree lives in its own arena, dropped after the IR is built,
 * so no semantic value owns memory and the parser needs no %destructor.
 */
#ifndef RLX_SYNTAX_H
#define RLX_SYNTAX_H

#include "ir.h"
#include "parse.h"

typedef struct Syn Syn;
typedef struct Stm Stm;

typedef enum {
	X_NAME,  /* s */
	X_INT,   /* i */
	X_FLOAT, /* f */
	X_STR,   /* s */
	X_TRUE,
	X_FALSE,
	X_NONE,
	X_TUPLE, /* items */
	X_LIST,  /* items */
	X_DICT,  /* items: key, value, key, value, ... */
	X_ATTR,  /* a.s */
	X_CALL,  /* a(items), keyword arguments are X_KWARG items */
	X_KWARG, /* s=a */
	X_INDEX, /* a[b] */
	X_BIN,   /* a op b, op a PExprKind (PE_ADD ... PE_FLOORMOD), SYN_TRUEDIV
		  * or SYN_MATMUL */
	X_NEG,   /* -a */
	X_LAMBDA, /* lambda items: a (an index map's) */
	X_NOT,    /* not a */
	X_INVERT, /* ~a */
	X_SLICE,  /* a:b in a subscript, either may be NULL */
	X_STAR,   /* *a, a call's argument unpacked (T.grid(*A.shape)) */
} SynKind;

/* The op of an X_BIN for Python's `/` (not a dimension operator). */
#define SYN_TRUEDIV (-1)
/* ... and for `@` (matmul on Relax values, not on dimensions). */
#define SYN_MATMUL (-2)
/* ... and Python's other operators, read by TIR (T.prim_func bodies). */
#define SYN_POW (-3)
#define SYN_AND (-4)
#define SYN_OR (-5)
#define SYN_BITAND (-6)
#define SYN_BITOR (-7)
#define SYN_BITXOR (-8)
#define SYN_SHL (-9)
#define SYN_SHR (-10)
/* The Python text of an X_BIN op ("+", "//", "and"). */
const char *syn_op_text(int op);

/* An expression of the syntax tree. Lists are linked through next. */
struct Syn {
	SynKind kind;
	Span span;
	const char *s;
	int64_t i;
	double f;
	int op;
	Syn *a, *b;
	Syn *items; /* first of the list */
	int n;      /* length of the list */
	Syn *next;
	Syn *tail;  /* syn_list: the last node, kept in the head (appends O(1)) */
};

typedef enum {
	S_EXPR,   /* value */
	S_ASSIGN, /* target [: ann] = value */
	S_RETURN, /* return value (value NULL when bare) */
	S_IF,     /* if value: body else: orelse */
	S_WITH,   /* with value [as target]: body */
	S_FOR,    /* for target in value: body */
	S_AUG,    /* target op= value (op an X_BIN op) */
	S_PASS,
	S_IMPORT,
	S_DEF,    /* decorators; def name(params) -> ann: body */
	S_CLASS,  /* decorators; class name: body */
} StmKind;

/* A statement. params are X_KWARG nodes (s name, a annotation or NULL). */
struct Stm {
	StmKind kind;
	Span span;
	const char *name;
	Syn *target, *ann, *value;
	Syn *decorators, *params;
	Stm *body, *orelse;
	Stm *next;
	Stm *tail;  /* stm_list: the last node, kept in the head */
	bool bare;  /* an S_ASSIGN to `_` made of an expression statement */
	int op;     /* S_AUG */
};

/* Parser and scanner state: no globals. */
typedef struct PState {
	Module *m;
	Diags *d;
	Arena ast;       /* the syntax tree */
	void *scanner;   /* the flex scanner */
	/* scanner state for the indentation */
	int line, col;   /* position of the next character */
	int depth;       /* bracket nesting: newlines are ignored inside */
	Span open[64];   /* the open brackets, innermost last (the first 64) */
	char open_ch[64];
	int indents[64];    /* widths of the open blocks (tabs to 8) */
	int alt_indents[64]; /* the same with tabs as 1: Python's tab check */
	bool bogus[64];     /* an unexpected indentation, reported, no tokens */
	int nindents;
	bool colon_nl;      /* the last NEWLINE followed a ':' */
	int pending_indent; /* width of the line after the last NEWLINE, -1 none */
	int pending_alt;    /* its width with tabs as 1 */
	bool tab_reported;  /* a tab/space mix was reported */
	bool deep_reported; /* "too deeply nested" was reported */
	int dedents;        /* DEDENT tokens still to give */
	int last_tok;       /* last token returned, 0 at the start */
	bool eof;
	int last_error_line; /* one syntax error per line */
	const char *tok;     /* text of the last token scanned */
	int toklen;
	Stm *top;        /* the statements of the file */
} PState;

/*
 * The deepest syntax tree rlx reads: brackets, calls, operators and
 * dimension expressions nested deeper are refused with "nesting too deep",
 * so that no recursive stage (builder, inference, printer) can overflow the
 * stack. Python refuses less than this (about 200 levels of brackets).
 */
#define SYN_MAX_DEPTH 1000

/* parse.c: syntax tree constructors (arena of ps). */
Span syn_span2(Span a, Span b);
Syn *syn_new(PState *ps, SynKind k, Span sp);
Syn *syn_list(Syn *list, Syn *x); /* append x to list, returns list head */
int syn_len(const Syn *list);
Stm *stm_new(PState *ps, StmKind k, Span sp);
Stm *stm_list(Stm *list, Stm *x);
/* False, after an error at the deepest node, when x nests deeper than
 * SYN_MAX_DEPTH. */
bool syn_check_depth(PState *ps, const Syn *x);
/* Parses a dimension expression written in a string; NULL on error. */
Syn *syn_parse_dim(PState *ps, const char *text, Span sp);

/* lexer.l: runs the parser over text; returns yyparse's result. */
int syn_parse_text(PState *ps, const char *text, size_t len);

/* build.c (with build_sinfo.c, build_value.c): the syntax tree to IR. */
void build_module(PState *ps);

#endif
