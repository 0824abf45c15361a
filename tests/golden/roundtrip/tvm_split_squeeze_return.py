# TVM's rules where NumPy's differ: split into uneven sections (ceildiv,
# the last what is left), squeeze of an axis whose length is not 1 (skipped),
# pad modes replicate and circular, and a return annotation taken as
# written (TVM's Function keeps it; rlx run checks the value against it).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((10, 4), "float32"), n: R.Tensor(("k", 1, 3), "float32")):
        parts = R.split(x, indices_or_sections=3, axis=0)
        last = R.split(x, indices_or_sections=4, axis=1)
        sym = R.split(n, 2, axis=0)
        sq = R.squeeze(n, axis=[1, 2])
        same = R.squeeze(x, axis=[0])
        rep = R.nn.pad(x, pad_width=[1, 1, 0, 2], pad_mode="replicate")
        circ = R.nn.pad(x, [2, 0, 3, 3], "circular")
        return (parts, last, sym, sq, same, rep, circ)

    @R.function
    def declared(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=3):
        y = R.add(x, x)
        return y

    @R.function
    def caller(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=3):
        cls = Module
        y = cls.declared(x)
        return y
