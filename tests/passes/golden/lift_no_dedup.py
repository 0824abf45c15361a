# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32"), unused: R.Tensor((4,), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            t = (w,)
            w_again = t[0]
            a = R.matmul(x, w_again)
            dead = R.add(x, unused)
            y = R.matmul(a, w)
            R.output(y)
        return y
