# expect: 11:21 out of range
# an integer that does not fit the dtype was silently wrapped (300 -> 44)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(300, "int8")
        return y
