# Branches that end in a dataflow block, as TVM's tests write them: the
# branch's value is what its last binding defines, an output of the block.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32"), flip: R.Prim("bool")):
        if flip:
            with R.dataflow():
                w_t = R.permute_dims(w)
                out = R.matmul(x, w_t)
                R.output(out)
        else:
            with R.dataflow():
                out = R.matmul(x, w)
                R.output(out)
        return out
