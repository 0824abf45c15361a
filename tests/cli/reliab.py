#!/usr/bin/python3
"""Nothing lost, nothing hung, nothing followed (issue 12): TAP tests.

What the file system, signals and concurrency can do to rlx's outputs and
inputs: a user's file in a cache directory, concurrent writers of one
output, links planted at temporary names, SIGINT/SIGTERM/SIGHUP and SIGKILL
mid-write, stale temporaries, FIFOs and other non-regular inputs, a
checkpoint truncated while it is read, `-o DIR/`; `-o` onto a device, a
FIFO, a socket and /dev/stdout (issue 46). Every case runs with a
timeout, so a hang fails instead of blocking the suite.
"""
import glob
import json
import os
import random
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from rlxtest import write_safetensors  # noqa: E402

RLX = os.environ["RLX"]
results = []


T0 = time.monotonic()


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail, time.monotonic() - T0))
    return bool(cond)


def rlx(*args, timeout=120):
    try:
        p = subprocess.run([RLX, *map(str, args)], capture_output=True,
                           text=True, errors="backslashreplace",
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return p.returncode, p.stdout, p.stderr


def temps(d):
    """rlx temporaries (and the names older versions used) in directory d."""
    return sorted(f for f in os.listdir(d)
                  if ".rlx-tmp." in f or ".tmp." in f or f.endswith(".tmp"))


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def listdir(d):
    try:
        return sorted(os.listdir(d))
    except OSError:
        return None


def tree(d):
    """{relative path: bytes} of every file under d."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


# A transform that moves 4 x 4 MiB: big enough to be caught mid-write, small
# enough to run in a fraction of a second.
N = 512
MODEL = """@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, {n}), dtype="float32"), a: R.Tensor(({n}, {n}), dtype="float32"), b: R.Tensor(({n}, {n}), dtype="float32"), c: R.Tensor(({n}, {n}), dtype="float32"), d: R.Tensor(({n}, {n}), dtype="float32")) -> R.Tensor((1, {n}), dtype="float32"):
        R.func_attr({{"num_input": 1}})
        with R.dataflow():
            at = R.permute_dims(a, axes=[1, 0])
            bt = R.permute_dims(b, axes=[1, 0])
            ct = R.permute_dims(c, axes=[1, 0])
            dt = R.permute_dims(d, axes=[1, 0])
            y1 = R.matmul(x, at)
            y2 = R.matmul(y1, bt)
            y3 = R.matmul(y2, ct)
            y = R.matmul(y3, dt)
            R.output(y)
        return y
""".format(n=N)


def spawn(*args):
    return subprocess.Popen([RLX, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(pred, limit=60.0, interval=0.002):
    """Polls pred every interval seconds (0: without sleeping) until it
    holds (True) or limit seconds pass (False)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        if interval:
            time.sleep(interval)
    return False


def mid_write(d, name):
    """Has a writer of d/name's temporary started writing data?"""
    for t in glob.glob(os.path.join(d, name + ".rlx-tmp.*")) + \
            glob.glob(os.path.join(d, name + ".tmp*")):  # older rlx
        try:
            if os.path.isfile(t) and os.path.getsize(t) > 0:
                return True
            if os.path.isdir(t) and any(os.path.getsize(os.path.join(t, f)) > 0
                                        for f in os.listdir(t)):
                return True
        except OSError:
            pass
    return False


