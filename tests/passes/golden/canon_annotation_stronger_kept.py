# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)):
        y: R.Tensor((4,), dtype="float32") = x
        z = R.add(y, y)
        return z
