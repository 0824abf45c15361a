# expect: 9:13 ellipsis
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), "float32")):
        y = R.einsum((a,), "...ij->...")
        return y
