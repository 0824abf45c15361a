#!/usr/bin/python3
"""run_dtypes.py — uint16/uint32/uint64 and float8_e4m3fn/float8_e5m2
(issue 46): read (.npy, safetensors U16/U32/U64/F8_E4M3/F8_E5M2), computed
(arithmetic, comparisons, bitwise ops, shifts, casts, reductions, sort),
stored (.npy, safetensors, the tensor cache), NumPy as the oracle.

NumPy has no float8 and ml_dtypes is not a Debian package, so the float8
oracle below is written from the formats' definition, independently of
rlx's code: every value a format has is listed (sign, exponent, mantissa),
and a number is encoded as the nearest listed value, a tie going to the
even code; past the largest finite value (a tie there included, when the
code above it is odd) it is infinity (float8_e4m3fn has none: NaN, code
0x7F). That is what ml_dtypes' astype does (it rounds once, to nearest
even, without saturating). float8 results are written by rlx as float32
(exact), and compared as float32 bit patterns (a NaN by its sign).
"""
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx  # noqa: E402

# name: (mantissa bits, exponent bias, largest finite code, infinity code,
# NaN code)
F8 = {
    "float8_e4m3fn": (3, 7, 0x7E, 0x7F, 0x7F),
    "float8_e5m2": (2, 15, 0x7B, 0x7C, 0x7E),
}
ST_NAMES = {"uint16": "U16", "uint32": "U32", "uint64": "U64",
            "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2",
            "float32": "F32", "int32": "I32", "float16": "F16"}


def f8_values(fmt):
    """The value of each code 0..255 (float64)."""
    m, bias, highest, inf, nan = F8[fmt]
    out = np.empty(256)
    for c in range(256):
        mag = c & 0x7F
        e, f = mag >> m, mag & ((1 << m) - 1)
        if mag > highest:
            v = np.inf if (mag == inf and inf != nan) else np.nan
        elif e == 0:
            v = f * 2.0 ** (1 - bias - m)
        else:
            v = (1 + f / 2.0 ** m) * 2.0 ** (e - bias)
        out[c] = -v if c & 0x80 else v
    return out


def above_highest(fmt):
    """The value the code after the largest finite one would have, were it
    a number (the first value that is past the format's range)."""
    m, bias, highest = F8[fmt][:3]
    c = highest + 1
    return (1 + (c & ((1 << m) - 1)) / 2.0 ** m) * 2.0 ** ((c >> m) - bias)


def f8_encode(fmt, x):
    """float8 codes (uint8) of the float64 array x, as ml_dtypes' astype."""
    m, bias, highest, inf, nan = F8[fmt]
    vals = f8_values(fmt)[:highest + 1]             # 0 .. largest, increasing
    above = above_highest(fmt)
    ext = np.append(vals, above)
    x = np.asarray(x, np.float64).reshape(-1)
    codes = np.empty(x.size, np.uint8)
    for i, v in enumerate(x):
        sign = 0x80 if np.signbit(v) else 0
        a = abs(v)
        if np.isnan(a):
            c = nan
        elif np.isinf(a) or a > above:
            c = inf
        else:
            lo = int(np.searchsorted(ext, a, side="right")) - 1
            lo = min(lo, highest + 1)
            if lo == highest + 1 or ext[lo] == a:
                c = lo
            else:
                dl, dh = a - ext[lo], ext[lo + 1] - a
                c = lo if dl < dh else lo + 1 if dh < dl else (lo if lo % 2 == 0 else lo + 1)
            if c > highest:
                c = inf
        codes[i] = c | sign
    return codes


def f8_to_f32(fmt, codes):
    return f8_values(fmt)[codes].astype(np.float32)


def same_f32(a, b):
    """Equal float32 arrays, a NaN matching a NaN of the same sign."""
    a = np.asarray(a, np.float32).reshape(-1)
    b = np.asarray(b, np.float32).reshape(-1)
    if a.shape != b.shape:
        return False
    na, nb = np.isnan(a), np.isnan(b)
    return bool(np.array_equal(na, nb) and
                np.array_equal(np.signbit(a[na]), np.signbit(b[nb])) and
                np.array_equal(a[~na].view(np.uint32), b[~nb].view(np.uint32)))


