# expect: 9:38 size must have 2 values
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32")):
        y = R.image.resize2d(x, size=(4, 4, 4))
        return y
