# expect: 11:13 padding is too large
# padding whose sum overflows int64 (was undefined behaviour in inference)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 4, 4), "float32")):
        y = R.nn.conv2d(x, R.zeros(R.shape([1, 1, 3, 3]), "float32"), padding=[9223372036854775807, 1, 9223372036854775807, 1])
        return y
