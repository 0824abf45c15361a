# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def func1(x: R.Tensor((16, 16), dtype="float32"), w1: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w1_t = R.permute_dims(w1, axes=[1, 0])
            w1_t1 = R.builtin.stop_lift_params(w1_t)
            w1_add = R.add(w1_t1, R.const(1.0, "float32"))
            y = R.matmul(x, w1_add)
            R.output(y)
        return y
