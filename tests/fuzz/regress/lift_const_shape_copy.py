# rlx-fuzz: accept
# A constant binding with a symbolic shape (z = R.zeros(R.shape([m]))) that a
# lifted tuple uses is copied into the transform; ir_copy_expr shared the
# R.shape value array, so convert-ssa renaming m in the transform renamed it
# in main too ("symbolic variable m of main_transform_params used in main").
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor(("m", 4), dtype="float32")) -> R.Tuple(R.Tensor(("m", 4), dtype="float32"), R.Tensor(("m",), dtype="float32")):
        m = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            ws = R.sum(w, axis=[0], keepdims=False)
            y = R.add(w, ws)
            z = R.zeros(R.shape([m]), dtype="float32")
            out = (y, z)
            R.output(out)
        return out
