# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tuple(R.Tensor(("m",), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tensor(("m",), dtype="float32"):
        m = T.int64()
        a: R.Tensor((m,), dtype="float32") = x[0]
        b: R.Tensor((m,), dtype="float32") = R.add(a, a)
        return b
