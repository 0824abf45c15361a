/*
 * parser.y — the TVMScript grammar: the subset of Python that the Relax
 * dialect uses. The actions only build a syntax tree (syntax.h) in the
 * parse's arena; build.c turns it into IR, where the meaning is checked.
 * Statement-level recovery (`error NEWLINE`) lets one run report several
 * syntax errors. No value owns memory (the tree arena is dropped whole),
 * so no %destructor is needed.
 */
%define api.pure full
%define parse.error custom
%locations
%expect 0
%param {PState *ps}

%code requires {
#include "syntax.h"
}

%code provides {
int syn_lex(YYSTYPE *lval, YYLTYPE *loc, PState *ps);
}

%code {
#include <string.h>

#define yylex syn_lex

/* Errors other than syntax errors (the parser stack overflowing). */
static void
yyerror(YYLTYPE *l, PState *ps, const char *msg)
{
	Span s = {l->first_line, l->first_column, 1};
	diag_error(ps->d, s, "nesting too deep (%s: the parser's stack is full)", msg);
}

/* The Span of a bison location (one line; len 1 when it spans lines). */
static Span
sp(YYLTYPE l)
{
	Span s = {l.first_line, l.first_column, 1};
	if (l.last_line == l.first_line && l.last_column > l.first_column)
		s.len = l.last_column - l.first_column;
	return s;
}

/* A node with one or two children. */
static Syn *
node(PState *ps, SynKind k, YYLTYPE l, Syn *a, Syn *b)
{
	Syn *x = syn_new(ps, k, sp(l));
	x->a = a;
	x->b = b;
	return x;
}

/* A node whose children are the list items. */
static Syn *
seq(PState *ps, SynKind k, YYLTYPE l, Syn *items)
{
	Syn *x = syn_new(ps, k, sp(l));
	x->items = items;
	x->n = syn_len(items);
	return x;
}

/* A named node (names, strings, attributes, keyword arguments). */
static Syn *
named(PState *ps, SynKind k, YYLTYPE l, const char *s, Syn *a)
{
	Syn *x = syn_new(ps, k, sp(l));
	x->s = s;
	x->a = a;
	return x;
}

/* A binary dimension operator node. */
static Syn *
binop(PState *ps, YYLTYPE l, int op, Syn *a, Syn *b)
{
	Syn *x = node(ps, X_BIN, l, a, b);
	x->op = op;
	return x;
}

/* A statement with a target, annotation and value. */
static Stm *
stm(PState *ps, StmKind k, YYLTYPE l, Syn *target, Syn *ann, Syn *value)
{
	Stm *s = stm_new(ps, k, sp(l));
	s->target = target;
	s->ann = ann;
	s->value = value;
	return s;
}

/* A compound statement with a body (and an else body). */
static Stm *
block(PState *ps, StmKind k, YYLTYPE l, Syn *value, Stm *body, Stm *orelse)
{
	Stm *s = stm(ps, k, l, NULL, NULL, value);
	s->body = body;
	s->orelse = orelse;
	return s;
}

/* A def or class statement. */
static Stm *
def(PState *ps, StmKind k, YYLTYPE l, const char *name, Syn *params,
    Syn *ret, Stm *body)
{
	Stm *s = block(ps, k, l, NULL, body, NULL);
	s->name = name;
	s->params = params;
	s->ann = ret;
	return s;
}

static Stm *
decorate(Stm *s, Syn *decorators)
{
	s->decorators = decorators;
	return s;
}
}

%union {
	const char *str;
	int64_t i;
	double f;
	Syn *syn;
	Stm *stm;
}

%token END 0 "end of file"
%token <str> NAME "name"
%token <str> STRING "string"
%token <str> KEYWORD "keyword"
%token <str> OPERATOR "operator"
%token <i> INT "integer"
%token <f> FLOAT "number"
%token NEWLINE "end of line"
%token INDENT "indented block"
%token DEDENT "end of block"
%token DEF "'def'" CLASS "'class'" RETURN "'return'" IF "'if'" ELSE "'else'"
%token WITH "'with'" FROM "'from'" IMPORT "'import'" AS "'as'" PASS "'pass'"
%token TRUE "'True'" FALSE "'False'" NONE "'None'" LAMBDA "'lambda'"
%token ARROW "'->'" FLOORDIV "'//'" POW "'**'" SHL "'<<'" SHR "'>>'"
%token FOR "'for'" IN "'in'" ELIF "'elif'" AND "'and'" OR "'or'" NOT "'not'"
%token <i> AUGASSIGN "augmented assignment"
%token <i> CMP "comparison"
%token ERRTOK "invalid token"

