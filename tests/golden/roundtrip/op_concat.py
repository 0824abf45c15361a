# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((4, 3), dtype="float32"), c: R.Tensor((2, 5), dtype="float32")) -> R.Tuple(R.Tensor((6, 3), dtype="float32"), R.Tensor((2, 8), dtype="float32"), R.Tensor((2, 11), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((6, 3), dtype="float32") = R.concat((a, b))
            gv1: R.Tensor((2, 8), dtype="float32") = R.concat((a, c), axis=1)
            lv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = (a, c, a)
            gv2: R.Tensor((2, 11), dtype="float32") = R.concat(lv, -1)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
