# expect: 9:13 reduction must be one of
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((2, 5), dtype="float32"), t: R.Tensor((2,), dtype="int64")):
        y = R.nn.nll_loss(p, t, reduction="avg")
        return y
