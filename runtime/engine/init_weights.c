/*
 * init_weights.c — rlx_init_weights (rlx_runtime.h): deterministic random
 * weights for a function's weight parameters, and the generator and shape
 * resolution that rlx_verify_lift's random inputs share.
 *
 * splitmix64, seeded per tensor from the seed and the tensor's name: a
 * tensor's values depend on nothing else, so adding a parameter changes no
 * other tensor.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transform.h"
#include "rlx_runtime.h"
#include "xxh.h"

/* The next 64 random bits. */
static uint64_t
rng_next(RtRng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_unit(RtRng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller). */
static double
rng_normal(RtRng *r)
{
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

RtRng
rt_rng_for(uint64_t seed, const char *name)
{
	RtRng r = {seed ^ XXH3_64bits(name, strlen(name))};
	rng_next(&r);
	return r;
}

void
rt_fill_random(RtTensor *t, RtRng *r, double std, int int_range)
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
		case DT_U16: ((uint16_t *)t->data)[i] = (uint16_t)k; break;
		case DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)k; break;
		case DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)k; break;
		case DT_F8E4M3: case DT_F8E5M2:
			((uint8_t *)t->data)[i] = dtype_f8_encode(t->dtype, f);
			break;
		case DT_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)(k & 1); break;
		default: break;
		}
	}
}

/* The value given for a symbolic variable's name, if any (the last). */
static bool
dim_get(const char *const *names, const int64_t *values, int n,
	const char *name, int64_t *out)
{
	for (int i = n - 1; i >= 0; i--)
		if (!strcmp(names[i], name)) {
			*out = values[i];
			return true;
		}
	return false;
}

bool
rt_resolve_shape(RtSymEnv *env, const char *const *names,
		 const int64_t *values, int n, int64_t dflt, const SInfo *si,
		 int64_t *shape, RtError *err)
{
	for (int k = 0; k < si->ndim; k++) {
		PExpr *x = si->shape[k];
		if (x->kind == PE_VAR && !rt_env_has(env, x->var)) {
			int64_t v;
			if (dim_get(names, values, n, x->var->name, &v))
				rt_env_bind(env, x->var, v);
			else if (dflt >= 0)
				rt_env_bind(env, x->var, dflt);
		}
		const SymVar *u = NULL;
		if (!rt_env_eval(env, x, &shape[k], &u)) {
			rt_error(err, "symbolic dimension '%s' has no "
				 "value: give it with --dim %s=VALUE",
				 u ? u->name : "?", u ? u->name : "NAME");
			return false;
		}
		if (shape[k] < 0) {
			rt_error(err, "dimension %d is negative (%" PRId64 ")",
				 k, shape[k]);
			return false;
		}
	}
	return true;
}

const char *
rt_unknown_dim(const Func *f, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		bool known = false;
		for (int k = 0; k < f->nsymvars; k++)
			known |= !strcmp(f->symvars[k]->name, names[i]);
		if (!known)
			return names[i];
	}
	return NULL;
}

/* Random weight p (a tensor of known dtype and shape); NULL + d. */
static RtTensor *
random_weight(Module *m, const Var *p, RtSymEnv *env,
	      const rlx_init_options *o, Diags *d)
{
	const SInfo *si = p->sinfo;
	if (!si || si->kind != SI_TENSOR) {
		diag_file(d, DIAG_ERROR, m->src.name, "weight '%s' is not a "
			  "tensor; init-weights makes tensors only", p->name);
		return NULL;
	}
	if (si->dtype == DT_UNKNOWN || si->ndim < 0 || !si->shape ||
	    !rt_st_dtype_name(si->dtype)) {
		diag_file(d, DIAG_ERROR, m->src.name, "weight '%s' needs a known "
			  "dtype and shape, not %s", p->name,
			  infer_sinfo_str(m, si));
		return NULL;
	}
	int64_t shape[RT_MAX_DIMS];
	RtTensor *t = NULL;
	RtError err;
	if (si->ndim > RT_MAX_DIMS)
		rt_error(&err, "more than %d dimensions", RT_MAX_DIMS);
	else if (rt_resolve_shape(env, o->dims.names, o->dims.values,
				  o->dims.n, -1, si, shape, &err))
		t = rt_tensor_new(si->dtype, si->ndim, shape, &err);
	if (!t) {
		diag_file(d, DIAG_ERROR, m->src.name, "weight '%s': %s", p->name,
			  err.msg);
		return NULL;
	}
	RtRng r = rt_rng_for(o->seed, p->name);
	rt_fill_random(t, &r, 0.02, 16);
	return t;
}

int
rlx_init_weights(const char *filename, const char *text, size_t len,
		 const char *out, const rlx_init_options *opts, rlx_diags *d)
{
	rlx_init_options none = {0};
	const rlx_init_options *o = opts ? opts : &none;
	Module *m = rlx_parse(filename, text, len, d);
	Func *f = m ? rt_pick_func(m, o->func, "init-weights", d) : NULL;
	if (!f) {
		rlx_module_free(m);
		return RLX_EINPUT;
	}
	const char *bad = rt_unknown_dim(f, o->dims.names, o->dims.n);
	if (bad) {
		diag_file(d, DIAG_ERROR, NULL, "--dim: '%s' is not a symbolic "
			  "variable of the function", bad);
		rlx_module_free(m);
		return RLX_EOPTIONS;
	}
	int status = RLX_OK;
	int nin = ir_func_num_input(f), nw = f->nparams - nin;
	RtTensor **ts = calloc((size_t)nw + 1, sizeof *ts);
	const char **names = calloc((size_t)nw + 1, sizeof *names);
	RtSymEnv env = {.arena = &m->arena};
	for (int i = 0; i < nw && status == RLX_OK; i++) {
		names[i] = f->params[nin + i]->name;
		ts[i] = random_weight(m, f->params[nin + i], &env, o, d);
		if (!ts[i])
			status = RLX_EINPUT;
	}
	if (status == RLX_OK) {
		char seedtxt[32];
		snprintf(seedtxt, sizeof seedtxt, "%" PRIu64, o->seed);
		const char *meta[] = {"format", "pt", "rlx_seed", seedtxt,
				      "rlx_version", rlx_version()};
		RtError e;
		if (!rt_st_write_meta(out, names, (const RtTensor *const *)ts,
				      nw, meta, 3, &e)) {
			diag_file(d, DIAG_ERROR, out, "%s", e.msg);
			status = RLX_EINPUT;
		}
	}
	for (int i = 0; i < nw; i++)
		rt_tensor_free(ts[i]);
	free(ts);
	free(names);
	rt_env_free(&env);
	rlx_module_free(m);
	return status;
}
