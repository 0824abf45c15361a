# Prim values with T.int64/T.int32, R.Prim parameters, T.int64 dims.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor((T.int64(4), T.int64(8)), "float32"),
        p: R.Prim("int64"),
    ) -> R.Tuple(R.Prim(value=3), R.Prim("int32", value=0), R.Tensor((4, 8), dtype="float32")):
        a = R.prim_value(T.int64(3))
        b = R.prim_value(T.int32(0))
        c = R.clip(x, R.prim_value(0), R.prim_value(6))
        return (a, b, c)
