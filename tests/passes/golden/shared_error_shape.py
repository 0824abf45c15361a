# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def func1(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1)
            y1 = R.matmul(x, w1_t)
            R.output(y1)
        return y1

    @R.function
    def func2(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((16, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1)
            y1 = R.matmul(x, w1_t)
            R.output(y1)
        return y1
