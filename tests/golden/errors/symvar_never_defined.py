# expect: 8:28 undefined
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("k - 1",), "float32")) -> R.Tensor(("k - 1",), "float32"):
        return x
