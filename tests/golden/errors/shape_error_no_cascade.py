# expect: 11:17 inner dimensions
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((2, 5), dtype="float32"):
        with R.dataflow():
            c = R.matmul(a, b)
            d = R.add(c, c)
            e = R.exp(d)
            R.output(e)
        return e
