# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 8), dtype="float32"), b: R.Tensor((4, 8), dtype="float32")):
        with R.dataflow():
            c = b
            t: R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor((4, 8), dtype="float32")) = (a, c)
            u = t
            R.output(u)
        return u
