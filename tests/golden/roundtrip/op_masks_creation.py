# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32"), y: R.Tensor((2, "n", "n"), dtype="int32"), idx: R.Tensor((3,), dtype="int64")) -> R.Tuple(R.Tensor((4, 6), dtype="float32"), R.Tensor((2, "n", "n"), dtype="int32"), R.Tensor((4, 6), dtype="float32"), R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 5), dtype="int32"), R.Tensor((8,), dtype="int64"), R.Tensor((5,), dtype="int64"), R.Tensor((4,), dtype="float32"), R.Tensor(("n",), dtype="int64"), R.Tensor((3, 5), dtype="float32"), R.Tensor((4, 3), dtype="int32")):
        n = T.int64()
        with R.dataflow():
            gv: R.Tensor((4, 6), dtype="float32") = R.tril(x)
            gv1: R.Tensor((2, n, n), dtype="int32") = R.triu(y, 1)
            gv2: R.Tensor((4, 6), dtype="float32") = R.tril(x, k=-2)
            gv3: R.Tensor((3, 3), dtype="float32") = R.eye(3)
            gv4: R.Tensor((3, 5), dtype="int32") = R.eye(3, 5, k=1, dtype="int32")
            gv5: R.Tensor((8,), dtype="int64") = R.arange(8)
            gv6: R.Tensor((5,), dtype="int64") = R.arange(2, 7)
            gv7: R.Tensor((4,), dtype="float32") = R.arange(0.0, 1.0, 0.25)
            gv8: R.Tensor((n,), dtype="int64") = R.arange(n)
            gv9: R.Tensor((3, 5), dtype="float32") = R.one_hot(idx, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), depth=5)
            gv10: R.Tensor((4, 3), dtype="int32") = R.one_hot(idx, R.prim_value(T.int32(1)), R.prim_value(T.int32(0)), depth=4, axis=0)
            R.output(gv, gv1, gv2, gv3, gv4, gv5, gv6, gv7, gv8, gv9, gv10)
        return (gv, gv1, gv2, gv3, gv4, gv5, gv6, gv7, gv8, gv9, gv10)
