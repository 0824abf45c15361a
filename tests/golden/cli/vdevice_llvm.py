# A function on virtual device llvm:0.
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm")) -> R.Tensor((2, 3), "float32", "llvm"):
        return x
