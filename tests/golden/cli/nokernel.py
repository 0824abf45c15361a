# rlx run refuses an op it reads but has no kernel for: at the call, naming
# it, and saying so (not the reason of a packed function).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((), "float32"):
        x = R.zeros(R.shape([2, 3]), "float32")
        t = R.zeros(R.shape([2]), "int64")
        loss = R.nn.nll_loss(x, t)
        return loss
