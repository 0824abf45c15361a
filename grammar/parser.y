/* parser.y — stub */
%define api.pure full
%locations
%param {void *scanner}
%code requires { #include "ir.h" }
%code { #include "lexer.h"
static void yyerror(YYLTYPE *l, void *s, const char *msg) { (void)l; (void)s; (void)msg; } }
%token END 0
%%
module: %empty ;
%%
