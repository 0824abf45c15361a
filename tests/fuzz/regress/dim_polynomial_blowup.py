# (a + ... + h) ** 16 in a dimension: 245,157 monomials, then a stack overflow
# walking the canonical tree (and exponential trees after an unfolded node).
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
        y = R.zeros(R.shape([(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)*(a+b+c+d+e+f+g+h)]), "float32")
        return y
