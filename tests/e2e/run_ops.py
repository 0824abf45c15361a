#!/usr/bin/python3
"""run_ops.py — every operator of compiler/ops.def through `rlx run`, with
NumPy as the oracle.

For each op, one TVMScript module is written to a temporary directory: its
`main` takes every case's inputs (random, saved as .npy) and returns a tuple
with one field per case (dtypes × broadcast and edge shapes: size-0 and
size-1 dims, 0-d tensors, odd sizes that leave vector tails, symbolic dims).
One `rlx run` per op keeps the JIT start-up cost down; each case is one TAP
line. An op that codegen cannot lower ("cannot generate code for OP") is
reported as `# SKIP`. Every op of ops.def must have cases here (checked).

Tolerances: float32 rtol 1e-5, float64 1e-10, float16 2e-3, bfloat16 1.6e-2
(relative to the largest magnitude of the expected values for reductions);
integers and bools exact. bfloat16 inputs are bfloat16-representable
float32 arrays (rlx run converts them), bfloat16 results come back as
float32.
"""
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, bf16_to_f32, f32_to_bf16, np, rlx  # noqa: E402

SRC = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))

FLOATS = ["float32", "float16", "bfloat16", "float64"]
F3 = ["float32", "float16", "bfloat16"]
INTS = ["int32", "int64", "int8", "uint8"]
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12),
       "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}

rng = np.random.default_rng(1234)


def np_dtype(dt):
    """The NumPy dtype holding values of rlx dtype dt (bf16 in float32)."""
    return {"bfloat16": np.float32, "bool": np.bool_}.get(dt) or np.dtype(dt)


def gen(dt, shape, kind="n"):
    """Random data of rlx dtype dt, as the NumPy array rlx run reads."""
    shape = tuple(shape)
    if dt == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dt.startswith(("int", "uint")):
        info = np.iinfo(dt)
        lo, hi = max(info.min, -60), min(info.max, 60)
        if kind == "small":
            lo, hi = 0, 4
        elif kind == "pos":
            lo = 1
        a = np.asarray(rng.integers(lo, hi + 1, size=shape)).astype(dt)
        if kind == "nz":
            a[a == 0] = 3
        if kind.startswith("idx"):
            a = np.asarray(rng.integers(0, int(kind[3:]), size=shape)).astype(dt)
        return a
    if kind == "pos":
        a = rng.random(shape) * 3 + 0.1
    elif kind == "half":
        a = rng.integers(-8, 9, size=shape) * 0.5 + rng.choice([0, 0.25], size=shape)
    elif kind == "grid":
        a = rng.integers(-3, 4, size=shape).astype(np.float64)
    elif kind == "nz":
        a = np.asarray(rng.standard_normal(shape) * 2)
        a[np.abs(a) < 0.25] = 0.5
    elif kind == "nan":
        # NaN in some rows (in the first 32 elements and in the tail), and
        # rows of one sign, so that max/min must propagate NaN wherever
        # the vectorized reduction meets it
        a = np.asarray(rng.standard_normal(shape) * 2)
        if a.ndim == 2 and a.shape[1] > 33:
            a[0, 5] = np.nan
            a[1, -1] = np.nan
            a[2] = -np.abs(a[2]) - 1
            a[3] = np.abs(a[3]) + 1
    else:
        a = rng.standard_normal(shape) * 2
    a = np.asarray(a)
    if dt == "bfloat16":
        return bf16_to_f32(f32_to_bf16(a.astype(np.float32)))
    return a.astype(dt)


def compute(a, dt):
    """Inputs as the reference computes on them: f16/bf16 in float32."""
    return a.astype(np.float32) if dt in ("float16", "bfloat16") else a


def finish(v, dt):
    """The reference result rounded to the result dtype rlx writes."""
    v = np.asarray(v)
    if dt == "bfloat16":
        return bf16_to_f32(f32_to_bf16(v.astype(np.float32)))
    if dt == "bool":
        return v.astype(np.bool_)
    return v.astype(dt)


def ann(dt, shape):
    dims = ", ".join('"%s"' % d if isinstance(d, str) else str(d) for d in shape)
    if len(shape) == 1:
        dims += ","
    return 'R.Tensor((%s), dtype="%s")' % (dims, dt)


