# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="int64"), R.Tensor((3,), dtype="int64"), R.Tensor((1, 5), dtype="int64"), R.Tensor((1, 1), dtype="int64")):
        with R.dataflow():
            gv: R.Tensor((), dtype="int64") = R.argmax(x)
            gv1: R.Tensor((3,), dtype="int64") = R.argmax(x, axis=-1)
            gv2: R.Tensor((1, 5), dtype="int64") = R.argmin(x, axis=0, keepdims=True)
            gv3: R.Tensor((1, 1), dtype="int64") = R.argmin(x, None, True)
            R.output(gv, gv1, gv2, gv3)
        return (gv, gv1, gv2, gv3)