%type <stm> file stmts stmt simple compound suite funcdef classdef elifs
%type <syn> rhs expr arith term factor primary atom exprs pairs args arglist arg
%type <syn> or_test and_test not_test comparison bor bxor band shift power
%type <syn> subscripts subscript slice slices targets
%type <syn> params param ret decorators decorator names

%%

file:
	%empty		{ $$ = NULL; ps->top = NULL; }
|	stmts		{ $$ = $1; ps->top = $1; }
;

stmts:
	stmt		{ $$ = $1; }
|	stmts stmt	{ $$ = stm_list($1, $2); }
;

stmt:
	simple NEWLINE	{ $$ = $1; }
|	compound	{ $$ = $1; }
|	error NEWLINE	{ $$ = NULL; }
|	error NEWLINE INDENT stmts DEDENT	{ $$ = NULL; }
;

simple:
	expr				{ $$ = stm(ps, S_EXPR, @$, NULL, NULL, $1); }
|	expr '=' rhs			{ $$ = stm(ps, S_ASSIGN, @$, $1, NULL, $3); }
|	expr ':' expr '=' rhs		{ $$ = stm(ps, S_ASSIGN, @$, $1, $3, $5); }
|	expr ',' exprs '=' rhs		{ $$ = stm(ps, S_ASSIGN, @$, seq(ps, X_TUPLE, @1, syn_list($1, $3)), NULL, $5); }
|	expr ':' expr			{ $$ = stm(ps, S_ASSIGN, @$, $1, $3, NULL); }
|	expr AUGASSIGN rhs		{ $$ = stm(ps, S_AUG, @$, $1, NULL, $3); $$->op = (int)$2; }
|	RETURN rhs			{ $$ = stm(ps, S_RETURN, @$, NULL, NULL, $2); }
|	RETURN				{ $$ = stm(ps, S_RETURN, @$, NULL, NULL, NULL); }
|	PASS				{ $$ = stm(ps, S_PASS, @$, NULL, NULL, NULL); }
|	FROM dotted IMPORT import_names	{ $$ = stm(ps, S_IMPORT, @$, NULL, NULL, NULL); }
|	IMPORT dotted			{ $$ = stm(ps, S_IMPORT, @$, NULL, NULL, NULL); }
|	IMPORT dotted AS NAME		{ $$ = stm(ps, S_IMPORT, @$, NULL, NULL, NULL); }
;

dotted: NAME | dotted '.' NAME ;

import_names: import_name | import_names ',' import_name | '*' ;

import_name: NAME | NAME AS NAME ;

compound:
	IF expr ':' suite ELSE ':' suite	{ $$ = block(ps, S_IF, @1, $2, $4, $7); }
|	IF expr ':' suite			{ $$ = block(ps, S_IF, @1, $2, $4, NULL); }
|	IF expr ':' suite elifs			{ $$ = block(ps, S_IF, @1, $2, $4, $5); }
|	WITH expr ':' suite			{ $$ = block(ps, S_WITH, @1, $2, $4, NULL); }
|	WITH expr AS expr ':' suite		{ $$ = block(ps, S_WITH, @1, $2, $6, NULL); $$->target = $4; }
|	FOR targets IN expr ':' suite		{ $$ = block(ps, S_FOR, @1, $4, $6, NULL); $$->target = $2; }
|	funcdef					{ $$ = $1; }
|	classdef				{ $$ = $1; }
|	decorators funcdef			{ $$ = decorate($2, $1); }
|	decorators classdef			{ $$ = decorate($2, $1); }
;

suite:
	NEWLINE INDENT stmts DEDENT	{ $$ = $3; }
;

