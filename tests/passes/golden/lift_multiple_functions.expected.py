# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def func1(x: R.Tensor((16, 16), dtype="float32"), w1_t: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((16, 16), dtype="float32") = R.matmul(x, w1_t, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def func1_transform_params(params: R.Tuple(R.Tensor((16, 16), dtype="float32"))) -> R.Tuple(R.Tensor((16, 16), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((16, 16), dtype="float32") = params[0]
            w1_t: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
            gv: R.Tuple(R.Tensor((16, 16), dtype="float32")) = (w1_t,)
            R.output(gv)
        return gv

    @R.function
    def func2(x: R.Tensor((16, 16), dtype="float32"), w1_t: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((16, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((16, 8), dtype="float32") = R.matmul(x, w1_t, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def func2_transform_params(params: R.Tuple(R.Tensor((8, 16), dtype="float32"))) -> R.Tuple(R.Tensor((16, 8), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((8, 16), dtype="float32") = params[0]
            w1_t: R.Tensor((16, 8), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
            gv: R.Tuple(R.Tensor((16, 8), dtype="float32")) = (w1_t,)
            R.output(gv)
        return gv

    @R.function
    def func3(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        with R.dataflow():
            w1_t: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
            y: R.Tensor((16, 16), dtype="float32") = R.matmul(x, w1_t, out_dtype="void")
            R.output(y)
        return y
