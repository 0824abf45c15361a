# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        b = a
        with R.dataflow():
            c = R.multiply(b, b)
            R.output(c)
        return (a, c)
