from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        S = T.sblock_alloc_buffer((16,), scope="shared")
        for o in range(4):
            with T.sblock("outer"):
                vo = T.axis.spatial(4, o)
                L = T.sblock_alloc_buffer((4,), scope="local")
                for k in range(4):
                    with T.sblock("load"):
                        vk = T.axis.spatial(4, k)
                        L[vk] = A[vo * 4 + vk]
                for k in range(4):
                    with T.sblock("store"):
                        vk = T.axis.spatial(4, k)
                        S[vo * 4 + vk] = L[vk] * T.float32(2)
        for i in range(16):
            with T.sblock("out"):
                vi = T.axis.spatial(16, i)
                B[vi] = S[vi]
