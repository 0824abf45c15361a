# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((1, 3, 1), dtype="float32")) -> R.Tuple(R.Tensor((1, 3, 4), dtype="float32"), R.Tensor((3, 1, 4, 1), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((3, 1), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((1, 3, 4), dtype="float32") = R.expand_dims(x, axis=0)
            gv1: R.Tensor((3, 1, 4, 1), dtype="float32") = R.expand_dims(x, [1, -1])
            gv2: R.Tensor((3,), dtype="float32") = R.squeeze(y)
            gv3: R.Tensor((3, 1), dtype="float32") = R.squeeze(y, axis=[0])
            R.output(gv, gv1, gv2, gv3)
        return (gv, gv1, gv2, gv3)
