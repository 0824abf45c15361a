/* test_verify.c — unit tests for verify (to be written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

static void
test_placeholder(void **state)
{
	(void)state;
	assert_true(OP_COUNT > 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placeholder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
