# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 1, 3), dtype="int32"), b: R.Tensor((5, 1), dtype="int32")) -> R.Tensor((4, 5, 3), dtype="int32"):
        with R.dataflow():
            lv: R.Tensor((4, 5, 3), dtype="int32") = R.add(a, b)
            lv1: R.Tensor((4, 5, 3), dtype="int32") = R.floor_divide(lv, R.const(3, "int32"))
            lv2: R.Tensor((4, 5, 3), dtype="int32") = R.multiply(lv1, b)
            lv3: R.Tensor((4, 5, 3), dtype="int32") = R.subtract(lv2, a)
            gv: R.Tensor((4, 5, 3), dtype="int32") = R.maximum(lv3, R.const(0, "int32"))
            R.output(gv)
        return gv
