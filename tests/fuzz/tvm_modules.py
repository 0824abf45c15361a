#!/usr/bin/python3
"""TVM's own Relax test modules as rlx inputs: extract, check, replay.

    tvm_modules.py TVM OUTDIR [--rlx RLX] [--replay FUZZ_REPLAY]

TVM is an apache/tvm checkout or a bare clone of one (as `fetch
github:apache/tvm` leaves it); its tests/python/relax/*.py are read at run
time. Every class decorated @I.ir_module (or @tvm.script.ir_module) in them
is written to OUTDIR/FILE__CLASS_N.py with the TVMScript imports above it.
Nothing of TVM's goes into this repository: OUTDIR is a scratch folder
(build-fuzz/seeds makes the modules seeds for `make fuzz`).

Then each module goes through `rlx check`, and the summary says how many
were accepted, how many were refused and why (the first error's message,
quoted names elided), and how many refusals are TIR (T.prim_func bodies,
out of rlx's subset). A module that makes rlx exit with anything but 0 or 1
is a crash. With --replay (build/tests/fuzz_replay), each module also goes
through the fuzz property (tests/fuzz/fuzz_rlx.c: printed text parses back
equal and prints the same, after every pass too).

Many of TVM's modules are Python programs more than TVMScript (closures over
Python variables, loops that build functions, T.prim_func): a refusal is
not a bug by itself; a crash or a broken property is.

Exit status: 0, or 1 when rlx crashed or the property broke.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HEADER = "from tvm.script import ir as I, relax as R, tir as T\n\n"
DECORATOR = re.compile(r"(\s*)@(tvm\.script\.ir_module|I\.ir_module)\b.*$")
CLASS = re.compile(r"\s*class\s+(\w+)")
TIR = ("T.prim_func", "'for' is not supported", "'while' is not supported")


def test_files(tvm):
    """(name, text) of each tests/python/relax/*.py of the checkout or bare clone."""
    sub = "tests/python/relax"
    if os.path.isdir(os.path.join(tvm, sub)):
        d = os.path.join(tvm, sub)
        for n in sorted(os.listdir(d)):
            if n.endswith(".py"):
                with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                    yield n, f.read()
        return
    ls = subprocess.run(["git", "-C", tvm, "ls-tree", "--name-only", "HEAD", sub + "/"],
                        capture_output=True, text=True)
    if ls.returncode:
        sys.exit(f"tvm_modules.py: {tvm}: neither a checkout with {sub} nor a git clone")
    for path in sorted(ls.stdout.split()):
        if path.endswith(".py"):
            show = subprocess.run(["git", "-C", tvm, "show", "HEAD:" + path],
                                  capture_output=True, text=True, errors="replace")
            yield os.path.basename(path), show.stdout


def modules(text):
    """(class name, source) of each decorated module class, dedented."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = DECORATOR.match(lines[i])
        c = CLASS.match(lines[i + 1]) if m and i + 1 < len(lines) else None
        if not c:
            i += 1
            continue
        ind = len(m.group(1))
        j = i + 2
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > ind):
            j += 1
        body = "\n".join(l[ind:] if l.strip() else "" for l in lines[i:j])
        yield c.group(1), body.rstrip() + "\n"
        i = j


def reason(stderr):
    """The first error's message, locations and quoted names elided."""
    first = next((l for l in stderr.splitlines() if ": error: " in l), stderr.strip()[:80])
    msg = first.split(": error: ", 1)[-1]
    return re.sub(r"'[^']*'", "'…'", msg)[:90]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tvm")
    ap.add_argument("outdir")
    ap.add_argument("--rlx", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "rlx"))
    ap.add_argument("--replay", help="build/tests/fuzz_replay: also check the fuzz property")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    paths = []
    for fname, text in test_files(a.tvm):
        for k, (cls, src) in enumerate(modules(text)):
            p = os.path.join(a.outdir, f"{fname[:-3]}__{cls}_{k}.py")
            with open(p, "w", encoding="utf-8") as f:
                f.write(HEADER + src)
            paths.append(p)
    if not paths:
        sys.exit(f"tvm_modules.py: no module classes under {a.tvm}")
    ok, tir, bad = 0, 0, 0
    with_tir, tir_ok = 0, 0  # modules holding a T.prim_func, and accepted
    why = collections.Counter()
    for p in paths:
        try:
            r = subprocess.run([a.rlx, "check", p], capture_output=True, text=True,
                               errors="replace", timeout=60)
        except subprocess.TimeoutExpired:
            print(f"HANG {p}")
            bad += 1
            continue
        has_tir = "T.prim_func" in open(p, encoding="utf-8").read()
        with_tir += has_tir
        if r.returncode == 0:
            ok += 1
            tir_ok += has_tir
        elif r.returncode != 1:
            print(f"CRASH (exit {r.returncode}) {p}")
            bad += 1
        elif any(t in r.stderr for t in TIR):
            tir += 1
        else:
            why[reason(r.stderr)] += 1
    n = len(paths)
    print(f"{n} modules: {ok} accepted ({100 * ok / n:.1f}%), {tir} refused for TIR, "
          f"{n - ok - tir - bad} refused otherwise, {bad} crashes or hangs")
    print(f"without the TIR ones: {ok} of {n - tir} accepted ({100 * ok / max(1, n - tir):.1f}%)")
    print(f"with a T.prim_func: {tir_ok} of {with_tir} accepted "
          f"({100 * tir_ok / max(1, with_tir):.1f}%)")
    for msg, c in why.most_common(15):
        print(f"  {c:4d}  {msg}")
    if a.replay:
        r = subprocess.run([a.replay, a.outdir], capture_output=True, text=True, errors="replace")
        tail = r.stdout.strip().splitlines()[-1:] + r.stderr.strip().splitlines()[-8:]
        print("fuzz property: " + ("held on every module" if r.returncode == 0 else "BROKEN"))
        if r.returncode:
            print("\n".join(tail))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
