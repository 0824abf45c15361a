# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), y: R.Tensor(dtype="float32"), o: R.Object, s: R.Shape(ndim=2), p: R.Prim("int64"), f: R.Callable((R.Tensor((2,), dtype="float32"),), R.Tensor((2,), dtype="float32"))) -> R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Object, R.Shape(ndim=2), R.Prim("int64")):
        with R.dataflow():
            lv: R.Tensor(dtype="float32", ndim=2) = R.nn.relu(x)
            lv1: R.Tensor(dtype="float32") = R.exp(y)
            lv2: R.Tensor(dtype="float32") = R.add(lv, lv1)
            lv3: R.Tensor = R.negative(lv2)
            gv: R.Tensor(dtype="float32", ndim=2) = R.reshape(lv, s)
            R.output(gv)
        return (gv, o, s, p)
