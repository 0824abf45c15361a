/*
 * cli.c — what the commands share: reading files and modules, option
 * values, usage errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "cli.h"

/* Reads a whole file ("-" is stdin) into a malloc'ed buffer. */
char *
cli_read_file(const char *path, size_t *len)
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
rlx_module *
cli_load_module(const char *path)
{
	size_t len;
	char *text = cli_read_file(path, &len);
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

bool
cli_is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/*
 * The value of option opt at argv[*i], written `opt VALUE` (advances *i) or
 * `opt=VALUE`: NULL when argv[*i] is not that option; "" when the value is
 * missing.
 */
const char *
cli_opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

int
cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "rlx %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see `rlx %s --help`)\n", cmd);
	return EXIT_USAGE;
}
