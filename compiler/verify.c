/* verify.c — well-formedness (stub; see ir.h). */
#include "ir.h"
int verify_module(Module *m, Diags *d) { (void)m; (void)d; return 0; }
