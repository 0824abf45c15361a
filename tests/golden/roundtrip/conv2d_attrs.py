# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), dtype="float32"), w: R.Tensor((6, 2, 3, 3), dtype="float32"), w2: R.Tensor((2, 6, 1, 1), dtype="float16")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 6, 4, 4), dtype="float32") = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=2, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            lv1: R.Tensor((1, 6, 4, 4), dtype="float16") = R.astype(lv, dtype="float16")
            gv: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(lv1, w2, [1, 1], [0, 0, 0, 0], out_dtype="float32")
            R.output(gv)
        return gv
