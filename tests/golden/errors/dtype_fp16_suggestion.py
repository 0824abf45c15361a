# expect: 9:40 float16
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="fp16")) -> R.Tensor((2, 3), dtype="float16"):
        return x
