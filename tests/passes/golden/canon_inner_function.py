# An inner function is canonicalized like the function holding it: its
# outputs used only in their own block become DataflowVars, and so do the
# enclosing block's (g survives: the call after the block reads it).
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            @R.function
            def g(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                with R.dataflow():
                    b = R.add(a, a)
                    c = R.multiply(b, a)
                    d = c
                    R.output(b, c, d)
                return d
            h = R.add(x, x)
            k = R.multiply(h, x)
            R.output(g, h, k)
        y = g(k)
        return y
