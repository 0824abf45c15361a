# expect: 11:38 leading zeros
# Python reads no decimal integer with leading zeros (007 is a syntax
# error; 0 and 00 are fine), so neither does rlx.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((00, 2), dtype="float32")) -> R.Tensor((0, 2), dtype="float32"):
        y = R.reshape(x, R.shape([0, 02]))
        return y
