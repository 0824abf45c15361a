# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((), dtype="int32"):
        with R.dataflow():
            c = R.const(1, "int32")
            n = R.add(c, c)
            R.output(n)
        return n
