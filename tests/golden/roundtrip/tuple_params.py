# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((), dtype="int64")))) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((), dtype="int64")):
        a: R.Tensor((2, 3), dtype="float32") = t[0]
        u: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((), dtype="int64")) = t[1]
        b: R.Tensor((3,), dtype="float32") = u[0]
        c: R.Tensor((), dtype="int64") = u[1]
        d: R.Tensor((2, 3), dtype="float32") = R.add(a, b)
        return (d, c)
