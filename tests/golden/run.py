#!/usr/bin/python3
"""Golden tests for the rlx frontend: text in, text out.

    run.py roundtrip [--update] [NAME...]
    run.py errors    [--update] [NAME...]
    run.py cli

RLX names the rlx binary (meson sets it; default: build/rlx under the
source root). Output is TAP: `1..N`, then `ok K - name` or `not ok K - name`
followed by `#` lines saying why. The exit status is 1 when a test failed.

roundtrip  For each roundtrip/NAME.py: `rlx check` succeeds silently;
           `rlx dump` prints text A equal to the pinned roundtrip/NAME.out;
           dumping A again gives A byte for byte; `rlx equal NAME.py A`
           succeeds. A last test checks that the corpus calls every operator
           of compiler/ops.def.
errors     For each errors/NAME.py: `rlx check` exits 1 (never 0, never a
           signal or a sanitizer report); stderr contains the location given
           by the file's first line `# expect: LINE:COL [fragment]` as
           `errors/NAME.py:LINE:COL: error: MESSAGE`, the MESSAGE containing
           the fragment (ignoring case); stderr equals the pinned
           errors/NAME.err.
cli        The command-line cases in CLI_CASES below.

--update writes NAME.out / NAME.err from the current binary, but only for a
case that passes every other check. rlx runs with the current directory set
to tests/golden, so paths in messages read `errors/NAME.py`.

See README.md in this directory.
"""
import difflib
import os
import re
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("SRCDIR") or os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 60  # seconds per rlx run

# Text that a sanitizer prints when it finds a bug. ASan and UBSan exit with
# status 1 by default, which would look like an ordinary input error.
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                   "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer")

EXPECT_RE = re.compile(r"#\s*expect:\s*(\d+):(\d+)(?:\s+(.*?))?\s*$")


# --------------------------------------------------------------- running rlx

class Result:
    """The outcome of one rlx run: exit code, stdout and stderr (text)."""

    def __init__(self, code, out, err, problem=None):
        self.code = code
        self.out = out
        self.err = err
        self.problem = problem  # set when rlx could not run or misbehaved

    def crash(self):
        """Returns a loud description of a crash, or None."""
        if self.problem:
            return self.problem
        if self.code is not None and self.code < 0:
            try:
                name = signal.Signals(-self.code).name
            except ValueError:
                name = "signal %d" % -self.code
            return "CRASH: rlx was killed by %s" % name
        for mark in SANITIZER_MARKS:
            if mark in self.err:
                return "CRASH: sanitizer report (%s)" % mark
        return None


def rlx_binary():
    """The rlx binary as an absolute path (RLX may be relative to the cwd)."""
    path = os.environ.get("RLX") or os.path.join(SRCDIR, "build", "rlx")
    return os.path.abspath(path)


def run_rlx(args, stdin=None):
    """Runs rlx ARGS in tests/golden, feeding stdin (str or bytes) if given."""
    if isinstance(stdin, str):
        stdin = stdin.encode()
    try:
        p = subprocess.run([rlx_binary()] + list(args), cwd=HERE,
                           input=stdin if stdin is not None else b"",
                           capture_output=True, timeout=TIMEOUT)
    except OSError as e:
        return Result(None, "", "", "cannot run %s: %s" % (rlx_binary(), e))
    except subprocess.TimeoutExpired:
        return Result(None, "", "", "CRASH: rlx ran longer than %ds" % TIMEOUT)
    out = p.stdout.decode("utf-8", errors="replace")
    err = p.stderr.decode("utf-8", errors="replace")
    return Result(p.returncode, out, err)


def describe(r):
    """Lines describing a run for a failure report."""
    lines = ["exit code: %s" % r.code]
    for label, text in (("stdout", r.out), ("stderr", r.err)):
        if text:
            lines.append(label + ":")
            lines.extend("  " + l for l in text.splitlines()[:30])
    return lines


# ---------------------------------------------------------------- reporting

