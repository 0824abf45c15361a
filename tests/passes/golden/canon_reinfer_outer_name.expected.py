# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 8), dtype="float32"), b: R.Tensor((4, 8), dtype="float32")) -> R.Tuple(R.Tensor(("n", 8), dtype="float32"), R.Tensor((4, 8), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            u: R.Tuple(R.Tensor((n, 8), dtype="float32"), R.Tensor((4, 8), dtype="float32")) = (a, b)
            R.output(u)
        return u
