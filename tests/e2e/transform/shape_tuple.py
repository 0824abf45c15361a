# A weight with a symbolic dimension that only the runtime part needs as a
# value: lifting passes it in a `symbolic_vars: R.Shape([v])` parameter,
# which `rlx transform` stores as a shape record in the tensor cache.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), `w.weight`: R.Tensor(("v", 4), dtype="float32")) -> R.Tensor(("n", "v"), dtype="float32"):
        n = T.int64()
        v = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            flat = R.reshape(`w.weight`, R.shape([v * 4]))
            doubled = R.multiply(flat, R.const(2.0, "float32"))
            kept = R.builtin.stop_lift_params(doubled)
            w2 = R.reshape(kept, R.shape([v, 4]))
            y = R.matmul(x, R.permute_dims(w2, axes=[1, 0]), out_dtype="void")
            R.output(y)
        return y
