# expect: 11:50 y.ty
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")):
        y = R.add(x, x)
        z = R.call_packed("my_copy", y, ty_args=[y.ty])
        return z
