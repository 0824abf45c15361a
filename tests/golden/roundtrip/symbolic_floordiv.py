# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n // 4", 4), dtype="float32"), z: R.Tensor(("n % 4",), dtype="float32")) -> R.Tensor(("n // 4 * 4",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n // 4, 4), dtype="float32") = R.multiply(y, y)
            gv: R.Tensor((n // 4 * 4,), dtype="float32") = R.reshape(lv, R.shape([n // 4 * 4]))
            lv1 = R.concat((gv, z), axis=0)
            lv2: R.Tensor((n,), dtype="float32") = R.add(x, x)
            R.output(gv)
        return gv
