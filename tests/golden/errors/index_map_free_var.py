# expect: 11:59 its own variables
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")):
        n = T.int64()
        y = R.layout_transform(x, index_map=lambda i, j: (i * n + j,))
        return y
