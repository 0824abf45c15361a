/*
 * gen_params.c — a build tool, run by meson: writes the parameter slots of
 * the op table (ops.def) as C, so that the stages after the parser read an
 * op's attributes by slot through a name checked by the compiler:
 *
 *   gen_params OUT.h OUT.c
 *
 * OUT.h (op_params.h): `ParamName`, one constant `P_name` per parameter name
 * that some signature in ops.def uses (sorted; P_NONE first).
 * OUT.c (op_params.c): `op_param_slots[op][name]`: slot + 1 of an attribute,
 * -(slot + 1) of an expression argument, 0 when the op has no such
 * parameter; `op_param_names[p]`, the name as text, for messages. op_attr.c reads it. Both files are generated at build time and
 * never committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static const char *const op_ids[OP_COUNT] = {
	[OP_NONE] = "NONE",
#define OP(id, name, sig, infer, cls) [OP_##id] = #id,
#include "ops.def"
#undef OP
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_params OUT.h OUT.c\n");
		return 2;
	}
	static char names[1024][32];
	char *sorted[1024];
	int n = 0;
	for (int op = 1; op < OP_COUNT; op++) {
		OpSig sig;
		op_sig((OpKind)op, &sig);
		for (int i = 0; i < sig.nparams; i++) {
			const char *nm = sig.params[i].name;
			int k = 0;
			while (k < n && strcmp(names[k], nm))
				k++;
			if (k == n) {
				if (n == (int)ARRAY_LEN(names))
					ir_bug("too many parameter names");
				snprintf(names[n++], sizeof names[0], "%s", nm);
			}
		}
	}
	for (int i = 0; i < n; i++)
		sorted[i] = names[i];
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);

	FILE *h = fopen(argv[1], "w"), *c = fopen(argv[2], "w");
	if (!h || !c) {
		perror("gen_params");
		return 1;
	}
	fprintf(h, "/* op_params.h — generated from compiler/ops.def by "
		   "compiler/gen_params.c; do not edit. */\n"
		   "#ifndef RLX_OP_PARAMS_H\n#define RLX_OP_PARAMS_H\n\n"
		   "/* Every parameter name of the op signatures (P_NONE: none). */\n"
		   "typedef enum {\n\tP_NONE,\n");
	for (int i = 0; i < n; i++)
		fprintf(h, "\tP_%s,\n", sorted[i]);
	fprintf(h, "\tP_COUNT\n} ParamName;\n\n"
		   "/* slot + 1 of an attribute, -(slot + 1) of an expression "
		   "argument, 0: none */\n"
		   "extern const signed char op_param_slots[][P_COUNT];\n"
		   "/* \"axis\" for P_axis */\n"
		   "extern const char *const op_param_names[P_COUNT];\n\n"
		   "#endif\n");
	fprintf(c, "/* op_params.c — generated from compiler/ops.def by "
		   "compiler/gen_params.c; do not edit. */\n"
		   "#include \"ir.h\"\n#include \"op_params.h\"\n\n"
		   "const signed char op_param_slots[OP_COUNT][P_COUNT] = {\n");
	for (int op = 1; op < OP_COUNT; op++) {
		OpSig sig;
		op_sig((OpKind)op, &sig);
		if (!sig.nparams)
			continue;
		fprintf(c, "\t[OP_%s] = {", op_ids[op]);
		for (int i = 0; i < sig.nparams; i++) {
			const OpParam *q = &sig.params[i];
			if (q->slot > 120)
				ir_bug("slot of %s too large", q->name);
			fprintf(c, "%s[P_%s] = %d", i ? ", " : "", q->name,
				q->is_attr ? q->slot + 1 : -(q->slot + 1));
		}
		fprintf(c, "},\n");
	}
	fprintf(c, "};\n\nconst char *const op_param_names[P_COUNT] = {\n"
		   "\t[P_NONE] = \"\",\n");
	for (int i = 0; i < n; i++)
		fprintf(c, "\t[P_%s] = \"%s\",\n", sorted[i], sorted[i]);
	fprintf(c, "};\n");
	if (fclose(h) || fclose(c)) {
		perror("gen_params");
		return 1;
	}
	return 0;
}
