# lift-transform-params: a weight whose shape mentions symbolic variables only
# the inputs define (m * n): the transform's parameter used m and n undefined.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T
@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor(["m", "n"], "float32"), weight: R.Tensor(["m * n"], "float32")) -> R.Tensor(["m", "n"], "float32"):
        m = T.int64()
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w2 = R.reshape(weight, [m, n])
            output = R.multiply(x, w2)
            R.output(output)
        return output
