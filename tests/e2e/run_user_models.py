#!/usr/bin/python3
"""run_user_models.py — the three models of issue 11 as a user writes them
(examples/gpt2_block.py, swiglu_mlp.py, conv_bn.py), run by `rlx run` on
random weights from a safetensors file and checked against NumPy:

- a GPT-2 block (layer norms, fused QKV R.linear, a causal mask made with
  R.tril, softmax attention, GELU MLP, residuals with `+`) at two sequence
  lengths of its symbolic n; its attention also through R.nn.attention with
  causal_mask="TopLeft", which must give the hand-written attention;
- a SwiGLU MLP (R.linear, silu(gate) * up);
- a conv block with inference batch norm, relu, max and adaptive pooling,
  and the same block with the batch norm folded into the conv weight and
  bias; the folded one also lifted (`rlx lift`), its transform run on the
  checkpoint and the lifted function run on the transformed weights.
"""
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402

SRC = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
rng = np.random.default_rng(11)


def close(got, want, rtol, atol):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    ok = np.isclose(got, want, rtol=rtol, atol=atol)
    if ok.all():
        return ""
    i = tuple(np.argwhere(~ok)[0])
    return "at %s: %r, expected %r; max diff %g" % (i, got[i], want[i], np.abs(got - want).max())


def run(t, name, model, weights, inputs, tmp, func=None):
    """rlx run of model with weights (a dict) and inputs; the outputs."""
    st = os.path.join(tmp, name + ".safetensors")
    write_safetensors(st, weights)
    args = ["run", model, "--params", st]
    if func:
        args += ["--func", func]
    for k, v in inputs.items():
        p = os.path.join(tmp, "%s_%s.npy" % (name, k))
        np.save(p, v)
        args += ["--input", "%s=%s" % (k, p)]
    out = os.path.join(tmp, name + "_out")
    rc, _, se = rlx(*(args + ["-o", out]))
    if not t.ok(rc == 0, "%s: rlx run" % name, se):
        return None
    if os.path.isdir(out):
        n = len([f for f in os.listdir(out) if f != "fields.json"])
        return [np.load(os.path.join(out, "%d.npy" % i)) for i in range(n)]
    return [np.load(out)]


def layer_norm(x, g, b, eps=1e-5):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def gpt2_ref(x, w):
    x = x.astype(np.float64)
    n = x.shape[1]
    h = layer_norm(x, w["ln1_g"], w["ln1_b"])
    qkv = h @ w["w_qkv"].T + w["b_qkv"]
    q, k, v = (p.reshape(1, n, 4, 16).transpose(0, 2, 1, 3) for p in np.split(qkv, 3, axis=-1))
    s = q @ k.transpose(0, 1, 3, 2) * 0.25
    s = np.where(np.tril(np.ones((n, n), bool)), s, -1e9)
    s = np.exp(s - s.max(-1, keepdims=True))
    p = s / s.sum(-1, keepdims=True)
    attn = (p @ v).transpose(0, 2, 1, 3).reshape(1, n, 64)
    x1 = x + attn @ w["w_o"].T + w["b_o"]
    h2 = layer_norm(x1, w["ln2_g"], w["ln2_b"])
    out = x1 + gelu(h2 @ w["w_fc"].T + w["b_fc"]) @ w["w_proj"].T + w["b_proj"]
    return out, attn


def test_gpt2(t, tmp):
    model = os.path.join(SRC, "examples", "gpt2_block.py")
    f = np.float32
    w = {"ln1_g": 1 + 0.1 * rng.standard_normal(64), "ln1_b": 0.1 * rng.standard_normal(64),
         "w_qkv": 0.2 * rng.standard_normal((192, 64)), "b_qkv": 0.1 * rng.standard_normal(192),
         "w_o": 0.1 * rng.standard_normal((64, 64)), "b_o": 0.1 * rng.standard_normal(64),
         "ln2_g": 1 + 0.1 * rng.standard_normal(64), "ln2_b": 0.1 * rng.standard_normal(64),
         "w_fc": 0.1 * rng.standard_normal((256, 64)), "b_fc": 0.1 * rng.standard_normal(256),
         "w_proj": 0.1 * rng.standard_normal((64, 256)), "b_proj": 0.1 * rng.standard_normal(64)}
    w = {k: v.astype(f) for k, v in w.items()}
    for n in (7, 33):
        x = rng.standard_normal((1, n, 64)).astype(f)
        got = run(t, "gpt2_n%d" % n, model, w, {"x": x}, tmp)
        if got is None:
            continue
        out, attn = gpt2_ref(x, w)
        why = close(got[0], out, 1e-4, 1e-4)
        t.ok(not why, "gpt2 n=%d: block matches NumPy" % n, why)
        why = close(got[2], attn, 1e-4, 1e-5)
        t.ok(not why, "gpt2 n=%d: tril-masked attention matches NumPy" % n, why)
        why = close(got[1], got[2], 1e-4, 1e-5)
        t.ok(not why, "gpt2 n=%d: R.nn.attention(causal) equals the tril-masked attention" % n, why)


