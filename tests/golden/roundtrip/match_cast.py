# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), y: R.Tensor(dtype="float32")) -> R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor((2, 3), dtype="float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, m), dtype="float32") = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
            lv1: R.Tensor((m, n), dtype="float32") = R.permute_dims(lv, axes=None)
            lv2: R.Tensor((n, n), dtype="float32") = R.matmul(lv, lv1, out_dtype="void")
            gv: R.Tensor((n, n), dtype="float32") = R.nn.relu(lv2)
            gv1: R.Tensor((2, 3), dtype="float32") = R.match_cast(y, R.Tensor((2, 3), dtype="float32"))
            R.output(gv, gv1)
        return (gv, gv1)
