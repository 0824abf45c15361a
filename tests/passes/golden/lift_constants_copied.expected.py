# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), dtype="int32"), B_offset: R.Tensor((16,), dtype="int32")) -> R.Tensor((16,), dtype="int32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            offset: R.Tensor((16,), dtype="int32") = R.ones(R.shape([16]), dtype="int32")
            A_offset: R.Tensor((16,), dtype="int32") = R.add(A, offset)
            output: R.Tensor((16,), dtype="int32") = R.multiply(A_offset, B_offset)
            R.output(output)
        return output

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((16,), dtype="int32"))) -> R.Tuple(R.Tensor((16,), dtype="int32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            offset: R.Tensor((16,), dtype="int32") = R.ones(R.shape([16]), dtype="int32")
            B: R.Tensor((16,), dtype="int32") = params[0]
            B_offset: R.Tensor((16,), dtype="int32") = R.add(B, offset)
            gv: R.Tuple(R.Tensor((16,), dtype="int32")) = (B_offset,)
            R.output(gv)
        return gv
