# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((4, 6), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((6, 4), dtype="float32") = R.reshape(x, R.shape([6, 4]))
            lv1: R.Tensor((24,), dtype="float32") = R.reshape(lv, (24,))
            lv2: R.Tensor((2, 12), dtype="float32") = R.reshape(lv1, [2, -1])
            lv3: R.Tensor((3, 8), dtype="float32") = R.reshape(lv2, shape=(-1, 8))
            lv4: R.Shape([4, 6]) = R.shape([4, 6])
            gv: R.Tensor((4, 6), dtype="float32") = R.reshape(lv3, lv4)
            R.output(gv)
        return gv
