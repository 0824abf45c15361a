# expect: 12:45 NumPy dtype
# an astype to no dtype NumPy has
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(np.array([1, 2]).astype("float33"))
        return y
