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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
