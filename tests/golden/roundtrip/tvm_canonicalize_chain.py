# Unannotated chains of assignments, as in TVM's CanonicalizeBindings tests.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class TestChainAssignments:
    @R.function
    def main(x: R.Tensor, y: R.Tensor):
        w = y
        q = x
        z = R.add(w, q)
        o = z
        p = o
        return R.add(q, p)

    @R.function
    def flow(x: R.Tensor):
        with R.dataflow():
            y = x  # is not a dataflow var
            z = y
            o = z
            n = o
            R.output(n)
        return n
