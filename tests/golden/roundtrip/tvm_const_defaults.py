# R.const without a dtype: Python ints are int32 and floats float32, as in
# TVM's relax.const.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Input:
    @R.function
    def main() -> R.Tensor((), "int32"):
        with R.dataflow():
            y = R.const(1)
            n = y
            R.output(n)
        return n

    @R.function
    def floats() -> R.Tensor((2,), "float32"):
        with R.dataflow():
            y = R.const([1.5, 2])
            R.output(y)
        return y

    @R.function
    def cast() -> R.Tensor((), "int32"):
        with R.dataflow():
            y = R.const(1)
            n = R.match_cast(y, R.Tensor((), "int32"))
            R.output(n)
        return n
