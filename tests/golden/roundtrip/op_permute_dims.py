# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 3, 2), dtype="float32"), R.Tensor((3, 2, 4), dtype="float32"), R.Tensor((2, 4, 3), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((4, 3, 2), dtype="float32") = R.permute_dims(x)
            gv1: R.Tensor((3, 2, 4), dtype="float32") = R.permute_dims(x, axes=[1, 0, 2])
            gv2: R.Tensor((2, 4, 3), dtype="float32") = R.permute_dims(x, [0, -1, -2])
            gv3: R.Tensor((2, 3, 4), dtype="float32") = R.permute_dims(gv, axes=None)
            R.output(gv, gv1, gv2, gv3)
        return (gv, gv1, gv2, gv3)
