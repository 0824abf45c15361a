# Module functions used as values (TVM's GlobalVar): bound to a variable
# and called through it, put in a tuple, returned, captured by
# R.make_closure and called by R.invoke_pure_closure / R.invoke_closure;
# the class named by its own name (Module.f) as TVM's parser allows.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def scale(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4,), "float32")):
        y = R.multiply(x, w)
        return y

    @R.function
    def refs(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4,), "float32")):
        cls = Module
        f = cls.scale
        y = f(x, w)
        pair = (Module.scale, y)
        return (f, pair)

    @R.function(private=True)
    def outer(w: R.Tensor((4,), "float32")) -> R.Any:
        clo = R.make_closure(Module.scale, (w,))
        return clo

    @R.function
    def closures(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4,), "float32")):
        cls = Module
        clo = cls.outer(w)
        y = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((3, 4), dtype="float32")))
        none = R.make_closure(cls.scale, ())
        z = R.invoke_pure_closure(none, (x, w))
        return (y, z)

    @R.function(pure=False)
    def impure(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4,), "float32")):
        clo = R.make_closure(Module.scale, (w,))
        y = R.invoke_closure(clo, (x,), ty_args=[R.Tensor((3, 4), "float32")])
        return y