class Case:
    """One op call: inputs (dtype, shape, kind), the call text with {0},
    {1} ... for the inputs, the NumPy reference and the result dtype."""

    def __init__(self, label, inputs, call, ref, out=None, red=False):
        self.label = label
        self.inputs = inputs
        self.call = call
        self.ref = ref
        self.out = out or inputs[0][0]
        self.red = red  # a reduction: tolerance relative to the max


def binary(op, npf, dtypes, shapes=None, kind=("n", "n"), out=None):
    shapes = shapes or [((2, 3), (2, 3)), ((4, 1), (1, 5)), ((3, 1, 7), (7,)),
                        ((0, 3), (1, 3)), ((17,), ()), (("n", 33), ("n", 1))]
    cs = []
    for dt in dtypes:
        for sa, sb in shapes:
            cs.append(Case("%s %s %s" % (dt, sa, sb),
                           [(dt, sa, kind[0]), (dt, sb, kind[1])],
                           "R.%s({0}, {1})" % op, npf, out or dt))
    return cs


def unary(op, npf, dtypes, kind="n", shapes=None, out=None):
    shapes = shapes or [(17,), (3, 33), (2, 0, 3), (1,), ()]
    return [Case("%s %s" % (dt, s), [(dt, s, kind)], "R.%s({0})" % op, npf,
                 out or dt) for dt in dtypes for s in shapes]


def trunc_div(a, b):
    if a.dtype.kind in "iu":
        q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
        return (q * np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64))).astype(a.dtype)
    return a / b


def floor_div(a, b):
    return np.floor_divide(a, b) if a.dtype.kind in "iu" else np.floor(a / b)


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def gelu(x):
    return 0.5 * x * (1 + erf(x.astype(np.float64) / math.sqrt(2)))


def gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def rms_norm(x, w, axes, eps=1e-5):
    x = x.astype(np.float64)
    return x / np.sqrt((x * x).mean(axis=tuple(axes), keepdims=True) + eps) * w


def layer_norm(x, g, b, axes, eps=1e-5, center=True, scale=True):
    x = x.astype(np.float64)
    ax = tuple(axes)
    y = (x - x.mean(axis=ax, keepdims=True)) / np.sqrt(x.var(axis=ax, keepdims=True) + eps)
    if scale:
        y = y * g
    if center:
        y = y + b
    return y


def mm(a, b, acc=None):
    if a.dtype.kind == "f":
        return np.matmul(a.astype(np.float64), b.astype(np.float64))
    return np.matmul(a, b)


