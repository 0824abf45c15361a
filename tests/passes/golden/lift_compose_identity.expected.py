# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), ab: R.Tensor((8, 8), dtype="float32")) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((2, 8), dtype="float32") = R.matmul(x, ab, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(model_params: R.Tuple(R.Tensor((8, "r"), dtype="float32"), R.Tensor(("r", 8), dtype="float32"))) -> R.Tuple(R.Tensor((8, 8), dtype="float32")):
        r = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            a: R.Tensor((8, r), dtype="float32") = model_params[0]
            b: R.Tensor((r, 8), dtype="float32") = model_params[1]
            ab: R.Tensor((8, 8), dtype="float32") = R.matmul(a, b, out_dtype="void")
            gv: R.Tuple(R.Tensor((8, 8), dtype="float32")) = (ab,)
            R.output(gv)
        return gv
