# A module written by hand, the way people write TVMScript: real imports,
# no binding annotations, no return annotation, positional dtypes, comments.
import tvm
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class MyModel:
    @R.function
    def forward(x: R.Tensor((4, "n"), "float32"), w: R.Tensor(("n", 4), "float32")):
        # the projection
        with R.dataflow():
            h = R.matmul(x, w)  # (4, 4)
            out = R.nn.relu(h)

            R.output(out)
        return out
