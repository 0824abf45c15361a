# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), a: R.Tensor((8, "r"), dtype="float32"), b: R.Tensor(("r", 8), dtype="float32")) -> R.Tensor((2, 8), dtype="float32"):
        r = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            ab = R.matmul(a, b)
            y = R.matmul(x, ab)
            R.output(y)
        return y

    @R.function
    def main_transform_params(model_params: R.Tuple(R.Tensor((8, "r"), dtype="float32"), R.Tensor(("r", 8), dtype="float32"))) -> R.Tuple(R.Tensor((8, "r"), dtype="float32"), R.Tensor(("r", 8), dtype="float32")):
        r = T.int64()
        R.func_attr({"num_input": 0})
        return model_params
