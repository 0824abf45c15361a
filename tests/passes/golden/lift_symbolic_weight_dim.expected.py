# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w2: R.Tensor((16, "m"), dtype="float32"), w1t: R.Tensor((16, "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y1: R.Tensor((n, m), dtype="float32") = R.matmul(x, w1t, out_dtype="void")
            y2: R.Tensor((n, m), dtype="float32") = R.matmul(x, w2, out_dtype="void")
            out: R.Tensor((n, m), dtype="float32") = R.add(y1, y2)
            R.output(out)
        return out

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor(("m", 16), dtype="float32"), R.Tensor((16, "m"), dtype="float32"))) -> R.Tuple(R.Tensor((16, "m"), dtype="float32"), R.Tensor((16, "m"), dtype="float32")):
        m = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w1: R.Tensor((m, 16), dtype="float32") = params[0]
            w1_1: R.Tensor((m, 16), dtype="float32") = R.add(w1, R.const(1.0, "float32"))
            w1t: R.Tensor((16, m), dtype="float32") = R.permute_dims(w1_1, axes=None)
            w2: R.Tensor((16, m), dtype="float32") = params[1]
            gv: R.Tuple(R.Tensor((16, m), dtype="float32"), R.Tensor((16, m), dtype="float32")) = (w2, w1t)
            R.output(gv)
        return gv
