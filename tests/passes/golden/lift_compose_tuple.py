# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), wt: R.Tensor((16, "n"), dtype="float32")) -> R.Tensor((1, "n"), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt2 = R.multiply(wt, R.const(2.0, "float32"))
            y = R.matmul(x, wt2)
            R.output(y)
        return y

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((32, 16), dtype="float32"))) -> R.Tuple(R.Tensor((16, 32), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w = params[0]
            wt = R.permute_dims(w)
            gv = (wt,)
            R.output(gv)
        return gv
