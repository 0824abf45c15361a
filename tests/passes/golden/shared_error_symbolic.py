# Weights with symbolic dimensions cannot be matched across functions by --shared.
@I.ir_module
class Module:
    @R.function
    def f1(x: R.Tensor(("n", 8), "float32"), w1: R.Tensor(("k", 8), "float32"), w2: R.Tensor((8, 8), "float32")) -> R.Tensor(("n", 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            t = R.permute_dims(w2)
            y = R.matmul(x, t)
            R.output(y)
        return y

    @R.function
    def f2(x: R.Tensor(("n", 8), "float32"), w1: R.Tensor(("k", 8), "float32"), w2: R.Tensor((8, 8), "float32")) -> R.Tensor(("n", "k"), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            t = R.permute_dims(w1)
            y = R.matmul(x, t)
            R.output(y)
        return y
