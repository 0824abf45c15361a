# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", "n"), dtype="float32")) -> R.Tensor(("m", "n"), dtype="float32"):
        m = T.int64()
        n = T.int64()
        w: R.Tensor((m, n), dtype="float32") = R.add(x, x)
        v: R.Tensor((m, n), dtype="float32") = R.multiply(w, x)
        return v
