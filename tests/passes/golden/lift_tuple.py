# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32"), w1: R.Tensor((16, 16, 3, 3), dtype="float32")) -> R.Tensor((1, 16, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            l0 = (w1,)
            l1 = (l0,)
            l2 = l1[0]
            l3 = l2[0]
            conv1 = R.nn.conv2d(x, l3, padding=[1, 1, 1, 1], data_layout="NCHW", kernel_layout="OIHW")
            conv2 = R.nn.conv2d(conv1, w1, padding=[1, 1, 1, 1], data_layout="NCHW", kernel_layout="OIHW")
            R.output(conv2)
        return conv2
