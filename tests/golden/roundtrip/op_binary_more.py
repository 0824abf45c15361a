# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32"), i: R.Tensor((4, 1), dtype="int32"), j: R.Tensor((5,), dtype="int32"), b: R.Tensor((5,), dtype="bool"), z: R.Tensor(("n", 3), dtype="float16")):
        n = T.int64()
        with R.dataflow():
            m1: R.Tensor((2, 3), dtype="float32") = R.mod(x, y)
            m2: R.Tensor((4, 5), dtype="int32") = R.floor_mod(i, j)
            m3: R.Tensor((n, 3), dtype="float16") = R.floor_mod(z, z)
            w1: R.Tensor((4, 5), dtype="int32") = R.bitwise_and(i, j)
            w2: R.Tensor((4, 5), dtype="int32") = R.bitwise_or(i, j)
            w3: R.Tensor((5,), dtype="bool") = R.bitwise_xor(b, b)
            f1: R.Tensor((2, 3), dtype="float32") = R.ewise_fma(x, x, x)
            f2: R.Tensor((n, 3), dtype="float16") = R.ewise_fma(z, z, z)
            R.output(m1, m2, m3, w1, w2, w3, f1, f2)
        return (m1, m2, m3, w1, w2, w3, f1, f2)
