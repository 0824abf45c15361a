# An empty transform: R.Tuple parameters, R.tuple() and R.output() empty.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Expected:
    @R.function
    def main_transform_params(params: R.Tuple) -> R.Tuple:
        R.func_attr({"num_input": 0})
        with R.dataflow():
            gv: R.Tuple = R.tuple()
            R.output(gv)
        return gv

    @R.function
    def main(shape: R.Shape(["n"])) -> R.Shape(["n"]):
        R.func_attr({"num_input": 1})
        n = T.int64()
        with R.dataflow():
            zeros: R.Tensor((n, n), dtype="float32") = R.zeros(R.shape([n, n]), dtype="float32")
            R.output()
        return shape
