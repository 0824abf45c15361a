# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            h = R.add(R.multiply(x, y), R.nn.relu(x))
            p = R.nn.softmax(R.exp(R.negative(h)), axis=-1)
            q = R.concat((R.add(p, x), x), axis=0)
            r = R.split(q, 2, axis=0)[1]
            t = ((x, y), R.sum(r, axis=[0]))
            s = t[0][1]
            out = R.add(r, R.subtract(s, t[1]))
            R.output(out)
        return R.nn.relu(out)
