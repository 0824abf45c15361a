# expect: 11:23 loop variables: index it
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4, 4), "int32")):
        for ij in T.grid(4, 4):
            A[0, 0] = ij
