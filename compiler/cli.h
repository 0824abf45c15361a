/*
 * cli.h — the commands of the rlx command line that run code. Each returns
 * the exit status: 0 success, 1 the input is wrong, 2 wrong usage.
 * main.c dispatches to them; they may use every part of rlx.
 */
#ifndef RLX_CLI_H
#define RLX_CLI_H

#include "rlx.h"

/* cli_run.c */
int cmd_run(int argc, char **argv);

/* cli_transform.c */
int cmd_transform(int argc, char **argv);
int cmd_init_weights(int argc, char **argv);
int cmd_verify(int argc, char **argv);
/* A transform in TVM's convention (one tuple of the weights) takes one
 * named parameter per weight instead, names[i] when given (may be NULL),
 * else as the module names them; false after a message on failure. */
struct Func;
bool cli_unbundle(rlx_module *m, struct Func *t, const char **names);

/* main.c: shared helpers */
char *cli_read_file(const char *path, size_t *len);
rlx_module *cli_load_module(const char *path);
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The value of option opt at argv[*i] (`opt V` or `opt=V`): NULL when it
 * is another argument, "" when the value is missing. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *opt);

#endif
