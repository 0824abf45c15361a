# expect: 8:45 vdevice must be a string
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "cuda:one")):
        return x
