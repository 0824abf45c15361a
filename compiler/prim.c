/* prim.c — symbolic integer expressions (stub; see ir.h). */
#include "ir.h"
PExpr *pe_int(Arena *a, int64_t v) { PExpr *e = ARENA_NEW(a, PExpr); e->kind = PE_INT; e->value = v; return e; }
PExpr *pe_var(Arena *a, SymVar *v) { PExpr *e = ARENA_NEW(a, PExpr); e->kind = PE_VAR; e->var = v; return e; }
PExpr *pe_bin(Arena *a, PExprKind k, PExpr *x, PExpr *y) { PExpr *e = ARENA_NEW(a, PExpr); e->kind = k; e->a = x; e->b = y; return e; }
PExpr *pe_simplify(Arena *a, PExpr *x) { (void)a; return x; }
bool pe_struct_equal(const PExpr *x, const PExpr *y) { return x == y; }
bool pe_equal(Arena *a, PExpr *x, PExpr *y) { (void)a; return pe_struct_equal(x, y); }
bool pe_is_const(PExpr *x, int64_t *out) { if (x->kind != PE_INT) return false; *out = x->value; return true; }
void pe_collect_vars(const PExpr *x, Vec *out) { (void)x; (void)out; }
PExpr *pe_subst(Arena *a, PExpr *x, SymVar **from, PExpr **to, int n) { (void)a; (void)from; (void)to; (void)n; return x; }
void pe_print(StrBuf *b, const PExpr *x) { if (x->kind == PE_INT) sb_printf(b, "%lld", (long long)x->value); else sb_puts(b, "?"); }
