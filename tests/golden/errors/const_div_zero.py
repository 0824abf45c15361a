# expect: 12:21 expected a number
# Python raises on a division by zero
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(1.0 / 0, "float32")
        return y
