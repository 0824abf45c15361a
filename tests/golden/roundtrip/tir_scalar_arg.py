# TVM main's call_tir: a symbolic variable standing alone in the argument
# list is a scalar argument (R.prim_value), and `-> None` on a prim_func is
# no return type, as TVM's printer writes it.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(A: R.Tensor((16, 16), dtype="int32"), shape: R.Shape(["k"])) -> R.Tensor((16,), dtype="int32"):
        k = T.int64()
        cls = Module
        with R.dataflow():
            s = R.call_tir(cls.row, [A, k], out_ty=R.Tensor((16,), dtype="int32"))
            R.output(s)
        return s

    @T.prim_func(private=True, s_tir=True)
    def row(A: T.Buffer((16, 16), "int32"), k: T.int64, out: T.Buffer((16,), "int32")) -> None:
        for j in range(16):
            with T.sblock("row"):
                vj = T.axis.remap("S", [j])
                T.reads(A[k, vj])
                T.writes(out[vj])
                out[vj] = A[k, vj]