class Tap:
    """Collects test results and prints them as TAP."""

    def __init__(self):
        self.results = []  # (ok, name, lines)

    def add(self, ok, name, lines=()):
        self.results.append((ok, name, list(lines)))

    def finish(self):
        print("1..%d" % len(self.results))
        failed = 0
        for k, (ok, name, lines) in enumerate(self.results, 1):
            print("%s %d - %s" % ("ok" if ok else "not ok", k, name))
            for line in lines:
                print("# " + line)
            failed += not ok
        if failed:
            print("# %d of %d failed" % (failed, len(self.results)))
        return 1 if failed else 0


def text_diff(expected, actual, expected_name, actual_name):
    """A unified diff, at most 60 lines."""
    diff = list(difflib.unified_diff(expected.splitlines(),
                                     actual.splitlines(), expected_name,
                                     actual_name, lineterm=""))
    if expected != actual and not diff:
        diff = ["(the texts differ only in line endings or the last newline)"]
    if len(diff) > 60:
        diff = diff[:60] + ["... (%d more lines)" % (len(diff) - 60)]
    return diff


def read_text(path):
    """A file's text, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write_text(path, text):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def cases(subdir, names):
    """Sorted NAMEs of SUBDIR/NAME.py, restricted to NAMES if given."""
    d = os.path.join(HERE, subdir)
    found = sorted(f[:-3] for f in os.listdir(d) if f.endswith(".py"))
    if names:
        missing = set(names) - set(found)
        if missing:
            sys.exit("run.py: no such case in %s: %s"
                     % (subdir, " ".join(sorted(missing))))
        found = [n for n in found if n in names]
    return found


def compare_pinned(path, actual, update, tap_lines):
    """Compares ACTUAL with the file at PATH; --update writes it instead.

    Returns True when they agree (or were just written). Appends the
    reason for a failure to TAP_LINES."""
    rel = os.path.relpath(path, HERE)
    expected = read_text(path)
    if update:
        if expected != actual:
            write_text(path, actual)
            tap_lines.append("pinned %s" % rel)
        return True
    if expected is None:
        tap_lines.append("%s is missing (pin it with --update)" % rel)
        return False
    if expected != actual:
        tap_lines.append("output differs from %s:" % rel)
        tap_lines.extend(text_diff(expected, actual, rel, "actual"))
        return False
    return True


# ---------------------------------------------------------------- roundtrip

def roundtrip_one(name, update, tmpdir):
    """Checks one roundtrip case; returns (ok, reason lines)."""
    rel = "roundtrip/%s.py" % name
    why = []

    r = run_rlx(["check", rel])
    if r.crash():
        return False, ["check: " + r.crash()] + describe(r)
    if r.code != 0 or r.out or r.err:
        return False, ["check should exit 0 and print nothing"] + describe(r)

    r = run_rlx(["dump", rel])
    if r.crash():
        return False, ["dump: " + r.crash()] + describe(r)
    if r.code != 0 or r.err:
        return False, ["dump should exit 0 with an empty stderr"] + describe(r)
    a = r.out
    if not a.strip():
        return False, ["dump printed nothing"]

    # The printed text must itself parse and print the same.
    tmp = os.path.join(tmpdir, name + ".py")
    write_text(tmp, a)
    r = run_rlx(["dump", tmp])
    if r.crash():
        return False, ["dump of the dump: " + r.crash()] + describe(r)
    if r.code != 0:
        return False, ["dump of the dump failed"] + describe(r)
    if r.out != a:
        why.append("dump is not a fixed point (dump A != A):")
        why.extend(text_diff(a, r.out, "A", "dump A"))
        return False, why

    r = run_rlx(["equal", rel, tmp])
    if r.crash():
        return False, ["equal: " + r.crash()] + describe(r)
    if r.code != 0:
        return False, ["equal FILE A should exit 0"] + describe(r)

    ok = compare_pinned(os.path.join(HERE, "roundtrip", name + ".out"), a,
                        update, why)
    return ok, why


def op_names():
    """The Python names of the ops in compiler/ops.def ("add", "nn.relu")."""
    path = os.path.join(SRCDIR, "compiler", "ops.def")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r'^OP\(\s*\w+\s*,\s*"([^"]+)"', text, re.M)


def coverage_test(tap):
    """Every op of ops.def is called (`R.NAME(`) somewhere in the corpus."""
    d = os.path.join(HERE, "roundtrip")
    code = []
    for f in sorted(os.listdir(d)):
        if f.endswith(".py"):
            for line in read_text(os.path.join(d, f)).splitlines():
                if not line.lstrip().startswith("#"):
                    code.append(line)
    code = "\n".join(code)
    try:
        names = op_names()
    except OSError as e:
        tap.add(False, "every operator of ops.def is covered", [str(e)])
        return
    missing = [n for n in names if "R.%s(" % n not in code]
    lines = ["%d ops in ops.def" % len(names)]
    if missing:
        lines.append("not called in roundtrip/*.py: " + ", ".join(missing))
    tap.add(not missing and bool(names),
            "every operator of ops.def is covered", lines)


def op_rows():
    """(python name, signature) of every row of compiler/ops.def; a
    signature split over C string literals is joined."""
    path = os.path.join(SRCDIR, "compiler", "ops.def")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = []
    for m in re.finditer(r'^OP\(\s*\w+\s*,\s*"([^"]+)"\s*,((?:\s*"(?:[^"\\]|\\.)*")+)',
                         text, re.M):
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))
        rows.append((m.group(1), "".join(parts).replace('\\"', '"')))
    return rows


def docs_test(tap):
    """Every op of ops.def has its row in docs/language.md, with the
    signature the parser reads (the "how to add an op" checklist of
    docs/architecture.md)."""
    try:
        rows = op_rows()
        doc = read_text(os.path.join(SRCDIR, "docs", "language.md")) or ""
    except OSError as e:
        tap.add(False, "every operator of ops.def is documented", [str(e)])
        return
    want = ["| `R.%s` | `%s` |" % r for r in rows]
    missing = [w for w in want if w not in doc.splitlines()]
    lines = ["%d ops in ops.def" % len(rows)]
    if missing:
        lines.append("rows missing from (or different in) docs/language.md:")
        lines += missing
    tap.add(not missing and bool(rows),
            "every operator of ops.def is documented in docs/language.md", lines)

    # the pass checklist's docs step: every pass of the pipeline table
    # (as `rlx dump --help` lists them) has its section in docs/passes.md
    r = subprocess.run([rlx_binary(), "dump", "--help"], capture_output=True, text=True)
    names = re.findall(r"^  ([a-z][a-z-]*)  ", r.stdout.split("passes:", 1)[-1], re.M)
    doc = (read_text(os.path.join(SRCDIR, "docs", "passes.md")) or "").splitlines()
    missing = [n for n in names if "## " + n not in doc]
    tap.add(r.returncode == 0 and bool(names) and not missing,
            "every pass of the pipeline is documented in docs/passes.md",
            ["%d passes" % len(names)] + ["no section '## %s'" % n for n in missing])


def layout_test(tap):
    """docs/architecture.md keeps up with the tree: it names every source
    file of the layers (a file `x.[ch]` names x.c and x.h), and every file
    its checklists ("How to add an op", "How to add a pass", "How to add a
    TIR construct") point to
    exists."""
    doc = read_text(os.path.join(SRCDIR, "docs", "architecture.md")) or ""
    missing = []
    runtime = os.path.join(SRCDIR, "runtime")
    layers = ["runtime/" + l for l in sorted(os.listdir(runtime))
              if os.path.isdir(os.path.join(runtime, l))]
    for d in ["include", "compiler", "grammar", "passes"] + layers + ["cli"]:
        for f in sorted(os.listdir(os.path.join(SRCDIR, d))):
            stem, ext = os.path.splitext(f)
            if ext not in (".c", ".h", ".l", ".y", ".def"):
                continue
            if f in doc or (ext in (".c", ".h") and stem + ".[ch]" in doc):
                continue
            if d == "cli" and f.startswith("cmd_") and "cmd_*.c" in doc:
                continue
            missing.append("%s/%s is not named in docs/architecture.md" % (d, f))
    tap.add(bool(doc) and not missing,
            "docs/architecture.md names every source file", missing)
    gone = []
    for title in ("### How to add an op", "### How to add a pass",
                  "### How to add a TIR construct"):
        part = doc.split(title, 1)[-1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        if title not in doc:
            gone.append("no section '%s'" % title)
        for path in re.findall(r"`((?:compiler|grammar|passes|runtime|cli|tests|docs)/[\w./-]+)`", part):
            if "NAME" not in path and not os.path.exists(os.path.join(SRCDIR, path)):
                gone.append("%s: %s does not exist" % (title[4:], path))
    tap.add(bool(doc) and not gone,
            "the checklists of docs/architecture.md point to files that exist", gone)


def run_roundtrip(names, update):
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="rlx-golden-") as tmpdir:
        for name in cases("roundtrip", names):
            ok, why = roundtrip_one(name, update, tmpdir)
            tap.add(ok, "roundtrip/" + name, why)
    if not names:
        coverage_test(tap)
        docs_test(tap)
        layout_test(tap)
    return tap.finish()


# ------------------------------------------------------------------- errors

def parse_expect(path):
    """The (line, col, fragment) of a case's `# expect:` first line, or None."""
    text = read_text(path) or ""
    first = text.split("\n", 1)[0].rstrip("\r")
    m = EXPECT_RE.match(first)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), m.group(3) or None


