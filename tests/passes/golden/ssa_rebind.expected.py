# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((4,), dtype="float32") = R.add(x, x)
            y_1: R.Tensor((4,), dtype="float32") = R.multiply(y, x)
            y_2: R.Tensor((4,), dtype="float32") = R.exp(y_1)
            R.output(y_2)
        return y_2
