#!/usr/bin/python3
"""run_legalized.py — examples/llama_legalized.py (every op a prim_func as
TVM's LegalizeOps writes it) against examples/llama.py, and both against
NumPy, through `rlx run` on the same random checkpoint and inputs.

- the checked-in llama_legalized.py is examples/gen_llama_legalized.py's
  output (the generator and the model do not drift apart);
- its plan folds each weight's transpose into the matmul prim_func that
  reads it (rlx run --print-plan), lm_head's (read by a cast) excepted;
- on a checkpoint of random weights (NumPy, larger than init-weights' so
  that the logits are not all near 0) and token ids of n = 1, 7 and 40:
  the legalized model's logits agree with llama.py's, and both with a
  NumPy forward of the same decoder;
- `rlx transform` of the legalized model lifts its weight pre-processing
  (concatenations, transposes, lm_head's cast: call_tir on weights only)
  into main_transform_params; the lifted model in the cache still calls
  prim_funcs, and runs to the same logits; `rlx verify` agrees;
- the legalized model at another size (gen_llama_legalized.py --hidden 96
  --heads 3 --ffn 160 --vocab 200, 1 layer) against llama.py scaled alike.

The logits go through float16 (lm_head's matmul, its operands and result),
so every comparison allows 2e-3 of the largest logit (about two float16
steps there); on this test's data the two models have agreed exactly and
NumPy has been within 1e-4 of the largest logit.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402
from run_tp import EXAMPLES  # noqa: E402

GEN = os.path.join(EXAMPLES, "gen_llama_legalized.py")
rng = np.random.default_rng(7)


def ex(name):
    return os.path.join(EXAMPLES, name)


def weights(layers, hid, ffn, vocab):
    """{name: array} for llama.py's parameters: matrices ~ U(-1, 1)/sqrt(in),
    norms around 1, embeddings ~ U(-1, 1)."""
    def mat(o, i):
        return (rng.uniform(-1, 1, (o, i)) / np.sqrt(i)).astype(np.float32)

    def norm(d):
        return rng.uniform(0.5, 1.5, d).astype(np.float32)
    w = {"model.embed_tokens.weight": rng.uniform(-1, 1, (vocab, hid)).astype(np.float32)}
    for i in range(layers):
        P = "model.layers.%d." % i
        w[P + "input_layernorm.weight"] = norm(hid)
        for c in "qkvo":
            w[P + "self_attn.%s_proj.weight" % c] = mat(hid, hid)
        w[P + "post_attention_layernorm.weight"] = norm(hid)
        w[P + "mlp.gate_proj.weight"] = mat(ffn, hid)
        w[P + "mlp.up_proj.weight"] = mat(ffn, hid)
        w[P + "mlp.down_proj.weight"] = mat(hid, ffn)
    w["model.norm.weight"] = norm(hid)
    w["lm_head.weight"] = mat(vocab, hid) * 4
    return w


def forward(w, ids, layers, heads):
    """llama.py's decoder in NumPy (float32, lm_head in float16 operands)."""
    f32 = np.float32

    def rms(x, g):
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + f32(1e-5)) * g).astype(f32)
    x = w["model.embed_tokens.weight"][ids]
    n, hid = x.shape
    hd = hid // heads
    for i in range(layers):
        W = lambda s: w["model.layers.%d.%s.weight" % (i, s)]  # noqa: E731
        h = rms(x, W("input_layernorm"))
        q, k, v = (h @ W("self_attn.%s_proj" % c).T for c in "qkv")
        q = q.reshape(n, heads, hd).transpose(1, 0, 2)
        k = k.reshape(n, heads, hd).transpose(1, 2, 0)
        v = v.reshape(n, heads, hd).transpose(1, 0, 2)
        s = (q @ k) * f32(1 / np.sqrt(hd))
        s = np.exp(s - s.max(-1, keepdims=True))
        p = s / s.sum(-1, keepdims=True)
        o = (p @ v).transpose(1, 0, 2).reshape(n, hid)
        x = x + o @ W("self_attn.o_proj").T
        h2 = rms(x, W("post_attention_layernorm"))
        g, u = h2 @ W("mlp.gate_proj").T, h2 @ W("mlp.up_proj").T
        x = x + (g / (1 + np.exp(-g)) * u) @ W("mlp.down_proj").T
    hn = rms(x, w["model.norm.weight"]).astype(np.float16).astype(f32)
    lm = w["lm_head.weight"].T.astype(np.float16).astype(f32)
    return (hn @ lm).astype(np.float16).astype(f32)


def agree(a, b, rel):
    """max |a - b| <= rel * max |b|; (ok, text)."""
    if a.shape != b.shape:
        return False, "shape %s, expected %s" % (a.shape, b.shape)
    d, m = float(np.abs(a - b).max(initial=0)), float(np.abs(b).max(initial=0))
    return d <= rel * m, "max abs diff %g, max |logit| %g" % (d, m)


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx-legal-") as tmp:
        run(t, lambda n: os.path.join(tmp, n))
    t.done()


