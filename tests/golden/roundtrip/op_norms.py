# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 8), dtype="float32"), w: R.Tensor((8,), dtype="float32"), b: R.Tensor((8,), dtype="float32"), w2: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((2, 4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 4, 8), dtype="float32") = R.nn.rms_norm(x, w)
            lv1: R.Tensor((2, 4, 8), dtype="float32") = R.nn.rms_norm(lv, w2, axes=[1, 2], epsilon=1e-06)
            lv2: R.Tensor((2, 4, 8), dtype="float32") = R.nn.layer_norm(lv1, w, b, axes=[-1])
            lv3: R.Tensor((2, 4, 8), dtype="float32") = R.nn.layer_norm(lv2, w, b, [2], 1e-06)
            gv: R.Tensor((2, 4, 8), dtype="float32") = R.nn.layer_norm(lv3, w2, w2, axes=[-2, -1], epsilon=1e-05, center=False, scale=True)
            R.output(gv)
        return gv
