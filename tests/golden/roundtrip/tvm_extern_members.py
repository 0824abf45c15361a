# External functions as members of the module class (TVM's ExternFunc in
# an IRModule), kept and printed as written; and a bool operand meeting
# another dtype in a comparison (TVM's InferBinaryArithOpOutDtype).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    my_ext = R.ExternFunc("my_ext")
    typed_ext = R.ExternFunc("typed_ext", R.Callable((), R.Tensor(dtype="float32", ndim=2), True))

    @R.function
    def main(mask: R.Tensor((2, 3), "bool"), x: R.Tensor((3,), "float32")):
        gt = R.greater(mask, x)
        eq = R.equal(mask, R.const(1.0, "float32"))
        return (gt, eq)
