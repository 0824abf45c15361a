/*
 * cmd_transform.c — `rlx transform`, `rlx init-weights`, `rlx verify`.
 *
 * transform: lifts FILE (or takes its F_transform_params), JIT-compiles the
 * transform and runs it streaming (rt_run_stream): each weight is read from
 * the checkpoint when the executor first needs it, each output goes to the
 * tensor cache as soon as it is final, and the mapped pages of an input are
 * dropped (madvise) once the executor lets go of it, so resident memory
 * stays bounded by the tensors computed together. The cache carries the
 * hashes of what it was computed from; a second run with the same inputs
 * does nothing. Two threads work beside the executor: a hasher hashes the
 * checkpoint's tensors from its own mapping of it (from the start, while
 * the transform is being compiled; reading ahead of the executor warms
 * the page cache for it), and a writer writes the outputs while the next
 * ones are computed: the executor hands it a value and goes on (at most
 * WRITER_BYTES ahead); the main thread alone touches the values'
 * reference counts, releasing each once the writer is done.
 *
 * init-weights: deterministic random weights (splitmix64, seeded per
 * tensor from --seed and the tensor's name) for a function's weights.
 *
 * verify: original F on the raw weights against the lifted F on the
 * transformed weights, in memory, with the dtype's tolerance.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <xxhash.h>

#include "ir.h"
#include "pass.h"
#include "rt.h"
#include "cli.h"

/* ---------------------------------------------------------------- helpers */

/* Parses a non-negative decimal integer. */
static bool
parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

/* Monotonic time in seconds. */
static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* splitmix64: a tiny PRNG whose state is one word (no globals). */
typedef struct {
	uint64_t s;
} Rng;

