# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), scale: R.Tensor((), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            ws: R.Tensor((4, 4), dtype="float32") = R.multiply(w, scale)
            y: R.Tensor((4, 4), dtype="float32") = R.matmul(x, ws, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((4, 4), dtype="float32"))) -> R.Tuple(R.Tensor((4, 4), dtype="float32")):
        R.func_attr({"num_input": 0})
        return params
