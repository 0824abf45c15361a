from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def twice(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("t"):
                vi = T.axis.spatial(8, i)
                A[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def fill(a: T.handle, m: T.int64):
        X = T.match_buffer(a, (m,))
        for i in range(m):
            X[i] = T.float32(1)

    @R.function
    def inplace(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        y = R.call_tir_inplace(cls.twice, (x,), inplace_indices=[0], out_ty=R.Tensor((8,), "float32"))
        return y

    @R.function
    def dyn(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.fill, (), out_ty=R.Tensor((m,), "float32"), tir_vars=R.shape([m]))
        return y

    @R.function(pure=False)
    def direct(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        cls.twice(x)
        return x
