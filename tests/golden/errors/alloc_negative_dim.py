# expect: 12:18 negative dimension
# An R.shape value may hold a negative number, but a tensor made from it
# may not: no annotation could state the result's shape (and printing it
# would give text that does not read back).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Tensor(dtype="uint8", ndim=2):
        output = R.builtin.alloc_tensor(R.shape([16, -24]), "uint8", 0)
        return output
