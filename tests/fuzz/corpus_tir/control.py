from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32"), n: T.int32):
        for i in T.serial(16, annotations={"pragma": 1}):
            x: T.let[T.int32] = A[i] * 2
            if x > n and not (i == 3):
                B[i] = T.Cast("float32", x) / T.float32(2)
            else:
                B[i] = T.Select(i % 2 == 0, T.float32(1), T.if_then_else(x < 0, T.float32(-1), T.float32(0)))
        T.evaluate(T.assume(n >= 0))
