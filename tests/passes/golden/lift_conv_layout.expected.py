# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w2: R.Tensor((16, 16, 3, 3), dtype="float32"), w1_transformed: R.Tensor((16, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 16, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            conv1: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(x, w1_transformed, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            conv2: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(conv1, w2, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            R.output(conv2)
        return conv2

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((3, 16, 3, 3), dtype="float32"), R.Tensor((16, 16, 3, 3), dtype="float32"))) -> R.Tuple(R.Tensor((16, 16, 3, 3), dtype="float32"), R.Tensor((16, 3, 3, 3), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((3, 16, 3, 3), dtype="float32") = params[0]
            w1_transformed: R.Tensor((16, 3, 3, 3), dtype="float32") = R.permute_dims(w1, axes=[1, 0, 2, 3])
            w2: R.Tensor((16, 16, 3, 3), dtype="float32") = params[1]
            gv: R.Tuple(R.Tensor((16, 16, 3, 3), dtype="float32"), R.Tensor((16, 3, 3, 3), dtype="float32")) = (w2, w1_transformed)
            R.output(gv)
        return gv
