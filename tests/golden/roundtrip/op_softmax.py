# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 5), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((2, 3, 5), dtype="float32") = R.nn.softmax(x)
            gv1: R.Tensor((2, 3, 5), dtype="float32") = R.nn.softmax(x, axis=1)
            lv: R.Tensor((2, 3, 5), dtype="float32") = R.nn.log_softmax(x, 0)
            gv2: R.Tensor((2, 3, 5), dtype="float32") = R.nn.log_softmax(lv, axis=-1)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
