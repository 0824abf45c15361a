# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n", 8), dtype="float32"), `model.layers.0.input_layernorm.weight`: R.Tensor((8,), dtype="float32"), `model.layers.0.self_attn.q_proj.weight`: R.Tensor((8, 8), dtype="float32"), `model.layers.0.self_attn.k_proj.weight`: R.Tensor((8, 8), dtype="float32"), `model.layers.0.self_attn.v_proj.weight`: R.Tensor((8, 8), dtype="float32"), `model.layers.0.self_attn.o_proj.weight`: R.Tensor((8, 8), dtype="float32"), `model.layers.0.post_attention_layernorm.weight`: R.Tensor((8,), dtype="float32"), `model.layers.0.mlp.gate_proj.weight`: R.Tensor((16, 8), dtype="float32"), `model.layers.0.mlp.up_proj.weight`: R.Tensor((16, 8), dtype="float32"), `model.layers.0.mlp.down_proj.weight`: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((1, "n", 8), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, n, 8), dtype="float32") = R.nn.rms_norm(x, `model.layers.0.input_layernorm.weight`, axes=[-1], epsilon=1e-05)
            lv1: R.Tensor((8, 8), dtype="float32") = R.permute_dims(`model.layers.0.self_attn.q_proj.weight`, axes=None)
            lv2: R.Tensor((1, n, 8), dtype="float32") = R.matmul(lv, lv1, out_dtype="void")
            lv3: R.Tensor((8, 8), dtype="float32") = R.permute_dims(`model.layers.0.self_attn.k_proj.weight`, axes=None)
            lv4: R.Tensor((1, n, 8), dtype="float32") = R.matmul(lv, lv3, out_dtype="void")
            lv5: R.Tensor((8, 8), dtype="float32") = R.permute_dims(`model.layers.0.self_attn.v_proj.weight`, axes=None)
            lv6: R.Tensor((1, n, 8), dtype="float32") = R.matmul(lv, lv5, out_dtype="void")
            lv7: R.Tensor((1, n, 2, 4), dtype="float32") = R.reshape(lv2, R.shape([1, n, 2, 4]))
            lv8: R.Tensor((1, 2, n, 4), dtype="float32") = R.permute_dims(lv7, axes=[0, 2, 1, 3])
            lv9: R.Tensor((1, n, 2, 4), dtype="float32") = R.reshape(lv4, R.shape([1, n, 2, 4]))
            lv10: R.Tensor((1, 2, 4, n), dtype="float32") = R.permute_dims(lv9, axes=[0, 2, 3, 1])
            lv11: R.Tensor((1, n, 2, 4), dtype="float32") = R.reshape(lv6, R.shape([1, n, 2, 4]))
            lv12: R.Tensor((1, 2, n, 4), dtype="float32") = R.permute_dims(lv11, axes=[0, 2, 1, 3])
            lv13: R.Tensor((1, 2, n, n), dtype="float32") = R.matmul(lv8, lv10, out_dtype="void")
            lv14: R.Tensor((1, 2, n, n), dtype="float32") = R.multiply(lv13, R.const(0.5, "float32"))
            lv15: R.Tensor((1, 2, n, n), dtype="float32") = R.nn.softmax(lv14, axis=-1)
            lv16: R.Tensor((1, 2, n, 4), dtype="float32") = R.matmul(lv15, lv12, out_dtype="void")
            lv17: R.Tensor((1, n, 2, 4), dtype="float32") = R.permute_dims(lv16, axes=[0, 2, 1, 3])
            lv18: R.Tensor((1, n, 8), dtype="float32") = R.reshape(lv17, R.shape([1, n, 8]))
            lv19: R.Tensor((8, 8), dtype="float32") = R.permute_dims(`model.layers.0.self_attn.o_proj.weight`, axes=None)
            lv20: R.Tensor((1, n, 8), dtype="float32") = R.matmul(lv18, lv19, out_dtype="void")
            lv21: R.Tensor((1, n, 8), dtype="float32") = R.add(x, lv20)
            lv22: R.Tensor((1, n, 8), dtype="float32") = R.nn.rms_norm(lv21, `model.layers.0.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)
            lv23: R.Tensor((8, 16), dtype="float32") = R.permute_dims(`model.layers.0.mlp.gate_proj.weight`, axes=None)
            lv24: R.Tensor((1, n, 16), dtype="float32") = R.matmul(lv22, lv23, out_dtype="void")
            lv25: R.Tensor((1, n, 16), dtype="float32") = R.nn.silu(lv24)
            lv26: R.Tensor((8, 16), dtype="float32") = R.permute_dims(`model.layers.0.mlp.up_proj.weight`, axes=None)
            lv27: R.Tensor((1, n, 16), dtype="float32") = R.matmul(lv22, lv26, out_dtype="void")
            lv28: R.Tensor((1, n, 16), dtype="float32") = R.multiply(lv25, lv27)
            lv29: R.Tensor((16, 8), dtype="float32") = R.permute_dims(`model.layers.0.mlp.down_proj.weight`, axes=None)
            lv30: R.Tensor((1, n, 8), dtype="float32") = R.matmul(lv28, lv29, out_dtype="void")
            gv: R.Tensor((1, n, 8), dtype="float32") = R.add(lv21, lv30)
            R.output(gv)
        return gv
