# expect: 9:13 nope
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = Before.nope(x)
        return z
