# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32"), unused: R.Tensor((4,), dtype="float32"), w_again: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a: R.Tensor((4, 4), dtype="float32") = R.matmul(x, w_again, out_dtype="void")
            dead: R.Tensor((4, 4), dtype="float32") = R.add(x, unused)
            y: R.Tensor((4, 4), dtype="float32") = R.matmul(a, w, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w: R.Tensor((4, 4), dtype="float32") = params[0]
            w_1: R.Tensor((4, 4), dtype="float32") = params[0]
            unused: R.Tensor((4,), dtype="float32") = params[1]
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = (w_1, unused, w)
            R.output(gv)
        return gv
