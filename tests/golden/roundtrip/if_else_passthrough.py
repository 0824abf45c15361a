# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="float32"), y: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")):
        if cond:
            r: R.Tensor((2,), dtype="float32") = x
        else:
            r: R.Tensor((2,), dtype="float32") = y
        if cond:
            t: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = (x, y)
        else:
            t: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = (y, x)
        a: R.Tensor((2,), dtype="float32") = t[0]
        b: R.Tensor((2,), dtype="float32") = R.add(a, r)
        return (b, r)
