# expect: 12:19 valid_count
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((1, 5, 6), dtype="float32"), vc: R.Tensor((1,), dtype="float32"), ix: R.Tensor((1, 5), dtype="int32")):
        # TVM's rule: valid_count (and indices) are int32
        gv = R.vision.non_max_suppression(
            data, vc, ix, return_indices=True)
        return gv
