# rlx-fuzz: accept
# "k - 0" reads as k, so the printed signature starts with the bare k, and
# reading it back defines k before n; the parser had defined n first (the
# first bare name), and the printer declared them in that order: printing
# was not a fixed point. The declarations now follow the bare dimensions
# of the parameters as printed.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("k - 0", "n"), "float32"), w: R.Tensor(("k", "n"), "float32")) -> R.Tensor(("k - 1 + k", "n"), "float32"):
        k = T.int64()
        n = T.int64()
        y = R.concat((x, w), axis=0)
        return y
