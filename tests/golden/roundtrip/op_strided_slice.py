# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 6), dtype="float32"), R.Tensor((8, 3), dtype="float32"), R.Tensor((4, 2), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((2, 6), dtype="float32") = R.strided_slice(x, axes=[0], begin=[1], end=[5], strides=[2])
            gv1: R.Tensor((8, 3), dtype="float32") = R.strided_slice(x, [1], [0], [3])
            gv2: R.Tensor((4, 2), dtype="float32") = R.strided_slice(x, axes=[0, 1], begin=[0, 2], end=[4, 4], strides=None, assume_inbound=True)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
