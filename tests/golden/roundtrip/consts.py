# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), i: R.Tensor((3,), dtype="int32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((3,), dtype="int32"), R.Tensor((), dtype="int32"), R.Tensor((2,), dtype="float16")):
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="float32") = R.add(x, R.const(1.5, "float32"))
            lv1: R.Tensor((2, 2), dtype="float32") = R.multiply(lv, R.const([[1.0, 2.0], [3.0, 4.0]], "float32"))
            lv2: R.Tensor((2, 2), dtype="float32") = R.subtract(lv1, R.const(1e-05, "float32"))
            lv3: R.Tensor((2, 2), dtype="float32") = R.minimum(lv2, R.const(float("inf"), "float32"))
            lv4: R.Tensor((2, 2), dtype="float32") = R.add(lv3, R.const(-0.1))
            gv: R.Tensor((2, 2), dtype="float32") = R.divide(lv4, R.const([0.5, 2.0]))
            gv1: R.Tensor((3,), dtype="int32") = R.add(i, R.const([1, -2, 3], "int32"))
            gv2: R.Tensor((), dtype="int32") = R.const(42)
            gv3: R.Tensor((2,), dtype="float16") = R.const([0.25, 65504.0], "float16")
            R.output(gv, gv1, gv2, gv3)
        return (gv, gv1, gv2, gv3)
