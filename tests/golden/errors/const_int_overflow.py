# expect: 11:21 expected a number
# an int product past int64 (UBSan: signed overflow before it was checked)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.const(9223372036854775807 * 2)
        return y
