#!/usr/bin/python3
"""run_models.py — whole models through `rlx run`, NumPy as the oracle:

- the Llama-style MLP block of examples/mlp.py (rms_norm, concat, matmul,
  split, silu), from a safetensors file and from a sharded checkpoint;
  then lifted (`rlx lift`), its transform run on the checkpoint, and the
  lifted main run on the transformed weights: the same result;
- an int8 group quantize/dequantize pair (reshape to groups, max(abs),
  scale, round, clip, astype int8, and back), as two private functions
  called from main;
- an embedding (take) + matmul + softmax head with argmax, float32 and
  float16;
- int8 group-quantized linear layers, x @ (q * s).T as examples/llama_q8.py
  runs them (the dequantize fused into the matmul, which reads the int8
  weights and their scales directly): groups of 32, 16 and 8 and one scale
  per row, 1 to 40 rows (the GEMV and the GEMM path), batched x.
"""
import json
import os
import shutil
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402

SRC = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
rng = np.random.default_rng(7)

QUANT = '''\
@I.ir_module
class Module:
    @R.function(private=True)
    def quantize(w: R.Tensor((64, 128), dtype="float32")) -> R.Tuple(R.Tensor((64, 4, 32), dtype="int8"), R.Tensor((64, 4, 1), dtype="float32")):
        g = R.reshape(w, R.shape([64, 4, 32]))
        a = R.abs(g)
        m = R.max(a, axis=[-1], keepdims=True)
        s0 = R.divide(m, R.const(127.0, "float32"))
        s = R.maximum(s0, R.const(1e-8, "float32"))
        q0 = R.divide(g, s)
        q1 = R.round(q0)
        q2 = R.clip(q1, -127, 127)
        q = R.astype(q2, dtype="int8")
        return (q, s)

    @R.function(private=True)
    def dequantize(q: R.Tensor((64, 4, 32), dtype="int8"), s: R.Tensor((64, 4, 1), dtype="float32")) -> R.Tensor((64, 128), dtype="float32"):
        d0 = R.astype(q, dtype="float32")
        d1 = R.multiply(d0, s)
        d = R.reshape(d1, R.shape([64, 128]))
        return d

    @R.function
    def main(w: R.Tensor((64, 128), dtype="float32")):
        qs = cls.quantize(w)
        q = qs[0]
        s = qs[1]
        d = cls.dequantize(q, s)
        return (q, s, d)
'''

HEAD = '''\
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor(("n",), dtype="int64"), `model.embed_tokens.weight`: R.Tensor((100, 32), dtype="DT"), `lm_head.weight`: R.Tensor((100, 32), dtype="DT")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            h = R.take(`model.embed_tokens.weight`, ids, axis=0)
            wt = R.permute_dims(`lm_head.weight`, axes=[1, 0])
            logits = R.matmul(h, wt, out_dtype="void")
            p = R.nn.softmax(logits, axis=-1)
            t = R.argmax(logits, axis=-1)
            gv = (p, t)
            R.output(gv)
        return gv
'''


def close(got, want, rtol, atol):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    ok = np.isclose(got, want, rtol=rtol, atol=atol)
    if ok.all():
        return ""
    i = tuple(np.argwhere(~ok)[0])
    return "at %s: %r, expected %r; max diff %g" % (i, got[i], want[i],
                                                   np.abs(got - want).max())


def mlp_ref(x, w):
    pre = "model.layers.0."
    x = x.astype(np.float64)
    h = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w[pre + "post_attention_layernorm.weight"]
    gu = h @ np.concatenate([w[pre + "mlp.gate_proj.weight"], w[pre + "mlp.up_proj.weight"]]).T
    gate, up = gu[:, :128], gu[:, 128:]
    act = gate / (1 + np.exp(-gate)) * up
    return x + act @ w[pre + "mlp.down_proj.weight"].T


