# expect: 12:27 known length
# The kernel reads one scale per index of data's axis: a scale whose
# length the compiler cannot see could be shorter, so it is refused at the
# argument, as TVM's rule refuses it.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "c"), dtype="float32"), s: R.Tensor(dtype="float32", ndim=1), z: R.Tensor(dtype="int8", ndim=1)):
        y = R.quantize(x, s, z, axis=1, out_dtype="int8")
        return y
