# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), v: R.Tensor(("n", 6), dtype="int32")):
        n = T.int64()
        with R.dataflow():
            a1: R.Tensor((), dtype="float32") = R.variance(x)
            a2: R.Tensor((2, 1, 4), dtype="float32") = R.variance(x, axis=[1], keepdims=True)
            a3: R.Tensor((3,), dtype="float32") = R.std(x, axis=[0, 2])
            c1: R.Tensor((24,), dtype="float32") = R.cumsum(x)
            c2: R.Tensor((2, 3, 4), dtype="float32") = R.cumsum(x, axis=1, exclusive=True)
            c3: R.Tensor((n, 6), dtype="int64") = R.cumprod(v, axis=-1, dtype="int64")
            c4: R.Tensor((n * 6,), dtype="int32") = R.cumprod(v)
            s1: R.Tensor((2, 3, 4), dtype="float32") = R.sort(x)
            s2: R.Tensor((n, 6), dtype="int32") = R.sort(v, axis=0, descending=True)
            s3: R.Tensor((2, 3, 4), dtype="int32") = R.argsort(x, axis=1)
            s4: R.Tensor((n, 6), dtype="int64") = R.argsort(v, descending=True, dtype="int64")
            k1: R.Tuple(R.Tensor((2, 3, 1), dtype="float32"), R.Tensor((2, 3, 1), dtype="int32")) = R.topk(x)
            k2: R.Tensor((2, 2, 4), dtype="float32") = R.topk(x, k=2, axis=1, ret_type="values")
            k3: R.Tensor((3, 6), dtype="int64") = R.topk(v, k=3, axis=0, ret_type="indices", largest=False, dtype="int64")
            k4: R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="int32")) = R.topk(x, k=9)
            R.output(a1, a2, a3, c1, c2, c3, c4, s1, s2, s3, s4, k1, k2, k3, k4)
        return (a1, a2, a3, c1, c2, c3, c4, s1, s2, s3, s4, k1, k2, k3, k4)
