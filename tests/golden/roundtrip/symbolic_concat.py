# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 4), dtype="float32"), b: R.Tensor(("m", 4), dtype="float32"), c: R.Tensor(("n + m", 2), dtype="float32")) -> R.Tensor(("n + m", 6), dtype="float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((n + m, 4), dtype="float32") = R.concat((a, b), axis=0)
            lv1: R.Tensor((m + n, 4), dtype="float32") = R.concat((a, b))
            lv2: R.Tensor((n + m, 4), dtype="float32") = R.add(lv, lv1)
            gv: R.Tensor((n + m, 6), dtype="float32") = R.concat((lv2, c), axis=1)
            R.output(gv)
        return gv
