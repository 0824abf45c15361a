# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(dtype="float32", ndim=1), s: R.Shape(ndim=2)) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        a = T.int64()
        b = T.int64()
        lv: R.Tensor((n,), dtype="float32") = R.match_cast(y, R.Tensor((n,), dtype="float32"))
        lv1: R.Tensor((T.max(n, 4),), dtype="float32") = R.match_cast(x, R.Tensor((T.max(n, 4),), dtype="float32"))
        lv2: R.Shape([a, b]) = R.match_cast(s, R.Shape([a, b]))
        lv3: R.Tensor((a, b), dtype="float32") = R.zeros(lv2, dtype="float32")
        gv: R.Tensor((n,), dtype="float32") = R.add(x, lv)
        return gv
