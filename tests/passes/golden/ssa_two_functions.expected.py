# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((4,), dtype="float32") = R.add(x, x)
            R.output(y)
        return y

    @R.function
    def g(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
            R.output(y)
        return y
