# TIR in TVM main's spelling (T.sblock, T.sblock_alloc_buffer, out_ty=,
# s_tir=True): loops of every kind, blocks with axes, predicates, regions
# with slices, lets, branches, intrinsics, and the call_tir family.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def shift(var_A: T.handle, var_B: T.handle, m: T.int64):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "int32")
        B = T.match_buffer(var_B, (n,), "int32")
        for i in range(n):
            with T.sblock("B"):
                v_i = T.axis.spatial(n, i)
                T.where(i < n - m)
                T.reads(A[v_i:v_i + m])
                T.writes(B[v_i])
                B[v_i] = T.shift_left(A[v_i + m], 1) + T.Select(v_i % T.int64(2) == T.int64(0), 1, -1)

    @T.prim_func(private=True, s_tir=True)
    def tiled(A: T.Buffer((64, 64), "float16"), C: T.Buffer((64,), "float32")):
        acc = T.sblock_alloc_buffer((64,), scope="local")
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            for tx in T.thread_binding(8, thread="threadIdx.x"):
                for k in T.serial(64, annotations={"pragma_unroll_explicit": 1}):
                    with T.sblock("acc"):
                        vi = T.axis.spatial(64, bx * 8 + tx)
                        vk = T.axis.reduce(64, k)
                        T.reads(A[vi, 0:64])
                        T.writes(acc[vi])
                        with T.init():
                            acc[vi] = T.float32(0)
                        acc[vi] = acc[vi] + T.Cast("float32", A[vi, vk])
        for i in T.parallel(64):
            for j in T.vectorized(1):
                with T.sblock("out"):
                    vi = T.axis.spatial((0, 64), i + j)
                    T.reads(acc[vi])
                    T.writes(C[vi])
                    s: T.let[T.float32] = acc[vi] * T.float32(0.015625)
                    if s > T.float32(0) and not T.isnan(s):
                        C[vi] = T.sqrt(s)
                    else:
                        C[vi] = T.if_then_else(s < T.float32(-1), T.float32(-1), T.exp(s))

    @T.prim_func(private=True)
    def plain(A: T.Buffer((4, 4), "float32"), x: T.float32):
        for i in T.unroll(2, 4):
            for j in range(i):
                A[i, j] = A[i, j] + x
        T.evaluate(0)

    @T.prim_func
    def zero_d(A: T.Buffer((), "float32"), B: T.Buffer((), "float32")):
        with T.sblock("root"):
            with T.sblock("copy"):
                T.reads(A[()])
                T.writes(B[()])
                B[()] = T.max(A[()], T.min_value("float32"))

    @R.function
    def main(x: R.Tensor(("n",), dtype="int32"), a: R.Tensor((64, 64), dtype="float16"), b: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor(("n",), dtype="int32"), R.Tensor((64,), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.shift, (x,), out_ty=R.Tensor((n,), dtype="int32"), tir_vars=R.shape([2]))
            c = R.call_tir(cls.tiled, (a,), out_ty=R.Tensor((64,), dtype="float32"))
            d = R.call_tir_inplace(cls.plain, (b, R.prim_value(T.float32(1))), inplace_indices=[0], out_ty=R.Tensor((4, 4), dtype="float32"))
            e = R.call_dps_packed("my_kernel", (b,), out_ty=R.Tensor((4, 4), dtype="float32"))
            g = R.call_tir_with_grad(cls.tiled, (a,), out_ty=R.Tensor((64,), dtype="float32"), te_grad_name="tiled_grad")
            R.output(y, c, d, e, g)
        return (y, c, d)
