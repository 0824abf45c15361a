# expect: 12:13 reflected padding
# "reflect" mirrors the data once without repeating the edge, so each
# side's padding must be less than the axis (PyTorch refuses the same; the
# kernel would read a clamped position, not NumPy's repeated reflection).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y = R.nn.pad(x, pad_width=[0, 0, 3, 1], pad_mode="reflect")
        return y
