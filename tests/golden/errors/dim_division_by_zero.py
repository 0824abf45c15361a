# expect: 13:23 division by zero
# a constant zero divisor in a dimension: refused as TVM does ("Divide by zero")
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        y: R.Tensor(("n // (n - n)",), "float32") = R.zeros(R.shape([n]), "float32")
        return y
