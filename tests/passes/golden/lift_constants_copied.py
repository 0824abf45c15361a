# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), dtype="int32"), B: R.Tensor((16,), dtype="int32")) -> R.Tensor((16,), dtype="int32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            offset = R.ones(R.shape([16]), dtype="int32")
            A_offset = R.add(A, offset)
            B_offset = R.add(B, offset)
            output = R.multiply(A_offset, B_offset)
            R.output(output)
        return output
