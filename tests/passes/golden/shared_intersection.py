# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def func1(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((16, 16), dtype="float32"), w2: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1)
            y1 = R.matmul(x, w1_t)
            w2_t = R.permute_dims(w2)
            y2 = R.matmul(x, w2_t)
            output = R.add(y1, y2)
            R.output(output)
        return output

    @R.function
    def func2(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((16, 16), dtype="float32"), w2: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1)
            y1 = R.matmul(x, w1_t)
            y2 = cls.fused_permute_dims_matmul(x, w2)
            output = R.add(y1, y2)
            R.output(output)
        return output

    @R.function(private=True)
    def fused_permute_dims_matmul(x: R.Tensor((16, 16), dtype="float32"), weight: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        with R.dataflow():
            weight_t = R.permute_dims(weight)
            y = R.matmul(x, weight_t)
            R.output(y)
        return y
