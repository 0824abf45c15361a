/* cli_transform.c — `rlx transform`, `rlx init-weights`, `rlx verify`
 * (being written). */
#include <stdio.h>

#include "cli.h"

int
cmd_transform(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rlx transform: not implemented yet\n");
	return 2;
}

int
cmd_init_weights(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rlx init-weights: not implemented yet\n");
	return 2;
}

int
cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rlx verify: not implemented yet\n");
	return 2;
}
