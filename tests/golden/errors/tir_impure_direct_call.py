# expect: 20:13 writes its arguments
# A prim_func that stores into its parameter is impure (TVM's
# IsPureFunction): a pure Relax function may not call it directly unless it
# says relax.force_pure.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def zero(A: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            A[i] = T.float32(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        _ = cls.zero(x)
        return x
