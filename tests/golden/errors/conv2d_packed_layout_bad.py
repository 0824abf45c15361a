# expect: 9:13 must be a layout of "NCHW"
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 1, 6, 6, 4), dtype="float32"), w: R.Tensor((4, 4, 3, 3), dtype="float32")):
        y = R.nn.conv2d(x, w, data_layout="NCHW4x")
        return y
