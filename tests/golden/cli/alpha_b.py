# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(inp: R.Tensor(("batch", 4), dtype="float32"), weight: R.Tensor((4, 4), dtype="float32")) -> R.Tensor(("batch", 4), dtype="float32"):
        batch = T.int64()
        with R.dataflow():
            wt: R.Tensor((4, 4), dtype="float32") = R.permute_dims(weight, axes=None)
            h: R.Tensor((batch, 4), dtype="float32") = R.matmul(inp, wt, out_dtype="void")
            out: R.Tensor((batch, 4), dtype="float32") = R.nn.relu(h)
            R.output(out)
        return out
