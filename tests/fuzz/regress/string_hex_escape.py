# A raw control byte in a string prints as \xHH; the lexer read \x01 back as
# "x01", so printing was not a fixed point (found by libFuzzer).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        R.func_attr({"a\x01b\tc\\d\"e\x7f": 0, "gh": 1})
        return x
