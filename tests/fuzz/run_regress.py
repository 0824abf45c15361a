#!/usr/bin/python3
"""The fuzzers' findings, replayed through the command line (bounded, a few
seconds). tests/fuzz/README.md says what is checked and how to run longer.

For each case, `rlx check`, `rlx dump` and `rlx lift` must exit 0 or 1 (never
2 or a signal), print no sanitizer report, finish within TIMEOUT seconds, and
an exit of 1 must come with a located error (`FILE:LINE:COL: error:`); a
file that says `# rlx-fuzz: accept` in its first 200 bytes must exit 0. When
dump succeeds, its output must dump to itself. The cases are the files of
tests/fuzz/regress/ plus generated ones too large to keep in the repository
(deep nesting, many bindings). Output is TAP; the exit status is 1 when
anything failed.

Usage: RLX=build/rlx run_regress.py [NAME...]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

TIMEOUT = 10.0
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SRCDIR", os.path.dirname(os.path.dirname(HERE)))
RLX = os.path.abspath(os.environ.get("RLX", os.path.join(SRC, "build", "rlx")))

HEADER = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
"""
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer")
LOCATED = re.compile(r"^[^\n]*:\d+:\d+: error: ", re.M)


def generated():
    """Cases made at run time: name -> text."""
    n = 100000
    return {
        "gen_parens_100000": HEADER + "        y = " + "(" * n + "x" + ")" * n
        + "\n        return y\n",
        "gen_calls_20000": HEADER + "        y = " + "R.nn.relu(" * 20000
        + "x" + ")" * 20000 + "\n        return y\n",
        "gen_add_chain_20000": HEADER + "        y = x" + " + x" * 20000
        + "\n        return y\n",
        "gen_dim_parens_100000": HEADER.replace(
            '"float32")):', '"float32"), n: R.Prim(value="n")):')
        + '        y: R.Tensor(("' + "(" * n + "n" + ")" * n
        + '",), "float32") = R.reshape(x, (6,))\n        return y\n',
        "gen_dim_neg_100000": HEADER + '        y: R.Tensor(("' + "-" * n
        + '1",), "float32") = R.reshape(x, (6,))\n        return y\n',
        "gen_long_name": HEADER + "        " + "a" * 1000000
        + " = R.add(x, x)\n        return x\n",
        "gen_bindings_20000": HEADER + "".join(
            "        x%d = R.add(x, x)\n" % i for i in range(20000))
        + "        return x\n",
        "gen_rebind_20000": HEADER + "        x = R.add(x, x)\n" * 20000
        + "        return x\n",
        "gen_tuple_20000": HEADER + "        y = (" + ", ".join(["x"] * 20000)
        + ")\n        return y\n",
    }


def run(argv, cwd):
    """(exit status, stdout, stderr, seconds); status None on a timeout."""
    t = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True,
                           timeout=TIMEOUT * 3)
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - t
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"), time.monotonic() - t)


def check_case(path, tmp):
    """A list of what is wrong with one case (empty: passed)."""
    problems = []
    dumped = None
    with open(path, "rb") as f:
        accept = b"# rlx-fuzz: accept" in f.read(200)
    for cmd in (["check"], ["dump"], ["lift"]):
        status, out, err, secs = run([RLX] + cmd + [path], tmp)
        what = "rlx %s" % cmd[0]
        if status is None:
            problems.append("%s: no answer after %.0f s" % (what, secs))
            continue
        if secs > TIMEOUT:
            problems.append("%s: took %.1f s (limit %.0f)" % (what, secs, TIMEOUT))
        if SANITIZER.search(err):
            problems.append("%s: sanitizer report:\n%s" % (what, err[-3000:]))
        if status not in (0, 1):
            problems.append("%s: exit status %d\n%s" % (what, status, err[-2000:]))
        if status == 1 and not LOCATED.search(err):
            problems.append("%s: exit 1 without a located error:\n%s"
                            % (what, err[-2000:]))
        if accept and status != 0:
            problems.append("%s: refused a valid input (exit %d)\n%s"
                            % (what, status, err[-2000:]))
        if cmd[0] == "dump" and status == 0:
            dumped = out
    if dumped is not None:
        again = os.path.join(tmp, "dumped.py")
        with open(again, "w") as f:
            f.write(dumped)
        status, out, err, _ = run([RLX, "dump", again], tmp)
        if status != 0 or out != dumped:
            problems.append("dump of the dump differs (status %s)\n%s"
                            % (status, err[-2000:]))
    return problems


def main(argv):
    names = argv[1:]
    regress = os.path.join(HERE, "regress")
    cases = [(f, os.path.join(regress, f)) for f in sorted(os.listdir(regress))
             if os.path.isfile(os.path.join(regress, f))]
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in generated().items():
            path = os.path.join(tmp, name + ".py")
            with open(path, "w") as f:
                f.write(text)
            cases.append((name, path))
        if names:
            cases = [c for c in cases if c[0] in names
                     or os.path.splitext(c[0])[0] in names]
        print("1..%d" % len(cases))
        failed = 0
        for k, (name, path) in enumerate(cases, 1):
            problems = check_case(path, tmp)
            if problems:
                failed += 1
                print("not ok %d - %s" % (k, name))
                for p in problems:
                    for line in p.splitlines():
                        print("# " + line)
            else:
                print("ok %d - %s" % (k, name))
        print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
