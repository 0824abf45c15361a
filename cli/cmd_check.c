/*
 * cmd_check.c — `rlx check FILE...`: parse and verify, print nothing on success.
 */
#include <string.h>

#include "cli.h"

static const char check_help[] =
	"usage: rlx check FILE...\n"
	"\n"
	"Parses and verifies each FILE (TVMScript, Relax dialect). Prints nothing\n"
	"when all are well formed; otherwise prints located errors and exits 1.\n";

int
cmd_check(int argc, char **argv)
{
	int nfiles = 0, status = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(check_help, stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return cli_unknown_option("check", check_help, argv[i]);
	}
	for (int i = 1; i < argc; i++) {
		nfiles++;
		rlx_module *m = cli_load_module("check", argv[i]);
		if (!m)
			status = EXIT_INPUT;
		rlx_module_free(m);
	}
	if (!nfiles)
		return cli_usage_error("check", "%s", "needs at least one FILE");
	return status;
}
