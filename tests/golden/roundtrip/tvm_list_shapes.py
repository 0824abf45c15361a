# List shapes in annotations, R.Shape of a string, R.ShapeExpr values.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Before:
    @R.function
    def main(
        A: R.Tensor([16, 16], "int32"),
        B: R.Tensor([16, 16], "int32"),
        shape: R.Shape(["k"]),
    ) -> R.Tensor([256], "int32"):
        R.func_attr({"num_input": 1})
        k = T.int64()
        cls = Before
        with R.dataflow():
            C = R.multiply(A, B)
            D = R.reshape(C, R.ShapeExpr([256]))
            s = R.ShapeExpr([k, T.int64(2)])
            R.output(D)
        return D
