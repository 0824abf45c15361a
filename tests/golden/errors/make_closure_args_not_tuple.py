# expect: 14:41 args
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def scale(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(w: R.Tensor((4,), dtype="float32")) -> R.Any:
        clo = R.make_closure(cls.scale, w)
        return clo
