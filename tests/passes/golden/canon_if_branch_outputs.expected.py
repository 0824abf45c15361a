# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((4,), dtype="float32"):
        if c:
            with R.dataflow():
                a: R.Tensor((4,), dtype="float32") = R.add(x, x)
                b: R.Tensor((4,), dtype="float32") = R.multiply(a, a)
                R.output(b)
            q: R.Tensor((4,), dtype="float32") = b
        else:
            with R.dataflow():
                a2: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
                b2: R.Tensor((4,), dtype="float32") = R.add(a2, a2)
                R.output(b2)
            q: R.Tensor((4,), dtype="float32") = b2
        return q
