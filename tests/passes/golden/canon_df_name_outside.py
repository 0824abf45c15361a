# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            lv1 = R.add(x, R.const(1.0, "float32"))
            gv1 = lv1
            gv2 = R.add(lv1, R.const(1.0, "float32"))
            R.output(gv1, gv2)
        return (gv1, gv2)
