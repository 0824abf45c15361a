# Decorator forms: pure=True, pure=False, private=True; a call through cls.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(pure=True)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.double(x)
        return y

    @R.function(private=True)
    def double(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y

    @R.function(pure=False)
    def impure(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
