# Comparisons of symbolic dims: an if on one, a bool prim value of one.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor(["M", "N"], dtype="float32")) -> R.Tensor(["M", "N"], dtype="float32"):
        M = T.int64()
        N = T.int64()
        if N == 16:
            out = R.add(A, A)
        else:
            out = R.multiply(A, A)
        c = R.prim_value(N % 16 == 0)
        d = R.prim_value(M * 2 <= N + 1)
        if c:
            r = R.nn.relu(out)
        else:
            r = out
        return r

    @R.function
    def slices(A: R.Tensor(["n", 8], dtype="float32"), i: R.Prim(value="k")) -> R.Tensor(["n", 2], dtype="float32"):
        n = T.int64()
        k = T.int64()
        a = R.strided_slice(A, [0], [k], [k + 1], assume_inbound=True)
        b = R.strided_slice(A, (R.prim_value(1),), (R.prim_value(0),), (R.prim_value(4),), (R.prim_value(2),), assume_inbound=False)
        c = R.strided_slice(A, axes=[0, 1], begin=[0, 1], end=[n, T.int64(3)])
        return c
