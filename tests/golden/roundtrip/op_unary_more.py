# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), h: R.Tensor(("n", 4), dtype="float16"), i: R.Tensor((5,), dtype="int32"), b: R.Tensor((5,), dtype="bool"), c: R.Tensor((1, 3, 2, 2), dtype="float32"), a: R.Tensor((3,), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            s1: R.Tensor((2, 3), dtype="float32") = R.square(x)
            s2: R.Tensor((5,), dtype="int32") = R.square(i)
            t1: R.Tensor((2, 3), dtype="float32") = R.tan(x)
            t2: R.Tensor((n, 4), dtype="float16") = R.sinh(h)
            t3: R.Tensor((2, 3), dtype="float32") = R.cosh(x)
            t4: R.Tensor((2, 3), dtype="float32") = R.asin(x)
            t5: R.Tensor((2, 3), dtype="float32") = R.acos(x)
            t6: R.Tensor((2, 3), dtype="float32") = R.atan(x)
            t7: R.Tensor((2, 3), dtype="float32") = R.asinh(x)
            t8: R.Tensor((2, 3), dtype="float32") = R.acosh(x)
            t9: R.Tensor((n, 4), dtype="float16") = R.atanh(h)
            u1: R.Tensor((2, 3), dtype="float32") = R.trunc(x)
            u2: R.Tensor((5,), dtype="int32") = R.trunc(i)
            u3: R.Tensor((5,), dtype="int32") = R.bitwise_not(i)
            u4: R.Tensor((5,), dtype="bool") = R.bitwise_not(b)
            k1: R.Tensor((2, 3), dtype="bool") = R.isnan(x)
            k2: R.Tensor((n, 4), dtype="bool") = R.isinf(h)
            k3: R.Tensor((5,), dtype="bool") = R.isfinite(i)
            r1: R.Tensor((2, 3), dtype="float32") = R.nn.leakyrelu(x)
            r2: R.Tensor((n, 4), dtype="float16") = R.nn.leakyrelu(h, alpha=0.2)
            r3: R.Tensor((2, 3), dtype="float32") = R.nn.softplus(x)
            r4: R.Tensor((2, 3), dtype="float32") = R.nn.softplus(x, beta=2.0, threshold=10.0)
            r5: R.Tensor((1, 3, 2, 2), dtype="float32") = R.nn.prelu(c, a)
            r6: R.Tensor((2, 3), dtype="float32") = R.nn.prelu(x, a, axis=-1)
            R.output(s1, s2, t1, t2, t3, t4, t5, t6, t7, t8, t9, u1, u2, u3, u4, k1, k2, k3, r1, r2, r3, r4, r5, r6)
        return (s1, s2, t1, t2, t3, t4, t5, t6, t7, t8, t9, u1, u2, u3, u4, k1, k2, k3, r1, r2, r3, r4, r5, r6)
