# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 16), dtype="int32")) -> R.Tensor(("n", 16), dtype="int32"):
        n = T.int64()
        c: R.Tensor((n, 16), dtype="int32") = R.multiply(a, a)
        d: R.Tensor((n, 16), dtype="int32") = R.add(c, a)
        return d
