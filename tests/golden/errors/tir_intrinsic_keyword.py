# expect: 11:49 no keyword argument 'approx'
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.exp(A[i], dtype="float32", approx=True)
