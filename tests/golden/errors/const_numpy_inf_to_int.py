# expect: 12:36 cannot be converted
# infinity has no int32 (NumPy leaves garbage)
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(np.array([1.0, float("inf")]), "int32")
        return y