def errors_one(name, update):
    """Checks one error case; returns (ok, reason lines)."""
    rel = "errors/%s.py" % name
    expect = parse_expect(os.path.join(HERE, rel))
    if expect is None:
        return False, ["first line must be `# expect: LINE:COL [fragment]`"]
    line, col, fragment = expect

    r = run_rlx(["check", rel])
    if r.crash():
        return False, [r.crash()] + describe(r)
    if r.code != 1:
        return False, ["check should exit 1 (input error), not %s" % r.code] \
            + describe(r)
    why = []
    if r.out:
        why.append("check printed on stdout (errors belong on stderr)")
    # The fragment must be in the message of an error at that location
    # (not merely in the quoted source line under it).
    where = "%s:%d:%d: error:" % (rel, line, col)
    messages = [l[len(where):] for l in r.err.splitlines()
                if l.startswith(where)]
    if not messages:
        why.append("stderr lacks `%s`" % where)
    elif fragment and not any(fragment.lower() in m.lower()
                              for m in messages):
        why.append("no error at %d:%d mentions `%s`" % (line, col, fragment))
    if why:
        return False, why + describe(r)

    ok = compare_pinned(os.path.join(HERE, "errors", name + ".err"), r.err,
                        update, why)
    return ok, why


def run_errors(names, update):
    tap = Tap()
    for name in cases("errors", names):
        ok, why = errors_one(name, update)
        tap.add(ok, "errors/" + name, why)
    return tap.finish()


