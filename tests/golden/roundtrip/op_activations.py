# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), h: R.Tensor((2, 8), dtype="float16")) -> R.Tuple(R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 8), dtype="float16"), R.Tensor((2, 8), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((2, 8), dtype="float32") = R.nn.relu(x)
            lv1: R.Tensor((2, 8), dtype="float32") = R.nn.silu(lv)
            lv2: R.Tensor((2, 8), dtype="float32") = R.nn.gelu(lv1)
            gv: R.Tensor((2, 8), dtype="float32") = R.nn.gelu_tanh(lv2)
            lv3: R.Tensor((2, 8), dtype="float16") = R.nn.gelu_tanh(h)
            gv1: R.Tensor((2, 8), dtype="float16") = R.nn.silu(lv3)
            gv2: R.Tensor((2, 8), dtype="float32") = R.nn.selu(x)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
