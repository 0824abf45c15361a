# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), wt: R.Tensor((16, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((1, 32), dtype="float32") = R.matmul(x, wt, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((32, 16), dtype="float32"))) -> R.Tuple(R.Tensor((16, 32), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w: R.Tensor((32, 16), dtype="float32") = params[0]
            wt: R.Tensor((16, 32), dtype="float32") = R.permute_dims(w, axes=None)
            gv: R.Tuple(R.Tensor((16, 32), dtype="float32")) = (wt,)
            R.output(gv)
        return gv