# ---------------------------------------------------------------------- cli

def located_in_both(a, b):
    """A regex for a difference located in both files (FILE:LINE:COL)."""
    la = re.escape(a) + r":\d+:\d+"
    lb = re.escape(b) + r":\d+:\d+"
    return r"(?s)(%s.*%s|%s.*%s)" % (la, lb, lb, la)


VALID = read_text(os.path.join(HERE, "cli", "valid.py"))
ANY = None  # in CLI_CASES: stdout/stderr not checked

# Unannotated bindings: lv, used once, is computed inside gv's kernel.
PLAN_SRC = """@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            lv = R.add(x, y)
            gv = R.multiply(lv, y)
            R.output(gv)
        return gv
"""

# A weight with a symbolic dim that no input binds (init-weights --dim).
SYM_WEIGHT = """@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor(("k", 4), "float32")):
        R.func_attr({"num_input": 1})
        return w
"""

# (name, argv, stdin, exit code, stdout regex, stderr regex). A regex is
# searched for (re.search, multi-line); "" requires the stream to be empty.
# {tmp} in argv is a scratch directory holding nul.py (a file with NUL bytes).
# A symbolic dimension for bind-params to fix.
BIND_SRC = """@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        y = R.add(x, x)
        return y
"""

CLI_CASES = [
    ("help", ["--help"], None, 0, r"usage: rlx", ANY),
    ("no command", [], None, 2, "", r"usage"),
    ("unknown command", ["frobnicate"], None, 2, "", r"frobnicate"),
    ("version", ["--version"], None, 0, r"^rlx \S+", ""),

    ("check --help", ["check", "--help"], None, 0, r"usage: rlx check", ""),
    ("check unknown option", ["check", "--frobnicate", "cli/valid.py"], None,
     2, "", r"--frobnicate"),
    ("check without file", ["check"], None, 2, "", r"\S"),
    ("check nonexistent file", ["check", "cli/no-such-file.py"], None, 1, "",
     r"^rlx check: error: cannot open cli/no-such-file\.py: "),
    ("check valid file", ["check", "cli/valid.py"], None, 0, "", ""),
    ("check several files, one bad",
     ["check", "cli/valid.py", "cli/no-such-file.py", "cli/alpha_a.py"], None,
     1, "", r"no-such-file\.py"),
    ("check - (stdin)", ["check", "-"], VALID, 0, "", ""),
    ("check - (stdin) with an error", ["check", "-"], "@I.ir_module\n", 1, "",
     r"error:"),
    ("check NUL bytes", ["check", "{tmp}/nul.py"], None, 1, "",
     r"nul\.py.*error|error.*nul\.py"),

    ("dump --help", ["dump", "--help"], None, 0, r"usage: rlx dump", ""),
    # issue 46: without --passes, --print-after-all prints the module once
    ("dump --print-after-all without --passes",
     ["dump", "cli/valid.py", "--print-after-all"], None, 0,
     r"(?s)^(?!.*ir_module.*ir_module).*@I\.ir_module", ""),
    # issue 46: dump has --bind for bind-params, as lift has
    ("dump --passes bind-params --bind",
     ["dump", "-", "--passes", "bind-params", "--bind", "n=4"], BIND_SRC, 0,
     r"R\.Tensor\(\(4,\), dtype=\"float32\"\)", ""),
    ("dump --bind NAME without VALUE", ["dump", "-", "--bind", "n"], BIND_SRC,
     2, "", r"--bind needs NAME=VALUE"),
    # issue 46: --time is an option of transform and verify too
    ("transform --time", ["transform", "cli/valid.py", "--time"], None, 2, "",
     r"^(?!.*--time).*weights"),
    ("verify --time", ["verify", "cli/valid.py", "--time"], None, 2, "",
     r"^(?!.*--time).*weights"),
    ("dump unknown option", ["dump", "--frobnicate", "cli/valid.py"], None,
     2, "", r"--frobnicate"),
    ("dump without file", ["dump"], None, 2, "", r"\S"),
    ("dump two files", ["dump", "cli/valid.py", "cli/alpha_a.py"], None, 2,
     "", r"\S"),
    ("dump nonexistent file", ["dump", "cli/no-such-file.py"], None, 1, "",
     r"no-such-file\.py"),
    ("dump - (stdin)", ["dump", "-"], VALID, 0,
     r"^@I\.ir_module\nclass Module:", ""),
    ("dump NUL bytes", ["dump", "{tmp}/nul.py"], None, 1, "",
     r"nul\.py.*error|error.*nul\.py"),
    ("dump keeps dotted names", ["dump", "cli/dotted.py"], None, 0,
     r"`model\.layers\.0\.mlp\.up_proj\.weight`", ""),
    ("dump --tvm-names", ["dump", "--tvm-names", "cli/dotted.py"], None, 0,
     r"\A[^`]*model_layers_0_mlp_up_proj_weight[^`]*\Z", ""),

    ("equal --help", ["equal", "--help"], None, 0, r"usage: rlx equal", ""),
    ("equal unknown option",
     ["equal", "--frobnicate", "cli/alpha_a.py", "cli/alpha_b.py"], None, 2,
     "", r"--frobnicate"),
    ("equal without files", ["equal"], None, 2, "", r"\S"),
    ("equal with one file", ["equal", "cli/alpha_a.py"], None, 2, "", r"\S"),
    ("equal nonexistent file", ["equal", "cli/no-such-file.py",
                                "cli/alpha_a.py"], None, 1, "",
     r"no-such-file\.py"),
    ("equal - (stdin)", ["equal", "-", "cli/valid.py"], VALID, 0, "", ""),
    ("equal NUL bytes", ["equal", "cli/valid.py", "{tmp}/nul.py"], None, 1,
     "", r"nul\.py.*error|error.*nul\.py"),
    ("equal itself", ["equal", "cli/alpha_a.py", "cli/alpha_a.py"], None, 0,
     "", ""),
    ("equal itself --names",
     ["equal", "--names", "cli/alpha_a.py", "cli/alpha_a.py"], None, 0, "",
     ""),
    ("equal alpha-equivalent", ["equal", "cli/alpha_a.py", "cli/alpha_b.py"],
     None, 0, "", ""),
    ("equal alpha-equivalent --names",
     ["equal", "cli/alpha_a.py", "cli/alpha_b.py", "--names"], None, 1, "",
     located_in_both("alpha_a.py", "alpha_b.py")),
    ("equal different vdevices",
     ["equal", "cli/vdevice_llvm.py", "cli/vdevice_cuda.py"], None, 1, "",
     r"vdevice_llvm\.py:\d+:\d+.*vdevice_cuda\.py:\d+:\d+: vdevice "
     r"llvm:0:global vs cuda:0:global"),
    ("equal different modules",
     ["equal", "cli/alpha_a.py", "cli/different.py"], None, 1, "",
     located_in_both("alpha_a.py", "different.py")),
    ("run --print-plan shows the fusion", ["run", "-", "--print-plan"],
     PLAN_SRC, 0,
     r"^# plan of main: 2 bindings, 1 kernel call, 1 fused into a later kernel\n"
     r" +lv = R\.add\(x, y\) +# fused into gv\n"
     r" +gv = R\.multiply\(lv, y\) +# kernel \S+, computing lv\n", ""),
    ("run --print-plan fuses through proven annotations",
     ["run", "cli/valid.py", "--print-plan"], None, 0,
     r"^# plan of main: 2 bindings, 1 kernel call, 1 fused into a later kernel\n"
     r" +lv = R\.add\(x, y\) +# fused into gv\n", ""),
    ("run --print-plan folds a prim_func transpose into a prim_func matmul",
     ["run", "cli/tir_fold.py", "--print-plan"], None, 0,
     r"^# plan of main: 5 bindings, 3 kernel calls, 1 fused into a later kernel\n"
     r" +wt = R\.call_tir\(cls\.transpose, \(w,\), .*# fused into y\n"
     r" +y = R\.call_tir\(cls\.matmul, \(x, wt\), .*# kernel (\S+) \(prim_func matmul\), "
     r"computing wt\n"
     r" +ut = R\.call_tir\(cls\.transpose, \(u,\), .*# kernel \S+ \(prim_func transpose\)\n"
     r" +z = R\.call_tir\(cls\.matmul, \(x, ut\), .*# kernel (?!\1 )\S+ \(prim_func matmul\)\n"
     r" +gv = \(y, z, ut\) +# value\n$", ""),
    ("transform --print-plan needs no weights",
     ["transform", "cli/dotted.py", "--print-plan"], None, 0,
     r"^# plan of main_transform_params: 2 bindings, 1 kernel call.*\n"
     r" +model\.layers\.0\.mlp\.up_proj\.weight\.T = R\.permute_dims\(.*# kernel ",
     ""),
    ("init-weights: a symbolic weight dim needs --dim",
     ["init-weights", "-", "-o", "{tmp}/w.safetensors"], SYM_WEIGHT, 1, "",
     r"^<stdin>: error: weight 'w': symbolic dimension 'k' has no value: "
     r"give it with --dim k=VALUE$"),
    ("init-weights --dim gives it",
     ["init-weights", "-", "--dim", "k=3", "-o", "{tmp}/w.safetensors"], SYM_WEIGHT,
     0, "", ""),
    ("run refuses an extern op", ["run", "cli/extern.py", "-o", "{tmp}/o.npy"],
     None, 1, "", r"^cli/extern\.py:11:13: error: R\.call_dps_packed\(\"my_sigmoid\"\): rlx "
     r"knows no packed function of that name"),
    ("run refuses an op it has no kernel for, saying so",
     ["run", "cli/nokernel.py", "-o", "{tmp}/o.npy"],
     None, 1, "", r"^cli/nokernel\.py:13:16: error: R\.nn\.nll_loss cannot be run "
     r"by rlx yet: rlx reads, checks, prints and lifts it, but has no kernel"),
    ("run refuses a layout_transform map that is not one-to-one",
     ["run", "cli/layout_not_one_to_one.py", "-o", "{tmp}/o.npy"], None, 1, "",
     r"^cli/layout_not_one_to_one\.py:12:13: error: cannot generate code for "
     r"layout_transform: the index map is not one-to-one: the terms of final index 0 overlap"),
]


