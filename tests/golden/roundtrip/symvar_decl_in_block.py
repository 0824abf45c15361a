# Symbolic variables declared inside a dataflow block (TVM's tests do so
# before the match_cast that defines them): they are the function's.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)):
        with R.dataflow():
            n = T.int64()
            m = T.int64()
            y = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
            z = R.add(y, y)
            R.output(z)
        return z
