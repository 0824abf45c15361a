# expect: 10:14 at least two dimensions
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), dtype="float32")):
        gv = R.tril(a, 1)
        return gv
