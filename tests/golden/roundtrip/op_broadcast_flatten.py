# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3), dtype="float32"), y: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4, 2, 3), dtype="float32"), R.Tensor((24,), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="float32") = R.broadcast_to(x, R.shape([2, 3]))
            gv1: R.Tensor((4, 2, 3), dtype="float32") = R.broadcast_to(x, shape=(4, 2, 3))
            gv2: R.Tensor((24,), dtype="float32") = R.flatten(y)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
