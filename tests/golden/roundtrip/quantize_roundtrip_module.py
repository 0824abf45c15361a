# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function(private=True)
    def quantize(w: R.Tensor((4, 8), dtype="float32")) -> R.Tuple(R.Tensor((4, 8), dtype="int8"), R.Tensor((4, 1), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.abs(w)
            lv1: R.Tensor((4, 1), dtype="float32") = R.max(lv, axis=[-1], keepdims=True)
            lv2: R.Tensor((4, 1), dtype="float32") = R.divide(lv1, R.const(127.0, "float32"))
            lv3: R.Tensor((4, 8), dtype="float32") = R.divide(w, lv2)
            lv4: R.Tensor((4, 8), dtype="float32") = R.round(lv3)
            lv5: R.Tensor((4, 8), dtype="float32") = R.clip(lv4, -127, 127)
            lv6: R.Tensor((4, 8), dtype="int8") = R.astype(lv5, dtype="int8")
            gv: R.Tuple(R.Tensor((4, 8), dtype="int8"), R.Tensor((4, 1), dtype="float32")) = (lv6, lv2)
            R.output(gv)
        return gv

    @R.function(private=True)
    def dequantize(q: R.Tensor((4, 8), dtype="int8"), s: R.Tensor((4, 1), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.astype(q, dtype="float32")
            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(lv, s)
            R.output(gv)
        return gv

    @R.function
    def main(w: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        t: R.Tuple(R.Tensor((4, 8), dtype="int8"), R.Tensor((4, 1), dtype="float32")) = cls.quantize(w)
        q: R.Tensor((4, 8), dtype="int8") = t[0]
        s: R.Tensor((4, 1), dtype="float32") = t[1]
        gv: R.Tensor((4, 8), dtype="float32") = cls.dequantize(q, s)
        return gv
