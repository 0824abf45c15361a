# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n * 2", 2), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n * 4,), dtype="float32") = R.reshape(x, R.shape([n * 4]))
            lv1: R.Tensor((n, 2, 2), dtype="float32") = R.reshape(lv, R.shape([n, 2, 2]))
            lv2: R.Tensor((2, n * 2), dtype="float32") = R.reshape(lv1, (2, -1))
            lv3: R.Tensor((n * 2, 2), dtype="float32") = R.permute_dims(lv2, axes=None)
            gv: R.Tensor((n * 2, 2), dtype="float32") = R.reshape(lv1, R.shape([2 * n, 2]))
            R.output(gv)
        return gv
