# T.reads / T.writes inferred where the source omits them, as TVM's parser
# infers them: a reduction with T.init reads its inputs only; a loop inside
# a block makes a range (constant or symbolic), the block's own iteration
# variables stay points; a buffer both read and written is in both lists;
# an outer block gathers its nested blocks' regions over its loops, without
# the buffers it allocates; accesses to one buffer are joined; given
# regions are kept as written.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

    @T.prim_func(s_tir=True)
    def row_sum(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (T.int64(4), n))
        B = T.match_buffer(b, (T.int64(4),))
        for i in range(T.int64(4)):
            with T.sblock("row"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = T.float32(0)
                for k in range(n):
                    B[vi] = B[vi] + A[vi, k]

    @T.prim_func(s_tir=True)
    def tiles(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for o in range(4):
            with T.sblock("outer"):
                vo = T.axis.spatial(4, o)
                S = T.sblock_alloc_buffer((4,))
                for k in range(4):
                    with T.sblock("load"):
                        vk = T.axis.spatial(4, k)
                        S[vk] = A[vo * 4 + vk]
                for k in range(4):
                    with T.sblock("store"):
                        vk = T.axis.spatial(4, k)
                        B[vo * 4 + vk] = S[vk] + A[vo * 4 + vk + 1 - 1]

    @T.prim_func(s_tir=True)
    def shifted(A: T.Buffer((10,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("stencil"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + A[vi + 2] + A[vi + 1]

    @T.prim_func(s_tir=True)
    def given(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        with T.sblock("all"):
            T.reads(A[0:8])
            T.writes(B[0:8])
            for i in range(8):
                B[i] = A[i]
