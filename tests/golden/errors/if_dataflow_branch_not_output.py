# expect: 13:17 out
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), flip: R.Prim("bool")):
        if flip:
            with R.dataflow():
                y = R.add(x, x)
                out = R.add(y, x)
                R.output(y)
        else:
            out = x
        return out
