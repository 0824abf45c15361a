# Module-level declarations and function attributes that are not scalars,
# kept as their text: I.module_attrs, I.module_global_infos (vdevices),
# dict and T.int64 attribute values.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_attrs({"attr": 10, "names": ["a", 'b'], "scale": 0.5, "none": None})
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda")]})

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"tir_var_lower_bound": {"s27": 2, "s77": 2}, "WorkspaceSize": T.int64(65536), "num_input": 1})
        return x
