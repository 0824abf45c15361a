# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((16, 16), dtype="float32"), b: R.Tensor((32, 32), dtype="float32")):
        n = T.int64()
        k = T.int64()
        m = T.int64()
        a1 = R.match_cast(a, R.Tensor((n, m), dtype="float32"))
        b1 = R.match_cast(b, R.Tensor((k, m), dtype="float32"))
        return (a1, b1)
