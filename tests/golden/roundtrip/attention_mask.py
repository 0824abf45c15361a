# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(scores: R.Tensor((1, 2, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="int64") = R.arange(0, 4, 1, dtype="int64")
            lv1: R.Tensor((4, 1), dtype="int64") = R.expand_dims(lv, axis=[1])
            lv2: R.Tensor((1, 4), dtype="int64") = R.expand_dims(lv, axis=[0])
            lv3: R.Tensor((4, 4), dtype="bool") = R.less_equal(lv2, lv1)
            lv4: R.Tensor((4, 4), dtype="float32") = R.full(R.shape([4, 4]), R.const(-10000.0, "float32"), dtype="float32")
            lv5: R.Tensor((1, 2, 4, 4), dtype="float32") = R.where(lv3, scores, lv4)
            gv: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.softmax(lv5, axis=-1)
            R.output(gv)
        return gv
