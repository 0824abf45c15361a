/*
 * test_api.c — librlx as a C user sees it: only rlx.h, linked against the
 * shared library (whose exports are limited to rlx_*).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_print_roundtrip),
		cmocka_unit_test(test_lift_through_the_api),
		cmocka_unit_test(test_errors_are_returned),
		cmocka_unit_test(test_runtime_through_the_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