def cases_for(op):
    """The cases of one op (its Python name after R.)."""
    cmpd = ["float32", "float16", "int32", "int64", "uint8"]
    if op in ("add", "subtract", "multiply", "maximum", "minimum"):
        f = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
             "maximum": np.maximum, "minimum": np.minimum}[op]
        return binary(op, f, FLOATS + INTS)
    if op == "divide":
        return binary(op, trunc_div, FLOATS + ["int32", "int64", "int8"], kind=("n", "nz"))
    if op == "floor_divide":
        return binary(op, floor_div, FLOATS + ["int32", "int64"], kind=("n", "nz"))
    if op == "power":
        return (binary(op, lambda a, b: np.power(a.astype(np.float64), b), FLOATS, kind=("pos", "n")) +
                binary(op, lambda a, b: np.power(a, b), ["int32"], kind=("small", "small")))
    if op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        f = getattr(np, op)
        return binary(op, f, cmpd, kind=("grid", "grid"), out="bool") + \
            binary(op, f, ["bool"], out="bool")
    if op in ("logical_and", "logical_or"):
        return binary(op, getattr(np, op), ["bool"], out="bool")
    if op == "logical_not":
        return unary(op, np.logical_not, ["bool"], out="bool")
    if op == "where":
        cs = []
        for dt in ["float32", "float16", "bfloat16", "int32", "int8"]:
            for sc, sa, sb in [((2, 3), (2, 3), (2, 3)), ((4, 1), (1, 5), ()),
                               ((0, 2), (2,), (1, 2)), ((33,), (33,), (1,))]:
                cs.append(Case("%s %s %s %s" % (dt, sc, sa, sb),
                               [("bool", sc, "n"), (dt, sa, "n"), (dt, sb, "n")],
                               "R.where({0}, {1}, {2})", np.where, dt))
        return cs
    simple = {"negative": (np.negative, FLOATS + ["int32", "int64", "int8"], "n"),
              "abs": (np.abs, FLOATS + ["int32", "int64", "int8"], "n"),
              "exp": (np.exp, FLOATS, "n"), "log": (np.log, FLOATS, "pos"),
              "sqrt": (np.sqrt, FLOATS, "pos"),
              "rsqrt": (lambda x: 1 / np.sqrt(x), FLOATS, "pos"),
              "sin": (np.sin, FLOATS, "n"), "cos": (np.cos, FLOATS, "n"),
              "tanh": (np.tanh, FLOATS, "n"),
              "sigmoid": (lambda x: 1 / (1 + np.exp(-x.astype(np.float64))), FLOATS, "n"),
              "erf": (erf, FLOATS, "n"),
              "round": (np.rint, ["float32", "float16", "float64", "int32"], "half"),
              "floor": (np.floor, ["float32", "float16", "bfloat16", "float64", "int32"], "half"),
              "ceil": (np.ceil, ["float32", "float16", "bfloat16", "float64", "int32"], "half"),
              "sign": (np.sign, ["float32", "float16", "float64", "int32", "int8"], "grid"),
              "nn.relu": (lambda x: np.maximum(x, 0), FLOATS + ["int32"], "n"),
              "nn.silu": (lambda x: x / (1 + np.exp(-x.astype(np.float64))), FLOATS, "n"),
              "nn.gelu": (gelu, FLOATS, "n"), "nn.gelu_tanh": (gelu_tanh, FLOATS, "n")}
    if op in simple:
        f, dts, kind = simple[op]
        return unary(op, f, dts, kind)
    if op == "clip":
        cs = [Case("%s %s" % (dt, s), [(dt, s, "n")], "R.clip({0}, -1.5, 0.75)",
                   lambda x: np.clip(x, -1.5, 0.75), dt)
              for dt in FLOATS for s in [(17,), (2, 0), (3, 5)]]
        cs += [Case("%s %s" % (dt, s), [(dt, s, "n")], "R.clip({0}, -3, 7)",
                    lambda x: np.clip(x, -3, 7), dt)
               for dt in ["int32", "int64", "int8"] for s in [(33,), (4, 1)]]
        return cs
    if op in ("nn.softmax", "nn.log_softmax"):
        lg = op == "nn.log_softmax"
        cs = []
        for dt in F3 + ["float64"]:
            for s, ax in [((3, 17), -1), ((2, 3, 5), 1), ((4, 6), 0), ((1, 1), -1),
                          ((0, 5), -1), (("n", 33), -1)]:
                cs.append(Case("%s %s axis=%d" % (dt, s, ax), [(dt, s, "n")],
                               "R.%s({0}, axis=%d)" % (op, ax),
                               (lambda a, ax=ax: np.log(softmax(a, ax))) if lg
                               else (lambda a, ax=ax: softmax(a, ax)), dt))
        return cs
    if op == "nn.rms_norm":
        cs = []
        for dt in F3 + ["float64"]:
            for sx, sw, axes in [((4, 33), (33,), [-1]), ((2, 3, 8), (3, 8), [-2, -1]),
                                 ((1, 1), (1,), [-1]), ((0, 7), (7,), [-1]),
                                 (("n", 16), (16,), [-1])]:
                cs.append(Case("%s %s axes=%s" % (dt, sx, axes), [(dt, sx, "n"), (dt, sw, "n")],
                               "R.nn.rms_norm({0}, {1}, axes=%s, epsilon=1e-05)" % axes,
                               lambda x, w, axes=axes: rms_norm(x, w, axes), dt))
        return cs
    if op == "nn.layer_norm":
        cs = []
        for dt in F3 + ["float64"]:
            for sx, sw, axes, c, s in [((4, 33), (33,), [-1], True, True),
                                       ((2, 3, 8), (3, 8), [-2, -1], True, True),
                                       ((5, 7), (7,), [-1], False, True),
                                       ((5, 7), (7,), [-1], True, False),
                                       ((0, 3), (3,), [-1], True, True)]:
                cs.append(Case("%s %s axes=%s center=%s scale=%s" % (dt, sx, axes, c, s),
                               [(dt, sx, "n"), (dt, sw, "n"), (dt, sw, "n")],
                               "R.nn.layer_norm({0}, {1}, {2}, axes=%s, epsilon=1e-05, "
                               "center=%s, scale=%s)" % (axes, c, s),
                               lambda x, g, b, axes=axes, c=c, s=s:
                               layer_norm(x, g, b, axes, center=c, scale=s), dt))
        return cs
    if op == "nn.conv2d":
        def conv(x, w, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1):
            x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
            n, ci, h, wd = x.shape
            co, cig, kh, kw = w.shape
            oh = (h - dil[0] * (kh - 1) - 1) // stride[0] + 1
            ow = (wd - dil[1] * (kw - 1) - 1) // stride[1] + 1
            y = np.zeros((n, co, oh, ow))
            cog = co // groups
            for g in range(groups):
                xs = x[:, g * cig:(g + 1) * cig]
                ws = w[g * cog:(g + 1) * cog].astype(np.float64)
                for i in range(kh):
                    for j in range(kw):
                        hi, wj = i * dil[0], j * dil[1]
                        patch = xs[:, :, hi:hi + stride[0] * (oh - 1) + 1:stride[0],
                                   wj:wj + stride[1] * (ow - 1) + 1:stride[1]]
                        y[:, g * cog:(g + 1) * cog] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
            return y
        cases = [Case("%s %s %s" % (dt, sx, sw), [(dt, sx, "n"), (dt, sw, "n")],
                      "R.nn.conv2d({0}, {1})", conv, dt)
                 for dt in ["float32", "float16"]
                 for sx, sw in [((1, 3, 8, 8), (4, 3, 3, 3)), ((2, 1, 5, 7), (2, 1, 1, 3))]]
        for st, pd, dl, gr, sx, sw in [((2, 2), (1, 1, 1, 1), (1, 1), 1, (1, 3, 9, 9), (4, 3, 3, 3)),
                                       ((1, 2), (0, 1, 2, 0), (2, 1), 1, (2, 2, 10, 7), (3, 2, 3, 2)),
                                       ((1, 1), (1, 1, 1, 1), (1, 1), 2, (1, 4, 6, 6), (6, 2, 3, 3)),
                                       ((1, 1), (0, 0, 0, 0), (1, 1), 4, (1, 4, 5, 5), (4, 1, 3, 3))]:
            call = ("R.nn.conv2d({0}, {1}, strides=%s, padding=%s, dilation=%s, groups=%d)"
                    % (list(st), list(pd), list(dl), gr))
            cases.append(Case("float32 %s %s strides=%s padding=%s dilation=%s groups=%d"
                              % (sx, sw, st, pd, dl, gr),
                              [("float32", sx, "n"), ("float32", sw, "n")], call,
                              lambda x, w, st=st, pd=pd, dl=dl, gr=gr: conv(x, w, st, pd, dl, gr),
                              "float32"))
        return cases
    if op == "matmul":
        cs = []
        shapes = [((3, 5), (5, 7)), ((2, 3, 4), (4, 5)), ((4,), (4, 6)), ((6, 4), (4,)),
                  ((2, 1, 3, 4), (5, 4, 2)), ((0, 5), (5, 3)), ((33, 17), (17, 65)),
                  (("n", 8), (8, 3))]
        for dt in FLOATS + ["int32"]:
            for sa, sb in shapes:
                cs.append(Case("%s %s @ %s" % (dt, sa, sb), [(dt, sa, "n"), (dt, sb, "n")],
                               'R.matmul({0}, {1}, out_dtype="void")', mm, dt, red=True))
        cs.append(Case("float16 -> float32 out_dtype", [("float16", (5, 9), "n"), ("float16", (9, 3), "n")],
                       'R.matmul({0}, {1}, out_dtype="float32")', mm, "float32", red=True))
        return cs
    if op == "permute_dims":
        cs = []
        for dt in ["float32", "float16", "int8", "int64", "bool"]:
            for s, axes in [((3, 5), None), ((2, 3, 4), [1, 0, 2]), ((2, 3, 4), [2, 0, 1]),
                            ((33, 65), [1, 0]), ((0, 3), [1, 0]), ((1, 7, 1), None)]:
                a = "" if axes is None else ", axes=%s" % axes
                cs.append(Case("%s %s axes=%s" % (dt, s, axes), [(dt, s, "n")],
                               "R.permute_dims({0}%s)" % a,
                               lambda x, axes=axes: np.transpose(x, axes), dt))
        return cs
    if op == "reshape":
        return [Case("%s %s -> %s" % (dt, s, t), [(dt, s, "n")], "R.reshape({0}, %s)" % (t,),
                     lambda x, t=t: x.reshape(t), dt)
                for dt in ["float32", "int64", "bfloat16"]
                for s, t in [((2, 3, 4), (6, 4)), ((2, 3, 4), (24,)), ((7,), (1, 7, 1)),
                             ((0, 4), (4, 0)), ((), (1,))]]
    if op == "astype":
        pairs = [("float32", "float16"), ("float16", "float32"), ("float32", "int32"),
                 ("int32", "float32"), ("float32", "bfloat16"), ("bfloat16", "float32"),
                 ("float32", "bool"), ("int64", "int8"), ("bool", "float32"),
                 ("float64", "float32"), ("int8", "int64"), ("uint8", "float16"),
                 ("float16", "bfloat16")]
        cs = []
        for a, b in pairs:
            for s in [(17,), (2, 0), ()]:
                cs.append(Case("%s -> %s %s" % (a, b, s), [(a, s, "n")],
                               'R.astype({0}, dtype="%s")' % b,
                               lambda x, b=b: x.astype(np.float32 if b == "bfloat16" else b)
                               if not (x.dtype.kind == "f" and b.startswith("int"))
                               else np.trunc(x).astype(b), b))
        return cs
    if op == "concat":
        cs = []
        for dt in ["float32", "float16", "int32", "bool"]:
            for ss, ax in [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 5), (2, 1)], 1),
                           ([(0, 3), (2, 3)], 0), ([(3, 17), (3, 16)], -1)]:
                names = ", ".join("{%d}" % i for i in range(len(ss)))
                cs.append(Case("%s %s axis=%d" % (dt, ss, ax), [(dt, s, "n") for s in ss],
                               "R.concat((%s), axis=%d)" % (names, ax),
                               lambda *xs, ax=ax: np.concatenate(xs, axis=ax), dt))
        return cs
    if op == "split":
        cs = []
        for dt in ["float32", "int8"]:
            for s, ios, ax in [((4, 9), 3, 1), ((7, 2), [2, 5], 0), ((6,), 2, 0),
                               ((4, 9), [0, 9], 1)]:
                cs.append(Case("%s %s %s axis=%d" % (dt, s, ios, ax), [(dt, s, "n")],
                               "R.split({0}, indices_or_sections=%s, axis=%d)" % (ios, ax),
                               lambda x, ios=ios, ax=ax: tuple(np.split(x, ios, axis=ax)), dt))
        return cs
    if op == "strided_slice":
        cs = []
        for dt in ["float32", "int64"]:
            for s, axes, b, e, st, sl in [
                    ((10,), [0], [1], [8], [2], np.s_[1:8:2]),
                    ((5, 6), [1], [-1], [-10], [-1], np.s_[:, -1:-10:-1]),
                    ((5, 6), [0, 1], [1, 2], [4, 100], None, np.s_[1:4, 2:100]),
                    ((3, 4, 5), [2], [0], [5], [3], np.s_[:, :, 0:5:3]),
                    ((4,), [0], [3], [1], None, np.s_[3:1])]:
                sts = "" if st is None else ", strides=%s" % st
                cs.append(Case("%s %s axes=%s begin=%s end=%s strides=%s" % (dt, s, axes, b, e, st),
                               [(dt, s, "n")],
                               "R.strided_slice({0}, axes=%s, begin=%s, end=%s%s)" % (axes, b, e, sts),
                               lambda x, sl=sl: x[sl], dt))
        return cs
    if op == "take":
        cs = []
        for dt in ["float32", "float16", "int32"]:
            for sx, si, ax, idt in [((5, 4), (3,), 0, "int64"), ((5, 4), (2, 3), 1, "int32"),
                                    ((7,), (), 0, "int64"), ((5, 4), (0,), 0, "int64"),
                                    ((2, 3, 4), (5,), 2, "int32")]:
                n = sx[ax]
                cs.append(Case("%s %s[%s %s] axis=%d" % (dt, sx, idt, si, ax),
                               [(dt, sx, "n"), (idt, si, "idx%d" % n)],
                               "R.take({0}, {1}, axis=%d)" % ax,
                               lambda x, i, ax=ax: np.take(x, i, axis=ax), dt))
        return cs
    if op == "expand_dims":
        return [Case("%s %s axis=%s" % (dt, s, ax), [(dt, s, "n")],
                     "R.expand_dims({0}, axis=%s)" % ax,
                     lambda x, ax=ax: np.expand_dims(x, tuple(ax)), dt)
                for dt in ["float32", "int8"]
                for s, ax in [((3, 4), [0]), ((3, 4), [1, 3]), ((), [0]), ((0, 2), [-1])]]
    if op == "squeeze":
        return [Case("%s %s axis=%s" % (dt, s, ax), [(dt, s, "n")],
                     "R.squeeze({0}%s)" % ("" if ax is None else ", axis=%s" % ax),
                     lambda x, ax=ax: np.squeeze(x, None if ax is None else tuple(ax)), dt)
                for dt in ["float32", "int8"]
                for s, ax in [((1, 3, 1), None), ((1, 3, 1), [2]), ((1,), None), ((2, 1, 0), [1])]]
    if op == "broadcast_to":
        return [Case("%s %s -> %s" % (dt, s, t), [(dt, s, "n")],
                     "R.broadcast_to({0}, %s)" % (t,),
                     lambda x, t=t: np.broadcast_to(x, t), dt)
                for dt in ["float32", "float16", "int32", "bool"]
                for s, t in [((3, 1), (2, 3, 4)), ((), (5,)), ((1, 33), (3, 33)), ((1,), (0, 1))]]
    if op == "flatten":
        return [Case("%s %s" % (dt, s), [(dt, s, "n")], "R.flatten({0})",
                     lambda x: x.reshape(-1), dt)
                for dt in ["float32", "int8"] for s in [(2, 3, 4), (), (0, 5)]]
    if op in ("sum", "mean", "max", "min", "prod"):
        f = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}[op]
        dts = F3 + ["float64", "int32", "int64"]
        if op == "mean":
            dts = F3 + ["float64"]
        cs = []
        for dt in dts:
            shapes = [((3, 17), None, False), ((3, 17), [1], False), ((2, 3, 5), [0, 2], True),
                      ((4, 1), [0], False), (("n", 6), [0], True)]
            if op in ("sum", "prod", "mean"):
                shapes.append(((2, 0), [1], False))
            if op in ("max", "min") and dt in F3 + ["float64"]:
                shapes.append(((5, 67), [1], False))   # NaN rows: kind "nan"
            for s, ax, kd in shapes:
                kind = "small" if (op == "prod" and dt.startswith("int")) else "n"
                if s == (5, 67):
                    kind = "nan"
                call = "R.%s({0}%s, keepdims=%s)" % (op, "" if ax is None else ", axis=%s" % ax, kd)
                ref = (lambda x, ax=ax, kd=kd, f=f: f(x.astype(np.float64) if x.dtype.kind == "f" else x,
                                                      axis=None if ax is None else tuple(ax),
                                                      keepdims=kd))
                if op == "prod" and dt in ("float16", "bfloat16"):
                    kind = "pos"
                cs.append(Case("%s %s axis=%s keepdims=%s" % (dt, s, ax, kd), [(dt, s, kind)],
                               call, ref, dt, red=op in ("sum", "mean", "prod")))
        return cs
    if op in ("argmax", "argmin"):
        f = getattr(np, op)
        cs = []
        for dt in ["float32", "float16", "int32", "int8"]:
            for s, ax, kd in [((3, 17), None, False), ((3, 17), -1, False), ((4, 5, 6), 1, True),
                              ((1, 33), 0, False)]:
                call = "R.%s({0}%s, keepdims=%s)" % (op, "" if ax is None else ", axis=%d" % ax, kd)
                cs.append(Case("%s %s axis=%s keepdims=%s" % (dt, s, ax, kd), [(dt, s, "n")], call,
                               lambda x, ax=ax, kd=kd, f=f: f(x, axis=ax, keepdims=kd) if ax is not None
                               else (np.array(f(x)).reshape((1,) * x.ndim) if kd else f(x)),
                               "int64"))
        return cs
    if op in ("zeros", "ones"):
        v = 0 if op == "zeros" else 1
        return [Case("%s %s" % (dt, s), [], 'R.%s(R.shape(%s), dtype="%s")' % (op, list(s), dt),
                     lambda s=s, dt=dt, v=v: np.full(s, v, dtype=np_dtype(dt)), dt)
                for dt in ["float32", "float16", "bfloat16", "int32", "bool"]
                for s in [(2, 3), (0,), (33,)]]
    if op in ("zeros_like", "ones_like"):
        v = 0 if op == "zeros_like" else 1
        return [Case("%s -> %s %s" % (dt, o, s), [(dt, s, "n")],
                     "R.%s({0}%s)" % (op, "" if o is None else ', dtype="%s"' % o),
                     lambda x, v=v, o=o: np.full(x.shape, v), o or dt)
                for dt in ["float32", "int32"] for o in [None, "float16", "int8"]
                for s in [(2, 3), (0, 1)]]
    if op == "full":
        return [Case("%s %s = %s" % (dt, s, fv), [],
                     'R.full(R.shape(%s), R.const(%s, "%s"), dtype="%s")' % (list(s), fv, dt, dt),
                     lambda s=s, fv=fv: np.full(s, fv), dt)
                for dt, fv in [("float32", 1.5), ("float16", -2.25), ("int32", 7), ("int64", -3)]
                for s in [(2, 3), (0,), (17,)]]
    if op == "full_like":
        return [Case("%s %s = %s" % (dt, s, fv), [(dt, s, "n")],
                     'R.full_like({0}, R.const(%s, "%s"))' % (fv, dt),
                     lambda x, fv=fv: np.full(x.shape, fv), dt)
                for dt, fv in [("float32", 1.5), ("int32", 7), ("float16", 0.5)]
                for s in [(2, 3), (0, 4), ()]]
    if op == "arange":
        return [Case("%s %s" % (dt, a), [], 'R.arange(%s, %s, %s, dtype="%s")' % (a + (dt,)),
                     lambda a=a, dt=dt: np.arange(*a), dt)
                for a, dt in [((0, 5, 1), "int64"), ((1, 9, 2), "int32"), ((5, 0, -2), "int64"),
                              ((0.0, 1.0, 0.25), "float32"), ((3, 3, 1), "int64")]]
    # one process is worker 0 of 1 (tests/e2e/run_tp.py runs them on ranks)
    if op in ("ccl.allreduce", "ccl.broadcast_from_worker0"):
        attrs = ', op_type="%s"' if op == "ccl.allreduce" else ""
        return [Case("%s %s %s" % (dt, s, k), [(dt, s, "n")],
                     "R.%s({0}%s)" % (op, attrs % k if attrs else ""),
                     lambda x: x, dt)
                for dt in ["float32", "float16", "int32"] for s in [(3, 4), ()]
                for k in (["sum", "max", "avg"] if attrs else ["-"])]
    if op == "ccl.allgather":
        return [Case("%s %s" % (dt, s), [(dt, s, "n")],
                     "R.ccl.allgather({0}, num_workers=1)", lambda x: x, dt)
                for dt in ["float32", "int8"] for s in [(3, 4), (5,)]]
    if op in ("ccl.scatter_from_worker0", "dist.redistribute_replica_to_shard"):
        return [Case("%s %s axis %d / %d" % (dt, s, ax, n), [(dt, s, "n")],
                     "R.%s({0}, num_workers=%d, axis=%d)" % (op, n, ax),
                     lambda x, n=n, ax=ax: np.split(x, n, axis=ax)[0], dt)
                for dt in ["float32", "int32"]
                for s, ax, n in [((4, 6), 0, 2), ((4, 6), 1, 3), ((2, 3, 4), -1, 4),
                                 ((6,), 0, 1)]]
    if op == "builtin.stop_lift_params":
        return [Case("%s %s" % (dt, s), [(dt, s, "n")], "R.builtin.stop_lift_params({0})",
                     lambda x: x, dt) for dt in ["float32", "int8"] for s in [(3, 4), ()]]
    return None


