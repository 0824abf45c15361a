# Tensor-parallel collectives and the replica-to-shard redistribution, with
# TVM's struct-info rules: allgather multiplies dim 0 by num_workers, scatter
# and redistribute divide the axis (symbolic lengths too).
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float16"), w: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        n = T.int64()
        with R.dataflow():
            ws = R.dist.redistribute_replica_to_shard(w, num_workers=2, axis=1)
            wr = R.dist.redistribute_replica_to_shard(w, num_workers=4, axis=-2)
            s = R.ccl.allreduce(x, op_type="sum", in_group=True)
            m = R.ccl.allreduce(x, op_type="max", in_group=False)
            g = R.ccl.allgather(s, num_workers=2, in_group=True)
            b = R.ccl.broadcast_from_worker0(g)
            c = R.ccl.scatter_from_worker0(b, num_workers=2)
            d = R.ccl.scatter_from_worker0(w, num_workers=4, axis=1)
            e = R.ccl.allgather(wr, num_workers=2)
            R.output(e)
        return e
