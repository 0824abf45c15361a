# expect: 8:14 ExternFunc
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    my_ext = R.ExternFunc(my_ext)

    @R.function
    def main(x: R.Tensor((2,), dtype="float32")):
        return x
