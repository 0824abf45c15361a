# expect: 9:29 must be 5-D
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32")):
        y = R.nn.max_pool3d(x, pool_size=[2, 2, 2])
        return y
