# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
            c: R.Tensor((), dtype="bool") = R.greater(lv, R.const(0.0, "float32"))
            R.output(c)
        if c:
            y: R.Tensor((4,), dtype="float32") = R.multiply(x, R.const(2.0, "float32"))
        else:
            lv1: R.Tensor((4,), dtype="float32") = R.negative(x)
            lv2: R.Tensor((4,), dtype="float32") = R.exp(lv1)
            y: R.Tensor((4,), dtype="float32") = R.add(lv2, x)
        z: R.Tensor((4,), dtype="float32") = R.nn.relu(y)
        return z
