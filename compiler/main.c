/*
 * main.c — the rlx command line: a thin layer over librlx.
 *
 * Each command is a function cmd_NAME(argc, argv) returning the exit status:
 * 0 success, 1 the input is wrong, 2 wrong usage. Nothing here prints IR by
 * itself; it reads files, calls the library and reports its diagnostics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
	"usage: rlx COMMAND [ARGS]\n"
	"\n"
	"commands:\n"
	"  check FILE...            parse and verify; prints nothing when the input is well formed\n"
	"  dump FILE                print the module as parsed (normalized, checked)\n"
	"  equal A B [--names]      compare two modules structurally\n"
	"\n"
	"FILE may be - for standard input. `rlx COMMAND --help` describes a command.\n"
	"exit status: 0 success, 1 the input is wrong, 2 wrong usage.\n";

/* Reads a whole file ("-" is stdin) into a malloc'ed buffer. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "rlx: error: cannot open %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	StrBuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		fprintf(stderr, "rlx: error: cannot read %s: %s\n", path,
			strerror(errno));
		sb_free(&b);
		return NULL;
	}
	*len = b.len;
	return sb_take(&b);
}

/* Parses a file into a module, printing diagnostics; NULL on error. */
static rlx_module *
load_module(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return NULL;
	if (memchr(text, 0, len)) {
		fprintf(stderr, "%s: error: not a text file (contains NUL bytes)\n",
			strcmp(path, "-") ? path : "<stdin>");
		free(text);
		return NULL;
	}
	rlx_diags *d = rlx_diags_new();
	rlx_module *m =
		rlx_parse(strcmp(path, "-") ? path : "<stdin>", text, len, d);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	free(text);
	return m;
}

static bool
is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static int
usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "rlx %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see `rlx %s --help`)\n", cmd);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ check */

static const char check_help[] =
	"usage: rlx check FILE...\n"
	"\n"
	"Parses and verifies each FILE (TVMScript, Relax dialect). Prints nothing\n"
	"when all are well formed; otherwise prints located errors and exits 1.\n";

static int
cmd_check(int argc, char **argv)
{
	int nfiles = 0, status = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(check_help, stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error("check", "unknown option %s", argv[i]);
	}
	for (int i = 1; i < argc; i++) {
		nfiles++;
		rlx_module *m = load_module(argv[i]);
		if (!m)
			status = EXIT_INPUT;
		rlx_module_free(m);
	}
	if (!nfiles)
		return usage_error("check", "%s", "needs at least one FILE");
	return status;
}

/* ------------------------------------------------------------------- dump */

static const char dump_help[] =
	"usage: rlx dump FILE [--tvm-names]\n"
	"\n"
	"Prints the module as parsed: normalized (nested calls bound to\n"
	"variables), with every binding's struct info, in canonical TVMScript.\n"
	"\n"
	"  --tvm-names   write names TVM's parser accepts (dots become _)\n";

static int
cmd_dump(int argc, char **argv)
{
	const char *file = NULL;
	rlx_print_options opts = {0};
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(dump_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			opts.tvm_names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("dump", "unknown option %s", argv[i]);
		} else if (file) {
			return usage_error("dump", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return usage_error("dump", "%s", "needs a FILE");
	rlx_module *m = load_module(file);
	if (!m)
		return EXIT_INPUT;
	char *text = rlx_print(m, &opts);
	fputs(text, stdout);
	free(text);
	rlx_module_free(m);
	return EXIT_OK;
}

/* ------------------------------------------------------------------ equal */

static const char equal_help[] =
	"usage: rlx equal A B [--names]\n"
	"\n"
	"Compares two modules structurally, as TVM's assert_structural_equal:\n"
	"variables are matched by position, names ignored unless --names.\n"
	"Exit 0 when equal; 1 with the first difference located in both files.\n";

static int
cmd_equal(int argc, char **argv)
{
	const char *files[2];
	int nfiles = 0;
	bool names = false;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(equal_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--names")) {
			names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("equal", "unknown option %s", argv[i]);
		} else if (nfiles == 2) {
			return usage_error("equal", "unexpected argument %s", argv[i]);
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles != 2)
		return usage_error("equal", "%s", "needs two files A and B");
	rlx_module *a = load_module(files[0]);
	rlx_module *b = a ? load_module(files[1]) : NULL;
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

/* ------------------------------------------------------------------- main */

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{"check", cmd_check},
	{"dump", cmd_dump},
	{"equal", cmd_equal},
};

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (is_help(argv[1])) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rlx %s\n", rlx_version());
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rlx: unknown command '%s'\n\n%s", argv[1], usage_text);
	return EXIT_USAGE;
}
