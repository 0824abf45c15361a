from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), wq_2: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((2, 8), dtype="float32") = R.matmul(x, w, out_dtype="void")
            z: R.Tensor((2, 4), dtype="float32") = R.matmul(x, wq_2, out_dtype="void")
            lv: R.Tensor((2, 8), dtype="float32") = R.concat((z, z), axis=1)
            out: R.Tensor((2, 8), dtype="float32") = R.add(y, lv)
            R.output(out)
        return out

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32"))) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 8), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            wq: R.Tensor((4, 4), dtype="float32") = params[0]
            R.call_pure_packed("vm.builtin.tuple_reset_item", params, R.prim_value(T.int32(0)), ty_args=(R.Tuple,))
            wq_t: R.Tensor((4, 4), dtype="float32") = R.permute_dims(wq, axes=None)
            wq_1: R.Tensor((4, 4), dtype="float32") = wq
            wq_2: R.Tensor((4, 4), dtype="float32") = R.multiply(wq_1, R.const(2.0, "float32"))
            wk: R.Tensor((4, 4), dtype="float32") = params[1]
            R.call_pure_packed("vm.builtin.tuple_reset_item", params, R.prim_value(T.int32(1)), ty_args=(R.Tuple,))
            w: R.Tensor((4, 8), dtype="float32") = R.concat((wq_t, wk), axis=1)
            gv: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 8), dtype="float32")) = (wq_2, w)
            R.output(gv)
        return gv
