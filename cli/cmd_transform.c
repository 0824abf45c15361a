/*
 * cmd_transform.c — `rlx transform FILE --weights PATH -o DIR`: parses the
 * arguments, calls rlx_transform (runtime/engine/transform.c), shows its progress
 * on a terminal and prints its summary.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"

static const char transform_help[] =
	"usage: rlx transform FILE --weights PATH [--func NAME] [--shared | --shared=F1,..]\n"
	"                     [--shard-size MiB] [--tensor-parallel N] [--strict] [--quiet]\n"
	"                     [--no-cache] [--no-index-check] -o DIR\n"
	"   or: rlx transform FILE [--func NAME] [--shared...] --print-plan\n"
	"\n"
	"Runs the weight pre-processing of FILE on a checkpoint and writes the\n"
	"result as a tensor cache (DIR/tensor-cache.json, DIR/params_shard_N.bin)\n"
	"together with the lifted module (DIR/model.py), so that\n"
	"`rlx run DIR/model.py --params DIR` starts inference from it.\n"
	"FILE is lifted first (as `rlx lift`) unless it already has\n"
	"F_transform_params. Weights are read by exact name from PATH (a\n"
	"safetensors file or a *.safetensors.index.json); each must have the\n"
	"dtype and shape of its parameter. Tensors of the checkpoint that are not\n"
	"parameters are ignored with a warning. The work streams: an input is\n"
	"read when first needed and dropped after its last use, an output is\n"
	"written as soon as it is final. DIR is replaced atomically; a run with\n"
	"the same module, checkpoint and options finds it up to date.\n"
	"\n"
	"  --weights PATH    the checkpoint (or --params): safetensors, an index,\n"
	"                    or a tensor cache directory\n"
	"  --func NAME       the function (default: main, or the only function\n"
	"                    with num_input)\n"
	"  --shared[=F,..]   lift one shared transform_params (as `rlx lift`)\n"
	"  --shard-size MiB  the shard cap in MiB (default 32)\n"
	"  --strict          checkpoint tensors the transform does not take are an\n"
	"                    error (without it: a warning naming them)\n"
	"  --tensor-parallel N  pre-shard for N workers: the transform runs once\n"
	"                    per worker K (the rank bound to K); what depends on\n"
	"                    the rank is stored per worker as NAME_shard-K\n"
	"  --quiet           print nothing but errors\n"
	"  --time            print where the command went on stderr (read,\n"
	"                    transform and write; total)\n"
	"  --no-cache        compile every kernel, neither reading nor writing\n"
	"                    the code cache (as RLX_NO_CACHE=1)\n"
	"  --no-index-check  do not check that index tensors (R.take in mode\n"
	"                    \"fast\", the gather and scatter ops) are in range\n"
	"                    before they are used (as `rlx run --no-index-check`)\n"
	"  -o DIR            the tensor cache to write\n"
	"  --print-plan      print how the executor runs the transform (per\n"
	"                    binding: its kernel, or the kernel it is fused\n"
	"                    into) on stdout, and stop: --weights and -o are\n"
	"                    not needed\n";

typedef struct {
	const char *file, *ckpt, *out;
	uint64_t shard_mb;
	bool quiet, time;
	CliList shared_funcs;
	rlx_transform_options o;
} Args;

/* Parses argv into a; an exit status when the command is done already. */
static int
parse_args(Args *a, int argc, char **argv)
{
	const char *v;
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(transform_help, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			a->quiet = true;
		} else if (!strcmp(argv[i], "--time")) {
			a->time = true;
		} else if (!strcmp(argv[i], "--no-index-check")) {
			a->o.no_index_check = true;
		} else if (!strcmp(argv[i], "--no-cache")) {
			setenv("RLX_NO_CACHE", "1", 1); /* read by the JIT */
		} else if (!strcmp(argv[i], "--strict")) {
			a->o.strict = true;
		} else if (!strcmp(argv[i], "--print-plan")) {
			a->o.plan_only = true;
		} else if (cli_shared_option(argv[i], &a->o.shared,
					     &a->shared_funcs)) {
			continue;
		} else if ((v = cli_weights_value(argc, argv, &i))) {
			if (!*v)
				return cli_usage_error("transform", "%s", "--weights needs a PATH");
			a->ckpt = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				return cli_usage_error("transform", "%s", "--func needs a NAME");
			a->o.func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--shard-size"))) {
			if (!cli_parse_u64(v, &a->shard_mb) || a->shard_mb == 0 ||
			    a->shard_mb > (1u << 20))
				return cli_usage_error("transform",
					"--shard-size needs a size in MiB (1 to 1048576), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--tensor-parallel"))) {
			uint64_t n;
			if (!cli_parse_u64(v, &n) || n == 0 || n > 4096)
				return cli_usage_error("transform",
					"--tensor-parallel needs a number of workers (1 to 4096), not '%s'", v);
			a->o.tensor_parallel = (int)n;
		} else if ((v = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*v)
				return cli_usage_error("transform", "%s", "-o needs a DIR");
			a->out = v;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_unknown_option("transform", transform_help, argv[i]);
		} else if (a->file) {
			return cli_usage_error("transform", "unexpected argument %s", argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return cli_usage_error("transform", "%s", "needs a FILE");
	if (a->o.plan_only)
		return -1;
	if (!a->ckpt)
		return cli_usage_error("transform", "%s", "needs --weights PATH");
	if (!a->out)
		return cli_usage_error("transform", "%s", "needs -o DIR");
	return -1;
}

/* Sizes are printed in the unit --shard-size takes. */
#define MIB 1048576.0
#define GIB 1073741824.0

/* The progress line on stderr. */
static void
show_progress(const rlx_progress *p, bool final, void *ctx)
{
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	double rate = p->seconds > 0 ? (double)p->bytes_in / p->seconds : 0;
	double left = rate > 0 ? (double)(p->total_in - p->bytes_in) / rate : 0;
	fprintf(stderr, "\r\033[K%d/%d tensors  %.1f/%.1f MiB  %.2f GiB/s  %.0f s left",
		p->tensors_done, p->tensors, (double)p->bytes_in / MIB,
		(double)p->total_in / MIB, rate / GIB, left);
}

/* Peak resident memory of this process in bytes. */
static uint64_t
peak_rss(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

int
cmd_transform(int argc, char **argv)
{
	Args a = {.shard_mb = 32};
	int status = parse_args(&a, argc, argv);
	rlx_diags *d = status < 0 ? cli_diags("transform") : NULL;
	size_t len;
	const char *name;
	char *text = d ? cli_read_text(d, a.file, &len, &name) : NULL;
	if (d && !text)
		status = cli_finish("transform", EXIT_INPUT, d, true);
	if (status >= 0) {
		cli_list_free(&a.shared_funcs);
		return status;
	}
	/* Large buffers from mmap, always: freed intermediates go back to the
	 * system at once instead of piling up in the heap (glibc's adaptive
	 * threshold would otherwise serve 16 MiB tensors from the heap, and
	 * peak RSS would follow fragmentation rather than the working set). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	a.o.shared_funcs = a.shared_funcs.items;
	a.o.nshared_funcs = a.shared_funcs.n;
	a.o.shard_bytes = a.shard_mb << 20;
	/* under mpirun the processes share the work (docs/cli.md) */
	a.o.distributed = true;
	if (!a.quiet && isatty(2))
		a.o.progress = show_progress;
	rlx_transform_stats st;
	double t0 = cli_now();
	status = rlx_transform(name, text, len, a.ckpt, a.out, &a.o, &st, d);
	double t_all = cli_now() - t0;
	status = cli_finish("transform", status, d, !a.quiet);
	if (status == EXIT_OK && a.time && !a.o.plan_only)
		fprintf(stderr, "rlx transform --time:\n"
			"  transform %8.3f s  (parse, lift, JIT, read, run, write: "
			"streamed together)\n"
			"  total     %8.3f s\n", st.seconds, t_all);
	if (a.o.plan_only) {
		if (status == EXIT_OK)
			fputs(st.plan, stdout);
	} else if (st.process > 0) {
		/* process 0 prints the summary of the whole run */
	} else if (status == EXIT_OK && !a.quiet && st.up_to_date) {
		printf("%s is up to date\n", a.out);
	} else if (status == EXIT_OK && !a.quiet) {
		printf("%s: %d tensors, %.1f MiB in, %.1f MiB out, %.2f s, "
		       "%.2f GiB/s, peak RSS %.1f MiB (anonymous %.1f MiB)\n",
		       a.out, st.tensors,
		       (double)st.bytes_in / MIB, (double)st.bytes_out / MIB,
		       st.seconds, st.seconds > 0 ? (double)st.bytes_in / st.seconds / GIB : 0.0,
		       (double)peak_rss() / MIB, (double)st.peak_anon / MIB);
		if (st.processes > 1)
			printf("  on %d processes, at most %.1f MiB of the "
			       "checkpoint read by one\n", st.processes,
			       (double)st.bytes_read_max / MIB);
	}
	free(st.plan);
	rlx_transform_end(); /* under mpirun: once every process has printed */
	free(text);
	cli_list_free(&a.shared_funcs);
	return status;
}
