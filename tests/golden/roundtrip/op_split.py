# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32")) -> R.Tensor((4, 6), dtype="float32"):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4, 3), dtype="float32")) = R.split(x, indices_or_sections=2, axis=-1)
            lv1: R.Tensor((4, 3), dtype="float32") = lv[0]
            lv2: R.Tensor((4, 3), dtype="float32") = lv[1]
            lv3: R.Tuple(R.Tensor((1, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32"), R.Tensor((1, 6), dtype="float32")) = R.split(x, [1, 3])
            lv4: R.Tensor((2, 6), dtype="float32") = lv3[1]
            lv5: R.Tuple(R.Tensor((2, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32")) = R.split(x, 2)
            lv6: R.Tensor((2, 6), dtype="float32") = lv5[0]
            lv7: R.Tensor((4, 6), dtype="float32") = R.concat((lv2, lv1), axis=1)
            lv8: R.Tensor((4, 6), dtype="float32") = R.concat((lv6, lv4), axis=0)
            gv: R.Tensor((4, 6), dtype="float32") = R.add(lv7, lv8)
            R.output(gv)
        return gv
