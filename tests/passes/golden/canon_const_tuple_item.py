# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((), dtype="int64"):
        tup = (R.const(0, "int64"), R.const(1, "int64"))
        a = tup[0]
        b = tup[1]
        z = R.add(a, b)
        return z
