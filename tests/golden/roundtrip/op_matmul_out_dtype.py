# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 4, 8), dtype="float16"), b: R.Tensor((8, 2), dtype="float16")) -> R.Tensor((1, 4, 2), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 4, 2), dtype="float16") = R.matmul(a, b)
            lv1: R.Tensor((1, 4, 2), dtype="float32") = R.matmul(a, b, out_dtype="float32")
            lv2: R.Tensor((1, 4, 2), dtype="float32") = R.matmul(a, b, "float32")
            lv3: R.Tensor((1, 4, 2), dtype="float32") = R.astype(lv, dtype="float32")
            lv4: R.Tensor((1, 4, 2), dtype="float32") = R.add(lv1, lv2)
            gv: R.Tensor((1, 4, 2), dtype="float32") = R.add(lv4, lv3)
            R.output(gv)
        return gv
