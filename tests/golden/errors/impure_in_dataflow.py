# expect: 10:13 R.print
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            R.print(x, format="{}")
            y = R.add(x, x)
            R.output(y)
        return y
