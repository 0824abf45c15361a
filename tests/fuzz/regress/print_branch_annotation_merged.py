# rlx-fuzz: accept
# The if's branches annotate q more precisely ((4,) and (5,)) than their join
# (ndim=1): the printer merged each branch's binding with its result line
# under the join's annotation, so the module read back lost (4,) and (5,).
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), a: R.Tensor((4,), "float32"), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        if R.prim_value(n == 4):
            an: R.Tensor((n,), "float32") = R.match_cast(a, R.Tensor((n,), "float32"))
            if c:
                q: R.Tensor((4,), "float32") = R.add(an, x)
            else:
                q: R.Tensor((5,), "float32") = R.multiply(an, x)
            lv: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")) = (q, x)
            r: R.Tuple(R.Tensor((n,), "float32")) = R.match_cast(lv, R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")))
        else:
            r: R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")) = (x, x)
        out: R.Tensor((n,), "float32") = r[0]
        return out
