# expect: 9:45 must be an index map
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y = R.layout_transform(x, index_map=[1, 0])
        return y
