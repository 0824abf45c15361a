# Branches that end in a call without a result (R.print as a statement):
# as TVM's parser does, each such call is bound to `_`, which also names the
# if's variable; the printer writes it `_: R.Tuple = R.print(...)`.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((), dtype="int32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((), dtype="int32"):
        if c:
            y = R.add(x, x)
            R.print(y, format="then: {}")
        else:
            R.print(x, format="else: {}")
        return x