def run(t, p):

    gen = subprocess.run(["/usr/bin/python3", GEN], capture_output=True, text=True)
    with open(ex("llama_legalized.py")) as f:
        t.ok(gen.returncode == 0 and gen.stdout == f.read(),
             "llama_legalized.py is gen_llama_legalized.py's output", gen.stderr)

    # as written, each weight's transpose is folded into the matmul that
    # reads it (no copy); lm_head's feeds a cast and is computed
    st, out, err = rlx("run", ex("llama_legalized.py"), "--print-plan")
    folds = re.findall(r"^ +(\S+) = R\.call_tir\(cls\.transpose\d*, .*# fused into (\S+)$", out,
                       re.M)
    t.ok(st == 0 and len(folds) == 8 and
         all(re.search(r"^ +%s = .*computing %s$" % (u, v), out, re.M) for v, u in folds) and
         re.search(r"^ +lm_head_t = .*# kernel \S+ \(prim_func transpose7\)$", out, re.M),
         "--print-plan: the 8 weight transposes fold into their matmuls", out + err)

    w = weights(2, 64, 128, 128)
    write_safetensors(p("ck.safetensors"), w)
    outs = {}
    for n in (1, 7, 40):
        ids = rng.integers(0, 128, n).astype(np.int64)
        np.save(p("ids%d.npy" % n), ids)
        ref = forward(w, ids, 2, 4)
        for name in ("llama", "llama_legalized"):
            st, _, err = rlx("run", ex(name + ".py"), "--params", p("ck.safetensors"),
                             "--input", "input_ids=" + p("ids%d.npy" % n),
                             "-o", p("%s%d.npy" % (name, n)))
            if t.ok(st == 0, "%s.py runs, n = %d" % (name, n), err):
                outs[name, n] = np.load(p("%s%d.npy" % (name, n)))
                ok, why = agree(outs[name, n], ref, 2e-3)
                t.ok(ok, "%s.py equals NumPy, n = %d" % (name, n), why)
        if ("llama", n) in outs and ("llama_legalized", n) in outs:
            ok, why = agree(outs["llama_legalized", n], outs["llama", n], 2e-3)
            t.ok(ok, "legalized equals llama.py, n = %d" % n, why)

    # transform: the weight pre-processing lifted, the forward still TIR
    st, _, err = rlx("transform", ex("llama_legalized.py"), "--weights",
                     p("ck.safetensors"), "--quiet", "-o", p("cache"))
    if t.ok(st == 0, "transform llama_legalized.py", err):
        with open(p("cache/model.py")) as f:
            lifted = f.read()
        fwd = lifted[lifted.index("def main("):lifted.index("def main_transform_params")]
        t.ok("R.call_tir(cls.matmul" in fwd and "R.call_tir(cls.concatenate" not in fwd
             and "l0_qkv_wt: R.Tensor((64, 192)" in fwd,
             "the lifted main takes the transposed weights and calls prim_funcs", fwd[:300])
        for n in (1, 40):
            st, _, err = rlx("run", p("cache"), "--input",
                             "input_ids=" + p("ids%d.npy" % n), "-o", p("c%d.npy" % n))
            if t.ok(st == 0, "run the legalized cache, n = %d" % n, err) and \
                    ("llama", n) in outs:
                ok, why = agree(np.load(p("c%d.npy" % n)), outs["llama", n], 2e-3)
                t.ok(ok, "the legalized cache equals llama.py, n = %d" % n, why)
    st, out, err = rlx("verify", ex("llama_legalized.py"), "--weights", p("ck.safetensors"))
    t.ok(st == 0, "verify llama_legalized.py (lifted against original)", out + err)

    # another size: odd heads, hidden not a power of two, 1 layer
    hid, heads, ffn, vocab = 96, 3, 160, 200
    size = ["--layers", "1", "--hidden", str(hid), "--heads", str(heads), "--ffn", str(ffn),
            "--vocab", str(vocab)]
    for path, how in ((p("legal_s.py"), []), (p("llama_s.py"), ["--relax"])):
        gen = subprocess.run(["/usr/bin/python3", GEN] + how + size, capture_output=True,
                             text=True, check=True)
        with open(path, "w") as f:
            f.write(gen.stdout)
    w = weights(1, hid, ffn, vocab)
    write_safetensors(p("ck_s.safetensors"), w)
    ids = rng.integers(0, vocab, 13).astype(np.int64)
    np.save(p("ids_s.npy"), ids)
    ref = forward(w, ids, 1, heads)
    got = {}
    for name in ("llama_s", "legal_s"):
        st, _, err = rlx("run", p(name + ".py"), "--params", p("ck_s.safetensors"),
                         "--input", "input_ids=" + p("ids_s.npy"), "-o", p(name + ".npy"))
        if t.ok(st == 0, "%s (hidden %d, %d heads, 1 layer) runs" % (name, hid, heads), err):
            got[name] = np.load(p(name + ".npy"))
            ok, why = agree(got[name], ref, 2e-3)
            t.ok(ok, "%s equals NumPy" % name, why)
    if len(got) == 2:
        ok, why = agree(got["legal_s"], got["llama_s"], 2e-3)
        t.ok(ok, "legalized equals llama.py at hidden %d" % hid, why)


if __name__ == "__main__":
    main()
