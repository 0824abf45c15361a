# expect: 10:14 heads
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 6, 8), dtype="float32"), k: R.Tensor((1, 4, 4, 8), dtype="float32")):
        gv = R.nn.attention(q, k, k)
        return gv
