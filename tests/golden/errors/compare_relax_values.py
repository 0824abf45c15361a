# expect: 9:13 comparison
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "bool"):
        z = x == x
        return z
