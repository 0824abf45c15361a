# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        a: R.Tensor((2, 4), dtype="float32") = R.abs(x)
        with R.dataflow():
            lv: R.Tensor((2, 4), dtype="float32") = R.sqrt(a)
            b: R.Tensor((2, 4), dtype="float32") = R.add(lv, x)
            R.output(b)
        c: R.Tensor((2, 4), dtype="float32") = R.multiply(b, a)
        with R.dataflow():
            lv1: R.Tensor((2, 4), dtype="float32") = R.nn.relu(c)
            R.output()
        with R.dataflow():
            lv2: R.Tensor((2, 4), dtype="float32") = R.tanh(c)
            d: R.Tensor((2, 4), dtype="float32") = R.subtract(lv2, b)
            e: R.Tensor((2, 4), dtype="float32") = R.add(d, c)
            R.output(d, e)
        return e
