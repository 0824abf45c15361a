# expect: 11:13 takes no annotation
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)):
        with R.dataflow():
            n: R.Prim("int64") = T.int64()
            R.output(x)
        return x
