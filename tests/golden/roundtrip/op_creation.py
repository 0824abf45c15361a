# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4,), dtype="int32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 3), dtype="float16"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64")):
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="float32") = R.zeros(R.shape([2, 3]), dtype="float32")
            gv1: R.Tensor((4,), dtype="int32") = R.ones((4,), "int32")
            gv2: R.Tensor((2, 2), dtype="float32") = R.full((2, 2), R.const(0.5, "float32"))
            gv3: R.Tensor((2, 3), dtype="float16") = R.full(shape=R.shape([2, 3]), fill_value=R.const(1.0, "float32"), dtype="float16")
            lv1: R.Tensor((2, 3), dtype="float32") = R.zeros_like(x)
            lv2: R.Tensor((2, 3), dtype="float32") = R.ones_like(x, dtype="float32")
            lv3: R.Tensor((2, 3), dtype="float32") = R.full_like(x, R.const(2.0, "float32"))
            lv4: R.Tensor((2, 3), dtype="float32") = R.add(gv, lv1)
            lv5: R.Tensor((2, 3), dtype="float32") = R.add(lv4, lv2)
            gv4: R.Tensor((2, 3), dtype="float32") = R.add(lv5, lv3)
            gv5: R.Tensor((2, 3), dtype="int64") = R.full_like(x, R.const(7, "int64"), dtype="int64")
            R.output(gv, gv1, gv2, gv3, gv4, gv5)
        return (gv, gv1, gv2, gv3, gv4, gv5)