def write_st(path, tensors):
    """{name: (dtype name, array whose bytes are the data)}."""
    header, blobs, off = {}, [], 0
    for name, (dt, arr) in tensors.items():
        data = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": ST_NAMES[dt], "shape": list(arr.shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_st(path):
    """{name: (safetensors dtype, shape, bytes)}."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    h = json.loads(raw[8:8 + n])
    h.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"], raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
            for k, v in h.items()}


def probe_values(fmt):
    """Values that find the edges: every finite value, the midpoints
    between neighbours (ties) and just off them, the overflow boundary,
    specials, and random values over the whole range."""
    m, bias, highest, inf, nan = F8[fmt]
    vals = f8_values(fmt)[:highest + 1]
    above = above_highest(fmt)
    ext = np.append(vals, above)
    mids = (ext[:-1] + ext[1:]) / 2
    eps = np.float64(2.0 ** -20)
    xs = np.concatenate([vals, mids, mids * (1 + eps), mids * (1 - eps),
                         [above, above * 2, 1e30, np.inf, np.nan, 0.0],
                         np.random.default_rng(1).standard_normal(200) *
                         np.repeat([1e-3, 1, 100, vals[-1]], 50)])
    xs = np.concatenate([xs, -xs])
    return xs.astype(np.float32).astype(np.float64)  # exact in float32


CAST_MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), h: R.Tensor(("m",), dtype="float16"), d: R.Tensor(("k",), dtype="float64")):
        n = T.int64()
        m = T.int64()
        k = T.int64()
        with R.dataflow():
            a = R.astype(x, "{f}")
            a32 = R.astype(a, "float32")
            b = R.astype(h, "{f}")
            b32 = R.astype(b, "float32")
            c = R.astype(d, "{f}")
            c32 = R.astype(c, "float32")
            a16 = R.astype(a, "float16")
            ai = R.astype(a, "int32")
            s = R.add(a, a)
            s32 = R.astype(s, "float32")
            R.output(a32, b32, c32, a16, ai, s32)
        return (a32, b32, c32, a16, ai, s32)
'''

IO_MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="{f}"), w: R.Tensor((4,), dtype="{f}")):
        R.func_attr({{"num_input": 1}})
        with R.dataflow():
            y = R.multiply(x, w)
            R.output(y)
        return y
'''

UINT_MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((16,), dtype="{u}"), b: R.Tensor((16,), dtype="{u}"), s: R.Tensor((16,), dtype="{u}")):
        with R.dataflow():
            add = R.add(a, b)
            mul = R.multiply(a, b)
            fdiv = R.floor_divide(a, R.maximum(b, R.const(1, "{u}")))
            fmod = R.floor_mod(a, R.maximum(b, R.const(1, "{u}")))
            mx = R.maximum(a, b)
            lt = R.less(a, b)
            band = R.bitwise_and(a, b)
            bor = R.bitwise_or(a, b)
            bxor = R.bitwise_xor(a, b)
            bnot = R.bitwise_not(a)
            shl = R.left_shift(a, s)
            shr = R.right_shift(a, s)
            f = R.astype(a, "float64")
            i = R.astype(a, "int64")
            smax = R.max(a)
            ssum = R.sum(a)
            srt = R.sort(a)
            am = R.argmax(a)
            R.output(add, mul, fdiv, fmod, mx, lt, band, bor, bxor, bnot, shl, shr, f, i, smax, ssum, srt, am)
        return (add, mul, fdiv, fmod, mx, lt, band, bor, bxor, bnot, shl, shr, f, i, smax, ssum, srt, am)
'''

# MLC LLM's q4f16_1: eight 4-bit values packed in each uint32
Q4_MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float16"), q: R.Tensor((4, 2), dtype="uint32"), sc: R.Tensor((4, 1), dtype="float16")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            qe = R.expand_dims(q, axis=[2])
            sh = R.const([0, 4, 8, 12, 16, 20, 24, 28], "uint32")
            nib = R.bitwise_and(R.right_shift(qe, sh), R.const(15, "uint32"))
            w = R.reshape(R.astype(nib, "float16"), R.shape([4, 16]))
            wd = R.multiply(R.subtract(w, R.const(7, "float16")), sc)
            y = R.matmul(x, R.permute_dims(wd, axes=[1, 0]))
            R.output(y)
        return y
'''

# weights of the new dtypes through init-weights and transform
CACHE_MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), q: R.Tensor((4,), dtype="uint32"), e: R.Tensor((4,), dtype="float8_e4m3fn"), g: R.Tensor((4,), dtype="float8_e5m2"), u: R.Tensor((4,), dtype="uint16"), v: R.Tensor((4,), dtype="uint64")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            qq = R.bitwise_xor(R.astype(x, "uint32"), q)
            ee = R.multiply(R.astype(x, "float8_e4m3fn"), e)
            gg = R.multiply(R.astype(x, "float8_e5m2"), g)
            uu = R.add(R.astype(x, "uint16"), u)
            vv = R.add(R.astype(x, "uint64"), v)
            z = R.add(R.astype(qq, "float32"), R.astype(ee, "float32"))
            z2 = R.add(z, R.astype(gg, "float32"))
            z3 = R.add(z2, R.astype(uu, "float32"))
            z4 = R.add(z3, R.astype(vv, "float32"))
            R.output(z4)
        return z4
'''


def run_tuple(t, tmp, name, model, inputs, n):
    """Writes model, runs it on {name: array} and returns its n fields
    (None after a failed test line)."""
    mp = os.path.join(tmp, name + ".py")
    with open(mp, "w") as f:
        f.write(model)
    args = ["run", mp]
    for k, a in inputs.items():
        p = os.path.join(tmp, "%s_%s.npy" % (name, k))
        np.save(p, a)
        args += ["--input", "%s=%s" % (k, p)]
    out = os.path.join(tmp, name + "_out")
    rc, _, err = rlx(*args, "-o", out)
    if not t.ok(rc == 0, "%s: rlx run" % name, err):
        return None
    return [np.load(os.path.join(out, "%d.npy" % i)) for i in range(n)]


def test_f8_casts(t, tmp):
    for fmt in F8:
        xs = probe_values(fmt)
        want = f8_to_f32(fmt, f8_encode(fmt, xs))
        h = xs[np.abs(xs) < 60000].astype(np.float16)
        # float64 values on which rounding through float32 would round
        # twice: a tie in float32 that is not one in float64
        vals = f8_values(fmt)[:F8[fmt][2] + 1]
        mids = (vals[:-1] + vals[1:]) / 2
        d = np.concatenate([mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40), [1e300, -1e-300, np.nan]])
        got = run_tuple(t, tmp, "cast_" + fmt, CAST_MODEL.format(f=fmt),
                        {"x": xs.astype(np.float32), "h": h, "d": d}, 6)
        if got is None:
            continue
        a32, b32, c32, a16, ai, s32 = got
        bad = np.nonzero(~((a32 == want) | (np.isnan(a32) & np.isnan(want))))[0][:8]
        t.ok(same_f32(a32, want), "%s: float32 -> %s rounds as ml_dtypes' astype "
             "(%d values: every value, ties, off-ties, overflow, specials)" % (fmt, fmt, xs.size),
             "\n".join("x=%r: got %r, want %r" % (xs[i], a32[i], want[i]) for i in bad))
        t.ok(same_f32(b32, f8_to_f32(fmt, f8_encode(fmt, h.astype(np.float64)))),
             "%s: float16 -> %s" % (fmt, fmt))
        t.ok(same_f32(c32, f8_to_f32(fmt, f8_encode(fmt, d))),
             "%s: float64 -> %s rounds once (no double rounding through float32)" % (fmt, fmt),
             "got %r\nwant %r" % (c32[:8], f8_to_f32(fmt, f8_encode(fmt, d))[:8]))
        t.ok(same_f32(a16.astype(np.float32), want.astype(np.float16).astype(np.float32)),
             "%s: %s -> float16 (exact)" % (fmt, fmt))
        fin = np.isfinite(want)
        t.ok(np.array_equal(ai[fin], want[fin].astype(np.int32)),
             "%s: %s -> int32 truncates as float32 -> int32" % (fmt, fmt))
        s_want = f8_to_f32(fmt, f8_encode(fmt, want.astype(np.float64) * 2))
        t.ok(same_f32(s32, s_want), "%s: add computes in float32 and rounds once" % fmt)


def test_f8_io(t, tmp):
    for fmt in F8:
        codes = np.arange(256, dtype=np.uint8)
        rng = np.random.default_rng(2)
        x = rng.choice(codes, 4).astype(np.uint8)
        w = rng.choice(codes, 4).astype(np.uint8)
        mp = os.path.join(tmp, "io_%s.py" % fmt)
        with open(mp, "w") as f:
            f.write(IO_MODEL.format(f=fmt))
        st = os.path.join(tmp, "io_%s.safetensors" % fmt)
        write_st(st, {"w": (fmt, w)})
        want = f8_to_f32(fmt, f8_encode(fmt, f8_values(fmt)[x] * f8_values(fmt)[w]))
        # the input as NumPy saves an ml_dtypes float8 array ('|V1'), and
        # as float32 values (converted)
        pv = os.path.join(tmp, "x_%s_v.npy" % fmt)
        np.save(pv, x.view("V1"))
        pf = os.path.join(tmp, "x_%s_f.npy" % fmt)
        np.save(pf, f8_to_f32(fmt, x))
        for how, p in [("'|V1' bytes", pv), ("float32 values", pf)]:
            out = os.path.join(tmp, "io_%s.npy" % fmt)
            rc, _, err = rlx("run", mp, "--params", st, "--input", "x=" + p, "-o", out)
            got = np.load(out) if rc == 0 else None
            t.ok(rc == 0 and got.dtype == np.float32 and same_f32(got, want),
                 "%s: safetensors %s weight, .npy input as %s, result as float32" %
                 (fmt, ST_NAMES[fmt], how), err if rc else "got %r want %r" % (got, want))


def test_uints(t, tmp):
    rng = np.random.default_rng(3)
    for u, bits in [("uint16", 16), ("uint32", 32), ("uint64", 64)]:
        npt = np.dtype(u)
        top = np.iinfo(npt).max
        a = np.concatenate([np.array([0, 1, top, top - 1, top // 2 + 1, 7], npt),
                            rng.integers(0, top, 10, dtype=npt, endpoint=True)])
        b = np.concatenate([np.array([0, top, 1, top, 3, 2], npt),
                            rng.integers(0, top, 10, dtype=npt, endpoint=True)])
        s = np.array([0, 1, bits - 1, bits, bits + 5, 3, 4, 8, 1, 2, 3, 5, 7, 9, 11, 13], npt)
        got = run_tuple(t, tmp, "u_" + u, UINT_MODEL.format(u=u), {"a": a, "b": b, "s": s}, 18)
        if got is None:
            continue
        with np.errstate(all="ignore"):
            bm = np.maximum(b, npt.type(1))
            small = s < bits
            shl = np.where(small, np.left_shift(a, np.where(small, s, 0)), 0).astype(npt)
            shr = np.where(small, np.right_shift(a, np.where(small, s, 0)), 0).astype(npt)
            want = [a + b, a * b, a // bm, a % bm, np.maximum(a, b), a < b,
                    a & b, a | b, a ^ b, ~a, shl, shr, a.astype(np.float64),
                    a.astype(np.int64), a.max(), a.sum(dtype=npt), np.sort(a),
                    np.argmax(a)]
        names = ["add (wraps)", "multiply (wraps)", "floor_divide", "floor_mod",
                 "maximum", "less (unsigned)", "bitwise_and", "bitwise_or",
                 "bitwise_xor", "bitwise_not", "left_shift (a count >= width: 0)",
                 "right_shift (logical)", "astype float64", "astype int64",
                 "max", "sum (wraps)", "sort", "argmax"]
        for g, w, nm in zip(got, want, names):
            w = np.asarray(w)
            ok = np.array_equal(g.reshape(-1), w.reshape(-1).astype(g.dtype)) and \
                (g.dtype == w.dtype or nm in ("argmax",))
            t.ok(ok, "%s: %s" % (u, nm), "got %r %s\nwant %r %s" % (g, g.dtype, w, w.dtype))


def test_signed_shifts(t, tmp):
    mp = os.path.join(tmp, "shift.py")
    with open(mp, "w") as f:
        f.write('''\
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((8,), dtype="int32"), s: R.Tensor((8,), dtype="int32")):
        with R.dataflow():
            l = R.left_shift(a, s)
            r = R.right_shift(a, s)
            R.output(l, r)
        return (l, r)
''')
    a = np.array([-1, -8, 5, -2147483648, 1, -3, 7, 100], np.int32)
    s = np.array([1, 2, 31, 31, 32, 40, -1, 0], np.int32)
    got = run_tuple(t, tmp, "shift", open(mp).read(), {"a": a, "s": s}, 2)
    if got is None:
        return
    # numpy: a count outside 0 .. 31 gives 0 (left) or the sign (right)
    ok = (s >= 0) & (s < 32)
    sl = np.where(ok, s, 0)
    wl = np.where(ok, np.left_shift(a, sl), 0).astype(np.int32)
    wr = np.where(ok, np.right_shift(a, sl), np.where(a < 0, -1, 0)).astype(np.int32)
    t.ok(np.array_equal(got[0], wl), "int32 left_shift as numpy (counts 31, 32, 40, -1)",
         "got %r want %r" % (got[0], wl))
    t.ok(np.array_equal(got[1], wr), "int32 right_shift arithmetic as numpy",
         "got %r want %r" % (got[1], wr))


def test_q4(t, tmp):
    rng = np.random.default_rng(4)
    nib = rng.integers(0, 16, (4, 16)).astype(np.uint32)
    q = np.zeros((4, 2), np.uint32)
    for j in range(16):
        q[:, j // 8] |= nib[:, j] << np.uint32(4 * (j % 8))
    sc = rng.standard_normal((4, 1)).astype(np.float16)
    x = rng.standard_normal((1, 16)).astype(np.float16)
    mp = os.path.join(tmp, "q4.py")
    with open(mp, "w") as f:
        f.write(Q4_MODEL)
    st = os.path.join(tmp, "q4.safetensors")
    write_st(st, {"q": ("uint32", q), "sc": ("float16", sc)})
    px = os.path.join(tmp, "q4x.npy")
    np.save(px, x)
    out = os.path.join(tmp, "q4y.npy")
    rc, _, err = rlx("run", mp, "--params", st, "--input", "x=" + px, "-o", out)
    wd = ((nib.astype(np.float32) - 7) * sc.astype(np.float32))
    want = x.astype(np.float32) @ wd.T
    got = np.load(out).astype(np.float32) if rc == 0 else None
    t.ok(rc == 0 and np.allclose(got, want, rtol=2e-2, atol=2e-2),
         "q4f16_1-style uint32 weights (safetensors U32): unpacked by shifts and masks",
         err if rc else "got %r want %r" % (got, want))


def test_weights_files(t, tmp):
    mp = os.path.join(tmp, "cache.py")
    with open(mp, "w") as f:
        f.write(CACHE_MODEL)
    st = os.path.join(tmp, "cache.safetensors")
    rc, _, err = rlx("init-weights", mp, "--seed", "5", "-o", st)
    if not t.ok(rc == 0, "init-weights of uint16/uint32/uint64/float8 weights", err):
        return
    h = read_st(st)
    t.ok({k: v[0] for k, v in h.items()} == {"q": "U32", "e": "F8_E4M3", "g": "F8_E5M2",
                                              "u": "U16", "v": "U64"},
         "init-weights stores them as U32, F8_E4M3, F8_E5M2, U16, U64",
         repr({k: v[0] for k, v in h.items()}))
    cache = os.path.join(tmp, "cache_out")
    rc, _, err = rlx("transform", mp, "--weights", st, "--quiet", "-o", cache)
    if not t.ok(rc == 0, "transform: uint and float8 weights into a tensor cache", err):
        return
    with open(os.path.join(cache, "tensor-cache.json")) as f:
        recs = {r["name"]: r["dtype"] for s in json.load(f)["records"] for r in s["records"]}
    t.ok(sorted(recs.values()) == ["float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64"],
         "tensor-cache.json records name the dtypes as TVM does (uint32, float8_e4m3fn)",
         repr(recs))
    x = np.arange(4, dtype=np.float32)
    px = os.path.join(tmp, "cx.npy")
    np.save(px, x)
    o1, o2 = os.path.join(tmp, "c1.npy"), os.path.join(tmp, "c2.npy")
    rc1, _, e1 = rlx("run", mp, "--params", st, "--input", "x=" + px, "-o", o1)
    rc2, _, e2 = rlx("run", cache, "--input", "x=" + px, "-o", o2)
    q = np.frombuffer(h["q"][2], np.uint32)
    e = f8_values("float8_e4m3fn")[np.frombuffer(h["e"][2], np.uint8)]
    g = f8_values("float8_e5m2")[np.frombuffer(h["g"][2], np.uint8)]
    u = np.frombuffer(h["u"][2], np.uint16)
    v = np.frombuffer(h["v"][2], np.uint64)
    def f8(fmt, a):
        return f8_to_f32(fmt, f8_encode(fmt, a))
    ee = f8("float8_e4m3fn", f8("float8_e4m3fn", x) * e.astype(np.float32))
    gg = f8("float8_e5m2", f8("float8_e5m2", x) * g.astype(np.float32))
    want = ((((x.astype(np.uint32) ^ q).astype(np.float32) + ee) + gg) +
            (x.astype(np.uint16) + u).astype(np.float32)) + (x.astype(np.uint64) + v).astype(np.float32)
    ok = rc1 == 0 and rc2 == 0 and np.array_equal(np.load(o1), np.load(o2)) and \
        np.allclose(np.load(o1), want, rtol=1e-6)
    t.ok(ok, "run on the checkpoint and on the cache agree with NumPy", e1 + e2)


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx_dtypes_") as tmp:
        test_f8_casts(t, tmp)
        test_f8_io(t, tmp)
        test_uints(t, tmp)
        test_signed_shifts(t, tmp)
        test_q4(t, tmp)
        test_weights_files(t, tmp)
    t.done()


main()
