# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def transform_params(params: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32"))) -> R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((16, 16), dtype="float32") = params[0]
            w1_t: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w1, axes=None)
            w2: R.Tensor((16, 16), dtype="float32") = params[1]
            w2_t: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w2, axes=None)
            gv: R.Tuple(R.Tensor((16, 16), dtype="float32"), R.Tensor((16, 16), dtype="float32")) = (w2_t, w1_t)
            R.output(gv)
        return gv

    @R.function
    def func1(x: R.Tensor((16, 16), dtype="float32"), w2_t: R.Tensor((16, 16), dtype="float32"), w1_t: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y2: R.Tensor((16, 16), dtype="float32") = R.matmul(x, w2_t, out_dtype="void")
            R.output(y2)
        return y2

    @R.function
    def func2(x: R.Tensor((16, 16), dtype="float32"), w2_t: R.Tensor((16, 16), dtype="float32"), w1_t: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y1: R.Tensor((16, 16), dtype="float32") = R.matmul(x, w1_t, out_dtype="void")
            R.output(y1)
        return y1
