from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(4, thread="threadIdx.x"):
                for v in T.vectorized(4):
                    with T.sblock("copy"):
                        vi = T.axis.spatial(64, bx * 16 + tx * 4 + v)
                        T.where(bx * 16 + tx * 4 + v < 60)
                        B[vi] = T.exp(A[vi]) + T.sqrt(T.fabs(A[vi]))
        for u in T.unroll(2):
            with T.sblock("tail"):
                vu = T.axis.spatial(2, u)
                B[62 + vu] = T.float16(0)
