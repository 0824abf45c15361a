# expect: 11:9 more than 2^63-1 elements
# the element count of the new shape overflowed int64 (undefined behaviour in the fold)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.reshape(x, (9223372036854775807, 9223372036854775807))
        return y
