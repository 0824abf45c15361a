# Symbolic variables declared before R.func_attr, in a different order
# from the signature.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Before:
    @R.function
    def main(
        x: R.Tensor((1, 16, 32, "n"), "float32"),
        w1: R.Tensor((16, "m", 3, 3), "float32"),
    ) -> R.Tensor((1, 16, 32, "n"), "float32"):
        m = T.int64()
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            zeros = R.zeros((n, n), "float32")
            w2 = R.add(w1, R.const(1, "float32"))
            lv = R.sum(w2, axis=[1], keepdims=True)
            R.output(lv)
        return x
