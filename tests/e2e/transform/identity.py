# A module with its transform already written: `rlx transform` uses it as
# is. It passes the weight through, so the cache holds the raw checkpoint.
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
            wt = R.permute_dims(`w.weight`, axes=[1, 0])
            y = R.matmul(x, wt, out_dtype="void")
            R.output(y)
        return y

    @R.function
    def main_transform_params(`w.weight`: R.Tensor(("v", 4), dtype="float32")) -> R.Tuple(R.Tensor(("v", 4), dtype="float32")):
        v = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            gv = (`w.weight`,)
            R.output(gv)
        return gv
