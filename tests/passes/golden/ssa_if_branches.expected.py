# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((4,), dtype="float32"):
        if c:
            t: R.Tensor((4,), dtype="float32") = R.add(x, x)
            y: R.Tensor((4,), dtype="float32") = R.multiply(t, t)
        else:
            t_1: R.Tensor((4,), dtype="float32") = R.subtract(x, x)
            y: R.Tensor((4,), dtype="float32") = R.exp(t_1)
        return y
