# expect: 10:33 gamma shape
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 3, 2, 2), dtype="float32"), g: R.Tensor((4,), dtype="float32")):
        gv = R.nn.batch_norm(a, g, g, g, g, axis=1)
        return gv
