/* equal.c — structural equality (stub; see ir.h). */
#include "ir.h"
bool equal_modules(const Module *a, const Module *b, bool names, Span *sa, Span *sb, char **why) { (void)names; (void)why; *sa = *sb = (Span){0, 0, 0}; return a->nfuncs == b->nfuncs; }
