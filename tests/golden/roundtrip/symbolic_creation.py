# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float16")) -> R.Tensor(("n", "m"), dtype="float16"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, m), dtype="float16") = R.zeros(R.shape([n, m]), dtype="float16")
            lv1: R.Tensor((n, m), dtype="float16") = R.ones_like(x)
            lv2: R.Tensor((n, m), dtype="float16") = R.full(R.shape([n, m]), R.const(3.0, "float16"), dtype="float16")
            lv3: R.Tensor((1, m), dtype="float16") = R.sum(x, axis=[0], keepdims=True)
            lv4: R.Tensor((n, m), dtype="float16") = R.broadcast_to(lv3, R.shape([n, m]))
            lv5: R.Tensor((n, m), dtype="float16") = R.add(lv, lv1)
            lv6: R.Tensor((n, m), dtype="float16") = R.multiply(lv5, lv2)
            gv: R.Tensor((n, m), dtype="float16") = R.add(lv6, lv4)
            R.output(gv)
        return gv
