# Coefficients that overflow at every factor: each unfolded node, distributed
# over the next sum, is shared; walked as a tree it grew exponentially.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b", "c", "d", "e", "f", "g", "h"), "float32")):
        a = T.int64()
        b = T.int64()
        c = T.int64()
        d = T.int64()
        e = T.int64()
        f = T.int64()
        g = T.int64()
        h = T.int64()
        y = R.zeros(R.shape([(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)*(4294967296*a+4294967295*b+c+d+e+f+g+h)]), "float32")
        return y
