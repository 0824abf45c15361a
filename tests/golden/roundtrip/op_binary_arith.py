# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32"), z: R.Tensor((2, 1), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
            lv1: R.Tensor((2, 3), dtype="float32") = R.subtract(lv, z)
            lv2: R.Tensor((2, 3), dtype="float32") = R.multiply(lv1, y)
            lv3: R.Tensor((2, 3), dtype="float32") = R.divide(lv2, z)
            lv4: R.Tensor((2, 3), dtype="float32") = R.floor_divide(lv3, R.const(2.0, "float32"))
            lv5: R.Tensor((2, 3), dtype="float32") = R.power(lv4, R.const(2.0, "float32"))
            lv6: R.Tensor((2, 3), dtype="float32") = R.maximum(lv5, y)
            gv: R.Tensor((2, 3), dtype="float32") = R.minimum(lv6, z)
            R.output(gv)
        return gv
