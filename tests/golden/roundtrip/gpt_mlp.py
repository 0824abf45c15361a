# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n", 8), dtype="float16"), `h.0.ln_2.weight`: R.Tensor((8,), dtype="float16"), `h.0.ln_2.bias`: R.Tensor((8,), dtype="float16"), `h.0.mlp.c_fc.weight`: R.Tensor((8, 32), dtype="float16"), `h.0.mlp.c_proj.weight`: R.Tensor((32, 8), dtype="float16")) -> R.Tensor((1, "n", 8), dtype="float16"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, n, 8), dtype="float16") = R.nn.layer_norm(x, `h.0.ln_2.weight`, `h.0.ln_2.bias`, axes=[-1], epsilon=1e-05, center=True, scale=True)
            lv1: R.Tensor((1, n, 32), dtype="float16") = R.matmul(lv, `h.0.mlp.c_fc.weight`, out_dtype="void")
            lv2: R.Tensor((1, n, 32), dtype="float16") = R.nn.gelu(lv1)
            lv3: R.Tensor((1, n, 8), dtype="float16") = R.matmul(lv2, `h.0.mlp.c_proj.weight`, out_dtype="void")
            gv: R.Tensor((1, n, 8), dtype="float16") = R.add(x, lv3)
            R.output(gv)
        return gv
