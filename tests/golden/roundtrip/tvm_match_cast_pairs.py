# Two symbolic variables declared on one line; match_cast to a shape
# without a dtype; Python operators on tensors.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class TestChangeShape:
    @R.function
    def main(x: R.Tensor(ndim=2)):
        y = x
        o, p = T.int64(), T.int64()
        z = R.match_cast(x, R.Tensor((o, p)))
        w = z
        q = R.add(w, y)
        return R.add(q, w)

    @R.function
    def ops(a: R.Tensor(("m", "n"), "float32"), b: R.Tensor(("m", "n"), "float32")):
        m, n = T.int64(), T.int64()
        c = a + b
        d = c * b - a / b
        e = -d // a
        return e
