# expect: 11:18
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((2, 3), dtype="int32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            gv = R.add(a, b)
            R.output(gv)
        return gv
