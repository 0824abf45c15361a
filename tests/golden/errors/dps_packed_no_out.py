# expect: 9:13 out_ty
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.call_dps_packed("f", (x,))
        return z
