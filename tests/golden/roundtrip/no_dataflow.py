# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), w: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((3, 5), dtype="float32"):
        lv: R.Tensor((3, 5), dtype="float32") = R.matmul(x, w, out_dtype="void")
        lv1: R.Tensor((3, 5), dtype="float32") = R.nn.log_softmax(lv, axis=-1)
        gv: R.Tensor((3, 5), dtype="float32") = R.exp(lv1)
        return gv
