# expect: 7:5 dict
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs(10)

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