def test_mlp(t, tmp):
    model = os.path.join(SRC, "examples", "mlp.py")
    pre = "model.layers.0."
    w = {pre + "post_attention_layernorm.weight": rng.standard_normal(64).astype(np.float32),
         pre + "mlp.gate_proj.weight": (rng.standard_normal((128, 64)) * 0.1).astype(np.float32),
         pre + "mlp.up_proj.weight": (rng.standard_normal((128, 64)) * 0.1).astype(np.float32),
         pre + "mlp.down_proj.weight": (rng.standard_normal((64, 128)) * 0.1).astype(np.float32)}
    st = os.path.join(tmp, "mlp.safetensors")
    write_safetensors(st, w)
    x = rng.standard_normal((7, 64)).astype(np.float32)
    xp = os.path.join(tmp, "x.npy")
    np.save(xp, x)
    want = mlp_ref(x, w)
    out = os.path.join(tmp, "y.npy")
    rc, _, se = rlx("run", model, "--params", st, "--input", "x=" + xp, "-o", out)
    if t.ok(rc == 0, "mlp: rlx run", se):
        t.ok(not close(np.load(out), want, 1e-4, 1e-4), "mlp: matches NumPy",
             close(np.load(out), want, 1e-4, 1e-4))

    # a sharded checkpoint: two shards and an index
    names = list(w)
    write_safetensors(os.path.join(tmp, "model-00001-of-00002.safetensors"),
                      {k: w[k] for k in names[:2]})
    write_safetensors(os.path.join(tmp, "model-00002-of-00002.safetensors"),
                      {k: w[k] for k in names[2:]})
    index = os.path.join(tmp, "model.safetensors.index.json")
    with open(index, "w") as f:
        json.dump({"metadata": {}, "weight_map": {
            k: "model-0000%d-of-00002.safetensors" % (1 if i < 2 else 2)
            for i, k in enumerate(names)}}, f)
    out2 = os.path.join(tmp, "y2.npy")
    rc, _, se = rlx("run", model, "--params", index, "--input", "x=" + xp, "-o", out2)
    if t.ok(rc == 0, "mlp: sharded checkpoint", se):
        t.ok(np.array_equal(np.load(out2), np.load(out)), "mlp: sharded gives the same result")

    # --params DIR of a Hugging Face checkpoint folder: its index, else its
    # only .safetensors file; two files and no index: which one is asked
    hf = os.path.join(tmp, "hf-sharded")
    os.mkdir(hf)
    for f in ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
              "model.safetensors.index.json"):
        shutil.copy(os.path.join(tmp, f), hf)
    hf1 = os.path.join(tmp, "hf-single")
    os.mkdir(hf1)
    shutil.copy(st, os.path.join(hf1, "model.safetensors"))
    for name, d in (("sharded", hf), ("single file", hf1)):
        o = os.path.join(tmp, "y-hf.npy")
        rc, _, se = rlx("run", model, "--params", d, "--input", "x=" + xp, "-o", o)
        if t.ok(rc == 0, "mlp: --params DIR, a %s checkpoint folder" % name, se):
            t.ok(np.array_equal(np.load(o), np.load(out)),
                 "mlp: the %s folder gives the same result" % name)
    shutil.copy(st, os.path.join(hf1, "other.safetensors"))
    rc, _, se = rlx("run", model, "--params", hf1, "--input", "x=" + xp)
    t.ok(rc == 1 and "model.safetensors, other.safetensors" in se and "name the one" in se,
         "mlp: a folder of two .safetensors files and no index: exit 1 naming both", se)

    # lifted: transform on the checkpoint, then the lifted main
    lifted = os.path.join(tmp, "lifted.py")
    rc, so, se = rlx("lift", model, "-o", lifted)
    if not t.ok(rc == 0, "mlp: rlx lift", se):
        return
    tp = os.path.join(tmp, "tp")
    rc, _, se = rlx("run", lifted, "--func", "main_transform_params", "--params", st, "-o", tp)
    if not t.ok(rc == 0, "mlp: transform params run", se):
        return
    text = open(lifted).read()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("def main("))
    # the lifted main's weights after x, in order: the transform's fields
    params = [a or b for a, b in re.findall(r"(?:`([^`]+)`|(\w+)): R\.", line)][1:]
    fields = [np.load(os.path.join(tp, "%d.npy" % i)) for i in range(len(params))]
    with open(os.path.join(tp, "fields.json")) as f:
        man = json.load(f)["fields"]
    t.ok([(m["index"], m["path"], m["name"]) for m in man] ==
         [(i, "%d.npy" % i, p) for i, p in enumerate(params)],
         "mlp: -o DIR's fields.json maps each field to its file and its name", man)
    t.ok(np.array_equal(fields[1], np.concatenate([w[pre + "mlp.gate_proj.weight"],
                                                  w[pre + "mlp.up_proj.weight"]]).T),
         "mlp: transformed gate_up_t is the concatenated transpose")
    st2 = os.path.join(tmp, "lifted.safetensors")
    write_safetensors(st2, dict(zip(params, fields)))
    out3 = os.path.join(tmp, "y3.npy")
    rc, _, se = rlx("run", lifted, "--params", st2, "--input", "x=" + xp, "-o", out3)
    if t.ok(rc == 0, "mlp: lifted main on transformed weights", se):
        why = close(np.load(out3), np.load(out), 1e-5, 1e-5)
        t.ok(not why, "mlp: lifted result equals the original", why)

    # printed to standard output without -o
    rc, so, se = rlx("run", model, "--params", st, "--input", "x=" + xp)
    t.ok(rc == 0 and so.startswith("main: float32 (7, 64)\n[["), "mlp: printed without -o",
         so[:200] + se)


