/*
 * canonicalize_bindings.c — canonicalize-bindings (being written).
 */
#include "pass.h"

int
pass_canonicalize_bindings(Module *m, const PassOptions *o, Diags *d)
{
	(void)m;
	(void)o;
	(void)d;
	return 0;
}
