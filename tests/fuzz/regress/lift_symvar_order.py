# lift-transform-params alone: F's symbolic variables kept their old order (n, m)
# while its new parameters define m first, so the printed text reprinted in
# another order (found by libFuzzer).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w1: R.Tensor(("yim", 16), dtype="float32"), w2: R.Tensor((16, "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w0 = R.add(w1, R.const(1.0, "float32"))
            w1t = R.permute_dims(w2)
            y1 = R.matmul(x, w1t)
            y2 = R.matmul(x, w1)
            out = R.add(y1, y2)
            R.output(out)
        return out
