# relax.op.OP(...) and relax.const, the Python names TVMScript also
# evaluates (TVM's frontend tests write them), read as R.OP and R.const;
# out_dtype=None where the default is "void".
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")):
        with R.dataflow():
            a = relax.op.add(x, relax.const(1.0, "float32"))
            b = relax.op.nn.relu(a)
            c = R.matmul(b, w, out_dtype=None)
            R.output(c)
        return c