/* The next 64 random bits. */
static uint64_t
rng_next(Rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_unit(Rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller). */
static double
rng_normal(Rng *r)
{
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The generator of one tensor: from the seed and the tensor's name, so a
 * tensor's values do not depend on the other parameters. */
static Rng
rng_for(uint64_t seed, const char *name)
{
	Rng r = {seed ^ XXH3_64bits(name, strlen(name))};
	rng_next(&r);
	return r;
}

/*
 * Fills t with random values: floats ~ N(0, std), integers uniform in
 * [0, int_range), bool 0/1.
 */
static void
fill_random(RtTensor *t, Rng *r, double std, int int_range)
{
	int64_t n = rt_numel(t);
	for (int64_t i = 0; i < n; i++) {
		double f = std * rng_normal(r);
		int64_t k = (int64_t)(rng_next(r) % (uint64_t)int_range);
		switch (t->dtype) {
		case DT_F32: ((float *)t->data)[i] = (float)f; break;
		case DT_F64: ((double *)t->data)[i] = f; break;
		case DT_F16: ((uint16_t *)t->data)[i] = rt_f32_to_f16((float)f); break;
		case DT_BF16: ((uint16_t *)t->data)[i] = rt_f32_to_bf16((float)f); break;
		case DT_I8: ((int8_t *)t->data)[i] = (int8_t)k; break;
		case DT_I16: ((int16_t *)t->data)[i] = (int16_t)k; break;
		case DT_I32: ((int32_t *)t->data)[i] = (int32_t)k; break;
		case DT_I64: ((int64_t *)t->data)[i] = k; break;
		case DT_U8: ((uint8_t *)t->data)[i] = (uint8_t)k; break;
		case DT_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)(k & 1); break;
		default: break;
		}
	}
}

/* ------------------------------------------------------ symbolic dims */

/* `--dim NAME=VALUE` arguments, and the values bound to symbolic vars. */
typedef struct {
	const char **names;
	int64_t *values;
	int n;
} DimArgs;

typedef struct {
	Arena *arena;
	SymVar **vars;
	PExpr **vals;
	int n, cap;
} SymEnv;

/* Parses NAME=VALUE into d; false on a malformed argument. */
static bool
dim_arg_add(DimArgs *d, char *arg)
{
	char *eq = strchr(arg, '=');
	uint64_t v;
	if (!eq || eq == arg || !parse_u64(eq + 1, &v) || v > INT64_MAX)
		return false;
	*eq = 0;
	d->names = realloc(d->names, sizeof *d->names * (size_t)(d->n + 1));
	d->values = realloc(d->values, sizeof *d->values * (size_t)(d->n + 1));
	d->names[d->n] = arg;
	d->values[d->n++] = (int64_t)v;
	return true;
}

/* Frees the arrays of d (the names point into argv). */
static void
dim_args_free(DimArgs *d)
{
	free(d->names);
	free(d->values);
}

/* The --dim value of a symbolic variable's name, if given. */
static bool
dim_arg_get(const DimArgs *d, const char *name, int64_t *out)
{
	for (int i = d->n - 1; i >= 0; i--)
		if (!strcmp(d->names[i], name)) {
			*out = d->values[i];
			return true;
		}
	return false;
}

/* Binds v to value. */
static void
env_bind(SymEnv *env, SymVar *v, int64_t value)
{
	if (env->n == env->cap) {
		env->cap = env->cap ? 2 * env->cap : 16;
		env->vars = realloc(env->vars, sizeof *env->vars * (size_t)env->cap);
		env->vals = realloc(env->vals, sizeof *env->vals * (size_t)env->cap);
	}
	env->vars[env->n] = v;
	env->vals[env->n++] = pe_int(env->arena, value);
}

/* True when v has a value. */
static bool
env_has(const SymEnv *env, const SymVar *v)
{
	for (int i = 0; i < env->n; i++)
		if (env->vars[i] == v)
			return true;
	return false;
}

/* Frees the arrays of env (the values live in the arena). */
static void
env_free(SymEnv *env)
{
	free(env->vars);
	free(env->vals);
}

/* The value of x under env; false with *unbound naming a free variable. */
static bool
env_eval(SymEnv *env, PExpr *x, int64_t *out, const SymVar **unbound)
{
	PExpr *y = pe_subst(env->arena, x, env->vars, env->vals, env->n);
	if (pe_is_const(y, out))
		return true;
	Vec vs = {0};
	pe_collect_vars(y, &vs);
	*unbound = vs.n ? vs.items[0] : NULL;
	vec_free(&vs);
	return false;
}

/* Concrete dims of a tensor annotation: bare unbound variables take their
 * --dim value, or `dflt` when dflt >= 0; false with a message otherwise. */
static bool
resolve_shape(SymEnv *env, const DimArgs *dims, int64_t dflt,
	      const SInfo *si, int64_t *shape, char *err, size_t errlen)
{
	for (int k = 0; k < si->ndim; k++) {
		PExpr *x = si->shape[k];
		if (x->kind == PE_VAR && !env_has(env, x->var)) {
			int64_t v;
			if (dim_arg_get(dims, x->var->name, &v))
				env_bind(env, x->var, v);
			else if (dflt >= 0)
				env_bind(env, x->var, dflt);
		}
		const SymVar *u = NULL;
		if (!env_eval(env, x, &shape[k], &u)) {
			snprintf(err, errlen, "symbolic dimension '%s' has no "
				 "value: give it with --dim %s=VALUE",
				 u ? u->name : "?", u ? u->name : "NAME");
			return false;
		}
		if (shape[k] < 0) {
			snprintf(err, errlen, "dimension %d is negative (%" PRId64 ")",
				 k, shape[k]);
			return false;
		}
	}
	return true;
}

/* "(2, 3) float32" for messages. */
static void
shape_str(StrBuf *b, DType dt, int ndim, const int64_t *shape)
{
	sb_putc(b, '(');
	for (int i = 0; i < ndim; i++)
		sb_printf(b, "%s%" PRId64, i ? ", " : "", shape[i]);
	sb_printf(b, "%s) %s", ndim == 1 ? "," : "", dtype_name(dt));
}

/* ---------------------------------------------------- modules and funcs */

/*
 * The function a command works on: --func NAME, else `main`, else the only
 * function with a num_input attribute that is not a transform. NULL with a
 * message when there is none or the choice is ambiguous.
 */
static Func *
pick_func(Module *m, const char *name, const char *cmd)
{
	Func *f = NULL;
	if (name) {
		f = ir_find_func(m, name);
		if (!f) {
			fprintf(stderr, "%s: error: no function '%s' in the module\n",
				m->src.name, name);
			return NULL;
		}
	} else if ((f = ir_find_func(m, "main")) == NULL) {
		for (int i = 0; i < m->nfuncs; i++) {
			Func *g = m->funcs[i];
			if (ir_func_num_input(g) < 0 || pass_is_transform(g))
				continue;
			if (f) {
				fprintf(stderr, "%s: error: several functions with "
					"num_input (%s, %s): choose one with "
					"`rlx %s --func NAME`\n", m->src.name,
					f->name, g->name, cmd);
				return NULL;
			}
			f = g;
		}
		if (!f) {
			fprintf(stderr, "%s: error: no function `main` and none "
				"with a num_input attribute\n", m->src.name);
			return NULL;
		}
	}
	if (ir_func_num_input(f) < 0) {
		fprintf(stderr, "%s: error: function '%s' has no num_input "
			"attribute: its inputs cannot be told from its weights "
			"(R.func_attr({\"num_input\": N}))\n", m->src.name, f->name);
		return NULL;
	}
	return f;
}

/* Reads and parses FILE, keeping its text (for the module hash). */
static Module *
load_module_text(const char *path, char **text_out, size_t *len_out)
{
	size_t len;
	char *text = cli_read_file(path, &len);
	if (!text)
		return NULL;
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	if (memchr(text, 0, len)) {
		fprintf(stderr, "%s: error: not a text file (contains NUL bytes)\n",
			name);
		free(text);
		return NULL;
	}
	rlx_diags *d = rlx_diags_new();
	Module *m = rlx_parse(name, text, len, d);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	if (!m) {
		free(text);
		return NULL;
	}
	*text_out = text;
	*len_out = len;
	return m;
}

/* The lift pipeline of `rlx lift`; false after printing the errors. */
static bool
lift_module(Module *m, bool shared, const char **shared_funcs, int nshared)
{
	PassOptions o = {.verify_each = true, .shared = shared,
			 .shared_funcs = shared_funcs,
			 .nshared_funcs = nshared};
	const Pass *list[8];
	int n = pass_lift_pipeline(list, false);
	rlx_diags *d = rlx_diags_new();
	int nerr = pass_run(m, list, n, &o, d, NULL, NULL);
	rlx_diags_print(d, stderr);
	rlx_diags_free(d);
	return nerr == 0;
}

/* Compiles a function, printing the errors; NULL on failure. */
static RtProgram *
compile_func(Module *m, const char *name)
{
	rlx_diags *d = rlx_diags_new();
	RtProgram *p = rt_compile(m, name, d);
	rlx_diags_print(d, stderr);
	if (p && rlx_diags_errors(d)) {
		rt_program_free(p);
		p = NULL;
	}
	if (!p && !rlx_diags_errors(d))
		fprintf(stderr, "%s: error: cannot compile '%s'\n", m->src.name,
			name);
	rlx_diags_free(d);
	return p;
}

/* The transform's struct info of its result. */
static const SInfo *
func_result(const Func *f)
{
	return f->ret ? f->ret : f->body ? f->body->sinfo : NULL;
}

/* ----------------------------------------------------------- init-weights */

static const char init_help[] =
	"usage: rlx init-weights FILE [--func NAME] [--seed N] [--dim NAME=VALUE]...\n"
	"                        -o OUT.safetensors\n"
	"\n"
	"Writes deterministic random weights for the weight parameters of a\n"
	"function (those after num_input), named exactly as the parameters\n"
	"(dots included), with their dtypes and shapes. Floats are N(0, 0.02),\n"
	"integers uniform in [0, 16), bool 0 or 1. Each tensor's values depend\n"
	"only on the seed and its name. The file is written atomically.\n"
	"\n"
	"  --func NAME       the function (default: main, or the only function\n"
	"                    with num_input)\n"
	"  --seed N          the seed (default 0)\n"
	"  --dim NAME=VALUE  the value of a symbolic weight dimension (repeatable)\n"
	"  -o OUT            the safetensors file to write\n";

/* rlx init-weights: random weights for a function's weight parameters. */
int
cmd_init_weights(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *func = NULL, *v;
	uint64_t seed = 0;
	DimArgs dims = {0};
	int status = EXIT_OK;
	for (int i = 1; i < argc && status == EXIT_OK; i++) {
		if (cli_is_help(argv[i])) {
			fputs(init_help, stdout);
			dim_args_free(&dims);
			return EXIT_OK;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				status = cli_usage_error("init-weights", "%s", "--func needs a NAME");
			func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--seed"))) {
			if (!parse_u64(v, &seed))
				status = cli_usage_error("init-weights",
					"--seed needs a non-negative integer, not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--dim"))) {
			if (!dim_arg_add(&dims, (char *)v))
				status = cli_usage_error("init-weights",
					"--dim needs NAME=VALUE (a non-negative integer), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*v)
				status = cli_usage_error("init-weights", "%s", "-o needs a file");
			out = v;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_usage_error("init-weights", "unknown option %s", argv[i]);
		} else if (file) {
			status = cli_usage_error("init-weights", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status == EXIT_OK && !file)
		status = cli_usage_error("init-weights", "%s", "needs a FILE");
	if (status == EXIT_OK && !out)
		status = cli_usage_error("init-weights", "%s", "needs -o OUT.safetensors");
	if (status != EXIT_OK) {
		dim_args_free(&dims);
		return status;
	}

	char *text = NULL;
	size_t len;
	Module *m = load_module_text(file, &text, &len);
	Func *f = m ? pick_func(m, func, "init-weights") : NULL;
	if (!f) {
		rlx_module_free(m);
		free(text);
		dim_args_free(&dims);
		return EXIT_INPUT;
	}
	for (int i = 0; i < dims.n && status == EXIT_OK; i++) {
		bool known = false;
		for (int k = 0; k < f->nsymvars; k++)
			known |= !strcmp(f->symvars[k]->name, dims.names[i]);
		if (!known)
			status = cli_usage_error("init-weights",
				"--dim: '%s' is not a symbolic variable of the function",
				dims.names[i]);
	}
	int nin = ir_func_num_input(f), nw = f->nparams - nin;
	RtTensor **ts = calloc((size_t)nw + 1, sizeof *ts);
	const char **names = calloc((size_t)nw + 1, sizeof *names);
	SymEnv env = {.arena = &m->arena};
	for (int i = 0; i < nw && status == EXIT_OK; i++) {
		const Var *p = f->params[nin + i];
		const SInfo *si = p->sinfo;
		names[i] = p->name;
		if (!si || si->kind != SI_TENSOR) {
			fprintf(stderr, "%s: error: weight '%s' is not a tensor; "
				"init-weights makes tensors only\n", m->src.name,
				p->name);
			status = EXIT_INPUT;
			break;
		}
		if (si->dtype == DT_UNKNOWN || si->ndim < 0 || !si->shape ||
		    !rt_st_dtype_name(si->dtype)) {
			fprintf(stderr, "%s: error: weight '%s' needs a known dtype "
				"and shape, not %s\n", m->src.name, p->name,
				infer_sinfo_str(m, si));
			status = EXIT_INPUT;
			break;
		}
		int64_t shape[RT_MAX_DIMS];
		char err[1200];
		if (si->ndim > RT_MAX_DIMS) {
			snprintf(err, sizeof err, "more than %d dimensions", RT_MAX_DIMS);
			goto bad;
		}
		if (!resolve_shape(&env, &dims, -1, si, shape, err, sizeof err))
			goto bad;
		RtError e;
		ts[i] = rt_tensor_new(si->dtype, si->ndim, shape, &e);
		if (!ts[i]) {
			snprintf(err, sizeof err, "%s", e.msg);
			goto bad;
		}
		Rng r = rng_for(seed, p->name);
		fill_random(ts[i], &r, 0.02, 16);
		continue;
bad:
		fprintf(stderr, "%s: error: weight '%s': %s\n", m->src.name,
			p->name, err);
		status = EXIT_INPUT;
	}
	if (status == EXIT_OK) {
		char seedtxt[32];
		snprintf(seedtxt, sizeof seedtxt, "%" PRIu64, seed);
		const char *meta[] = {"format", "pt", "rlx_seed", seedtxt,
				      "rlx_version", rlx_version()};
		RtError e;
		if (!rt_st_write_meta(out, names, (const RtTensor *const *)ts,
				      nw, meta, 3, &e)) {
			fprintf(stderr, "%s: error: %s\n", out, e.msg);
			status = EXIT_INPUT;
		}
	}
	for (int i = 0; i < nw; i++)
		rt_tensor_free(ts[i]);
	free(ts);
	free(names);
	env_free(&env);
	rlx_module_free(m);
	free(text);
	dim_args_free(&dims);
	return status;
}

/* -------------------------------------------------------------- transform */

static const char transform_help[] =
	"usage: rlx transform FILE --weights PATH [--func NAME] [--shared | --shared=F1,..]\n"
	"                     [--shard-size MB] [--quiet] -o DIR\n"
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
	"  --weights PATH    the checkpoint: safetensors, an index, or a tensor\n"
	"                    cache directory\n"
	"  --func NAME       the function (default: main, or the only function\n"
	"                    with num_input)\n"
	"  --shared[=F,..]   lift one shared transform_params (as `rlx lift`)\n"
	"  --shard-size MB   the shard cap in MiB (default 32)\n"
	"  --quiet           print nothing but errors\n"
	"  -o DIR            the tensor cache to write\n";

/* Queued for the writers at most (beyond one job per writer): fresh memory
 * is slow to touch, so few buffers in flight that the pool reuses beat a
 * deep queue. */
enum { WRITER_BYTES = 16 << 20 };

/* Writer threads. The kernel's copy into the page cache bounds a
 * transform that computes little (a concatenation, a cast): two threads
 * writing two shards at once measured 1.6x faster than one on this 2-core
 * machine (1 GiB of 48 MiB shards, hashed and written: 0.11 s against
 * 0.18 s). */
enum { NWRITERS = 2 };

/* A job of the writers: output `name` to append to the cache. v is the
 * main thread's reference. */
typedef struct {
	RtValue *v;
	const char *name;
	size_t bytes;
	bool finished;
} Job;

/* The writer threads and their queue. Jobs are taken in order, and each
 * is placed in the cache when taken (so the cache's layout is the jobs'
 * order); a tensor with a shard of its own is then written outside the
 * lock, beside the other thread's. [0, reaped) are released, the rest
 * up to next are finished or running, [next, njobs) waiting. */
typedef struct {
	pthread_t thr[NWRITERS];
	int nthreads;       /* 0: jobs run on the main thread as they come */
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* a job queued or finished, or stop */
	Job *jobs;
	int njobs, cjobs, next, reaped;
	size_t inflight;    /* bytes of the jobs not finished */
	int unfinished;     /* jobs queued or running */
	bool stop, failed;
	RtError err;        /* the first failure */
} Writer;

/* The hasher thread, with its own view of the checkpoint. */
typedef struct {
	pthread_t thr;
	bool started;
	RtWeights *src; /* the checkpoint: file, index or tensor cache */
	bool ok;            /* written by the thread, read after the join */
	atomic_bool stop;   /* the main thread gave up */
	RtError err;
} Hasher;

/* The state of one streaming transform. */
typedef struct {
	Module *m;
	Func *F, *T;
	int ninput;          /* F's num_input */
	int nout;            /* outputs of T = F's parameters after num_input */
	RtWeights *src; /* the checkpoint: file, index or tensor cache */
	RtCacheWriter *cw;
	const char *ckpt;
	/* per parameter of T */
	RtValue **held;      /* our reference to a loaded value, until dropped */
	XXH128_hash_t *hash; /* of the tensor's bytes */
	bool *hashed;
	DType *dt;
	int *ndim;
	int64_t (*shape)[RT_MAX_DIMS];
	/* progress */
	uint64_t total_in, bytes_in, bytes_out;
	int nloaded, nemitted;
	bool progress, quiet;
	double t0, last;
	size_t page;
	Writer wr;
	Hasher hs;
} Xf;

/* madvise over the whole pages of a tensor's bytes (mapped read-only, so
 * dropping pages that neighbours share only costs a refault). */
static void
advise_tensor(const Xf *x, const RtTensor *t, int advice)
{
	if (t->own != RT_BORROWED || !t->nbytes)
		return;
	uintptr_t a = (uintptr_t)t->data & ~(uintptr_t)(x->page - 1);
	uintptr_t b = ((uintptr_t)t->data + t->nbytes + x->page - 1) &
		      ~(uintptr_t)(x->page - 1);
	madvise((void *)a, b - a, advice);
}

/* Releases the inputs the executor no longer holds, dropping their pages. */
static void
xf_sweep(Xf *x, bool all)
{
	for (int i = 0; i < x->T->nparams; i++) {
		RtValue *v = x->held[i];
		if (!v || (!all && v->refs > 1))
			continue;
		if (v->refs == 1 && v->kind == RV_TENSOR)
			advise_tensor(x, v->t, MADV_DONTNEED);
		rt_value_release(v);
		x->held[i] = NULL;
	}
}

/* The progress line on stderr (a terminal only), at most 10 times a second. */
static void
xf_progress(Xf *x, bool final)
{
	if (!x->progress)
		return;
	double t = now_s();
	if (!final && t - x->last < 0.1)
		return;
	x->last = t;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	double dt = t - x->t0, rate = dt > 0 ? (double)x->bytes_in / dt : 0;
	double left = rate > 0 ? (double)(x->total_in - x->bytes_in) / rate : 0;
	fprintf(stderr, "\r\033[K%d/%d tensors  %.1f/%.1f MB  %.2f GB/s  %.0f s left",
		x->nemitted, x->nout, (double)x->bytes_in / 1e6,
		(double)x->total_in / 1e6, rate / 1e9, left);
}

/* Hashes parameter i's bytes (read from the checkpoint). */
static void
xf_hash_param(Xf *x, int i, const RtTensor *t)
{
	x->hash[i] = XXH3_128bits(t->data, t->nbytes);
}

/* The hasher thread: hashes every parameter of T in order from its own
 * mapping, dropping each one's pages from that mapping afterwards. */
static void *
hasher_main(void *arg)
{
	Xf *x = arg;
	Hasher *hs = &x->hs;
	for (int i = 0; i < x->T->nparams && !atomic_load(&hs->stop); i++) {
		RtTensor *t = rt_weights_load(hs->src, x->T->params[i]->name, &hs->err);
		if (!t) {
			hs->ok = false;
			break;
		}
		advise_tensor(x, t, MADV_WILLNEED);
		xf_hash_param(x, i, t);
		x->hashed[i] = true;
		advise_tensor(x, t, MADV_DONTNEED);
		rt_tensor_free(t);
	}
	return NULL;
}

/* Starts the hasher; without it (no thread, or the checkpoint cannot be
 * opened twice) xf_hash_rest does the work after the run. */
static void
hasher_start(Xf *x)
{
	Hasher *hs = &x->hs;
	hs->ok = true;
	atomic_store(&hs->stop, false);
	if (!(hs->src = rt_weights_open(x->ckpt, &hs->err)))
		return;
	hs->started = !pthread_create(&hs->thr, NULL, hasher_main, x);
	if (!hs->started) {
		rt_weights_close(hs->src);
		hs->src = NULL;
	}
}

/* Waits for the hasher; false (its error printed) when it failed. */
static bool
hasher_finish(Xf *x)
{
	Hasher *hs = &x->hs;
	if (!hs->started)
		return true;
	pthread_join(hs->thr, NULL);
	hs->started = false;
	rt_weights_close(hs->src);
	hs->src = NULL;
	if (!hs->ok)
		fprintf(stderr, "%s: error: %s\n", x->ckpt, hs->err.msg);
	return hs->ok;
}

/* Places job j in the cache: writes it, unless it is a tensor with a
 * shard of its own, which *tk then names for rt_cache_write_alone. */
static bool
job_place(Xf *x, const Job *j, RtCacheTicket *tk, RtError *e)
{
	tk->shard = -1;
	if (j->v->kind == RV_TENSOR)
		return rt_cache_place(x->cw, j->name, j->v->t, tk, e);
	return rt_cache_add_shape(x->cw, j->name, j->v->values, j->v->n, e);
}

/* Records the end of job j (with wr->mu held when threads run). */
static void
job_end(Writer *wr, Job *j, bool ok, const RtError *e)
{
	if (!ok && !wr->failed) {
		wr->failed = true;
		wr->err = *e;
	}
	j->finished = true;
	wr->inflight -= j->bytes;
	wr->unfinished--;
}

/* A writer thread: takes the queued jobs in order until stopped with none
 * left; after a failure the rest are skipped. */
static void *
writer_main(void *arg)
{
	Xf *x = arg;
	Writer *wr = &x->wr;
	pthread_mutex_lock(&wr->mu);
	for (;;) {
		while (!wr->stop && wr->next == wr->njobs)
			pthread_cond_wait(&wr->cv, &wr->mu);
		if (wr->next == wr->njobs)
			break;
		Job *j = &wr->jobs[wr->next++];
		RtError e;
		e.msg[0] = 0;
		RtCacheTicket tk = {-1, NULL};
		bool ok = wr->failed || job_place(x, j, &tk, &e);
		if (tk.shard >= 0) {
			pthread_mutex_unlock(&wr->mu);
			ok = rt_cache_write_alone(x->cw, &tk, j->v->t, &e);
			pthread_mutex_lock(&wr->mu);
		}
		job_end(wr, j, ok, &e);
		pthread_cond_broadcast(&wr->cv);
	}
	pthread_mutex_unlock(&wr->mu);
	return NULL;
}

/* Starts the writers for at most n jobs; without threads, jobs run on the
 * main thread as they come. */
static bool
writer_start(Xf *x, int n)
{
	Writer *wr = &x->wr;
	wr->jobs = calloc((size_t)n + 1, sizeof *wr->jobs);
	if (!wr->jobs)
		return false;
	wr->cjobs = n;
	if (pthread_mutex_init(&wr->mu, NULL))
		return false;
	if (pthread_cond_init(&wr->cv, NULL)) {
		pthread_mutex_destroy(&wr->mu);
		return false;
	}
	while (wr->nthreads < NWRITERS &&
	       !pthread_create(&wr->thr[wr->nthreads], NULL, writer_main, x))
		wr->nthreads++;
	if (!wr->nthreads) {
		pthread_cond_destroy(&wr->cv);
		pthread_mutex_destroy(&wr->mu);
	}
	return true;
}

/* Releases the values of the jobs finished so far (main thread; with the
 * lock held when threads run). Out of order: a job finished behind a slow
 * one gives its memory back at once, so that what is alive stays the
 * jobs unfinished plus the one being computed. [0, reaped) are all
 * released. */
static void
writer_reap(Writer *wr)
{
	for (int i = wr->reaped; i < wr->njobs; i++) {
		if (!wr->jobs[i].finished)
			continue;
		rt_value_release(wr->jobs[i].v);
		wr->jobs[i].v = NULL;
	}
	while (wr->reaped < wr->njobs && wr->jobs[wr->reaped].finished)
		wr->reaped++;
}

/* The writers' failure into e; false when they failed. */
static bool
writer_ok(Writer *wr, RtError *e)
{
	if (!wr->failed)
		return true;
	rt_error(e, "%s", wr->err.msg[0] ? wr->err.msg : "writing failed");
	return false;
}

/* Queues a job on value v (a new reference is taken), after waiting for
 * room; releases the values of finished jobs. false + e when writing
 * failed. */
static bool
writer_push(Xf *x, RtValue *v, const char *name, size_t bytes, RtError *e)
{
	Writer *wr = &x->wr;
	if (wr->njobs == wr->cjobs) {
		rt_error(e, "%s: more outputs than %d", x->T->name,
			 wr->cjobs);
		return false;
	}
	Job j = {rt_value_retain(v), name, bytes, false};
	if (!wr->nthreads) {
		Job *q = &wr->jobs[wr->njobs++];
		*q = j;
		wr->next = wr->njobs;
		wr->unfinished++;
		RtError je;
		je.msg[0] = 0;
		RtCacheTicket tk;
		bool ok = wr->failed ||
			  (job_place(x, q, &tk, &je) &&
			   rt_cache_write_alone(x->cw, &tk, q->v->t, &je));
		job_end(wr, q, ok, &je);
		writer_reap(wr);
		return writer_ok(wr, e);
	}
	/* a job for each idle writer, whatever its size; beyond that, up to
	 * WRITER_BYTES in the queue */
	pthread_mutex_lock(&wr->mu);
	while (!wr->failed && wr->unfinished >= wr->nthreads &&
	       wr->inflight + bytes > WRITER_BYTES) {
		writer_reap(wr);
		pthread_cond_wait(&wr->cv, &wr->mu);
	}
	writer_reap(wr);
	wr->jobs[wr->njobs++] = j;
	wr->inflight += bytes;
	wr->unfinished++;
	pthread_cond_broadcast(&wr->cv);
	bool ok = writer_ok(wr, e);
	pthread_mutex_unlock(&wr->mu);
	return ok;
}

/* Stops the writers: after the queued jobs when drain, else skipping them;
 * releases every job's value. false + e when a job failed. */
static bool
writer_finish(Xf *x, bool drain, RtError *e)
{
	Writer *wr = &x->wr;
	if (wr->nthreads) {
		pthread_mutex_lock(&wr->mu);
		wr->stop = true;
		if (!drain)
			wr->failed = true;
		pthread_cond_broadcast(&wr->cv);
		pthread_mutex_unlock(&wr->mu);
		for (int i = 0; i < wr->nthreads; i++)
			pthread_join(wr->thr[i], NULL);
		pthread_cond_destroy(&wr->cv);
		pthread_mutex_destroy(&wr->mu);
		wr->nthreads = 0;
	}
	for (int i = wr->reaped; i < wr->njobs; i++)
		wr->jobs[i].finished = true;
	writer_reap(wr);
	free(wr->jobs);
	wr->jobs = NULL;
	wr->njobs = wr->cjobs = 0;
	return !drain || writer_ok(wr, e);
}

/* Reaps finished jobs (main thread) without waiting. */
static void
writer_poll(Writer *wr)
{
	if (!wr->nthreads) {
		writer_reap(wr);
		return;
	}
	pthread_mutex_lock(&wr->mu);
	writer_reap(wr);
	pthread_mutex_unlock(&wr->mu);
}

/* RtStream.load: weight `param` of T, by name from the checkpoint. */
static RtValue *
xf_load(void *ctx, int param, RtError *e)
{
	Xf *x = ctx;
	writer_poll(&x->wr);
	xf_sweep(x, false);
	if (param < 0 || param >= x->T->nparams) {
		rt_error(e, "%s: the executor asked for parameter %d of %d",
			 x->T->name, param, x->T->nparams);
		return NULL;
	}
	const char *name = x->T->params[param]->name;
	RtTensor *t = rt_weights_load(x->src, name, e);
	if (!t)
		return NULL;
	advise_tensor(x, t, MADV_WILLNEED);
	x->bytes_in += t->nbytes;
	x->nloaded++;
	RtValue *v = rt_value_tensor(t);
	if (!v) {
		rt_error(e, "out of memory");
		return NULL;
	}
	if (x->held[param])
		rt_value_release(x->held[param]);
	x->held[param] = rt_value_retain(v);
	xf_progress(x, false);
	return v;
}

/* RtStream.emit: output k of T goes to the cache under the name of F's
 * corresponding parameter (written by the writer threads). */
static bool
xf_emit(void *ctx, int k, RtValue *v, RtError *e)
{
	Xf *x = ctx;
	if (k < 0 || k >= x->nout) {
		rt_error(e, "%s: output %d of %d", x->T->name, k, x->nout);
		return false;
	}
	const char *name = x->F->params[x->ninput + k]->name;
	bool ok;
	if (v->kind == RV_TENSOR) {
		ok = writer_push(x, v, name, v->t->nbytes, e);
		x->bytes_out += v->t->nbytes;
	} else if (v->kind == RV_SHAPE) {
		ok = writer_push(x, v, name, 0, e);
		x->bytes_out += (uint64_t)v->n * 8;
	} else {
		rt_error(e, "%s: output %d ('%s') is a %s; a tensor cache holds "
			 "tensors and shape tuples", x->T->name, k, name,
			 v->kind == RV_TUPLE ? "tuple" : "scalar");
		ok = false;
	}
	x->nemitted++;
	xf_sweep(x, false);
	xf_progress(x, false);
	return ok;
}

/*
 * Checks the checkpoint against T's parameters before anything runs: every
 * parameter present with its dtype and shape (symbolic dims bound from the
 * first tensor that has them as a bare dimension). Tensors that are not
 * parameters are reported once as ignored.
 */
static bool
xf_check_weights(Xf *x)
{
	bool ok = true;
	int nmissing = 0;
	SymEnv env = {.arena = &x->m->arena};
	StrBuf missing = {0};
	for (int i = 0; i < x->T->nparams; i++) {
		const Var *p = x->T->params[i];
		const SInfo *si = p->sinfo;
		if (!rt_weights_has(x->src, p->name)) {
			if (nmissing++ < 8)
				sb_printf(&missing, "%s'%s'", nmissing > 1 ? ", " : "",
					  p->name);
			continue;
		}
		RtError e;
		if (!rt_weights_info(x->src, p->name, &x->dt[i], &x->ndim[i],
				     x->shape[i], &e)) {
			fprintf(stderr, "%s: error: %s\n", x->ckpt, e.msg);
			ok = false;
			continue;
		}
		size_t nb = 0;
		rt_size(x->dt[i], x->ndim[i], x->shape[i], &nb);
		x->total_in += nb;
		if (!si || si->kind != SI_TENSOR) {
			fprintf(stderr, "%s: error: parameter '%s' of %s is %s, "
				"not a tensor: it cannot come from a checkpoint\n",
				x->m->src.name, p->name, x->T->name,
				si ? infer_sinfo_str(x->m, si) : "unannotated");
			ok = false;
			continue;
		}
		bool match = (si->dtype == DT_UNKNOWN || si->dtype == x->dt[i]) &&
			     (si->ndim < 0 || si->ndim == x->ndim[i]);
		for (int k = 0; match && si->shape && k < si->ndim; k++) {
			PExpr *d = si->shape[k];
			if (d->kind == PE_VAR && !env_has(&env, d->var))
				env_bind(&env, d->var, x->shape[i][k]);
			int64_t want;
			const SymVar *u;
			if (env_eval(&env, d, &want, &u) && want != x->shape[i][k])
				match = false;
		}
		if (!match) {
			StrBuf b = {0};
			shape_str(&b, x->dt[i], x->ndim[i], x->shape[i]);
			fprintf(stderr, "%s: error: tensor '%s' is %s, but %s "
				"expects %s\n", x->ckpt, p->name, b.p, x->T->name,
				infer_sinfo_str(x->m, si));
			sb_free(&b);
			ok = false;
		}
	}
	if (nmissing) {
		fprintf(stderr, "%s: error: %d weight%s of %s %s missing from "
			"the checkpoint: %s%s\n", x->ckpt, nmissing,
			nmissing > 1 ? "s" : "", x->T->name,
			nmissing > 1 ? "are" : "is", missing.p,
			nmissing > 8 ? ", ..." : "");
		ok = false;
	}
	sb_free(&missing);
	env_free(&env);
	if (!ok || x->quiet)
		return ok;
	/* Extra tensors: ignored, as TVM does, but said. */
	int nextra = 0;
	StrBuf extra = {0};
	int n = rt_weights_count(x->src);
	for (int i = 0; i < n; i++) {
		const char *name = rt_weights_name(x->src, i);
		bool used = false;
		for (int k = 0; k < x->T->nparams && !used; k++)
			used = !strcmp(x->T->params[k]->name, name);
		if (!used && nextra++ < 4)
			sb_printf(&extra, "%s'%s'", nextra > 1 ? ", " : "", name);
	}
	if (nextra)
		fprintf(stderr, "%s: warning: %d tensor%s not a parameter of %s, "
			"ignored: %s%s\n", x->ckpt, nextra,
			nextra > 1 ? "s are" : " is", x->T->name, extra.p,
			nextra > 4 ? ", ..." : "");
	sb_free(&extra);
	return ok;
}

/* Hashes the parameters the run did not read (or all, before a run). */
static bool
xf_hash_rest(Xf *x)
{
	for (int i = 0; i < x->T->nparams; i++) {
		if (x->hashed[i])
			continue;
		RtError e;
		RtTensor *t = rt_weights_load(x->src, x->T->params[i]->name, &e);
		if (!t) {
			fprintf(stderr, "%s: error: %s\n", x->ckpt, e.msg);
			return false;
		}
		advise_tensor(x, t, MADV_WILLNEED);
		xf_hash_param(x, i, t);
		x->hashed[i] = true;
		advise_tensor(x, t, MADV_DONTNEED);
		rt_tensor_free(t);
	}
	return true;
}

/* The checkpoint's hash: names, dtypes, shapes and bytes of T's
 * parameters, in parameter order. */
static uint64_t
xf_ckpt_hash(const Xf *x)
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	for (int i = 0; i < x->T->nparams; i++) {
		const char *name = x->T->params[i]->name;
		const char *dt = dtype_name(x->dt[i]);
		int64_t nd = x->ndim[i];
		XXH3_64bits_update(s, name, strlen(name) + 1);
		XXH3_64bits_update(s, dt, strlen(dt) + 1);
		XXH3_64bits_update(s, &nd, sizeof nd);
		XXH3_64bits_update(s, x->shape[i], sizeof(int64_t) * (size_t)nd);
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, x->hash[i]);
		XXH3_64bits_update(s, &c, sizeof c);
	}
	uint64_t h = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return h;
}

/* The metadata fields that decide whether a cache is up to date. */
static json_t *
xf_provenance(const Xf *x, uint64_t module_hash, uint64_t shard_bytes,
	      bool shared)
{
	char mh[17];
	snprintf(mh, sizeof mh, "%016" PRIx64, module_hash);
	return json_pack("{s:s, s:s, s:s, s:I, s:b, s:s}",
			 "rlxModuleHash", mh, "rlxFunc", x->F->name,
			 "rlxTransform", x->T->name,
			 "rlxShardSize", (json_int_t)shard_bytes,
			 "rlxShared", shared, "rlxModel", "model.py");
}

/*
 * True when DIR holds a sound cache made by this rlx from the same module,
 * options and checkpoint. Hashes the whole checkpoint when the rest
 * matches (those hashes are kept for the run that may follow).
 */
static bool
xf_up_to_date(Xf *x, const char *dir, json_t *want, bool *failed)
{
	*failed = false;
	char *path = NULL;
	struct stat st;
	if (asprintf(&path, "%s/tensor-cache.json", dir) < 0)
		return false;
	bool exists = stat(path, &st) == 0;
	free(path);
	if (!exists)
		return false;
	RtError e;
	RtCache *c = rt_cache_open(dir, &e);
	if (!c)
		return false;
	json_t *meta = json_loads(rt_cache_metadata(c), 0, NULL);
	bool same = meta != NULL;
	const char *key;
	json_t *val;
	json_object_foreach(want, key, val)
		same = same && json_equal(val, json_object_get(meta, key));
	const char *ver = json_string_value(json_object_get(meta, "rlxVersion"));
	same = same && ver && !strcmp(ver, rlx_version());
	if (same) {
		if (!xf_hash_rest(x)) {
			*failed = true;
			same = false;
		}
	}
	if (same) {
		char ch[17];
		snprintf(ch, sizeof ch, "%016" PRIx64, xf_ckpt_hash(x));
		const char *have = json_string_value(
			json_object_get(meta, "rlxCheckpointHash"));
		same = have && !strcmp(have, ch);
	}
	if (same) {
		const char *model = json_string_value(json_object_get(meta, "rlxModel"));
		char *mp = NULL;
		same = model && asprintf(&mp, "%s/%s", dir, model) >= 0 &&
		       stat(mp, &st) == 0;
		free(mp);
	}
	if (same)
		same = rt_cache_verify(c, &e);
	json_decref(meta);
	rt_cache_close(c);
	return same;
}

/* rlx transform: the lifted weight transform, run on a checkpoint into a
 * tensor cache. */
int
cmd_transform(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *func = NULL, *ckpt = NULL, *v;
	uint64_t shard_mb = 32;
	bool shared = false, quiet = false;
	Vec shared_funcs = {0};
	int status = EXIT_OK;
	for (int i = 1; i < argc && status == EXIT_OK; i++) {
		if (cli_is_help(argv[i])) {
			fputs(transform_help, stdout);
			vec_free(&shared_funcs);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			quiet = true;
		} else if (!strcmp(argv[i], "--shared")) {
			shared = true;
		} else if (!strncmp(argv[i], "--shared=", 9)) {
			shared = true;
			for (char *t = strtok(argv[i] + 9, ","); t; t = strtok(NULL, ","))
				vec_push(&shared_funcs, t);
		} else if ((v = cli_opt_value(argc, argv, &i, "--weights"))) {
			if (!*v)
				status = cli_usage_error("transform", "%s", "--weights needs a PATH");
			ckpt = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				status = cli_usage_error("transform", "%s", "--func needs a NAME");
			func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--shard-size"))) {
			if (!parse_u64(v, &shard_mb) || shard_mb == 0 ||
			    shard_mb > (1u << 20))
				status = cli_usage_error("transform",
					"--shard-size needs a size in MiB (1 to 1048576), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "-o"))) {
			if (!*v)
				status = cli_usage_error("transform", "%s", "-o needs a DIR");
			out = v;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_usage_error("transform", "unknown option %s", argv[i]);
		} else if (file) {
			status = cli_usage_error("transform", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status == EXIT_OK && !file)
		status = cli_usage_error("transform", "%s", "needs a FILE");
	if (status == EXIT_OK && !ckpt)
		status = cli_usage_error("transform", "%s", "needs --weights PATH");
	if (status == EXIT_OK && !out)
		status = cli_usage_error("transform", "%s", "needs -o DIR");
	if (status != EXIT_OK) {
		vec_free(&shared_funcs);
		return status;
	}

	/* Large buffers from mmap, always: freed intermediates go back to the
	 * system at once instead of piling up in the heap (glibc's adaptive
	 * threshold would otherwise serve 16 MiB tensors from the heap, and
	 * peak RSS would follow fragmentation rather than the working set). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	double t0 = now_s();
	Xf x = {.ckpt = ckpt, .quiet = quiet, .t0 = t0,
		.progress = !quiet && isatty(2),
		.page = (size_t)sysconf(_SC_PAGESIZE)};
	char *text = NULL;
	size_t len = 0;
	RtProgram *prog = NULL;
	json_t *prov = NULL;
	char *model_text = NULL;
	status = EXIT_INPUT;

	x.m = load_module_text(file, &text, &len);
	if (!x.m)
		goto done;
	uint64_t module_hash = XXH3_64bits(text, len);
	x.F = pick_func(x.m, func, "transform");
	if (!x.F)
		goto done;
	const char *fname = x.F->name;
	char *tname = arena_printf(&x.m->arena, "%s_transform_params",
				   shared ? "" : fname);
	if (shared)
		tname += strlen("_");
	if (!ir_find_func(x.m, tname)) {
		if (!lift_module(x.m, shared, (const char **)shared_funcs.items,
				 shared_funcs.n))
			goto done;
	}
	x.F = ir_find_func(x.m, fname);
	x.T = ir_find_func(x.m, tname);
	if (!x.F || !x.T) {
		fprintf(stderr, "%s: error: lifting '%s' made no %s\n",
			x.m->src.name, fname, tname);
		goto done;
	}
	x.ninput = ir_func_num_input(x.F);
	x.nout = x.F->nparams - x.ninput;
	const SInfo *ret = func_result(x.T);
	if (!ret || ret->kind != SI_TUPLE || ret->nfields != x.nout) {
		fprintf(stderr, "%s: error: %s must return a tuple of the %d "
			"parameters of %s after its inputs\n", x.m->src.name,
			x.T->name, x.nout, fname);
		goto done;
	}

	RtError e;
	if (!(x.src = rt_weights_open(ckpt, &e))) {
		fprintf(stderr, "%s: error: %s\n", ckpt, e.msg);
		goto done;
	}
	size_t np = (size_t)x.T->nparams + 1;
	x.held = calloc(np, sizeof *x.held);
	x.hash = calloc(np, sizeof *x.hash);
	x.hashed = calloc(np, sizeof *x.hashed);
	x.dt = calloc(np, sizeof *x.dt);
	x.ndim = calloc(np, sizeof *x.ndim);
	x.shape = calloc(np, sizeof *x.shape);
	if (!xf_check_weights(&x))
		goto done;

	prov = xf_provenance(&x, module_hash, shard_mb << 20, shared);
	bool failed;
	if (xf_up_to_date(&x, out, prov, &failed)) {
		if (!quiet)
			printf("%s is up to date\n", out);
		status = EXIT_OK;
		goto done;
	}
	if (failed)
		goto done;

	hasher_start(&x);
	prog = compile_func(x.m, x.T->name);
	if (!prog)
		goto done;
	model_text = rlx_print(x.m, NULL);
	RtCacheOptions co = {.shard_bytes = (size_t)(shard_mb << 20)};
	x.cw = rt_cache_begin(out, &co, &e);
	if (!x.cw) {
		fprintf(stderr, "%s: error: %s\n", out, e.msg);
		goto done;
	}
	if (!writer_start(&x, x.nout)) {
		fprintf(stderr, "%s: error: out of memory\n", out);
		goto done;
	}
	RtStream s = {.load = xf_load, .emit = xf_emit, .ctx = &x};
	bool ok = rt_run_stream(prog, &s, &e);
	RtError we;
	bool wok = writer_finish(&x, ok, &we);
	xf_sweep(&x, true);
	xf_progress(&x, true);
	if (!ok) {
		fprintf(stderr, "%s: error: %s\n", x.m->src.name, e.msg);
		goto done;
	}
	if (!wok) {
		fprintf(stderr, "%s: error: %s\n", out, we.msg);
		goto done;
	}
	if (x.nemitted != x.nout) {
		fprintf(stderr, "%s: error: %s produced %d of its %d outputs\n",
			x.m->src.name, x.T->name, x.nemitted, x.nout);
		goto done;
	}
	if (!hasher_finish(&x) || !xf_hash_rest(&x))
		goto done;
	char ch[17];
	snprintf(ch, sizeof ch, "%016" PRIx64, xf_ckpt_hash(&x));
	json_object_set_new(prov, "rlxCheckpointHash", json_string(ch));
	char *extra = json_dumps(prov, JSON_COMPACT | JSON_PRESERVE_ORDER);
	ok = rt_cache_add_file(x.cw, "model.py", model_text, strlen(model_text), &e);
	if (ok) {
		ok = rt_cache_finish(x.cw, extra, &e);
		x.cw = NULL;
	}
	free(extra);
	if (!ok) {
		fprintf(stderr, "%s: error: %s\n", out, e.msg);
		goto done;
	}
	status = EXIT_OK;
	if (!quiet) {
		double dt = now_s() - t0;
		printf("%s: %d tensors, %.1f MB in, %.1f MB out, %.2f s, "
		       "%.2f GB/s, peak RSS %.1f MB\n", out, x.nout,
		       (double)x.total_in / 1e6, (double)x.bytes_out / 1e6, dt,
		       dt > 0 ? (double)x.total_in / dt / 1e9 : 0.0,
		       (double)peak_rss() / 1e6);
	}
done:
	if (x.hs.started) {
		atomic_store(&x.hs.stop, true); /* after the tensor it is on */
		hasher_finish(&x);
	}
	if (x.wr.jobs) {
		RtError ignored;
		writer_finish(&x, false, &ignored);
	}
	if (x.cw)
		rt_cache_abort(x.cw);
	if (x.held)
		xf_sweep(&x, true);
	free(model_text);
	json_decref(prov);
	rt_program_free(prog);
	free(x.held);
	free(x.hash);
	free(x.hashed);
	free(x.dt);
	free(x.ndim);
	free(x.shape);
	rt_weights_close(x.src);
	rlx_module_free(x.m);
	free(text);
	vec_free(&shared_funcs);
	return status;
}

/* ----------------------------------------------------------------- verify */

static const char verify_help[] =
	"usage: rlx verify FILE --weights PATH [--func NAME] [--input NAME=FILE.npy]...\n"
	"                  [--dim NAME=VALUE]... [--seed N]\n"
	"\n"
	"Runs the function F of FILE on the raw weights of PATH, then lifts FILE,\n"
	"runs F_transform_params on the same weights and the lifted F on its\n"
	"outputs (all in memory), on the same inputs, and prints the largest\n"
	"absolute and relative difference of each output. Exit 0 when every\n"
	"output agrees within its dtype's tolerance (relative 1e-5 for float32,\n"
	"1e-12 for float64, 1e-2 for float16 and bfloat16, exact for integers;\n"
	"an element passes when |a - b| <= tol * (|b| + max|b|)), else 1.\n"
	"\n"
	"  --weights PATH          the checkpoint (safetensors or an index)\n"
	"  --func NAME             the function (default: main)\n"
	"  --input NAME=FILE.npy   an input; inputs not given are random\n"
	"                          (floats N(0, 1), integers in [0, 4))\n"
	"  --dim NAME=VALUE        a symbolic input dimension (default 4)\n"
	"  --seed N                the seed of the random inputs (default 0)\n";

/* Frees an array of n values (NULL entries allowed). */
static void
release_all(RtValue **vs, int n)
{
	for (int i = 0; vs && i < n; i++)
		rt_value_release(vs[i]);
	free(vs);
}

/* A random or given value for input parameter p of F. */
static RtValue *
verify_input(Module *m, const Var *p, char **inputs, int ninputs,
	     SymEnv *env, const DimArgs *dims, uint64_t seed)
{
	size_t n = strlen(p->name);
	for (int k = ninputs - 1; k >= 0; k--) {
		if (strncmp(inputs[k], p->name, n) || inputs[k][n] != '=')
			continue;
		RtError e;
		RtTensor *t = rt_npy_read(inputs[k] + n + 1, &e);
		if (!t) {
			fprintf(stderr, "%s: error: %s\n", inputs[k] + n + 1, e.msg);
			return NULL;
		}
		/* bind its symbolic dims for the inputs that follow */
		const SInfo *si = p->sinfo;
		for (int d = 0; si && si->kind == SI_TENSOR && si->shape &&
		     d < si->ndim && d < t->ndim; d++)
			if (si->shape[d]->kind == PE_VAR &&
			    !env_has(env, si->shape[d]->var))
				env_bind(env, si->shape[d]->var, t->shape[d]);
		return rt_value_tensor(t);
	}
	const SInfo *si = p->sinfo;
	char err[1200];
	if (si && si->kind == SI_SHAPE && si->shape) {
		int64_t vals[RT_MAX_DIMS * 4];
		SInfo tmp = {.kind = SI_TENSOR, .ndim = si->ndim, .shape = si->shape};
		if (si->ndim > (int)ARRAY_LEN(vals) ||
		    !resolve_shape(env, dims, 4, &tmp, vals, err, sizeof err))
			goto bad;
		return rt_value_shape(vals, si->ndim);
	}
	if (!si || si->kind != SI_TENSOR || si->ndim < 0 || !si->shape ||
	    si->dtype == DT_UNKNOWN || si->ndim > RT_MAX_DIMS) {
		snprintf(err, sizeof err, "cannot make a random %s; give it with "
			 "--input %s=FILE.npy",
			 si ? infer_sinfo_str(m, si) : "value", p->name);
		goto bad;
	}
	int64_t shape[RT_MAX_DIMS];
	if (!resolve_shape(env, dims, 4, si, shape, err, sizeof err))
		goto bad;
	RtError e;
	RtTensor *t = rt_tensor_new(si->dtype, si->ndim, shape, &e);
	if (!t) {
		snprintf(err, sizeof err, "%s", e.msg);
		goto bad;
	}
	Rng r = rng_for(seed, p->name);
	fill_random(t, &r, 1.0, 4);
	return rt_value_tensor(t);
bad:
	fprintf(stderr, "%s: error: input '%s': %s\n", m->src.name, p->name, err);
	return NULL;
}

/* rlx verify: original on raw weights vs lifted on transformed weights. */
int
cmd_verify(int argc, char **argv)
{
	const char *file = NULL, *func = NULL, *ckpt = NULL, *v;
	uint64_t seed = 0;
	DimArgs dims = {0};
	Vec inputs = {0};
	int status = EXIT_OK;
	for (int i = 1; i < argc && status == EXIT_OK; i++) {
		if (cli_is_help(argv[i])) {
			fputs(verify_help, stdout);
			goto out_args;
		} else if ((v = cli_opt_value(argc, argv, &i, "--weights"))) {
			if (!*v)
				status = cli_usage_error("verify", "%s", "--weights needs a PATH");
			ckpt = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--func"))) {
			if (!*v)
				status = cli_usage_error("verify", "%s", "--func needs a NAME");
			func = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--input"))) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v || !eq[1])
				status = cli_usage_error("verify",
					"--input needs NAME=FILE.npy, not '%s'", v);
			vec_push(&inputs, (void *)v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--dim"))) {
			if (!dim_arg_add(&dims, (char *)v))
				status = cli_usage_error("verify",
					"--dim needs NAME=VALUE (a non-negative integer), not '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--seed"))) {
			if (!parse_u64(v, &seed))
				status = cli_usage_error("verify",
					"--seed needs a non-negative integer, not '%s'", v);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			status = cli_usage_error("verify", "unknown option %s", argv[i]);
		} else if (file) {
			status = cli_usage_error("verify", "unexpected argument %s", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (status == EXIT_OK && !file)
		status = cli_usage_error("verify", "%s", "needs a FILE");
	if (status == EXIT_OK && !ckpt)
		status = cli_usage_error("verify", "%s", "needs --weights PATH");
	if (status != EXIT_OK)
		goto out_args;

	status = EXIT_INPUT;
	char *text = NULL;
	size_t len;
	Module *m0 = load_module_text(file, &text, &len), *m1 = NULL;
	RtWeights *w = NULL;
	RtProgram *p0 = NULL, *pt = NULL, *p1 = NULL;
	RtValue **args0 = NULL, **argst = NULL, **args1 = NULL;
	RtValue *r0 = NULL, *tr = NULL, *r1 = NULL;
	SymEnv env = {0};
	int nparams0 = 0, nparamst = 0, nparams1 = 0;
	Func *F0 = m0 ? pick_func(m0, func, "verify") : NULL;
	if (!F0)
		goto done;
	env.arena = &m0->arena;
	char *tname = arena_printf(&m0->arena, "%s_transform_params", F0->name);
	if (ir_find_func(m0, tname)) {
		fprintf(stderr, "%s: error: the module already has %s; verify "
			"needs the module before lifting\n", m0->src.name, tname);
		goto done;
	}
	rlx_diags *d = rlx_diags_new();
	m1 = rlx_parse(m0->src.name, text, len, d);
	rlx_diags_free(d);
	if (!m1 || !lift_module(m1, false, NULL, 0))
		goto done;
	Func *F1 = ir_find_func(m1, F0->name), *T1 = ir_find_func(m1, tname);
	if (!F1 || !T1) {
		fprintf(stderr, "%s: error: lifting '%s' made no %s\n",
			m0->src.name, F0->name, tname);
		goto done;
	}
	for (int k = 0; k < dims.n; k++) {
		bool known = false;
		for (int j = 0; j < F0->nsymvars; j++)
			known |= !strcmp(F0->symvars[j]->name, dims.names[k]);
		if (!known) {
			status = cli_usage_error("verify",
				"--dim: '%s' is not a symbolic variable of the function",
				dims.names[k]);
			goto done;
		}
	}
	for (int k = 0; k < inputs.n; k++) {
		const char *s = inputs.items[k];
		size_t n = (size_t)(strchr(s, '=') - s);
		bool known = false;
		for (int j = 0; j < ir_func_num_input(F0); j++)
			known |= strlen(F0->params[j]->name) == n &&
				 !strncmp(F0->params[j]->name, s, n);
		if (!known) {
			status = cli_usage_error("verify",
				"--input %s: not an input of the function", s);
			goto done;
		}
	}

	RtError e;
	if (!(w = rt_weights_open(ckpt, &e))) {
		fprintf(stderr, "%s: error: %s\n", ckpt, e.msg);
		goto done;
	}
	int nin = ir_func_num_input(F0);
	nparams0 = F0->nparams;
	args0 = calloc((size_t)nparams0 + 1, sizeof *args0);
	for (int i = 0; i < nin; i++) {
		args0[i] = verify_input(m0, F0->params[i], (char **)inputs.items,
					inputs.n, &env, &dims, seed);
		if (!args0[i])
			goto done;
	}
	for (int i = nin; i < nparams0; i++) {
		const char *name = F0->params[i]->name;
		if (!rt_weights_has(w, name)) {
			fprintf(stderr, "%s: error: weight '%s' of %s is missing "
				"from the checkpoint\n", ckpt, name, F0->name);
			goto done;
		}
		RtTensor *t = rt_weights_load(w, name, &e);
		if (!t) {
			fprintf(stderr, "%s: error: %s\n", ckpt, e.msg);
			goto done;
		}
		args0[i] = rt_value_tensor(t);
	}
	/* the original on raw weights */
	if (!(p0 = compile_func(m0, F0->name)))
		goto done;
	if (!rt_run(p0, args0, &r0, &e)) {
		fprintf(stderr, "%s: error: %s: %s\n", m0->src.name, F0->name, e.msg);
		goto done;
	}
	/* the transform, on the same weights by name */
	nparamst = T1->nparams;
	argst = calloc((size_t)nparamst + 1, sizeof *argst);
	for (int i = 0; i < nparamst; i++) {
		for (int k = nin; k < nparams0 && !argst[i]; k++)
			if (!strcmp(F0->params[k]->name, T1->params[i]->name))
				argst[i] = rt_value_retain(args0[k]);
		if (!argst[i]) {
			fprintf(stderr, "%s: error: %s takes '%s', which is not a "
				"weight of %s\n", m0->src.name, T1->name,
				T1->params[i]->name, F0->name);
			goto done;
		}
	}
	if (!(pt = compile_func(m1, T1->name)))
		goto done;
	if (!rt_run(pt, argst, &tr, &e)) {
		fprintf(stderr, "%s: error: %s: %s\n", m0->src.name, T1->name, e.msg);
		goto done;
	}
	int nin1 = ir_func_num_input(F1);
	nparams1 = F1->nparams;
	if (tr->kind != RV_TUPLE || tr->n != nparams1 - nin1) {
		fprintf(stderr, "%s: error: %s returned %d values for the %d "
			"weights of the lifted %s\n", m0->src.name, T1->name,
			tr->kind == RV_TUPLE ? tr->n : 1, nparams1 - nin1, F1->name);
		goto done;
	}
	args1 = calloc((size_t)nparams1 + 1, sizeof *args1);
	for (int i = 0; i < nin1; i++)
		args1[i] = rt_value_retain(args0[i]);
	for (int i = nin1; i < nparams1; i++)
		args1[i] = rt_value_retain(tr->fields[i - nin1]);
	if (!(p1 = compile_func(m1, F1->name)))
		goto done;
	if (!rt_run(p1, args1, &r1, &e)) {
		fprintf(stderr, "%s: error: lifted %s: %s\n", m0->src.name,
			F1->name, e.msg);
		goto done;
	}
	bool ok = true;
	if (r0->kind == RV_TUPLE && r1->kind == RV_TUPLE && r0->n == r1->n) {
		for (int i = 0; i < r0->n; i++) {
			char label[32];
			snprintf(label, sizeof label, "output %d", i);
			ok &= rt_value_compare(label, r0->fields[i], r1->fields[i],
					       stdout);
		}
	} else {
		ok = rt_value_compare("output", r0, r1, stdout);
	}
	printf("%s\n", ok ? "verify: the lifted module agrees with the original"
			  : "verify: the lifted module DIFFERS from the original");
	status = ok ? EXIT_OK : EXIT_INPUT;
done:
	rt_value_release(r0);
	rt_value_release(tr);
	rt_value_release(r1);
	release_all(args0, nparams0);
	release_all(argst, nparamst);
	release_all(args1, nparams1);
	rt_program_free(p0);
	rt_program_free(pt);
	rt_program_free(p1);
	rt_weights_close(w);
	env_free(&env);
	rlx_module_free(m0);
	rlx_module_free(m1);
	free(text);
out_args:
	dim_args_free(&dims);
	vec_free(&inputs);
	return status;
}
