# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32"), w1: R.Tensor((16, 16, 3, 3), dtype="float32"), w2: R.Tensor((16, 16, 3, 3), dtype="float32"), cond: R.Tensor((), dtype="bool")) -> R.Tensor((1, 16, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        if cond:
            w: R.Tensor((16, 16, 3, 3), dtype="float32") = w1
        else:
            w: R.Tensor((16, 16, 3, 3), dtype="float32") = w2
        with R.dataflow():
            conv1 = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], data_layout="NCHW", kernel_layout="OIHW")
            R.output(conv1)
        return conv1
