# expect: 14:13 is not used
# A call standing alone as a statement must have no result (TVM's parser:
# "Non-void relax expressions must be bound to a variable"). R.print may;
# R.add, whose tensor would be dropped, may not, at the end of an if branch
# as anywhere else.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((2,), dtype="float32"):
        if c:
            R.add(x, x)
        else:
            R.print(x, format="x: {}")
        return x
