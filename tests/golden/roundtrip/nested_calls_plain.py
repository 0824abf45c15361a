# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        y = R.matmul(x, R.permute_dims(w))
        z = R.nn.rms_norm(R.add(y, x), R.ones(R.shape([4]), "float32"))
        return R.add(z, R.matmul(z, R.permute_dims(w, axes=[1, 0])))
