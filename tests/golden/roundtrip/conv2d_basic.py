# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 6, 6), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x, w)
            lv1: R.Tensor((1, 4, 6, 6), dtype="float32") = R.add(lv, b)
            gv: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.relu(lv1)
            R.output(gv)
        return gv