def main():
    tmp = tempfile.mkdtemp(prefix="rlx-reliab-")
    os.chdir(tmp)
    with open("m.py", "w") as f:
        f.write(MODEL)
    with open("s.py", "w") as f:  # small, for the races
        f.write(MODEL.replace(str(N), "256"))
    rng = np.random.default_rng(0)
    for s in (1, 2):
        write_safetensors("w%d.safetensors" % s, {
            k: rng.standard_normal((N, N)).astype(np.float32) for k in "abcd"})
        write_safetensors("s%d.safetensors" % s, {
            k: rng.standard_normal((256, 256)).astype(np.float32) for k in "abcd"})

    # references: the caches of w1 and w2
    for s in (1, 2):
        rc, _, err = rlx("transform", "m.py", "--weights", "w%d.safetensors" % s,
                         "--shard-size", "1", "--quiet", "-o", "ref%d" % s)
        check("reference cache %d" % s, rc == 0, err)
    ref = {1: tree("ref1"), 2: tree("ref2")}

    # --- 1: a user's file in a cache directory -----------------------------
    rlx("transform", "m.py", "--weights", "w1.safetensors", "--shard-size", "1",
        "--quiet", "-o", "c1")
    with open("c1/notes.txt", "w") as f:
        f.write("mine\n")
    rc, _, err = rlx("transform", "m.py", "--weights", "w2.safetensors", "--quiet",
                     "-o", "c1")
    check("user file in DIR: refused (exit 1)", rc == 1 and "notes.txt" in err, err)
    check("user file in DIR: survives", read("c1/notes.txt") == "mine\n")
    t = tree("c1")
    t.pop("notes.txt", None)
    check("user file in DIR: cache untouched", t == ref[1])
    subprocess.run(["rm", "-rf", "c1"])
    subprocess.run(["cp", "-r", "ref1", "c1"])
    os.mkdir("c1/sub")
    rc, _, err = rlx("transform", "m.py", "--weights", "w2.safetensors", "--quiet",
                     "-o", "c1")
    check("user directory in DIR: refused", rc == 1 and "sub" in err and
          os.path.isdir("c1/sub"), err)
    check("user file in DIR: no temporaries", temps(".") == [], temps("."))

    # --- 2: concurrent writers of one output -------------------------------
    for cmd, out, mk in [
        ("init-weights", "iw.safetensors",
         lambda k: ["init-weights", "s.py", "--seed", k, "-o", "iw.safetensors"]),
        ("run -o", "r.npy",
         lambda k: ["run", "s.py", "--params", "s%d.safetensors" % (1 + k % 2),
                    "--input", "x=x%d.npy" % k, "-o", "r.npy"]),
    ]:
        singles = {}
        for k in range(4):
            np.save("x%d.npy" % k, rng.standard_normal((1, 256)).astype(np.float32))
            a = mk(k)
            a[-1] = "single%d" % k
            rlx(*a)
            with open("single%d" % k, "rb") as f:
                singles[k] = f.read()
        whole = True
        for trial in range(2):
            ps = [spawn(*mk(k)) for k in range(4)]
            codes = [p.wait(timeout=120) for p in ps]
            with open(out, "rb") as f:
                got = f.read()
            whole = whole and all(c == 0 for c in codes) and got in singles.values()
        check("%s: 4 concurrent writers, the output is one whole output" % cmd,
              whole)
        check("%s: concurrent writers leave no temporaries" % cmd, temps(".") == [],
              temps("."))

    # --- 3: links planted at temporary names -------------------------------
    with open("victim", "w") as f:
        f.write("victim\n")
    os.symlink("victim", "p.npy.tmp")              # the name rlx used to use
    for pid in range(os.getpid(), os.getpid() + 50):  # names a writer may pick
        os.symlink("victim", "p.npy.rlx-tmp.%d.AAAAAA" % pid)
    np.save("x.npy", np.ones((1, N), np.float32))
    rc, _, err = rlx("run", "m.py", "--params", "w1.safetensors", "--input",
                     "x=x.npy", "-o", "p.npy")
    check("planted links: run succeeds", rc == 0, err)
    check("planted links: the link's target untouched",
          read("victim") == "victim\n")
    check("planted links: OUT is a regular file", os.path.isfile("p.npy") and
          not os.path.islink("p.npy"))
    os.symlink("victim", "q.npy")
    rc, _, err = rlx("run", "m.py", "--params", "w1.safetensors", "--input",
                     "x=x.npy", "-o", "q.npy")
    check("link at OUT: followed as `>` follows it, the link stays",
          rc == 0 and os.path.islink("q.npy") and
          np.load("victim").shape == (1, N), err)
    os.remove("q.npy")
    for f in set(glob.glob("p.npy.*") + glob.glob("*.tmp")):
        os.remove(f)

    # --- 5: SIGINT / SIGTERM / SIGHUP mid-write ----------------------------
    sigs = [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
    for sig, code in sigs:
        name = signal.Signals(sig).name
        for what, args, out in [
            ("transform", ["transform", "m.py", "--weights", "w2.safetensors",
                           "--shard-size", "1", "--quiet", "-o", "sc"], "sc"),
            ("init-weights", ["init-weights", "m.py", "-o", "si.safetensors"],
             "si.safetensors"),
            ("run -o DIR", ["run", "m.py", "--func", "main_transform_params",
                            "--params", "w2.safetensors", "-o", "sr"], "sr"),
        ]:
            if what == "run -o DIR" and not os.path.exists("lifted.py"):
                rlx("lift", "m.py", "-o", "lifted.py")
            if what == "run -o DIR":
                args[1] = "lifted.py"
            caught = False
            for attempt in range(5):
                if what == "transform":
                    # the old cache again each time: a transform that won
                    # the race wrote the new one, and another run over it
                    # would only find it up to date and write nothing
                    subprocess.run(["rm", "-rf", "sc"])
                    subprocess.run(["cp", "-r", "ref1", "sc"])
                p = spawn(*args)
                if wait_for(lambda: mid_write(".", out) or p.poll() is not None,
                            interval=0):
                    if p.poll() is None:
                        p.send_signal(sig)
                        caught = True
                rc = p.wait(timeout=120)
                if caught:
                    break
            ok = caught and rc == code
            check("%s during %s: exit %d" % (name, what, code), ok,
                  "caught mid-write: %s, exit %s" % (caught, rc))
            check("%s during %s: no temporary left" % (name, what),
                  temps(".") == [], temps("."))
            if what == "transform":
                t = tree("sc")
                check("%s during transform: DIR is the old or the new cache" % name,
                      t == ref[1] or t == ref[2])

    # stale temporaries: a dead rlx's are removed, a live one's are kept
    dead = subprocess.Popen(["true"])
    dead.wait()
    os.mkdir("st.rlx-tmp.%d.Zz0123" % dead.pid)
    with open("st.rlx-tmp.%d.Zz0123/params_shard_0.bin" % dead.pid, "w") as f:
        f.write("x")
    live = "st.rlx-tmp.%d.Zz0124" % os.getpid()
    os.mkdir(live)
    other = "st.old.rlx-tmp.%d.Zz0125" % dead.pid  # another target's
    os.mkdir(other)
    rc, _, err = rlx("transform", "m.py", "--weights", "w1.safetensors", "--quiet",
                     "-o", "st")
    check("stale temporary of a dead process removed by the next run",
          rc == 0 and not os.path.exists("st.rlx-tmp.%d.Zz0123" % dead.pid), err)
    check("temporary of a live process kept", os.path.isdir(live))
    check("temporary of another target kept", os.path.isdir(other))
    os.rmdir(live)
    os.rmdir(other)

    # --- crash consistency: SIGKILL at random points -----------------------
    random.seed(12)
    subprocess.run(["rm", "-rf", "kc"])
    states = {"absent": 0, "old": 0, "new": 0}
    bad = []
    t0 = time.monotonic()
    rlx("transform", "m.py", "--weights", "w1.safetensors", "--shard-size", "1",
        "--quiet", "-o", "kc")
    span = time.monotonic() - t0
    cur = 1  # which reference kc holds (None: absent)
    for i in range(20):
        src = 1 if cur == 2 else 2  # a run that changes the cache
        if i % 7 == 3:
            subprocess.run(["rm", "-rf", "kc"])
            cur = None
        p = spawn("transform", "m.py", "--weights", "w%d.safetensors" % src,
                  "--shard-size", "1", "--quiet", "-o", "kc")
        time.sleep(random.uniform(0, span * 1.2))
        p.kill()
        p.wait(timeout=60)
        if not os.path.exists("kc"):
            states["absent"] += 1
            if cur is not None:
                bad.append("%d: DIR vanished" % i)
        else:
            t = tree("kc")
            if cur is not None and t == ref[cur]:
                states["old"] += 1
            elif t == ref[src]:
                states["new"] += 1
                cur = src
            else:
                bad.append("%d: DIR is neither the old nor the new cache" % i)
        if i % 4 == 3:  # the next run: completes, removes what the kills left
            src = 1 if cur == 2 else 2
            rc, _, err = rlx("transform", "m.py", "--weights", "w%d.safetensors" % src,
                             "--shard-size", "1", "--quiet", "-o", "kc")
            cur = src
            if rc != 0 or tree("kc") != ref[src]:
                bad.append("%d: the next run failed: %s" % (i, err))
            if temps("."):
                bad.append("%d: the next run left %s" % (i, temps(".")))
    print("# SIGKILL: DIR was %(absent)d times absent, %(old)d the old cache, "
          "%(new)d the new one" % states)
    check("SIGKILL at 20 points: DIR absent, old or new; the next run succeeds "
          "and cleans up", not bad, "; ".join(bad) + " %s" % states)

    # --- 6: FIFOs (and other non-regular files) as inputs ----------------
    os.mkfifo("fifo.npy")
    os.mkfifo("fifo.safetensors")
    os.mkfifo("shard.safetensors")
    with open("idx.safetensors.index.json", "w") as f:
        json.dump({"weight_map": {k: "shard.safetensors" for k in "abcd"}}, f)
    os.mkdir("fcache")
    os.mkfifo("fcache/tensor-cache.json")
    # a cache whose model.py is a FIFO (the cache itself good)
    rc, _, err = rlx("transform", "m.py", "--weights", "w1.safetensors",
                     "--quiet", "-o", "mcache")
    check("a cache for the FIFO model.py", rc == 0, err)
    os.remove("mcache/model.py")
    os.mkfifo("mcache/model.py")
    for what, args in [
        (".npy input", ["run", "m.py", "--params", "w1.safetensors", "--input",
                        "x=fifo.npy"]),
        ("--params", ["run", "m.py", "--params", "fifo.safetensors", "--input",
                      "x=x.npy"]),
        ("--weights", ["transform", "m.py", "--weights", "fifo.safetensors",
                       "-o", "fo"]),
        ("verify --weights", ["verify", "m.py", "--weights", "fifo.safetensors"]),
        ("a shard of an index", ["run", "m.py", "--params",
                                 "idx.safetensors.index.json", "--input", "x=x.npy"]),
        ("tensor-cache.json", ["run", "m.py", "--params", "fcache", "--input",
                               "x=x.npy"]),
        ("a directory as .npy", ["run", "m.py", "--params", "w1.safetensors",
                                 "--input", "x=fcache"]),
        ("the model.py of `rlx run DIR`", ["run", "mcache", "--input", "x=x.npy"]),
    ]:
        rc, _, err = rlx(*args, timeout=20)
        check("FIFO as %s: refused at once, exit 1" % what,
              rc == 1 and "not a regular file" in err, "exit %s: %s" % (rc, err))
    check("FIFOs: no output, no temporaries", not os.path.exists("fo") and
          temps(".") == [], temps("."))

    # --- 4: the checkpoint truncated while it is read ----------------------
    big = MODEL.replace(str(N), "2048")
    with open("big.py", "w") as f:
        f.write(big)
    rc, _, err = rlx("init-weights", "big.py", "-o", "big0.safetensors")
    check("big checkpoint", rc == 0, err)
    outcomes = []
    for attempt in range(4):
        subprocess.run(["cp", "big0.safetensors", "big.safetensors"])
        p = spawn("transform", "big.py", "--weights", "big.safetensors",
                  "--shard-size", "1", "--quiet", "-o", "tc")
        wait_for(lambda: mid_write(".", "tc") or p.poll() is not None)
        os.truncate("big.safetensors", 1 << 20)
        _, err = p.communicate(timeout=120)
        outcomes.append((p.returncode, err))
        if p.returncode == 1:
            break
    rc, err = outcomes[-1]
    print("# truncated during transform: %d attempt(s), last: exit %s, %s"
          % (len(outcomes), rc, err.strip().replace("\n", "\n# ")))
    check("truncated during transform: no signal death",
          all(c in (0, 1) for c, _ in outcomes), outcomes)
    check("truncated during transform: exit 1, an error naming the checkpoint",
          rc == 1 and "big.safetensors" in err and "truncated" in err, outcomes)
    check("truncated during transform: no cache, no temporaries",
          not os.path.exists("tc") and temps(".") == [], temps("."))
    outcomes = []
    rlx("lift", "big.py", "-o", "biglift.py")
    for attempt in range(4):
        subprocess.run(["cp", "big0.safetensors", "big.safetensors"])
        p = spawn("run", "biglift.py", "--func", "main_transform_params",
                  "--params", "big.safetensors", "-o", "tr")
        wait_for(lambda: mid_write(".", "tr") or p.poll() is not None)
        os.truncate("big.safetensors", 1 << 20)
        _, err = p.communicate(timeout=120)
        outcomes.append((p.returncode, err))
        if p.returncode == 1:
            break
    rc, err = outcomes[-1]
    print("# truncated during run: %d attempt(s), last: exit %s, %s"
          % (len(outcomes), rc, err.strip().replace("\n", "\n# ")))
    check("truncated during run: exit 1 naming the checkpoint, no signal death",
          rc == 1 and "big.safetensors" in err and
          all(c in (0, 1) for c, _ in outcomes), outcomes)
    check("truncated during run: no output, no temporaries",
          not os.path.exists("tr") and temps(".") == [], temps("."))
    for f in ("big.safetensors", "big0.safetensors"):
        os.remove(f)

    # --- 7, 8, 10: text that is not text, names that are not names --------
    head = b"@I.ir_module\nclass Module:\n    @R.function\n"
    with open("nul.py", "wb") as f:
        f.write(head + b"    def ma\0in(x: R.Tensor((2,), dtype=\"float32\")):\n")
    rc, _, err = rlx("check", "nul.py")
    check("NUL byte: located at FILE:LINE:COL", rc == 1 and
          err.startswith("nul.py:4:11: error:"), err)
    fn = (b'    def main(`p\xffq`: R.Tensor((2,), dtype="float32")) -> '
          b'R.Tensor((2,), dtype="float32"):\n'
          b'        R.func_attr({"k": "v"})\n        return `p\xffq`\n')
    with open("latin1.py", "wb") as f:
        f.write(head + fn)
    rc, out, err = rlx("dump", "latin1.py", "--format", "json")
    check("dump --format json, a name not UTF-8: a located error, no output",
          rc == 1 and err.startswith("latin1.py:4:16: error:") and out == "",
          "exit %s: %s" % (rc, err))
    with open("latin1s.py", "wb") as f:
        f.write(head + fn.replace(b"p\xffq", b"p").replace(b'"v"', b'"v\xe9"'))
    rc, out, err = rlx("dump", "latin1s.py", "--format", "json")
    check("dump --format json, a string not UTF-8: a located error",
          rc == 1 and err.startswith("latin1s.py:5:"), "exit %s: %s" % (rc, err))
    with open("utf8.py", "wb") as f:
        f.write(head + fn.replace(b"p\xffq", "pä".encode()).replace(
            b'"v"', '"v\x1bé"'.encode()))
    rc, out, err = rlx("dump", "utf8.py", "--format", "json")
    try:
        fj = json.loads(out)["functions"][0]
    except (ValueError, KeyError, IndexError):
        fj = {}
    check("dump --format json: UTF-8 names and control bytes kept exactly",
          rc == 0 and [p["name"] for p in fj.get("params", [])] == ["pä"] and
          fj.get("attrs", {}).get("k") == "v\x1bé", out + err)
    evil = "w\x1b]0;owned\x07\x1b[31m"
    write_safetensors("evil.safetensors", {
        k: np.zeros((N, N), np.float32) for k in "abcd"} | {
        evil: np.zeros((2,), np.float32)})
    for what, args in [
        ("run", ["run", "m.py", "--params", "evil.safetensors", "--input", "x=x.npy"]),
        ("transform", ["transform", "m.py", "--weights", "evil.safetensors",
                       "-o", "ev"]),
        ("verify", ["verify", "m.py", "--weights", "evil.safetensors"]),
    ]:
        rc, out, err = rlx(*args)
        check("%s: a tensor name with ESC and BEL is escaped in messages" % what,
              "\x1b" not in err + out and "\x07" not in err + out and
              "\\x1b]0;owned\\x07" in err, repr(err))
    subprocess.run(["rm", "-rf", "ev"])
    with open("esc.py", "w") as f:
        f.write("@I.ir_module\nclass Module:\n    @R.function\n"
                "    def main(x: R.Tensor((2,), dtype=\"float32\")):\n"
                "        R.func_attr({\"k\\x1b\": 1})\n"
                "        return x + 1\n")
    rc, _, err = rlx("check", "esc.py")
    check("a source line with ESC in an error: escaped, caret aligned",
          rc == 1 and "\x1b" not in err, repr(err))

    # --- 11: one extra-tensor policy: a warning naming them, --strict errs --
    write_safetensors("bn.safetensors", {
        k: np.zeros((N, N), np.float32) for k in "abcd"} | {
        "bn.num_batches_tracked": np.zeros((), np.int64)})
    for what, args in [
        ("run", ["run", "m.py", "--params", "bn.safetensors", "--input", "x=x.npy"]),
        ("transform", ["transform", "m.py", "--weights", "bn.safetensors", "-o", "bn"]),
        ("verify", ["verify", "m.py", "--weights", "bn.safetensors"]),
    ]:
        rc, _, err = rlx(*args)
        check("%s: an extra tensor is a warning naming it, exit 0" % what,
              rc == 0 and "bn.safetensors: warning: 1 tensor is not a weight of "
              "main" in err and "'bn.num_batches_tracked'" in err, err)
        subprocess.run(["rm", "-rf", "bn"])
        rc, _, err = rlx(*args, "--strict")
        check("%s --strict: an extra tensor is an error, exit 1" % what,
              rc == 1 and "bn.safetensors: error: 1 tensor is not a weight of "
              "main" in err and "(--strict): 'bn.num_batches_tracked'" in err and
              not os.path.exists("bn"), err)

    # --- 9: -o DIR/ ---------------------------------------------------------
    rc, _, err = rlx("run", "lifted.py", "--func", "main_transform_params",
                     "--params", "w1.safetensors", "-o", "tp/")
    check("-o tp/: a tuple result", rc == 0 and listdir("tp") ==
          ["0.npy", "1.npy", "2.npy", "3.npy", "fields.json"], err)
    rc, _, err = rlx("run", "m.py", "--params", "w1.safetensors", "--input",
                     "x=x.npy", "-o", "td//")
    check("-o td//: a tensor result goes to td/0.npy", rc == 0 and
          listdir("td") == ["0.npy"], err)
    check("-o DIR/: no temporaries", temps(".") == [], temps("."))

    # --- 10: -o onto a device, a FIFO, a socket, /dev/stdout (issue 46) ---
    np.save("x.npy", np.ones((1, N), np.float32))
    run_args = ["run", "m.py", "--params", "w1.safetensors", "--input", "x=x.npy"]
    rc, _, err = rlx(*run_args, "-o", "want.npy")
    with open("want.npy", "rb") as f:
        want = f.read()
    os.mkdir("nodes")
    null = os.stat("/dev/null").st_rdev
    try:  # a copy of /dev/null (we run as root; otherwise not tested)
        os.mknod("nodes/null", 0o666 | stat.S_IFCHR, null)
    except PermissionError:
        pass
    if os.path.exists("nodes/null"):
        for what, args in [("run", run_args), ("lift", ["lift", "m.py"]),
                           ("init-weights", ["init-weights", "m.py"])]:
            rc, _, err = rlx(*args, "-o", "nodes/null")
            check("-o onto a char device (%s): written into, the node "
                  "survives" % what, rc == 0 and
                  stat.S_ISCHR(os.lstat("nodes/null").st_mode) and
                  listdir("nodes") == ["null"], err)
    os.mkfifo("nodes/fifo")
    got = []
    reader = threading.Thread(
        target=lambda: got.append(open("nodes/fifo", "rb").read()),
        daemon=True)
    reader.start()
    rc, _, err = rlx(*run_args, "-o", "nodes/fifo")
    reader.join(timeout=60)
    if reader.is_alive() and stat.S_ISFIFO(os.lstat("nodes/fifo").st_mode):
        os.close(os.open("nodes/fifo", os.O_WRONLY))  # the reader's EOF
    check("-o onto a FIFO: streamed to its reader, the FIFO survives",
          rc == 0 and got == [want] and
          stat.S_ISFIFO(os.lstat("nodes/fifo").st_mode), err)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind("nodes/sock")
    rc, _, err = rlx(*run_args, "-o", "nodes/sock")
    check("-o onto a socket: refused (exit 1), the socket survives",
          rc == 1 and "is a socket" in err and
          stat.S_ISSOCK(os.lstat("nodes/sock").st_mode), err)
    sock.close()
    check("-o onto nodes: no temporaries", temps("nodes") == [],
          temps("nodes"))
    # /dev/stdout is the link /proc/self/fd/1; a private copy of it, so that
    # an rlx that replaced links would not replace the system's
    os.symlink("/proc/self/fd/1", "nodes/stdout")
    p = subprocess.run([RLX, *run_args, "-o", "nodes/stdout"],
                       capture_output=True, timeout=120)
    check("-o /dev/stdout on a pipe: the .npy on standard output",
          p.returncode == 0 and p.stdout == want, p.stderr)
    with open("stdout.npy", "wb") as f:
        p = subprocess.run([RLX, *run_args, "-o", "nodes/stdout"], stdout=f,
                           stderr=subprocess.PIPE, timeout=120)
    check("-o /dev/stdout on a file: the .npy in that file, the link stays",
          p.returncode == 0 and read_bytes("stdout.npy") == want and
          os.path.islink("nodes/stdout"), p.stderr)

    subprocess.run(["rm", "-rf", tmp])


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


main()
print("1..%d" % len(results))
for i, (name, ok, detail, t) in enumerate(results, 1):
    print("%s %d - %s (%.1f s)" % ("ok" if ok else "not ok", i, name, t))
    if not ok and detail:
        for line in str(detail).splitlines():
            print("# " + line)
sys.exit(0 if all(r[1] for r in results) else 1)
