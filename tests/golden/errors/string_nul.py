# expect: 11:22 NUL character
# A NUL in a string (here the escape \0) cannot be kept: refused, not cut short.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num\0input": 0})
        return x
