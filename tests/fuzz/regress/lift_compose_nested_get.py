# rlx-fuzz: accept
# lift-transform-params with an existing transform: composing printed
# `R.match_cast(gv[0], ...)`, which reads back as `lv = gv[0]` first, so
# printing was not a fixed point; lifting that output again was an internal
# error (a DataflowVar used outside its block). Issue 16. Now composed as
# TVM's ComposeFunctions and canonicalized: one dataflow block, no cast.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), "float32"), wt: R.Tensor((16, "n"), "float32")) -> R.Tensor((1, 32), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt2 = R.multiply(wt, R.const(2.0, "float32"))
            y = R.matmul(x, wt2)
            R.output(y)
        return y

    @R.function
    def main_transform_params(w: R.Tensor((32, 16), "float32")) -> R.Tuple(R.Tensor((16, 32), "float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            wt = R.permute_dims(w)
            gv = (wt,)
            R.output(gv)
        return gv
