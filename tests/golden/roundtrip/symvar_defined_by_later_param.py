# A dimension may use a symbolic variable that a later parameter's shape
# defines ("k - 1" before "k"), as TVM's parser reads every parameter's
# bare names first.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("k - 1", "n"), "float32"), w: R.Tensor(("k", "n"), "float32")) -> R.Tensor(("k - 1 + k", "n"), "float32"):
        k = T.int64()
        n = T.int64()
        y = R.concat((x, w), axis=0)
        return y
