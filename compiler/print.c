/* print.c — the printer (stub; see ir.h). */
#include "ir.h"
void print_module(StrBuf *b, const Module *m, const PrintOpts *o) { (void)o; sb_printf(b, "# module %s with %d functions\n", m->name, m->nfuncs); }
void print_sinfo(StrBuf *b, const SInfo *si) { (void)si; sb_puts(b, "R.Object"); }
void print_expr(StrBuf *b, const Expr *e) { sb_puts(b, ir_expr_kind_name(e->kind)); }
void print_attrval(StrBuf *b, const AttrVal *v) { (void)v; sb_puts(b, "?"); }
