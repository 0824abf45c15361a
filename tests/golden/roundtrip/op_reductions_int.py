# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="int32")) -> R.Tuple(R.Tensor((4,), dtype="int32"), R.Tensor((1, 5), dtype="int32"), R.Tensor((4, 1), dtype="int32")):
        with R.dataflow():
            gv: R.Tensor((4,), dtype="int32") = R.sum(x, axis=1)
            gv1: R.Tensor((1, 5), dtype="int32") = R.max(x, axis=0, keepdims=True)
            gv2: R.Tensor((4, 1), dtype="int32") = R.prod(x, -1, True)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
