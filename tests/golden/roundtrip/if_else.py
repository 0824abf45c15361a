# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        if cond:
            lv: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
            y: R.Tensor((2, 3), dtype="float32") = R.nn.relu(lv)
        else:
            y: R.Tensor((2, 3), dtype="float32") = R.multiply(x, x)
        return y
