#!/usr/bin/python3
"""Structure-aware fuzzing of the rlx command line (tests/fuzz/README.md).

Takes the golden scripts as seeds and mutates them at the level of tokens and
lines: op names, dtypes, dims and attribute values swapped, lines deleted,
duplicated or re-indented, weird bytes (NUL, control characters, unicode),
very long names, huge integers and shapes, deep nesting. Each mutant is run
through `rlx check`, `rlx dump` (and the dump dumped again) and `rlx lift`.
A finding is: an exit status other than 0 or 1, a sanitizer report, a run
over the time limit, an exit of 1 without a located error, or a dump whose
dump differs. Findings are written to OUT/finding-N.py with a .txt saying
what broke; the exit status is 1 when there is any.

Usage: RLX=build/rlx mutate.py [--seconds S] [--seed N] [--out DIR]
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SRCDIR", os.path.dirname(os.path.dirname(HERE)))
RLX = os.path.abspath(os.environ.get("RLX", os.path.join(SRC, "build", "rlx")))
TIMEOUT = 10.0
SANITIZER = re.compile(r"Sanitizer|runtime error:")
LOCATED = re.compile(r"^[^\n]*:\d+:\d+: error: ", re.M)

DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16",
          "int32", "int64", "uint8", "bool", "void", "", "float3", "int128",
          "handle"]
INTS = ["0", "1", "-1", "2", "3", "7", "64", "-9223372036854775808",
        "9223372036854775807", "9223372036854775808", "4294967296",
        "99999999999999999999999999", "00", "1e309", "-0", "0x10"]
WEIRD = ["\x00", "\x01", "\x7f", "\xff", "\t", "\r", "\r\n", "\f", "\\",
         "`", "\"", "'", "\u00e9", "\u200b", "\U0001f600", "\ufeff",
         "\udcff", "#", ":", "(", ")", "[", "]", "{", "}", ",", "=", "->",
         "@", ".", "**", "//", "\\\n"]
NAMES = ["x", "y", "lv", "gv", "lv1", "R", "T", "I", "cls", "None", "True",
         "def", "n", "m", "_", "a" * 5000, "x" * 300, "`a.b`", "`c d`",
         "main", "main_transform_params", "transform_params"]


def op_names():
    """Every op of compiler/ops.def, as R.NAME."""
    ops = []
    with open(os.path.join(SRC, "compiler", "ops.def")) as f:
        for m in re.finditer(r'^OP\(\w+,\s*"([^"]+)"', f.read(), re.M):
            ops.append("R." + m.group(1))
    return ops + ["R.call_tir", "R.nope", "R.const", "R.shape",
                  "R.prim_value", "R.match_cast", "R.output", "R.dataflow",
                  "R.func_attr", "R.Tensor", "R.Tuple", "R.Shape", "R.Prim",
                  "R.Object", "R.Callable", "R.str", "T.int64", "T.max",
                  "R.builtin.stop_lift_params"]


TOKEN = re.compile(r'R\.[A-Za-z_.]+|T\.[A-Za-z_0-9]+|"[^"\n]*"|[A-Za-z_]\w*'
                   r'|\d+|\S')


def mutate_tokens(text, rnd, ops):
    """Replaces one random token by another of its kind (or anything)."""
    toks = [m for m in TOKEN.finditer(text)]
    if not toks:
        return text
    m = rnd.choice(toks)
    t = m.group(0)
    if t.startswith("R.") or t.startswith("T."):
        new = rnd.choice(ops)
    elif t.startswith('"'):
        new = '"%s"' % rnd.choice(DTYPES + ["n", "m * 2", "n // 0", "n %% 0",
                                            "num_input", "(", "n + -",
                                            "T.max(n, 1)", "\\x00"])
    elif t.isdigit():
        new = rnd.choice(INTS)
    elif t[0].isalpha() or t[0] == "_":
        new = rnd.choice(NAMES)
    else:
        new = rnd.choice(WEIRD)
    return text[:m.start()] + new + text[m.end():]


def mutate_lines(text, rnd):
    """Deletes, duplicates, swaps or re-indents lines."""
    lines = text.split("\n")
    i = rnd.randrange(len(lines))
    j = rnd.randrange(len(lines))
    k = rnd.randrange(5)
    if k == 0:
        del lines[i]
    elif k == 1:
        lines.insert(j, lines[i])
    elif k == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif k == 3:
        lines[i] = " " * rnd.choice([0, 1, 2, 3, 4, 5, 8, 12, 16]) + lines[i].lstrip()
    else:
        lines[i] = lines[i].replace("    ", "\t", rnd.randrange(1, 4))
    return "\n".join(lines)


def mutate_weird(text, rnd):
    """Inserts a weird byte, a long name, a huge number or deep nesting."""
    pos = rnd.randrange(len(text) + 1)
    k = rnd.randrange(6)
    if k == 0:
        ins = rnd.choice(WEIRD)
    elif k == 1:
        ins = "v" * rnd.choice([256, 4096, 100000])
    elif k == 2:
        ins = rnd.choice(INTS)
    elif k == 3:
        d = rnd.choice([100, 999, 1000, 1001, 5000, 20000])
        ins = "(" * d + "x" + ")" * d
    elif k == 4:
        d = rnd.choice([500, 1001, 5000])
        ins = "R.nn.relu(" * d + "x" + ")" * d
    else:
        ins = "(9223372036854775807, 2)"
    return text[:pos] + ins + text[pos:]


def mutant(seeds, rnd, ops):
    text = rnd.choice(seeds)
    for _ in range(rnd.choice([1, 1, 2, 3, 5])):
        k = rnd.randrange(10)
        if k < 5:
            text = mutate_tokens(text, rnd, ops)
        elif k < 8:
            text = mutate_lines(text, rnd)
        else:
            text = mutate_weird(text, rnd)
    return text


def run(argv, cwd):
    t = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True,
                           timeout=TIMEOUT * 2)
    except subprocess.TimeoutExpired:
        return None, b"", "", time.monotonic() - t
    return (p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"),
            time.monotonic() - t)


def problems_of(path, tmp):
    """What is wrong when rlx runs on the file at path (empty: nothing)."""
    out = []
    dumped = None
    for cmd in ("check", "dump", "lift"):
        status, stdout, err, secs = run([RLX, cmd, path], tmp)
        if status is None or secs > TIMEOUT:
            out.append("rlx %s: took %.1f s" % (cmd, secs))
            continue
        if SANITIZER.search(err):
            out.append("rlx %s: sanitizer report\n%s" % (cmd, err[-4000:]))
        elif status not in (0, 1):
            out.append("rlx %s: exit status %d\n%s" % (cmd, status, err[-4000:]))
        elif status == 1 and not LOCATED.search(err) and "not a text file" not in err:
            out.append("rlx %s: exit 1 without a located error\n%s"
                       % (cmd, err[-2000:]))
        if cmd == "dump" and status == 0:
            dumped = stdout
    if dumped is not None:
        again = os.path.join(tmp, "dumped.py")
        with open(again, "wb") as f:
            f.write(dumped)
        status, stdout, err, _ = run([RLX, "dump", again], tmp)
        if status != 0 or stdout != dumped:
            out.append("dump of the dump differs (status %s)\n%s"
                       % (status, err[-2000:]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--out", default="mutate-findings")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    ops = op_names()
    seeds = []
    for pat in ("golden/roundtrip/*.py", "golden/errors/*.py",
                "passes/golden/*.py"):
        for p in sorted(glob.glob(os.path.join(SRC, "tests", pat))):
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                seeds.append(f.read())
    os.makedirs(a.out, exist_ok=True)
    print("seed %d, %d seeds, %.0f s" % (a.seed, len(seeds), a.seconds))
    end = time.monotonic() + a.seconds
    runs = found = 0
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end:
            text = mutant(seeds, rnd, ops)
            path = os.path.join(tmp, "mutant.py")
            data = text.encode("utf-8", "surrogateescape")
            with open(path, "wb") as f:
                f.write(data)
            runs += 1
            probs = problems_of(path, tmp)
            if probs:
                found += 1
                base = os.path.join(a.out, "finding-%d" % found)
                with open(base + ".py", "wb") as f:
                    f.write(data)
                with open(base + ".txt", "w") as f:
                    f.write("\n".join(probs) + "\n")
                print("finding %d: %s" % (found, probs[0].splitlines()[0]))
    print("%d mutants, %d findings" % (runs, found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
