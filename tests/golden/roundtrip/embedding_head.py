# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor(("n",), dtype="int32"), `model.embed_tokens.weight`: R.Tensor((16, 8), dtype="float32"), `model.norm.weight`: R.Tensor((8,), dtype="float32"), `lm_head.weight`: R.Tensor((16, 8), dtype="float32")) -> R.Tuple(R.Tensor(("n", 16), dtype="float32"), R.Tensor(("n",), dtype="int64")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((n, 8), dtype="float32") = R.take(`model.embed_tokens.weight`, ids, axis=0)
            lv1: R.Tensor((n, 8), dtype="float32") = R.nn.rms_norm(lv, `model.norm.weight`, axes=[-1], epsilon=1e-06)
            lv2: R.Tensor((8, 16), dtype="float32") = R.permute_dims(`lm_head.weight`, axes=None)
            lv3: R.Tensor((n, 16), dtype="float32") = R.matmul(lv1, lv2, out_dtype="void")
            gv: R.Tensor((n, 16), dtype="float32") = R.nn.softmax(lv3, axis=-1)
            gv1: R.Tensor((n,), dtype="int64") = R.argmax(gv, axis=-1, keepdims=False)
            R.output(gv, gv1)
        return (gv, gv1)
