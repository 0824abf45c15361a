from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4, 4), "int8"), B: T.Buffer((4, 4), "int64"), C: T.Buffer((), "bool")):
        for i, j in T.grid(T.int64(4), T.int64(4)):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.Cast("int64", A[vi, vj]) // T.int64(3) + T.floormod(vi, T.int64(2)) * T.truncdiv(vj, T.int64(2))
        C[()] = T.max_value("int8") > T.min_value("int8")
