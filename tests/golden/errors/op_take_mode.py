# expect: 10:14 mode
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), i: R.Tensor((2,), dtype="int64")):
        gv = R.take(a, i, axis=0, mode="nearest")
        return gv
