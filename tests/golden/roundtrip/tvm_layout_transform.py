# layout_transform with affine index maps (lambda, as TVM prints them in
# T.index_map), and conv2d / pools / resize in packed layouts (NCHW4c).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8, 6, 6), dtype="float32"), w: R.Tensor((8, 8, 3, 3), dtype="float32"), y: R.Tensor((6, "n"), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            xp = R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4), index_dtype="int32"))
            wp = R.layout_transform(w, index_map=lambda i0, i1, i2, i3: (i0 // 4, i1, i2, i3, i0 % 4))
            c = R.nn.conv2d(xp, wp, data_layout="NCHW4c", kernel_layout="OIHW4o", out_dtype="float32")
            p = R.nn.max_pool2d(c, pool_size=[2, 2], layout="NCHW4c")
            q = R.nn.adaptive_avg_pool2d(c, output_size=[1, 1], layout="NCHW4c")
            r = R.image.resize2d(c, (8, 8), layout="NCHW4c", method="nearest_neighbor")
            back = R.layout_transform(c, index_map=lambda a, b, h, w, c4: (a, b * 4 + c4, h, w))
            t = R.layout_transform(y, index_map=lambda i, j: (j, i))
            s = R.layout_transform(y, index_map=lambda i, j: (i // 4, j, i % 4), pad_value=0.0)
            one = R.layout_transform(y, index_map=lambda i, j: (j // 2, i * 2 + j % 2))
            R.output(p, q, r, back, t, s, one)
        return (p, q, r, back, t, s, one)
