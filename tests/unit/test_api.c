/*
 * test_api.c — librlx as a C user sees it: only rlx.h and rlx_runtime.h,
 * linked against the shared library (whose exports are limited to rlx_*).
 * What `rlx` (cli/) does through the same interface is tested here too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlx.h"
#include "rlx_runtime.h"

static const char model[] =
	"@I.ir_module\n"
	"class Module:\n"
	"    @R.function\n"
	"    def main(x: R.Tensor((2, 4), \"float32\"), w: R.Tensor((3, 4), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
	"        R.func_attr({\"num_input\": 1})\n"
	"        with R.dataflow():\n"
	"            wt = R.permute_dims(w)\n"
	"            y = R.matmul(x, wt)\n"
	"            R.output(y)\n"
	"        return y\n";

static void
test_parse_print_roundtrip(void **state)
{
	(void)state;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("model.py", model, strlen(model), d);
	assert_non_null(m);
	assert_int_equal(rlx_diags_errors(d), 0);
	char *text = rlx_print(m, NULL);
	assert_non_null(strstr(text, "R.permute_dims(w, axes=None)"));
	rlx_module *m2 = rlx_parse("again.py", text, strlen(text), d);
	assert_non_null(m2);
	char *text2 = rlx_print(m2, NULL);
	assert_string_equal(text, text2);
	assert_true(rlx_equal(m, m2, true, NULL));
	free(text);
	free(text2);
	rlx_module_free(m);
	rlx_module_free(m2);
	rlx_diags_free(d);
}

static void
test_lift_through_the_api(void **state)
{
	(void)state;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("model.py", model, strlen(model), d);
	assert_non_null(m);
	assert_int_equal(rlx_run_passes(m, "lift", d), 0);
	char *text = rlx_print(m, NULL);
	assert_non_null(strstr(text, "def main_transform_params(params: R.Tuple("));
	assert_non_null(strstr(text, "def main(x: R.Tensor((2, 4), dtype=\"float32\"), wt:"));
	free(text);
	assert_int_equal(rlx_run_passes(m, "no-such-pass", d), 1);
	rlx_module_free(m);
	rlx_diags_free(d);
}

static void
test_errors_are_returned(void **state)
{
	(void)state;
	const char *bad = "@I.ir_module\nclass M:\n    @R.function\n"
			  "    def f(x: R.Tensor((2,), \"float8\")):\n        return x\n";
	rlx_diags *d = rlx_diags_new();
	assert_null(rlx_parse("bad.py", bad, strlen(bad), d));
	assert_true(rlx_diags_errors(d) > 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rlx_diags_print(d, f);
	fclose(f);
	assert_non_null(strstr(buf, "bad.py:4:"));
	assert_non_null(strstr(buf, "error:"));
	free(buf);
	rlx_diags_free(d);
}

/* The runtime's engines are exported too; a module without a function
 * to work on is the input's error, reported, not printed. */
