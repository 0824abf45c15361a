from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            @R.function
            def g(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                with R.dataflow():
                    b: R.Tensor((4,), "float32") = R.add(a, a)
                    d: R.Tensor((4,), "float32") = R.multiply(b, a)
                    R.output(d)
                return d
            h: R.Tensor((4,), "float32") = R.add(x, x)
            k: R.Tensor((4,), "float32") = R.multiply(h, x)
            R.output(g, k)
        y: R.Tensor((4,), "float32") = g(k)
        return y
