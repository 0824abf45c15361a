# expect: 12:21 at most 1048576
# np.zeros of 16M elements is a few bytes of text: refused, not allocated
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(np.zeros((4096, 4096)), "float32")
        return y
