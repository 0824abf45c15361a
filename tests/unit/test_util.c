/* test_util.c — arena, StrBuf, dtypes, the op table's signatures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

static void
test_arena(void **state)
{
	(void)state;
	Arena a = {0};
	char *s = arena_strdup(&a, "model.layers.0.weight");
	assert_string_equal(s, "model.layers.0.weight");
	void *big = arena_alloc(&a, 1 << 20); /* larger than a chunk */
	assert_non_null(big);
	assert_int_equal((uintptr_t)big % 16, 0);
	assert_string_equal(arena_printf(&a, "%s_%d", "y", 2), "y_2");
	arena_free(&a);
}

static void
test_strbuf(void **state)
{
	(void)state;
	StrBuf b = {0};
	for (int i = 0; i < 1000; i++)
		sb_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 2000);
	char *s = sb_take(&b);
	assert_memory_equal(s, "0,1,2,", 6);
	free(s);
}

static void
test_dtypes(void **state)
{
	(void)state;
	DType t;
	assert_true(dtype_parse("bfloat16", &t));
	assert_int_equal(t, DT_BF16);
	assert_int_equal(dtype_bits(t), 16);
	assert_true(dtype_is_float(t));
	assert_false(dtype_parse("float8", &t));
	assert_true(dtype_parse("void", &t));
	assert_int_equal(t, DT_UNKNOWN);
	for (int i = 1; i < DT_COUNT; i++) {
		assert_true(dtype_parse(dtype_name((DType)i), &t));
		assert_int_equal(t, i);
	}
}

/* float8 encode/decode (issue 46): every code decodes to a value that
 * encodes back to it (NaNs to the format's NaN), ties go to the even
 * code, the range ends as ml_dtypes' astype ends it. The NumPy oracle of
 * tests/e2e/run_dtypes.py checks the generated code the same way. */
static void
test_float8(void **state)
{
	(void)state;
	DType fs[] = {DT_F8E4M3, DT_F8E5M2};
	for (int k = 0; k < 2; k++) {
		DType f = fs[k];
		assert_true(dtype_is_float(f) && dtype_is_narrow_float(f));
		assert_int_equal(dtype_bits(f), 8);
		for (int c = 0; c < 256; c++) {
			double v = dtype_f8_decode(f, (uint8_t)c);
			uint8_t back = dtype_f8_encode(f, v);
			if (v != v)
				assert_int_equal(back & 0x7f, f == DT_F8E4M3 ? 0x7f : 0x7e);
			else
				assert_int_equal(back, c);
		}
	}
	assert_true(dtype_f8_decode(DT_F8E4M3, 0x7e) == 448);
	assert_true(dtype_f8_decode(DT_F8E4M3, 0x01) == 1.0 / 512);
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, 464), 0x7e);   /* tie: even */
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, 464.01), 0x7f); /* NaN */
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, -1e300), 0xff);
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, 1.0 / 1024), 0x00);
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, 1.5 / 512), 0x02); /* tie */
	assert_int_equal(dtype_f8_encode(DT_F8E4M3, -0.0), 0x80);
	assert_true(dtype_f8_decode(DT_F8E5M2, 0x7b) == 57344);
	assert_int_equal(dtype_f8_encode(DT_F8E5M2, 61440), 0x7c); /* to inf */
	assert_int_equal(dtype_f8_encode(DT_F8E5M2, 61439), 0x7b);
	assert_int_equal(dtype_f8_encode(DT_F8E5M2, -1.0 / 0.0), 0xfc);
	DType u;
	assert_true(dtype_parse("uint32", &u) && u == DT_U32);
	assert_true(dtype_is_unsigned(u) && dtype_is_int(u));
	assert_true(dtype_parse("float8_e4m3fn", &u) && u == DT_F8E4M3);
}

static void
test_op_signatures(void **state)
{
	(void)state;
	/* Every signature in ops.def parses; at most one variadic parameter,
	 * an expression, whose arguments are the tail of call.args. */
	for (int op = 1; op < OP_COUNT; op++) {
		OpSig s;
		op_sig((OpKind)op, &s);
		assert_true(s.nparams > 0 || op == OP_NULL_VALUE);
		int nvar = 0;
		for (int i = 0; i < s.nparams; i++) {
			const OpParam *q = &s.params[i];
			if (!q->variadic)
				continue;
			nvar++;
			assert_false(q->is_attr);
			assert_int_equal(q->slot, s.nargs - 1);
		}
		assert_true(nvar <= 1);
		assert_int_equal(s.variadic, nvar == 1);
	}
	OpSig p;
	op_sig(OP_PRINT, &p); /* *values, format:str */
	assert_int_equal(p.nargs, 1);
	assert_true(p.params[0].variadic);
	assert_int_equal(op_lookup("nn.rms_norm"), OP_RMS_NORM);
	assert_int_equal(op_lookup("call_tir"), OP_CALL_TIR);
	assert_int_equal(op_lookup("no_such_op"), OP_NONE);
	OpSig s;
	op_sig(OP_RMS_NORM, &s);
	assert_int_equal(s.nargs, 2);
	assert_int_equal(s.nattrs, 2);
	assert_string_equal(s.params[2].name, "axes");
	Module *m = ir_module_new("t", "", 0);
	AttrVal v = op_default(m, &s.params[2]);
	assert_int_equal(v.kind, AV_INTS);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ints[0], -1);
	op_sig(OP_CONV2D, &s);
	v = op_default(m, &s.params[6]);
	assert_int_equal(v.kind, AV_STR);
	assert_string_equal(v.s, "NCHW");
	v = op_default(m, &s.params[9]);
	assert_int_equal(v.kind, AV_DTYPE);
	assert_int_equal(v.dtype, DT_UNKNOWN);
	op_sig(OP_PERMUTE_DIMS, &s);
	assert_true(s.params[1].optional);
	assert_int_equal(s.params[1].def.kind, AV_NONE);
	ir_module_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_float8),
		cmocka_unit_test(test_op_signatures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
