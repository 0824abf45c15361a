# expect: 9:13
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        y = R.ccl.scatter_from_worker0(x, num_workers=2)
        return y
