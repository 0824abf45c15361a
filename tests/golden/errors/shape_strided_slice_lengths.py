# expect: 10:14
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 6), dtype="float32")) -> R.Tensor((4, 6), dtype="float32"):
        gv = R.strided_slice(x, axes=[0], begin=[0, 0], end=[4])
        return gv
