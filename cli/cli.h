/*
 * cli.h — the rlx command line (cli/): the commands, one per file cmd_*.c,
 * and what they share (cli.c). Each command parses its arguments, calls the
 * library and prints; it returns the exit status. The CLI is the only layer
 * that prints to a terminal or decides an exit status. It sees the library
 * through its public interface only, rlx.h and rlx_runtime.h (the build
 * gives cli/ no other include directory), as any program would.
 *
 * Errors go one way: into an rlx_diags, the CLI's own (a file it cannot
 * read) as the library's, printed by the library's renderer at the end of
 * the command (cli_finish) — `FILE:LINE:COL: error: ...` with the line and
 * a caret, `rlx CMD: error: ...` for what is about no file. Usage errors
 * (exit 2) are cli_usage_error's `rlx CMD: MESSAGE` and a pointer to
 * --help, an RLX_EOPTIONS error of the library among them.
 */
#ifndef RLX_CLI_H
#define RLX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rlx.h>
#include <rlx_runtime.h>

/* The exit status of every command (docs/cli.md): the engines' statuses,
 * which a command returns as they are. */
enum { EXIT_OK = RLX_OK, EXIT_INPUT = RLX_EINPUT, EXIT_USAGE = RLX_EOPTIONS };

/* The commands, each `int cmd_NAME(int argc, char **argv)` with argv[0]
 * the command's name. */
int cmd_check(int argc, char **argv);        /* cmd_check.c */
int cmd_dump(int argc, char **argv);         /* cmd_dump.c */
int cmd_lift(int argc, char **argv);         /* cmd_lift.c */
int cmd_equal(int argc, char **argv);        /* cmd_equal.c */
int cmd_run(int argc, char **argv);          /* cmd_run.c */
int cmd_transform(int argc, char **argv);    /* cmd_transform.c */
int cmd_init_weights(int argc, char **argv); /* cmd_init_weights.c */
int cmd_verify(int argc, char **argv);       /* cmd_verify.c */

/* ------------------------------------------------------------------ cli.c */

/* A growing list of strings (pointers into argv, not copied). */
typedef struct {
	const char **items;
	int n;
} CliList;
void cli_list_push(CliList *l, const char *s);
void cli_list_free(CliList *l);

/* The number of elements of a static array. */
#define CLI_LEN(a) (sizeof(a) / sizeof *(a))

/* Monotonic time in seconds, for --time. */
double cli_now(void);

/* The diagnostics of command cmd: what names no file is printed
 * `rlx CMD: error: ...`. */
rlx_diags *cli_diags(const char *cmd);
/* A file's text for parsing ("-" is stdin), malloc'ed; *name is how
 * messages call it ("<stdin>" for -). NULL after an error in d. NUL bytes
 * and malformed UTF-8 are the parser's to locate. */
char *cli_read_text(rlx_diags *d, const char *path, size_t *len,
		    const char **name);
/* Reads and parses a file into a module, its diagnostics printed; NULL
 * on error. */
rlx_module *cli_load_module(const char *cmd, const char *path);
/* --help or -h */
bool cli_is_help(const char *arg);
/* Prints `rlx CMD: MESSAGE` (printf's fmt and arguments) and a pointer to
 * --help: every usage error. Returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The value of option opt at argv[*i] (`opt V` or `opt=V`): NULL when it
 * is another argument, "" when the value is missing. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *opt);

/* The value of --weights or its alias --params (as cli_opt_value). */
const char *cli_weights_value(int argc, char **argv, int *i);
/* The usage error of an unknown option, suggesting the closest option
 * that the command's help text names. */
int cli_unknown_option(const char *cmd, const char *help, const char *arg);

/* `--shared` or `--shared=F1,F2,...` (sets *shared, appends the names,
 * which point into arg, to funcs): false when arg is another argument. */
bool cli_shared_option(char *arg, bool *shared, CliList *funcs);

/* A non-negative decimal integer. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* `--dim NAME=VALUE` arguments (the names point into argv). */
typedef struct {
	const char **names;
	int64_t *values;
	int n;
} CliDims;
/* Adds NAME=VALUE (arg is split in place); false when malformed. */
bool cli_dim_add(CliDims *d, char *arg);
void cli_dims_free(CliDims *d);

/* At the end of a command (after a library call): prints d (warnings
 * only when `warnings`), an RLX_EOPTIONS error as a usage error of cmd,
 * frees d; returns status (RLX_* are the exit statuses). RLX_EABORT
 * (under mpirun, the others may wait for this process) does not return:
 * the whole run ends (MPI_Abort) with status 1 once d is printed. */
int cli_finish(const char *cmd, int status, rlx_diags *d, bool warnings);

#endif
