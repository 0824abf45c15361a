# expect: 10:14 more than 2^63-1 elements
# a tensor of more than 2^63-1 elements cannot exist
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((9223372036854775807, 2), "float32")):
        return x