def test_quant(t, tmp):
    w = (rng.standard_normal((64, 128)) * 0.5).astype(np.float32)
    w[3, 32:64] = 0  # an all-zero group: the scale floor
    model = os.path.join(tmp, "quant.py")
    with open(model, "w") as f:
        f.write(QUANT)
    wp = os.path.join(tmp, "w.npy")
    np.save(wp, w)
    out = os.path.join(tmp, "quant")
    rc, _, se = rlx("run", model, "--input", "w=" + wp, "-o", out)
    if not t.ok(rc == 0, "quant: rlx run", se):
        return
    g = w.reshape(64, 4, 32)
    s = np.maximum(np.abs(g).max(-1, keepdims=True) / np.float32(127), np.float32(1e-8))
    q = np.clip(np.round(g / s), -127, 127).astype(np.int8)
    d = (q.astype(np.float32) * s).reshape(64, 128)
    gq = np.load(os.path.join(out, "0.npy"))
    gs = np.load(os.path.join(out, "1.npy"))
    gd = np.load(os.path.join(out, "2.npy"))
    t.ok(gq.dtype == np.int8 and gq.shape == (64, 4, 32), "quant: q is int8 (64, 4, 32)",
         "%s %s" % (gq.dtype, gq.shape))
    t.ok(np.array_equal(gq, q), "quant: q equals NumPy exactly",
         "%d of %d differ" % (int((gq != q).sum()), q.size))
    t.ok(np.array_equal(gs, s), "quant: scales equal NumPy exactly")
    t.ok(not close(gd, d, 1e-6, 1e-7), "quant: dequantized equals NumPy", close(gd, d, 1e-6, 1e-7))
    t.ok(np.abs(gd - w).max() <= s.max() / 2 + 1e-6, "quant: round trip error within half a step")


QLINEAR = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(XSHAPE, dtype="float32"), q: R.Tensor(QSHAPE, dtype="int8"), s: R.Tensor(SSHAPE, dtype="float32")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            d0 = R.astype(q, dtype="float32")
            d1 = R.multiply(d0, s)
            w = RESHAPE
            wt = R.permute_dims(w, axes=[1, 0])
            y = R.matmul(x, wt, out_dtype="void")
            R.output(y)
        return y