def cli_one(case, tmpdir):
    """Runs one CLI case; returns (ok, reason lines)."""
    name, argv, stdin, code, out_re, err_re = case
    argv = [a.replace("{tmp}", tmpdir) for a in argv]
    r = run_rlx(argv, stdin)
    why = []
    if r.crash():
        why.append(r.crash())
    elif r.code != code:
        why.append("exit code %s, expected %d" % (r.code, code))
    for label, text, pattern in (("stdout", r.out, out_re),
                                 ("stderr", r.err, err_re)):
        if pattern is None:
            continue
        if pattern == "":
            if text:
                why.append("%s should be empty" % label)
        elif not re.search(pattern, text, re.M):
            why.append("%s does not match /%s/" % (label, pattern))
    if why:
        why = ["rlx " + " ".join(argv)] + why + describe(r)
    return not why, why


def run_cli():
    tap = Tap()
    if VALID is None:
        tap.add(False, "cli fixtures", ["tests/golden/cli/valid.py is missing"])
        return tap.finish()
    with tempfile.TemporaryDirectory(prefix="rlx-golden-") as tmpdir:
        with open(os.path.join(tmpdir, "nul.py"), "wb") as f:
            f.write(VALID.encode()[:40] + b"\0\0\0" + VALID.encode()[40:])
        for case in CLI_CASES:
            ok, why = cli_one(case, tmpdir)
            tap.add(ok, "cli: " + case[0], why)
    return tap.finish()


# --------------------------------------------------------------------- main

def main(argv):
    usage = "usage: run.py roundtrip|errors|cli [--update] [NAME...]"
    args = [a for a in argv if a != "--update"]
    update = len(args) != len(argv)
    if not args or args[0] not in ("roundtrip", "errors", "cli"):
        print(usage, file=sys.stderr)
        return 2
    mode = args[0]
    # Accept `roundtrip/NAME.py` as well as `NAME`.
    names = [os.path.basename(n)[:-3] if n.endswith(".py") else n
             for n in args[1:]]
    if any(n.startswith("-") for n in names):
        print(usage, file=sys.stderr)
        return 2
    if not os.access(rlx_binary(), os.X_OK):
        print("Bail out! no rlx binary at %s (set RLX)" % rlx_binary())
        return 1
    if mode == "roundtrip":
        return run_roundtrip(names, update)
    if mode == "errors":
        return run_errors(names, update)
    return run_cli()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
