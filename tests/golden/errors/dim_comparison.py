# expect: 15:35 cannot be part of a dimension
# A comparison is a bool: R.prim_value(n == 4) and `if n == 4:` may hold
# one, a dimension may not, alone or inside a sum or product (the printer
# could not write such a shape back in a signature).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b"), dtype="float32")):
        a = T.int64()
        b = T.int64()
        y = R.zeros(R.shape([a + (a < b)]), "float32")
        return y