def op_names():
    """The Python names of the ops in ops.def that rlx computes: all but the
    classes OC_EXTERN and OC_IMPURE (read and checked, refused by rlx run:
    tests/golden/cli covers that)."""
    text = open(os.path.join(SRC, "compiler", "ops.def")).read()
    rows = re.findall(r'^OP\(\s*\w+\s*,\s*"([^"]+)".*?\b(OC_\w+)\)', text,
                      re.M | re.S)
    return [n for n, cls in rows if cls not in ("OC_EXTERN", "OC_IMPURE")]


def module_text(cases):
    """The module: main takes every case's inputs and returns a tuple."""
    params, body, names = [], [], []
    syms = False
    for k, c in enumerate(cases):
        args = []
        for i, (dt, shape, _) in enumerate(c.inputs):
            name = "c%d_%d" % (k, i)
            args.append(name)
            params.append("%s: %s" % (name, ann(dt, shape)))
            syms |= any(isinstance(d, str) for d in shape)
        body.append("        r%d = %s" % (k, c.call.format(*args)))
        names.append("r%d" % k)
    lines = ["@I.ir_module", "class Module:", "    @R.function",
             "    def main(%s):" % ", ".join(params)]
    if syms:
        lines.append("        n = T.int64()")
    lines += body
    lines.append("        return (%s%s)" % (", ".join(names), "," if len(names) == 1 else ""))
    return "\n".join(lines) + "\n"


