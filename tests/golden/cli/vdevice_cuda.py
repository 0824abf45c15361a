# The same function on another virtual device: not equal (TVM compares vdevice).
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "cuda")) -> R.Tensor((2, 3), "float32", "cuda"):
        return x
