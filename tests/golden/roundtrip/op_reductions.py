# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 1, 1), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((1, 1, 1), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((), dtype="float32") = R.sum(x)
            gv1: R.Tensor((2, 4), dtype="float32") = R.mean(x, axis=[1])
            gv2: R.Tensor((2, 1, 1), dtype="float32") = R.max(x, axis=[1, 2], keepdims=True)
            gv3: R.Tensor((3,), dtype="float32") = R.min(x, [0, -1])
            gv4: R.Tensor((1, 1, 1), dtype="float32") = R.prod(x, axis=None, keepdims=True)
            R.output(gv, gv1, gv2, gv3, gv4)
        return (gv, gv1, gv2, gv3, gv4)
