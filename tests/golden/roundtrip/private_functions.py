# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function(private=True)
    def scale(x: R.Tensor(("n",), dtype="float32"), s: R.Tensor((), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        gv: R.Tensor((n,), dtype="float32") = R.multiply(x, s)
        return gv

    @R.function(private=True)
    def norm(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n,), dtype="float32") = R.multiply(x, x)
            lv1: R.Tensor((), dtype="float32") = R.mean(lv)
            lv2: R.Tensor((), dtype="float32") = R.rsqrt(lv1)
            R.output(lv2)
        gv: R.Tensor((n,), dtype="float32") = cls.scale(x, lv2)
        return gv

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        gv: R.Tensor((8,), dtype="float32") = cls.norm(x)
        return gv
