/*
 * cli.h — the rlx command line (cli/): the commands, one per file cmd_*.c,
 * and what they share (cli.c). Each command parses its arguments, calls the
 * library and prints; it returns the exit status. The CLI is the only layer
 * that prints to a terminal or decides an exit status; it may use every
 * part of rlx.
 */
#ifndef RLX_CLI_H
#define RLX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "rlx.h"
#include "rlx_runtime.h"

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

/* A whole file ("-" is stdin), malloc'ed; NULL after printing why as
 * "rlx CMD: error: ...". */
char *cli_read_file(const char *cmd, const char *path, size_t *len);
/* A file's text for parsing (not a text file: an error); *name is how
 * messages call it ("<stdin>" for -). NULL after printing why. */
char *cli_read_text(const char *cmd, const char *path, size_t *len,
		    const char **name);
/* Parses a file into a module, printing diagnostics; NULL on error. */
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
bool cli_shared_option(char *arg, bool *shared, Vec *funcs);

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

/* After a library call: prints d (warnings only when `warnings`), an
 * RLX_EOPTIONS error as a usage error of cmd, frees d; returns status
 * (RLX_* are the exit statuses). RLX_EABORT (under mpirun, the others may
 * wait for this process) does not return: the whole run ends (MPI_Abort)
 * with status 1 once d is printed. */
int cli_finish(const char *cmd, int status, rlx_diags *d, bool warnings);

#endif
