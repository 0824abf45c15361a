# The expected side of a TVM test: every conv2d attribute written, one per
# line, with the trailing comma black adds.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Expected:
    @R.function
    def main(
        x: R.Tensor((1, 3, 32, 32), dtype="float32"),
        w2: R.Tensor((16, 16, 3, 3), dtype="float32"),
        w1_t: R.Tensor((16, 3, 3, 3), dtype="float32"),
    ) -> R.Tensor((1, 16, 32, 32), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            conv1: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(
                x,
                w1_t,
                strides=[1, 1],
                padding=[1, 1, 1, 1],
                dilation=[1, 1],
                groups=1,
                data_layout="NCHW",
                kernel_layout="OIHW",
                out_layout="NCHW",
                out_dtype="void",
            )
            conv2: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(
                conv1,
                w2,
                strides=[1, 1],
                padding=[1, 1, 1, 1],
                dilation=[1, 1],
                groups=1,
                data_layout="NCHW",
                kernel_layout="OIHW",
                out_layout="NCHW",
                out_dtype="void",
            )
            R.output(conv2)
        return conv2
