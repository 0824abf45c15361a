#!/usr/bin/python3
"""Pass tests for rlx: golden scenarios and the property test.

    run.py golden [NAME...]    tests/passes/golden/NAME.{py,cmd,expected.py}
    run.py property [COUNT]    tests/passes/property.py (COUNT modules, default 200)

Environment: RLX (the rlx binary, required), SRCDIR (the source root; the
directory of this file is used when unset), KEEP_TMP=1 keeps the outputs.

A golden scenario is three files in golden/:
  NAME.py             the input module
  NAME.cmd            one line: the rlx arguments after the file, e.g.
                      `lift`, `lift --shared`, `dump --passes canonicalize-bindings`
  NAME.expected.py    the expected output module, written by hand, or
  NAME.expected.err   for an error case: the first line is the expected
                      `NAME.py:LINE:COL: error:` prefix of a diagnostic; the
                      command must exit 1 and print no module.
For each scenario the harness checks, as separate TAP points:
  1. the input parses (`rlx check`): a failure here is a frontend problem;
  2. the command succeeds and its output equals the expected module
     (`rlx equal --names OUT EXPECTED`: structural, names included);
  3. the output parses back (`rlx check OUT`);
  4. running the same command on the output gives the same text byte for
     byte (skipped for `--bind`, which removes what it binds,
     `--consume-params`, which releases each weight again as TVM does, and
     `dump` without passes).
Output is TAP; the exit status is 1 when any point failed.
"""
import difflib
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
# Passes whose second run must not change the text (issue 3).
IDEMPOTENT = {"convert-ssa", "canonicalize-bindings", "dead-code-elimination",
              "lift-transform-params", "bind-params"}


class Tap:
    """Numbered TAP points, printed as they happen; plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = []

    def ok(self, name, skip=None):
        self.n += 1
        if skip:
            print(f"ok {self.n} - {name} # SKIP {skip}", flush=True)
        else:
            print(f"ok {self.n} - {name}", flush=True)

    def not_ok(self, name, detail):
        self.n += 1
        self.failed.append(name)
        print(f"not ok {self.n} - {name}", flush=True)
        for line in detail.rstrip("\n").split("\n"):
            print("# " + line)
        sys.stdout.flush()

    def finish(self):
        print(f"1..{self.n}")
        if self.failed:
            print(f"# {len(self.failed)} of {self.n} failed:")
            for f in self.failed:
                print(f"#   {f}")
        return 1 if self.failed else 0


def rlx_path():
    rlx = os.environ.get("RLX")
    if not rlx:
        sys.exit("run.py: RLX is not set (the rlx binary)")
    return rlx


def run(args, cwd=None, stdin=None, timeout=60):
    """Runs a command; returns (returncode, stdout, stderr) as text."""
    try:
        p = subprocess.run(args, cwd=cwd, input=stdin, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return (-999, "", f"timed out after {timeout}s: {shlex.join(args)}")
    return (p.returncode, p.stdout, p.stderr)


def describe(rc, out, err):
    """A command's result as text for a failure report."""
    s = f"exit status {rc}"
    if rc < 0 and rc != -999:
        s += f" (killed by signal {-rc}: a crash is always a bug)"
    s += "\n"
    if err.strip():
        s += "stderr:\n" + indent(err)
    if out.strip():
        s += "stdout:\n" + indent(out)
    return s


def indent(text, pfx="    "):
    return "".join(pfx + line + "\n" for line in text.rstrip("\n").split("\n"))


def command_of(cmdline, file):
    """`lift --shared` and FILE -> ['lift', FILE, '--shared']."""
    words = shlex.split(cmdline)
    if not words:
        raise ValueError("empty .cmd")
    return [words[0], file] + words[1:]


def is_idempotent(words):
    """Whether the issue requires running the command twice to equal once."""
    if words[0] == "lift":
        return not any(w == "--bind" or w.startswith("--bind=") or
                       w == "--consume-params" for w in words)
    if words[0] == "dump":
        for i, w in enumerate(words):
            if w == "--passes" and i + 1 < len(words):
                names = words[i + 1].split(",")
            elif w.startswith("--passes="):
                names = w[len("--passes="):].split(",")
            else:
                continue
            return all(n in IDEMPOTENT for n in names) and "bind-params" not in names
    return False


