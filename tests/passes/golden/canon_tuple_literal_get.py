# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        tuple_var = (x, y)
        w = tuple_var[0]
        q = tuple_var[1]
        z = R.add(w, q)
        r = R.add(q, z)
        return r
