# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tuple(R.Tensor(("m",), dtype="float32"), R.Tensor((4,), dtype="float32"))):
        o = T.int64()
        z = R.match_cast(x, R.Tuple(R.Tensor((o,), dtype="float32"), R.Tensor((4,), dtype="float32")))
        a = z[0]
        b = R.add(a, a)
        return b
