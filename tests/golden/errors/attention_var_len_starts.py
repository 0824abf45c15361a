# expect: 10:45 seqstart_q
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 6, 4, 8), dtype="float16"), s: R.Tensor((2, 3), dtype="int32"), n: R.Tensor((), dtype="int32")):
        a = R.nn.attention_var_len(q, q, q, s, n)
        return a
