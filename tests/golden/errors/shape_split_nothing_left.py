# expect: 10:13 sections
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((5, 4), dtype="float32")) -> R.Tensor((5, 4), dtype="float32"):
        t = R.split(a, indices_or_sections=4, axis=0)
        return a
