# A SwiGLU MLP (Llama's) as a user writes it: R.linear for the three
# projections, silu(gate) * up.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 64), dtype="float32"), w_gate: R.Tensor((172, 64), dtype="float32"), w_up: R.Tensor((172, 64), dtype="float32"), w_down: R.Tensor((64, 172), dtype="float32")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            gate = R.linear(x, w_gate)
            up = R.linear(x, w_up)
            act = R.nn.silu(gate) * up
            y = R.linear(act, w_down)
            R.output(y)
        return y
