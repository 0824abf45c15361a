# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), y: R.Tensor((2, 2), dtype="float32"), w: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        R.func_attr({"num_input": 2, "global_symbol": "main", "opt_level": 3, "relax.force_pure": True, "scale": 0.5})
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="float32") = R.add(x, y)
            gv: R.Tensor((2, 2), dtype="float32") = R.matmul(lv, w, out_dtype="void")
            R.output(gv)
        return gv

    @R.function(pure=False)
    def impure(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.add(x, x)
        return gv

    @R.function(private=True, pure=False)
    def helper(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        R.func_attr({"num_input": 0})
        gv: R.Tensor((2, 2), dtype="float32") = R.negative(x)
        return gv
