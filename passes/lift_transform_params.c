/*
 * lift_transform_params.c — lift-transform-params (being written).
 */
#include "pass.h"

int
pass_lift_transform_params(Module *m, const PassOptions *o, Diags *d)
{
	(void)m;
	(void)o;
	(void)d;
	return 0;
}
