# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", "n", 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), k: R.Tensor(("b", "n", "m"), dtype="float32")) -> R.Tensor(("b", "n", "n"), dtype="float32"):
        b = T.int64()
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((b, n, 16), dtype="float32") = R.matmul(x, w, out_dtype="void")
            lv1: R.Tensor((b, m, n), dtype="float32") = R.permute_dims(k, axes=[0, 2, 1])
            lv2: R.Tensor((b, n, n), dtype="float32") = R.matmul(k, lv1, out_dtype="void")
            gv: R.Tensor((b, n, n), dtype="float32") = R.nn.softmax(lv2, axis=-1)
            R.output(gv)
        return gv
