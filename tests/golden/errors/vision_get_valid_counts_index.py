# expect: 10:14 score_index
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((1, 5, 6), dtype="float32")):
        gv = R.vision.get_valid_counts(data, score_threshold=0.5, id_index=0, score_index=6)
        return gv
