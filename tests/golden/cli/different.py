# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = R.permute_dims(w, axes=None)
            lv1: R.Tensor((n, 4), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            gv: R.Tensor((n, 4), dtype="float32") = R.sigmoid(lv1)
            R.output(gv)
        return gv
