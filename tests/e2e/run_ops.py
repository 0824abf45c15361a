#!/usr/bin/python3
"""run_ops.py — every operator of compiler/ops.def through `rlx run`, with
NumPy as the oracle.

For each op, one TVMScript module is written to a temporary directory: its
`main` takes every case's inputs (random, saved as .npy) and returns a tuple
with one field per case (dtypes × broadcast and edge shapes: size-0 and
size-1 dims, 0-d tensors, odd sizes that leave vector tails, symbolic dims).
One `rlx run` per op keeps the JIT start-up cost down; each case is one TAP
line. The runs go RLX_TEST_JOBS at a time (default: one per CPU), reported
in op order. An op that codegen cannot lower ("cannot generate code for OP") is
reported as `# SKIP`. Every op of ops.def must have cases here (checked).

Tolerances: float32 rtol 1e-5, float64 1e-10, float16 2e-3, bfloat16 1.6e-2
(relative to the largest magnitude of the expected values for reductions);
integers and bools exact. bfloat16 inputs are bfloat16-representable
float32 arrays (rlx run converts them), bfloat16 results come back as
float32.
"""
import concurrent.futures
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
        if kind == "perm":
            n = int(np.prod(shape))
            a = (rng.permutation(n) % (hi - lo + 1) + lo).reshape(shape).astype(dt)
        if kind.startswith("sidx"):
            # signed indices in [-n, n)
            n = int(kind[4:])
            a = np.asarray(rng.integers(-n, n, size=shape)).astype(dt)
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
    elif kind == "unit":
        a = rng.uniform(-0.95, 0.95, size=shape)
    elif kind == "ge1":
        a = rng.uniform(1.0, 4.0, size=shape)
    elif kind == "inf":
        # the special values among ordinary ones
        a = np.asarray(rng.standard_normal(shape) * 2)
        flat = a.reshape(-1)
        for i, v in enumerate([np.nan, np.inf, -np.inf, 0.0, -0.0]):
            if i < flat.size:
                flat[(i * 7) % flat.size] = v
    elif kind == "perm":
        # distinct values (no ties for sorting)
        n = int(np.prod(shape))
        a = (rng.permutation(n).reshape(shape) - n // 2) * 0.5
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
    if shape == "prim":
        return 'R.Prim("%s")' % dt
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

    def field(self, i):
        """The case of tuple field i (out may give one dtype per field)."""
        if not isinstance(self.out, tuple):
            return self
        c = Case(self.label, self.inputs, self.call, self.ref, self.out[i], self.red)
        return c


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


def selu(x):
    x = x.astype(np.float64)
    return 1.0507009873554804934 * np.where(x > 0, x, 1.6732632423543772848 * np.expm1(x))


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
        # a bool operand may meet another dtype (TVM), compared as the other
        mixed = [Case("bool float32 (2, 3) (3,)", [("bool", (2, 3), "n"), ("float32", (3,), "n")],
                      "R.%s({0}, {1})" % op, lambda x, y, f=f: f(x, y), "bool")]
        return binary(op, f, cmpd, kind=("grid", "grid"), out="bool") + \
            binary(op, f, ["bool"], out="bool") + mixed
    if op in ("logical_and", "logical_or", "logical_xor"):
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
              "nn.gelu": (gelu, FLOATS, "n"), "nn.gelu_tanh": (gelu_tanh, FLOATS, "n"),
              "nn.selu": (selu, FLOATS, "n")}
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
                      "R.nn.conv2d({0}, {1})", conv, dt, red=True)
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
                              "float32", red=True))
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
        # runtime/kernels/gemm.c: GEMV (M <= 8), across its cache blocks, batches
        big = [((1, 37), (37, 45)), ((8, 70), (70, 33)), ((5, 1), (1, 17)), ((1, 1), (1, 1)),
               ((130, 400), (400, 70)), ((2, 3, 19, 40), (40, 21)), ((3, 1, 2, 6), (2, 6, 5))]
        for dt in F3:
            for sa, sb in big:
                cs.append(Case("%s %s @ %s" % (dt, sa, sb), [(dt, sa, "n"), (dt, sb, "n")],
                               'R.matmul({0}, {1}, out_dtype="void")', mm, dt, red=True))
        # x @ w.T: the permute_dims is read by the matmul, not copied
        tr = [((1, 40), (33, 40)), ((6, 17), (50, 17)), ((100, 300), (45, 300)),
              ((2, 9, 8), (3, 8)), ((0, 4), (5, 4))]
        for dt in F3:
            for sa, sw in tr:
                cs.append(Case("%s %s @ %s.T" % (dt, sa, sw), [(dt, sa, "n"), (dt, sw, "n")],
                               'R.matmul({0}, R.permute_dims({1}, axes=None), out_dtype="void")',
                               lambda a, w: mm(a, w.T), dt, red=True))
        cs.append(Case("float32 batched (2, 3, 7, 5) @ (2, 3, 9, 5) swapped",
                       [("float32", (2, 3, 7, 5), "n"), ("float32", (2, 3, 9, 5), "n")],
                       'R.matmul({0}, R.permute_dims({1}, axes=[0, 1, 3, 2]), out_dtype="void")',
                       lambda a, w: mm(a, np.swapaxes(w, -1, -2)), "float32", red=True))
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
            # an int n: parts of ceildiv(len, n), the last what is left (TVM's rule:
            # 10 into 3 is 4, 4, 2, where NumPy's array_split gives 4, 3, 3)
            for s, ios, ax in [((4, 9), 3, 1), ((7, 2), [2, 5], 0), ((6,), 2, 0),
                               ((4, 9), [0, 9], 1), ((10, 2), 3, 0)]:
                cs.append(Case("%s %s %s axis=%d" % (dt, s, ios, ax), [(dt, s, "n")],
                               "R.split({0}, indices_or_sections=%s, axis=%d)" % (ios, ax),
                               lambda x, ios=ios, ax=ax: tuple(np.split(
                                   x, ios if isinstance(ios, list) else
                                   [-(-x.shape[ax] // ios) * i for i in range(1, ios)],
                                   axis=ax)), dt))
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
                for mode in ["clip", "wrap"]:
                    cs.append(Case("%s %s[%s %s] axis=%d mode=%s" % (dt, sx, idt, si, ax, mode),
                                   [(dt, sx, "n"), (idt, si, "sidx%d" % (2 * n))],
                                   'R.take({0}, {1}, axis=%d, mode="%s")' % (ax, mode),
                                   lambda x, i, ax=ax, mode=mode: np_take(x, i, ax, mode), dt))
        # no axis: an index into the flattened tensor (negative from the end
        # under "fast", clamped or wrapped over its size by the others)
        for mode in ["fast", "clip", "wrap"]:
            kind = "sidx20" if mode == "fast" else "sidx40"
            cs.append(Case("float32 (5, 4)[int64 (2, 3)] axis=None mode=%s" % mode,
                           [("float32", (5, 4), "n"), ("int64", (2, 3), kind)],
                           'R.take({0}, {1}, mode="%s")' % mode,
                           lambda x, i, mode=mode: np_take(x.reshape(-1), i, 0, mode),
                           "float32"))
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
                     lambda x, ax=ax: np.squeeze(x, None if ax is None else
                                                 tuple(a for a in ax if x.shape[a] == 1)), dt)
                for dt in ["float32", "int8"]
                # an axis whose length is not 1 is skipped (TVM, PyTorch)
                for s, ax in [((1, 3, 1), None), ((1, 3, 1), [2]), ((1,), None), ((2, 1, 0), [1]),
                              ((1, 3, 1), [0, 1])]]
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
                              ((0.0, 1.0, 0.25), "float32"), ((3, 3, 1), "int64")]] + \
            [Case("short %s" % (a,), [], "R.arange(%s)" % ", ".join(map(str, a)),
                  lambda a=a: np.arange(*a), dt)
             for a, dt in [((5,), "int64"), ((2, 7), "int64"), ((0,), "int64"),
                           ((0.5, 3.0), "float32")]]
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
    return more_cases(op)