'''


def test_qlinear(t, tmp):
    # (K, N, group or None: one scale per row, batch of x or None)
    cases = [(128, 96, 32, None), (96, 50, 16, None), (72, 33, 8, None),
             (64, 40, None, None), (128, 70, 32, 2)]
    for K, N, gs, bt in cases:
        name = "qlinear K %d N %d group %s%s" % (K, N, gs or "row",
                                                 " batch %d" % bt if bt else "")
        g = gs or K
        qs = "(%d, %d, %d)" % (N, K // g, g) if gs else "(%d, %d)" % (N, K)
        ss = "(%d, %d, 1)" % (N, K // g) if gs else "(%d, 1)" % N
        xs = '(%d, "n", %d)' % (bt, K) if bt else '("n", %d)' % K
        rs = ("R.reshape(d1, R.shape([%d, %d]))" % (N, K)) if gs else "d1"
        model = os.path.join(tmp, "qlinear.py")
        with open(model, "w") as f:
            f.write(QLINEAR.replace("XSHAPE", xs).replace("QSHAPE", qs)
                    .replace("SSHAPE", ss).replace("RESHAPE", rs))
        q = rng.integers(-128, 128, size=(N, K), dtype=np.int8)
        s = (rng.standard_normal((N, K // g)) * 0.02).astype(np.float32)
        st = os.path.join(tmp, "qlinear.safetensors")
        write_safetensors(st, {"q": q.reshape(eval(qs)), "s": s.reshape(eval(ss))})
        w = q.astype(np.float64) * np.repeat(s.astype(np.float64), g, axis=1)
        for n in (1, 3, 8, 9, 40):
            x = rng.standard_normal(((bt, n, K) if bt else (n, K))).astype(np.float32)
            xp = os.path.join(tmp, "x.npy")
            np.save(xp, x)
            out = os.path.join(tmp, "y.npy")
            rc, _, se = rlx("run", model, "--params", st, "--input", "x=" + xp, "-o", out)
            if not t.ok(rc == 0, "%s n %d: rlx run" % (name, n), se):
                continue
            why = close(np.load(out), x.astype(np.float64) @ w.T, 1e-5, 1e-5)
            t.ok(not why, "%s n %d: equals NumPy" % (name, n), why)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_head(t, tmp, dt):
    emb = (rng.standard_normal((100, 32)) * 0.5).astype(dt)
    lm = (rng.standard_normal((100, 32)) * 0.5).astype(dt)
    ids = np.array([0, 99, 5, 5, 42, 7, 63], dtype=np.int64)
    model = os.path.join(tmp, "head_%s.py" % dt)
    with open(model, "w") as f:
        f.write(HEAD.replace("DT", dt))
    st = os.path.join(tmp, "head_%s.safetensors" % dt)
    write_safetensors(st, {"model.embed_tokens.weight": emb, "lm_head.weight": lm})
    ip = os.path.join(tmp, "ids.npy")
    np.save(ip, ids)
    out = os.path.join(tmp, "head_" + dt)
    rc, _, se = rlx("run", model, "--params", st, "--input", "ids=" + ip, "-o", out)
    if not t.ok(rc == 0, "head %s: rlx run" % dt, se):
        return
    logits = emb.astype(np.float64)[ids] @ lm.astype(np.float64).T
    p = np.load(os.path.join(out, "0.npy"))
    tk = np.load(os.path.join(out, "1.npy"))
    tol = 1e-5 if dt == "float32" else 3e-3
    t.ok(p.dtype == np.dtype(dt), "head %s: probabilities dtype" % dt, str(p.dtype))
    why = close(p, softmax(logits), tol, tol * 0.1)
    t.ok(not why, "head %s: softmax equals NumPy" % dt, why)
    t.ok(np.allclose(p.astype(np.float64).sum(-1), 1, atol=tol * 10), "head %s: rows sum to 1" % dt)
    # argmax over rounded logits may differ only on near-ties
    agree = tk == logits.argmax(-1)
    near = np.sort(logits, -1)[:, -1] - np.sort(logits, -1)[:, -2] < 0.05
    t.ok(tk.dtype == np.int64 and (agree | near).all(), "head %s: argmax equals NumPy" % dt,
         "%s vs %s" % (tk, logits.argmax(-1)))


NESTED = """from tvm.script import ir as I, relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "int32")):
        y = R.add(x, x)
        return ((x, (y, x)), y, x)
"""


def test_nested_result(t, tmp):
    """A result that names a parameter and a binding several times, some
    inside nested tuples (evaluated at the end of a streaming run): each
    stays alive until its last field is written (TVM's test_vm_build
    TestVMSetInput returns ((x, (x,)), x))."""
    model = os.path.join(tmp, "nested.py")
    with open(model, "w") as f:
        f.write(NESTED)
    x = np.array([1, 5], np.int32)
    xp = os.path.join(tmp, "xn.npy")
    np.save(xp, x)
    out = os.path.join(tmp, "nested_out")
    rc, _, se = rlx("run", model, "--input", "x=" + xp, "-o", out + "/")
    if not t.ok(rc == 0, "a nested result naming a parameter thrice: rlx run", se):
        return
    got = [np.load(os.path.join(out, *f)) for f in
           (("0", "0.npy"), ("0", "1", "0.npy"), ("0", "1", "1.npy"), ("1.npy",), ("2.npy",))]
    want = [x, 2 * x, x, 2 * x, x]
    t.ok(all(np.array_equal(g, w) for g, w in zip(got, want)),
         "a nested result naming a parameter thrice: every field", (got, want))


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx_models_") as tmp:
        test_mlp(t, tmp)
        test_nested_result(t, tmp)
        test_quant(t, tmp)
        test_qlinear(t, tmp)
        test_head(t, tmp, "float32")
        test_head(t, tmp, "float16")
    t.done()


if __name__ == "__main__":
    main()
