# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def quantize(w: R.Tensor((4, 8), dtype="float32")) -> R.Tuple(R.Tensor((4, 2, 4), dtype="int8"), R.Tensor((4, 2, 1), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 2, 4), dtype="float32") = R.reshape(w, R.shape([4, 2, 4]))
            lv1: R.Tensor((4, 2, 4), dtype="float32") = R.abs(lv)
            lv2: R.Tensor((4, 2, 1), dtype="float32") = R.max(lv1, axis=[2], keepdims=True)
            lv3: R.Tensor((4, 2, 1), dtype="float32") = R.divide(lv2, R.const(127.0, "float32"))
            lv4: R.Tensor((4, 2, 1), dtype="float32") = R.maximum(lv3, R.const(1e-08, "float32"))
            lv5: R.Tensor((4, 2, 4), dtype="float32") = R.divide(lv, lv4)
            lv6: R.Tensor((4, 2, 4), dtype="float32") = R.round(lv5)
            lv7: R.Tensor((4, 2, 4), dtype="float32") = R.clip(lv6, R.prim_value(-127), R.prim_value(127))
            lv8: R.Tensor((4, 2, 4), dtype="int8") = R.astype(lv7, dtype="int8")
            gv: R.Tuple(R.Tensor((4, 2, 4), dtype="int8"), R.Tensor((4, 2, 1), dtype="float32")) = (lv8, lv4)
            R.output(gv)
        return gv
