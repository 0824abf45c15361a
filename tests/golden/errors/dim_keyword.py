# expect: 11:28 'False'
# A keyword as a symbolic variable in a dimension string printed as `False`,
# which did not read back (found by libFuzzer).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("False",), "float32")):
        return x
