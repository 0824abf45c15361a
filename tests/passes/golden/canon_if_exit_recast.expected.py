from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        if R.prim_value(n == 4):
            an: R.Tensor((n,), "float32") = R.match_cast(a, R.Tensor((n,), "float32"))
            r_1: R.Tensor((4,), "float32") = R.add(an, x)
            r: R.Tensor((n,), "float32") = R.match_cast(r_1, R.Tensor((n,), "float32"))
        else:
            r: R.Tensor((n,), "float32") = R.multiply(x, x)
        out: R.Tensor((n,), "float32") = R.add(r, x)
        return out
