# expect: 10:52 anchor
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((1, 3, 5), dtype="float32"), l: R.Tensor((1, 20), dtype="float32"), a: R.Tensor((1, 4, 4), dtype="float32")):
        gv = R.vision.multibox_transform_loc(c, l, a)
        return gv
