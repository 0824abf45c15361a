#!/usr/bin/python3
"""run_tir.py — prim_funcs run through `rlx run` (R.call_tir), NumPy as the
oracle.

The prim_funcs are written here as TVM's LegalizeOps writes them (T.handle
parameters with T.match_buffer over symbolic dims, blocks with their axes,
T.init for reductions, T.where for split loops, T.if_then_else for
padding): elementwise and broadcast, reductions, matmul, predicates,
if_then_else, floordiv/floormod/truncdiv/truncmod on negative values,
casts, round-half-even, Select, lets and branches, scratch buffers (stack
and heap), call_tir_inplace, several outputs, tir_vars and scalar
arguments; in float32, float16, bfloat16, int32 (and others where they
apply), on sizes 0, 1, odd and large (large ones take the thread pool).
Then the entry checks (rank, dtype, dimension, inconsistent symbolic
variable, output annotation against the buffer): each a located error
naming the prim_func, the parameter and both shapes, exit 1. Then indices
outside their buffers (a constant, a loop variable's, over a symbolic
dimension, one loaded from another buffer, an empty buffer): each a
located error, and with --no-index-check a run on clamped indices. Under
ASan (make test) an out-of-bounds access fails the run.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, bf16_to_f32, f32_to_bf16, np, rlx, write_safetensors  # noqa: E402

rng = np.random.default_rng(42)
HEAD = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n" \
       "from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n"
TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}


def rnd(dt, shape, lo=-4, hi=4):
    if dt.startswith(("int", "uint")):
        return rng.integers(lo, hi + 1, size=shape).astype(dt)
    a = rng.uniform(lo, hi, size=shape).astype(np.float32)
    if dt == "bfloat16":
        return bf16_to_f32(f32_to_bf16(a))
    return a.astype(dt)


def as_dt(a, dt):
    """NumPy's value of a rounded to dt (bfloat16 as float32)."""
    if dt == "bfloat16":
        return bf16_to_f32(f32_to_bf16(np.asarray(a, np.float32)))
    return np.asarray(a).astype(dt)


def close(got, want, dt, scale=None):
    if got.shape != want.shape:
        return False, "shape %s, expected %s" % (got.shape, want.shape)
    if dt in TOL:
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        s = scale if scale is not None else 1.0
        tol = TOL[dt] * (np.abs(w) + s)
        bad = ~(np.abs(g - w) <= tol)
        bad &= ~(np.isnan(g) & np.isnan(w))
    else:
        bad = got != want
    if bad.any():
        i = np.argwhere(bad)[0]
        return False, "at %s: got %s, expected %s (%d bad of %d)" % (
            tuple(i), got[tuple(i)], want[tuple(i)], bad.sum(), bad.size)
    return True, ""


class Runner:
    def __init__(self, tmp, tap):
        self.tmp, self.t, self.n = tmp, tap, 0

    def run(self, prims, main, inputs, extra=()):
        """Writes the module, runs main on inputs {name: array}; returns
        (rc, outputs or None, stderr)."""
        self.n += 1
        d = os.path.join(self.tmp, "c%d" % self.n)
        os.makedirs(d)
        path = os.path.join(d, "m.py")
        with open(path, "w") as f:
            f.write(HEAD + prims + main)
        args = [path]
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), v)
            args += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        out = os.path.join(d, "out")
        if extra:
            return rlx("run", *args, *extra)
        rc, so, se = rlx("run", *args, "-o", out)
        if rc != 0:
            return rc, None, se
        if os.path.isdir(out):
            n = len([f for f in os.listdir(out) if f.endswith(".npy")])
            return rc, [np.load(os.path.join(out, "%d.npy" % i)) for i in range(n)], se
        return rc, [np.load(out)], se

    def check(self, name, prims, main, inputs, wants, dts, scale=None):
        rc, outs, se = self.run(prims, main, inputs)
        if rc != 0:
            return self.t.ok(False, name, "rlx run exit %d\n%s" % (rc, se))
        for g, w, dt in zip(outs, wants, dts):
            ok, why = close(g, np.asarray(w), dt, scale)
            if not ok:
                return self.t.ok(False, name, why)
        return self.t.ok(len(outs) == len(wants), name, "%d outputs" % len(outs))

    def error(self, name, prims, main, inputs, want):
        rc, _, se = self.run(prims, main, inputs)
        ok = rc == 1 and all(w in se for w in want) and "Sanitizer" not in se
        return self.t.ok(ok, name, "exit %d, stderr:\n%s\nwanted: %s" % (rc, se, want))


def tensor(shape, dt):
    return 'R.Tensor((%s), "%s")' % ("".join("%s, " % s for s in shape), dt)


def tshape(dims):
    return "(%s)" % "".join("%s, " % (d if isinstance(d, str) else "T.int64(%d)" % d)
                           for d in dims)


# ------------------------------------------------------------ prim_funcs

def ew_add(dt):
    """add with broadcast: A (n, m) + B (m,), as LegalizeOps' add."""
    return '''    @T.prim_func(private=True)
    def add(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(var_A, (n, m), "%(dt)s")
        B = T.match_buffer(var_B, (m,), "%(dt)s")
        C = T.match_buffer(var_C, (n, m), "%(dt)s")
        for ax0, ax1 in T.grid(n, m):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax0, v_ax1], B[v_ax1])
                T.writes(C[v_ax0, v_ax1])
                C[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[v_ax1] * A[v_ax0, v_ax1]

''' % {"dt": dt}


def ew_main(dt):
    return '''    @R.function
    def main(a: R.Tensor(("n", "m"), "%(dt)s"), b: R.Tensor(("m",), "%(dt)s")):
        n, m = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.add, (a, b), out_sinfo=R.Tensor((n, m), "%(dt)s"))
            R.output(c)
        return c
''' % {"dt": dt}


def unary(dt, fn):
    return '''    @T.prim_func(private=True)
    def f(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "%(dt)s")
        B = T.match_buffer(var_B, (n,), "%(dt)s")
        for i0 in range(n):
            with T.block("compute"):
                v_i0 = T.axis.spatial(n, i0)
                T.reads(A[v_i0])
                T.writes(B[v_i0])
                B[v_i0] = %(fn)s

''' % {"dt": dt, "fn": fn}


def main1(dt, odt=None, fn="f"):
    odt = odt or dt
    return '''    @R.function
    def main(a: R.Tensor(("n",), "%s")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.%s, (a,), out_sinfo=R.Tensor((n,), "%s"))
            R.output(c)
        return c
''' % (dt, fn, odt)


def rsum(dt, op="sum"):
    """sum (or max) over axis 1 with T.init, keepdims=False."""
    init = "T.%s(0)" % dt if op == "sum" else "T.min_value(\"%s\")" % dt
    upd = "S[v0] + A[v0, v1]" if op == "sum" else "T.max(S[v0], A[v0, v1])"
    return '''    @T.prim_func(private=True)
    def red(var_A: T.handle, var_S: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        k = T.int64()
        A = T.match_buffer(var_A, (n, k), "%(dt)s")
        S = T.match_buffer(var_S, (n,), "%(dt)s")
        for ax0, k1 in T.grid(n, k):
            with T.block("A_red"):
                v0, v1 = T.axis.remap("SR", [ax0, k1])
                T.reads(A[v0, v1])
                T.writes(S[v0])
                with T.init():
                    S[v0] = %(init)s
                S[v0] = %(upd)s

''' % {"dt": dt, "init": init, "upd": upd}


def red_main(dt):
    return '''    @R.function
    def main(a: R.Tensor(("n", "k"), "%(dt)s")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.red, (a,), out_sinfo=R.Tensor((n,), "%(dt)s"))
            R.output(c)
        return c
''' % {"dt": dt}


