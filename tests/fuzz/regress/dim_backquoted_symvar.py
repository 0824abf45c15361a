# rlx-fuzz: accept
# Symbolic variables with names that need backquotes print as "`a b`" in
# dimension strings, which the dimension parser could not read back.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((`a b`, `None`), "float32")):
        `a b` = T.int64()
        `None` = T.int64()
        y = R.add(x, x)
        return y
