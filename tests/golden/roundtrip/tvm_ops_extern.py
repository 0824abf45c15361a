# Operators of TVM's tests that rlx reads, checks (TVM's struct-info rules)
# and prints but does not run: image, losses, scatter, sets, gradients.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8), dtype="float32"), v: R.Tensor((1, 2, 4, 4, 4), dtype="float32"), grid: R.Tensor((2, 2, 5, 6), dtype="float32"), theta: R.Tensor((2, 2, 3), dtype="float32"), a: R.Tensor((4,), dtype="float32"), b: R.Tensor((3,), dtype="float32"), i: R.Tensor((2,), dtype="int64"), m: R.Tensor((2, 5), dtype="float32"), t: R.Tensor((2,), dtype="int64"), sl: R.Tensor((3,), dtype="int64")):
        with R.dataflow():
            r2 = R.image.resize2d(x, size=(16, 12), roi=[0.0, 0.0, 0.0, 0.0], method="linear")
            r2s = R.image.resize2d(x, 4)
            r3 = R.image.resize3d(v, (8, 8, 8))
            gs = R.image.grid_sample(x, grid, align_corners=True)
            ag = R.image.affine_grid(theta, size=(16, 16))
            at = R.atan2(a, a)
            lx = R.logical_xor(R.less(a, a), R.greater(a, a))
            ls = R.left_shift(i, i)
            rs = R.right_shift(i, i)
            r6 = R.nn.relu6(x)
            o = R.outer(a, b)
            md = R.median(m, axis=[1])
            ma = R.median(m)
            bk = R.bucketize(a, b, out_int32=True)
            nz = R.nonzero(x)
            sz = R.size(x)
            ts = R.tensor_to_shape(sl)
            ip = R.index_put(m, (i, i), a)
            ss = R.slice_scatter(m, m, R.prim_value(0), R.prim_value(2), R.prim_value(1), axis=0)
            rv = R.reverse_sequence(m, t, seq_axis=1, batch_axis=0)
            mg = R.meshgrid((a, b), indexing="xy")
            ct = R.collapse_sum_to(m, R.shape([1, 5]))
            cl = R.collapse_sum_like(m, a)
            mu = R.multinomial_from_uniform(m, R.const([[0.5], [0.25]], "float32"), R.const([[0], [1]], "int64"), dtype="int64")
            hw = R.hamming_window(R.prim_value(8), R.prim_value(1), R.prim_value(T.float32(0.54)), R.prim_value(T.float32(0.46)), dtype="float32")
            bf = R.nn.batch_flatten(x)
            ps = R.nn.pixel_shuffle(R.zeros(R.shape([1, 8, 2, 2]), dtype="float32"), upscale_factor=2)
            nl = R.nn.nll_loss(m, t, a, reduction="none")
            nm = R.nn.nll_loss(m, t)
            ce = R.nn.cross_entropy_with_logits(m, m)
            q = R.zeros(R.shape([1, 4, 2, 8]), dtype="float32")
            ab = R.nn.attention_bias(q, q, q)
            gn = R.grad.nll_loss_backward(nm, m, t)
            gt = R.grad.take_backward(m, m, t, axis=1)
            gm = R.grad.max_pool2d_backward(x, x)
            ga = R.grad.avg_pool2d_backward(x, x, pool_size=[1, 1])
            R.output(r2, r2s, r3, gs, ag, at, lx, ls, rs, r6, o, md, ma, bk, nz, sz, ts, ip, ss, rv, mg, ct, cl, mu, hw, bf, ps, nl, ce, ab, gn, gt, gm, ga)
        return (r2, r2s, r3, gs, ag, at, lx, ls, rs, r6, o, md, ma, bk, nz, sz, ts, ip, ss, rv, mg, ct, cl, mu, hw, bf, ps, nl, ce, ab, gn, gt, gm, ga)
