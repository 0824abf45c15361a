# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 8, 8), dtype="float32"), g: R.Tensor((4,), dtype="float32"), xh: R.Tensor((1, 7, 7, 3), dtype="float32"), wh: R.Tensor((3, 3, 3, 8), dtype="float32"), s: R.Tensor((1, 3, 10), dtype="float32"), w1: R.Tensor((6, 3, 3), dtype="float32"), wt: R.Tensor((4, 2, 3, 3), dtype="float32"), q: R.Tensor((1, "n", 4, 16), dtype="float16"), kv: R.Tensor((1, "m", 2, 16), dtype="float16"), lin: R.Tensor((5, 4), dtype="float32"), lw: R.Tensor((6, 4), dtype="float32"), lb: R.Tensor((6,), dtype="float32"), sc: R.Tensor((4,), dtype="float32"), zp: R.Tensor((4,), dtype="int8")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            b1: R.Tuple(R.Tensor((2, 4, 8, 8), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.nn.batch_norm(x, g, g, g, g, axis=1, epsilon=1e-05, training=False)
            b2: R.Tensor((2, 4, 8, 8), dtype="float32") = b1[0]
            b3: R.Tensor((2, 4, 8, 8), dtype="float32") = R.nn.group_norm(x, g, g, num_groups=2, channel_axis=1, axes=[2, 3])
            b4: R.Tensor((2, 4, 8, 8), dtype="float32") = R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3], epsilon=1e-05)
            p1: R.Tensor((2, 4, 4, 4), dtype="float32") = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])
            p2: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.avg_pool2d(x, pool_size=3, strides=3, ceil_mode=True)
            p3: R.Tensor((2, 4, 8, 8), dtype="float32") = R.nn.avg_pool2d(x, pool_size=3, padding=1, count_include_pad=True)
            p4: R.Tensor((1, 4, 4, 3), dtype="float32") = R.nn.max_pool2d(xh, pool_size=2, strides=2, padding=[0, 0, 1, 1], layout="NHWC")
            p5: R.Tensor((2, 4, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(x, output_size=1)
            p6: R.Tensor((2, 4, 3, 5), dtype="float32") = R.nn.adaptive_avg_pool2d(x, output_size=[3, 5])
            c1: R.Tensor((1, 6, 8), dtype="float32") = R.nn.conv1d(s, w1)
            c2: R.Tensor((1, 6, 5), dtype="float32") = R.nn.conv1d(s, w1, strides=2, padding=1)
            c3: R.Tensor((2, 2, 10, 10), dtype="float32") = R.nn.conv2d_transpose(x, wt)
            c4: R.Tensor((2, 2, 16, 16), dtype="float32") = R.nn.conv2d_transpose(x, wt, strides=2, padding=[1, 1], output_padding=[1, 1])
            c5: R.Tensor((1, 5, 5, 8), dtype="float32") = R.nn.conv2d(xh, wh, data_layout="NHWC", kernel_layout="HWIO")
            a1: R.Tensor((1, n, 4, 16), dtype="float16") = R.nn.attention(q, kv, kv, causal_mask="BottomRight")
            a2: R.Tensor((1, n, 4, 16), dtype="float16") = R.nn.attention(q, kv, kv, scale=0.25)
            l1: R.Tensor((5, 6), dtype="float32") = R.linear(lin, lw, lb)
            l2: R.Tensor((5, 6), dtype="float32") = R.linear(lin, lw)
            d1: R.Tuple(R.Tensor((2, 4, 8, 8), dtype="float32"), R.Tensor((2, 4, 8, 8), dtype="float32")) = R.nn.dropout(x, rate=0.1)
            e1: R.Tensor((5, 6), dtype="float32") = R.einsum((lin, lw), subscripts="ij,kj->ik")
            e2: R.Tensor((), dtype="float32") = R.einsum((lin,), subscripts="ij->")
            e3: R.Tensor((4, 5), dtype="float32") = R.einsum((lin,), subscripts="ji")
            q1: R.Tensor((2, 4, 8, 8), dtype="int8") = R.quantize(x, sc, zp, axis=1)
            q2: R.Tensor((2, 4, 8, 8), dtype="float32") = R.dequantize(q1, sc, zp, axis=1)
            R.output(b2, b3, b4, p1, p2, p3, p4, p5, p6, c1, c2, c3, c4, c5, a1, a2, l1, l2, d1, e1, e2, e3, q1, q2)
        return (b2, b3, b4, p1, p2, p3, p4, p5, p6, c1, c2, c3, c4, c5, a1, a2, l1, l2, d1, e1, e2, e3, q1, q2)
