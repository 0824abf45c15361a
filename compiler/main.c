/*
 * main.c — the rlx command line: a thin layer over librlx.
 *
 * Each command is a function cmd_NAME(argc, argv) returning the exit status:
 * 0 success, 1 the input is wrong, 2 wrong usage. Nothing here prints IR by
 * itself; it reads files, calls the library and reports its diagnostics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "pass.h"
#include "cli.h"
#include "rt.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
	"usage: rlx COMMAND [ARGS]\n"
	"\n"
	"commands:\n"
	"  check FILE...            parse and verify; prints nothing when the input is well formed\n"
	"  dump FILE [--passes P,..] print the module as parsed, or after passes\n"
	"  lift FILE                split weight pre-processing into F_transform_params\n"
	"  run FILE --params W      run a function on weights and .npy inputs\n"
	"  transform FILE --weights CKPT -o DIR\n"
	"                           run the weight transform on a checkpoint into a tensor cache\n"
	"  init-weights FILE -o CKPT.safetensors\n"
	"                           seeded random weights for a function's parameters\n"
	"  verify FILE --weights CKPT\n"
	"                           original on raw weights vs lifted on transformed weights\n"
	"  equal A B [--names]      compare two modules structurally\n"
	"\n"
	"FILE may be - for standard input. `rlx COMMAND --help` describes a command.\n"
	"exit status: 0 success, 1 the input is wrong, 2 wrong usage.\n";

/* Reads a whole file ("-" is stdin) into a malloc'ed buffer. */
char *
cli_read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "rlx: error: cannot open %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	StrBuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		fprintf(stderr, "rlx: error: cannot read %s: %s\n", path,
			strerror(errno));
		sb_free(&b);
		return NULL;
	}
	*len = b.len;
	return sb_take(&b);
}

/* Parses a file into a module, printing diagnostics; NULL on error. */
rlx_module *
cli_load_module(const char *path)
{
	size_t len;
	char *text = cli_read_file(path, &len);
	if (!text)
		return NULL;
	if (memchr(text, 0, len)) {
		fprintf(stderr, "%s: error: not a text file (contains NUL bytes)\n",
			strcmp(path, "-") ? path : "<stdin>");
		free(text);
		return NULL;
	}
	rlx_diags *d = rlx_diags_new();
	rlx_module *m =
		rlx_parse(strcmp(path, "-") ? path : "<stdin>", text, len, d);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	free(text);
	return m;
}

static bool
is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/*
 * The value of option opt at argv[*i], written `opt VALUE` (advances *i) or
 * `opt=VALUE`: NULL when argv[*i] is not that option; "" when the value is
 * missing.
 */
const char *
cli_opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

int
cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "rlx %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see `rlx %s --help`)\n", cmd);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ check */

static const char check_help[] =
	"usage: rlx check FILE...\n"
	"\n"
	"Parses and verifies each FILE (TVMScript, Relax dialect). Prints nothing\n"
	"when all are well formed; otherwise prints located errors and exits 1.\n";

static int
cmd_check(int argc, char **argv)
{
	int nfiles = 0, status = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(check_help, stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check", "unknown option %s", argv[i]);
	}
	for (int i = 1; i < argc; i++) {
		nfiles++;
		rlx_module *m = cli_load_module(argv[i]);
		if (!m)
			status = EXIT_INPUT;
		rlx_module_free(m);
	}
	if (!nfiles)
		return cli_usage_error("check", "%s", "needs at least one FILE");
	return status;
}

/* ------------------------------------------------------------------- dump */

static const char dump_help[] =
	"usage: rlx dump FILE [--passes P1,P2,...] [--print-after-all]\n"
	"                [--format script|dot|json] [--tvm-names]\n"
	"\n"
	"Prints the module as parsed: normalized (nested calls bound to\n"
	"variables), with every binding's struct info, in canonical TVMScript.\n"
	"\n"
	"  --passes P1,P2,...  run these passes in order, then print\n"
	"  --print-after-all   print the module after each pass, under a line\n"
	"                      `# after PASS-NAME`\n"
	"  --format FORMAT     script (TVMScript, the default), dot (the dataflow\n"
	"                      graph for Graphviz, with the bindings that\n"
	"                      lift-transform-params would move drawn apart) or\n"
	"                      json (the IR for tools)\n"
	"  --tvm-names         write names TVM's parser accepts (dots become _)\n"
	"\n"
	"passes:\n";

static void
print_help_with_passes(const char *text)
{
	fputs(text, stdout);
	int n;
	const Pass *p = pass_table(&n);
	for (int i = 0; i < n; i++)
		printf("  %-24s %s\n", p[i].name, p[i].doc);
}

typedef enum { FMT_SCRIPT, FMT_DOT, FMT_JSON } Format;

typedef struct {
	rlx_print_options opts;
	Format format;
	bool print_each;
} DumpCtx;