static void
test_runtime_through_the_api(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def f(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        return x\n";
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(rlx_init_weights("m.py", text, sizeof text - 1,
					  "/nonexistent/w.safetensors", NULL, d),
			 RLX_EINPUT);
	assert_int_equal(rlx_diags_errors(d), 1);
	rlx_transform_stats st;
	assert_int_equal(rlx_transform("m.py", text, sizeof text - 1,
				       "/nonexistent", "/nonexistent/out", NULL,
				       &st, d),
			 RLX_EINPUT);
	assert_int_equal(rlx_diags_errors(d), 2);
	rlx_diags_free(d);
}

/* What d prints, malloc'ed. */
static char *
printed(const rlx_diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rlx_diags_print(d, f);
	fclose(f);
	return buf;
}

/* A program's own errors go the library's way: named by the program when
 * about no file, by the file otherwise; an options error can be taken off
 * to be shown as a usage error; warnings can be left out. */
static void
test_diags_of_a_program(void **state)
{
	(void)state;
	rlx_diags *d = rlx_diags_new();
	rlx_diags_error(d, NULL, "cannot open %s: %s", "x.py", "No such file");
	char *out = printed(d);
	assert_string_equal(out, "rlx: error: cannot open x.py: No such file\n");
	free(out);
	rlx_diags_set_program(d, "rlx run");
	rlx_diags_error(d, "w.safetensors", "bad \x1b byte");
	out = printed(d);
	assert_string_equal(out, "rlx run: error: cannot open x.py: No such file\n"
			    "w.safetensors: error: bad \\x1b byte\n");
	free(out);
	assert_int_equal(rlx_diags_errors(d), 2);
	char *last = rlx_diags_take_last_error(d);
	assert_string_equal(last, "bad \\x1b byte");
	free(last);
	assert_int_equal(rlx_diags_errors(d), 1);
	rlx_diags_free(d);

	/* a warning (a tensor of the checkpoint that no weight takes) is
	 * counted whether or not it is shown, and is no error to take */
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def main(w1: R.Tensor((2,), dtype=\"float32\"), w2: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        R.func_attr({\"num_input\": 0})\n"
		"        return w1\n"
		"    @R.function\n"
		"    def h(w1: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        R.func_attr({\"num_input\": 0})\n"
		"        return w1\n";
	char dir[] = "/tmp/rlx-test-api-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/w.safetensors", dir);
	d = rlx_diags_new();
	assert_int_equal(rlx_init_weights("m.py", text, sizeof text - 1, path,
					  NULL, d), RLX_OK);
	rlx_run_options o = {.func = "h", .rank = -1};
	rlx_run_result res;
	assert_int_equal(rlx_run("m.py", text, sizeof text - 1, path, &o, &res, d),
			 RLX_OK);
	rlx_run_result_free(&res);
	assert_int_equal(rlx_diags_errors(d), 0);
	assert_int_equal(rlx_diags_warnings(d), 1);
	assert_null(rlx_diags_take_last_error(d));
	rlx_diags_show_warnings(d, false);
	out = printed(d);
	assert_string_equal(out, "");
	free(out);
	rlx_diags_show_warnings(d, true);
	out = printed(d);
	assert_non_null(strstr(out, "w.safetensors: warning: "));
	assert_non_null(strstr(out, "'w2'"));
	free(out);
	assert_int_equal(rlx_diags_warnings(d), 1);
	rlx_diags_free(d);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The pass table and the "did you mean" rule, as `rlx dump` uses them. */
static void
test_pass_table_and_suggest(void **state)
{
	(void)state;
	assert_string_equal(rlx_pass_name(0), "convert-ssa");
	assert_non_null(rlx_pass_doc(0));
	int n = 0;
	while (rlx_pass_name(n))
		n++;
	assert_true(n >= 5);
	assert_null(rlx_pass_name(n));
	assert_null(rlx_pass_doc(-1));
	const char *names[] = {"convert-ssa", "bind-params", "dead-code-elimination"};
	assert_string_equal(rlx_suggest("convert-sa", names, 3), "convert-ssa");
	assert_string_equal(rlx_suggest("Bind-Params", names, 3), "bind-params");
	assert_null(rlx_suggest("frobnicate", names, 3));
	assert_null(rlx_suggest("bind-params", names + 1, 1));
}

static void
test_print_formats(void **state)
{
	(void)state;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("model.py", model, strlen(model), d);
	assert_non_null(m);
	char *json = rlx_print_json(m), *dot = rlx_print_dot(m);
	assert_true(json[0] == '{' && strstr(json, "\"main\""));
	assert_true(!strncmp(dot, "digraph", 7) && strstr(dot, "matmul"));
	free(json);
	free(dot);
	rlx_module_free(m);
	rlx_diags_free(d);
}

/* rlx_run_passes_with's after sees each pass; a bind array that cannot
 * be read is an error before any pass runs. */
static void
count_after(const char *pass, const rlx_module *m, void *ctx)
{
	char *seen = ctx;
	assert_non_null(m);
	strcat(seen, pass);
	strcat(seen, ";");
}

static void
test_passes_with_options(void **state)
{
	(void)state;
	rlx_diags *d = rlx_diags_new();
	rlx_module *m = rlx_parse("model.py", model, strlen(model), d);
	assert_non_null(m);
	char seen[256] = "";
	rlx_passes_options o = {.after = count_after, .ctx = seen};
	assert_int_equal(rlx_run_passes_with(m, "convert-ssa,lift-transform-params",
					     &o, d), 0);
	assert_string_equal(seen, "convert-ssa;lift-transform-params;");
	seen[0] = 0;
	const char *names[] = {"w"}, *values[] = {"@/nonexistent/w.npy"};
	o.bind_names = names;
	o.bind_values = values;
	o.nbinds = 1;
	assert_true(rlx_run_passes_with(m, "bind-params", &o, d) > 0);
	assert_string_equal(seen, "");
	char *out = printed(d);
	assert_non_null(strstr(out, "--bind w: "));
	assert_non_null(strstr(out, "/nonexistent/w.npy"));
	free(out);
	rlx_module_free(m);
	rlx_diags_free(d);
}

/* rlx_run writes its result where out says: a tensor to a .npy file, a
 * tuple as a directory with its manifest; a tuple refused a .npy name
 * before it runs; without out the result is kept and shown as text. */
static void
test_run_writes_out(void **state)
{
	(void)state;
	static const char text[] =
		"@I.ir_module\n"
		"class Module:\n"
		"    @R.function\n"
		"    def f() -> R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((3,), dtype=\"int32\")):\n"
		"        a = R.zeros(R.shape([2]), dtype=\"float32\")\n"
		"        b = R.ones(R.shape([3]), dtype=\"int32\")\n"
		"        return (a, b)\n"
		"    @R.function\n"
		"    def g() -> R.Tensor((2,), dtype=\"float32\"):\n"
		"        a = R.ones(R.shape([2]), dtype=\"float32\")\n"
		"        return a\n";
	char dir[] = "/tmp/rlx-test-api-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	struct stat st;
	rlx_diags *d = rlx_diags_new();
	rlx_run_result res;

	snprintf(path, sizeof path, "%s/g.npy", dir);
	rlx_run_options o = {.func = "g", .rank = -1, .out = path};
	assert_int_equal(rlx_run("m.py", text, sizeof text - 1, NULL, &o, &res, d),
			 RLX_OK);
	assert_null(rlx_run_result_text(&res));
	rlx_run_result_free(&res);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(unlink(path), 0);

	snprintf(path, sizeof path, "%s/f.npy", dir);
	o.func = "f";
	assert_int_equal(rlx_run("m.py", text, sizeof text - 1, NULL, &o, &res, d),
			 RLX_EINPUT);
	rlx_run_result_free(&res);
	assert_int_equal(rlx_diags_errors(d), 1);
	assert_int_equal(stat(path, &st), -1);

	snprintf(path, sizeof path, "%s/f", dir);
	assert_int_equal(rlx_run("m.py", text, sizeof text - 1, NULL, &o, &res, d),
			 RLX_OK);
	rlx_run_result_free(&res);
	const char *files[] = {"0.npy", "1.npy", "fields.json"};
	for (int i = 0; i < 3; i++) {
		char p[160];
		snprintf(p, sizeof p, "%s/%s", path, files[i]);
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(rmdir(path), 0);

	o.out = NULL;
	assert_int_equal(rlx_run("m.py", text, sizeof text - 1, NULL, &o, &res, d),
			 RLX_OK);
	char *shown = rlx_run_result_text(&res);
	assert_string_equal(shown, "f[0]: float32 (2,)\n[0, 0]\n"
			    "f[1]: int32 (3,)\n[1, 1, 1]\n");
	free(shown);
	rlx_run_result_free(&res);
	assert_int_equal(rlx_diags_errors(d), 1);
	rlx_diags_free(d);
	assert_int_equal(rmdir(dir), 0);
}

/* rlx_write_file: the whole file, or an error naming it. */
static void
test_write_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/rlx-test-api-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.py", dir);
	rlx_diags *d = rlx_diags_new();
	assert_int_equal(rlx_write_file(path, "text\n", 5, d), RLX_OK);
	FILE *f = fopen(path, "r");
	char buf[16] = "";
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "text\n");
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof path, "%s/no/out.py", dir);
	assert_int_equal(rlx_write_file(path, "x", 1, d), RLX_EINPUT);
	char *out = printed(d);
	assert_non_null(strstr(out, "rlx: error: "));
	assert_non_null(strstr(out, path));
	free(out);
	rlx_diags_free(d);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_print_roundtrip),
		cmocka_unit_test(test_lift_through_the_api),
		cmocka_unit_test(test_errors_are_returned),
		cmocka_unit_test(test_runtime_through_the_api),
		cmocka_unit_test(test_diags_of_a_program),
		cmocka_unit_test(test_pass_table_and_suggest),
		cmocka_unit_test(test_print_formats),
		cmocka_unit_test(test_passes_with_options),
		cmocka_unit_test(test_run_writes_out),
		cmocka_unit_test(test_write_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
