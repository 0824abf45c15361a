# R.builtin.stop_lift_params and an int literal in a float constant.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def func1(
        x: R.Tensor((16, 16), "float32"),
        w1: R.Tensor((16, 16), "float32"),
    ) -> R.Tensor((16, 16), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1, [1, 0])
            w1_t1 = R.builtin.stop_lift_params(w1_t)
            w1_add = R.add(w1_t1, R.const(1, "float32"))
            y = R.matmul(x, w1_add)
            R.output(y)
        return y
