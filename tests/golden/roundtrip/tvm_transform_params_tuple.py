# A `*_transform_params` function as TVM prints it: a tuple parameter and
# tuple annotations split over lines.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Expected:
    @R.function
    def main_transform_params(
        params: R.Tuple(
            R.Tensor((8, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")
        )
    ) -> R.Tuple(
        R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 8), dtype="float32")
    ):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            lv1: R.Tensor((8, 4), dtype="float32") = params[0]
            lv2: R.Tensor((4, 8), dtype="float32") = R.permute_dims(lv1, axes=[1, 0])
            lv: R.Tensor((4, 4), dtype="float32") = params[1]
            gv: R.Tuple(
                R.Tensor((4, 4), dtype="float32"),
                R.Tensor((4, 8), dtype="float32"),
            ) = (lv, lv2)
            R.output(gv)
        return gv
