# expect: 11:29 unknown function
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            gv = R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((2, 3), dtype="float32"))
            R.output(gv)
        return gv
