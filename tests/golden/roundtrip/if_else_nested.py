# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(c1: R.Tensor((), dtype="bool"), c2: R.Tensor((), dtype="bool"), x: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        if c1:
            if c2:
                y: R.Tensor((n, 3), dtype="float32") = R.nn.silu(x)
            else:
                y: R.Tensor((n, 3), dtype="float32") = R.nn.gelu(x)
            z: R.Tensor((n, 3), dtype="float32") = R.add(y, x)
        else:
            z: R.Tensor((n, 3), dtype="float32") = R.sigmoid(x)
        return z
