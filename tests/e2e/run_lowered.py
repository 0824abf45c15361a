#!/usr/bin/python3
"""run_lowered.py — lowered code run through `rlx run` and `rlx transform`,
NumPy as the oracle.

Lowered code is what TVM's pipeline leaves after memory planning: storage
allocated with R.memory.alloc_storage, tensors placed in it with
R.memory.alloc_tensor (storage reused once a tensor is killed), or made
with R.builtin.alloc_tensor, and prim_funcs called directly in destination
passing style (`cls.f(x, out)`, `R.vm.call_tir_dyn(cls.f, (x, out,
R.shape([n])))`), writing into the tensors they are given. The cases:
chains through reused storage, symbolic dims passed as shape values and
prim values, a pure op reading a tensor between two writes (the executor
must not move it past the second), a tensor at an unaligned offset, a
memory view, tensor_to_shape and size, a stub prim_func with bare T.handle parameters, call_tir_inplace
on a dead input and on a live one, and a lowered transform streamed into a
tensor cache; a transform lifted with --consume-params run; a write into an input, returned (TVM's semantics). Then the errors: a tensor outside its storage, a write into a
constant and into a weight, an argument count and
an entry check that do not match -- each located, exit 1.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402

rng = np.random.default_rng(7)
HEAD = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n" \
       "from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n"

# y = x * 0.5 + 1 over an (n, m) float32 buffer
HALF = '''
    @T.prim_func
    def half(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(0.5) + T.float32(1)
'''
# c = a + b, with the row count a scalar parameter
ADDN = '''
    @T.prim_func
    def addn(a: T.handle, b: T.handle, c: T.handle, n: T.int64):
        A = T.match_buffer(a, (n, 4), "float32")
        B = T.match_buffer(b, (n, 4), "float32")
        C = T.match_buffer(c, (n, 4), "float32")
        for i, j in T.grid(n, 4):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
'''
# b = a (a copy)
COPY = '''
    @T.prim_func
    def copy(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
'''
# a += 1, in place
INC = '''
    @T.prim_func
    def inc(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            with T.block("A"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)
'''


class Case:
    def __init__(self, tmp, tap):
        self.tmp, self.t, self.n = tmp, tap, 0

    def write(self, body):
        self.n += 1
        d = os.path.join(self.tmp, "c%d" % self.n)
        os.makedirs(d)
        path = os.path.join(d, "m.py")
        with open(path, "w") as f:
            f.write(HEAD + body)
        return d, path

    def run(self, body, inputs, extra=()):
        """(exit status, outputs, stderr) of rlx run on inputs {name: array}."""
        d, path = self.write(body)
        args = [path]
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), v)
            args += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        out = os.path.join(d, "out")
        rc, so, se = rlx("run", *args, *extra, "-o", out)
        if rc != 0:
            return rc, None, se
        if os.path.isdir(out):
            n = len([f for f in os.listdir(out) if f.endswith(".npy")])
            return rc, [np.load(os.path.join(out, "%d.npy" % i)) for i in range(n)], se
        return rc, [np.load(out)], se

    def check(self, name, body, inputs, wants, extra=()):
        rc, outs, se = self.run(body, inputs, extra)
        if rc != 0:
            return self.t.ok(False, name, "rlx run exit %d\n%s" % (rc, se))
        if len(outs) != len(wants):
            return self.t.ok(False, name, "%d outputs, expected %d" % (len(outs), len(wants)))
        for g, w in zip(outs, wants):
            w = np.asarray(w)
            if g.shape != w.shape or not np.allclose(g, w, rtol=1e-6, atol=1e-6):
                return self.t.ok(False, name, "got\n%s\nexpected\n%s" % (g, w))
        return self.t.ok(True, name)

    def error(self, name, body, inputs, want, extra=()):
        rc, _, se = self.run(body, inputs, extra)
        ok = rc == 1 and all(w in se for w in want) and "Sanitizer" not in se
        return self.t.ok(ok, name, "exit %d, stderr:\n%s\nwanted: %s" % (rc, se, want))


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def half(x):
    return x * np.float32(0.5) + np.float32(1)


def storage_chain(c):
    """Four calls through three storages, one reused after its tensor is
    killed, the last output from R.builtin.alloc_tensor; at (3, 5), (1, 1)
    and (0, 4)."""
    body = HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        cls = Module
        s0 = R.memory.alloc_storage(R.shape([n * m * 4]), 0, "global", "uint8")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([n, m]), "float32")
        _0 = cls.half(x, a0)
        s1 = R.memory.alloc_storage(R.shape([n * m * 4]), 0, "global", "uint8")
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([n, m]), "float32")
        _1 = cls.half(a0, a1)
        _2 = R.memory.kill_tensor(a0)
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([n, m]), "float32")
        _3 = cls.half(a1, a2)
        _4 = R.memory.kill_tensor(a1)
        a3 = R.builtin.alloc_tensor(R.shape([n, m]), "float32", 0)
        _5 = cls.half(a2, a3)
        _6 = R.memory.kill_tensor(a2)
        _7 = R.memory.kill_storage(s0)
        _8 = R.memory.kill_storage(s1)
        return a3
'''
    for shape in ((3, 5), (1, 1), (0, 4)):
        x = f32(*shape)
        c.check("storage reused across four direct calls %s" % (shape,), body,
                {"x": x}, [half(half(half(half(x))))])


def scalars(c):
    """The row count as a prim value (cls.f) and as a shape value
    (R.vm.call_tir_dyn), both storages of float32 elements."""
    for call in ("cls.addn(x, y, out, R.prim_value(n))",
                 "R.vm.call_tir_dyn(cls.addn, (x, y, out, R.shape([n])))"):
        body = ADDN + '''
    @R.function(pure=False)
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        cls = Module
        s = R.memory.alloc_storage(R.shape([n, 4]), 0, "global", "float32")
        out = R.memory.alloc_tensor(s, 0, R.shape([n, 4]), "float32")
        _ = %s
        return out
''' % call
        for n in (1, 7):
            x, y = f32(n, 4), f32(n, 4)
            c.check("%s, n=%d" % (call.split("(")[0], n), body, {"x": x, "y": y},
                    [x + y])


def no_reorder(c):
    """b = a + a reads a between two writes of a: b must be 2x, not 2y
    (the executor fuses elementwise chains into their consumer, never past
    a call that writes)."""
    body = COPY + '''
    @R.function(pure=False)
    def main(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")):
        cls = Module
        a = R.builtin.alloc_tensor(R.shape([8]), "float32", 0)
        _0 = cls.copy(x, a)
        b = R.add(a, a)
        _1 = cls.copy(y, a)
        c = R.multiply(b, a)
        return (c, a)
'''
    x, y = f32(8), f32(8)
    c.check("a pure op between two writes reads the first", body, {"x": x, "y": y},
            [(x + x) * y, y])


def unaligned(c):
    """A tensor at byte 4 of its storage (not 64-byte aligned): written
    through an aligned copy, copied back; then read by another call."""
    body = HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((3, 3), "float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([40]), 0, "global", "uint8")
        a = R.memory.alloc_tensor(s, 4, R.shape([3, 3]), "float32")
        _0 = cls.half(x, a)
        b = R.builtin.alloc_tensor(R.shape([3, 3]), "float32", 0)
        _1 = cls.half(a, b)
        return (a, b)
'''
    x = f32(3, 3)
    c.check("a tensor at an unaligned offset", body, {"x": x}, [half(x), half(half(x))])


def view(c):
    """R.memory.view: the float32 bits of a tensor as int32, and a 1-d
    view of a (2, 3) tensor at byte 4."""
    body = HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        a = R.builtin.alloc_tensor(R.shape([2, 3]), "float32", 0)
        _0 = cls.half(x, a)
        b = R.memory.view(a, R.shape([2, 3]), "int32")
        c = R.memory.view(a, R.shape([4]), "float32", 4)
        return (b, c)
'''
    x = f32(2, 3)
    h = half(x)
    c.check("memory views of a written tensor", body, {"x": x},
            [h.view(np.int32), h.reshape(-1)[1:5]])


def stub(c):
    """A prim_func of bare T.handle parameters and an empty body (TVM's
    frontend tests write such stubs): called, it writes nothing."""
    body = '''
    @T.prim_func(private=True)
    def stub(a: T.handle, b: T.handle):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        y = R.call_tir(cls.stub, (x,), out_sinfo=R.Tensor((2, 3), "float32"))
        z = R.add(x, x)
        return z
'''
    x = f32(2, 3)
    c.check("a stub prim_func of bare handles", body, {"x": x}, [x + x])


def inplace(c):
    """call_tir_inplace on an input whose last use it is (written in
    place) and on one used afterwards (a copy is written: the later use
    sees the old value), and on a function parameter."""
    body = COPY + INC + '''
    @R.function
    def main(x: R.Tensor((5,), "float32")):
        cls = Module
        a = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((5,), "float32"))
        b = R.call_tir_inplace(cls.inc, (a,), 0, out_sinfo=R.Tensor((5,), "float32"))
        c = R.call_tir(cls.copy, (b,), out_sinfo=R.Tensor((5,), "float32"))
        d = R.call_tir_inplace(cls.inc, (c,), 0, out_sinfo=R.Tensor((5,), "float32"))
        e = R.add(c, d)
        f = R.call_tir_inplace(cls.inc, (x,), 0, out_sinfo=R.Tensor((5,), "float32"))
        return (b, e, f, x)
'''
    x = f32(5)
    c.check("call_tir_inplace: dead, live and parameter inputs", body, {"x": x},
            [x + 1, (x + 1) + (x + 2), x + 1, x])
    rc, so, se = rlx("run", c.write(body)[1], "--print-plan")
    c.t.ok(rc == 0 and "in place" in so, "--print-plan says which writes in place",
           so + se)


def transform(c):
    """A lowered main_transform_params streamed into a tensor cache: the
    tuple's first field is bound before the call that writes it, so it
    must be stored after that call, not when bound. main then reads the
    cache."""
    body = HALF + COPY + '''
    @R.function(pure=False)
    def main_transform_params(params: R.Tuple(R.Tensor((4, 6), "float32"),
                                              R.Tensor((10,), "float32"))):
        cls = Module
        w = params[0]
        v = params[1]
        a = R.builtin.alloc_tensor(R.shape([4, 6]), "float32", 0)
        _0 = cls.half(w, a)
        b = R.builtin.alloc_tensor(R.shape([10]), "float32", 0)
        _1 = cls.copy(v, b)
        return (a, b)

    @R.function
    def main(x: R.Tensor((4, 6), "float32"), a: R.Tensor((4, 6), "float32"),
             b: R.Tensor((10,), "float32")):
        R.func_attr({"num_input": 1})
        y = R.add(x, a)
        return (y, b)
'''
    d, path = c.write(body)
    w, v, x = f32(4, 6), f32(10), f32(4, 6)
    ck = os.path.join(d, "w.safetensors")
    write_safetensors(ck, {"w": w, "v": v})
    cache = os.path.join(d, "cache")
    rc, so, se = rlx("transform", path, "--weights", ck, "--quiet", "-o", cache)
    if not c.t.ok(rc == 0, "rlx transform of a lowered transform", se):
        return
    np.save(os.path.join(d, "x.npy"), x)
    out = os.path.join(d, "out")
    rc, so, se = rlx("run", os.path.join(cache, "model.py"), "--params", cache,
                     "--input", "x=" + os.path.join(d, "x.npy"), "-o", out)
    ok = rc == 0
    if ok:
        y, b = np.load(os.path.join(out, "0.npy")), np.load(os.path.join(out, "1.npy"))
        ok = np.allclose(y, x + half(w), rtol=1e-6) and np.array_equal(b, v)
    c.t.ok(ok, "the cache holds what the calls wrote", "%s\n%s" % (so, se))
    # the same transform writing into its weight (mapped from the file)
    bad = body.replace("_0 = cls.half(w, a)", "_0 = cls.half(a, w)")
    d, path = c.write(bad)
    write_safetensors(os.path.join(d, "w.safetensors"), {"w": w, "v": v})
    rc, so, se = rlx("transform", path, "--weights", os.path.join(d, "w.safetensors"),
                     "--quiet", "-o", os.path.join(d, "cache"))
    c.t.ok(rc == 1 and "m.py:" in se and "read-only" in se
           and not os.path.exists(os.path.join(d, "cache")),
           "a write into a weight is a located error, no cache left", se)


def shapes(c):
    """R.tensor_to_shape of an int64 and an int32 tensor, match_cast to bind
    its values, a tensor of that shape allocated and written; R.size."""
    body = HALF + '''
    @R.function(pure=False)
    def main(s: R.Tensor((2,), "%s"), x: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        cls = Module
        sh = R.tensor_to_shape(s)
        sh2 = R.match_cast(sh, R.Shape([n, m]))
        a = R.builtin.alloc_tensor(sh2, "float32", 0)
        _0 = cls.half(x, a)
        k = R.size(a)
        return (a, k)
'''
    x = f32(3, 2)
    for dt in ("int64", "int32"):
        c.check("tensor_to_shape of %s, then size" % dt, body % dt,
                {"s": np.array([3, 2], dt), "x": x}, [half(x), np.array(6, np.int64)])
    c.error("tensor_to_shape of a negative value", body % "int64",
            {"s": np.array([3, -2], np.int64), "x": x},
            ["m.py:24:14:", "value 1 is not a dimension (-2)"])


def consumed(c):
    """`rlx lift --consume-params` (TVM's consume_params): the transform
    frees each weight after its first read with
    vm.builtin.tuple_reset_item; rlx transform runs it, main reads the
    cache."""
    body = '''
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w1: R.Tensor((3, 4), "float32"),
             w2: R.Tensor((3,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            t = R.permute_dims(w1)
            b = R.multiply(w2, R.const(2, "float32"))
            y = R.add(R.matmul(x, t), b)
            R.output(y)
        return y
'''
    d, path = c.write(body)
    w1, w2, x = f32(3, 4), f32(3), f32(2, 4)
    ck = os.path.join(d, "w.safetensors")
    write_safetensors(ck, {"w1": w1, "w2": w2})
    np.save(os.path.join(d, "x.npy"), x)
    lifted = os.path.join(d, "lifted.py")
    rc, so, se = rlx("lift", "--consume-params", path, "-o", lifted)
    if not c.t.ok(rc == 0 and "vm.builtin.tuple_reset_item" in open(lifted).read(),
                  "lift --consume-params", se):
        return
    cache = os.path.join(d, "cache")
    rc, so, se = rlx("transform", lifted, "--weights", ck, "--quiet", "-o", cache)
    out = os.path.join(d, "out.npy")
    if rc == 0:
        rc, so, se = rlx("run", os.path.join(cache, "model.py"), "--params", cache,
                         "--input", "x=" + os.path.join(d, "x.npy"), "-o", out)
    ok = rc == 0 and np.allclose(np.load(out), x @ w1.T + 2 * w2, rtol=1e-5, atol=1e-5)
    c.t.ok(ok, "a consumed transform runs into a cache main reads", se)


def errors(c):
    x = f32(2, 3)
    body = HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([24]), 0, "global", "uint8")
        a = R.memory.alloc_tensor(s, %s, R.shape([2, 3]), "float32")
        _0 = cls.half(x, a)
        return a
'''
    c.check("a tensor that fills its storage", body % "0", {"x": x}, [half(x)])
    c.error("a tensor past the end of its storage", body % "8", {"x": x},
            ["m.py:23:13:", "24 bytes at byte 8"])
    c.error("a write into a constant", HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        _0 = cls.half(x, R.const(1, "float32") * R.ones((2, 3), "float32"))
        return x
'''.replace('R.const(1, "float32") * R.ones((2, 3), "float32")',
            'R.const([[1, 2, 3], [4, 5, 6]], "float32")'), {"x": x},
            ["m.py:22:14:", "'half'", "read-only"])
    y = f32(2, 3)
    c.check("a write into an input, returned", HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        cls = Module
        _0 = cls.half(x, y)
        return (y, x)
''', {"x": x, "y": y}, [half(x), x])
    c.error("a direct call of too few arguments", HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        _0 = cls.half(x)
        return x
''', {"x": x}, ["m.py:22:14:", "expects 2 arguments, got 1"])
    c.error("a direct call whose output has another dtype", HALF + '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        a = R.builtin.alloc_tensor(R.shape([2, 3]), "int32", 0)
        _0 = cls.half(x, a)
        return a
''', {"x": x}, ["m.py:23:14:", "'half'", "int32 where the buffer's is float32"])


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx-lowered-") as tmp:
        c = Case(tmp, t)
        for fn in (storage_chain, scalars, no_reorder, unaligned, view, stub,
                   inplace, transform, consumed, shapes, errors):
            t.guard(fn, c)
    t.done()


if __name__ == "__main__":
    main()
