# rlx-fuzz: accept
# What rlx lift made of lift_compose_nested_get.py before issue 16 was
# fixed (named transform parameters, an rlx.no_lift-free compose through
# R.match_cast): lifting it again was an internal error, a DataflowVar used
# outside its dataflow block. Lifting must accept its own older output.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), wt2: R.Tensor((16, "n"), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((1, n), dtype="float32") = R.matmul(x, wt2, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(w: R.Tensor((32, 16), dtype="float32")) -> R.Tuple(R.Tensor((16, "n"), dtype="float32")):
        n = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            wt: R.Tensor((16, 32), dtype="float32") = R.permute_dims(w, axes=None)
            gv: R.Tuple(R.Tensor((16, 32), dtype="float32")) = (wt,)
            R.output(gv)
        with R.dataflow():
            wt_1: R.Tensor((16, n), dtype="float32") = R.match_cast(gv[0], R.Tensor((16, n), dtype="float32"))
            wt2: R.Tensor((16, n), dtype="float32") = R.multiply(wt_1, R.const(2.0, "float32"))
            gv_1: R.Tuple(R.Tensor((16, n), dtype="float32")) = (wt2,)
            R.output(gv_1)
        return gv_1
