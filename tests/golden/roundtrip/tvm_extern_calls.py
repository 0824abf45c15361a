# Packed calls, external functions and memory ops as TVM's tests write
# them: ty_args / sinfo_args, out_sinfo / out_ty, positional struct info,
# Python ints and strings as packed arguments, R.dtype / R.str arguments,
# R.tuple() for a missing argument, bare impure statements, R.Any.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32"), y: R.Any) -> R.Tuple([R.Tensor((2, 3), "float32"), R.Any]):
        R.print(x, format="x: {}")
        R.print(format=R.str("Hi there!"))
        p = R.print(x)
        R.assert_op(R.const(True, "bool"), x, format="x: {}")
        z = R.call_packed("vm.builtin.copy", x, 2, "", ty_args=(R.Tensor((2, 3), "float32")))
        _ = R.call_packed("vm.builtin.check_shape_info", y, -1, "", sinfo_args=[R.Tuple()])
        w = R.call_pure_packed("f", x, sinfo_args=[R.Tensor((2, 3), "float32")])
        k = R.call_inplace_packed("g", x, z, inplace_indices=[0], ty_args=R.Tensor((2, 3), "float32"))
        b = R.call_builtin_with_ctx("vm.builtin.alloc_storage", (R.shape([4]),), sinfo_args=R.Any)
        u = R.call_dps_packed("my_sigmoid", (x,), R.Tensor((2, 3), dtype="float32"))
        q = Module.g(u)
        e = R.ExternFunc("ext")
        u2 = R.call_dps_packed(e, (x,), out_sinfo=[R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32")])
        n = R.null_value()
        return (q, y)

    @R.function
    def g(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        R.func_attr({"relax.force_pure": True})
        R.print(x, format="{}")
        c = R.grad.start_checkpoint(x)
        d = R.grad.end_checkpoint(c)
        return d

    @R.function(pure=False)
    def memory(x: R.Tensor((2, 3), "float32")) -> R.Tensor((6,), "int32"):
        v = R.memory.view(x, R.shape([3, 2]), R.tuple(), R.tuple())
        v2 = R.memory.view(x, R.shape([6]), R.dtype("int32"))
        v3 = R.memory.view(x, dtype="float32")
        z0 = R.memory.ensure_zero_offset(v)
        st = R.memory.alloc_storage(R.shape([1024]), 0, "global", "float32")
        t = R.memory.alloc_tensor(st, 0, R.shape([16, 4]), "float32")
        t2 = R.builtin.alloc_tensor(R.shape([16, 32]), R.dtype("float32"), R.prim_value(0))
        s2 = R.vm.alloc_storage(R.shape([64]), R.prim_value(0), R.dtype("uint8"))
        t3 = R.vm.alloc_tensor(s2, 0, R.shape([4, 4]), "float32")
        R.memory.kill_tensor(t)
        R.memory.kill_storage(st)
        R.vm.kill_object(s2)
        return v2
