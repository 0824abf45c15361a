# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="bool"), R.Tensor((2, 3), dtype="bool"), R.Tensor((2, 3), dtype="bool"), R.Tensor((2, 3), dtype="bool")):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="bool") = R.equal(x, y)
            lv1: R.Tensor((2, 3), dtype="bool") = R.not_equal(x, y)
            lv2: R.Tensor((2, 3), dtype="bool") = R.less(x, y)
            lv3: R.Tensor((2, 3), dtype="bool") = R.less_equal(x, y)
            lv4: R.Tensor((2, 3), dtype="bool") = R.greater(x, y)
            lv5: R.Tensor((2, 3), dtype="bool") = R.greater_equal(x, R.const(0.0, "float32"))
            gv: R.Tensor((2, 3), dtype="bool") = R.logical_and(lv, lv1)
            gv1: R.Tensor((2, 3), dtype="bool") = R.logical_or(lv2, lv3)
            gv2: R.Tensor((2, 3), dtype="bool") = R.logical_not(lv4)
            gv3: R.Tensor((2, 3), dtype="bool") = R.logical_xor(lv, lv5)
            R.output(gv, gv1, gv2, gv3)
        return (gv, gv1, gv2, gv3)
