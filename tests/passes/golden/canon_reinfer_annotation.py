# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 16), dtype="int32")) -> R.Tensor(dtype="int32", ndim=2):
        b = a
        c: R.Tensor(dtype="int32", ndim=2) = R.multiply(b, b)
        d: R.Tensor(dtype="int32", ndim=2) = R.add(c, a)
        return d
