# A name bound to a constant dimension by I.meta_var, alone and among the
# declarations of symbolic variables (as TVM's convert_layout tests write it).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=4), w: R.Tensor("float32", ndim=2)):
        N, C, H, W = T.int64(), I.meta_var(T.int64(16)), T.int64(), T.int64()
        K = I.meta_var(8)
        with R.dataflow():
            a = R.match_cast(x, R.Tensor((N, C, H, W), "float32"))
            b = R.match_cast(w, R.Tensor((K, C * 2), "float32"))
            c = R.reshape(a, R.shape([N, C * H * W]))
            R.output(b, c)
        return (b, c)
