# Each branch annotates its result more precisely than the if's join
# (R.Tensor((4,)) and R.Tensor((5,)) join to R.Tensor(ndim=1)): the printer
# must keep the branch's own annotation on its binding and end the branch
# with a result line, not merge the two into one line with the join's
# annotation. The other two ifs' branches agree with the join and merge.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), c: R.Prim("bool")) -> R.Tensor(dtype="float32", ndim=1):
        n = T.int64()
        if c:
            q: R.Tensor((4,), dtype="float32") = R.add(x, x)
        else:
            q: R.Tensor((5,), dtype="float32") = R.multiply(x, x)
        if c:
            s: R.Tensor(("n",), dtype="float32") = R.add(x, q)
        else:
            s: R.Tensor(("n",), dtype="float32") = x
        if c:
            w: R.Tensor((n,), dtype="float32") = R.subtract(s, x)
        else:
            w: R.Tensor((n,), dtype="float32") = R.multiply(s, x)
        return w
