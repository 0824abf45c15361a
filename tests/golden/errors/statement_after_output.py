# expect: 13:13 statement after R.output
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            gv = R.exp(x)
            R.output(gv)
            lv = R.exp(gv)
        return gv
