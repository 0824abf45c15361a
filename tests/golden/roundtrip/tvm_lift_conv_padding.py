# A module as written in TVM's LiftTransformParams tests: black-formatted
# signature with a trailing comma, `cls = Before`, tuple padding.
import tvm
from tvm.script import relax as R, tir as T
from tvm.script import ir as I


@tvm.script.ir_module
class Before:
    @R.function
    def main(
        x: R.Tensor((1, 3, 32, 32), "float32"),
        w1: R.Tensor((16, 3, 3, 3), "float32"),
        w2: R.Tensor((16, 16, 3, 3), "float32"),
    ) -> R.Tensor((1, 16, 32, 32), "float32"):
        R.func_attr({"num_input": 1})
        cls = Before
        with R.dataflow():
            conv1 = R.nn.conv2d(x, w1, padding=(1, 1), data_layout="NCHW", kernel_layout="OIHW")
            conv2 = R.nn.conv2d(
                conv1, w2, padding=(1, 1), data_layout="NCHW", kernel_layout="OIHW"
            )
            R.output(conv2)
        return conv2
