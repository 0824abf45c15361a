# Expected: the rank-dependent slices stay in main (their bounds use r).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w2: R.Tensor((16, 8), dtype="float32"), w1t: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        r = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wid: R.Shape(ndim=1) = R.call_pure_packed("runtime.disco.worker_id", ty_args=(R.Shape(ndim=1),))
            wid1: R.Shape([r]) = R.match_cast(wid, R.Shape([r]))
            w1s: R.Tensor((8, 8), dtype="float32") = R.strided_slice(w1t, axes=[0], begin=[r * 8], end=[r * 8 + 8], strides=None, assume_inbound=True)
            w2s: R.Tensor((8, 8), dtype="float32") = R.strided_slice(w2, axes=[0], begin=[r * 8], end=[r * 8 + 8], strides=None, assume_inbound=True)
            lv: R.Tensor((8, 8), dtype="float32") = R.permute_dims(w1s, axes=None)
            lv1: R.Tensor((4, 8), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            p: R.Tensor((4, 8), dtype="float32") = R.matmul(lv1, w2s, out_dtype="void")
            R.output(p)
        return p

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((8, 16), dtype="float32"), R.Tensor((16, 8), dtype="float32"))) -> R.Tuple(R.Tensor((16, 8), dtype="float32"), R.Tensor((16, 8), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((8, 16), dtype="float32") = params[0]
            w1t: R.Tensor((16, 8), dtype="float32") = R.permute_dims(w1, axes=None)
            w2: R.Tensor((16, 8), dtype="float32") = params[1]
            gv: R.Tuple(R.Tensor((16, 8), dtype="float32"), R.Tensor((16, 8), dtype="float32")) = (w2, w1t)
            R.output(gv)
        return gv
