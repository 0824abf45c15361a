/*
 * cli.c — what the commands share: reading files and modules, option
 * values, usage errors, the end of a command.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifdef RLX_HAVE_MPI
#include <mpi.h>
#endif

#include "cli.h"

/* The most model text read from what is not a regular file (standard
 * input, a pipe, a device such as /dev/zero); a regular file is read up to
 * its size (docs/cli.md, docs/security.md). */
#define TEXT_CAP ((size_t)256 << 20)

void
cli_list_push(CliList *l, const char *s)
{
	const char **items = realloc(l->items, sizeof *items * (size_t)(l->n + 1));
	if (!items) {
		fputs("rlx: out of memory\n", stderr);
		abort();
	}
	l->items = items;
	l->items[l->n++] = s;
}

void
cli_list_free(CliList *l)
{
	free(l->items);
	*l = (CliList){0};
}

double
cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

rlx_diags *
cli_diags(const char *cmd)
{
	char program[64];
	snprintf(program, sizeof program, "rlx %s", cmd);
	rlx_diags *d = rlx_diags_new();
	rlx_diags_set_program(d, program);
	return d;
}

/* Reads the whole of f (path names it) within the bounds above into a
 * malloc'ed buffer; NULL after an error in d. */
static char *
read_all(rlx_diags *d, FILE *f, const char *path, size_t *len)
{
	struct stat st;
	bool regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	size_t cap = regular ? (size_t)st.st_size : TEXT_CAP;
	char *p = NULL;
	size_t n = 0, size = 0, got;
	char buf[65536];
	while (n <= cap && (got = fread(buf, 1, sizeof buf, f)) > 0) {
		if (n + got + 1 > size) {
			size = (n + got + 1) * 2;
			char *q = realloc(p, size);
			if (!q) {
				free(p);
				rlx_diags_error(d, NULL, "cannot read %s: out of "
						"memory", path);
				return NULL;
			}
			p = q;
		}
		memcpy(p + n, buf, got);
		n += got;
	}
	if (!regular && n > cap) {
		rlx_diags_error(d, NULL, "%s: more than %zu MiB of model text "
				"(the limit for what is not a regular file)",
				strcmp(path, "-") ? path : "<stdin>", cap >> 20);
		free(p);
		return NULL;
	}
	if (ferror(f)) {
		rlx_diags_error(d, NULL, "cannot read %s: %s", path,
				strerror(errno));
		free(p);
		return NULL;
	}
	if (!p && !(p = malloc(1))) {
		rlx_diags_error(d, NULL, "cannot read %s: out of memory", path);
		return NULL;
	}
	p[n] = 0;
	*len = n;
	return p;
}

char *
cli_read_text(rlx_diags *d, const char *path, size_t *len, const char **name)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		rlx_diags_error(d, NULL, "cannot open %s: %s", path,
				strerror(errno));
		return NULL;
	}
	char *text = read_all(d, f, path, len);
	if (f != stdin)
		fclose(f);
	*name = strcmp(path, "-") ? path : "<stdin>";
	return text;
}

rlx_module *
cli_load_module(const char *cmd, const char *path)
{
	size_t len;
	const char *name;
	rlx_diags *d = cli_diags(cmd);
	char *text = cli_read_text(d, path, &len, &name);
	rlx_module *m = text ? rlx_parse(name, text, len, d) : NULL;
	free(text);
	cli_finish(cmd, m ? EXIT_OK : EXIT_INPUT, d, true);
	return m;
}

bool
cli_shared_option(char *arg, bool *shared, CliList *funcs)
{
	if (strcmp(arg, "--shared") && strncmp(arg, "--shared=", 9))
		return false;
	*shared = true;
	if (arg[8] == '=')
		for (char *t = strtok(arg + 9, ","); t; t = strtok(NULL, ","))
			cli_list_push(funcs, t);
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
	char *usage = status == RLX_EOPTIONS ? rlx_diags_take_last_error(d) : NULL;
	rlx_diags_show_warnings(d, warnings);
	rlx_diags_print(d, stderr);
	if (usage)
		cli_usage_error(cmd, "%s", usage);
	free(usage);
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
	char opts[64][64];
	const char *names[64];
	int nopt = 0;
	for (const char *p = help; (p = strchr(p, '-')); ) {
		size_t k = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
		if (k > 1 && k < sizeof opts[0] && nopt < 64 &&
		    (p == help || p[-1] == ' ' || p[-1] == '[' || p[-1] == '|')) {
			snprintf(opts[nopt], sizeof opts[0], "%.*s", (int)k, p);
			names[nopt] = opts[nopt];
			nopt++;
		}
		p += k ? k : 1;
	}
	const char *best = rlx_suggest(want, names, nopt);
	if (!best)
		return cli_usage_error(cmd, "unknown option %s", arg);
	return cli_usage_error(cmd, "unknown option %s; did you mean %s?", arg, best);
}
