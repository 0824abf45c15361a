/*
 * fuzz_rlx.c — the property every input must keep, for libFuzzer and for
 * replaying a corpus.
 *
 * Bytes go to rlx_parse. Text that is refused must come back as NULL with
 * at least one error, each at a location in the text. Text that parses is
 * compared with itself (rlx_equal), printed (TVMScript, tvm names, JSON,
 * dot), and printed text must parse again, print identically and be equal
 * to the module printed. The same is then done after each pass on its own
 * and after the whole "lift" pipeline, on a fresh parse each time: a pass
 * may refuse a module with a located error, but it must never leave it ill
 * formed ("internal error" from the verifier after a pass). Lifting the
 * lifted module (printed and parsed) must print the same again.
 *
 * Built with -DRLX_FUZZ_REPLAY, main() runs the property over the files
 * named on the command line (directories: every regular file in them), so
 * the corpus replays under ASan in `meson test` without libFuzzer. A broken
 * property aborts with the input's name and what broke.
 */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir.h"
#include "pass.h"

/* Larger inputs only slow the fuzzer; the CLI tests cover size. */
#define FUZZ_MAX_INPUT (64 * 1024)

/* Reports a broken property and aborts (the fuzzer saves the input). */
static _Noreturn void
fail(const char *what, const char *detail, const char *text)
{
	fprintf(stderr, "fuzz property broken: %s\n", what);
	if (detail)
		fprintf(stderr, "--- detail\n%s\n", detail);
	if (text)
		fprintf(stderr, "--- text\n%s\n---\n", text);
	abort();
}

/* Prints the diagnostics to nowhere (the printer quotes source lines, so
 * it must survive any text) and checks that each error is located. */
static void
drain(rlx_diags *d, bool need_location)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	rlx_diags_print(d, f);
	fclose(f);
	for (int i = 0; i < d->n; i++) {
		const DiagEntry *e = &d->items[i];
		if (!strncmp(e->msg, "internal error: ", 16))
			fail("a pass left the module ill formed", buf, NULL);
		if (need_location && e->level == DIAG_ERROR && e->span.line <= 0)
			fail("an error without a location", buf, NULL);
	}
	free(buf);
}

/* print_module_json and graph_dot must survive any module. */
static void
print_other_formats(rlx_module *m)
{
	StrBuf b = {0};
	print_module_json(&b, m);
	sb_free(&b);
	b = (StrBuf){0};
	graph_dot(&b, m);
	sb_free(&b);
	rlx_print_options o = {.tvm_names = true};
	free(rlx_print(m, &o));
}

/* The round trip: m prints to A, A parses to m2, m2 prints to A again,
 * and m2 equals m. `stage` names what made m. */
static void
check_roundtrip(rlx_module *m, const char *stage)
{
	char *why = NULL;
	if (!rlx_equal(m, m, true, &why))
		fail("a module differs from itself", why, stage);
	char *a = rlx_print(m, NULL);
	rlx_diags *d = rlx_diags_new();
	rlx_module *m2 = rlx_parse("printed.py", a, strlen(a), d);
	if (!m2) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		fprintf(f, "after %s:\n", stage);
		rlx_diags_print(d, f);
		fclose(f);
		fail("printed text does not parse", buf, a);
	}
	rlx_diags_free(d);
	char *b = rlx_print(m2, NULL);
	if (strcmp(a, b)) {
		fprintf(stderr, "--- second print\n%s\n", b);
		fail("printing is not a fixed point", stage, a);
	}
	if (!rlx_equal(m, m2, false, &why))
		fail("the printed module is not equal to the module", why, a);
	print_other_formats(m2);
	free(b);
	free(a);
	rlx_module_free(m2);
}

/* Parses the text, runs `passes` (NULL: none) and checks the result. */
static void
check_after(const char *text, size_t len, const char *passes)
{
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("fuzz.py", text, len, d);
	if (!m)
		fail("a module that parsed once does not parse again", NULL, NULL);
	int errors = rlx_run_passes(m, passes, d);
	drain(d, false);
	if (!errors)
		check_roundtrip(m, passes);
	rlx_module_free(m);
	rlx_diags_free(d);
}

/*
 * Lifting is idempotent: the lifted module, printed, parsed and lifted
 * again, prints the same. Not for modules with R.builtin.stop_lift_params:
 * lifting drops the call (TVM's rule), so a second lift may go past it.
 */
static void
check_lift_idempotent(const char *text, size_t len)
{
	if (memmem(text, len, "stop_lift_params", 16))
		return;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("fuzz.py", text, len, d);
	int errors = m ? rlx_run_passes(m, "lift", d) : 1;
	rlx_diags_free(d);
	if (errors) {
		rlx_module_free(m);
		return;
	}
	char *a = rlx_print(m, NULL);
	rlx_module_free(m);
	d = rlx_diags_new();
	rlx_module *m2 = rlx_parse("lifted.py", a, strlen(a), d);
	errors = m2 ? rlx_run_passes(m2, "lift", d) : 1;
	if (errors) {
		char *buf = NULL;
		size_t blen = 0;
		FILE *f = open_memstream(&buf, &blen);
		rlx_diags_print(d, f);
		fclose(f);
		fail("lifting the lifted module fails", buf, a);
	}
	rlx_diags_free(d);
	char *b = rlx_print(m2, NULL);
	if (strcmp(a, b)) {
		fprintf(stderr, "--- lifted twice\n%s\n", b);
		fail("lifting is not idempotent", NULL, a);
	}
	free(a);
	free(b);
	rlx_module_free(m2);
}

/* The property, over one input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	/* An exact-size copy, so that ASan sees any read past the end. */
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("fuzz.py", text, size, d);
	if (!m && rlx_diags_errors(d) == 0)
		fail("refused without an error", NULL, NULL);
	if (m && rlx_diags_errors(d) != 0)
		fail("accepted with errors", NULL, NULL);
	drain(d, true);
	rlx_diags_free(d);
	if (m) {
		check_roundtrip(m, "parse");
		print_other_formats(m);
		rlx_module_free(m);
		int n;
		const Pass *t = pass_table(&n);
		for (int i = 0; i < n; i++)
			check_after(text, size, t[i].name);
		check_after(text, size, "lift");
		check_lift_idempotent(text, size);
	}
	free(text);
	return 0;
}

#ifdef RLX_FUZZ_REPLAY
/* Runs the property over one file. */
static void
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	StrBuf b = {0};
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_putn(&b, chunk, k);
	fclose(f);
	fprintf(stderr, "replay %s\n", path);
	LLVMFuzzerTestOneInput((const uint8_t *)(b.p ? b.p : ""), b.len);
	sb_free(&b);
}

/* Replays every regular file of a directory (not recursive), sorted. */
static int
replay_dir(const char *dir)
{
	char *pat = NULL;
	if (asprintf(&pat, "%s/*", dir) < 0)
		abort();
	glob_t g;
	int count = 0;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct stat st;
			if (!stat(g.gl_pathv[i], &st) && S_ISREG(st.st_mode)) {
				replay_file(g.gl_pathv[i]);
				count++;
			}
		}
		globfree(&g);
	}
	free(pat);
	return count;
}

int
main(int argc, char **argv)
{
	int count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			count += replay_dir(argv[i]);
		} else {
			replay_file(argv[i]);
			count++;
		}
	}
	printf("%d passed, 0 failed\n", count);
	return 0;
}
#endif
