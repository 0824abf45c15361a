# The re-cast at an if exit when the branch's result is not a variable: the
# tuple (((4,), (4,)) where n = 4 is known) is bound first, then cast back
# to the if's struct info. The inner if learns nothing of its own (n = 4
# holds in both its branches): no cast.
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), a: R.Tensor((4,), "float32"), c: R.Prim("bool")):
        n = T.int64()
        if n == 4:
            an = R.match_cast(a, R.Tensor((n,), "float32"))
            if c:
                q: R.Tensor((n,), "float32") = R.add(an, x)
            else:
                q: R.Tensor((n,), "float32") = R.multiply(an, x)
            r = (q, x)
        else:
            r = (x, x)
        out = r[0]
        return out
