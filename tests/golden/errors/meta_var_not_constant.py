# expect: 12:13 I.meta_var here takes an integer
# I.meta_var of anything but an integer has no value rlx can give it
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        C = I.meta_var(T.int64())
        return x
