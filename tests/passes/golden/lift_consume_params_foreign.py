# --consume-params rewrites every function whose name ends in
# transform_params; one that does not take its weights as one tuple after
# its num_input inputs (here: no num_input at all) cannot be consumed.
# TVM stops with an internal check; rlx says where and why.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def my_transform_params(w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return w

    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"num_input": 1})
        y = R.add(x, w)
        return y
