# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor(("m", 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor(("m",), dtype="float32")):
        m = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            ws = R.sum(w, axis=[0], keepdims=False)
            y = R.add(x, ws)
            z = R.zeros(R.shape([m]), dtype="float32")
            out = (y, z)
            R.output(out)
        return out
