# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((3, 4), dtype="float32"), c: R.Tensor((2, 1, 3, 4), dtype="float32"), d: R.Tensor((5, 4, 6), dtype="float32"), v: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 5, 3, 6), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((), dtype="float32")):
        with R.dataflow():
            gv: R.Tensor((2, 4), dtype="float32") = R.matmul(a, b, out_dtype="void")
            gv1: R.Tensor((2, 5, 3, 6), dtype="float32") = R.matmul(c, d)
            gv2: R.Tensor((4,), dtype="float32") = R.matmul(v, b)
            gv3: R.Tensor((2,), dtype="float32") = R.matmul(a, v)
            gv4: R.Tensor((), dtype="float32") = R.matmul(v, v)
            R.output(gv, gv1, gv2, gv3, gv4)
        return (gv, gv1, gv2, gv3, gv4)
