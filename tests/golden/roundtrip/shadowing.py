# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
            y: R.Tensor((2, 3), dtype="float32") = R.multiply(y, x)
            y: R.Tensor((2, 3), dtype="float32") = R.nn.relu(y)
            R.output(y)
        x: R.Tensor((2, 3), dtype="float32") = R.negative(x)
        y: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
        return y