def np_take(x, i, axis, mode):
    n = x.shape[axis]
    i = i.astype(np.int64)
    if mode == "clip":
        i = np.clip(i, 0, n - 1)
    else:
        i = np.mod(i, n) if mode == "wrap" else np.where(i < 0, i + n, i)
    return np.take(x, i, axis=axis)


def np_scatter_elements(d, idx, u, axis, red):
    out = d.copy()
    n = d.shape[axis]
    for pos in np.ndindex(idx.shape):
        t = list(pos)
        t[axis] = int(idx[pos]) % n if idx[pos] < 0 else int(idx[pos])
        t = tuple(t)
        if red == "update":
            out[t] = u[pos]
        elif red == "add":
            out[t] = out[t] + u[pos]
        elif red == "mul":
            out[t] = out[t] * u[pos]
        elif red == "max":
            out[t] = max(out[t], u[pos])
        elif red == "min":
            out[t] = min(out[t], u[pos])
        elif red == "mean":  # TVM's running average, integers toward zero
            if out.dtype.kind == "f":
                out[t] = (np.float32(out[t]) + np.float32(u[pos])) / np.float32(2)
            else:
                out[t] = int((int(out[t]) + int(u[pos])) / 2)
    return out


def np_scatter_nd(d, idx, u, red):
    out = d.copy()
    k = idx.shape[-1]
    for pos in np.ndindex(idx.shape[:-1]):
        t = tuple(int(v) for v in idx[pos])
        if red == "update":
            out[t] = u[pos]
        elif red == "add":
            out[t] = out[t] + u[pos]
        elif red == "mul":
            out[t] = out[t] * u[pos]
        elif red == "max":
            out[t] = np.maximum(out[t], u[pos])
        elif red == "min":
            out[t] = np.minimum(out[t], u[pos])
    del k
    return out


def np_gather_nd(d, idx, bd=0):
    if bd == 0:
        return d[tuple(np.moveaxis(idx.astype(np.int64), -1, 0))]
    outs = [np_gather_nd(d[b], idx[b], bd - 1) for b in range(d.shape[0])]
    return np.stack(outs)


def np_pool(x, ks, st, pad, dil, ceil, cip, avg, layout="NCHW"):
    if layout == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    outs = []
    for i in range(2):
        size = (h, w)[i]
        num = size + pad[i] + pad[i + 2] - dil[i] * (ks[i] - 1) - 1
        if ceil:
            num += st[i] - 1
        o = num // st[i] + 1
        if ceil and (o - 1) * st[i] >= size + pad[i]:
            o -= 1
        outs.append(o)
    oh, ow = outs
    y = np.zeros((n, c, oh, ow))
    for a in range(oh):
        for b in range(ow):
            vals, cnt = [], 0
            for p in range(ks[0]):
                for q in range(ks[1]):
                    hi = a * st[0] - pad[0] + p * dil[0]
                    wi = b * st[1] - pad[1] + q * dil[1]
                    inside_pad = -pad[0] <= hi < h + pad[2] and -pad[1] <= wi < w + pad[3]
                    if 0 <= hi < h and 0 <= wi < w:
                        vals.append(x[:, :, hi, wi])
                        cnt += 1
                    elif cip and inside_pad:
                        cnt += 1
            if avg:
                y[:, :, a, b] = np.sum(vals, axis=0) / max(cnt, 1) if vals else 0
            else:
                y[:, :, a, b] = np.max(vals, axis=0) if vals else -np.inf
    if layout == "NHWC":
        y = np.transpose(y, (0, 2, 3, 1))
    return y


def np_adaptive(x, osz):
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    oh, ow = osz
    y = np.zeros((n, c, oh, ow))
    for a in range(oh):
        h0, h1 = (a * h) // oh, -((-(a + 1) * h) // oh)
        for b in range(ow):
            w0, w1 = (b * w) // ow, -((-(b + 1) * w) // ow)
            y[:, :, a, b] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return y


def np_conv_nd(x, w, stride, pad, dil, groups):
    """Grouped N-d convolution (NC... data, OI... weight) in float64."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nsp = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pad[i], pad[i + nsp]) for i in range(nsp)])
    co, cig = w.shape[:2]
    ks = w.shape[2:]
    osz = [(x.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    y = np.zeros((x.shape[0], co) + tuple(osz))
    cog = co // groups
    for g in range(groups):
        xs = x[:, g * cig:(g + 1) * cig]
        ws = w[g * cog:(g + 1) * cog]
        for kpos in np.ndindex(*ks):
            sl = tuple(slice(kpos[i] * dil[i], kpos[i] * dil[i] + stride[i] * (osz[i] - 1) + 1,
                             stride[i]) for i in range(nsp))
            patch = xs[(slice(None), slice(None)) + sl]
            y[:, g * cog:(g + 1) * cog] += np.einsum("nc...,oc->no...", patch,
                                                     ws[(slice(None), slice(None)) + kpos])
    return y


def np_conv2d_transpose(x, w, stride, pad, opad, dil, groups):
    """Transposed conv, IOHW weight: scatter of each input pixel."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, ci, h, wd = x.shape
    _, cog, kh, kw = w.shape
    oh = (h - 1) * stride[0] - pad[0] - pad[2] + dil[0] * (kh - 1) + opad[0] + 1
    ow = (wd - 1) * stride[1] - pad[1] - pad[3] + dil[1] * (kw - 1) + opad[1] + 1
    full = np.zeros((n, cog * groups, oh + pad[0] + pad[2] + kh * dil[0], ow + pad[1] + pad[3] + kw * dil[1]))
    cig = ci // groups
    for g in range(groups):
        for i in range(h):
            for j in range(wd):
                for p in range(kh):
                    for q in range(kw):
                        full[:, g * cog:(g + 1) * cog, i * stride[0] + p * dil[0], j * stride[1] + q * dil[1]] += \
                            np.einsum("nc,co->no", x[:, g * cig:(g + 1) * cig, i, j], w[g * cig:(g + 1) * cig, :, p, q])
    return full[:, :, pad[0]:pad[0] + oh, pad[1]:pad[1] + ow]


