# expect: 10:14 permutation
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")):
        gv = R.nn.conv2d(a, w, data_layout="NCHX")
        return gv
