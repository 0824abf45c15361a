# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((), dtype="float32") = R.const(2.0, "float32")
            y: R.Tensor((4,), dtype="float32") = R.multiply(x, R.const(2.0, "float32"))
            z: R.Tensor((4,), dtype="float32") = R.add(y, R.const(2.0, "float32"))
            R.output(z)
        return z