/* elif c: ... [else: ...] is an if in the else branch. */
elifs:
	ELIF expr ':' suite			{ $$ = block(ps, S_IF, @1, $2, $4, NULL); }
|	ELIF expr ':' suite ELSE ':' suite	{ $$ = block(ps, S_IF, @1, $2, $4, $7); }
|	ELIF expr ':' suite elifs		{ $$ = block(ps, S_IF, @1, $2, $4, $5); }
;

/* The names a for loop binds: i, or i, j, k. */
targets:
	names			{ $$ = $1->next ? seq(ps, X_TUPLE, @$, $1) : $1; }
;

decorators:
	decorator		{ $$ = $1; }
|	decorators decorator	{ $$ = syn_list($1, $2); }
;

decorator:
	'@' expr NEWLINE	{ $$ = $2; }
;

funcdef:
	DEF NAME '(' ')' ret ':' suite		{ $$ = def(ps, S_DEF, @2, $2, NULL, $5, $7); }
|	DEF NAME '(' params ')' ret ':' suite	{ $$ = def(ps, S_DEF, @2, $2, $4, $6, $8); }
|	DEF NAME '(' params ',' ')' ret ':' suite	{ $$ = def(ps, S_DEF, @2, $2, $4, $7, $9); }
;

ret:
	%empty		{ $$ = NULL; }
|	ARROW expr	{ $$ = $2; }
;

params:
	param			{ $$ = $1; }
|	params ',' param	{ $$ = syn_list($1, $3); }
;

param:
	NAME		{ $$ = named(ps, X_KWARG, @1, $1, NULL); }
|	NAME ':' expr	{ $$ = named(ps, X_KWARG, @1, $1, $3); }
;

classdef:
	CLASS NAME ':' suite		{ $$ = def(ps, S_CLASS, @2, $2, NULL, NULL, $4); }
|	CLASS NAME '(' ')' ':' suite	{ $$ = def(ps, S_CLASS, @2, $2, NULL, NULL, $6); }
;

/* Python's precedence, lowest first. A comparison is not chained
 * (a < b < c is refused): TVMScript compares symbolic dims, `if N == 16:`,
 * and TIR values. */
expr:
	or_test		{ $$ = $1; }
|	LAMBDA names ':' expr	{ $$ = seq(ps, X_LAMBDA, @$, $2); $$->a = $4; }
;

or_test:
	and_test		{ $$ = $1; }
|	or_test OR and_test	{ $$ = binop(ps, @$, SYN_OR, $1, $3); }
;

and_test:
	not_test		{ $$ = $1; }
|	and_test AND not_test	{ $$ = binop(ps, @$, SYN_AND, $1, $3); }
;

not_test:
	comparison		{ $$ = $1; }
|	NOT not_test		{ $$ = node(ps, X_NOT, @$, $2, NULL); }
;

comparison:
	bor		{ $$ = $1; }
|	bor CMP bor	{ $$ = binop(ps, @$, (int)$2, $1, $3); }
|	bor '<' bor	{ $$ = binop(ps, @$, PE_LT, $1, $3); }
|	bor '>' bor	{ $$ = binop(ps, @$, PE_GT, $1, $3); }
;

bor:
	bxor		{ $$ = $1; }
|	bor '|' bxor	{ $$ = binop(ps, @$, SYN_BITOR, $1, $3); }
;

bxor:
	band		{ $$ = $1; }
|	bxor '^' band	{ $$ = binop(ps, @$, SYN_BITXOR, $1, $3); }
;

band:
	shift		{ $$ = $1; }
|	band '&' shift	{ $$ = binop(ps, @$, SYN_BITAND, $1, $3); }
;

shift:
	arith		{ $$ = $1; }
|	shift SHL arith	{ $$ = binop(ps, @$, SYN_SHL, $1, $3); }
|	shift SHR arith	{ $$ = binop(ps, @$, SYN_SHR, $1, $3); }
;

/* The parameters of a lambda (T.index_map(lambda i, j: (j, i))). */
names:
	NAME			{ $$ = named(ps, X_NAME, @1, $1, NULL); }
|	names ',' NAME		{ $$ = syn_list($1, named(ps, X_NAME, @3, $3, NULL)); }
;

