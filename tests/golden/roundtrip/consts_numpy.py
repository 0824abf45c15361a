# The constants TVM's tests write in Python: NumPy arrays and arithmetic on
# literals, read as the values they stand for.
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")):
        with R.dataflow():
            a = R.add(x, R.const(np.eye(2, dtype=np.float32)))
            b = R.multiply(a, R.const(np.ones((2, 2), dtype="float32")))
            c = R.add(b, R.const(np.array([[1, 2], [3, 4]]).astype("float32")))
            d = R.add(c, R.const(5.0 / 4.0, "float32"))
            e = R.add(d, R.const(np.zeros((2,), dtype=np.float32)))
            f = R.add(e, R.const(np.arange(4, dtype=np.float32).reshape((2, 2))))
            g = R.minimum(f, R.const(np.finfo(np.float32).max, "float32"))
            h = R.add(g, R.const(tvm.runtime.tensor(np.zeros((2, 2), dtype="float32"))))
            i = R.const(np.array([7, -8]), "int32")
            j = R.const(np.array([2.75, -1.5], dtype=np.float32), "int32")
            k = R.const(7 // 2 - 2 * 3)
            m = R.const(np.array([True, False]))
            n = R.const(np.array([1.5, 20.0]))
            R.output(h, i, j, k, m, n)
        return (h, i, j, k, m, n)