def test_swiglu(t, tmp):
    model = os.path.join(SRC, "examples", "swiglu_mlp.py")
    w = {"w_gate": 0.1 * rng.standard_normal((172, 64)), "w_up": 0.1 * rng.standard_normal((172, 64)),
         "w_down": 0.1 * rng.standard_normal((64, 172))}
    w = {k: v.astype(np.float32) for k, v in w.items()}
    x = rng.standard_normal((9, 64)).astype(np.float32)
    got = run(t, "swiglu", model, w, {"x": x}, tmp)
    if got is None:
        return
    xd = x.astype(np.float64)
    g, u = xd @ w["w_gate"].T, xd @ w["w_up"].T
    want = (g / (1 + np.exp(-g)) * u) @ w["w_down"].T
    why = close(got[0], want, 1e-4, 1e-5)
    t.ok(not why, "swiglu: matches NumPy", why)


def conv_ref(x, w):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, c, h, wd = x.shape
    y = np.zeros((n, w.shape[0], h - 2, wd - 2))
    for i in range(3):
        for j in range(3):
            y += np.einsum("nchw,oc->nohw", x[:, :, i:i + h - 2, j:j + wd - 2], w[:, :, i, j])
    return y


def conv_bn_ref(x, w):
    c = conv_ref(x, w["w"])
    s = (w["gamma"] / np.sqrt(w["var"] + 1e-5)).reshape(1, 8, 1, 1)
    y = np.maximum((c - w["mean"].reshape(1, 8, 1, 1)) * s + w["beta"].reshape(1, 8, 1, 1), 0)
    n = y.shape[0]
    p = y.reshape(n, 8, 8, 2, 8, 2).max(axis=(3, 5))
    return p.mean(axis=(2, 3))


def test_conv_bn(t, tmp):
    model = os.path.join(SRC, "examples", "conv_bn.py")
    w = {"w": 0.3 * rng.standard_normal((8, 3, 3, 3)), "gamma": 1 + 0.2 * rng.standard_normal(8),
         "beta": 0.2 * rng.standard_normal(8), "mean": 0.2 * rng.standard_normal(8),
         "var": 0.5 + rng.random(8)}
    w = {k: v.astype(np.float32) for k, v in w.items()}
    x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    want = conv_bn_ref(x, w)
    res = {}
    for func in ("main", "folded"):
        got = run(t, "conv_bn_" + func, model, w, {"x": x}, tmp, func)
        if got is not None:
            res[func] = got[0]
            why = close(got[0], want, 1e-4, 1e-5)
            t.ok(not why, "conv_bn %s: matches NumPy" % func, why)
    # lifted: the folding runs once in folded_transform_params
    lifted = os.path.join(tmp, "conv_bn_lifted.py")
    rc, _, se = rlx("lift", model, "-o", lifted)
    if not t.ok(rc == 0, "conv_bn: rlx lift", se):
        return
    text = open(lifted).read()
    t.ok("def folded_transform_params(" in text and "R.rsqrt" in
         text[text.index("def folded_transform_params("):], "conv_bn: the folding is lifted")
    st = os.path.join(tmp, "conv_bn_main.safetensors")
    tp = os.path.join(tmp, "conv_bn_tp")
    rc, _, se = rlx("run", lifted, "--func", "folded_transform_params", "--params", st, "-o", tp)
    if not t.ok(rc == 0, "conv_bn: transform params run", se):
        return
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("def folded("))
    params = re.findall(r"(\w+): R\.", line)[1:]
    fields = [np.load(os.path.join(tp, "%d.npy" % i)) for i in range(len(params))]
    st2 = os.path.join(tmp, "conv_bn_lifted.safetensors")
    write_safetensors(st2, dict(zip(params, fields)))
    xp = os.path.join(tmp, "conv_bn_x.npy")
    np.save(xp, x)
    out = os.path.join(tmp, "conv_bn_lifted.npy")
    rc, _, se = rlx("run", lifted, "--func", "folded", "--params", st2, "--input", "x=" + xp, "-o", out)
    if t.ok(rc == 0, "conv_bn: lifted folded on transformed weights", se):
        why = close(np.load(out), want, 1e-4, 1e-5)
        t.ok(not why, "conv_bn: lifted folded matches NumPy", why)


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx_user_models_") as tmp:
        test_gpt2(t, tmp)
        test_swiglu(t, tmp)
        test_conv_bn(t, tmp)
    t.done()


if __name__ == "__main__":
    main()
