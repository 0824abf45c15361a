# examples/llama_tp.py as TVM's LegalizeOps writes it, and as users write it
# by hand: the worker's rank is the runtime builtin runtime.disco.worker_id,
# matched to the symbolic variable r, and each worker's slice of a weight is
# R.strided_slice(w, begin=[r * D // 2], end=[(r + 1) * D // 2],
# assume_inbound=True) -- what TVM legalizes
# R.dist.redistribute_replica_to_shard to. `rlx transform --tensor-parallel 2`
# knows the rank of each worker it computes, so the slices (and the
# fusions and transposes over them) move into the transform and are stored
# per worker as NAME_shard-K: the cache is the one llama_tp.py gives, byte for
# byte (tests/e2e/run_tp.py). Without --tensor-parallel, lifting is TVM's:
# the rank is a run-time value and the slices stay in main.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(input_ids: R.Tensor(("n",), dtype="int64"), `model.embed_tokens.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.0.input_layernorm.weight`: R.Tensor((64,), dtype="float32"), `model.layers.0.self_attn.q_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.0.self_attn.k_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.0.self_attn.v_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.0.self_attn.o_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.0.post_attention_layernorm.weight`: R.Tensor((64,), dtype="float32"), `model.layers.0.mlp.gate_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.0.mlp.up_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.0.mlp.down_proj.weight`: R.Tensor((64, 128), dtype="float32"), `model.layers.1.input_layernorm.weight`: R.Tensor((64,), dtype="float32"), `model.layers.1.self_attn.q_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.1.self_attn.k_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.1.self_attn.v_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.1.self_attn.o_proj.weight`: R.Tensor((64, 64), dtype="float32"), `model.layers.1.post_attention_layernorm.weight`: R.Tensor((64,), dtype="float32"), `model.layers.1.mlp.gate_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.1.mlp.up_proj.weight`: R.Tensor((128, 64), dtype="float32"), `model.layers.1.mlp.down_proj.weight`: R.Tensor((64, 128), dtype="float32"), `model.norm.weight`: R.Tensor((64,), dtype="float32"), `lm_head.weight`: R.Tensor((128, 64), dtype="float32")) -> R.Tensor(("n", 128), dtype="float32"):
        n = T.int64()
        r = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            x0 = R.take(`model.embed_tokens.weight`, input_ids, axis=0)
            l0_h = R.nn.rms_norm(x0, `model.layers.0.input_layernorm.weight`, axes=[-1], epsilon=1e-05)
            l0_q_ws = R.strided_slice(`model.layers.0.self_attn.q_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l0_k_ws = R.strided_slice(`model.layers.0.self_attn.k_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l0_v_ws = R.strided_slice(`model.layers.0.self_attn.v_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l0_qkv_w = R.concat((l0_q_ws, l0_k_ws, l0_v_ws), axis=0)
            l0_qkv_wt = R.permute_dims(l0_qkv_w, axes=[1, 0])
            l0_qkv = R.matmul(l0_h, l0_qkv_wt, out_dtype="void")
            l0_parts = R.split(l0_qkv, indices_or_sections=3, axis=-1)
            l0_q = R.reshape(l0_parts[0], R.shape([n, 2, 16]))
            l0_k = R.reshape(l0_parts[1], R.shape([n, 2, 16]))
            l0_v = R.reshape(l0_parts[2], R.shape([n, 2, 16]))
            l0_qh = R.permute_dims(l0_q, axes=[1, 0, 2])
            l0_kh = R.permute_dims(l0_k, axes=[1, 2, 0])
            l0_vh = R.permute_dims(l0_v, axes=[1, 0, 2])
            l0_s = R.multiply(R.matmul(l0_qh, l0_kh, out_dtype="void"), R.const(0.25, "float32"))
            l0_p = R.nn.softmax(l0_s, axis=-1)
            l0_o = R.permute_dims(R.matmul(l0_p, l0_vh, out_dtype="void"), axes=[1, 0, 2])
            l0_o2 = R.reshape(l0_o, R.shape([n, 32]))
            l0_o_ws = R.strided_slice(`model.layers.0.self_attn.o_proj.weight`, axes=[1], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l0_attn_wt = R.permute_dims(l0_o_ws, axes=[1, 0])
            l0_attn_part = R.matmul(l0_o2, l0_attn_wt, out_dtype="void")
            l0_attn = R.ccl.allreduce(l0_attn_part, op_type="sum", in_group=True)
            l0_x1 = R.add(x0, l0_attn)
            l0_h2 = R.nn.rms_norm(l0_x1, `model.layers.0.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)
            l0_gate_ws = R.strided_slice(`model.layers.0.mlp.gate_proj.weight`, axes=[0], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l0_up_ws = R.strided_slice(`model.layers.0.mlp.up_proj.weight`, axes=[0], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l0_gu_w = R.concat((l0_gate_ws, l0_up_ws), axis=0)
            l0_gu_wt = R.permute_dims(l0_gu_w, axes=[1, 0])
            l0_gu = R.matmul(l0_h2, l0_gu_wt, out_dtype="void")
            l0_gu_parts = R.split(l0_gu, indices_or_sections=2, axis=-1)
            l0_act = R.multiply(R.nn.silu(l0_gu_parts[0]), l0_gu_parts[1])
            l0_down_ws = R.strided_slice(`model.layers.0.mlp.down_proj.weight`, axes=[1], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l0_down_wt = R.permute_dims(l0_down_ws, axes=[1, 0])
            l0_down_part = R.matmul(l0_act, l0_down_wt, out_dtype="void")
            l0_down = R.ccl.allreduce(l0_down_part, op_type="sum", in_group=True)
            l0_x2 = R.add(l0_x1, l0_down)
            l1_h = R.nn.rms_norm(l0_x2, `model.layers.1.input_layernorm.weight`, axes=[-1], epsilon=1e-05)
            l1_q_ws = R.strided_slice(`model.layers.1.self_attn.q_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l1_k_ws = R.strided_slice(`model.layers.1.self_attn.k_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l1_v_ws = R.strided_slice(`model.layers.1.self_attn.v_proj.weight`, axes=[0], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l1_qkv_w = R.concat((l1_q_ws, l1_k_ws, l1_v_ws), axis=0)
            l1_qkv_wt = R.permute_dims(l1_qkv_w, axes=[1, 0])
            l1_qkv = R.matmul(l1_h, l1_qkv_wt, out_dtype="void")
            l1_parts = R.split(l1_qkv, indices_or_sections=3, axis=-1)
            l1_q = R.reshape(l1_parts[0], R.shape([n, 2, 16]))
            l1_k = R.reshape(l1_parts[1], R.shape([n, 2, 16]))
            l1_v = R.reshape(l1_parts[2], R.shape([n, 2, 16]))
            l1_qh = R.permute_dims(l1_q, axes=[1, 0, 2])
            l1_kh = R.permute_dims(l1_k, axes=[1, 2, 0])
            l1_vh = R.permute_dims(l1_v, axes=[1, 0, 2])
            l1_s = R.multiply(R.matmul(l1_qh, l1_kh, out_dtype="void"), R.const(0.25, "float32"))
            l1_p = R.nn.softmax(l1_s, axis=-1)
            l1_o = R.permute_dims(R.matmul(l1_p, l1_vh, out_dtype="void"), axes=[1, 0, 2])
            l1_o2 = R.reshape(l1_o, R.shape([n, 32]))
            l1_o_ws = R.strided_slice(`model.layers.1.self_attn.o_proj.weight`, axes=[1], begin=[r * 64 // 2], end=[(r + 1) * 64 // 2], assume_inbound=True)
            l1_attn_wt = R.permute_dims(l1_o_ws, axes=[1, 0])
            l1_attn_part = R.matmul(l1_o2, l1_attn_wt, out_dtype="void")
            l1_attn = R.ccl.allreduce(l1_attn_part, op_type="sum", in_group=True)
            l1_x1 = R.add(l0_x2, l1_attn)
            l1_h2 = R.nn.rms_norm(l1_x1, `model.layers.1.post_attention_layernorm.weight`, axes=[-1], epsilon=1e-05)
            l1_gate_ws = R.strided_slice(`model.layers.1.mlp.gate_proj.weight`, axes=[0], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l1_up_ws = R.strided_slice(`model.layers.1.mlp.up_proj.weight`, axes=[0], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l1_gu_w = R.concat((l1_gate_ws, l1_up_ws), axis=0)
            l1_gu_wt = R.permute_dims(l1_gu_w, axes=[1, 0])
            l1_gu = R.matmul(l1_h2, l1_gu_wt, out_dtype="void")
            l1_gu_parts = R.split(l1_gu, indices_or_sections=2, axis=-1)
            l1_act = R.multiply(R.nn.silu(l1_gu_parts[0]), l1_gu_parts[1])
            l1_down_ws = R.strided_slice(`model.layers.1.mlp.down_proj.weight`, axes=[1], begin=[r * 128 // 2], end=[(r + 1) * 128 // 2], assume_inbound=True)
            l1_down_wt = R.permute_dims(l1_down_ws, axes=[1, 0])
            l1_down_part = R.matmul(l1_act, l1_down_wt, out_dtype="void")
            l1_down = R.ccl.allreduce(l1_down_part, op_type="sum", in_group=True)
            l1_x2 = R.add(l1_x1, l1_down)
            hn = R.nn.rms_norm(l1_x2, `model.norm.weight`, axes=[-1], epsilon=1e-05)
            lm_head_t16 = R.astype(R.permute_dims(`lm_head.weight`, axes=[1, 0]), dtype="float16")
            logits16 = R.matmul(R.astype(hn, dtype="float16"), lm_head_t16, out_dtype="void")
            logits = R.astype(logits16, dtype="float32")
            R.output(logits)
        return logits
