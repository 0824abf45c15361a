# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple)):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32")) = (x, y)
            lv1: R.Tensor((2, 3), dtype="float32") = lv[0]
            lv2: R.Tensor((3,), dtype="float32") = lv[1]
            lv3: R.Tuple = ()
            lv4: R.Tuple(R.Tensor((3,), dtype="float32")) = (lv2,)
            lv5: R.Tensor((3,), dtype="float32") = lv4[0]
            lv6: R.Tensor((2, 3), dtype="float32") = R.add(lv1, lv5)
            gv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple)) = (lv6, (lv2, lv3))
            R.output(gv)
        return gv
