# a @ b, -a, a + b and tuple unpacking (a, b = R.split(...)) as TVMScript reads them
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), "float32"), w: R.Tensor((6, 3), "float32")):
        with R.dataflow():
            a, b = R.split(x, 2, axis=1)
            c = a @ R.permute_dims(b)
            d = -(x @ w) + R.zeros(R.shape([4, 3]), "float32")
            q, k, v = R.split(x, 3, axis=-1)
            R.output(c, d, q, v)
        return (c, d, q, v)
