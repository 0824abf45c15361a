# The arguments of a callee (R.call_tir, R.call_tir_inplace,
# R.call_dps_packed, R.call_builtin_with_ctx, R.make_closure,
# R.invoke_closure) are an in-line tuple. One value that is not a tuple is
# wrapped into one, as TVM's Python wrappers do (_wrap_inline_arg_tuple):
# `R.call_tir(f, x, ...)` is `R.call_tir(f, (x,), ...)`. A variable that
# holds a tuple is passed as it is, not wrapped again.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("copy"):
                vi = T.axis.spatial(4, i)
                b[vi] = a[vi]

    @T.prim_func(private=True)
    def add(a: T.Buffer((4,), "float32"), c: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("add"):
                vi = T.axis.spatial(4, i)
                b[vi] = a[vi] + c[vi]

    @R.function
    def scale(x: R.Tensor((4,), "float32")):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.copy, x, out_sinfo=R.Tensor((4,), "float32"))
        z = R.call_tir(cls.copy, (y,), out_sinfo=R.Tensor((4,), "float32"))
        pair = (y, z)
        s = R.call_tir(cls.add, pair, out_sinfo=R.Tensor((4,), "float32"))
        p = R.call_dps_packed("my_copy", s, out_sinfo=R.Tensor((4,), "float32"))
        return p

    @R.function(pure=False)
    def closures(x: R.Tensor((4,), "float32")):
        cls = Module
        clo = R.make_closure(cls.scale, x)
        y = R.invoke_closure(clo, x, ty_args=[R.Tensor((4,), "float32")])
        return y
