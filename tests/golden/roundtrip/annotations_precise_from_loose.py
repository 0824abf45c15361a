# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3))) -> R.Tensor(ndim=2):
        with R.dataflow():
            lv: R.Tensor(ndim=2) = R.add(x, x)
            lv1: R.Tensor((2, 3)) = R.multiply(y, y)
            lv2: R.Object = R.sum(x, axis=[0])
            gv: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
            R.output(gv)
        return gv
