# rlx-fuzz: accept
# A UTF-8 byte order mark, which Python skips, was a stray byte.
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("batch", 8), dtype="float32"), `fc1.weight`: R.Tensor((16, 8), dtype="float32"), `fc1.bias`: R.Tensor((16,), dtype="float32"), `fc2.weight`: R.Tensor((4, 16), dtype="float32"), `fc2.bias`: R.Tensor((4,), dtype="float32")) -> R.Tensor(("batch", 4), dtype="float32"):
        batch = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((8, 16), dtype="float32") = R.permute_dims(`fc1.weight`, axes=None)
            lv1: R.Tensor((batch, 16), dtype="float32") = R.matmul(x, lv, out_dtype="void")
            lv2: R.Tensor((batch, 16), dtype="float32") = R.add(lv1, `fc1.bias`)
            lv3: R.Tensor((batch, 16), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((16, 4), dtype="float32") = R.permute_dims(`fc2.weight`, axes=None)
            lv5: R.Tensor((batch, 4), dtype="float32") = R.matmul(lv3, lv4, out_dtype="void")
            gv: R.Tensor((batch, 4), dtype="float32") = R.add(lv5, `fc2.bias`)
            R.output(gv)
        return gv
