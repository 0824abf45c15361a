# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5, 4), dtype="float32"), idx: R.Tensor((3,), dtype="int64"), idx2: R.Tensor((2, 2), dtype="int32"), v: R.Tensor((10,), dtype="float32")) -> R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((5, 2, 2), dtype="float32"), R.Tensor((3,), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((3, 4), dtype="float32") = R.take(x, idx, axis=0)
            gv1: R.Tensor((5, 2, 2), dtype="float32") = R.take(x, idx2, 1)
            gv2: R.Tensor((3,), dtype="float32") = R.take(v, idx)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
