# --consume-params: the transform releases each weight right after its first
# read (vm.builtin.tuple_reset_item on the params tuple, the index as an
# int32), so the weight's memory can go while the transform runs. A weight
# read twice (wq feeds two computations) is released once; its second read
# is the first read's variable.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor((2, 4), "float32"),
        wq: R.Tensor((4, 4), "float32"),
        wk: R.Tensor((4, 4), "float32"),
    ) -> R.Tensor((2, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wq_t = R.permute_dims(wq)
            wq_2 = R.multiply(wq, R.const(2.0, "float32"))
            w = R.concat((wq_t, wk), axis=1)
            y = R.matmul(x, w)
            z = R.matmul(x, wq_2)
            out = R.add(y, R.concat((z, z), axis=1))
            R.output(out)
        return out