arith:
	arith '+' term	{ $$ = binop(ps, @$, PE_ADD, $1, $3); }
|	arith '-' term	{ $$ = binop(ps, @$, PE_SUB, $1, $3); }
|	term		{ $$ = $1; }
;

term:
	term '*' factor		{ $$ = binop(ps, @$, PE_MUL, $1, $3); }
|	term FLOORDIV factor	{ $$ = binop(ps, @$, PE_FLOORDIV, $1, $3); }
|	term '%' factor		{ $$ = binop(ps, @$, PE_FLOORMOD, $1, $3); }
|	term '/' factor		{ $$ = binop(ps, @$, SYN_TRUEDIV, $1, $3); }
|	term '@' factor		{ $$ = binop(ps, @$, SYN_MATMUL, $1, $3); }
|	factor			{ $$ = $1; }
;

factor:
	'-' factor	{ $$ = node(ps, X_NEG, @$, $2, NULL); }
|	'+' factor	{ $$ = $2; }
|	'~' factor	{ $$ = node(ps, X_INVERT, @$, $2, NULL); }
|	power		{ $$ = $1; }
;

power:
	primary			{ $$ = $1; }
|	primary POW factor	{ $$ = binop(ps, @$, SYN_POW, $1, $3); }
;

primary:
	atom			{ $$ = $1; }
|	primary '.' NAME	{ $$ = named(ps, X_ATTR, @$, $3, $1); }
|	primary '(' args ')'	{ $$ = seq(ps, X_CALL, @$, $3); $$->a = $1; }
|	primary '[' subscripts ']'	{ $$ = node(ps, X_INDEX, @$, $1, $3); }
;

atom:
	NAME			{ $$ = named(ps, X_NAME, @$, $1, NULL); }
|	STRING			{ $$ = named(ps, X_STR, @$, $1, NULL); }
|	INT			{ $$ = syn_new(ps, X_INT, sp(@$)); $$->i = $1; }
|	FLOAT			{ $$ = syn_new(ps, X_FLOAT, sp(@$)); $$->f = $1; }
|	TRUE			{ $$ = syn_new(ps, X_TRUE, sp(@$)); }
|	FALSE			{ $$ = syn_new(ps, X_FALSE, sp(@$)); }
|	NONE			{ $$ = syn_new(ps, X_NONE, sp(@$)); }
|	'(' expr ')'		{ $$ = $2; }
|	'(' ')'			{ $$ = seq(ps, X_TUPLE, @$, NULL); }
|	'(' expr ',' ')'	{ $$ = seq(ps, X_TUPLE, @$, $2); }
|	'(' expr ',' exprs ')'	{ $$ = seq(ps, X_TUPLE, @$, syn_list($2, $4)); }
|	'(' expr ',' exprs ',' ')'	{ $$ = seq(ps, X_TUPLE, @$, syn_list($2, $4)); }
|	'[' ']'			{ $$ = seq(ps, X_LIST, @$, NULL); }
|	'[' exprs ']'		{ $$ = seq(ps, X_LIST, @$, $2); }
|	'[' exprs ',' ']'	{ $$ = seq(ps, X_LIST, @$, $2); }
|	'{' '}'			{ $$ = seq(ps, X_DICT, @$, NULL); }
|	'{' pairs '}'		{ $$ = seq(ps, X_DICT, @$, $2); }
|	'{' pairs ',' '}'	{ $$ = seq(ps, X_DICT, @$, $2); }
;

/* The value of an assignment: a tuple may go without parentheses. */
rhs:
	expr			{ $$ = $1; }
|	expr ',' exprs		{ $$ = seq(ps, X_TUPLE, @$, syn_list($1, $3)); }
|	expr ',' exprs ','	{ $$ = seq(ps, X_TUPLE, @$, syn_list($1, $3)); }
|	expr ','		{ $$ = seq(ps, X_TUPLE, @$, $1); }
;

/* A[i], A[i, j] (a tuple), A[0:16, i], A[()] */
subscripts:
	subscript		{ $$ = $1; }
