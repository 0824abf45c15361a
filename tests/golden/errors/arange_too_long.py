# expect: 11:13 does not fit in int64
# a length beyond int64 (the double-to-int64 conversion was undefined)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.arange(0, 9223372036854775807, 1)
        return y
