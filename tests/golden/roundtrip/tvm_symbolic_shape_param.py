# A shape parameter defines n; a dataflow block without R.output; func_attr
# before the symbolic variable's declaration.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Before:
    @R.function
    def main(shape: R.Shape(["n"])):
        R.func_attr({"num_input": 1})
        n = T.int64()
        with R.dataflow():
            zeros = R.zeros((n, n), "float32")
        return shape
