# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), `model.layers.0.mlp.up_proj.weight`: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((2, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            `model.layers.0.mlp.up_proj.weight.T`: R.Tensor((8, 16), dtype="float32") = R.permute_dims(`model.layers.0.mlp.up_proj.weight`, axes=None)
            gv: R.Tensor((2, 16), dtype="float32") = R.matmul(x, `model.layers.0.mlp.up_proj.weight.T`, out_dtype="void")
            R.output(gv)
        return gv
