# A Llama-style MLP block with Hugging Face checkpoint names.
# `rlx lift examples/mlp.py` moves the weight transposes and the gate/up
# concatenation into main_transform_params.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 64), dtype="float32"), `model.layers.0.post_attention_layernorm.weight`: R.Tensor((64,), dtype="float32"), `model.layers.0.mlp.gate_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.0.mlp.up_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.0.mlp.down_proj.weight`: R.Tensor((64, 128), dtype="float32")) -> R.Tensor(("n", 64), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            h = R.nn.rms_norm(x, `model.layers.0.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)
            gate_up = R.concat((`model.layers.0.mlp.gate_proj.weight`, `model.layers.0.mlp.up_proj.weight`), axis=0)
            gate_up_t = R.permute_dims(gate_up, axes=[1, 0])
            gu = R.matmul(h, gate_up_t, out_dtype="void")
            parts = R.split(gu, indices_or_sections=2, axis=-1)
            gate = parts[0]
            up = parts[1]
            act = R.multiply(R.nn.silu(gate), up)
            down_t = R.permute_dims(`model.layers.0.mlp.down_proj.weight`, axes=[1, 0])
            y = R.matmul(act, down_t, out_dtype="void")
            out = R.add(x, y)
            R.output(out)
        return out
