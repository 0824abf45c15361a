# expect: 10:23 differ outside axis
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        gv = R.concat((a, b), axis=0)
        return gv
