# A GPT-2 transformer block as a user writes it: layer norms, fused QKV
# linear, a causal mask made with R.tril, softmax attention, a GELU MLP and
# residuals, written with Python operators (`@`, `+`, `*`) and tuple
# unpacking of R.split; the same attention through R.nn.attention(causal_mask="TopLeft")
# as the second result. Weights are the function's parameters after x.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n", 64), dtype="float32"), ln1_g: R.Tensor((64,), dtype="float32"), ln1_b: R.Tensor((64,), dtype="float32"), w_qkv: R.Tensor((192, 64), dtype="float32"), b_qkv: R.Tensor((192,), dtype="float32"), w_o: R.Tensor((64, 64), dtype="float32"), b_o: R.Tensor((64,), dtype="float32"), ln2_g: R.Tensor((64,), dtype="float32"), ln2_b: R.Tensor((64,), dtype="float32"), w_fc: R.Tensor((256, 64), dtype="float32"), b_fc: R.Tensor((256,), dtype="float32"), w_proj: R.Tensor((64, 256), dtype="float32"), b_proj: R.Tensor((64,), dtype="float32")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            h = R.nn.layer_norm(x, ln1_g, ln1_b, axes=[-1])
            qkv = R.linear(h, w_qkv, b_qkv)
            q0, k0, v0 = R.split(qkv, 3, axis=-1)
            q = R.reshape(q0, R.shape([1, n, 4, 16]))
            k = R.reshape(k0, R.shape([1, n, 4, 16]))
            v = R.reshape(v0, R.shape([1, n, 4, 16]))
            qt = R.permute_dims(q, axes=[0, 2, 1, 3])
            kt = R.permute_dims(k, axes=[0, 2, 3, 1])
            vt = R.permute_dims(v, axes=[0, 2, 1, 3])
            scores = (qt @ kt) * R.const(0.25, "float32")
            mask = R.tril(R.ones(R.shape([n, n]), dtype="bool"))
            masked = R.where(mask, scores, R.const(-1e9, "float32"))
            p = R.nn.softmax(masked, axis=-1)
            a = R.permute_dims(p @ vt, axes=[0, 2, 1, 3])
            attn = R.reshape(a, R.shape([1, n, 64]))
            x1 = x + R.linear(attn, w_o, b_o)
            h2 = R.nn.layer_norm(x1, ln2_g, ln2_b, axes=[-1])
            f = R.nn.gelu(R.linear(h2, w_fc, b_fc))
            out = x1 + R.linear(f, w_proj, b_proj)
            fused = R.reshape(R.nn.attention(q, k, v, causal_mask="TopLeft"), R.shape([1, n, 64]))
            R.output(out, fused, attn)
        return (out, fused, attn)
