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
 * rlx_diags_errors counts them all. */
void rlx_diags_print(const rlx_diags *d, FILE *out);

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
} rlx_print_options;

/* The module as TVMScript; malloc'ed, the caller frees. opts may be NULL. */
char *rlx_print(const rlx_module *m, const rlx_print_options *opts);

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

const char *rlx_version(void);

#ifdef __cplusplus
}
#endif
#endif
