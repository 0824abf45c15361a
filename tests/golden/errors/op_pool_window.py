# expect: 10:14 pool window
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 3, 2, 2), dtype="float32")):
        gv = R.nn.max_pool2d(a, pool_size=3)
        return gv
