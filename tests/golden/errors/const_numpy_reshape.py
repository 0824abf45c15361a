# expect: 12:21 cannot reshape 6
# a reshape to another number of elements
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(np.arange(6, dtype="float32").reshape((4, 2)))
        return y