/* Prints m to stdout in the chosen format. */
static void
print_as(const Module *m, const DumpCtx *c)
{
	StrBuf b = {0};
	if (c->format == FMT_JSON) {
		print_module_json(&b, m);
	} else if (c->format == FMT_DOT) {
		graph_dot(&b, (Module *)m);
	} else {
		PrintOpts o = {.tvm_names = c->opts.tvm_names};
		print_module(&b, m, &o);
	}
	fputs(b.p ? b.p : "", stdout);
	sb_free(&b);
}

static void
print_after(const Pass *p, const Module *m, void *ctx)
{
	DumpCtx *c = ctx;
	if (!c->print_each)
		return;
	printf("# after %s\n", p->name);
	print_as(m, c);
}

/* Splits "a,b,c" into pass pointers; reports unknown names. */
static int
parse_pass_list(const char *cmd, char *list, const Pass **out, int max)
{
	int n = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		const Pass *p = pass_lookup(tok);
		if (!p) {
			cli_usage_error(cmd, "unknown pass '%s'", tok);
			return -1;
		}
		if (n == max) {
			cli_usage_error(cmd, "%s", "too many passes");
			return -1;
		}
		out[n++] = p;
	}
	return n;
}

static int
cmd_dump(int argc, char **argv)
{
	const char *file = NULL;
	DumpCtx ctx = {0};
	const Pass *list[64];
	int npasses = 0;
	const char *val;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			print_help_with_passes(dump_help);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			ctx.opts.tvm_names = true;
		} else if (!strcmp(argv[i], "--print-after-all")) {
			ctx.print_each = true;
		} else if ((val = cli_opt_value(argc, argv, &i, "--format"))) {
			if (!strcmp(val, "script"))
				ctx.format = FMT_SCRIPT;
			else if (!strcmp(val, "dot"))
				ctx.format = FMT_DOT;
			else if (!strcmp(val, "json"))
				ctx.format = FMT_JSON;
			else
				return cli_usage_error("dump", "unknown format '%s' "
						   "(script, dot or json)", val);
		} else if ((val = cli_opt_value(argc, argv, &i, "--passes"))) {
			if (!*val)
				return cli_usage_error("dump", "%s", "--passes needs a list");
			npasses = parse_pass_list("dump", (char *)val, list, 64);
			if (npasses < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("dump", "unknown option %s", argv[i]);
		} else if (file) {
			return cli_usage_error("dump", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return cli_usage_error("dump", "%s", "needs a FILE");
	rlx_module *m = cli_load_module(file);
	if (!m)
		return EXIT_INPUT;
	int status = EXIT_OK;
	if (npasses) {
		rlx_diags *d = rlx_diags_new();
		PassOptions o = {.verify_each = true};
		if (pass_run(m, list, npasses, &o, d, print_after, &ctx))
			status = EXIT_INPUT;
		rlx_diags_print(d, stderr);
		rlx_diags_free(d);
	}
	if (status == EXIT_OK && !ctx.print_each)
		print_as(m, &ctx);
	rlx_module_free(m);
	return status;
}

/* ------------------------------------------------------------------- lift */

static const char lift_help[] =
	"usage: rlx lift FILE [--shared | --shared=F1,F2,...] [--bind NAME=VALUE]... [--tidy] [-o OUT]\n"
	"\n"
	"Splits weight pre-processing from inference, as TVM's LiftTransformParams:\n"
	"for every function with a num_input attribute, the bindings computable\n"
	"from weights alone move into F_transform_params(params), params being one\n"
	"tuple of the weights, and F takes its results as parameters. Runs\n"
	"convert-ssa, bind-params (with --bind) and lift-transform-params, then\n"
	"prints the module.\n"
	"\n"
	"  --tidy             rlx's clean-ups around the lift (not TVM's):\n"
	"                     canonicalize-bindings and dead-code-elimination\n"
	"                     before, dead-code-elimination after (as `rlx\n"
	"                     transform` lifts)\n"
	"  --shared           one transform_params shared by all lifted functions\n"
	"  --shared=F1,F2     one shared transform for the named functions\n"
	"  --bind NAME=VALUE  fix a scalar parameter or a symbolic variable at\n"
	"                     compile time (repeatable); VALUE @FILE.npy binds a\n"
	"                     tensor parameter to the array in FILE.npy\n"
	"  -o OUT             write the module to OUT instead of standard output\n"
	"  --tvm-names        write names TVM's parser accepts (dots become _)\n";

/* Writes text to path atomically (temporary file, then rename). */
static bool
write_file_atomic(const char *path, const char *text)
{
	RtFile f;
	RtError e;
	bool ok = rt_file_begin(&f, path, &e);
	if (ok)
		ok = rt_file_end(&f, rt_file_write(&f, text, strlen(text), &e), &e);
	if (!ok)
		fprintf(stderr, "rlx: error: %s\n", e.msg);
	return ok;
}

static int
cmd_lift(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	rlx_print_options popts = {0};
	PassOptions o = {.verify_each = true};
	Vec binds = {0}, shared = {0};
	bool tidy = false;
	int status = EXIT_OK;
	const char *val;
	for (int i = 1; i < argc && status == EXIT_OK; i++) {
		if (is_help(argv[i])) {
			fputs(lift_help, stdout);
			goto done;
		} else if (!strcmp(argv[i], "--shared")) {
			o.shared = true;
		} else if (!strcmp(argv[i], "--tidy")) {
			tidy = true;
		} else if (!strncmp(argv[i], "--shared=", 9)) {
			o.shared = true;
			for (char *t = strtok(argv[i] + 9, ","); t; t = strtok(NULL, ","))
				vec_push(&shared, t);
		} else if ((val = cli_opt_value(argc, argv, &i, "--bind"))) {
			char *eq = strchr(val, '=');
			if (!eq || eq == val || !eq[1]) {
				status = cli_usage_error("lift", "%s", "--bind needs NAME=VALUE");
				break;
			}
			*eq = 0;
			PassBinding *b = malloc(sizeof *b);
			*b = (PassBinding){.name = val, .value = eq + 1};
			vec_push(&binds, b);
		} else if ((val = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*val) {
				status = cli_usage_error("lift", "%s", "-o needs a file");
				break;
			}
			out = val;
		} else if (!strcmp(argv[i], "--tvm-names")) {
			popts.tvm_names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_usage_error("lift", "unknown option %s", argv[i]);
		} else if (file) {
			status = cli_usage_error("lift", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status == EXIT_OK && !file)
		status = cli_usage_error("lift", "%s", "needs a FILE");
	if (status != EXIT_OK)
		goto done;
	PassBinding *bv = calloc((size_t)binds.n + 1, sizeof *bv);
	RtTensor **arrays = calloc((size_t)binds.n + 1, sizeof *arrays);
	for (int i = 0; i < binds.n; i++) {
		bv[i] = *(PassBinding *)binds.items[i];
		if (bv[i].value[0] != '@')
			continue;
		RtError e;
		arrays[i] = rt_npy_read(bv[i].value + 1, &e);
		if (!arrays[i]) {
			fprintf(stderr, "rlx lift: error: --bind %s: %s\n", bv[i].name,
				e.msg);
			status = EXIT_INPUT;
			goto free_arrays;
		}
		bv[i].data = arrays[i]->data;
		bv[i].dtype = arrays[i]->dtype;
		bv[i].ndim = arrays[i]->ndim;
		bv[i].shape = arrays[i]->shape;
	}
	o.binds = bv;
	o.nbinds = binds.n;
	o.shared_funcs = (const char **)shared.items;
	o.nshared_funcs = shared.n;

	rlx_module *m = cli_load_module(file);
	if (!m) {
		status = EXIT_INPUT;
	} else {
		const Pass *list[8];
		int n = pass_lift_pipeline(list, o.nbinds > 0, tidy);
		rlx_diags *d = rlx_diags_new();
		if (pass_run(m, list, n, &o, d, NULL, NULL))
			status = EXIT_INPUT;
		rlx_diags_print(d, stderr);
		rlx_diags_free(d);
		if (status == EXIT_OK) {
			char *text = rlx_print(m, &popts);
			if (out) {
				if (!write_file_atomic(out, text))
					status = EXIT_INPUT;
			} else {
				fputs(text, stdout);
			}
			free(text);
		}
		rlx_module_free(m);
	}
free_arrays:
	for (int i = 0; i < binds.n; i++)
		rt_tensor_free(arrays[i]);
	free(arrays);
	free(bv);
done:
	for (int i = 0; i < binds.n; i++)
		free(binds.items[i]);
	vec_free(&binds);
	vec_free(&shared);
	return status;
}

/* ------------------------------------------------------------------ equal */

static const char equal_help[] =
	"usage: rlx equal A B [--names]\n"
	"\n"
	"Compares two modules structurally, as TVM's assert_structural_equal:\n"
	"variables are matched by position, names ignored unless --names.\n"
	"Exit 0 when equal; 1 with the first difference located in both files.\n";

static int
cmd_equal(int argc, char **argv)
{
	const char *files[2];
	int nfiles = 0;
	bool names = false;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(equal_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--names")) {
			names = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("equal", "unknown option %s", argv[i]);
		} else if (nfiles == 2) {
			return cli_usage_error("equal", "unexpected argument %s", argv[i]);
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles != 2)
		return cli_usage_error("equal", "%s", "needs two files A and B");
	rlx_module *a = cli_load_module(files[0]);
	rlx_module *b = a ? cli_load_module(files[1]) : NULL;
	int status = EXIT_INPUT;
	if (a && b) {
		char *why = NULL;
		if (rlx_equal(a, b, names, &why)) {
			status = EXIT_OK;
		} else {
			fprintf(stderr, "%s\n", why ? why : "modules differ");
		}
		free(why);
	}
	rlx_module_free(a);
	rlx_module_free(b);
	return status;
}

/* ------------------------------------------------------------------- main */

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{"check", cmd_check},
	{"dump", cmd_dump},
	{"lift", cmd_lift},
	{"run", cmd_run},
	{"transform", cmd_transform},
	{"init-weights", cmd_init_weights},
	{"verify", cmd_verify},
	{"equal", cmd_equal},
};

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (is_help(argv[1])) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rlx %s\n", rlx_version());
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rlx: unknown command '%s'\n\n%s", argv[1], usage_text);
	return EXIT_USAGE;
}
