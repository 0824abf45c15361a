#!/usr/bin/python3
"""limits.py — the limits of the file system and of what is read
(docs/security.md):
- under a file-size limit (`ulimit -f`) `transform` and `run -o` fail with
  an error naming the file (EFBIG), exit 1, and leave no temporary — not
  death by SIGXFSZ;
- transforms killed (SIGKILL) at random moments, while writing and while
  removing the old cache, leave debris that the next run writing the same
  target sweeps: afterwards the folder holds the cache and nothing else;
- `rlx check /dev/zero` (and model text on a pipe) is read within a stated
  cap and refused past it, not until memory runs out;
- a diagnostic on a 20 MB line quotes a window around the column, not the
  line; a file of 30 MB of spaces is one short error.
Every file is generated here.
"""
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from rlxtest import RLX, Tap, np, write_safetensors  # noqa: E402

MODEL = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 256), dtype="float32"), w: R.Tensor((512, 256), dtype="float32")):
        R.func_attr({"num_input": 1})
        wt = R.permute_dims(w, axes=None)
        y = R.matmul(x, wt, out_dtype="void")
        return y
'''


def sanitized():
    """Whether RLX is the ASan build (make test's): ASan reserves terabytes
    of shadow memory at start-up, so an address-space limit kills it before
    main. The cap on input is then tested without one."""
    out = subprocess.run(["ldd", RLX], capture_output=True, text=True).stdout
    return "libasan" in out


def limited(fsize=None, mem=None):
    if mem is not None and sanitized():
        mem = None

    def f():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if mem is not None:
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    return f


def debris(d, name):
    return sorted(f for f in os.listdir(d) if f.startswith(name + ".rlx-tmp."))


def main():
    t = Tap()
    with tempfile.TemporaryDirectory() as d:
        def p(*a):
            return os.path.join(d, *a)
        with open(p("m.py"), "w") as f:
            f.write(MODEL)
        rng = np.random.default_rng(11)
        for i in range(2):
            write_safetensors(p("w%d.safetensors" % i), {
                "w": rng.standard_normal((512, 256)).astype(np.float32)})
        np.save(p("x.npy"), rng.standard_normal((2, 256)).astype(np.float32))
        out = p("out")
        os.mkdir(out)

        def transform(i, target, **kw):
            return subprocess.Popen(
                [RLX, "transform", p("m.py"), "--weights", p("w%d.safetensors" % i),
                 "--quiet", "--shard-size", "1", "-o", target],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

        # a file-size limit of 64 KiB: the 512 KiB shard cannot be written
        q = transform(0, os.path.join(out, "cache"), preexec_fn=limited(fsize=65536))
        _, err = q.communicate(timeout=300)
        t.ok(q.returncode == 1 and "File too large" in err and "cache" in err,
             "transform over a file-size limit: an error naming the file, exit 1 "
             "(not SIGXFSZ)", (q.returncode, err))
        t.ok(os.listdir(out) == [], "transform over a file-size limit: no "
             "temporary left", os.listdir(out))
        q = subprocess.run([RLX, "transform", p("m.py"), "--weights",
                            p("w0.safetensors"), "--quiet", "-o", p("c0")],
                           capture_output=True, text=True)
        t.ok(q.returncode == 0, "transform", q.stderr)
        q = subprocess.run([RLX, "run", p("c0"), "--input", "x=" + p("x.npy"),
                            "-o", os.path.join(out, "y.npy")], capture_output=True,
                           text=True, preexec_fn=limited(fsize=1024))
        t.ok(q.returncode == 1 and "File too large" in q.stderr and "y.npy" in q.stderr
             and os.listdir(out) == [],
             "run -o over a file-size limit: an error naming the file, exit 1, "
             "no temporary", (q.returncode, q.stderr, os.listdir(out)))

        # a full disk: a 256 KiB tmpfs (root only; skipped elsewhere)
        full = p("full")
        os.mkdir(full)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k",
                                  "tmpfs", full], capture_output=True).returncode == 0
        if not mounted:
            t.skip("a full disk", "cannot mount a small tmpfs (needs root)")
        else:
            try:
                for what, args, name in [
                    ("transform", ["transform", p("m.py"), "--weights",
                                   p("w0.safetensors"), "--quiet", "-o",
                                   os.path.join(full, "cache")], "cache"),
                    ("init-weights", ["init-weights", p("m.py"), "-o",
                                      os.path.join(full, "w.safetensors")],
                     "w.safetensors"),
                    ("run -o", ["run", p("c0"), "--input", "x=" + p("x.npy"),
                                "-o", os.path.join(full, "big", "")], "big")]:
                    if what == "run -o":
                        # a result larger than the room: fill it first
                        with open(os.path.join(full, "filler"), "wb") as f:
                            try:
                                f.write(b"\0" * (256 << 10))
                            except OSError:
                                pass
                    q = subprocess.run([RLX] + args, capture_output=True,
                                       text=True, timeout=300)
                    left = [f for f in os.listdir(full) if f != "filler"]
                    t.ok(q.returncode == 1 and "No space left on device" in q.stderr
                         and name in q.stderr and not left,
                         "%s onto a full disk: an error naming the file "
                         "(ENOSPC), exit 1, nothing left" % what,
                         (q.returncode, q.stderr, left))
            finally:
                if subprocess.run(["umount", full]).returncode:
                    subprocess.run(["umount", "-l", full])  # busy: detach it

        # the kill loop: transforms killed at random moments, alternating
        # weights so that each one replaces the cache
        target = os.path.join(out, "cache")
        for i in range(2):
            write_safetensors(p("big%d.safetensors" % i), {
                "w": rng.standard_normal((4096, 1024)).astype(np.float32)})

        def big(i):
            return subprocess.Popen(
                [RLX, "transform", p("m2.py"), "--weights",
                 p("big%d.safetensors" % i), "--quiet", "--shard-size", "1",
                 "-o", target],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with open(p("m2.py"), "w") as f:
            f.write(MODEL.replace("512, 256", "4096, 1024").replace("2, 256", "2, 1024"))
        t0 = time.time()
        q = big(0)
        _, err = q.communicate(timeout=300)
        span = time.time() - t0
        t.ok(q.returncode == 0, "the kill loop's first cache (%.2f s)" % span, err)
        random.seed(int(os.environ.get("RLX_KILL_SEED", "47")))
        left = set()
        for k in range(KILLS):
            q = big(1 - k % 2)
            time.sleep(random.uniform(0.0, span * 1.2))
            q.send_signal(signal.SIGKILL)
            q.communicate(timeout=300)
            left.update(debris(out, "cache"))
        t.ok(True, "%d transforms killed; %d left debris behind" % (KILLS, len(left)))
        # kills again until one leaves debris, then a run that (most
        # likely) finds the cache up to date: it sweeps too
        q = big(0)
        q.communicate(timeout=300)
        for k in range(KILLS):
            q = big(1)
            time.sleep(random.uniform(0.0, span * 0.9))
            q.send_signal(signal.SIGKILL)
            q.communicate(timeout=300)
            if debris(out, "cache"):
                break
        had = debris(out, "cache")
        q = big(0)
        _, err = q.communicate(timeout=300)
        t.ok(q.returncode == 0 and os.listdir(out) == ["cache"],
             "after the kills, a clean run leaves the cache and nothing else "
             "(%d left before it)" % len(had), (err, os.listdir(out)))

        # unbounded input: /dev/zero and a pipe of model text
        q = subprocess.run([RLX, "check", "/dev/zero"], capture_output=True,
                           text=True, timeout=300, preexec_fn=limited(mem=2 << 30))
        t.ok(q.returncode == 1 and "/dev/zero" in q.stderr and "limit" in q.stderr,
             "rlx check /dev/zero: refused past the cap, exit 1", (q.returncode,
                                                                 q.stderr[:500]))
        q = subprocess.run(["/bin/sh", "-c", "head -c 300000000 /dev/zero | tr '\\0' ' ' | %s check -" % RLX],
                           capture_output=True, text=True, timeout=300,
                           preexec_fn=limited(mem=2 << 30))
        t.ok(q.returncode == 1 and "limit" in q.stderr,
             "300 MB of model text on a pipe: refused past the cap", q.stderr[:500])

        # long lines
        with open(p("long.py"), "w") as f:
            f.write("@I.ir_module\nclass Module:\n    x = " + "a" * 20000000 +
                    " $ " + "b" * 100 + "\n")
        q = subprocess.run([RLX, "check", p("long.py")], capture_output=True,
                           text=True, timeout=600)
        lines = q.stderr.splitlines()
        caret = [ln for ln in lines if ln.strip().endswith("^")]
        quoted = [ln for ln in lines if "$" in ln and "|" in ln]
        t.ok(q.returncode == 1 and len(q.stderr) < 2000 and caret and quoted and
             quoted[0].index("$") == caret[0].index("^"),
             "a 20 MB line: a window around the column, the caret under it "
             "(%d bytes of message)" % len(q.stderr), q.stderr[:1500])
        with open(p("spaces.py"), "w") as f:
            f.write(" " * 30000000)
        q = subprocess.run([RLX, "check", p("spaces.py")], capture_output=True,
                           text=True, timeout=600)
        t.ok(q.returncode == 1 and len(q.stderr) < 2000,
             "30 MB of spaces: one short error", q.stderr[:1500])
    t.done()


KILLS = int(os.environ.get("RLX_KILLS", "24"))

if __name__ == "__main__":
    main()
