/*
 * rlx.h — the public interface of librlx.
 *
 * Parse Relax TVMScript into a module, check it, run passes over it, print
 * it, compare two modules. No globals, nothing exits: every function that can
 * fail reports into an rlx_diags and returns an error indication.
 */
#ifndef RLX_H
#define RLX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RLX_VERSION "0.1.0"

typedef struct rlx_module rlx_module;
typedef struct rlx_diags rlx_diags;

/* Diagnostics: a list of located errors, warnings and their notes. */
rlx_diags *rlx_diags_new(void);
void rlx_diags_free(rlx_diags *d);
int rlx_diags_errors(const rlx_diags *d);
int rlx_diags_warnings(const rlx_diags *d);
/* Writes `FILE:LINE:COL: error: MSG` (or `warning:`), the source line and a caret, for
 * the first 50 errors (with their notes), then a count of the rest;
 * rlx_diags_errors counts them all. A diagnostic about a file as a whole
 * is written `FILE: error: MSG`, one about no file `PROGRAM: error: MSG`. */
void rlx_diags_print(const rlx_diags *d, FILE *out);
/* The PROGRAM of the diagnostics that name no file (default "rlx"; a
 * command line gives its command: "rlx run"); copied. */
void rlx_diags_set_program(rlx_diags *d, const char *program);
/* Whether rlx_diags_print writes warnings (default true); they are counted
 * either way. */
void rlx_diags_show_warnings(rlx_diags *d, bool show);
/* Adds an error about the file `file` as a whole (`FILE: error: MSG`), or
 * with file NULL about none (`PROGRAM: error: MSG`): the program's own
 * errors, reported the one way the library reports its. fmt as printf's;
 * control bytes of the message are escaped when printed. */
void rlx_diags_error(rlx_diags *d, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* When the last diagnostic of d is an error: its message (malloc'ed, the
 * caller frees), removed from d; else NULL. The library reports an
 * option that names what the module does not have (RLX_EOPTIONS of
 * rlx_runtime.h) last, so that a command line can show it as a usage
 * error instead. */
char *rlx_diags_take_last_error(rlx_diags *d);

/*
 * Parses TVMScript (the Relax dialect), normalizes it, infers struct info
 * and verifies it. Returns NULL, with errors in d, when the text is wrong.
 * `filename` is used in messages only.
 */
rlx_module *rlx_parse(const char *filename, const char *text, size_t len,
		      rlx_diags *d);
void rlx_module_free(rlx_module *m);

/* Re-runs the verifier; returns the number of errors reported. */
int rlx_verify(rlx_module *m, rlx_diags *d);

typedef struct {
	bool tvm_names; /* rename dotted names so that TVM can parse the text */
	bool tir_release; /* prim_funcs as TVM releases write them (T.block,
			   * T.alloc_buffer), not as TVM main does (T.sblock,
			   * s_tir=True) */
} rlx_print_options;

/* The module as TVMScript; malloc'ed, the caller frees. opts may be NULL. */
char *rlx_print(const rlx_module *m, const rlx_print_options *opts);
/* The module as JSON, the IR for tools (docs/formats.md); malloc'ed. */
char *rlx_print_json(const rlx_module *m);
/* The dataflow graph of each function in Graphviz dot, the bindings that
 * lift-transform-params would move drawn apart; malloc'ed. */
char *rlx_print_dot(const rlx_module *m);

/* Structural equality (alpha-equivalence; names too when `names`). When the
 * modules differ and why != NULL, *why receives a malloc'ed message locating
 * the first difference in both modules. */
bool rlx_equal(const rlx_module *a, const rlx_module *b, bool names,
	       char **why);

/*
 * Runs passes in order, by name, comma-separated ("convert-ssa,
 * canonicalize-bindings"); "lift" runs the whole `rlx lift` pipeline. The
 * verifier runs after each pass. Returns the number of errors (unknown pass
 * names included).
 */
int rlx_run_passes(rlx_module *m, const char *passes, rlx_diags *d);
/* The passes rlx_run_passes knows, in the pipeline table's order: the
 * name of pass i (kebab-case) and one line saying what it does; NULL when
 * i is out of range. */
const char *rlx_pass_name(int i);
const char *rlx_pass_doc(int i);

/* Of the n names, the one closest to `want` that want may be a
 * misspelling of (the library's own "did you mean" rule; never want
 * itself), or NULL when none is close enough. */
const char *rlx_suggest(const char *want, const char *const *names, int n);

const char *rlx_version(void);

#ifdef __cplusplus
}
#endif
#endif
