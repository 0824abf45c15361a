# expect: 10:28 unpacks only a buffer's shape
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(*A):
            A[i, j] = T.float32(0)
