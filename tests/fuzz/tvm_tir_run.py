#!/usr/bin/python3
"""Run TVM's TIR-bearing test modules with `rlx run` on random inputs.

    tvm_tir_run.py TVM OUTDIR [--rlx RLX] [--seed N] [--timeout S]

TVM and OUTDIR as tvm_modules.py (whose extraction this reuses): every
@I.ir_module class of TVM's tests/python/relax/*.py that holds a
T.prim_func and that `rlx check` accepts is written to OUTDIR. Each of its
public Relax functions whose parameters are all tensors of known dtype and
shape tuples (symbolic dims set to 4, the same name the same value) runs
with RLX (meant: the ASan build, build-test/rlx) on seeded random inputs
(floats N(0, 1), integers in [0, 4), bools): exit 0 is a run, exit 2 a
function with weights (num_input: not run), exit 1 a
located refusal (counted by its message: an entry check, a construct not
lowered, an op without a kernel ...); anything else, a timeout or a
sanitizer report is a crash, a hang or an out-of-bounds access, each
listed. Nothing of TVM's goes into the repository.

Exit status: 0, or 1 when a run crashed, hung or was reported by a
sanitizer.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tvm_modules import HEADER, modules, reason, test_files  # noqa: E402

TENSOR = re.compile(r'^R\.Tensor\(\((.*?)\),? dtype="(\w+)"\)$')
SHAPE = re.compile(r"^R\.Shape\(\[(.*?)\]\)$")


def dims(text):
    """The dims of a shape's text, symbolic names as 4; None when a dim
    is an expression."""
    out = []
    for d in [x.strip() for x in text.split(",") if x.strip()]:
        if re.fullmatch(r"-?\d+", d):
            out.append(int(d))
        elif re.fullmatch(r"\w+", d):
            out.append(4)
        else:
            return None
    return out


def inputs_for(fn, rng):
    """{name: array} for fn's parameters, None when one is not a tensor of
    known dtype and shape or a shape tuple."""
    out = {}
    for p in fn["params"]:
        si = p["sinfo"]
        m = TENSOR.match(si)
        if m:
            shape = dims(m.group(1))
            dt = m.group(2)
            if shape is None:
                return None
            if dt == "bool":
                a = rng.random(shape) < 0.5
            elif dt.startswith(("int", "uint")):
                a = rng.integers(0, 4, size=shape).astype(dt)
            elif dt in ("float16", "float32", "float64"):
                a = rng.standard_normal(shape).astype(dt)
            elif dt == "bfloat16":
                a = rng.standard_normal(shape).astype(np.float32)
            else:
                return None
            out[p["name"]] = a
            continue
        m = SHAPE.match(si)
        if m and dims(m.group(1)) is not None:
            out[p["name"]] = np.array(dims(m.group(1)), np.int64)
            continue
        return None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tvm")
    ap.add_argument("outdir")
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                  "build-test", "rlx"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="halt_on_error=1:detect_leaks=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    counts = collections.Counter()
    refusals = collections.Counter()
    bad = []
    for fname, text in test_files(a.tvm):
        for i, (cls, src) in enumerate(modules(text)):
            if "T.prim_func" not in src:
                continue
            counts["TIR modules"] += 1
            path = os.path.join(a.outdir, "%s__%s_%d.py" % (fname[:-3], cls, i))
            with open(path, "w") as f:
                f.write(HEADER + src)
            c = subprocess.run([a.rlx, "check", path], capture_output=True, text=True,
                               env=env)
            if c.returncode != 0:
                counts["not read"] += 1
                continue
            d = subprocess.run([a.rlx, "dump", path, "--format", "json"],
                               capture_output=True, text=True, env=env)
            if d.returncode != 0:
                counts["not read"] += 1
                continue
            counts["read"] += 1
            for fn in json.loads(d.stdout)["functions"]:
                if fn.get("private"):
                    continue
                rng = np.random.default_rng(a.seed)
                ins = inputs_for(fn, rng)
                if ins is None:
                    counts["functions skipped (not only tensors and shapes)"] += 1
                    continue
                counts["functions run"] += 1
                base = path[:-3] + "." + fn["name"]
                args = [a.rlx, "run", path, "--func", fn["name"], "-o", base + ".out"]
                for k, v in ins.items():
                    np.save("%s.%s.npy" % (base, k), v)
                    args += ["--input", "%s=%s.%s.npy" % (k, base, k)]
                try:
                    r = subprocess.run(args, capture_output=True, text=True, env=env,
                                       timeout=a.timeout)
                except subprocess.TimeoutExpired:
                    bad.append(("hang", base, ""))
                    continue
                san = "Sanitizer" in r.stderr or "runtime error:" in r.stderr
                if r.returncode == 0 and not san:
                    counts["ran"] += 1
                elif r.returncode == 2 and not san:
                    counts["not run: weight parameters (num_input)"] += 1
                elif r.returncode == 1 and not san:
                    counts["refused (exit 1, located)"] += 1
                    refusals[reason(r.stderr)] += 1
                else:
                    bad.append(("crash" if not san else "sanitizer", base,
                                r.stderr[-2000:]))
    for k, v in counts.items():
        print("%-50s %d" % (k, v))
    print("refusals by message:")
    for k, v in refusals.most_common():
        print("  %4d  %s" % (v, k))
    print("crashes, hangs, sanitizer reports: %d" % len(bad))
    for kind, base, err in bad:
        print("  %s: %s\n%s" % (kind, base, err))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
