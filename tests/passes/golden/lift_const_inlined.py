# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            c = R.const(2.0, "float32")
            ws = R.multiply(w, c)
            xs = R.multiply(x, c)
            y = R.matmul(xs, ws)
            R.output(y)
        return y
