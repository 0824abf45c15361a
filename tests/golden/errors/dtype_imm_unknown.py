# expect: 9:28 unknown dtype
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        R.print(x, R.dtype("flaot32"), format="{}")
        return x
