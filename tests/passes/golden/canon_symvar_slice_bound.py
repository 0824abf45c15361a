# n, told by a match_cast, is a runtime use of strided_slice (its end, a
# prim value in TVM): the cast that defines it keeps its pattern and the
# slice keeps the variable, but the slice's struct info reads n = 8. m has no
# runtime use: its cast becomes trivial and goes.
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")):
        n = T.int64()
        m = T.int64()
        xn = R.match_cast(x, R.Tensor((n,), "float32"))
        ym = R.match_cast(y, R.Tensor((m,), "float32"))
        s = R.add(x, ym)
        z = R.strided_slice(s, (R.prim_value(0),), (R.prim_value(0),), (R.prim_value(n),), assume_inbound=False)
        return z