def load(path):
    """A result field: an array, or a tuple of them from a directory."""
    if os.path.isdir(path):
        n = len(os.listdir(path))
        return tuple(load(os.path.join(path, "%d%s" % (i, "" if os.path.isdir(
            os.path.join(path, str(i))) else ".npy"))) for i in range(n))
    return np.load(path)


def compare(got, want, c):
    """'' when got matches want for case c, else why not."""
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return "expected a tuple of %d" % len(want)
        for g, w in zip(got, want):
            why = compare(g, w, c)
            if why:
                return why
        return ""
    want = finish(want, c.out)
    exp_dt = np.float32 if c.out == "bfloat16" else np.dtype(c.out)
    if got.dtype != exp_dt:
        return "dtype %s, expected %s" % (got.dtype, np.dtype(exp_dt))
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if got.dtype.kind in "iub":
        bad = got != want
        if bad.any():
            i = np.argwhere(bad)[0]
            return "at %s: %s, expected %s" % (tuple(i), got[tuple(i)], want[tuple(i)])
        return ""
    rtol, atol = TOL.get(c.out, TOL["float32"])
    w = want.astype(np.float64)
    g = got.astype(np.float64)
    if c.red and w.size:
        atol = max(atol, rtol * float(np.abs(w).max()) * 4)
    if c.out == "float16" and w.size:
        atol = max(atol, 1e-3 * float(np.abs(w).max()))
    ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not ok.all():
        i = tuple(np.argwhere(~ok)[0])
        return "at %s: %r, expected %r (rtol %g atol %g)" % (i, g[i], w[i], rtol, atol)
    return ""


