/* cli_run.c — `rlx run` (being written). */
#include <stdio.h>

#include "cli.h"

int
cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rlx run: not implemented yet\n");
	return 2;
}
