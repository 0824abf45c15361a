# expect: 10:14 subscript 'j'
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((4, 5), dtype="float32")):
        gv = R.einsum((a, b), subscripts="ij,jk->ik")
        return gv
