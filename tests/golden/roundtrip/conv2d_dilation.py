# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 9, 9), dtype="float32"), w: R.Tensor((2, 1, 3, 3), dtype="float32")) -> R.Tensor((2, 2, 7, 7), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 2, 7, 7), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[2, 2], groups=2)
            R.output(gv)
        return gv
