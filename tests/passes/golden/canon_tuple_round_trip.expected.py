# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = t[0]
            b: R.Tensor((4,), dtype="float32") = t[1]
            R.output()
        return t
