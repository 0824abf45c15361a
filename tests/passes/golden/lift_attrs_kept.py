# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num_input": 1, "rlx.note": "kept", "tuning": 3})
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            R.output(y)
        return y
