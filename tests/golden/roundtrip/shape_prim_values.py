# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), dtype="float32")) -> R.Tuple(R.Tensor(("n", 2, 3), dtype="float32"), R.Shape(["n", 2, 3]), R.Prim("int64"), R.Prim("int64"), R.Prim("float32")):
        n = T.int64()
        s: R.Shape([n, 2, 3]) = R.shape([n, 2, 3])
        p: R.Prim("int64") = R.prim_value(1)
        p1: R.Prim("int64") = R.prim_value(n)
        p2: R.Prim("float32") = R.prim_value(T.float32(0.5))
        with R.dataflow():
            gv: R.Tensor((n, 2, 3), dtype="float32") = R.reshape(x, s)
            R.output(gv)
        return (gv, s, p, p1, p2)
