# A weight transposed by a prim_func (topi's transpose, as LegalizeOps
# writes it) whose only use is the b of a prim_func matmul: the plan folds
# the transpose into the matmul's kernel (rlx run --print-plan). Its second
# weight's transpose is used twice, so it is computed.
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": True})
        for ax0, ax1 in T.grid(T.int64(8), T.int64(4)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @T.prim_func(private=True)
    def matmul(var_A: T.handle, B: T.Buffer((T.int64(8), T.int64(4)), "float32"), var_matmul: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(8)))
        matmul = T.match_buffer(var_matmul, (n, T.int64(4)))
        for i0, i1, k in T.grid(n, T.int64(4), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w: R.Tensor((4, 8), dtype="float32"), u: R.Tensor((4, 8), dtype="float32")) -> R.Tuple(R.Tensor(("n", 4), dtype="float32"), R.Tensor(("n", 4), dtype="float32"), R.Tensor((8, 4), dtype="float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            wt = R.call_tir(cls.transpose, (w,), out_sinfo=R.Tensor((8, 4), dtype="float32"))
            y = R.call_tir(cls.matmul, (x, wt), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            ut = R.call_tir(cls.transpose, (u,), out_sinfo=R.Tensor((8, 4), dtype="float32"))
            z = R.call_tir(cls.matmul, (x, ut), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            gv = (y, z, ut)
            R.output(gv)
        return gv
