# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def transform_params(params: R.Tuple(R.Tensor((8, 8), dtype="float32"), R.Tensor((8,), dtype="float16"), R.Tensor((8,), dtype="float32"))) -> R.Tuple(R.Tensor((8,), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8,), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w0: R.Tensor((8, 8), dtype="float32") = params[0]
            t: R.Tensor((8, 8), dtype="float32") = R.permute_dims(w0, axes=None)
            s: R.Tensor((8, 8), dtype="float32") = R.multiply(t, R.const(2.0, "float32"))
            w1: R.Tensor((8,), dtype="float16") = params[1]
            c: R.Tensor((8,), dtype="float32") = R.astype(w1, dtype="float32")
            w2: R.Tensor((8,), dtype="float32") = params[2]
            gv: R.Tuple(R.Tensor((8,), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8,), dtype="float32")) = (w2, t, s, c)
            R.output(gv)
        return gv

    @R.function
    def func_a(x: R.Tensor((4, 8), dtype="float32"), w2: R.Tensor((8,), dtype="float32"), t: R.Tensor((8, 8), dtype="float32"), s: R.Tensor((8, 8), dtype="float32"), c: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((4, 8), dtype="float32") = R.matmul(x, t, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def func_b(x: R.Tensor((4, 8), dtype="float32"), w2: R.Tensor((8,), dtype="float32"), t: R.Tensor((8, 8), dtype="float32"), s: R.Tensor((8, 8), dtype="float32"), c: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((4, 8), dtype="float32") = R.matmul(x, s, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def func_c(x: R.Tensor((4, 8), dtype="float32"), w2: R.Tensor((8,), dtype="float32"), t: R.Tensor((8, 8), dtype="float32"), s: R.Tensor((8, 8), dtype="float32"), c: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x, c)
            y: R.Tensor((4, 8), dtype="float32") = R.add(lv, w2)
            R.output(y)
        return y
