# TVM's virtual devices: the third R.Tensor parameter (printed vdevice=
# "kind:index:scope"), R.to_vdevice / R.hint_on_device; R.dtype("...")
# immediates; T.float64("inf") prim values; vision.roi_align and
# all_class_non_max_suppression.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32", "llvm"), y: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"), z: R.Tensor(dtype="float32", ndim=2, vdevice="llvm:0:global")):
        a = R.to_vdevice(x, "cuda")
        b = R.hint_on_device(y, tvm.cpu(0))
        c = R.clip(a, R.prim_value(T.float64("-inf")), R.prim_value(T.float64("inf")))
        R.print(x, R.dtype("float32"), format="{}")
        return (a, b, c, z)

    @R.function
    def vision(data: R.Tensor((1, 4, 16, 16), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32"), boxes: R.Tensor((1, 6, 4), dtype="float32"), scores: R.Tensor((1, 2, 6), dtype="float32")):
        r = R.vision.roi_align(data, rois, pooled_size=(7, 7), spatial_scale=0.25, sample_ratio=2)
        n = R.vision.all_class_non_max_suppression(boxes, scores, R.const(3, "int64"), R.const(0.5, "float32"), R.const(0.1, "float32"), "onnx")
        t = R.vision.all_class_non_max_suppression(boxes, scores, R.const(3, "int64"), R.const(0.5, "float32"), R.const(0.1, "float32"), output_format="tensorflow")
        return (r, n, t)
