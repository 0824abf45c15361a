#!/usr/bin/python3
"""run_errors.py — `rlx run` on wrong input: every case must exit with the
expected status (1 the input is wrong, 2 wrong usage), print a message
containing the expected fragment, never die by a signal, and never leave
an output file behind.

The malformed safetensors and .npy files come from make_bad_files.py
(with the fragment each message must contain); the model mismatches
(missing, extra, mis-shaped, mis-typed weights, symbolic mismatches,
match_cast) are written here.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

MODEL = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n",), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor(("k",), dtype="float32")):
        n = T.int64()
        k = T.int64()
        R.func_attr({"num_input": 2})
        h = R.matmul(x, w, out_dtype="void")
        e = R.expand_dims(y, axis=[1])
        s = R.add(h, e)
        return s
'''

CAST = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)):
        v = R.match_cast(x, R.Tensor((8,), dtype="float32"))
        r = R.negative(v)
        return (r, r)
'''

# the first field is written before the second fails
LATE = '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)):
        a = R.negative(x)
        v = R.match_cast(a, R.Tensor((8,), dtype="float32"))
        return (a, v)
'''


TIR = """from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add1(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.call_extern("float32", "f", vi)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_tir(Module.add1, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
"""


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx_errors_") as tmp:
        def p(*a):
            return os.path.join(tmp, *a)

        model = p("model.py")
        with open(model, "w") as f:
            f.write(MODEL)
        cast = p("cast.py")
        with open(cast, "w") as f:
            f.write(CAST)
        late = p("late.py")
        with open(late, "w") as f:
            f.write(LATE)
        good = {"w": np.ones((4, 3), np.float32), "b": np.ones(5, np.float32)}
        write_safetensors(p("good.safetensors"), good)
        np.save(p("x.npy"), np.ones((2, 4), np.float32))
        np.save(p("y.npy"), np.ones(2, np.float32))
        np.save(p("y3.npy"), np.ones(3, np.float32))
        np.save(p("xi.npy"), np.ones((2, 4), np.int32))
        np.save(p("x5.npy"), np.ones((2, 5), np.float32))
        np.save(p("x8.npy"), np.ones(8, np.float32))
        np.save(p("x7.npy"), np.ones(7, np.float32))
        write_safetensors(p("missing.safetensors"), {"b": good["b"]})
        write_safetensors(p("misspelt.safetensors"), {"b": good["b"], "W": good["w"]})
        write_safetensors(p("prefixed.safetensors"), {"model.b": good["b"], "model.w": good["w"]})
        write_safetensors(p("half.safetensors"), {k: v.astype(np.float16) for k, v in good.items()})
        write_safetensors(p("extra.safetensors"), dict(good, stray=good["b"]))
        write_safetensors(p("shape.safetensors"), dict(good, w=np.ones((3, 4), np.float32)))
        write_safetensors(p("dtype.safetensors"), dict(good, w=np.ones((4, 3), np.float16)))
        write_safetensors(p("rank.safetensors"), dict(good, b=np.ones((5, 1), np.float32)))
        with open(p("syntax.py"), "w") as f:
            f.write(MODEL.replace("R.add(h, e)", "R.add(h, e"))
        out = p("out.npy")
        inputs = ["--input", "x=" + p("x.npy"), "--input", "y=" + p("y.npy")]

        def case(name, args, status, want, o=out):
            argv = ["run"] + args + (["-o", o] if o else [])
            try:
                rc, so, se = rlx(*argv, timeout=120)
            except subprocess.TimeoutExpired:
                t.ok(False, name, "timed out")
                return
            diag = "exit %d\nstderr: %s" % (rc, se)
            ok = rc == status and (want in se or want in so)
            if o and rc != 0 and os.path.exists(o):
                ok, diag = False, diag + "\n%s was left behind" % o
            leftovers = [f for f in os.listdir(tmp) if ".tmp" in f or ".rlx-tmp." in f]
            if leftovers:
                ok, diag = False, diag + "\ntemporary files left: %s" % leftovers
            t.ok(ok and rc >= 0, name, diag + "\nwanted exit %d and '%s'" % (status, want))

        # a prim_func with a construct rlx does not lower: a located
        # refusal naming it, not a crash (e2e/tir runs the rest)
        with open(p("tir.py"), "w") as f:
            f.write(TIR)
        np.save(p("x4.npy"), np.arange(4, dtype=np.float32))
        case("call_tir: a construct not lowered is refused where it is",
             [p("tir.py"), "--input", "x=" + p("x4.npy")], 1,
             "tir.py:10:33: error: prim_func add1: T.call_extern is not lowered by rlx")

        # a good run first: the fixtures are right
        case("good run", [model, "--params", p("good.safetensors")] + inputs, 0, "")
        os.remove(out)

        # checkpoint against the model
        case("missing weight", [model, "--params", p("missing.safetensors")] + inputs, 1,
             "missing.safetensors: error: 1 weight of main is missing from the checkpoint: 'w'")
        case("missing weight: the closest checkpoint name suggested",
             [model, "--params", p("misspelt.safetensors")] + inputs, 1,
             "1 weight of main is missing from the checkpoint: 'w' (did you mean 'W'?)")
        case("missing weights: the name under a prefix suggested",
             [model, "--params", p("prefixed.safetensors")] + inputs, 1,
             "2 weights of main are missing from the checkpoint: "
             "'w' (did you mean 'model.w'?), 'b' (did you mean 'model.b'?)")
        case("a checkpoint in another precision: one error for all its tensors",
             [model, "--params", p("half.safetensors")] + inputs, 1,
             "error: 2 tensors are float16, but main expects float32: 'w', 'b'")
        case("extra tensor: a warning naming it",
             [model, "--params", p("extra.safetensors")] + inputs, 0,
             "warning: 1 tensor is not a weight of main, ignored: 'stray'")
        if os.path.exists(out):
            os.remove(out)
        case("extra tensor --strict: an error",
             [model, "--params", p("extra.safetensors"), "--strict"] + inputs, 1,
             "error: 1 tensor is not a weight of main (--strict): 'stray'")
        case("wrong shape", [model, "--params", p("shape.safetensors")] + inputs, 1,
             "%s: error: tensor 'w' is (3, 4) float32, but main expects "
             "R.Tensor((4, 3), dtype=\"float32\")" % p("shape.safetensors"))
        case("wrong dtype", [model, "--params", p("dtype.safetensors")] + inputs, 1,
             "tensor 'w' is (4, 3) float16, but main expects")
        case("wrong rank", [model, "--params", p("rank.safetensors")] + inputs, 1,
             "tensor 'b' is (5, 1) float32, but main expects R.Tensor((k,)")
        case("missing checkpoint", [model, "--params", p("nope.safetensors")] + inputs, 1,
             "nope.safetensors")
        # an unreadable model file: the command's own prefix, as every
        # message that is not about the model's text
        case("missing model file", [p("nope.py"), "--params", p("good.safetensors")] + inputs, 1,
             "rlx run: error: cannot open %s: " % p("nope.py"))

        # inputs against the model
        case("symbolic mismatch", [model, "--params", p("good.safetensors"), "--input",
                                   "x=" + p("x.npy"), "--input", "y=" + p("y3.npy")], 1,
             "parameter 'y': dimension 0 is 3, but n was bound to 2 by parameter 'x'")
        case("input dtype", [model, "--params", p("good.safetensors"), "--input",
                             "x=" + p("xi.npy"), "--input", "y=" + p("y.npy")], 1,
             "input 'x' (%s): expected R.Tensor((n, 4), dtype=\"float32\"), got shape (2, 4) "
             "dtype int32" % p("xi.npy"))
        case("input shape", [model, "--params", p("good.safetensors"), "--input",
                             "x=" + p("x5.npy"), "--input", "y=" + p("y.npy")], 1,
             "got shape (2, 5) dtype float32")
        case("missing input", [model, "--params", p("good.safetensors"), "--input",
                               "x=" + p("x.npy")], 1,
             "missing input 'y' (R.Tensor((n,), dtype=\"float32\")): give it with --input y=FILE.npy")
        case("unknown input", [model, "--params", p("good.safetensors"), "--input", "z=" +
                               p("x.npy")] + inputs, 1, "main has no input 'z' (inputs: 'x', 'y')")
        case("missing .npy", [model, "--params", p("good.safetensors"), "--input",
                              "x=" + p("nope.npy"), "--input", "y=" + p("y.npy")], 1, "nope.npy")
        case("match_cast", [cast, "--input", "x=" + p("x7.npy")], 1,
             "binding 'v': dimension 0 is 7, expected 8", o=p("castout"))
        case("error after a field was written", [late, "--input", "x=" + p("x7.npy")], 1,
             "binding 'v': dimension 0 is 7, expected 8", o=p("lateout"))
        case("tuple result to a .npy", [cast, "--input", "x=" + p("x8.npy")], 1,
             "returns a tuple of 2 fields")
        case("no such function", [model, "--func", "nope", "--params",
                                  p("good.safetensors")] + inputs, 1, "has no function 'nope'")
        case("syntax error", [p("syntax.py"), "--params", p("good.safetensors")] + inputs, 1,
             "error:")
        case("no such model", [p("nope.py")], 1, "nope.py", o=None)

        # usage
        case("no FILE", [], 2, "needs a FILE", o=None)
        case("unknown option", [model, "--frobnicate"], 2, "unknown option --frobnicate", o=None)
        case("bad --input", [model, "--input", "x"], 2, "--input needs NAME=FILE.npy", o=None)
        case("--input twice", [model] + inputs + ["--input", "x=" + p("x.npy")], 2,
             "input 'x' given twice", o=None)
        case("no --params", [model] + inputs, 2, "give them with --params PATH")
        case("-o without a value", [model, "-o"], 2, "-o needs a value", o=None)
        rc, so, se = rlx("run", "--help")
        t.ok(rc == 0 and "usage: rlx run" in so, "--help")

        # a tuple result into a directory, twice (replacing the files)
        d = p("outdir")
        for i in range(2):
            rc, _, se = rlx("run", cast, "--input", "x=" + p("x8.npy"), "-o", d)
            t.ok(rc == 0 and sorted(os.listdir(d)) == ["0.npy", "1.npy", "fields.json"] and
                 (np.load(os.path.join(d, "1.npy")) == -1).all(),
                 "tuple result to DIR (%s)" % ("new" if i == 0 else "existing"), se)

        # malformed files from make_bad_files.py
        bad = p("bad")
        subprocess.run([sys.executable, os.path.join(HERE, "make_bad_files.py"), bad], check=True)
        with open(os.path.join(bad, "expected.tsv")) as f:
            for line in f:
                name, want = line.rstrip("\n").split("\t")
                path = os.path.join(bad, name)
                if name.endswith(".npy"):
                    args = [model, "--params", p("good.safetensors"), "--input",
                            "x=" + path, "--input", "y=" + p("y.npy")]
                else:
                    args = [model, "--params", path] + inputs
                case("bad file %s" % name, args, 1, want)
                # the message names the file
                rc, _, se = rlx("run", *args)
                t.ok(name in se, "bad file %s: message names the file" % name, se)
    t.done()


if __name__ == "__main__":
    main()
