# A rank-0 annotation without a shape (ndim=0) is not the same struct info
# as the empty shape (() or []): TVM keeps the two apart (shape None vs
# ShapeExpr([])), and so does rlx's equality. The printer wrote both as
# the empty shape, so R.Shape(ndim=0) read back as R.Shape([]).
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=0), y: R.Tensor((), dtype="float32"), s: R.Shape(ndim=0), t: R.Shape([])) -> R.Tensor(dtype="float32", ndim=0):
        z = R.add(x, y)
        w: R.Tensor(dtype="float32", ndim=0) = R.add(y, y)
        return z
