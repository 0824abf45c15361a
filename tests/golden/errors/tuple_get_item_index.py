# expect: 11:13 TupleGetItem
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        t = (x, x)
        u = R.TupleGetItem(t, -1)
        return u
