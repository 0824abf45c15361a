# An existing main_transform_params whose result can never be main's
# weights: it makes (16, 16) where main takes (16, 32). Its return
# annotation says (16, 32), which neither TVM nor rlx checks against the
# body. Composing a new lift with it would cast (16, 16) to (16, 32), a
# module that does not read back; lift refuses, at the old transform.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32"), wt: R.Tensor((16, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt2: R.Tensor((16, 32), dtype="float32") = R.multiply(wt, R.const(2.0, "float32"))
            y: R.Tensor((1, 32), dtype="float32") = R.matmul(x, wt2, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(w: R.Tensor((16, 16), dtype="float32")) -> R.Tuple(R.Tensor((16, 32), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            wt: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w, axes=None)
            gv: R.Tuple(R.Tensor((16, 16), dtype="float32")) = (wt,)
            R.output(gv)
        return gv
