# expect: 9:13
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6, 8), dtype="float32")) -> R.Tensor((1, 8), dtype="float32"):
        y = R.dist.redistribute_replica_to_shard(x, num_workers=4, axis=0)
        return y
