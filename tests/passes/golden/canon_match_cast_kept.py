# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        o = T.int64()
        p = T.int64()
        y = x
        z = R.match_cast(x, R.Tensor((o, p), dtype="float32"))
        w = z
        q = R.add(w, y)
        r = R.add(q, w)
        return r
