# expect: 10:35 closure
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        y = R.invoke_pure_closure(x, (x,), ty_args=(R.Tensor((4,), dtype="float32"),))
        return y
