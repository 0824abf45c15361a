/*
 * provenance.c — what a tensor cache records about where it came from (the
 * module's hash, the functions, the options, the checkpoint's hash, this
 * rlx's version) and the up-to-date check that reads it back: a run of
 * `rlx transform` whose inputs are the same as the cache's does nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "transform.h"

/* The metadata fields that decide whether a cache is up to date. */
json_t *
rt_provenance(uint64_t module_hash, const char *func, const char *transform,
	      uint64_t shard_bytes, bool shared)
{
	char mh[17];
	snprintf(mh, sizeof mh, "%016" PRIx64, module_hash);
	return json_pack("{s:s, s:s, s:s, s:I, s:b, s:s}",
			 "rlxModuleHash", mh, "rlxFunc", func,
			 "rlxTransform", transform,
			 "rlxShardSize", (json_int_t)shard_bytes,
			 "rlxShared", shared, "rlxModel", RT_CACHE_MODEL);
}

/* Whether `dir/rel` exists. */
static bool
exists_in(const char *dir, const char *rel)
{
	char *path = NULL;
	struct stat st;
	bool ok = rel && asprintf(&path, "%s/%s", dir, rel) >= 0 &&
		  stat(path, &st) == 0;
	free(path);
	return ok;
}

/*
 * True when dir holds a sound cache made by this rlx from the same module
 * and options (want) and the checkpoint hashing to what h computes. Hashes
 * the whole checkpoint only when the rest matches (h keeps the hashes for
 * the run that may follow). *failed when the checkpoint cannot be read.
 */
bool
rt_cache_up_to_date(const char *dir, json_t *want, RtCkptHash *h,
		    RtWeights *w, bool *failed, RtError *e)
{
	*failed = false;
	if (!exists_in(dir, "tensor-cache.json"))
		return false;
	RtError ignored;
	RtCache *c = rt_cache_open(dir, &ignored);
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
	if (same && !rt_ckpt_hash_rest(h, w, e)) {
		*failed = true;
		same = false;
	}
	if (same) {
		char ch[17];
		rt_ckpt_hash_hex(h, ch);
		const char *have = json_string_value(
			json_object_get(meta, "rlxCheckpointHash"));
		same = have && !strcmp(have, ch);
	}
	same = same && exists_in(dir, json_string_value(
					      json_object_get(meta, "rlxModel")));
	same = same && rt_cache_verify(c, &ignored);
	json_decref(meta);
	rt_cache_close(c);
	return same;
}
