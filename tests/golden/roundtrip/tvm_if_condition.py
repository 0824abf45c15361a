# A condition that cannot be lifted: if/else on a bool parameter.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(
        x: R.Tensor((1, 16, 8, 8), "float32"),
        w1: R.Tensor((16, 16, 3, 3), "float32"),
        w2: R.Tensor((16, 16, 3, 3), "float32"),
        cond: R.Tensor((), "bool"),
    ) -> R.Tensor((1, 16, 8, 8), "float32"):
        R.func_attr({"num_input": 1})
        if cond:
            w = w1
        else:
            w = w2
        with R.dataflow():
            conv1 = R.nn.conv2d(x, w, padding=(1, 1), data_layout="NCHW", kernel_layout="OIHW")
            R.output(conv1)
        return conv1
