# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float16"), R.Tensor((2, 3), dtype="bfloat16"), R.Tensor((2, 3), dtype="int8"), R.Tensor((2, 3), dtype="uint8"), R.Tensor((2, 3), dtype="float64")):
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="float16") = R.astype(x, dtype="float16")
            gv1: R.Tensor((2, 3), dtype="bfloat16") = R.astype(x, "bfloat16")
            lv: R.Tensor((2, 3), dtype="int32") = R.astype(x, dtype="int32")
            lv1: R.Tensor((2, 3), dtype="int16") = R.astype(lv, dtype="int16")
            gv2: R.Tensor((2, 3), dtype="int8") = R.astype(lv1, dtype="int8")
            gv3: R.Tensor((2, 3), dtype="uint8") = R.astype(gv2, dtype="uint8")
            lv2: R.Tensor((2, 3), dtype="bool") = R.astype(gv3, dtype="bool")
            lv3: R.Tensor((2, 3), dtype="int64") = R.astype(lv2, dtype="int64")
            gv4: R.Tensor((2, 3), dtype="float64") = R.astype(lv3, dtype="float64")
            R.output(gv, gv1, gv2, gv3, gv4)
        return (gv, gv1, gv2, gv3, gv4)
