# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), symbolic_vars: R.Shape(["m"]), ws: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor(("m",), dtype="float32")):
        m = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y: R.Tensor((4, 4), dtype="float32") = R.add(x, ws)
            z: R.Tensor((m,), dtype="float32") = R.zeros(R.shape([m]), dtype="float32")
            out: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((m,), dtype="float32")) = (y, z)
            R.output(out)
        return out

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor(("m", 4), dtype="float32"))) -> R.Tuple(R.Shape(["m"]), R.Tensor((4,), dtype="float32")):
        m = T.int64()
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w: R.Tensor((m, 4), dtype="float32") = params[0]
            ws: R.Tensor((4,), dtype="float32") = R.sum(w, axis=[0], keepdims=False)
            gv: R.Tuple(R.Shape([m]), R.Tensor((4,), dtype="float32")) = (R.shape([m]), ws)
            R.output(gv)
        return gv
