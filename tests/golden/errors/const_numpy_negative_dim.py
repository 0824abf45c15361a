# expect: 12:30 negative dimension
# np.zeros of a negative dimension
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(np.zeros((2, -1), dtype="float32"))
        return y
