# expect: 10:33 axis
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        gv = R.sum(x, axis=[0], axis=[1])
        return gv
