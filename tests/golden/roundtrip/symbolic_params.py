# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float32"), y: R.Tensor(("m",), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, m), dtype="float32") = R.add(x, y)
            lv1: R.Tensor((m, n), dtype="float32") = R.permute_dims(lv, axes=None)
            lv2: R.Tensor((n, n), dtype="float32") = R.matmul(lv, lv1, out_dtype="void")
            lv3: R.Tensor((n, m), dtype="float32") = R.matmul(lv2, x, out_dtype="void")
            lv4: R.Tensor((n, 1), dtype="float32") = R.mean(lv3, axis=[1], keepdims=True)
            gv: R.Tensor((n, m), dtype="float32") = R.subtract(lv3, lv4)
            R.output(gv)
        return gv
