# expect: 10:14
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((3, 2, 4), dtype="float32"):
        gv = R.permute_dims(a, axes=[1, 1, 2])
        return gv