def matmul(dt, transb=False):
    bidx = "B[v_j, v_k]" if transb else "B[v_k, v_j]"
    bshape = "(m, k)" if transb else "(k, m)"
    return '''    @T.prim_func(private=True)
    def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        k = T.int64()
        m = T.int64()
        A = T.match_buffer(var_A, (n, k), "%(dt)s")
        B = T.match_buffer(var_B, %(bshape)s, "%(dt)s")
        C = T.match_buffer(var_C, (n, m), "%(dt)s")
        for i0, i1, k2 in T.grid(n, m, k):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i0, i1, k2])
                T.reads(A[v_i, v_k], %(bidx)s)
                T.writes(C[v_i, v_j])
                with T.init():
                    C[v_i, v_j] = T.%(dt)s(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * %(bidx)s

''' % {"dt": dt, "bidx": bidx, "bshape": bshape}


def mm_main(dt, transb=False):
    return '''    @R.function
    def main(a: R.Tensor(("n", "k"), "%(dt)s"), b: R.Tensor(%(bs)s, "%(dt)s")):
        n, m = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.matmul, (a, b), out_sinfo=R.Tensor((n, m), "%(dt)s"))
            R.output(c)
        return c
''' % {"dt": dt, "bs": '("m", "k")' if transb else '("k", "m")'}


# permute_dims [1, 2, 0] as LegalizeOps writes it: B[h, d, n] = A[n, h, d]
TR_120 = '''    @T.prim_func(private=True)
    def tr(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        n, h, d = T.int64(), T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, h, d))
        B = T.match_buffer(var_B, (h, d, n))
        for a0, a1, a2 in T.grid(h, d, n):
            with T.block("T_transpose"):
                v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
                B[v0, v1, v2] = A[v2, v0, v1]

'''


def transposes(r):
    """Transposing copies (codegen_tir.c runs them in tiles of 16 x 16, a
    full tile of a plain copy of 1, 2 or 4 bytes as vectors): topi's 2-D
    transpose on sizes around and across the tile, in each element size;
    with an expression (tiles element by element); permute_dims [1, 2, 0]
    of 3-D; int32 loop variables; large ones split over the pool."""
    def t2(dt, body="A[v1, v0]"):
        return '''    @T.prim_func(private=True)
    def tr(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        n, m = T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, m), "%(dt)s")
        B = T.match_buffer(var_B, (m, n), "%(dt)s")
        for a0, a1 in T.grid(m, n):
            with T.block("T_transpose"):
                v0, v1 = T.axis.remap("SS", [a0, a1])
                B[v0, v1] = %(body)s

''' % dict(dt=dt, body=body)

    def m2(dt):
        return '''    @R.function
    def main(a: R.Tensor(("n", "m"), "%(dt)s")):
        n, m = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.tr, (a,), out_sinfo=R.Tensor((m, n), "%(dt)s"))
            R.output(b)
        return b
''' % dict(dt=dt)
    sizes = [(0, 5), (1, 1), (16, 16), (15, 17), (33, 48), (100, 257), (1024, 600)]
    for dt in ["float32", "float16", "bfloat16", "int8", "int32", "float64"]:
        for n, m in sizes:
            a = rnd(dt, (n, m), -100, 100)
            r.check("transpose %s (%d, %d)" % (dt, n, m), t2(dt), m2(dt), {"a": a},
                    [a.T], [dt])
    for n, m in [(16, 32), (37, 70)]:
        a = rnd("float32", (n, m))
        r.check("transpose times 0.5 (%d, %d)" % (n, m),
                t2("float32", "A[v1, v0] * T.float32(0.5)"), m2("float32"), {"a": a},
                [a.T * np.float32(0.5)], ["float32"])
    a = rnd("float32", (40, 19))
    r.check("transpose over int32 loops", t2("float32").replace(
        "T.grid(m, n)", 'T.grid(T.Cast("int32", m), T.Cast("int32", n))'),
        m2("float32"), {"a": a}, [a.T], ["float32"])
    prim = TR_120
    main = '''    @R.function
    def main(a: R.Tensor(("n", "h", "d"), "float32")):
        n, h, d = T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.tr, (a,), out_sinfo=R.Tensor((h, d, n), "float32"))
            R.output(b)
        return b
'''
    for shape in [(5, 3, 7), (40, 4, 16), (130, 16, 128)]:
        a = rnd("float32", shape)
        r.check("permute_dims [1, 2, 0] %s" % (shape,), prim, main, {"a": a},
                [a.transpose(1, 2, 0)], ["float32"])


