# expect: 9:13 relax.force_pure
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.call_packed("vm.builtin.copy", x, sinfo_args=R.Tensor((2,), "float32"))
        return z
