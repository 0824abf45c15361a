# expect: 10:28 integer or bool
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32")):
        gv = R.bitwise_and(a, a)
        return gv
