# TVM's tensor-parallel idiom, as its legalization of
# R.dist.redistribute_replica_to_shard writes it: the worker's rank from the
# runtime builtin, matched to r, slices at r * 8, partial sums allreduced.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w1: R.Tensor((8, 16), dtype="float32"), w2: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        r = T.int64()
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            w1t = R.permute_dims(w1, axes=[1, 0])
            w1s = R.strided_slice(w1t, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            w1st = R.permute_dims(w1s, axes=[1, 0])
            w2s = R.strided_slice(w2, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            h = R.nn.relu(R.matmul(x, w1st))
            p = R.matmul(h, w2s)
            y = R.ccl.allreduce(p, op_type="sum", in_group=True)
            R.output(y)
        return y
