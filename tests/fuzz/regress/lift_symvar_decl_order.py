# rlx-fuzz: accept
# The lifted transform function takes w1 (i, h) before w2 (h, i), so reading
# it back defines i before h; the lift pass built its table h first, and the
# printer declared them in the table's order: printing after lift was not a
# fixed point. The declarations now follow the parameters' bare dimensions.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", "h"), dtype="float32"), w1: R.Tensor(("i", "h"), dtype="float32"), w2: R.Tensor(("h", "i"), dtype="float32")) -> R.Tensor(("b", "h"), dtype="float32"):
        b = T.int64()
        h = T.int64()
        i = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1t: R.Tensor((h, i), dtype="float32") = R.permute_dims(w1, axes=None)
            w2t: R.Tensor((i, h), dtype="float32") = R.permute_dims(w2, axes=None)
            y: R.Tensor((b, i), dtype="float32") = R.matmul(x, w1t, out_dtype="void")
            z: R.Tensor((b, h), dtype="float32") = R.matmul(y, w2t, out_dtype="void")
            R.output(z)
        return z
