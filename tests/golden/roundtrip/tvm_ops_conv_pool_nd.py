# 1-D and 3-D convolutions and pools (TVM's nn.conv3d, conv1d_transpose,
# conv3d_transpose, max/avg_pool1d/3d, adaptive_avg_pool1d/3d).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(v: R.Tensor((1, 4, 6, 6, 6), dtype="float32"), k: R.Tensor((8, 4, 3, 3, 3), dtype="float32"), s: R.Tensor((1, 4, 10), dtype="float32"), kt: R.Tensor((4, 2, 3), dtype="float32"), k3t: R.Tensor((4, 2, 3, 3, 3), dtype="float32"), vl: R.Tensor((1, 6, 6, 6, 4), dtype="float32"), kl: R.Tensor((3, 3, 3, 4, 8), dtype="float32")):
        with R.dataflow():
            a = R.nn.conv3d(v, k, strides=[1], padding=[1, 1, 1])
            al = R.nn.conv3d(vl, kl, data_layout="NDHWC", kernel_layout="DHWIO")
            b = R.nn.conv1d_transpose(s, kt, strides=2, padding=1, output_padding=1)
            b3 = R.nn.conv3d_transpose(v, k3t, strides=[2, 2, 2])
            c = R.nn.max_pool1d(s, pool_size=[3], strides=[2])
            d = R.nn.avg_pool1d(s, pool_size=[2], ceil_mode=True)
            e = R.nn.max_pool3d(v, pool_size=[2, 2, 2], strides=[2, 2, 2])
            f = R.nn.avg_pool3d(v, pool_size=[3, 1, 1], padding=[1, 0, 0, 1, 0, 0], count_include_pad=True)
            g = R.nn.adaptive_avg_pool1d(s, output_size=[5])
            h = R.nn.adaptive_avg_pool3d(v, output_size=[1, 2, 3])
            R.output(a, al, b, b3, c, d, e, f, g, h)
        return (a, al, b, b3, c, d, e, f, g, h)
