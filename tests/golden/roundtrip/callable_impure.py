# An impure callable parameter keeps purity=False when printed (it printed as
# a pure R.Callable, which reads back as a different function type), and a
# call through it whose void result is unused prints as the call alone, as
# TVM prints it.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(a: R.Tensor((16,), dtype="float32"), emit: R.Callable((R.Prim("int64"), R.Any), R.Tuple, purity=False), g: R.Callable((R.Tensor((16,), dtype="float32"),), R.Tensor((16,), dtype="float32"))) -> R.Tuple:
        b = g(a)
        emit(R.prim_value(0), b)
        r = emit(R.prim_value(1), a)
        return r
