#!/usr/bin/python3
"""End-to-end tests of `rlx init-weights`, `rlx transform` and `rlx verify`,
with NumPy as the oracle.

Environment: RLX (the rlx binary), SRCDIR (the source tree). Each case
prints `ok NAME` or `FAIL NAME: why`; cases needing `rlx run` print `skip`
while that command is not available. Exit 1 when any case failed.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

RLX = os.environ.get("RLX", "build/rlx")
SRC = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "../../.."))
EX = os.path.join(SRC, "examples")
HERE = os.path.join(SRC, "tests", "e2e", "transform")

ST_DT = {"F32": np.float32, "F64": np.float64, "F16": np.float16,
         "BF16": "bf16", "I8": np.int8, "I16": np.int16, "I32": np.int32,
         "I64": np.int64, "U8": np.uint8, "BOOL": np.bool_}
TC_DT = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
         "int8": np.int8, "int16": np.int16, "int32": np.int32,
         "int64": np.int64, "uint8": np.uint8, "bool": np.bool_,
         "bfloat16": "bf16"}


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def rlx(*args, expect=0):
    p = subprocess.run([RLX, *map(str, args)], capture_output=True, text=True)
    if expect is not None and p.returncode != expect:
        raise Fail("rlx %s: exit %d, expected %d\nstdout: %s\nstderr: %s" % (
            " ".join(map(str, args)), p.returncode, expect, p.stdout, p.stderr))
    return p


def bf16_to_f32(u16):
    return (u16.astype(np.uint32) << 16).view(np.float32)


def read_st(path):
    """A safetensors file as {name: array} (bfloat16 widened to float32)."""
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    hdr = json.loads(b[8:8 + n])
    out = {}
    for name, r in hdr.items():
        if name == "__metadata__":
            continue
        lo, hi = r["data_offsets"]
        raw = b[8 + n + lo:8 + n + hi]
        dt = ST_DT[r["dtype"]]
        if dt == "bf16":
            a = bf16_to_f32(np.frombuffer(raw, np.uint16))
        else:
            a = np.frombuffer(raw, dt)
        out[name] = a.reshape(r["shape"])
    return out


def write_st(path, tensors):
    """{name: array} as a safetensors file (header order as given)."""
    names = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
             np.dtype(np.int8): "I8", np.dtype(np.int64): "I64",
             np.dtype(np.float64): "F64", np.dtype(np.int32): "I32",
             np.dtype(np.uint8): "U8", np.dtype(np.bool_): "BOOL",
             np.dtype(np.int16): "I16"}
    hdr, data, off = {}, b"", 0
    for k, a in tensors.items():
        a = np.ascontiguousarray(a)
        hdr[k] = {"dtype": names[a.dtype], "shape": list(a.shape),
                  "data_offsets": [off, off + a.nbytes]}
        data += a.tobytes()
        off += a.nbytes
    h = json.dumps(hdr).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def read_cache(d):
    """A tensor cache as {name: array or ('shape', [values])}."""
    with open(os.path.join(d, "tensor-cache.json")) as f:
        top = json.load(f)
    out = {}
    for shard in top["records"]:
        with open(os.path.join(d, shard["dataPath"]), "rb") as f:
            b = f.read()
        check(len(b) == shard["nbytes"], "shard size")
        for r in shard["records"]:
            check(r["byteOffset"] % 64 == 0, "byteOffset not 64-aligned")
            raw = b[r["byteOffset"]:r["byteOffset"] + r["nbytes"]]
            dt = TC_DT[r["dtype"]]
            a = (bf16_to_f32(np.frombuffer(raw, np.uint16)) if dt == "bf16"
                 else np.frombuffer(raw, dt)).reshape(r["shape"])
            check(r["name"] not in out, "duplicate record " + r["name"])
            out[r["name"]] = ("shape", a.tolist()) if r.get("rlxKind") == "shape" else a
    return top["metadata"], out


def np_llama(w, layers=2):
    """The transform of examples/llama.py in NumPy."""
    out = {"model.embed_tokens.weight": w["model.embed_tokens.weight"]}
    for l in range(layers):
        for n in ("input_layernorm", "post_attention_layernorm"):
            k = "model.layers.%d.%s.weight" % (l, n)
            out[k] = w[k]
    out["model.norm.weight"] = w["model.norm.weight"]
    for l in range(layers):
        p = "model.layers.%d." % l
        a = p + "self_attn."
        m = p + "mlp."
        out["l%d_qkv_wt" % l] = np.concatenate(
            [w[a + "q_proj.weight"], w[a + "k_proj.weight"], w[a + "v_proj.weight"]]).T
        out["l%d_attn_wt" % l] = w[a + "o_proj.weight"].T
        out["l%d_gu_wt" % l] = np.concatenate(
            [w[m + "gate_proj.weight"], w[m + "up_proj.weight"]]).T
        out["l%d_down_wt" % l] = w[m + "down_proj.weight"].T
    out["lm_head_t16"] = w["lm_head.weight"].T.astype(np.float16)
    return out


def np_quant(wt, group=32):
    rows, cols = wt.shape
    g = wt.reshape(rows, cols // group, group)
    scale = np.maximum(np.abs(g).max(axis=2, keepdims=True) / np.float32(127),
                       np.float32(1e-8)).astype(np.float32)
    q = np.clip(np.round(g / scale), -127, 127).astype(np.int8)
    return q, scale


def np_llama_q8(w, layers=2):
    out = {"model.embed_tokens.weight": w["model.embed_tokens.weight"]}
    for l in range(layers):
        for n in ("input_layernorm", "post_attention_layernorm"):
            k = "model.layers.%d.%s.weight" % (l, n)
            out[k] = w[k]
    out["model.norm.weight"] = w["model.norm.weight"]
    for l in range(layers):
        p = "model.layers.%d." % l
        a, m = p + "self_attn.", p + "mlp."
        mats = {
            "qkv": np.concatenate([w[a + "q_proj.weight"], w[a + "k_proj.weight"],
                                   w[a + "v_proj.weight"]]),
            "attn": w[a + "o_proj.weight"],
            "gu": np.concatenate([w[m + "gate_proj.weight"], w[m + "up_proj.weight"]]),
            "down": w[m + "down_proj.weight"],
        }
        for k, v in mats.items():
            q, s = np_quant(v)
            out["l%d_%s_q" % (l, k)] = q
            out["l%d_%s_scale" % (l, k)] = s
    out["lm_head_t16"] = w["lm_head.weight"].T.astype(np.float16)
    return out


def compare(got, want, what):
    check(set(got) == set(want), "%s: records %s, expected %s" % (
        what, sorted(set(got) ^ set(want)), "the NumPy names"))
    for k, a in want.items():
        b = got[k]
        check(b.dtype == a.dtype and b.shape == a.shape,
              "%s: %s is %s%s, expected %s%s" % (what, k, b.dtype, b.shape, a.dtype, a.shape))
        if a.dtype == np.int8:
            # round-half ties may go either way; everything else is exact
            d = np.abs(a.astype(np.int32) - b.astype(np.int32))
            check(d.max(initial=0) <= 1 and (d > 0).mean() < 1e-3,
                  "%s: %s differs from NumPy" % (what, k))
        else:
            check(np.array_equal(a, b), "%s: %s differs from NumPy (max %g)" % (
                what, k, np.abs(a.astype(np.float64) - b.astype(np.float64)).max()))


def no_leftovers(tmp, name):
    left = [f for f in os.listdir(tmp) if f.startswith(name + ".tmp") or f.startswith(name + ".old") or f.startswith(name + ".rlx-tmp.")]
    check(not left, "temporary files left behind: %s" % left)


def case_transform_llama(tmp):
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", os.path.join(EX, "llama.py"), "--seed", 3, "-o", ck)
    d = os.path.join(tmp, "cache")
    p = rlx("transform", os.path.join(EX, "llama.py"), "--weights", ck, "-o", d)
    check("tensors" in p.stdout and "peak RSS" in p.stdout, "no summary line: " + p.stdout)
    meta, got = read_cache(d)
    compare(got, np_llama(read_st(ck)), "llama")
    for k in ("rlxModuleHash", "rlxCheckpointHash", "rlxVersion"):
        check(k in meta, "metadata lacks " + k)
    check(os.path.exists(os.path.join(d, "model.py")), "no model.py")
    rlx("check", os.path.join(d, "model.py"))
    no_leftovers(tmp, "cache")


def case_transform_q8(tmp):
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", os.path.join(EX, "llama_q8.py"), "-o", ck)
    d = os.path.join(tmp, "cache")
    rlx("transform", os.path.join(EX, "llama_q8.py"), "--weights", ck, "-o", d, "--quiet")
    _, got = read_cache(d)
    compare(got, np_llama_q8(read_st(ck)), "llama_q8")


def case_small_shards(tmp):
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", os.path.join(EX, "llama.py"), "-o", ck)
    d = os.path.join(tmp, "cache")
    rlx("transform", os.path.join(EX, "llama.py"), "--weights", ck, "-o", d,
        "--shard-size", 1, "--quiet")
    _, got = read_cache(d)
    compare(got, np_llama(read_st(ck)), "1 MiB shards")


def case_rerun_noop(tmp):
    model = os.path.join(tmp, "llama.py")
    shutil.copy(os.path.join(EX, "llama.py"), model)
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", model, "-o", ck)
    d = os.path.join(tmp, "cache")
    rlx("transform", model, "--weights", ck, "-o", d)
    stamp = {f: os.stat(os.path.join(d, f)).st_mtime_ns for f in os.listdir(d)}
    p = rlx("transform", model, "--weights", ck, "-o", d)
    check("up to date" in p.stdout, "second run did not find the cache up to date: " + p.stdout)
    check(stamp == {f: os.stat(os.path.join(d, f)).st_mtime_ns for f in os.listdir(d)},
          "an up-to-date run rewrote files")
    # a changed checkpoint (same names and shapes) recomputes
    rlx("init-weights", model, "--seed", 7, "-o", ck)
    p = rlx("transform", model, "--weights", ck, "-o", d)
    check("up to date" not in p.stdout, "a changed checkpoint was found up to date")
    compare(read_cache(d)[1], np_llama(read_st(ck)), "after a checkpoint change")
    # a changed module recomputes
    with open(model, "a") as f:
        f.write("\n# changed\n")
    p = rlx("transform", model, "--weights", ck, "-o", d)
    check("up to date" not in p.stdout, "a changed module was found up to date")
    # other options recompute
    p = rlx("transform", model, "--weights", ck, "-o", d, "--shard-size", 1)
    check("up to date" not in p.stdout, "a changed shard size was found up to date")
    p = rlx("transform", model, "--weights", ck, "-o", d, "--shard-size", 1, "--quiet")
    check(p.stdout == "" and p.stderr == "", "--quiet printed: %r %r" % (p.stdout, p.stderr))
    no_leftovers(tmp, "cache")


def case_shape_tuple(tmp):
    model = os.path.join(HERE, "shape_tuple.py")
    ck = os.path.join(tmp, "w.safetensors")
    p = rlx("init-weights", model, "-o", ck, expect=1)
    check("'v'" in p.stderr and "--dim" in p.stderr, "missing --dim not named: " + p.stderr)
    rlx("init-weights", model, "--dim", "v=5", "-o", ck)
    w = read_st(ck)["w.weight"]
    check(w.shape == (5, 4), "init-weights --dim ignored: %s" % (w.shape,))
    d = os.path.join(tmp, "cache")
    rlx("transform", model, "--weights", ck, "-o", d, "--quiet")
    _, got = read_cache(d)
    check(got.get("symbolic_vars") == ("shape", [5]), "shape record: %r" % (got.get("symbolic_vars"),))
    check(np.array_equal(got["doubled"], (w * 2).reshape(-1)), "doubled differs")
    rlx("verify", model, "--weights", ck)
    if True:
        x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
        xp = os.path.join(tmp, "x.npy")
        np.save(xp, x)
        rlx("run", os.path.join(d, "model.py"), "--params", d, "--input", "x=" + xp,
            "-o", os.path.join(tmp, "y.npy"))
        y = np.load(os.path.join(tmp, "y.npy"))
        check(np.allclose(y, x @ (w * 2).T, rtol=1e-5, atol=1e-5), "run on the cache differs")


def case_run_both_ways(tmp):
    for ex in ("llama.py", "llama_q8.py"):
        model = os.path.join(EX, ex)
        ck = os.path.join(tmp, ex + ".safetensors")
        d = os.path.join(tmp, ex + ".cache")
        rlx("init-weights", model, "-o", ck)
        rlx("transform", model, "--weights", ck, "-o", d, "--quiet")
        ids = os.path.join(tmp, "ids.npy")
        np.save(ids, np.array([1, 5, 7, 2, 0, 3], dtype=np.int64))
        a, b = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
        rlx("run", model, "--params", ck, "--input", "input_ids=" + ids, "-o", a)
        rlx("run", os.path.join(d, "model.py"), "--params", d, "--input", "input_ids=" + ids, "-o", b)
        ya, yb = np.load(a), np.load(b)
        check(ya.shape == (6, 128) and np.allclose(ya, yb, rtol=1e-5, atol=1e-6),
              "%s: lifted run on the cache differs from the original" % ex)


def case_tvm_convention(tmp):
    """F_transform_params(params: R.Tuple(...)), as TVM and `rlx lift` make
    it: `rlx run --func` binds the checkpoint by name into the tuple, and
    `rlx transform` of the lifted text writes the same cache as of the
    original; a weight no one reads (`return params` fields) too."""
    model = os.path.join(EX, "mlp.py")
    ck = os.path.join(tmp, "mlp.safetensors")
    rlx("init-weights", model, "-o", ck)
    lifted = os.path.join(tmp, "lifted.py")
    rlx("lift", model, "-o", lifted)
    text = open(lifted).read()
    check("def main_transform_params(params: R.Tuple(" in text,
          "rlx lift does not give the transform one tuple parameter")
    tp = os.path.join(tmp, "tp")
    rlx("run", lifted, "--func", "main_transform_params", "--params", ck, "-o", tp)
    w = read_st(ck)
    norm = w["model.layers.0.post_attention_layernorm.weight"]
    got = np.load(os.path.join(tp, "0.npy"))
    check(np.array_equal(got, norm), "run --func main_transform_params: field 0 "
          "is not the layernorm weight")
    gate_up_t = np.concatenate([w["model.layers.0.mlp.gate_proj.weight"],
                                w["model.layers.0.mlp.up_proj.weight"]], axis=0).T
    check(np.array_equal(np.load(os.path.join(tp, "1.npy")), gate_up_t),
          "run --func main_transform_params: field 1 is not gate_up_t")
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    rlx("transform", model, "--weights", ck, "-o", a, "--quiet")
    rlx("transform", lifted, "--weights", ck, "-o", b, "--quiet")
    ca, cb = read_cache(a)[1], read_cache(b)[1]
    check(sorted(ca) == sorted(cb), "transform of the lifted text stores other names")
    for k in ca:
        check(np.array_equal(ca[k], cb[k]), "transform of the lifted text: %s differs" % k)
    # a pass-through transform (`return params`): names from F's parameters
    ident = os.path.join(tmp, "ident.py")
    with open(ident, "w") as f:
        f.write('''from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), a: R.Tensor((4, 4), "float32"), b: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        y = R.matmul(x, a)
        z = R.add(y, b)
        return z

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((4, 4), "float32"), R.Tensor((4,), "float32"))):
        R.func_attr({"num_input": 0})
        return params
''')
    ab = os.path.join(tmp, "ab.safetensors")
    wa = np.arange(16, dtype=np.float32).reshape(4, 4)
    wb = np.arange(4, dtype=np.float32)
    write_st(ab, {"a": wa, "b": wb})
    c = os.path.join(tmp, "c")
    rlx("transform", ident, "--weights", ab, "-o", c, "--quiet")
    cc = read_cache(c)[1]
    check(sorted(cc) == ["a", "b"] and np.array_equal(cc["a"], wa) and
          np.array_equal(cc["b"], wb), "pass-through transform: cache %s" % sorted(cc))


def case_verify(tmp):
    for ex in ("llama.py", "llama_q8.py"):
        ck = os.path.join(tmp, ex + ".safetensors")
        rlx("init-weights", os.path.join(EX, ex), "-o", ck)
        p = rlx("verify", os.path.join(EX, ex), "--weights", ck, "--dim", "n=7")
        check("max abs diff" in p.stdout and "(7, 128)" in p.stdout, p.stdout)
    ids = os.path.join(tmp, "ids.npy")
    np.save(ids, np.array([3, 1, 4], dtype=np.int64))
    p = rlx("verify", os.path.join(EX, "llama.py"), "--weights", ck, "--input", "input_ids=" + ids)
    check("(3, 128)" in p.stdout, "--input not used: " + p.stdout)
    rlx("verify", os.path.join(EX, "llama.py"), "--weights", ck, "--input", "nope=" + ids, expect=2)
    # the checkpoint of the other model: a weight is missing
    rlx("init-weights", os.path.join(HERE, "shape_tuple.py"), "--dim", "v=2", "-o", ck)
    p = rlx("verify", os.path.join(EX, "llama.py"), "--weights", ck, expect=1)
    check("missing" in p.stderr, p.stderr)


def case_verify_shared(tmp):
    # --shared: each function against the one transform_params, both when
    # the functions share pre-processing (the intersection) and when they
    # share none (the union); a function outside --shared=LIST is refused.
    golden = os.path.join(HERE, "..", "..", "passes", "golden")
    for name, funcs in (("shared_union_three.py", ("func_a", "func_b", "func_c")),
                        ("shared_unused_param.py", ("func1", "func2"))):
        model = os.path.join(golden, name)
        ck = os.path.join(tmp, name + ".safetensors")
        rlx("init-weights", model, "--func", funcs[0], "-o", ck)
        for f in funcs:
            p = rlx("verify", model, "--weights", ck, "--func", f, "--shared")
            check("agrees" in p.stdout and "max abs diff" in p.stdout, p.stdout)
    model = os.path.join(golden, "shared_union_three.py")
    ck = os.path.join(tmp, "shared_union_three.py.safetensors")
    rlx("verify", model, "--weights", ck, "--func", "func_b", "--shared=func_a,func_b")
    p = rlx("verify", model, "--weights", ck, "--func", "func_c",
            "--shared=func_a,func_b", expect=2)
    check("func_c" in p.stderr and "--shared" in p.stderr, p.stderr)
    out = os.path.join(tmp, "cache")
    p = rlx("transform", model, "--weights", ck, "--func", "func_c",
            "--shared=func_a,func_b", "-o", out, expect=2)
    check("func_c" in p.stderr and not os.path.exists(out), p.stderr)


def case_init_weights(tmp):
    model = os.path.join(HERE, "dtypes.py")
    a, b, c = (os.path.join(tmp, n + ".safetensors") for n in "abc")
    rlx("init-weights", model, "--seed", 1, "-o", a)
    rlx("init-weights", model, "--seed", 1, "-o", b)
    rlx("init-weights", model, "--seed", 2, "-o", c)
    check(open(a, "rb").read() == open(b, "rb").read(), "same seed, different bytes")
    wa, wc = read_st(a), read_st(c)
    want = {"model.f32.weight": (np.float32, (16, 8)), "model.f16.weight": (np.float16, (8,)),
            "model.bf16.weight": (np.float32, (4, 4)), "model.f64.weight": (np.float64, (3,)),
            "model.i8.weight": (np.int8, (5,)), "model.i32.weight": (np.int32, (2, 2)),
            "model.i64.weight": (np.int64, (6,)), "model.u8.weight": (np.uint8, (7,)),
            "model.mask": (np.bool_, (9,))}
    check(set(wa) == set(want), "names: %s" % sorted(wa))
    for k, (dt, shape) in want.items():
        check(wa[k].dtype == dt and wa[k].shape == shape, "%s: %s%s" % (k, wa[k].dtype, wa[k].shape))
    f = wa["model.f32.weight"]
    check(0.005 < f.std() < 0.05 and abs(f.mean()) < 0.01, "f32 not ~N(0, 0.02): std %g" % f.std())
    check(not np.array_equal(f, wc["model.f32.weight"]), "the seed changes nothing")
    check(wa["model.i8.weight"].min() >= 0 and wa["model.i8.weight"].max() < 16, "int range")
    # a tensor's values depend only on its name and the seed
    rlx("init-weights", os.path.join(EX, "llama.py"), "--seed", 1, "-o", c)
    rlx("init-weights", os.path.join(EX, "llama_q8.py"), "--seed", 1, "-o", b)
    check(np.array_equal(read_st(c)["lm_head.weight"], read_st(b)["lm_head.weight"]),
          "values depend on other parameters")
    rlx("init-weights", model, "-o", a, "--dim", "zz=3", expect=2)
    rlx("init-weights", model, expect=2)
    rlx("init-weights", model, "--seed", "x", "-o", a, expect=2)


def case_extra_tensors(tmp):
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", os.path.join(EX, "llama.py"), "-o", ck)
    w = dict(read_st(ck))
    w["model.rotary_emb.inv_freq"] = np.ones(8, np.float32)
    write_st(ck, w)
    d = os.path.join(tmp, "cache")
    p = rlx("transform", os.path.join(EX, "llama.py"), "--weights", ck, "-o", d)
    check("warning" in p.stderr and "model.rotary_emb.inv_freq" in p.stderr,
          "extra tensor not reported: " + p.stderr)
    compare(read_cache(d)[1], np_llama(w), "with an extra tensor")


def case_cache_as_weights(tmp):
    """A tensor cache is a checkpoint too: transform a cache of raw weights."""
    model = os.path.join(HERE, "shape_tuple.py")
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", model, "--dim", "v=3", "-o", ck)
    raw = os.path.join(tmp, "raw")
    rlx("transform", os.path.join(HERE, "identity.py"), "--weights", ck, "-o", raw, "--quiet")
    d = os.path.join(tmp, "cache")
    rlx("transform", model, "--weights", raw, "-o", d, "--quiet")
    _, got = read_cache(d)
    check(np.array_equal(got["doubled"], read_st(ck)["w.weight"].reshape(-1) * 2), "from a cache")


def bad_checkpoints(tmp, good):
    w = read_st(good)
    out = {}
    missing = dict(w)
    del missing["model.layers.1.mlp.up_proj.weight"]
    out["missing"] = (missing, "model.layers.1.mlp.up_proj.weight")
    shape = dict(w)
    shape["lm_head.weight"] = np.zeros((64, 128), np.float32)
    out["shape"] = (shape, "lm_head.weight")
    dt = dict(w)
    dt["model.norm.weight"] = np.zeros(64, np.float16)
    out["dtype"] = (dt, "model.norm.weight")
    return out


def case_bad_checkpoints(tmp):
    good = os.path.join(tmp, "good.safetensors")
    rlx("init-weights", os.path.join(EX, "llama.py"), "-o", good)
    cases = bad_checkpoints(tmp, good)
    for name, (w, needle) in cases.items():
        ck = os.path.join(tmp, name + ".safetensors")
        write_st(ck, w)
        d = os.path.join(tmp, "out_" + name)
        p = rlx("transform", os.path.join(EX, "llama.py"), "--weights", ck, "-o", d, expect=1)
        check(needle in p.stderr and ck in p.stderr, "%s: unclear error: %s" % (name, p.stderr))
        check(not os.path.exists(d), "%s: %s was written" % (name, d))
        no_leftovers(tmp, "out_" + name)
    raw = open(good, "rb").read()
    files = {"truncated": raw[:len(raw) // 2], "empty": b"", "garbage": b"not a checkpoint at all",
             "huge_header": struct.pack("<Q", 1 << 60) + b"{}"}
    for name, data in files.items():
        ck = os.path.join(tmp, name + ".safetensors")
        with open(ck, "wb") as f:
            f.write(data)
        d = os.path.join(tmp, "out_" + name)
        p = rlx("transform", os.path.join(EX, "llama.py"), "--weights", ck, "-o", d, expect=1)
        check(ck in p.stderr and "error" in p.stderr, "%s: unclear error: %s" % (name, p.stderr))
        check(not os.path.exists(d), "%s: %s was written" % (name, d))
        no_leftovers(tmp, "out_" + name)
    # a failed run leaves an existing cache untouched
    d = os.path.join(tmp, "kept")
    rlx("transform", os.path.join(EX, "llama.py"), "--weights", good, "-o", d, "--quiet")
    before = read_cache(d)[1]
    rlx("transform", os.path.join(EX, "llama.py"), "--weights",
        os.path.join(tmp, "shape.safetensors"), "-o", d, expect=1)
    after = read_cache(d)[1]
    check(before.keys() == after.keys() and all(np.array_equal(before[k], after[k]) for k in before),
          "a failed run changed the existing cache")
    no_leftovers(tmp, "kept")
    # DIR that is somebody else's data is refused
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    open(os.path.join(other, "notes.txt"), "w").write("mine")
    p = rlx("transform", os.path.join(EX, "llama.py"), "--weights", good, "-o", other, expect=1)
    check(os.listdir(other) == ["notes.txt"], "a foreign directory was changed")


def case_bad_caches(tmp):
    """Malformed caches given as weights: clear error, exit 1, nothing written."""
    model = os.path.join(HERE, "identity.py")
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", os.path.join(HERE, "shape_tuple.py"), "--dim", "v=3", "-o", ck)
    good = os.path.join(tmp, "good")
    rlx("transform", model, "--weights", ck, "-o", good, "--quiet")

    def mutate(name, fn, needle):
        bad = os.path.join(tmp, "bad_" + name)
        shutil.copytree(good, bad)
        jp = os.path.join(bad, "tensor-cache.json")
        top = json.load(open(jp))
        fn(bad, top)
        if top is not None:
            json.dump(top, open(jp, "w"))
        d = os.path.join(tmp, "out_" + name)
        p = rlx("transform", model, "--weights", bad, "-o", d, expect=1)
        check(needle in p.stderr.lower(), "%s: unclear error: %s" % (name, p.stderr))
        check(not os.path.exists(d), "%s: output written" % name)
        no_leftovers(tmp, "out_" + name)

    def shard(top):
        return top["records"][0]

    def set_(fn):
        return lambda bad, top: fn(top)
    mutate("traversal", set_(lambda t: shard(t).__setitem__("dataPath", "../w.safetensors")), "datapath")
    mutate("nbytes", set_(lambda t: shard(t).__setitem__("nbytes", shard(t)["nbytes"] + 1)), "nbytes")
    mutate("out_of_shard", set_(lambda t: shard(t)["records"][0].__setitem__(
        "byteOffset", shard(t)["nbytes"])), "shard")
    mutate("duplicate", set_(lambda t: shard(t)["records"].append(dict(shard(t)["records"][0]))),
           "duplicate")
    mutate("format", set_(lambda t: shard(t)["records"][0].__setitem__("format", "f32-to-bf16")),
           "format")

    def flip(bad, top):
        p = os.path.join(bad, shard(top)["dataPath"])
        b = bytearray(open(p, "rb").read())
        b[0] ^= 0xFF
        open(p, "wb").write(bytes(b))
    mutate("hash", flip, "hash")


# Outputs of half the shard cap or more get shards of their own, written by
# the two writer threads side by side; the small ones share shards.
BIG_MODEL = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 512), dtype="float32"), x2: R.Tensor((4, 64), dtype="float32"),
             w1: R.Tensor((512, 1024), dtype="float32"), w2: R.Tensor((64, 64), dtype="float32"),
             w3: R.Tensor((512, 512), dtype="float32"), b: R.Tensor((1024,), dtype="float32")
             ) -> R.Tuple(R.Tensor((4, 1024), dtype="float16"), R.Tensor((4, 64), dtype="float16")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            h = R.astype(R.matmul(x, R.permute_dims(w3)), dtype="float16")
            y = R.add(R.matmul(h, R.astype(w1, dtype="float16")), R.astype(b, dtype="float16"))
            c = R.matmul(R.astype(x2, dtype="float16"), R.astype(w2, dtype="float16"))
            gv = (y, c)
            R.output(gv)
        return gv
'''


def np_big(w):
    return [w["w3"].T, w["w1"].astype(np.float16), w["b"].astype(np.float16),
            w["w2"].astype(np.float16)]


def case_large_outputs(tmp):
    model = os.path.join(tmp, "big.py")
    with open(model, "w") as f:
        f.write(BIG_MODEL)
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", model, "--seed", 5, "-o", ck)
    d = os.path.join(tmp, "cache")
    rlx("transform", model, "--weights", ck, "-o", d, "--shard-size", 1, "--quiet")
    with open(os.path.join(d, "tensor-cache.json")) as f:
        shards = json.load(f)["records"]
    check(sum(len(sh["records"]) == 1 and sh["nbytes"] >= 512 << 10 for sh in shards) >= 2,
          "expected shards of their own: %s" % [sh["nbytes"] for sh in shards])
    _, got = read_cache(d)
    want = np_big(read_st(ck))
    check(len(got) == len(want), "records: %s" % sorted(got))
    # the lifted outputs are named after main's weights; match by shape/dtype
    for a in got.values():
        check(any(a.shape == v.shape and a.dtype == v.dtype and np.array_equal(a, v)
                  for v in want), "unexpected record %s %s" % (a.shape, a.dtype))
    rlx("verify", model, "--weights", ck)
    # the same cache again, byte for byte: the layout does not depend on
    # which writer thread finished first
    d2 = os.path.join(tmp, "cache2")
    rlx("transform", model, "--weights", ck, "-o", d2, "--shard-size", 1, "--quiet")
    for sh in shards:
        with open(os.path.join(d, sh["dataPath"]), "rb") as f1, \
             open(os.path.join(d2, sh["dataPath"]), "rb") as f2:
            check(f1.read() == f2.read(), "shard %s differs between runs" % sh["dataPath"])


def case_write_fails(tmp):
    """A write that fails in a writer thread (the file size limit, with
    SIGXFSZ ignored so that write() returns EFBIG): exit 1, the file named,
    nothing left behind."""
    import resource
    import signal
    model = os.path.join(tmp, "big.py")
    with open(model, "w") as f:
        f.write(BIG_MODEL)
    ck = os.path.join(tmp, "w.safetensors")
    rlx("init-weights", model, "-o", ck)
    d = os.path.join(tmp, "cache")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (600 << 10, 600 << 10))
    p = subprocess.run([RLX, "transform", model, "--weights", ck, "-o", d,
                        "--shard-size", "1", "--quiet"], capture_output=True, text=True,
                       preexec_fn=limit)
    check(p.returncode == 1, "exit %d: %s" % (p.returncode, p.stderr))
    check("params_shard_" in p.stderr and "write failed" in p.stderr, p.stderr)
    check(not os.path.exists(d), "cache written")
    no_leftovers(tmp, "cache")


CASES = [case_large_outputs, case_write_fails, case_init_weights, case_transform_llama, case_transform_q8, case_small_shards,
         case_rerun_noop, case_shape_tuple, case_verify, case_verify_shared,
         case_extra_tensors,
         case_cache_as_weights, case_bad_checkpoints, case_bad_caches, case_run_both_ways,
         case_tvm_convention]


def main():
    only = sys.argv[1:]
    failed = 0
    for case in CASES:
        name = case.__name__[5:]
        if only and name not in only:
            continue
        tmp = tempfile.mkdtemp(prefix="rlx-xform-")
        try:
            r = case(tmp)
            if r == "skip":
                print("skip %s" % name)
            else:
                print("ok %s%s" % (name, " (%s)" % r if r else ""))
        except Fail as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
