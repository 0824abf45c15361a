# rlx run refuses a layout_transform whose index map sends two elements to
# one place (TVM's legalization refuses it too: no inverse), at the call.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((8, 3), "float32"):
        x = R.zeros(R.shape([6, 3]), "float32")
        y = R.layout_transform(x, index_map=lambda i, j: (i + j, j))
        return y
