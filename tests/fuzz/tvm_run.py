#!/usr/bin/python3
"""TVM's TIR-bearing test modules, run: every Relax function on seeded inputs.

    tvm_run.py MODDIR [--rlx RLX] [--timeout S] [--seed N] [--log FILE]

MODDIR is the folder tests/fuzz/tvm_modules.py wrote (one file per module
class of TVM's tests/python/relax/*.py; nothing of TVM's is stored in this
repository). For each module that holds a T.prim_func and that `rlx check`
accepts, every Relax function whose parameters are only tensors, shapes
and prim values is run with `rlx run --func F` on seeded random inputs:
floats N(0, 1), integers in [0, 4), bools 0/1, each symbolic dimension 4
(an expression of them evaluated), a tensor of unknown rank 2-d of 4s.

The run passes when it ends with exit 0 or with a located error (exit 1):
TVM's test modules are not all meant to be run (a call_tir whose prim_func
writes what its annotation does not say, a packed function rlx does not
know). It fails when rlx crashes (any other exit, a signal), hangs (past
--timeout), or, with the ASan build (build-test/rlx), reports an
out-of-bounds access or undefined behaviour even at exit 0 or 1.

--log FILE writes a line per run: the module, the function, the exit
status and the first error line (what the summary counts, by name).

Exit status: 0, or 1 when a run failed.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from rlxtest import f32_to_bf16, write_safetensors  # noqa: E402

TENSOR = re.compile(r'^R\.Tensor\((?:\((?P<shape>[^)]*)\),\s*)?dtype="(?P<dt>\w+)"(?:,\s*ndim=(?P<ndim>-?\d+))?')
SHAPE = re.compile(r'^R\.Shape\((?:\[(?P<vals>[^\]]*)\]|ndim=(?P<ndim>-?\d+))?\)$')
PRIM = re.compile(r'^R\.Prim\((?:"(?P<dt>\w+)"|value=(?P<val>.+))\)$')
SANITIZER = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")


def dim_value(text, env):
    """A dimension's value: an int, a symbolic name (4 at first sight) or
    an expression of them."""
    text = text.strip()
    for name in re.findall(r"[A-Za-z_]\w*", text):
        if name not in ("T", "int64", "int32"):
            env.setdefault(name, 4)
    text = text.replace("T.int64", "").replace("T.int32", "").replace("//", "//")
    try:
        return max(0, int(eval(text, {"__builtins__": {}}, dict(env))))  # noqa: S307
    except Exception:  # noqa: BLE001 -- an expression rlx prints but Python cannot read
        return None


def make_input(sinfo, env, rng):
    """A NumPy value for a parameter of struct info sinfo, or None when the
    function cannot be run on generated inputs (tuples, objects, ...)."""
    m = TENSOR.match(sinfo)
    if m and sinfo.endswith(")"):
        dt = m.group("dt")
        if dt in ("void", "float8_e4m3fn", "float8_e5m2"):
            return None
        if m.group("shape") is not None:
            dims = [d for d in m.group("shape").split(",") if d.strip()]
            shape = [dim_value(d, env) for d in dims]
            if any(s is None for s in shape):
                return None
        else:
            nd = int(m.group("ndim") or 2)
            shape = [4] * (nd if nd >= 0 else 2)
        if dt == "bool":
            return rng.integers(0, 2, shape).astype(np.bool_)
        if dt.startswith(("int", "uint")):
            return rng.integers(0, 4, shape).astype(dt)
        if dt == "bfloat16":
            return rng.standard_normal(shape).astype(np.float32)
        return rng.standard_normal(shape).astype(dt)
    m = SHAPE.match(sinfo)
    if m:
        if m.group("vals") is not None:
            vals = [dim_value(v, env) for v in m.group("vals").split(",") if v.strip()]
            if any(v is None for v in vals):
                return None
        else:
            vals = [4] * max(0, int(m.group("ndim") or 1))
        return np.array(vals, dtype=np.int64)
    m = PRIM.match(sinfo)
    if m:
        if m.group("val") is not None:
            v = dim_value(m.group("val"), env)
            return None if v is None else np.array(v, dtype=np.int64)
        dt = m.group("dt")
        if dt.startswith("float"):
            return np.array(rng.standard_normal(), dtype=dt)
        if dt == "bool":
            return np.array(True)
        return np.array(4, dtype=dt)
    return None


def runnable_funcs(rlx, path):
    """[(function, [(param, sinfo)])] of the module's Relax functions."""
    r = subprocess.run([rlx, "dump", path, "--format", "json"], capture_output=True,
                       text=True, errors="replace", timeout=60)
    if r.returncode != 0:
        return []
    doc = json.loads(r.stdout)
    return [(f["name"], (f.get("attrs") or {}).get("num_input"),
             [(p["name"], p.get("sinfo") or "") for p in f.get("params", [])])
            for f in doc.get("functions", []) if "params" in f and "buffers" not in f]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("moddir")
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                  "build-test", "rlx"))
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log", help="a line per run: module, function, exit, first error")
    a = ap.parse_args()
    log = open(a.log, "w") if a.log else None
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:halt_on_error=1")
    counts = collections.Counter()
    failures = []
    outcome = collections.Counter()
    tmp = tempfile.mkdtemp(prefix="rlx-tvm-run-")
    for name in sorted(os.listdir(a.moddir)):
        path = os.path.join(a.moddir, name)
        if not name.endswith(".py") or "T.prim_func" not in open(path, errors="replace").read():
            continue
        counts["TIR-bearing modules"] += 1
        if subprocess.run([a.rlx, "check", path], capture_output=True,
                          timeout=60).returncode != 0:
            continue
        counts["accepted by rlx check"] += 1
        ran_one = False
        for func, num_input, params in runnable_funcs(a.rlx, path):
            rng = np.random.default_rng(a.seed)
            symenv, args, weights = {}, [], {}
            ok = True
            nin = num_input if isinstance(num_input, int) else len(params)
            for k, (pname, sinfo) in enumerate(params):
                v = make_input(sinfo, symenv, rng)
                if v is None or (k >= nin and not sinfo.startswith("R.Tensor")):
                    ok = False
                    break
                if k >= nin:  # a weight: from a checkpoint, by name
                    weights[pname] = (("bfloat16", f32_to_bf16(v)) if "bfloat16" in sinfo
                                      else v)
                    continue
                f = os.path.join(tmp, "in%d.npy" % k)
                np.save(f, v)
                args += ["--input", "%s=%s" % (pname, f)]
            if ok and weights:
                ckpt = os.path.join(tmp, "w.safetensors")
                try:
                    write_safetensors(ckpt, weights)
                except KeyError:  # a dtype the test writer has no name for
                    counts["functions skipped (a parameter not a tensor, shape or prim)"] += 1
                    continue
                args += ["--params", ckpt]
            if not ok:
                counts["functions skipped (a parameter not a tensor, shape or prim)"] += 1
                continue
            ran_one = True
            counts["functions run"] += 1
            cmd = [a.rlx, "run", path, "--func", func] + args + ["-o", os.path.join(tmp, "out")]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                   timeout=a.timeout, env=env)
            except subprocess.TimeoutExpired:
                failures.append(("hang", name, func, ""))
                continue
            san = any(s in r.stderr for s in SANITIZER)
            if log:
                err = next((l for l in r.stderr.splitlines() if ": error: " in l), "")
                log.write("%s\t%s\t%d\t%s\n" % (name, func, r.returncode, err))
            if r.returncode == 0 and not san:
                outcome["ran (exit 0)"] += 1
            elif r.returncode == 1 and not san and ": error: " in r.stderr:
                outcome["a located error (exit 1)"] += 1
                first = next(l for l in r.stderr.splitlines() if ": error: " in l)
                outcome["  " + re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…",
                                      first.split(": error: ", 1)[1])[:80]] += 1
            else:
                failures.append(("sanitizer" if san else "exit %d" % r.returncode,
                                 name, func, r.stderr[-600:]))
            subprocess.run(["rm", "-rf", os.path.join(tmp, "out")])
        counts["modules with a function run"] += ran_one
    subprocess.run(["rm", "-rf", tmp])
    for k, v in counts.items():
        print("%5d  %s" % (v, k))
    for k, v in sorted(outcome.items(), key=lambda kv: (kv[0].startswith("  "), -kv[1]))[:25]:
        print("%5d  %s" % (v, k))
    print("%5d  crashes, hangs or sanitizer reports" % len(failures))
    for kind, name, func, err in failures[:20]:
        print("  %s: %s --func %s\n    %s" % (kind, name, func, err.strip().replace("\n", "\n    ")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
