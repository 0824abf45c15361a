# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), `layer.q_weight`: R.Tensor((4, 2, 4), dtype="int8"), `layer.q_scale`: R.Tensor((4, 2, 1), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((4, 2, 4), dtype="float32") = R.astype(`layer.q_weight`, dtype="float32")
            lv1: R.Tensor((4, 2, 4), dtype="float32") = R.multiply(lv, `layer.q_scale`)
            lv2: R.Tensor((4, 8), dtype="float32") = R.reshape(lv1, R.shape([4, 8]))
            lv3: R.Tensor((8, 4), dtype="float32") = R.permute_dims(lv2, axes=None)
            gv: R.Tensor((n, 4), dtype="float32") = R.matmul(x, lv3, out_dtype="void")
            R.output(gv)
        return gv
