# expect: 10:40 return_counts
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="int32"), flag: R.Prim("bool")):
        gv = R.unique(x, return_counts=flag)
        return gv
