# expect: 9:58 struct info
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Any:
        z = R.call_packed("vm.builtin.copy", x, ty_args=[3])
        return z
