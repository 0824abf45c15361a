/*
 * cmd_equal.c — `rlx equal A B [--names]`: structural comparison of two modules.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char equal_help[] =
	"usage: rlx equal A B [--names]\n"
	"\n"
	"Compares two modules structurally, as TVM's assert_structural_equal:\n"
	"variables are matched by position, names ignored unless --names.\n"
	"Exit 0 when equal; 1 with the first difference located in both files.\n";

int
cmd_equal(int argc, char **argv)
{
	const char *files[2];
	int nfiles = 0;
	bool names = false;
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(equal_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--names")) {
			names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_unknown_option("equal", equal_help, argv[i]);
		} else if (nfiles == 2) {
			return cli_usage_error("equal", "unexpected argument %s", argv[i]);
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles != 2)
		return cli_usage_error("equal", "%s", "needs two files A and B");
	rlx_module *a = cli_load_module("equal", files[0]);
	rlx_module *b = a ? cli_load_module("equal", files[1]) : NULL;
	int status = EXIT_INPUT;
	if (a && b) {
		char *why = NULL;
		if (rlx_equal(a, b, names, &why)) {
			status = EXIT_OK;
		} else {
			fprintf(stderr, "%s\n", why ? why : "modules differ");
		}
		free(why);
	}
	rlx_module_free(a);
	rlx_module_free(b);
	return status;
}
