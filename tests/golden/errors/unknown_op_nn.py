# expect: 10:14 conv4d
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4, 4), dtype="float32"), w: R.Tensor((2, 2, 1, 1, 1), dtype="float32")) -> R.Tensor((1, 2, 4, 4, 4), dtype="float32"):
        gv = R.nn.conv4d(x, w)
        return gv
