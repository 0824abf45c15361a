from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        n = T.int64()
        xn: R.Tensor((n,), "float32") = R.match_cast(x, R.Tensor((n,), "float32"))
        s: R.Tensor((8,), "float32") = R.add(x, y)
        z: R.Tensor((8,), "float32") = R.strided_slice(s, axes=[0], begin=[0], end=[n], assume_inbound=False)
        return z
