# Functions defined in a function body (closures: they may use the
# enclosing function's variables and symbolic dims), called by name.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()

        @R.function
        def inner(y: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
            R.func_attr({"Composite": "matmul"})
            with R.dataflow():
                z = R.matmul(y, w)
                R.output(z)
            return z

        @R.function(pure=False)
        def impure_inner() -> R.Tuple:
            y = R.print(format="a message")
            return y

        a = inner(x)
        b = inner(a)
        return b
