#!/usr/bin/python3
"""run_checks.py — what an op's struct-info rule assumes about symbolic
dims and cannot prove at compile time is checked at run time, before the
kernel (ir.h's Assume, recorded by compiler/infer_ops.c, checked by
runtime/exec.c).

Each case is a small model with symbolic dims and two sets of input
shapes: one that satisfies the rule's assumption (the run must succeed)
and one that violates it (exit 1, an error located at the call --
`model.py:LINE:COL: error: MESSAGE` -- and no output file). One case per
assumption of every op rule that has one; the list in the report of
docs/language.md ("Shapes checked at run time") follows this table.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx  # noqa: E402

HEAD = '''\
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(%s):
'''

F = "float32"


def t(*dims, dtype=F):
    """An annotation R.Tensor((dims), dtype)."""
    return 'R.Tensor((%s), "%s")' % ("".join('"%s", ' % d if isinstance(d, str)
                                             else "%d, " % d for d in dims), dtype)


# (name, parameters, body (the failing binding is the one named `at`),
#  good input shapes, bad input shapes, message after "error: ")
# An input is a shape (float32) or (shape, dtype).
CASES = [
    ("matmul: inner dims", "x: %s, w: %s" % (t("m", "k"), t("k2", "n")),
     ["y = R.matmul(x, w)"], {"x": (2, 3), "w": (3, 4)}, {"x": (2, 3), "w": (5, 4)},
     "R.matmul: x's dimension 1 is 3 but w's dimension 0 is 5"),
    ("matmul: inner dims, 1-D right", "x: %s, w: %s" % (t("b", "m", "k"), t("k2")),
     ["y = R.matmul(x, w)"], {"x": (2, 2, 3), "w": (3,)}, {"x": (2, 2, 3), "w": (4,)},
     "R.matmul: x's dimension 2 is 3 but w's dimension 0 is 4"),
    ("reshape: element counts", "x: %s" % t("n", "m"),
     ["y = R.reshape(x, R.shape([6]))"], {"x": (2, 3)}, {"x": (2, 4)},
     "R.reshape: the element count of x is 8 but the new shape's is 6"),
    ("reshape: -1 divides", "x: %s" % t("n", "m"),
     ["y = R.reshape(x, R.shape([-1, 4]))"], {"x": (2, 6)}, {"x": (3, 3)},
     "R.reshape: the element count of x (9) is not a multiple of the product "
     "of the other new dimensions (4)"),
    ("parameters: a symbolic dim bound twice", "x: %s, y: %s" % (t("n"), t("n")),
     ["y1 = R.add(x, y)"], {"x": (3,), "y": (3,)}, {"x": (3,), "y": (4,)},
     "parameter 'y': dimension 0 is 4, but n was bound to 3 by parameter 'x'"),
]


def model_text(params, body):
    src = HEAD % params
    for line in body:
        src += "        %s\n" % line
    last = body[-1].split("=")[0].strip()
    return src + "        return %s\n" % last


def where(src, at, params):
    """1-based line and column of the error: the value of binding `at`, or
    parameter `at` of main."""
    lines = src.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(at + " = "):
            return i + 1, line.index("=") + 3
    for i, line in enumerate(lines):
        if line.strip().startswith("def main("):
            return i + 1, line.index(" " + at + ":") + 2
    raise ValueError(at)


def save(path, spec, rng):
    if len(spec) == 2 and isinstance(spec[1], str):
        shape, dtype = spec
    else:
        shape, dtype = spec, F
    if dtype.startswith("int"):
        a = rng.integers(0, 2, size=shape).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    np.save(path, a)


def main():
    t_ = Tap()
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory(prefix="rlx_checks_") as tmp:
        for k, (name, params, body, good, bad, msg) in enumerate(CASES):
            d = os.path.join(tmp, "c%d" % k)
            os.mkdir(d)
            src = model_text(params, body)
            model = os.path.join(d, "model.py")
            with open(model, "w") as f:
                f.write(src)
            # the failing binding: the one the message's op names, or a
            # parameter the message names
            if msg.startswith("parameter '"):
                at = msg.split("'")[1]
            else:
                op = msg.split(":")[0]
                at = next(b.split("=")[0].strip() for b in body if op + "(" in b)
            line, col = where(src, at, params)
            for kind, shapes in (("good", good), ("bad", bad)):
                args = ["run", model]
                for n, spec in shapes.items():
                    path = os.path.join(d, "%s_%s.npy" % (kind, n))
                    save(path, spec, rng)
                    args += ["--input", "%s=%s" % (n, path)]
                out = os.path.join(d, kind + "_out.npy")
                try:
                    rc, so, se = rlx(*args, "-o", out, timeout=120)
                except subprocess.TimeoutExpired:
                    t_.ok(False, "%s (%s)" % (name, kind), "timed out")
                    continue
                if kind == "good":
                    t_.ok(rc == 0 and os.path.exists(out), "%s: inputs that fit run" % name,
                          "exit %d\n%s" % (rc, se))
                    continue
                want = "model.py:%d:%d: error: %s" % (line, col, msg)
                ok = rc == 1 and want in se and not os.path.exists(out)
                t_.ok(ok, "%s: a located error" % name,
                      "exit %d\nstderr: %s\nwanted: %s" % (rc, se, want))
    t_.done()


if __name__ == "__main__":
    main()
