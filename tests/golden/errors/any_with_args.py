# expect: 8:23 R.Any
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Any(2)) -> R.Any:
        return x
