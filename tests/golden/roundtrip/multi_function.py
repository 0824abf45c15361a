# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def layer(x: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w, out_dtype="void")
            gv: R.Tensor((2, 4), dtype="float32") = cls.act(lv)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), w1: R.Tensor((4, 4), dtype="float32"), w2: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        h: R.Tensor((2, 4), dtype="float32") = cls.layer(x, w1)
        h1: R.Tensor((2, 4), dtype="float32") = cls.layer(h, w2)
        gv: R.Tensor((2, 4), dtype="float32") = R.add(h1, x)
        return gv

    @R.function(private=True)
    def act(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        gv: R.Tensor((2, 4), dtype="float32") = R.nn.gelu_tanh(x)
        return gv
