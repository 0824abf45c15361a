# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), y: R.Tensor(("n", 2), dtype="float32"), idx: R.Tensor(("k",), dtype="int64")) -> R.Tensor(("k", 6), dtype="float32"):
        n = T.int64()
        k = T.int64()
        with R.dataflow():
            lv: R.Tuple(R.Tensor((n, 4), dtype="float32"), R.Tensor((n, 4), dtype="float32")) = R.split(x, indices_or_sections=2, axis=1)
            lv1: R.Tensor((n, 4), dtype="float32") = lv[0]
            lv2: R.Tensor((n, 6), dtype="float32") = R.concat((lv1, y), axis=1)
            lv3: R.Tensor((n, 1, 6), dtype="float32") = R.expand_dims(lv2, axis=[1])
            lv4: R.Tensor((n, 6), dtype="float32") = R.squeeze(lv3, axis=[1])
            gv: R.Tensor((k, 6), dtype="float32") = R.take(lv4, idx, axis=0)
            R.output(gv)
        return gv
