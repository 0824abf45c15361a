# Three functions with nothing all three lift: func_a and func_b share w0's
# transpose, func_c reads w2 raw and casts w1. The union is one transform:
# w0 raw is no longer needed, w2 is passed through.
@I.ir_module
class Module:
    @R.function
    def func_a(x: R.Tensor((4, 8), "float32"), w0: R.Tensor((8, 8), "float32"), w1: R.Tensor((8,), "float16"), w2: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            t = R.permute_dims(w0)
            y = R.matmul(x, t)
            R.output(y)
        return y

    @R.function
    def func_b(x: R.Tensor((4, 8), "float32"), w0: R.Tensor((8, 8), "float32"), w1: R.Tensor((8,), "float16"), w2: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            u = R.permute_dims(w0)
            s = R.multiply(u, R.const(2, "float32"))
            y = R.matmul(x, s)
            R.output(y)
        return y

    @R.function
    def func_c(x: R.Tensor((4, 8), "float32"), w0: R.Tensor((8, 8), "float32"), w1: R.Tensor((8,), "float16"), w2: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            c = R.astype(w1, "float32")
            y = R.add(R.add(x, c), w2)
            R.output(y)
        return y
