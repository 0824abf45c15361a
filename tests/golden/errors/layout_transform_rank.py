# expect: 9:13 takes 2 indices
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")):
        y = R.layout_transform(x, index_map=lambda i, j: (j, i))
        return y
