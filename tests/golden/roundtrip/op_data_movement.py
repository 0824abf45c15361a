# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), s: R.Tensor(("n", 4), dtype="int8"), ie: R.Tensor((2, 2), dtype="int64"), ind: R.Tensor((4, 2), dtype="int64"), upd: R.Tensor((4,), dtype="float32"), b: R.Tensor((2,), dtype="int64"), e: R.Tensor((2,), dtype="int64"), st: R.Tensor((2,), dtype="int64"), ix: R.Tensor((5,), dtype="int32")):
        n = T.int64()
        with R.dataflow():
            t1: R.Tensor((4, 9), dtype="float32") = R.tile(x, [2, 3])
            t2: R.Tensor((2, 2, 3), dtype="float32") = R.tile(x, [2, 1, 1])
            t3: R.Tensor((n, 8), dtype="int8") = R.tile(s, 2)
            r1: R.Tensor((2, 6), dtype="float32") = R.repeat(x, 2, axis=1)
            r2: R.Tensor((n * 12,), dtype="int8") = R.repeat(s, repeats=3)
            f1: R.Tensor((2, 3), dtype="float32") = R.flip(x, axis=0)
            f2: R.Tensor((n, 4), dtype="int8") = R.flip(s, axis=-1)
            k1: R.Tensor((3, 2, 3), dtype="float32") = R.stack((x, x, x))
            k2: R.Tensor((2, 3, 2), dtype="float32") = R.stack((x, x), axis=-1)
            p1: R.Tensor((3, 7), dtype="float32") = R.nn.pad(x, pad_width=[0, 1, 2, 2])
            p2: R.Tensor((n + 2, 4), dtype="int8") = R.nn.pad(s, [1, 1, 0, 0], pad_mode="edge", pad_value=0.0)
            g1: R.Tensor((2, 2), dtype="float32") = R.gather_elements(x, ie, axis=1)
            g2: R.Tensor((4,), dtype="float32") = R.gather_nd(x, ind)
            g3: R.Tensor((2, 3), dtype="float32") = R.scatter_elements(x, ie, R.zeros(R.shape([2, 2]), dtype="float32"), axis=0, reduction="add")
            g4: R.Tensor((2, 3), dtype="float32") = R.scatter_nd(x, ind, upd)
            g5: R.Tensor((2, 3), dtype="float32") = R.scatter_nd(x, ind, upd, reduction="mul")
            k3: R.Tensor((2, 5), dtype="float32") = R.take(x, ix, axis=1, mode="clip")
            k4: R.Tensor((5, 4), dtype="int8") = R.take(s, ix, axis=0, mode="wrap")
            d1: R.Tensor(dtype="float32", ndim=2) = R.dynamic_strided_slice(x, b, e, st)
            h1: R.Shape([n, 4]) = R.shape_of(s)
            h2: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(h1)
            R.output(t1, t2, t3, r1, r2, f1, f2, k1, k2, p1, p2, g1, g2, g3, g4, g5, k3, k4, d1, h1, h2)
        return (t1, t2, t3, r1, r2, f1, f2, k1, k2, p1, p2, g1, g2, g3, g4, g5, k3, k4, d1, h1, h2)