def run_op(t, op, cases, tmp):
    d = os.path.join(tmp, op.replace(".", "_"))
    os.makedirs(d)
    model = os.path.join(d, "model.py")
    with open(model, "w") as f:
        f.write(module_text(cases))
    args = ["run", model]
    inputs = []
    symvals = {}
    for k, c in enumerate(cases):
        arrs = []
        for i, (dt, shape, kind) in enumerate(c.inputs):
            concrete = tuple(symvals.setdefault(s, 5) if isinstance(s, str) else s for s in shape)
            a = gen(dt, concrete, kind)
            p = os.path.join(d, "c%d_%d.npy" % (k, i))
            np.save(p, a)
            args += ["--input", "c%d_%d=%s" % (k, i, p)]
            arrs.append(a)
        inputs.append(arrs)
    out = os.path.join(d, "out")
    rc, so, se = rlx(*(args + ["-o", out]))
    if rc != 0:
        if "cannot generate code for %s" % op in se:
            for c in cases:
                t.skip("%s %s" % (op, c.label), "codegen has no kernel for %s" % op)
            return
        for c in cases:
            t.ok(False, "%s %s" % (op, c.label), "rlx run exit %d\n%s" % (rc, se))
        return
    for k, c in enumerate(cases):
        try:
            want = c.ref(*[compute(a, dt) for a, (dt, _, _) in zip(inputs[k], c.inputs)])
            path = os.path.join(out, "%d" % k)
            got = load(path if os.path.isdir(path) else path + ".npy")
            why = compare(got, want, c)
        except Exception as ex:  # a bug in the test itself: report it
            why = "test error: %r" % ex
        t.ok(not why, "%s %s" % (op, c.label), why)


def main():
    t = Tap()
    only = sys.argv[1:]
    ops = op_names()
    t.ok(len(ops) > 50, "ops.def lists the ops (%d)" % len(ops))
    with tempfile.TemporaryDirectory(prefix="rlx_ops_") as tmp:
        for op in ops:
            if only and op not in only:
                continue
            cases = cases_for(op)
            if not t.ok(cases is not None, "%s has test cases" % op):
                continue
            run_op(t, op, cases, tmp)
    t.done()


if __name__ == "__main__":
    main()