def transpose_folds(r, t):
    """A call_tir of a transposing prim_func whose only use is the b of a
    prim_func matmul is folded into it (exec_plan.c fuse_tir_transpose: the
    matmul's kernel reads the transpose's input, b transposed, no copy):
    values against NumPy in float32, float16 and bfloat16, at n = 0, 1
    (rlx_gemm's GEMV) and larger, b read as B[k, j] and as B[j, k], 2-D
    and with batch dims; the same prim_func matmul unfused beside a folded
    one (the kernel key covers the fold). Not folded (each also against
    NumPy): a transposed value with a second use, a transpose that is not
    a swap of the last two axes ([1, 2, 0]; times 0.5; a broadcast), a
    user that reads it other than as a matmul's b, a matmul that writes
    its b. A folded transpose whose input does not fit its prim_func
    fails as it does unfused, located at its own binding."""
    def tr2(dt):
        return '''    @T.prim_func(private=True)
    def tr(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        n, m = T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, m), "%(dt)s")
        B = T.match_buffer(var_B, (m, n), "%(dt)s")
        for a0, a1 in T.grid(m, n):
            with T.block("T_transpose"):
                v0, v1 = T.axis.remap("SS", [a0, a1])
                T.reads(A[v1, v0])
                T.writes(B[v0, v1])
                B[v0, v1] = A[v1, v0]

''' % {"dt": dt}

    def main2(dt, wshape, extra="", out="c", wt="(k, m)"):
        return '''    @R.function
    def main(x: R.Tensor(("n", "k"), "%(dt)s"), w: R.Tensor(%(ws)s, "%(dt)s")):
        n, k, m = T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            wt = R.call_tir(cls.tr, (w,), out_sinfo=R.Tensor(%(wt)s, "%(dt)s"))
            c = R.call_tir(cls.matmul, (x, wt), out_sinfo=R.Tensor((n, m), "%(dt)s"))
%(extra)s            R.output(%(out)s)
        return %(out)s
''' % {"dt": dt, "ws": wshape, "wt": wt, "extra": extra, "out": out}

    def plan(prims, mn):
        rc, so, se = r.run(prims, mn, {}, ["--print-plan"])
        return so if rc == 0 else se

    def folded(so):
        return bool(re.search(r"wt = .*# fused into c\n", so) and
                    re.search(r"c = .*\(prim_func matmul\), computing wt\n", so))

    # b read as B[k, j] (LegalizeOps' matmul of x and a transposed weight)
    for dt in ["float32", "float16", "bfloat16"]:
        for n, k, m in [(0, 3, 4), (1, 64, 96), (1, 5, 7), (7, 33, 20), (130, 70, 129)]:
            x, w = rnd(dt, (n, k), -2, 2), rnd(dt, (m, k), -2, 2)
            want = x.astype(np.float64) @ w.T.astype(np.float64)
            prims, mn = tr2(dt) + matmul(dt), main2(dt, '("m", "k")')
            r.check("folded transpose, matmul %s (%d, %d, %d)" % (dt, n, k, m), prims, mn,
                    {"x": x, "w": w}, [as_dt(want, dt)], [dt], scale=float(k) * 4)
    so = plan(prims, mn)
    t.ok(folded(so), "--print-plan: the transpose is fused into the matmul", so)
    # b read as B[j, k]: x @ (w.T).T, rlx_gemm's transb the other way
    x, w = rnd("float32", (9, 12)), rnd("float32", (12, 10))
    prims = tr2("float32") + matmul("float32", True)
    mn = main2("float32", '("k", "m")', wt="(m, k)")
    r.check("folded transpose, matmul B^T", prims, mn, {"x": x, "w": w}, [x @ w],
            ["float32"], scale=50.0)
    t.ok(folded(plan(prims, mn)), "the transpose is fused into a matmul of B^T")

    # batch dims: the last two axes of a 3-D weight swapped
    prim3 = '''    @T.prim_func(private=True)
    def tr(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        bt, n, m = T.int64(), T.int64(), T.int64()
        A = T.match_buffer(var_A, (bt, n, m))
        B = T.match_buffer(var_B, (bt, m, n))
        for a0, a1, a2 in T.grid(bt, m, n):
            with T.block("T_transpose"):
                v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
                B[v0, v1, v2] = A[v0, v2, v1]

'''
    bmm = '''    @T.prim_func(private=True)
    def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        bt, n, k, m = T.int64(), T.int64(), T.int64(), T.int64()
        A = T.match_buffer(var_A, (bt, n, k))
        B = T.match_buffer(var_B, (bt, k, m))
        C = T.match_buffer(var_C, (bt, n, m))
        for b0, i0, i1, k2 in T.grid(bt, n, m, k):
            with T.block("matmul"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b0, i0, i1, k2])
                with T.init():
                    C[v_b, v_i, v_j] = T.float32(0)
                C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_b, v_k, v_j]

'''
    mn3 = '''    @R.function
    def main(x: R.Tensor(("bt", "n", "k"), "float32"), w: R.Tensor(("bt", "m", "k"), "float32")):
        bt, n, k, m = T.int64(), T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            wt = R.call_tir(cls.tr, (w,), out_sinfo=R.Tensor((bt, k, m), "float32"))
            c = R.call_tir(cls.matmul, (x, wt), out_sinfo=R.Tensor((bt, n, m), "float32"))
            R.output(c)
        return c
'''
    for bt, n, k, m in [(3, 5, 7, 4), (2, 1, 40, 33), (2, 20, 17, 48)]:
        x, w = rnd("float32", (bt, n, k)), rnd("float32", (bt, m, k))
        r.check("folded transpose, batched matmul (%d, %d, %d, %d)" % (bt, n, k, m),
                prim3 + bmm, mn3, {"x": x, "w": w}, [np.matmul(x, w.transpose(0, 2, 1))],
                ["float32"], scale=float(k) * 16)
    t.ok(folded(plan(prim3 + bmm, mn3)), "the batched transpose is fused into the matmul")

    # the same prim_func matmul folded and not, in one function
    x, w, y = rnd("float32", (6, 8)), rnd("float32", (5, 8)), rnd("float32", (8, 5))
    mn = main2("float32", '("m", "k")', out="e", extra=(
        '            d = R.call_tir(cls.matmul, (x, y), out_sinfo=R.Tensor((n, m), "float32"))\n'
        '            e = R.add(c, d)\n')).replace(
        'w: R.Tensor(("m", "k"), "float32")',
        'w: R.Tensor(("m", "k"), "float32"), y: R.Tensor(("k", "m"), "float32")')
    prims = tr2("float32") + matmul("float32")
    r.check("the same matmul folded and not", prims, mn, {"x": x, "w": w, "y": y},
            [x @ w.T + x @ y], ["float32"], scale=100.0)
    so = plan(prims, mn)
    t.ok(folded(so) and len(set(re.findall(r"# kernel (\S+) \(prim_func matmul\)", so))) == 2,
         "--print-plan: the folded matmul has a kernel of its own", so)

    # not folded: a second use of the transposed value
    x, w = rnd("float32", (6, 8)), rnd("float32", (5, 8))
    mn = main2("float32", '("m", "k")', extra="            o = (c, wt)\n", out="o")
    prims = tr2("float32") + matmul("float32")
    r.check("a transposed value used twice", prims, mn, {"x": x, "w": w}, [x @ w.T, w.T],
            ["float32", "float32"], scale=50.0)
    so = plan(prims, mn)
    t.ok("# fused into" not in so and "(prim_func tr)" in so,
         "--print-plan: a value used twice is not fused", so)

    # not folded: not a plain swap of the last two axes
    for what, body, want in [("times 0.5", "A[v1, v0] * T.float32(0.5)", lambda w: w.T * 0.5),
                             ("broadcasting a column", "A[v1, v0 * T.int64(0)]",
                              lambda w: np.repeat(w[:, :1].T, w.shape[1], 0))]:
        x, w = rnd("float32", (6, 8)), rnd("float32", (8, 8))
        prims = tr2("float32").replace("B[v0, v1] = A[v1, v0]", "B[v0, v1] = " + body) + \
            matmul("float32")
        mn = main2("float32", '("m", "k")')
        r.check("a transpose %s, not folded" % what, prims, mn, {"x": x, "w": w},
                [x @ want(w)], ["float32"], scale=50.0)
        so = plan(prims, mn)
        t.ok("# fused into" not in so, "--print-plan: a transpose %s is not fused" % what, so)
    prim120 = TR_120
    mn = '''    @R.function
    def main(x: R.Tensor(("h", "n", "d"), "float32"), w: R.Tensor(("m", "h", "d"), "float32")):
        h, n, d, m = T.int64(), T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            wt = R.call_tir(cls.tr, (w,), out_sinfo=R.Tensor((h, d, m), "float32"))
            c = R.call_tir(cls.matmul, (x, wt), out_sinfo=R.Tensor((h, n, m), "float32"))
            R.output(c)
        return c
'''
    x, w = rnd("float32", (3, 5, 4)), rnd("float32", (6, 3, 4))
    r.check("permute_dims [1, 2, 0] into a matmul, not folded", prim120 + bmm, mn,
            {"x": x, "w": w}, [np.matmul(x, w.transpose(1, 2, 0))], ["float32"], scale=50.0)
    so = plan(prim120 + bmm, mn)
    t.ok("# fused into" not in so, "--print-plan: [1, 2, 0] is not fused", so)

    # not folded: the user reads it as an elementwise operand
    x, w = rnd("float32", (6, 5)), rnd("float32", (5, 6))
    prims = tr2("float32") + '''    @T.prim_func(private=True)
    def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        n, m = T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, m))
        B = T.match_buffer(var_B, (n, m))
        C = T.match_buffer(var_C, (n, m))
        for i0, i1 in T.grid(n, m):
            with T.block("T_add"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                C[v0, v1] = A[v0, v1] + B[v0, v1]

'''
    mn = main2("float32", '("m", "k")', wt="(m, k)").replace(
        'x: R.Tensor(("n", "k"), "float32")', 'x: R.Tensor(("n", "m"), "float32")').replace(
        'w: R.Tensor(("m", "k"), "float32")', 'w: R.Tensor(("k", "n"), "float32")').replace(
        'wt = R.call_tir(cls.tr, (w,), out_sinfo=R.Tensor((m, k), "float32"))',
        'wt = R.call_tir(cls.tr, (w,), out_sinfo=R.Tensor((n, k), "float32"))').replace(
        'out_sinfo=R.Tensor((n, m), "float32"))', 'out_sinfo=R.Tensor((n, k), "float32"))')
    r.check("a transpose into an add, not folded", prims,
            mn.replace('("n", "m"), "float32"), w', '("n", "k"), "float32"), w'),
            {"x": x, "w": w}, [x + w.T], ["float32"])
    so = plan(prims, mn.replace('("n", "m"), "float32"), w', '("n", "k"), "float32"), w'))
    t.ok("# fused into" not in so, "--print-plan: an add's operand is not fused", so)

    # not folded: the matmul writes its b (the weight must stay as it is)
    x, w = rnd("float32", (6, 8)), rnd("float32", (5, 8))
    body = "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"
    prims = tr2("float32") + matmul("float32").replace(body, body + (
        "        for i0, i1 in T.grid(k, m):\n"
        "            with T.block(\"clear\"):\n"
        "                v0, v1 = T.axis.remap(\"SS\", [i0, i1])\n"
        "                B[v0, v1] = T.float32(0)\n"))
    mn = main2("float32", '("m", "k")', extra="            o = (c, w)\n", out="o")
    r.check("a matmul that writes its b, not folded", prims, mn, {"x": x, "w": w},
            [x @ w.T, w], ["float32", "float32"], scale=50.0)
    so = plan(prims, mn)
    t.ok("# fused into" not in so, "--print-plan: a matmul writing its b is not fused", so)

    # the transpose's own checks, located at its binding
    prims = tr2("float32").replace("(n, m)", "(n, T.int64(8))").replace(
        "(m, n)", "(T.int64(8), n)") + matmul("float32")
    mn = main2("float32", '("m", "k")')
    t.ok(folded(plan(prims, mn)), "a transpose of a static width is fused")
    r.error("a folded transpose's input checked against its prim_func", prims, mn,
            {"x": rnd("float32", (2, 5)), "w": rnd("float32", (3, 5))},
            ["m.py:", "binding 'wt': R.call_tir: prim_func 'tr'"])


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx_tir_") as tmp:
        r = Runner(tmp, t)
        sizes2 = [(0, 3), (1, 1), (3, 7), (5, 0), (300, 517)]
        transposes(r)
        transpose_folds(r, t)

        # elementwise with broadcast
        for dt in ["float32", "float16", "bfloat16", "int32", "float64"]:
            for n, m in sizes2:
                a, b = rnd(dt, (n, m)), rnd(dt, (m,))
                if dt == "bfloat16":
                    w = as_dt(a + as_dt(b * a, dt), dt)
                elif dt == "float16":
                    w = (a + (b * a).astype(dt)).astype(dt)
                else:
                    w = a + b * a
                r.check("add+mul broadcast %s (%d, %d)" % (dt, n, m), ew_add(dt),
                        ew_main(dt), {"a": a, "b": b}, [w], [dt])

        # unary intrinsics
        for dt in ["float32", "float16", "bfloat16"]:
            for name, fn, npf in [
                ("exp", "T.exp(A[v_i0])", np.exp),
                ("sigmoid", "T.sigmoid(A[v_i0])", lambda x: 1 / (1 + np.exp(-x))),
                ("tanh", "T.tanh(A[v_i0])", np.tanh),
                ("sqrt(abs)", "T.sqrt(T.fabs(A[v_i0]))", lambda x: np.sqrt(np.abs(x))),
                ("round", "T.round(A[v_i0])", np.round),
                ("floor", "T.floor(A[v_i0])", np.floor),
            ]:
                for n in [0, 1, 33, 10007]:
                    a = rnd(dt, (n,))
                    if name == "round":
                        a = as_dt(np.round(a * 2) / 2, dt)  # halves: ties to even
                    w = as_dt(npf(a.astype(np.float64)), dt)
                    r.check("%s %s n=%d" % (name, dt, n), unary(dt, fn), main1(dt),
                            {"a": a}, [w], [dt])
        for dt in ["int32", "int64", "int8"]:
            a = rnd(dt, (101,), -50, 50)
            r.check("abs %s" % dt, unary(dt, "T.abs(A[v_i0])"), main1(dt), {"a": a},
                    [np.abs(a)], [dt])

        # reductions with T.init
        for dt in ["float32", "float16", "int32", "float64"]:
            for n, k in [(0, 4), (1, 1), (3, 0), (7, 13), (257, 300)]:
                a = rnd(dt, (n, k), -2, 2)
                w = a.astype(np.float64).sum(1) if dt != "int32" else a.sum(1)
                r.check("sum %s (%d, %d)" % (dt, n, k), rsum(dt), red_main(dt), {"a": a},
                        [np.asarray(w).astype(dt)], [dt], scale=float(k))
        for dt in ["float32", "int32", "float16"]:
            a = rnd(dt, (9, 11), -100, 100)
            r.check("max %s" % dt, rsum(dt, "max"), red_main(dt), {"a": a},
                    [a.max(1)], [dt])

        # matmul
        for dt in ["float32", "float16", "int32", "float64"]:
            for (n, k, m) in [(0, 3, 2), (1, 1, 1), (5, 7, 3), (64, 96, 130)]:
                for tb in [False, True]:
                    a = rnd(dt, (n, k), -2, 2)
                    b = rnd(dt, (m, k) if tb else (k, m), -2, 2)
                    bb = b.T if tb else b
                    w = a.astype(np.float64) @ bb.astype(np.float64)
                    r.check("matmul %s%s (%d, %d, %d)" % (dt, " B^T" if tb else "", n, k, m),
                            matmul(dt, tb), mm_main(dt, tb), {"a": a, "b": b},
                            [w.astype(dt)], [dt], scale=float(k) * 4)

        # batched matmul (rlx_gemm's batch strides; B broadcast or not),
        # float16/bfloat16 operands cast to a float32 result, and the
        # reduction loop outermost (the same product: rlx_gemm too)
        for bshape, bidx in [("(k, m)", "B[v_k, v_j]"), ("(bt, k, m)", "B[v_b, v_k, v_j]")]:
            for adt, cast in [("float32", False), ("float16", True), ("bfloat16", True)]:
                ld_a = 'T.Cast("float32", A[v_b, v_i, v_k])' if cast else "A[v_b, v_i, v_k]"
                ld_b = 'T.Cast("float32", %s)' % bidx if cast else bidx
                prim = '''    @T.prim_func(private=True)
    def bmm(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        bt, n, k, m = T.int64(), T.int64(), T.int64(), T.int64()
        A = T.match_buffer(var_A, (bt, n, k), "%(adt)s")
        B = T.match_buffer(var_B, %(bshape)s, "%(adt)s")
        C = T.match_buffer(var_C, (bt, n, m), "float32")
        for b0, i0, i1, k2 in T.grid(bt, n, m, k):
            with T.block("matmul"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b0, i0, i1, k2])
                with T.init():
                    C[v_b, v_i, v_j] = T.float32(0)
                C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + %(la)s * %(lb)s

''' % {"adt": adt, "bshape": bshape, "la": ld_a, "lb": ld_b}
                mn = '''    @R.function
    def main(a: R.Tensor(("bt", "n", "k"), "%(adt)s"), b: R.Tensor(%(bs)s, "%(adt)s")):
        bt, n, m = T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.bmm, (a, b), out_sinfo=R.Tensor((bt, n, m), "float32"))
            R.output(c)
        return c
''' % {"adt": adt, "bs": bshape.replace("(", '("').replace(")", '")').replace(", ", '", "')}
                for bt, n, k, m in [(3, 5, 7, 4), (2, 40, 33, 70), (0, 2, 2, 2), (2, 3, 0, 4)]:
                    a = rnd(adt, (bt, n, k), -2, 2)
                    b = rnd(adt, (bt, k, m) if "bt" in bshape else (k, m), -2, 2)
                    w = np.matmul(a.astype(np.float64), b.astype(np.float64))
                    r.check("batched matmul %s B %s (%d, %d, %d, %d)" % (adt, bshape, bt, n, k, m),
                            prim, mn, {"a": a, "b": b}, [w.astype(np.float32)], ["float32"],
                            scale=float(k) * 4)
        prim = matmul("float32").replace("for i0, i1, k2 in T.grid(n, m, k):",
                                         "for k2, i0, i1 in T.grid(k, n, m):")
        a, b = rnd("float32", (9, 13)), rnd("float32", (13, 6))
        r.check("matmul with the reduction loop outermost", prim, mm_main("float32"),
                {"a": a, "b": b}, [a @ b], ["float32"], scale=50.0)

        # floordiv / floormod / truncdiv / truncmod on negative values
        for dt in ["int32", "int64", "int8"]:
            a = rnd(dt, (200,), -20, 20)
            b = rnd(dt, (200,), -5, 5)
            b[b == 0] = 3
            prim = '''    @T.prim_func(private=True)
    def divs(var_A: T.handle, var_B: T.handle, var_C: T.handle, var_D: T.handle, var_E: T.handle, var_F: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "%(dt)s")
        B = T.match_buffer(var_B, (n,), "%(dt)s")
        C = T.match_buffer(var_C, (n,), "%(dt)s")
        D = T.match_buffer(var_D, (n,), "%(dt)s")
        E = T.match_buffer(var_E, (n,), "%(dt)s")
        F = T.match_buffer(var_F, (n,), "%(dt)s")
        for i in range(n):
            with T.block("d"):
                v = T.axis.spatial(n, i)
                C[v] = A[v] // B[v]
                D[v] = A[v] %% B[v]
                E[v] = T.truncdiv(A[v], B[v])
                F[v] = T.truncmod(A[v], B[v])

''' % {"dt": dt}
            o = 'R.Tensor((n,), "%s")' % dt
            mn = '''    @R.function
    def main(a: R.Tensor(("n",), "%(dt)s"), b: R.Tensor(("n",), "%(dt)s")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.divs, (a, b), out_sinfo=[%(o)s, %(o)s, %(o)s, %(o)s])
            R.output(c)
        return c
''' % {"dt": dt, "o": o}
            td = (np.trunc(a.astype(np.float64) / b)).astype(dt)
            r.check("floordiv/floormod/truncdiv/truncmod %s (4 outputs)" % dt, prim, mn,
                    {"a": a, "b": b}, [a // b, a % b, td, np.fmod(a, b)], [dt] * 4)

        # the index dtype: int32 loop variables and shapes
        prim = '''    @T.prim_func(private=True)
    def rev(A: T.Buffer((T.int32(37),), "float32"), B: T.Buffer((T.int32(37),), "float32")):
        for i in range(37):
            with T.block("r"):
                v = T.axis.spatial(37, i)
                B[v] = A[36 - v] + T.Cast("float32", v // 4 - (v - 20) // 3 + (v - 20) % 3)

'''
        a = rnd("float32", (37,))
        v = np.arange(37)
        r.check("int32 indices, floordiv of negative int32 index", prim,
                main1("float32", fn="rev").replace('("n",)', "(37,)").replace("(n,)", "(37,)"),
                {"a": a}, [a[::-1] + (v // 4 - (v - 20) // 3 + (v - 20) % 3)], ["float32"])

        # casts
        for src, dst in [("float32", "int32"), ("int32", "float16"), ("float32", "bfloat16"),
                         ("float16", "float32"), ("int32", "int8"), ("float32", "bool"),
                         ("int8", "int64"), ("bfloat16", "float16")]:
            a = rnd(src, (41,), -100, 100)
            if src.startswith("float"):
                a[:3] = [0.0, -0.5, 2.75]
            fn = 'T.Cast("%s", A[v_i0])' % dst
            prim = unary(src, fn).replace('B = T.match_buffer(var_B, (n,), "%s")' % src,
                                          'B = T.match_buffer(var_B, (n,), "%s")' % dst)
            w = as_dt(a, dst) if dst != "int32" or src != "float32" else np.trunc(a).astype(dst)
            if src == "float32" and dst == "bool":
                w = a != 0
            r.check("cast %s -> %s" % (src, dst), prim, main1(src, dst), {"a": a}, [w], [dst])

        # T.where over a split loop, T.if_then_else padding (only the
        # taken side is read: the other would be out of bounds), Select
        for dt in ["float32", "float16", "int32"]:
            prim = '''    @T.prim_func(private=True)
    def pad(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "%(dt)s")
        B = T.match_buffer(var_B, (n + T.int64(2),), "%(dt)s")
        for io, ii in T.grid((n + T.int64(5)) // T.int64(4), T.int64(4)):
            with T.block("pad"):
                v = T.axis.spatial(n + T.int64(2), io * T.int64(4) + ii)
                T.where(io * T.int64(4) + ii < n + T.int64(2))
                B[v] = T.if_then_else(T.int64(1) <= v and v < n + T.int64(1), A[v - T.int64(1)], T.%(dt)s(7)) + T.Select(v %% T.int64(2) == T.int64(0), T.%(dt)s(1), T.%(dt)s(0))

''' % {"dt": dt}
            mn = '''    @R.function
    def main(a: R.Tensor(("n",), "%(dt)s")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.pad, (a,), out_sinfo=R.Tensor((n + 2,), "%(dt)s"))
            R.output(c)
        return c
''' % {"dt": dt}
            for n in [0, 1, 6, 1001]:
                a = rnd(dt, (n,))
                w = np.concatenate([[7], a, [7]]).astype(dt) + (np.arange(n + 2) % 2 == 0).astype(dt)
                r.check("where + if_then_else + Select %s n=%d" % (dt, n), prim, mn,
                        {"a": a}, [w], [dt])

        # softmax as LegalizeOps writes it: root-block scratch (heap: the
        # size is symbolic), let, exp; and a constant-size scratch (stack)
        for dt in ["float32", "float16"]:
            prim = '''    @T.prim_func(private=True)
    def softmax(var_A: T.handle, var_B: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        k = T.int64()
        A = T.match_buffer(var_A, (n, k), "%(dt)s")
        B = T.match_buffer(var_B, (n, k), "%(dt)s")
        mx = T.alloc_buffer((n,), "%(dt)s")
        ex = T.alloc_buffer((n, k), "%(dt)s")
        sm = T.alloc_buffer((n,), "%(dt)s")
        for i0, k1 in T.grid(n, k):
            with T.block("mx"):
                v0, v1 = T.axis.remap("SR", [i0, k1])
                with T.init():
                    mx[v0] = T.min_value("%(dt)s")
                mx[v0] = T.max(mx[v0], A[v0, v1])
        for i0, i1 in T.grid(n, k):
            with T.block("ex"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                ex[v0, v1] = T.exp(A[v0, v1] - mx[v0])
        for i0, k1 in T.grid(n, k):
            with T.block("sm"):
                v0, v1 = T.axis.remap("SR", [i0, k1])
                with T.init():
                    sm[v0] = T.%(dt)s(0)
                sm[v0] = sm[v0] + ex[v0, v1]
        for i0, i1 in T.grid(n, k):
            with T.block("out"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                B[v0, v1] = ex[v0, v1] / sm[v0]

''' % {"dt": dt}
            mn = '''    @R.function
    def main(a: R.Tensor(("n", "k"), "%(dt)s")):
        n, k = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.softmax, (a,), out_sinfo=R.Tensor((n, k), "%(dt)s"))
            R.output(c)
        return c
''' % {"dt": dt}
            for n, k in [(1, 1), (3, 17), (200, 400)]:
                a = rnd(dt, (n, k))
                if dt == "float16":  # as TVM computes it: every step in float16
                    e = np.exp((a - a.max(1, keepdims=True)).astype(np.float32)).astype(dt)
                    s = np.cumsum(e, axis=1, dtype=dt)[:, -1:]
                    w = (e.astype(np.float32) / s).astype(dt)
                else:
                    x = a.astype(np.float64)
                    e = np.exp(x - x.max(1, keepdims=True))
                    w = (e / e.sum(1, keepdims=True)).astype(dt)
                r.check("softmax (root scratch) %s (%d, %d)" % (dt, n, k), prim, mn, {"a": a},
                        [w], [dt], scale=0.05)
        prim = '''    @T.prim_func(private=True)
    def twice(A: T.Buffer((T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.block("outer"):
                vi = T.axis.spatial(T.int64(4), i)
                tmp = T.alloc_buffer((T.int64(8),), "float32")
                for j in range(T.int64(8)):
                    with T.block("t"):
                        vj = T.axis.spatial(T.int64(8), j)
                        s: T.float32 = A[vi, vj] * T.float32(2)
                        if s > T.float32(0):
                            tmp[vj] = s
                        else:
                            tmp[vj] = T.float32(0)
                for j in range(T.int64(8)):
                    with T.block("s"):
                        vj = T.axis.reduce(T.int64(8), j)
                        with T.init():
                            B[vi] = T.float32(0)
                        B[vi] = B[vi] + tmp[vj]

'''
        a = rnd("float32", (4, 8))
        r.check("block scratch, let, if/else", prim, '''    @R.function
    def main(a: R.Tensor((4, 8), "float32")):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.twice, (a,), out_sinfo=R.Tensor((4,), "float32"))
            R.output(c)
        return c
''', {"a": a}, [np.maximum(a * 2, 0).sum(1)], ["float32"])

        # call_tir_inplace, a float scalar argument, tir_vars
        prim = '''    @T.prim_func(private=True)
    def addx(var_A: T.handle, x: T.float32):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "float32")
        for i in range(n):
            with T.block("a"):
                v = T.axis.spatial(n, i)
                A[v] = A[v] + x

    @T.prim_func(private=True)
    def shift(var_A: T.handle, var_B: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "int32")
        B = T.match_buffer(var_B, (n - m,), "int32")
        for i in range(n - m):
            with T.block("B"):
                v = T.axis.spatial(n - m, i)
                B[v] = A[v + m] * 2

'''
        mn = '''    @R.function
    def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("k",), "int32")):
        n, k = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            c = R.call_tir_inplace(cls.addx, (a, R.prim_value(T.float32(1.5))), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            d = R.add(a, a)
            e = R.call_tir(cls.shift, (b,), out_sinfo=R.Tensor((k - 3,), "int32"), tir_vars=R.shape([3]))
            R.output(c, d, e)
        return (c, d, e)
'''
        a = rnd("float32", (10,))
        b = rnd("int32", (9,), -9, 9)
        r.check("call_tir_inplace (the input unchanged for others), scalar, tir_vars",
                prim, mn, {"a": a, "b": b}, [a + 1.5, a + a, b[3:] * 2],
                ["float32", "float32", "int32"])

        # the plan: each call_tir one kernel step
        rc, so, se = r.run(ew_add("float32"), ew_main("float32"),
                           {"a": rnd("float32", (2, 3)), "b": rnd("float32", (3,))},
                           ["--print-plan"])
        t.ok(rc == 0 and "kernel" in so and "(prim_func add)" in so, "--print-plan: call_tir "
             "is one kernel step", so + se)

        # a call_tir on a weight: rlx verify (lifted into the transform
        # against the original), rlx transform, then rlx run of its output
        mod = HEAD + '''    @T.prim_func(private=True)
    def to_oi(var_W: T.handle, var_O: T.handle):
        i = T.int64()
        o = T.int64()
        W = T.match_buffer(var_W, (i, o), "float32")
        O = T.match_buffer(var_O, (o, i), "float32")
        for a0, a1 in T.grid(o, i):
            with T.block("T_transpose"):
                v0, v1 = T.axis.remap("SS", [a0, a1])
                O[v0, v1] = W[v1, v0] * T.float32(0.5)

    @R.function
    def main(x: R.Tensor(("b", 6), "float32"), w: R.Tensor((6, 5), "float32")):
        R.func_attr({"num_input": 1})
        b = T.int64()
        cls = Module
        with R.dataflow():
            wt = R.call_tir(cls.to_oi, (w,), out_sinfo=R.Tensor((5, 6), "float32"))
            y = R.matmul(x, R.permute_dims(wt))
            R.output(y)
        return y
'''
        d = os.path.join(tmp, "lift")
        os.makedirs(d)
        mp, wp = os.path.join(d, "m.py"), os.path.join(d, "w.safetensors")
        with open(mp, "w") as f:
            f.write(mod)
        w = rnd("float32", (6, 5))
        x = rnd("float32", (3, 6))
        write_safetensors(wp, {"w": w})
        np.save(os.path.join(d, "x.npy"), x)
        rc, so, se = rlx("verify", mp, "--weights", wp)
        t.ok(rc == 0 and "agrees" in so, "rlx verify: call_tir on a weight lifted", so + se)
        rc, so, se = rlx("transform", mp, "--weights", wp, "-o", os.path.join(d, "out"))
        ok = rc == 0
        if ok:
            rc, so, se = rlx("run", os.path.join(d, "out"), "--input",
                             "x=" + os.path.join(d, "x.npy"), "-o", os.path.join(d, "y.npy"))
            ok = rc == 0
        if ok:
            ok, why = close(np.load(os.path.join(d, "y.npy")), x @ (w * 0.5), "float32")
            se += why
        t.ok(ok, "rlx transform runs the call_tir, rlx run runs the result", so + se)

        # ------------------------------------------------ entry checks
        loose = '''    @R.function
    def main(a: R.Tensor(%s), b: R.Tensor(%s)):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.add, (a, b), out_sinfo=R.Tensor((2, 3), "float32"))
            R.output(c)
        return c
'''
        at = 'R.Tensor(("p", "q"), "float32")'
        for name, shp_a, shp_b, dta, dtb, sa, sb, want in [
            ("rank", "ndim=2", "ndim=2", "float32", "float32", (2, 3), (2, 3),
             ["parameter 'B' (input 1): got (2, 3) float32, the buffer is (m,) float32: "
              "2 dimensions where the buffer has 1"]),
            ("dtype", "ndim=2", "ndim=1", "float32", "float16", (2, 3), (3,),
             ["parameter 'B' (input 1): got (3,) float16", "dtype float16 where the "
              "buffer's is float32"]),
            ("symbolic var", "ndim=2", "ndim=1", "float32", "float32", (2, 3), (4,),
             ["parameter 'B' (input 1): got (4,) float32, the buffer is (m,) float32: "
              "dimension 0 is 4, but m was bound to 3 by parameter 'A'"]),
            ("output annotation", "ndim=2", "ndim=1", "float32", "float32", (2, 4), (4,),
             ["parameter 'C' (output 0): got (2, 3) float32, the buffer is (n, m) float32: "
              "dimension 1 is 3, but m was bound to 4 by parameter 'A'"]),
        ]:
            # annotations that leave the check to the run: no rank for
            # the rank case, no dtype for the dtype case
            ann_a = 'ndim=%s, dtype="%s"' % (shp_a[-1], dta)
            ann_b = {"rank": 'dtype="float32"', "dtype": "ndim=1"}.get(
                name, 'ndim=%s, dtype="%s"' % (shp_b[-1], dtb))
            r.error("entry check: %s" % name, ew_add("float32"), loose % (ann_a, ann_b),
                    {"a": rnd(dta, sa), "b": rnd(dtb, sb)},
                    ["m.py:26:17: error: binding 'c': R.call_tir: prim_func 'add', "] + want)
        del at
        prim = '''    @T.prim_func(private=True)
    def fixed(A: T.Buffer((T.int64(4), T.int64(2)), "float32"), B: T.Buffer((T.int64(4), T.int64(2)), "float32")):
        for i, j in T.grid(T.int64(4), T.int64(2)):
            with T.block("f"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

'''
        r.error("entry check: constant dimension", prim, '''    @R.function
    def main(a: R.Tensor(ndim=2, dtype="float32")):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.fixed, (a,), out_sinfo=R.Tensor((4, 2), "float32"))
            R.output(c)
        return c
''', {"a": rnd("float32", (4, 3))}, ["R.call_tir: prim_func 'fixed', parameter 'A' "
                                     "(input 0): got (4, 3) float32, the buffer is (4, 2) "
                                     "float32: dimension 1 is 3, expected 2"])
        prim = ew_add("float32").replace('C = T.match_buffer(var_C, (n, m)',
                                         'C = T.match_buffer(var_C, (n, m * T.int64(2))')
        mn = (loose % ('ndim=2, dtype="float32"', 'ndim=1, dtype="float32"')).replace(
            "(2, 3)", "(2, 5)")
        r.error("entry check: expression dimension", prim, mn,
                {"a": rnd("float32", (2, 3)), "b": rnd("float32", (3,))},
                ["parameter 'C' (output 0): got (2, 5) float32", "dimension 1 is 5, but m * "])

        # refusals: located, naming the construct
        prim = '''    @T.prim_func(private=True)
    def bad(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.block("f"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = T.call_extern("float32", "my_fn", A[vi])

'''
        r.error("refused: call_extern, located", prim, main1("float32", fn="bad")
                .replace('("n",)', "(4,)").replace("(n,)", "(4,)"),
                {"a": rnd("float32", (4,))}, ["m.py:12:25: error: prim_func bad: "
                                              "T.call_extern is not lowered by rlx"])
        r.error("call_dps_packed of an unknown function: located at the call", "",
                '''    @R.function
    def main(a: R.Tensor((4,), "float32")):
        with R.dataflow():
            c = R.call_dps_packed("my_kernel", (a,), out_sinfo=R.Tensor((4,), "float32"))
            R.output(c)
        return c
''', {"a": rnd("float32", (4,))}, ["m.py:10:17: error: R.call_dps_packed(\"my_kernel\"): rlx knows no packed "
                                              "function of that name"])
        index_checks(r, t)
        negated_conditions(r, t)
        shape_reads(r)
    t.done()


def shape_reads(r):
    """A.shape[i] as a value (TVM's emit_te prints loop bounds that way):
    the buffer's dimension i, symbolic or constant."""
    prim = '''    @T.prim_func(private=True)
    def rowsum(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(%d)), "float32")
        B = T.match_buffer(var_B, (n,), "float32")
        for i in T.serial(T.int64(0), A.shape[0]):
            B[i] = T.float32(0)
            for j in T.serial(T.int64(0), A.shape[1]):
                B[i] = B[i] + A[i, j] * T.Cast("float32", A.shape[1])

'''
    main = '''    @R.function
    def main(a: R.Tensor(("n", %d), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.rowsum, (a,), out_sinfo=R.Tensor((n,), "float32"))
            R.output(b)
        return b
'''
    for n, m in [(0, 3), (1, 1), (7, 5), (300, 33)]:
        a = rnd("float32", (n, m))
        r.check("A.shape[i] as loop bounds and a value (%d, %d)" % (n, m), prim % m,
                main % m, {"a": a}, [a.sum(axis=1) * m], ["float32"], scale=4.0 * m * m)
    r.error("A.shape[2] of a 2-d buffer: located", (prim % 3).replace("A.shape[1]):",
                                                                       "A.shape[2]):"),
            main % 3, {"a": rnd("float32", (2, 3))},
            ["error: 'A' has 2 dimensions: its shape takes an integer index below 2"])


def index_checks(r, t):
    """Indices outside their buffers: each a located error naming the
    prim_func, the buffer, the axis, the value and the range, exit 1; with
    --no-index-check the run ends (the nearest index inside is used, never
    an access outside) with the result NumPy computes from clamped indices.
    The plan counts the indices checked when the kernel runs."""
    def mainf(params, call, out, syms="n"):
        return '''    @R.function
    def main(%s):
        %s = %s
        cls = Module
        with R.dataflow():
            c = R.call_tir(%s, out_sinfo=%s)
            R.output(c)
        return c
''' % (params, syms, ", ".join(["T.int64()"] * len(syms.split(","))), call, out)

    def run(name, prim, mn, inputs, want_err, want_nocheck):
        """want_err: the error's text; want_nocheck: the output with
        --no-index-check (None: exit 0 is enough)."""
        rc, _, se = r.run(prim, mn, inputs)
        t.ok(rc == 1 and want_err in se and "Sanitizer" not in se, name + ": located error",
             "exit %d, stderr:\n%s\nwanted: %s" % (rc, se, want_err))
        out = os.path.join(r.tmp, "nc%d.npy" % r.n)
        rc, _, se = r.run(prim, mn, inputs, ["--no-index-check", "-o", out])
        ok = rc == 0 and "Sanitizer" not in se
        why = "exit %d\n%s" % (rc, se)
        if ok and want_nocheck is not None:
            got = np.load(out)
            ok = got.shape == want_nocheck.shape and np.array_equal(got, want_nocheck)
            why = "got %s, expected %s" % (got, want_nocheck)
        t.ok(ok, name + ": --no-index-check runs, clamped", why)

    a5 = rnd("float32", (5,))
    # a constant index, stored to (no blocks, as lowered code)
    prim = '''    @T.prim_func(private=True)
    def put(A: T.Buffer((T.int64(5),), "float32"), B: T.Buffer((T.int64(5),), "float32")):
        for i in range(T.int64(5)):
            B[i] = A[i]
        B[T.int64(5)] = T.float32(1)

'''
    w = a5.copy()
    w[4] = 1
    run("constant index, store", prim,
        mainf('a: R.Tensor((5,), "float32")', "cls.put, (a,)", 'R.Tensor((5,), "float32")'),
        {"a": a5}, "m.py:11:11: error: prim_func put: index 5 of B's axis 0 is outside [0, 5)", w)

    # an index that depends on the loop variable
    prim = '''    @T.prim_func(private=True)
    def shift(A: T.Buffer((T.int64(5),), "float32"), B: T.Buffer((T.int64(5),), "float32")):
        for i in range(T.int64(5)):
            with T.block("b"):
                vi = T.axis.spatial(T.int64(5), i)
                B[vi] = A[vi + T.int64(2)]

'''
    run("loop-dependent index, load", prim,
        mainf('a: R.Tensor((5,), "float32")', "cls.shift, (a,)", 'R.Tensor((5,), "float32")'),
        {"a": a5}, "m.py:12:27: error: prim_func shift: index 5 of A's axis 0 is outside [0, 5)",
        a5[np.minimum(np.arange(5) + 2, 4)])

    # a symbolic dimension; large, so that the loop is split over threads
    prim = '''    @T.prim_func(private=True)
    def next_(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "float32")
        B = T.match_buffer(var_B, (n,), "float32")
        for i in range(n):
            with T.block("b"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi + T.int64(1)] * T.float32(2)

'''
    mn = mainf('a: R.Tensor(("n",), "float32")', "cls.next_, (a,)", 'R.Tensor((n,), "float32")')
    for n in [4, 200000]:
        a = rnd("float32", (n,))
        run("symbolic dimension n=%d" % n, prim, mn, {"a": a},
            "m.py:15:27: error: prim_func next_: index %d of A's axis 0 is outside [0, %d)"
            % (n, n), a[np.minimum(np.arange(n) + 1, n - 1)] * 2)

    # an index loaded from another buffer (a gather)
    prim = '''    @T.prim_func(private=True)
    def gather(var_A: T.handle, var_I: T.handle, var_B: T.handle):
        n, m = T.int64(), T.int64()
        A = T.match_buffer(var_A, (n,), "float32")
        I_ = T.match_buffer(var_I, (m,), "int32")
        B = T.match_buffer(var_B, (m,), "float32")
        for i in range(m):
            with T.block("b"):
                vi = T.axis.spatial(m, i)
                B[vi] = A[I_[vi]]

'''
    mn = mainf('a: R.Tensor(("n",), "float32"), ix: R.Tensor(("m",), "int32")',
               "cls.gather, (a, ix)", 'R.Tensor((m,), "float32")', "n, m")
    for ix, bad in [([0, 4, 7, 2], 7), ([3, -1, 0], -1)]:
        ix = np.array(ix, "int32")
        run("index from a buffer (%d)" % bad, prim, mn, {"a": a5, "ix": ix},
            "m.py:16:27: error: prim_func gather: index %d of A's axis 0 is outside [0, 5)" % bad,
            a5[np.clip(ix, 0, 4)])
    ix = np.array([4, 0, 3, 3, 1], "int32")
    r.check("index from a buffer, inside", prim, mn, {"a": a5, "ix": ix}, [a5[ix]], ["float32"])

    # a guard on a value read from a buffer, then stored to: the guard
    # says nothing of the index after the store
    prim = '''    @T.prim_func(private=True)
    def guard(I: T.Buffer((T.int64(1),), "int64"), A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(1),), "float32")):
        J = T.alloc_buffer((T.int64(1),), "int64")
        J[0] = I[0]
        if J[0] >= T.int64(0) and J[0] < T.int64(4):
            J[0] = J[0] + T.int64(100)
            B[0] = A[J[0]]

'''
    a4 = rnd("float32", (4,))
    run("a guard on a value stored to before the index", prim,
        mainf('ix: R.Tensor((1,), "int64"), a: R.Tensor((4,), "float32")', "cls.guard, (ix, a)",
              'R.Tensor((1,), "float32")'),
        {"ix": np.array([1], "int64"), "a": a4},
        "m.py:13:22: error: prim_func guard: index 101 of A's axis 0 is outside [0, 4)", a4[3:])

    # a condition on an int32 sum that wraps: the sum's value is outside,
    # whatever it was before it wrapped
    prim = '''    @T.prim_func(private=True)
    def wrap(B: T.Buffer((8,), "float32")):
        for w in range(8):
            B[w] = T.float32(0)
            if w + 2147483644 < 0:
                B[w + 2147483644] = T.float32(1)

'''
    run("a condition on an int32 sum that wraps", prim,
        mainf("", "cls.wrap, ()", 'R.Tensor((8,), "float32")'), {},
        "m.py:12:19: error: prim_func wrap: index -2147483648 of B's axis 0 is outside [0, 8)",
        np.array([1, 0, 0, 0, 0, 0, 0, 0], "float32"))

    # an empty buffer: no index is inside
    prim = '''    @T.prim_func(private=True)
    def first(var_A: T.handle, B: T.Buffer((T.int64(3),), "float32")):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "float32")
        for i in range(T.int64(3)):
            B[i] = A[T.int64(0)]

'''
    mn = mainf('a: R.Tensor(("n",), "float32")', "cls.first, (a,)", 'R.Tensor((3,), "float32")')
    run("empty buffer", prim, mn, {"a": rnd("float32", (0,))},
        "m.py:12:22: error: prim_func first: index 0 of A's axis 0 is outside [0, 0)", None)
    rc, so, se = r.run(prim, mn, {}, ["--print-plan"])
    t.ok(rc == 0 and "(prim_func first; 1 index checked when it runs)" in so,
         "--print-plan counts the indices checked", so + se)


def negated_conditions(r, t):
    """Indices proven from a condition's negation (compiler/tir_bounds.c):
    the false side of T.if_then_else (a concatenation as TVM's topi writes
    it, over symbolic dims), an else branch, not and !=. The plan shows no
    index checked, and the values are NumPy's, at sizes 0, 1, odd and
    large."""
    def planned(name, prim, mn, fn):
        rc, so, se = r.run(prim, mn, {}, ["--print-plan"])
        t.ok(rc == 0 and "(prim_func %s)" % fn in so, name + ": no index checked", so + se)

    prim = '''    @T.prim_func(private=True)
    def concat(var_A: T.handle, var_B: T.handle, var_C: T.handle, var_D: T.handle):
        n, a, b, c = T.int64(), T.int64(), T.int64(), T.int64()
        A = T.match_buffer(var_A, (n, a))
        B = T.match_buffer(var_B, (n, b))
        C = T.match_buffer(var_C, (n, c))
        D = T.match_buffer(var_D, (n, a + b + c))
        for i0, i1 in T.grid(n, a + b + c):
            with T.block("D"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                D[v0, v1] = T.if_then_else(a + b <= v1, C[v0, v1 - a - b], T.if_then_else(a <= v1, B[v0, v1 - a], A[v0, v1]))

'''
    mn = '''    @R.function
    def main(x: R.Tensor(("n", "a"), "float32"), y: R.Tensor(("n", "b"), "float32"), z: R.Tensor(("n", "c"), "float32")):
        n, a, b, c = T.int64(), T.int64(), T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            d = R.call_tir(cls.concat, (x, y, z), out_sinfo=R.Tensor((n, a + b + c), "float32"))
            R.output(d)
        return d
'''
    planned("concatenate (symbolic)", prim, mn, "concat")
    for n, a, b, c in [(0, 2, 3, 1), (1, 1, 1, 1), (3, 0, 5, 2), (5, 3, 0, 0), (7, 1, 2, 3),
                       (300, 17, 0, 33)]:
        x, y, z = rnd("float32", (n, a)), rnd("float32", (n, b)), rnd("float32", (n, c))
        r.check("concatenate (symbolic) n=%d a=%d b=%d c=%d" % (n, a, b, c), prim, mn,
                {"x": x, "y": y, "z": z}, [np.concatenate([x, y, z], axis=1)], ["float32"])

    # int32 indices, constant dims, int32 data
    prim = '''    @T.prim_func(private=True)
    def cat(A: T.Buffer((5,), "int32"), B: T.Buffer((4,), "int32"), C: T.Buffer((9,), "int32")):
        for i in range(9):
            with T.block("C"):
                v = T.axis.spatial(9, i)
                C[v] = T.if_then_else(v < 5, A[v], B[v - 5])

'''
    mn = '''    @R.function
    def main(x: R.Tensor((5,), "int32"), y: R.Tensor((4,), "int32")):
        cls = Module
        with R.dataflow():
            d = R.call_tir(cls.cat, (x, y), out_sinfo=R.Tensor((9,), "int32"))
            R.output(d)
        return d
'''
    planned("concatenate (int32 indices)", prim, mn, "cat")
    x, y = rnd("int32", (5,)), rnd("int32", (4,))
    r.check("concatenate (int32 indices)", prim, mn, {"x": x, "y": y},
            [np.concatenate([x, y])], ["int32"])

    # an else branch (v >= n there), a shift under != and under not
    prim = '''    @T.prim_func(private=True)
    def twice(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n * T.int64(2),))
        C = T.match_buffer(var_C, (n,))
        for i in range(n * T.int64(2)):
            with T.block("B"):
                v = T.axis.spatial(n * T.int64(2), i)
                if v < n:
                    B[v] = A[v]
                else:
                    B[v] = A[v - n] * T.float32(2)
        for i in range(n):
            with T.block("C"):
                v = T.axis.spatial(n, i)
                if v != T.int64(0):
                    C[v] = A[v - T.int64(1)]
                else:
                    C[v] = T.float32(0)
                if not (v + T.int64(1) < n):
                    C[v] = C[v] + A[v + T.int64(1) - n]

'''
    mn = '''    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            d = R.call_tir(cls.twice, (x,), out_sinfo=[R.Tensor((n * 2,), "float32"), R.Tensor((n,), "float32")])
            R.output(d)
        return d
'''
    planned("else branch, !=, not", prim, mn, "twice")
    for n in [0, 1, 7, 1000]:
        x = rnd("float32", (n,))
        c = np.concatenate([[0], x[:-1]]).astype(np.float32) if n else x.copy()
        if n:
            c[-1] += x[0]
        r.check("else branch, !=, not n=%d" % n, prim, mn, {"x": x},
                [np.concatenate([x, x * 2]), c], ["float32", "float32"])


if __name__ == "__main__":
    main()
