# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((), dtype="int32"):
        with R.dataflow():
            c: R.Tensor((), dtype="int32") = R.const(1, "int32")
            n: R.Tensor((), dtype="int32") = R.add(R.const(1, "int32"), R.const(1, "int32"))
            R.output(n)
        return n
