# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = R.permute_dims(w, axes=None)
            lv1: R.Tensor((4, 4), dtype="float32") = R.builtin.stop_lift_params(lv)
            gv: R.Tensor((2, 4), dtype="float32") = R.matmul(x, lv1, out_dtype="void")
            R.output(gv)
        return gv
