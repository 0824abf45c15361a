# reshape to a list of symbolic dims; strided_slice over several lines.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Before:
    @R.function
    def main(
        x: R.Tensor(["m", "n"], "float32"),
        weight: R.Tensor(["m * n"], "float32"),
    ) -> R.Tensor(["m", "n"], "float32"):
        m = T.int64()
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            weight = R.add(weight, R.const(1, "float32"))
            weight = R.reshape(weight, [m, n])
            output = R.multiply(x, weight)
            first = R.strided_slice(
                output,
                axes=[0],
                begin=[0],
                end=[1],
                assume_inbound=False,
            )
            R.output(output)
        return output
