# Several functions sharing weights; permute_dims with positional axes.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def func1(
        x: R.Tensor((64, 64), "float32"),
        w1: R.Tensor((64, 64), "float32"),
    ) -> R.Tensor((64, 64), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1, [1, 0])
            y = R.matmul(x, w1_t)
            R.output(y)
        return y

    @R.function
    def func2(
        x: R.Tensor((64, 64), "float32"),
        w1: R.Tensor((32, 64), "float32"),
    ) -> R.Tensor((64, 32), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1, [1, 0])
            y = R.matmul(x, w1_t)
            R.output(y)
        return y

    @R.function
    def func3(
        x: R.Tensor((64, 64), "float32"), w1: R.Tensor((64, 64), "float32")
    ) -> R.Tensor((64, 64), "float32"):
        with R.dataflow():
            w1_t = R.permute_dims(w1, axes=[1, 0])
            y = R.matmul(x, w1_t)
            R.output(y)
        return y
