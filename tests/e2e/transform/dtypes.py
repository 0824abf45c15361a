# Weights of every dtype, for `rlx init-weights`.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32"), `model.f32.weight`: R.Tensor((16, 8), dtype="float32"), `model.f16.weight`: R.Tensor((8,), dtype="float16"), `model.bf16.weight`: R.Tensor((4, 4), dtype="bfloat16"), `model.f64.weight`: R.Tensor((3,), dtype="float64"), `model.i8.weight`: R.Tensor((5,), dtype="int8"), `model.i32.weight`: R.Tensor((2, 2), dtype="int32"), `model.i64.weight`: R.Tensor((6,), dtype="int64"), `model.u8.weight`: R.Tensor((7,), dtype="uint8"), `model.mask`: R.Tensor((9,), dtype="bool")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x
