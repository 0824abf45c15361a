# expect: 13:13 argument
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            return y

        z = inner(x, x)
        return z
