/*
 * cli.c — what the commands share: reading files and modules, option
 * values, usage errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef RLX_HAVE_MPI
#include <mpi.h>
#endif

#include "ir.h"
#include "rlx_runtime.h"
#include "rt_exec.h"
#include "cli.h"

/* The most model text read from what is not a regular file (standard
 * input, a pipe, a device such as /dev/zero); a regular file is read up to
 * its size (docs/cli.md, docs/security.md). */
#define TEXT_CAP ((size_t)256 << 20)

/* Reads a whole file ("-" is stdin) into a malloc'ed buffer, within the
 * bounds above. */
char *
cli_read_file(const char *cmd, const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "rlx %s: error: cannot open %s: %s\n", cmd, path,
			strerror(errno));
		return NULL;
	}
	struct stat st;
	bool regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	size_t cap = regular ? (size_t)st.st_size : TEXT_CAP;
	StrBuf b = {0};
	char buf[65536];
	size_t n;
	while (b.len <= cap && (n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	if (!regular && b.len > cap) {
		fprintf(stderr, "rlx %s: error: %s: more than %zu MiB of model "
			"text (the limit for what is not a regular file)\n", cmd,
			strcmp(path, "-") ? path : "<stdin>", cap >> 20);
		if (f != stdin)
			fclose(f);
		sb_free(&b);
		return NULL;
	}
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		fprintf(stderr, "rlx %s: error: cannot read %s: %s\n", cmd, path,
			strerror(errno));
		sb_free(&b);
		return NULL;
	}
	*len = b.len;
	return sb_take(&b);
}

/* A file's text for parsing: NULL after printing why when it cannot be
 * read or is not text. *name is how messages name it. */
char *
cli_read_text(const char *cmd, const char *path, size_t *len, const char **name)
{
	char *text = cli_read_file(cmd, path, len);
	if (!text)
		return NULL;
	*name = strcmp(path, "-") ? path : "<stdin>";
	/* NUL bytes and malformed UTF-8: located by the parser */
	return text;
}

/* Parses a file into a module, printing diagnostics; NULL on error. */
rlx_module *
cli_load_module(const char *cmd, const char *path)
{
	size_t len;
	const char *name;
	char *text = cli_read_text(cmd, path, &len, &name);
	if (!text)
		return NULL;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse(name, text, len, d);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	free(text);
	return m;
}

bool
cli_shared_option(char *arg, bool *shared, Vec *funcs)
{
	if (strcmp(arg, "--shared") && strncmp(arg, "--shared=", 9))
		return false;
	*shared = true;
	if (arg[8] == '=')
		for (char *t = strtok(arg + 9, ","); t; t = strtok(NULL, ","))
			vec_push(funcs, t);
	return true;
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
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "rlx %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(see `rlx %s --help`)\n", cmd);
	va_end(ap);
	return EXIT_USAGE;
}

bool
cli_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

bool
cli_dim_add(CliDims *d, char *arg)
{
	char *eq = strchr(arg, '=');
	uint64_t v;
	if (!eq || eq == arg || !cli_parse_u64(eq + 1, &v) || v > INT64_MAX)
		return false;
	*eq = 0;
	d->names = realloc(d->names, sizeof *d->names * (size_t)(d->n + 1));
	d->values = realloc(d->values, sizeof *d->values * (size_t)(d->n + 1));
	d->names[d->n] = arg;
	d->values[d->n++] = (int64_t)v;
	return true;
}

void
cli_dims_free(CliDims *d)
{
	free(d->names);
	free(d->values);
}

/* Ends every process of an mpirun run (MPI_Abort) with status code, or
 * this process alone when MPI is not running. */
static _Noreturn void
abort_run(int code)
{
	fflush(stdout);
	fflush(stderr);
#ifdef RLX_HAVE_MPI
	int inited = 0, done = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&done);
	if (inited && !done)
		MPI_Abort(MPI_COMM_WORLD, code);
#endif
	exit(code);
}

int
cli_finish(const char *cmd, int status, rlx_diags *d, bool warnings)
{
	int n = d->n;
	if (status == RLX_EOPTIONS && n && d->items[n - 1].level == DIAG_ERROR)
		n--;
	diag_print_some(d, stderr, warnings, n);
	if (n != d->n)
		cli_usage_error(cmd, "%s", d->items[n].msg);
	rlx_diags_free(d);
	if (status == RLX_EABORT)
		abort_run(EXIT_INPUT);
	return status;
}

const char *
cli_weights_value(int argc, char **argv, int *i)
{
	const char *v = cli_opt_value(argc, argv, i, "--weights");
	return v ? v : cli_opt_value(argc, argv, i, "--params");
}

int
cli_unknown_option(const char *cmd, const char *help, const char *arg)
{
	/* the options the command's help names: `--name` and `-o` */
	size_t n = strcspn(arg, "=");
	char want[64];
	snprintf(want, sizeof want, "%.*s", (int)(n < 63 ? n : 63), arg);
	char opts[64][64], best[64];
	int nopt = 0;
	Suggest s = {.want = want};
	for (const char *p = help; (p = strchr(p, '-')); ) {
		size_t k = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
		if (k > 1 && k < sizeof opts[0] && nopt < 64 &&
		    (p == help || p[-1] == ' ' || p[-1] == '[' || p[-1] == '|')) {
			snprintf(opts[nopt], sizeof opts[0], "%.*s", (int)k, p);
			suggest_offer(&s, opts[nopt++]);
		}
		p += k ? k : 1;
	}
	if (!s.best)
		return cli_usage_error(cmd, "unknown option %s", arg);
	snprintf(best, sizeof best, "%s", s.best);
	return cli_usage_error(cmd, "unknown option %s; did you mean %s?", arg, best);
}
