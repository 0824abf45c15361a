# expect: 11:24 did you mean 'hidden_states'
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(hidden_states: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            gv = R.add(hiden_states, hidden_states)
            lv = R.multiply(gv, hiden_states)
            R.output(lv)
        return lv
