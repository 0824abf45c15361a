# expect: 11:23 seq_len
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        lv: R.Tensor((seq_len, 3), dtype="float32") = R.add(x, x)
        return x
