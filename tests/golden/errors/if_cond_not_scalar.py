# expect: 10:12
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((2,), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        if c:
            y: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
        else:
            y: R.Tensor((2, 3), dtype="float32") = x
        return y
