# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", "n"), dtype="float32")):
        o = T.int64()
        p = T.int64()
        z = R.match_cast(x, R.Tensor((o, p), dtype="float32"))
        w = R.add(z, x)
        v = R.multiply(w, z)
        return v
