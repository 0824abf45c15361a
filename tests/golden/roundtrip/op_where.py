# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((2, 1), dtype="bool"), x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.where(c, x, y)
            lv1: R.Tensor((2, 3), dtype="bool") = R.greater(lv, R.const(1.0, "float32"))
            gv: R.Tensor((2, 3), dtype="float32") = R.where(lv1, lv, R.const(1.0, "float32"))
            R.output(gv)
        return gv
