# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), `model.layers.0.mlp.up_proj.weight`: R.Tensor((8, 4), dtype="float32"), `model.layers.0.mlp.up_proj.bias`: R.Tensor((8,), dtype="float32"), `lambda`: R.Tensor((8,), dtype="float32")) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            `model.layers.0.mlp.up_proj.weight.T`: R.Tensor((4, 8), dtype="float32") = R.permute_dims(`model.layers.0.mlp.up_proj.weight`, axes=None)
            `h-0/matmul`: R.Tensor((2, 8), dtype="float32") = R.matmul(x, `model.layers.0.mlp.up_proj.weight.T`, out_dtype="void")
            `y`: R.Tensor((2, 8), dtype="float32") = R.add(`h-0/matmul`, `model.layers.0.mlp.up_proj.bias`)
            gv: R.Tensor((2, 8), dtype="float32") = R.multiply(y, `lambda`)
            R.output(gv)
        return gv
