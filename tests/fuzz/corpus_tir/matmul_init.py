from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mm(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(4, 4, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] += A[vi, vk] * B[vk, vj]

    @R.function
    def main(a: R.Tensor((4, 8), "float32"), b: R.Tensor((8, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.mm, (a, b), out_ty=R.Tensor((4, 4), "float32"))
            R.output(c)
        return c
