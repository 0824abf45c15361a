# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), i: R.Tensor((4,), dtype="int32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int32")):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="float32") = R.round(x)
            lv1: R.Tensor((4,), dtype="float32") = R.floor(lv)
            lv2: R.Tensor((4,), dtype="float32") = R.ceil(lv1)
            lv3: R.Tensor((4,), dtype="float32") = R.sign(lv2)
            gv: R.Tensor((4,), dtype="float32") = R.clip(lv3, R.prim_value(-1), R.prim_value(1))
            lv4: R.Tensor((4,), dtype="int32") = R.negative(i)
            lv5: R.Tensor((4,), dtype="int32") = R.abs(lv4)
            gv1: R.Tensor((4,), dtype="int32") = R.clip(lv5, 0, 6)
            R.output(gv, gv1)
        return (gv, gv1)
