# A branch whose last binding copies a variable (y2 = a, then z = y2): the
# copy is printed as a binding of its own, since `z = a` would read back as
# the branch returning a itself (one binding fewer).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        if cond:
            a: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
            y2: R.Tensor((2, 3), dtype="float32") = a
            z: R.Tensor((2, 3), dtype="float32") = y2
        else:
            z: R.Tensor((2, 3), dtype="float32") = x
        return z