def scenarios(selected):
    names = sorted(f[:-4] for f in os.listdir(GOLDEN) if f.endswith(".cmd"))
    if selected:
        missing = [s for s in selected if s not in names]
        if missing:
            sys.exit("run.py: no such scenario: " + ", ".join(missing))
        names = [n for n in names if n in selected]
    return names


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def golden(selected):
    rlx = rlx_path()
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="rlx-passes-")
    for name in scenarios(selected):
        src = name + ".py"
        cmdline = read(os.path.join(GOLDEN, name + ".cmd")).strip()
        words = shlex.split(cmdline)
        exp_py = os.path.join(GOLDEN, name + ".expected.py")
        exp_err = os.path.join(GOLDEN, name + ".expected.err")
        shown = f"rlx {shlex.join(command_of(cmdline, src))}  (in {GOLDEN})"

        # 1. The input parses.
        rc, out, err = run([rlx, "check", src], cwd=GOLDEN)
        if rc != 0:
            tap.not_ok(f"{name}: input parses",
                       f"rlx check {src}\n" + describe(rc, out, err))
            for what in ("output", "reparse", "idempotent"):
                tap.ok(f"{name}: {what}", skip="the input does not parse")
            continue
        tap.ok(f"{name}: input parses")

        rc, out, err = run([rlx] + command_of(cmdline, src), cwd=GOLDEN)

        # Error scenarios: exit 1 and the located diagnostic.
        if os.path.exists(exp_err):
            want = read(exp_err).strip().split("\n")[0].strip()
            if rc == 1 and any(line.startswith(want) for line in err.split("\n")) \
                    and not out.strip():
                tap.ok(f"{name}: error reported")
            else:
                tap.not_ok(f"{name}: error reported",
                           f"{shown}\nexpected exit status 1, no output, and "
                           f"a diagnostic line starting with:\n    {want}\n"
                           + describe(rc, out, err))
            continue

        if rc != 0:
            tap.not_ok(f"{name}: output", f"{shown}\n" + describe(rc, out, err))
            for what in ("reparse", "idempotent"):
                tap.ok(f"{name}: {what}", skip="the command failed")
            continue
        out_path = os.path.join(tmp, name + ".out.py")
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(out)

        # 2. Equal to the expected module, names included.
        erc, eout, eerr = run([rlx, "equal", "--names", out_path, exp_py])
        if erc == 0:
            tap.ok(f"{name}: output")
        else:
            detail = f"{shown}\nrlx equal --names OUT EXPECTED: " \
                     + describe(erc, eout, eerr)
            detail += "--- output:\n" + indent(out)
            detail += "--- expected (" + exp_py + "):\n" + indent(read(exp_py))
            crc, canon, _ = run([rlx, "dump", exp_py])
            if crc == 0:
                diff = difflib.unified_diff(canon.split("\n"), out.split("\n"),
                                            "expected (as rlx prints it)",
                                            "output", lineterm="")
                detail += "--- diff:\n" + indent("\n".join(diff))
            else:
                detail += "(the expected file does not parse: rlx dump " \
                          "fails, so no diff)\n"
            tap.not_ok(f"{name}: output", detail)

        # 3. The output parses back.
        crc, cout, cerr = run([rlx, "check", out_path])
        if crc == 0:
            tap.ok(f"{name}: reparse")
        else:
            tap.not_ok(f"{name}: reparse", f"rlx check {out_path}\n"
                       + describe(crc, cout, cerr) + "--- output:\n" + indent(out))

        # 4. Twice equals once, byte for byte.
        if not is_idempotent(words):
            tap.ok(f"{name}: idempotent", skip="not required for this command")
            continue
        if words[0] == "lift" and "stop_lift_params" in read(os.path.join(GOLDEN, src)):
            # lifting drops the call (TVM's rule): a second lift goes past it
            tap.ok(f"{name}: idempotent", skip="R.builtin.stop_lift_params")
            continue
        rc2, out2, err2 = run([rlx] + command_of(cmdline, out_path))
        if rc2 == 0 and out2 == out:
            tap.ok(f"{name}: idempotent")
        else:
            detail = f"rlx {shlex.join(command_of(cmdline, out_path))}\n"
            if rc2 != 0:
                detail += describe(rc2, out2, err2)
            else:
                diff = difflib.unified_diff(out.split("\n"), out2.split("\n"),
                                            "once", "twice", lineterm="")
                detail += "--- diff:\n" + indent("\n".join(diff))
            tap.not_ok(f"{name}: idempotent", detail)
    if not os.environ.get("KEEP_TMP"):
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return tap.finish()


def main(argv):
    if len(argv) < 2 or argv[1] not in ("golden", "property"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "golden":
        return golden(argv[2:])
    sys.path.insert(0, HERE)
    import property as prop  # noqa: E402  (tests/passes/property.py)
    count = int(argv[2]) if len(argv) > 2 else int(os.environ.get("PROPERTY_COUNT", "200"))
    tap = Tap()
    prop.run_all(rlx_path(), count, tap, run)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