|	subscript ',' 		{ $$ = seq(ps, X_TUPLE, @$, $1); }
|	subscript ',' slices	{ $$ = seq(ps, X_TUPLE, @$, syn_list($1, $3)); }
|	subscript ',' slices ','	{ $$ = seq(ps, X_TUPLE, @$, syn_list($1, $3)); }
;

slices:
	subscript		{ $$ = $1; }
|	slices ',' subscript	{ $$ = syn_list($1, $3); }
;

subscript:
	expr			{ $$ = $1; }
|	slice			{ $$ = $1; }
;

slice:
	':'			{ $$ = node(ps, X_SLICE, @$, NULL, NULL); }
|	expr ':'		{ $$ = node(ps, X_SLICE, @$, $1, NULL); }
|	':' expr		{ $$ = node(ps, X_SLICE, @$, NULL, $2); }
|	expr ':' expr		{ $$ = node(ps, X_SLICE, @$, $1, $3); }
;

exprs:
	expr			{ $$ = $1; }
|	exprs ',' expr		{ $$ = syn_list($1, $3); }
;

pairs:
	expr ':' expr		{ $$ = syn_list($1, $3); }
|	pairs ',' expr ':' expr	{ $$ = syn_list(syn_list($1, $3), $5); }
;

args:
	%empty			{ $$ = NULL; }
|	arglist			{ $$ = $1; }
|	arglist ','		{ $$ = $1; }
;

arglist:
	arg			{ $$ = $1; }
|	arglist ',' arg		{ $$ = syn_list($1, $3); }
;

arg:
	expr			{ $$ = $1; }
|	NAME '=' expr		{ $$ = named(ps, X_KWARG, @$, $1, $3); }
|	'*' expr		{ $$ = node(ps, X_STAR, @$, $2, NULL); }
;

%%

/* How a token is named in a message about it. */
static void
describe(StrBuf *b, PState *ps, yysymbol_kind_t t, bool lookahead)
{
	if (lookahead && ps->toklen > 0 &&
	    (t == YYSYMBOL_NAME || t == YYSYMBOL_KEYWORD ||
	     t == YYSYMBOL_OPERATOR || t == YYSYMBOL_INT ||
	     t == YYSYMBOL_FLOAT)) {
		sb_printf(b, "'%.*s'", ps->toklen > 40 ? 40 : ps->toklen,
			  ps->tok);
		return;
	}
	const char *s = yysymbol_name(t);
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '"')
		sb_printf(b, "%.*s", (int)(n - 2), s + 1);
	else
		sb_puts(b, s);
}

/* A syntax error: what was found and, when few, what was expected. */
static int
yyreport_syntax_error(const yypcontext_t *ctx, PState *ps)
{
	yysymbol_kind_t t = yypcontext_token(ctx);
	Span s = sp(*yypcontext_location(ctx));
	bool seen = t == YYSYMBOL_ERRTOK || s.line == ps->last_error_line;
	ps->last_error_line = s.line;
	if (seen)
		return 0; /* reported already */
	StrBuf b = {0};
	yysymbol_kind_t exp[4];
	int n = yypcontext_expected_tokens(ctx, exp, 4);
	if (t == YYSYMBOL_KEYWORD) {
		describe(&b, ps, t, true);
		sb_puts(&b, " is not supported by rlx");
	} else if (n > 0) {
		sb_puts(&b, "expected ");
		for (int i = 0; i < n; i++) {
			if (i > 0)
				sb_puts(&b, i == n - 1 ? " or " : ", ");
			describe(&b, ps, exp[i], false);
		}
		sb_puts(&b, " before ");
		describe(&b, ps, t, true);
	} else {
		sb_puts(&b, "unexpected ");
		describe(&b, ps, t, true);
	}
	diag_error(ps->d, s, "%s", b.p);
	sb_free(&b);
	/* newlines inside brackets join lines: a bracket left open lines
	 * above is the likely cause */
	int k = ps->depth - 1;
	if (k >= 0 && k < (int)ARRAY_LEN(ps->open) && ps->open[k].line < s.line)
		diag_note(ps->d, ps->open[k], "the '%c' opened here is not closed",
			  ps->open_ch[k]);
	return 0;
}
