# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="int64")) -> R.Tuple(R.Tensor((10,), dtype="int64"), R.Tensor((4,), dtype="int32"), R.Tensor(("n",), dtype="int64")):
        n = T.int64()
        with R.dataflow():
            gv: R.Tensor((10,), dtype="int64") = R.arange(0, 10, 1)
            gv1: R.Tensor((4,), dtype="int32") = R.arange(R.prim_value(1), R.prim_value(9), R.prim_value(2), dtype="int32")
            lv: R.Tensor((n,), dtype="int64") = R.arange(start=0, end=n, step=1, dtype="int64")
            gv2: R.Tensor((n,), dtype="int64") = R.add(lv, x)
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
