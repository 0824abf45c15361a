# Lowered code as TVM's memory planning and VM passes print it: a pure
# prim_func (no store into a buffer it does not allocate) called directly
# from a pure function, an impure one under relax.force_pure, and
# R.vm.call_tir_dyn. The prim_funcs use the shorthands TVM's printer once
# wrote: `n, m = T.int64(), T.int64()`, T.grid(*A.shape), one name for a
# grid's loop variables, a buffer shaped as another (B.shape), T.attr as a
# statement over the rest of its block, dtype= on a math intrinsic.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def noop(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.evaluate(0)

    @T.prim_func(private=True, s_tir=True)
    def exp2d(a: T.handle, b: T.handle):
        n, m = T.int64(), T.int64()
        A = T.match_buffer(a, (n, m))
        B = T.match_buffer(b, (n, m))
        C = T.sblock_alloc_buffer(A.shape, "float32")
        for ij in T.grid(n, m):
            with T.sblock("exp"):
                vi, vj = T.axis.remap("SS", ij)
                C[vi, vj] = T.exp(A[vi, vj], dtype="float32")
        for i, j in T.grid(*B.shape):
            with T.sblock("copy"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.attr(0, "pragma_scope", "seq")
                B[vi, vj] = C[vi, vj]

    @T.prim_func(private=True, s_tir=True)
    def fill(A: T.handle, n: T.int64):
        X = T.match_buffer(A, (n,))
        for i in range(n):
            X[i] = T.float32(0)

    @R.function
    def pure_call(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _ = cls.noop(x, y)
        return y

    @R.function
    def forced(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), R.prim_value(0))
        _ = cls.exp2d(x, y)
        return y

    @R.function(pure=False)
    def dyn(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0))
        R.vm.call_tir_dyn(cls.fill, (y, R.shape([n])))
        return y

    @T.prim_func(private=True, s_tir=True)
    def is_multiple(N: T.int64) -> T.bool:
        return N % T.int64(16) == T.int64(0)

    @R.function(pure=False)
    def check(A: R.Tensor(("N",), "float32")) -> R.Tensor(("N",), "float32"):
        N = T.int64()
        ok: R.Prim("bool") = Module.is_multiple(R.prim_value(N))
        _ = R.assert_op(ok)
        return A

    @T.prim_func(private=True, s_tir=True)
    def relu_any(a: T.handle, b: T.handle):
        T.evaluate(0)

    @R.function
    def via_relax(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = relax.call_tir(cls.relu_any, (x,), R.Tensor((4,), dtype="float32"))
        return y
