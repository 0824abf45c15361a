/*
 * main.c — the rlx command line: dispatch to the commands (cmd_*.c).
 *
 * Each command is a function cmd_NAME(argc, argv) returning the exit status:
 * 0 success, 1 the input is wrong, 2 wrong usage. Nothing here prints IR by
 * itself; it reads files, calls the library and reports its diagnostics.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
	"usage: rlx COMMAND [ARGS]\n"
	"\n"
	"commands:\n"
	"  check FILE...            parse and verify; prints nothing when the input is well formed\n"
	"  dump FILE [--passes P,..] print the module as parsed, or after passes\n"
	"  lift FILE                split weight pre-processing into F_transform_params\n"
	"  run FILE --params W      run a function on weights and .npy inputs\n"
	"  transform FILE --weights CKPT -o DIR\n"
	"                           run the weight transform on a checkpoint into a tensor cache\n"
	"  init-weights FILE -o CKPT.safetensors\n"
	"                           seeded random weights for a function's parameters\n"
	"  verify FILE --weights CKPT\n"
	"                           original on raw weights vs lifted on transformed weights\n"
	"  equal A B [--names]      compare two modules structurally\n"
	"\n"
	"FILE may be - for standard input. `rlx help COMMAND` (or `rlx COMMAND\n"
	"--help`) describes a command.\n"
	"\n"
	"environment (run, transform, verify):\n"
	"  RLX_NUM_THREADS=N        threads for the kernels (default: the online CPUs,\n"
	"                           shared among a host's ranks under mpirun; a value\n"
	"                           that is not a positive number is ignored)\n"
	"  RLX_ISA=avx2|generic     hold the generated code and the matmul kernels to\n"
	"                           that instruction set (default, or avx512: the host's)\n"
	"  RLX_NO_CACHE=1           no code cache (as --no-cache)\n"
	"  XDG_CACHE_HOME=DIR       the code cache is DIR/rlx (default ~/.cache/rlx;\n"
	"                           safe to delete at any time)\n"
	"\n"
	"exit status: 0 success, 1 the input is wrong, 2 wrong usage.\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{"check", cmd_check},
	{"dump", cmd_dump},
	{"lift", cmd_lift},
	{"run", cmd_run},
	{"transform", cmd_transform},
	{"init-weights", cmd_init_weights},
	{"verify", cmd_verify},
	{"equal", cmd_equal},
};

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	/* SIGINT, SIGTERM, SIGHUP remove the temporaries; a truncated
	 * checkpoint and a file-size limit are errors, not signals */
	rlx_install_signal_handlers();
	if (!strcmp(argv[1], "--version")) {
		printf("rlx %s\n", rlx_version());
		return EXIT_OK;
	}
	/* `rlx help COMMAND` is `rlx COMMAND --help` */
	char *help[] = {argv[0], argc > 2 ? argv[2] : NULL, "--help", NULL};
	if (!strcmp(argv[1], "help")) {
		if (argc == 2) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		argc = 3;
		argv = help;
	}
	const char *names[CLI_LEN(commands)];
	for (size_t i = 0; i < CLI_LEN(commands); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
		names[i] = commands[i].name;
	}
	const char *best = rlx_suggest(argv[1], names, (int)CLI_LEN(commands));
	if (best)
		fprintf(stderr, "rlx: unknown command '%s'; did you mean '%s'?\n"
			"run 'rlx --help' for the list of commands\n", argv[1], best);
	else
		fprintf(stderr, "rlx: unknown command '%s'\n\n%s", argv[1], usage_text);
	return EXIT_USAGE;
}
