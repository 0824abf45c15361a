# A branch that learns n = 4 from a match_cast reads it (y's struct info is
# (4,)) and ends in a match_cast back to the if's (n,): after the if, n is
# unknown again. n is used by the condition, so the casts keep n.
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), a: R.Tensor((4,), "float32")):
        n = T.int64()
        if n == 4:
            an = R.match_cast(a, R.Tensor((n,), "float32"))
            r: R.Tensor((n,), "float32") = R.add(an, x)
        else:
            r: R.Tensor((n,), "float32") = R.multiply(x, x)
        out = R.add(r, x)
        return out
