# A conv block with batch norm: conv2d, R.nn.batch_norm (inference),
# relu, max pooling and a global average pool (main); and the same block
# with the batch norm folded into the convolution's weight and bias
# (folded), computed from the same parameters, so that `rlx lift` moves
# the folding into folded_transform_params.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", 3, 16, 16), dtype="float32"), w: R.Tensor((8, 3, 3, 3), dtype="float32"), gamma: R.Tensor((8,), dtype="float32"), beta: R.Tensor((8,), dtype="float32"), mean: R.Tensor((8,), dtype="float32"), var: R.Tensor((8,), dtype="float32")):
        b = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=1)
            bn = R.nn.batch_norm(c, gamma, beta, mean, var, axis=1, epsilon=1e-05, training=False)
            y = R.nn.relu(bn[0])
            p = R.nn.max_pool2d(y, pool_size=2, strides=2)
            g = R.nn.adaptive_avg_pool2d(p, output_size=1)
            out = R.reshape(g, R.shape([b, 8]))
            R.output(out)
        return out

    @R.function
    def folded(x: R.Tensor(("b", 3, 16, 16), dtype="float32"), w: R.Tensor((8, 3, 3, 3), dtype="float32"), gamma: R.Tensor((8,), dtype="float32"), beta: R.Tensor((8,), dtype="float32"), mean: R.Tensor((8,), dtype="float32"), var: R.Tensor((8,), dtype="float32")):
        b = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            scale = gamma * R.rsqrt(var + R.const(1e-05, "float32"))
            wf = w * R.reshape(scale, R.shape([8, 1, 1, 1]))
            bf = beta - mean * scale
            c = R.nn.conv2d(x, wf, padding=1) + R.reshape(bf, R.shape([1, 8, 1, 1]))
            y = R.nn.relu(c)
            p = R.nn.max_pool2d(y, pool_size=2, strides=2)
            g = R.nn.adaptive_avg_pool2d(p, output_size=1)
            out = R.reshape(g, R.shape([b, 8]))
            R.output(out)
        return out
