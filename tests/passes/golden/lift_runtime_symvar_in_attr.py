# A weight sliced at the worker's rank: the bounds r * 8 use r, defined by a
# match_cast of a runtime value, so the slices stay in main; only the
# permute of w1, computable from the weight alone, is lifted.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w1: R.Tensor((8, 16), "float32"),
             w2: R.Tensor((16, 8), "float32")) -> R.Tensor((4, 8), "float32"):
        r = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            w1t = R.permute_dims(w1)
            w1s = R.strided_slice(w1t, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            w2s = R.strided_slice(w2, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            p = R.matmul(R.matmul(x, R.permute_dims(w1s)), w2s)
            R.output(p)
        return p
