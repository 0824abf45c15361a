# Python values TVMScript evaluates, as TVM's tests write them: a variable's
# struct info `v.ty`, math.inf, FloatImm/IntImm attributes (T.float32(0.5),
# T.IntImm("int32", 8)), Python numbers and bools in a tuple (prim values,
# as convert_to_expr makes them), R.TupleGetItem, and attention over packed
# sequences (R.nn.attention_var_len, the keys' starts defaulting to the
# queries').
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(
        x: R.Tensor((2, 8), "float32"),
        lens: R.Tensor((4,), "int32"),
    ):
        y = R.call_packed("my_copy", x, ty_args=[x.ty])
        z = R.call_dps_packed("my_scan", lens, out_ty=lens.ty)
        c = R.clip(x, -math.inf, 6.0)
        t = (x, 16, True, -2, 0.5)
        u = R.TupleGetItem(t, 1)
        w = t[0]
        return (y, z, c, u, w)

    @R.function
    def attn(
        q: R.Tensor((1, "n", 4, 8), "float16"),
        k: R.Tensor((1, "n", 4, 8), "float16"),
        v: R.Tensor((1, "n", 4, 16), "float16"),
        starts: R.Tensor((3,), "int32"),
        longest: R.Tensor((), "int32"),
    ):
        a = R.nn.attention_var_len(q, k, v, starts, longest, causal_mask="BottomRight")
        b = R.nn.attention_var_len(
            q,
            k,
            v,
            starts,
            longest,
            starts,
            longest,
            scale=T.float32(0.25),
            causal_mask="TopLeft",
            window_size=T.IntImm("int32", 8),
        )
        return (a, b)
