# A bool R.Prim whose value is a comparison of symbolic dimensions: in the
# signature the printer writes its value as a string ("a == b"), which the
# dimension parser must read back (it read sums and products only).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b"), dtype="float32"), c: R.Prim("bool", value="a <= b")):
        a = T.int64()
        b = T.int64()
        y = R.prim_value(a == b)
        return y