def np_attention(q, k, v, bias=None, scale=None, causal=None):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    hq, hk = q.shape[2], k.shape[2]
    k = np.repeat(k, hq // hk, axis=2)
    v = np.repeat(v, hq // hk, axis=2)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) * (scale if scale is not None else 1 / math.sqrt(q.shape[3]))
    if bias is not None:
        s = s + bias
    sq, sk = s.shape[2], s.shape[3]
    if causal:
        off = 0 if causal == "TopLeft" else sk - sq
        mask = np.tril(np.ones((sq, sk), bool), off)
        s = np.where(mask, s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    p = e / e.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bkhd->bqhd", p, v)


def np_norm_channel(x, g, b, ca, axes, groups, eps=1e-5):
    x = x.astype(np.float64)
    shp = [1] * x.ndim
    shp[ca] = x.shape[ca]
    if groups:
        c = x.shape[ca]
        xs = np.moveaxis(x, ca, 1)
        s = xs.shape
        xg = xs.reshape((s[0], groups, c // groups) + s[2:])
        ax = tuple(range(2, xg.ndim))
        y = (xg - xg.mean(axis=ax, keepdims=True)) / np.sqrt(xg.var(axis=ax, keepdims=True) + eps)
        y = np.moveaxis(y.reshape(s), 1, ca)
    else:
        ax = tuple(a % x.ndim for a in axes)
        y = (x - x.mean(axis=ax, keepdims=True)) / np.sqrt(x.var(axis=ax, keepdims=True) + eps)
    return y * g.reshape(shp) + b.reshape(shp)


def np_batch_norm(x, g, b, mm, mv, axis, eps, training, momentum=0.1):
    x = x.astype(np.float64)
    shp = [1] * x.ndim
    shp[axis] = x.shape[axis]
    if training:
        ax = tuple(i for i in range(x.ndim) if i != axis)
        mean, var = x.mean(axis=ax), x.var(axis=ax)
    else:
        mean, var = mm, mv
    y = (x - mean.reshape(shp)) / np.sqrt(var.reshape(shp) + eps) * g.reshape(shp) + b.reshape(shp)
    if training:
        return (y, (1 - momentum) * mm + momentum * mean, (1 - momentum) * mv + momentum * var)
    return (y, mm, mv)


def np_argsort(x, axis, desc):
    """Stable positions; descending: NaN first, then the numbers from the
    largest, equal ones (0 and -0 among them) in their order."""
    if x.dtype == np.bool_:
        x = x.astype(np.int8)
    if not desc:
        return np.argsort(x, axis=axis, kind="stable")
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        neg = -np.where(nan, 0, x.astype(np.float64))
        x2 = np.moveaxis(neg, axis, -1)
        n2 = np.moveaxis(~nan, axis, -1)
        order = np.empty(x2.shape, dtype=np.int64)
        for i in np.ndindex(x2.shape[:-1]):
            order[i] = np.lexsort((x2[i], n2[i]))
        return np.moveaxis(order, -1, axis)
    return np.argsort(-x.astype(np.int64), axis=axis, kind="stable")


def np_topk(x, k, axis, ret, largest, dt):
    """NaN counts as the largest (as PyTorch's topk; rlx's descending sort)."""
    order = np_argsort(x, axis, largest)
    n = x.shape[axis]
    kk = n if k < 1 else min(k, n)
    idx = np.take(order, np.arange(kk), axis=axis)
    vals = np.take_along_axis(x, idx, axis=axis)
    idx = idx.astype(dt)
    return {"both": (vals, idx), "values": vals, "indices": idx}[ret]


def np_quantize(x, s, z, axis, dt):
    info = np.iinfo(dt)
    shp = [1] * x.ndim
    if s.ndim and s.size > 1:
        shp[axis] = s.size
    q = np.round(x.astype(np.float64) / s.reshape(shp if s.size > 1 else [1] * x.ndim)) + \
        z.astype(np.float64).reshape(shp if z.size > 1 else [1] * x.ndim)
    return np.clip(q, info.min, info.max).astype(dt)


def np_dequantize(x, s, z, axis):
    shp = [1] * x.ndim
    if s.size > 1:
        shp[axis] = s.size
    return (x.astype(np.float64) - z.astype(np.float64).reshape(shp if z.size > 1 else [1] * x.ndim)) * \
        s.astype(np.float64).reshape(shp if s.size > 1 else [1] * x.ndim)


def softplus(x, beta=1.0, threshold=20.0):
    x = x.astype(np.float64)
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def np_layout_transform(x, f, shape, pad):
    """out[f(i)] = x[i] for every index i of x, pad elsewhere (TVM's
    layout_transform: f one-to-one, the output possibly larger)."""
    out = np.full(shape, pad, dtype=x.dtype)
    for i in np.ndindex(x.shape):
        out[f(*i)] = x[i]
    return out


def more_cases(op):
    """The cases of the operators of issue 11."""
    ALL = FLOATS + INTS
    simple = {"square": (np.square, ALL, "n"), "tan": (np.tan, FLOATS, "unit"),
              "sinh": (np.sinh, FLOATS, "n"), "cosh": (np.cosh, FLOATS, "n"),
              "asin": (np.arcsin, FLOATS, "unit"), "acos": (np.arccos, FLOATS, "unit"),
              "atan": (np.arctan, FLOATS, "n"), "asinh": (np.arcsinh, FLOATS, "n"),
              "acosh": (np.arccosh, FLOATS, "ge1"), "atanh": (np.arctanh, FLOATS, "unit"),
              "trunc": (np.trunc, FLOATS + ["int32", "int8"], "half"),
              "bitwise_not": (np.invert, INTS + ["int16", "bool"], "n"),
              "nn.leakyrelu": (lambda x: np.where(x > 0, x, x * 0.01), FLOATS, "n"),
              "nn.softplus": (softplus, FLOATS, "n")}
    if op in simple:
        f, dts, kind = simple[op]
        cs = unary(op, f, dts, kind)
        if op in ("square", "tan", "sinh", "cosh", "atan", "asinh", "trunc"):
            cs += unary(op, f, ["float32", "float16", "float64"], "inf", shapes=[(11,)])
        if op == "nn.leakyrelu":
            cs += [Case("%s alpha=0.2" % dt, [(dt, (3, 17), "n")], "R.nn.leakyrelu({0}, alpha=0.2)",
                        lambda x: np.where(x > 0, x, x * 0.2), dt) for dt in F3]
        if op == "nn.softplus":
            cs += [Case("%s beta=2 threshold=3" % dt, [(dt, (3, 17), "n")],
                        "R.nn.softplus({0}, beta=2.0, threshold=3.0)",
                        lambda x: softplus(x, 2.0, 3.0), dt) for dt in F3]
        return cs
    if op in ("isnan", "isinf", "isfinite"):
        f = getattr(np, op)
        return unary(op, f, FLOATS, "inf", out="bool") + \
            unary(op, f, ["int32", "int8"], "n", shapes=[(5,), ()], out="bool")
    if op == "mod":
        return binary(op, lambda a, b: np.fmod(a, b), FLOATS + ["int32", "int64", "int8"], kind=("n", "nz"))
    if op == "floor_mod":
        return binary(op, lambda a, b: np.mod(a, b), FLOATS + ["int32", "int64", "int8", "uint8"],
                      kind=("n", "nz"))
    if op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        f = getattr(np, op)
        return binary(op, f, INTS + ["int16", "bool"])
    if op in ("left_shift", "right_shift"):
        # counts within the narrowest type's width (tests/e2e/run_dtypes.py
        # takes the counts past it); a signed right shift keeps the sign
        f = getattr(np, op)
        return binary(op, f, INTS + ["int16", "uint16", "uint32", "uint64"],
                      kind=("n", "idx8"))
    if op == "ewise_fma":
        cs = []
        for dt in FLOATS + ["int32", "int64"]:
            for s in [(2, 3), (17,), (0, 4), (), ("n", 33)]:
                cs.append(Case("%s %s" % (dt, s), [(dt, s, "n")] * 3, "R.ewise_fma({0}, {1}, {2})",
                               lambda a, b, c: a.astype(np.float64) * b + c if a.dtype.kind == "f"
                               else a * b + c, dt))
        return cs
    if op == "nn.prelu":
        cs = []
        for dt in FLOATS:
            for sx, sa, ax in [((2, 3, 4), (3,), 1), ((5, 7), (7,), -1), ((2, 3, 4), (1,), 1),
                               ((0, 3), (3,), 1), (("n", 4), (4,), 1)]:
                def ref(x, a, ax=ax):
                    shp = [1] * x.ndim
                    shp[ax] = a.size
                    return np.where(x > 0, x, x * a.reshape(shp))
                cs.append(Case("%s %s alpha %s axis=%d" % (dt, sx, sa, ax), [(dt, sx, "n"), (dt, sa, "n")],
                               "R.nn.prelu({0}, {1}, axis=%d)" % ax, ref, dt))
        return cs
    if op in ("tril", "triu"):
        f = getattr(np, op)
        cs = []
        for dt in F3 + ["float64", "int32", "int8", "bool"]:
            for s, k in [((4, 5), 0), ((4, 5), 1), ((4, 5), -2), ((2, 3, 3), 0), ((0, 4), 0),
                         ((3, 33), 7), (("n", "n"), -1), ((1, 1), 5)]:
                cs.append(Case("%s %s k=%d" % (dt, s, k), [(dt, s, "n")], "R.%s({0}, %d)" % (op, k),
                               lambda x, k=k, f=f: f(x, k), dt))
        # k known only at run time: an R.Prim input, a symbolic value
        for dt in ["float32", "float16", "bfloat16", "int32", "bool"]:
            for s, k in [((4, 5), 1), ((4, 5), -2), ((2, 3, 3), 0), ((0, 4), 3), ((3, 33), 40),
                         (("n", 7), -1)]:
                cs.append(Case("%s %s k=%d (R.Prim input)" % (dt, s, k), [(dt, s, "n"), ("int64", "prim", k)],
                               "R.%s({0}, {1})" % op, lambda x, kk, f=f: f(x, int(kk)), dt))
            # n is 5 at run time: k = n - 7 = -2, k = 3 - n = -2 of a (n, n)
            cs.append(Case("%s (n, 9) k=n-7" % dt, [(dt, ("n", 9), "n")], "R.%s({0}, R.prim_value(n - 7))" % op,
                           lambda x, f=f: f(x, -2), dt))
            cs.append(Case("%s (n, n) k=n-3" % dt, [(dt, ("n", "n"), "n")], "R.%s({0}, R.prim_value(n - 3))" % op,
                           lambda x, f=f: f(x, 2), dt))
        return cs
    if op == "eye":
        return [Case("%s %s" % (dt, a), [], 'R.eye(%s, dtype="%s")' % (a, dt),
                     lambda a=a, dt=dt: np.eye(*[int(v.split("=")[-1]) for v in a.split(", ")][:2],
                                                k=int(a.split("k=")[1]) if "k=" in a else 0), dt)
                for dt in ["float32", "float16", "int32", "bool"]
                for a in ["3", "3, 5, k=1", "4, 2, k=-1", "0", "5, 5, k=9"]] + \
            [Case("%s 3, 5, k=%d (R.Prim input)" % (dt, k), [("int64", "prim", k)],
                  'R.eye(3, 5, {0}, dtype="%s")' % dt, lambda kk: np.eye(3, 5, k=int(kk)), dt)
             for dt in ["float32", "float16", "bfloat16", "int32", "bool"] for k in [0, 2, -1, 7]]
    if op == "one_hot":
        cs = []
        for dt, on, off in [("float32", "T.float32(1.0)", "T.float32(0.0)"),
                            ("int32", "T.int32(7)", "T.int32(-1)"), ("int64", "1", "0")]:
            onv, offv = [float(v.split("(")[-1].rstrip(")")) for v in (on, off)]
            for si, depth, ax in [((3,), 5, -1), ((2, 3), 4, 0), ((2, 3), 4, 1), ((0,), 3, -1), ((), 6, -1)]:
                cs.append(Case("%s %s depth=%d axis=%d" % (dt, si, depth, ax), [("int64", si, "sidx%d" % depth)],
                               "R.one_hot({0}, R.prim_value(%s), R.prim_value(%s), depth=%d, axis=%d)"
                               % (on, off, depth, ax),
                               lambda i, depth=depth, ax=ax, onv=onv, offv=offv:
                               np.moveaxis(np.where(i[..., None] == np.arange(depth), onv, offv), -1, ax), dt))
        return cs
    if op in ("variance", "std"):
        f = np.var if op == "variance" else np.std
        cs = []
        for dt in F3 + ["float64"]:
            for s, ax, kd in [((3, 17), None, False), ((3, 17), [1], False), ((2, 3, 5), [0, 2], True),
                              ((4, 1), [0], False), (("n", 6), [0], True), ((1, 33), [1], False)]:
                call = "R.%s({0}%s, keepdims=%s)" % (op, "" if ax is None else ", axis=%s" % ax, kd)
                cs.append(Case("%s %s axis=%s keepdims=%s" % (dt, s, ax, kd), [(dt, s, "n")], call,
                               lambda x, ax=ax, kd=kd, f=f: f(x.astype(np.float64),
                                                              axis=None if ax is None else tuple(ax),
                                                              keepdims=kd), dt, red=True))
        return cs
    if op in ("cumsum", "cumprod"):
        f = np.cumsum if op == "cumsum" else np.cumprod
        cs = []
        for dt in F3 + ["float64", "int32", "int64"]:
            kind = "small" if dt.startswith("int") and op == "cumprod" else \
                ("pos" if op == "cumprod" else "n")
            for s, ax, ex, odt in [((3, 17), 1, False, None), ((3, 17), 0, False, None),
                                   ((2, 3, 4), None, False, None), ((4, 5), -1, True, None),
                                   ((0, 3), 1, False, None), (("n", 7), 1, False, None),
                                   ((5,), 0, False, "float64" if dt in FLOATS else "int64")]:
                def ref(x, ax=ax, ex=ex, f=f, odt=odt):
                    x = x.astype(np.float64) if x.dtype.kind == "f" else x.astype(odt or x.dtype)
                    if ax is None:
                        x, ax = x.reshape(-1), 0
                    r = f(x, axis=ax)
                    if ex:
                        ident = np.zeros_like if op == "cumsum" else np.ones_like
                        r = np.concatenate([ident(np.take(r, [0], axis=ax)),
                                            np.delete(r, -1, axis=ax)], axis=ax)
                    return r
                call = "R.%s({0}%s%s%s)" % (op, "" if ax is None else ", axis=%d" % ax,
                                            ', dtype="%s"' % odt if odt else "",
                                            ", exclusive=True" if ex else "")
                cs.append(Case("%s %s axis=%s exclusive=%s dtype=%s" % (dt, s, ax, ex, odt),
                               [(dt, s, kind)], call, ref, odt or dt, red=True))
        return cs
    if op in ("sort", "argsort"):
        cs = []
        for dt in FLOATS + ["int32", "int64", "int8", "uint8"]:
            for s, ax, desc in [((3, 17), -1, False), ((3, 17), 0, True), ((2, 5, 4), 1, False),
                                ((0, 4), 1, False), (("n", 33), 1, True), ((1,), 0, False)]:
                if op == "sort":
                    ref = (lambda x, ax=ax, desc=desc: np.flip(np.sort(x, axis=ax), axis=ax) if desc
                           else np.sort(x, axis=ax))
                    call, out = "R.sort({0}, axis=%d, descending=%s)" % (ax, desc), dt
                else:
                    ref = (lambda x, ax=ax, desc=desc: np.argsort(-x.astype(np.float64) if desc else x,
                                                                  axis=ax, kind="stable"))
                    call, out = 'R.argsort({0}, axis=%d, descending=%s, dtype="int64")' % (ax, desc), "int64"
                cs.append(Case("%s %s axis=%d descending=%s" % (dt, s, ax, desc), [(dt, s, "perm")],
                               call, ref, out))
        # rows long enough for the radix sort, ties (stable positions),
        # NaN, +-inf and -0 (NaN last ascending, first descending)
        for dt in FLOATS + ["int32", "int64", "int8", "uint8", "bool"]:
            kinds = ["n"] + (["inf"] if dt in FLOATS else [])
            for kind in kinds:
                for s, ax, desc in [((3, 1000), -1, False), ((3, 1000), 1, True), ((700, 2), 0, False),
                                    ((2, 300, 2), 1, True), (("n", 129), 1, False)]:
                    if dt == "bool" and kind != "n":
                        continue
                    if op == "sort":
                        ref = (lambda x, ax=ax, desc=desc: np.flip(np.sort(x, axis=ax), axis=ax) if desc
                               else np.sort(x, axis=ax))
                        call, out = "R.sort({0}, axis=%d, descending=%s)" % (ax, desc), dt
                    else:
                        ref = lambda x, ax=ax, desc=desc: np_argsort(x, ax, desc)
                        call, out = 'R.argsort({0}, axis=%d, descending=%s, dtype="int32")' % (ax, desc), "int32"
                    cs.append(Case("%s %s %s axis=%d descending=%s" % (dt, kind, s, ax, desc),
                                   [(dt, s, kind)], call, ref, out))
        # a row long enough to go by its top bits into buckets first
        for dt, kind in [("float32", "n"), ("float32", "inf"), ("int32", "n"), ("float64", "n"),
                         ("float16", "n")]:
            for desc in (False, True):
                s = (1, 70000)
                if op == "sort":
                    ref = (lambda x, desc=desc: np.flip(np.sort(x, axis=1), axis=1) if desc else np.sort(x, axis=1))
                    call, out = "R.sort({0}, axis=1, descending=%s)" % desc, dt
                else:
                    ref = lambda x, desc=desc: np_argsort(x, 1, desc)
                    call, out = 'R.argsort({0}, axis=1, descending=%s, dtype="int64")' % desc, "int64"
                cs.append(Case("%s %s %s descending=%s" % (dt, kind, s, desc), [(dt, s, kind)], call, ref, out))
        return cs
    if op == "topk":
        cs = []
        for dt in ["float32", "float16", "bfloat16", "int32", "int8"]:
            for s, k, ax, ret, lg in [((3, 17), 3, -1, "both", True), ((3, 17), 2, 0, "values", False),
                                      ((2, 5, 4), 1, 1, "indices", True), ((4, 6), 0, 1, "both", True),
                                      ((4, 6), 9, 1, "both", False), (("n", 9), 4, 1, "values", True)]:
                call = 'R.topk({0}, k=%d, axis=%d, ret_type="%s", largest=%s, dtype="int32")' % (k, ax, ret, lg)
                out = "int32" if ret == "indices" else (dt, "int32") if ret == "both" else dt
                cs.append(Case("%s %s k=%d axis=%d %s largest=%s" % (dt, s, k, ax, ret, lg), [(dt, s, "perm")],
                               call, lambda x, k=k, ax=ax, ret=ret, lg=lg: np_topk(x, k, ax, ret, lg, np.int32),
                               out))
        # long rows with ties: the first of equal elements first
        for dt in ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8"]:
            # the last rows are long enough that topk selects before it sorts
            for s, k, ax, ret, lg in [((3, 1000), 10, -1, "both", True), ((3, 1000), 5, 1, "both", False),
                                      ((500, 2), 7, 0, "indices", True), ((2, 5000), 7, 1, "both", True),
                                      ((2, 5000), 100, 1, "values", False), ((3000, 2), 3, 0, "both", False)]:
                call = 'R.topk({0}, k=%d, axis=%d, ret_type="%s", largest=%s, dtype="int64")' % (k, ax, ret, lg)
                out = "int64" if ret == "indices" else (dt, "int64") if ret == "both" else dt
                for kind in (["grid", "n", "inf"] if dt in FLOATS and s[0] == 2 else
                             ["grid" if dt in FLOATS else "n"]):
                    cs.append(Case("%s %s %s k=%d axis=%d %s largest=%s ties" % (dt, kind, s, k, ax, ret, lg),
                                   [(dt, s, kind)], call,
                                   lambda x, k=k, ax=ax, ret=ret, lg=lg: np_topk(x, k, ax, ret, lg, np.int64),
                                   out))
        return cs
    if op == "layout_transform":
        maps = [("lambda i, j: (j, i)", [((3, 5), (5, 3)), ((0, 4), (4, 0)), ((1, 1), (1, 1)),
                                         (("n", 7), (7, 5))]),
                ("lambda i: (i // 4, i % 4)", [((8,), (2, 4)), ((6,), (2, 4)), ((1,), (1, 1)),
                                               (("n",), (2, 4)), ((0,), (0, 0))]),
                ("lambda n, c, h, w: (n, c // 4, h, w, c % 4)", [((2, 8, 3, 5), (2, 2, 3, 5, 4)),
                                                                 ((1, 6, 2, 3), (1, 2, 2, 3, 4))]),
                ("lambda a, b, h, w, c4: (a, b * 4 + c4, h, w)", [((1, 2, 2, 3, 4), (1, 8, 2, 3))]),
                ("lambda i, j: (i * 5 + j,)", [((3, 5), (15,))]),
                ("lambda i, j: (2 * i, j)", [((3, 4), (5, 4))]),
                ("lambda a, b, c: (c, a, b // 2, b % 2)", [((2, 5, 3), (3, 2, 3, 2))]),
                ("lambda i, j: (j // 2, i * 2 + j % 2)", [(("n", 6), (3, 10))])]
        cs = []
        for dt in F3 + ["float64", "int32", "int64", "int8", "uint8", "bool"]:
            pad = {"bool": "1", "uint8": "7", "int8": "-7", "int32": "7", "int64": "7"}.get(dt, "1.5")
            for m, shapes in maps:
                f = eval(m)
                for s, so in shapes:
                    # some cases pad with pad_value, the others with the default 0
                    given = len(cs) % 2 == 0
                    call = "R.layout_transform({0}, index_map=%s%s)" % (
                        m, ", pad_value=%s" % pad if given else "")
                    pv = float(pad) if given else 0.0
                    cs.append(Case("%s %s %s pad=%s" % (dt, s, m, pv if given else None), [(dt, s, "n")],
                                   call, lambda x, f=f, so=so, pv=pv: np_layout_transform(x, f, so, pv), dt))
        return cs
    if op == "tile":
        return [Case("%s %s %s" % (dt, s, r), [(dt, s, "n")], "R.tile({0}, %s)" % (list(r),),
                     lambda x, r=r: np.tile(x, r), dt)
                for dt in ["float32", "float16", "int32", "bool"]
                for s, r in [((2, 3), (2, 3)), ((3,), (2, 1, 2)), ((2, 3, 4), (2,)), ((0, 2), (3, 1)),
                             ((), (4,)), (("n", 5), (1, 2))]]
    if op == "repeat":
        return [Case("%s %s %d axis=%s" % (dt, s, r, ax), [(dt, s, "n")],
                     "R.repeat({0}, %d%s)" % (r, "" if ax is None else ", axis=%d" % ax),
                     lambda x, r=r, ax=ax: np.repeat(x, r, axis=ax), dt)
                for dt in ["float32", "int8", "bool"]
                for s, r, ax in [((2, 3), 2, 1), ((2, 3), 3, 0), ((2, 3), 2, None), ((4,), 0, 0),
                                 (("n", 3), 2, -1)]]
    if op == "flip":
        return [Case("%s %s axis=%d" % (dt, s, ax), [(dt, s, "n")], "R.flip({0}, axis=%d)" % ax,
                     lambda x, ax=ax: np.flip(x, ax), dt)
                for dt in ["float32", "float16", "int64", "bool"]
                for s, ax in [((3, 5), 0), ((3, 5), -1), ((2, 3, 33), 2), ((0, 3), 0), (("n",), 0)]]
    if op == "stack":
        cs = []
        for dt in ["float32", "bfloat16", "int32", "bool"]:
            for ss, ax in [([(2, 3)] * 3, 0), ([(2, 3)] * 2, 1), ([(2, 3)] * 2, -1), ([(4,)], 0),
                           ([(0, 2)] * 2, 1), ([()] * 3, 0)]:
                names = ", ".join("{%d}" % i for i in range(len(ss)))
                cs.append(Case("%s %d x %s axis=%d" % (dt, len(ss), ss[0], ax), [(dt, s, "n") for s in ss],
                               "R.stack((%s,), axis=%d)" % (names, ax),
                               lambda *xs, ax=ax: np.stack(xs, axis=ax), dt))
        return cs
    if op == "nn.pad":
        cs = []
        for dt in ["float32", "float16", "int32"]:
            for s, pw, mode, val in [((2, 3), [1, 1, 2, 0], "constant", 0.0), ((2, 3), [0, 2, 1, 1], "constant", 1.5),
                                     ((3, 4), [2, 1, 1, 2], "edge", 0.0), ((3, 4), [2, 1, 1, 2], "reflect", 0.0),
                                     ((1, 2, 3, 3), [0, 0, 0, 0, 1, 1, 1, 1], "constant", -2.0),
                                     ((0, 2), [1, 0, 0, 1], "constant", 3.0),
                                     ((3, 4), [2, 1, 1, 2], "replicate", 0.0),
                                     ((2, 3), [1, 2, 2, 3], "circular", 0.0)]:
                if mode == "reflect" and 0 in s:
                    continue
                v = int(val) if dt.startswith("int") else val
                ref = (lambda x, pw=pw, mode=mode, v=v: np.pad(
                    x, [(pw[2 * i], pw[2 * i + 1]) for i in range(x.ndim)],
                    mode={"replicate": "edge", "circular": "wrap"}.get(mode, mode),
                    **({"constant_values": v} if mode == "constant" else {})))
                cs.append(Case("%s %s %s %s %s" % (dt, s, pw, mode, val), [(dt, s, "n")],
                               'R.nn.pad({0}, pad_width=%s, pad_mode="%s", pad_value=%s)' % (pw, mode, val),
                               ref, dt))
        return cs
    if op == "gather_elements":
        cs = []
        for dt in ["float32", "float16", "int32"]:
            for sx, si, ax, idt in [((3, 4), (3, 2), 1, "int64"), ((3, 4), (2, 4), 0, "int32"),
                                    ((2, 3, 4), (2, 3, 5), 2, "int64"), ((3, 4), (0, 4), 0, "int64")]:
                cs.append(Case("%s %s %s axis=%d" % (dt, sx, si, ax), [(dt, sx, "n"), (idt, si, "sidx%d" % sx[ax])],
                               "R.gather_elements({0}, {1}, axis=%d)" % ax,
                               lambda x, i, ax=ax: np.take_along_axis(x, np.where(i < 0, i + x.shape[ax], i).astype(np.int64), ax), dt))
        return cs
    if op == "gather_nd":
        cs = []
        for dt in ["float32", "int8"]:
            for sx, si, bd in [((3, 4), (5, 2), 0), ((3, 4, 2), (2, 1), 0), ((2, 3, 4), (2, 5, 1), 1),
                               ((3, 4), (0, 2), 0)]:
                n = min(sx[bd:bd + si[-1]]) if si[-1] else 1
                cs.append(Case("%s %s %s batch_dims=%d" % (dt, sx, si, bd), [(dt, sx, "n"), ("int64", si, "idx%d" % n)],
                               "R.gather_nd({0}, {1}, batch_dims=%d)" % bd,
                               lambda x, i, bd=bd: np_gather_nd(x, i, bd), dt))
        return cs
    if op == "scatter_elements":
        cs = []
        for dt in ["float32", "float16", "int32"]:
            for sx, si, ax, red in [((4, 5), (2, 5), 0, "update"), ((4, 5), (4, 3), 1, "add"),
                                    ((4, 5), (3, 5), 0, "mul"), ((3, 4), (3, 2), 1, "max"),
                                    ((3, 4), (3, 2), 1, "min"), ((3, 4), (0, 4), 0, "add"),
                                    ((4, 5), (6, 5), 0, "mean")]:
                kind = "perm" if red == "update" else "sidx%d" % sx[ax]
                cs.append(Case("%s %s %s axis=%d %s" % (dt, sx, si, ax, red),
                               [(dt, sx, "n"), ("int64", si, "idx%d" % sx[ax] if red != "update" else "perm"),
                                (dt, si, "small" if dt == "int32" else "n")],
                               'R.scatter_elements({0}, {1}, {2}, axis=%d, reduction="%s")' % (ax, red),
                               lambda d, i, u, ax=ax, red=red: np_scatter_elements(d, i, u, ax, red), dt))
                del kind
        return [c for c in cs if not (c.inputs[1][2] == "perm")] + \
            [Case("%s update unique" % dt, [(dt, (4, 5), "n"), ("int64", (1, 5), "idx4"), (dt, (1, 5), "n")],
                  'R.scatter_elements({0}, {1}, {2}, axis=0, reduction="update")',
                  lambda d, i, u: np_scatter_elements(d, i, u, 0, "update"), dt)
             for dt in ["float32", "float16", "int32"]]
    if op == "scatter_nd":
        cs = []
        for dt in ["float32", "int32"]:
            for sx, si, su, red in [((4, 5), (3, 2), (3,), "add"), ((4, 5), (2, 1), (2, 5), "add"),
                                    ((4, 5), (3, 2), (3,), "mul"), ((4, 5), (3, 2), (3,), "max"),
                                    ((4, 5), (1, 2), (1,), "update"), ((4, 5), (0, 2), (0,), "add")]:
                cs.append(Case("%s %s %s %s" % (dt, sx, si, red),
                               [(dt, sx, "n"), ("int64", si, "idx4"), (dt, su, "small" if dt == "int32" else "n")],
                               'R.scatter_nd({0}, {1}, {2}, reduction="%s")' % red,
                               lambda d, i, u, red=red: np_scatter_nd(d, i, u, red), dt))
        return cs
    if op == "dynamic_strided_slice":
        cs = []
        for dt in ["float32", "int32"]:
            for s, b, e, st in [((10,), [1], [8], [2]), ((5, 6), [0, -1], [5, -10], [1, -1]),
                                ((5, 6), [1, 2], [4, 100], [1, 1]), ((4,), [3], [1], [1])]:
                cs.append(Case("%s %s %s:%s:%s" % (dt, s, b, e, st), [(dt, s, "n")],
                               "R.dynamic_strided_slice({0}, R.const(%s, \"int64\"), R.const(%s, \"int64\"), "
                               "R.const(%s, \"int64\"))" % (b, e, st),
                               lambda x, b=b, e=e, st=st: x[tuple(slice(*t) for t in zip(b, e, st))], dt))
        return cs
    if op == "shape_of":
        return [Case("%s %s" % (dt, s), [(dt, s, "n")], "R.shape_to_tensor(R.shape_of({0}))",
                     lambda x: np.array(x.shape, np.int64), "int64")
                for dt in ["float32", "int8"] for s in [(2, 3), (), ("n", 4)]]
    if op == "shape_to_tensor":
        return [Case("%s" % (s,), [], "R.shape_to_tensor(R.shape(%s))" % (list(s),),
                     lambda s=s: np.array(s, np.int64), "int64") for s in [(2, 3), (7,), ()]]
    if op == "nn.batch_norm":
        cs = []
        for dt in F3 + ["float64"]:
            for s, ax, tr in [((2, 3, 4, 4), 1, False), ((2, 3, 4, 4), 1, True), ((5, 4), 1, False),
                              ((5, 4), -1, True), ((2, 3, 5), 2, False)]:
                c = s[ax]
                cs.append(Case("%s %s axis=%d training=%s" % (dt, s, ax, tr),
                               [(dt, s, "n"), (dt, (c,), "n"), (dt, (c,), "n"), (dt, (c,), "n"), (dt, (c,), "pos")],
                               "R.nn.batch_norm({0}, {1}, {2}, {3}, {4}, axis=%d, epsilon=1e-05, training=%s)" % (ax, tr),
                               lambda x, g, b, m, v, ax=ax, tr=tr: np_batch_norm(x, g, b, m, v, ax % x.ndim, 1e-5, tr),
                               dt, red=True))
        return cs
    if op in ("nn.group_norm", "nn.instance_norm"):
        cs = []
        for dt in F3 + ["float64"]:
            for s, ca, axes, ng in [((2, 4, 3, 3), 1, [2, 3], 2), ((2, 6, 5), 1, [2], 3), ((1, 4, 7), 1, [2], 1),
                                    ((2, 3, 3, 4), 3, [1, 2], 4)]:
                if op == "nn.instance_norm":
                    ng = None
                elif s[ca] % ng:
                    continue
                c = s[ca]
                attrs = ("num_groups=%d, channel_axis=%d, axes=%s" % (ng, ca, axes) if ng
                         else "channel_axis=%d, axes=%s" % (ca, axes))
                cs.append(Case("%s %s %s" % (dt, s, attrs), [(dt, s, "n"), (dt, (c,), "n"), (dt, (c,), "n")],
                               "R.%s({0}, {1}, {2}, %s, epsilon=1e-05)" % (op, attrs),
                               lambda x, g, b, ca=ca, axes=axes, ng=ng: np_norm_channel(x, g, b, ca, axes, ng),
                               dt, red=True))
        return cs
    if op in ("nn.max_pool2d", "nn.avg_pool2d"):
        avg = op == "nn.avg_pool2d"
        cs = []
        for dt in F3 + ["float64"] + ([] if avg else ["int32", "int8"]):
            for s, ks, st, pd, dl, ceil, cip, lay in [
                    ((1, 2, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False, False, "NCHW"),
                    ((2, 3, 7, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, False, "NCHW"),
                    ((2, 3, 7, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, True, "NCHW"),
                    ((1, 2, 8, 8), (3, 3), (3, 3), (0, 0, 0, 0), (1, 1), True, False, "NCHW"),
                    ((1, 2, 9, 9), (2, 3), (1, 2), (0, 1, 1, 0), (2, 1), True, True, "NCHW"),
                    ((1, 7, 7, 3), (2, 2), (2, 2), (0, 0, 1, 1), (1, 1), False, False, "NHWC"),
                    ((1, 1, 33, 40), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False, False, "NCHW")]:
                call = ("R.%s({0}, pool_size=%s, strides=%s, padding=%s, dilation=%s, ceil_mode=%s, "
                        'count_include_pad=%s, layout="%s")' % (op, list(ks), list(st), list(pd), list(dl),
                                                                 ceil, cip, lay))
                cs.append(Case("%s %s k=%s s=%s p=%s d=%s ceil=%s cip=%s %s" % (dt, s, ks, st, pd, dl, ceil, cip, lay),
                               [(dt, s, "n")], call,
                               lambda x, ks=ks, st=st, pd=pd, dl=dl, ceil=ceil, cip=cip, lay=lay:
                               np_pool(x, ks, st, pd, dl, ceil, cip, avg, lay), dt))
        return cs
    if op == "nn.adaptive_avg_pool2d":
        return [Case("%s %s -> %s" % (dt, s, o), [(dt, s, "n")],
                     "R.nn.adaptive_avg_pool2d({0}%s)" % ("" if o is None else ", output_size=%s" % list(o)),
                     lambda x, o=o: np_adaptive(x, o or x.shape[2:]), dt)
                for dt in F3 + ["float64"]
                for s, o in [((1, 2, 8, 8), (1, 1)), ((2, 3, 7, 9), (3, 4)), ((1, 2, 5, 5), None),
                             ((1, 1, 4, 6), (8, 3))]]
    if op == "nn.conv1d":
        cs = []
        for dt in ["float32", "float16", "bfloat16", "float64"]:
            for sx, sw, st, pd, dl, gr in [((1, 3, 10), (4, 3, 3), 1, (0, 0), 1, 1),
                                           ((2, 4, 17), (6, 2, 5), 2, (2, 1), 1, 2),
                                           ((1, 2, 9), (3, 2, 3), 1, (1, 1), 2, 1),
                                           ((1, 4, 33), (4, 1, 3), 1, (1, 1), 1, 4)]:
                cs.append(Case("%s %s %s s=%d p=%s d=%d g=%d" % (dt, sx, sw, st, pd, dl, gr),
                               [(dt, sx, "n"), (dt, sw, "n")],
                               "R.nn.conv1d({0}, {1}, strides=%d, padding=%s, dilation=%d, groups=%d)"
                               % (st, list(pd), dl, gr),
                               lambda x, w, st=st, pd=pd, dl=dl, gr=gr: np_conv_nd(x, w, (st,), pd, (dl,), gr),
                               dt, red=True))
        return cs
    if op == "nn.conv2d_transpose":
        cs = []
        for dt in ["float32", "float16", "float64"]:
            for sx, sw, st, pd, op_, dl, gr in [((1, 3, 4, 4), (3, 2, 3, 3), (1, 1), (0, 0, 0, 0), (0, 0), (1, 1), 1),
                                                ((2, 4, 5, 3), (4, 3, 3, 2), (2, 2), (1, 1, 1, 1), (1, 0), (1, 1), 1),
                                                ((1, 4, 4, 4), (4, 1, 3, 3), (2, 1), (0, 1, 1, 0), (0, 0), (1, 2), 2)]:
                cs.append(Case("%s %s %s s=%s p=%s op=%s d=%s g=%d" % (dt, sx, sw, st, pd, op_, dl, gr),
                               [(dt, sx, "n"), (dt, sw, "n")],
                               "R.nn.conv2d_transpose({0}, {1}, strides=%s, padding=%s, output_padding=%s, "
                               "dilation=%s, groups=%d)" % (list(st), list(pd), list(op_), list(dl), gr),
                               lambda x, w, st=st, pd=pd, op_=op_, dl=dl, gr=gr:
                               np_conv2d_transpose(x, w, st, pd, op_, dl, gr), dt, red=True))
        return cs
    if op == "nn.attention":
        cs = []
        for dt in ["float32", "float16", "bfloat16"]:
            for sq, sk, causal, bias, scale in [((1, 5, 2, 8), (1, 5, 2, 8), None, False, None),
                                                ((2, 4, 4, 16), (2, 6, 2, 16), "TopLeft", False, None),
                                                ((1, 3, 2, 8), (1, 7, 2, 8), "BottomRight", False, 0.5),
                                                ((1, 4, 2, 8), (1, 4, 2, 8), None, True, None),
                                                ((1, 33, 1, 32), (1, 33, 1, 32), "TopLeft", False, None)]:
                ins = [(dt, sq, "n"), (dt, sk, "n"), (dt, sk, "n")]
                args = "{0}, {1}, {2}"
                if bias:
                    ins.append((dt, (1, sq[2], sq[1], sk[1]), "n"))
                    args += ", {3}"
                call = "R.nn.attention(%s%s%s)" % (args, "" if scale is None else ", scale=%s" % scale,
                                                  "" if causal is None else ', causal_mask="%s"' % causal)
                cs.append(Case("%s q%s k%s causal=%s bias=%s scale=%s" % (dt, sq, sk, causal, bias, scale), ins,
                               call, lambda q, k, v, b=None, scale=scale, causal=causal:
                               np_attention(q, k, v, b, scale, causal), dt, red=True))
        return cs
    if op == "nn.dropout":
        return [Case("%s %s rate=%s" % (dt, s, r), [(dt, s, "n")], "R.nn.dropout({0}, rate=%s)" % r,
                     lambda x: (x, np.ones_like(x)), dt)
                for dt in ["float32", "float16"] for s, r in [((3, 4), 0.5), ((0,), 0.1)]]
    if op == "einsum":
        cs = []
        for dt in ["float32", "float16", "float64", "int32"]:
            for subs, shapes in [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,kj->ik", [(3, 4), (5, 4)]),
                                 ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii", [(4, 4)]),
                                 ("ij->ji", [(3, 5)]), ("i,j->ij", [(3,), (4,)]), ("ij->", [(3, 4)]),
                                 ("bhqd,bhkd->bhqk", [(1, 2, 3, 8), (1, 2, 5, 8)]),
                                 ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
                                 ("...ij,jk", [(2, 1, 3, 4), (4, 5)]),
                                 ("b...,b...->b", [(2, 3, 4), (2, 1, 4)]),  # summed, as TVM
                                 ("...i,...i", [(3, 1, 4), (2, 4)]), ("i...->...", [(3, 2, 2)])]:
                names = ", ".join("{%d}" % i for i in range(len(shapes)))
                cs.append(Case("%s %s" % (dt, subs), [(dt, s, "n") for s in shapes],
                               'R.einsum((%s,), subscripts="%s")' % (names, subs),
                               # NumPy refuses to sum over ellipsis dims: spelled out
                               lambda *xs, subs=subs.replace("b...,b...->b", "bij,bij->b"):
                               np.einsum(subs, *[x.astype(np.float64) if x.dtype.kind == "f"
                                                                         else x for x in xs]), dt, red=True))
        return cs
    if op == "quantize":
        cs = []
        for dt in ["float32", "float16"]:
            for s, ss, ax, odt in [((2, 3, 4), (3,), 1, "int8"), ((5, 4), (), -1, "uint8"),
                                   ((5, 4), (4,), -1, "int16"), ((0, 3), (3,), 1, "int8")]:
                cs.append(Case("%s %s scale %s axis=%d -> %s" % (dt, s, ss, ax, odt),
                               [(dt, s, "n"), ("float32", ss, "pos"), ("int8" if odt != "uint8" else "uint8", ss, "small")],
                               'R.quantize({0}, {1}, {2}, axis=%d, out_dtype="%s")' % (ax, odt),
                               lambda x, sc, z, ax=ax, odt=odt: np_quantize(x, sc * 0.05, z, ax, odt), odt))
        # the scale inputs are pos (0.1..3.1); multiply by 0.05 in the call too
        for c in cs:
            c.call = c.call.replace("{1}", "R.multiply({1}, R.const(0.05, \"float32\"))")
        return cs
    if op == "dequantize":
        cs = []
        for idt in ["int8", "uint8", "int32"]:
            for s, ss, ax, odt in [((2, 3, 4), (3,), 1, "float32"), ((5, 4), (), -1, "float16"),
                                   ((0, 3), (3,), 1, "float32")]:
                cs.append(Case("%s %s scale %s axis=%d -> %s" % (idt, s, ss, ax, odt),
                               [(idt, s, "n"), ("float32", ss, "pos"), (idt if idt != "int32" else "int32", ss, "small")],
                               'R.dequantize({0}, {1}, {2}, axis=%d, out_dtype="%s")' % (ax, odt),
                               lambda x, sc, z, ax=ax: np_dequantize(x, sc, z, ax), odt))
        return cs
    return None


def op_names():
    """The Python names of the ops in ops.def that rlx computes: all but the
    classes OC_EXTERN, OC_NOKERNEL and OC_IMPURE (read and checked, refused by rlx run:
    tests/golden/cli covers that)."""
    text = open(os.path.join(SRC, "compiler", "ops.def")).read()
    rows = re.findall(r'^OP\(\s*\w+\s*,\s*"([^"]+)".*?\b(OC_\w+)\)', text,
                      re.M | re.S)
    return [n for n, cls in rows if cls not in ("OC_EXTERN", "OC_NOKERNEL", "OC_IMPURE")]


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
            syms |= shape != "prim" and any(isinstance(d, str) for d in shape)
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
        n = len([f for f in os.listdir(path) if f != "fields.json"])
        return tuple(load(os.path.join(path, "%d%s" % (i, "" if os.path.isdir(
            os.path.join(path, str(i))) else ".npy"))) for i in range(n))
    return np.load(path)


def compare(got, want, c):
    """'' when got matches want for case c, else why not."""
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return "expected a tuple of %d" % len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            why = compare(g, w, c.field(i))
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


def prepare(op, cases, tmp):
    """Writes op's module and its inputs; returns (rlx arguments, inputs).
    In op order, on one thread: the random inputs are the same every run."""
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
            if shape == "prim":  # an R.Prim input: kind is its value
                a = np.array(kind, dtype=dt)
            else:
                concrete = tuple(symvals.setdefault(s, 5) if isinstance(s, str) else s for s in shape)
                a = gen(dt, concrete, kind)
            p = os.path.join(d, "c%d_%d.npy" % (k, i))
            np.save(p, a)
            args += ["--input", "c%d_%d=%s" % (k, i, p)]
            arrs.append(a)
        inputs.append(arrs)
    return args + ["-o", os.path.join(d, "out")], inputs


def report(t, op, cases, inputs, result):
    """TAP lines for op's cases from its `rlx run` result."""
    (rc, so, se), out = result
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


def jobs():
    """How many `rlx run` at once: RLX_TEST_JOBS, else one per CPU."""
    n = os.environ.get("RLX_TEST_JOBS")
    return max(1, int(n) if n else (os.cpu_count() or 1))


def main():
    t = Tap()
    only = sys.argv[1:]
    ops = op_names()
    t.ok(len(ops) > 50, "ops.def lists the ops (%d)" % len(ops))
    with tempfile.TemporaryDirectory(prefix="rlx_ops_") as tmp, \
            concurrent.futures.ThreadPoolExecutor(jobs()) as pool:
        # every op's inputs first, then the runs on the pool, reported in
        # op order as they finish
        todo = []
        for op in ops:
            if only and op not in only:
                continue
            cases = cases_for(op)
            if cases is None:
                todo.append((op, None, None, None))
                continue
            args, inputs = prepare(op, cases, tmp)
            todo.append((op, cases, inputs,
                         pool.submit(lambda a: (rlx(*a), a[-1]), args)))
        for op, cases, inputs, run in todo:
            if not t.ok(cases is not None, "%s has test cases" % op):
                continue
            report(t, op, cases, inputs, run.result())
    t.done()


if __name__ == "__main__":
    main()
