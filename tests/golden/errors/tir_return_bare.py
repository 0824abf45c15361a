# expect: 10:9 return needs a value
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(n: T.int64) -> T.int64:
        return
