#!/usr/bin/python3
"""run_jit_cache.py — the JIT's code cache (runtime/codegen/jit.c) through `rlx run`:
a first run compiles and writes one object file, a second run loads it
(`--time` says so) and gives the same bytes; a corrupt or truncated file is
ignored and rewritten, a FIFO in its place is a miss (not a hang);
RLX_NO_CACHE=1 and --no-cache neither read nor write;
four runs at once on an empty cache all succeed and leave whole files only.
Verified-shard stamps (runtime/io/tensor_cache_read.c): a run on a tensor cache
older than 2 s leaves a stamp per shard, a second run keeps it, a FIFO for
a stamp is no stamp (not a hang), and a shard changed in place (same size)
is still caught by its hash.
Every run has its own XDG_CACHE_HOME under a temporary directory, never the
real ~/.cache. NumPy checks the result.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import RLX, Tap, np  # noqa: E402

MODEL = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 40), dtype="float32"), w: R.Tensor((24, 40), dtype="float32")):
        wt = R.permute_dims(w, axes=None)
        y = R.matmul(x, wt, out_dtype="void")
        z = R.nn.silu(y)
        return z
'''


def run(d, xdg, out, *extra, env_extra=None, timeout=300):
    env = dict(os.environ, XDG_CACHE_HOME=xdg)
    env.pop("RLX_NO_CACHE", None)
    env.update(env_extra or {})
    p = subprocess.run([RLX, "run", os.path.join(d, "m.py"), "--input",
                        "x=" + os.path.join(d, "x.npy"), "--input",
                        "w=" + os.path.join(d, "w.npy"), "-o", out, "--time"]
                       + list(extra), env=env, capture_output=True, text=True,
                       timeout=timeout)
    return p


def hangs(f, *a, **kw):
    """f(*a, **kw), or None when it did not end within its timeout."""
    try:
        return f(*a, **kw)
    except subprocess.TimeoutExpired:
        return None


def objects(xdg):
    d = os.path.join(xdg, "rlx")
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def jit_line(stderr):
    m = re.search(r"jit .*\((\d+) modules? compiled, (\d+) from the code cache\)", stderr)
    return (int(m.group(1)), int(m.group(2))) if m else None


def main():
    t = Tap()
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 40)).astype(np.float32)
    w = rng.standard_normal((24, 40)).astype(np.float32)
    y = x.astype(np.float64) @ w.T.astype(np.float64)
    want = y / (1 + np.exp(-y))
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "m.py"), "w") as f:
            f.write(MODEL)
        np.save(os.path.join(d, "x.npy"), x)
        np.save(os.path.join(d, "w.npy"), w)
        xdg = os.path.join(d, "xdg")

        def out(n):
            return os.path.join(d, "out%s.npy" % n)

        p = run(d, xdg, out(1))
        t.ok(p.returncode == 0, "first run", p.stderr)
        t.ok(jit_line(p.stderr) == (1, 0), "first run compiles", p.stderr)
        objs = objects(xdg)
        t.ok(len(objs) == 1 and objs[0].endswith(".o"), "one object file written",
             objs)
        got = np.load(out(1))
        t.ok(np.allclose(got, want, rtol=1e-5, atol=1e-5), "values against NumPy")

        p = run(d, xdg, out(2))
        t.ok(p.returncode == 0 and jit_line(p.stderr) == (0, 1),
             "second run loads the cached object", p.stderr)
        t.ok(open(out(1), "rb").read() == open(out(2), "rb").read(),
             "the same bytes from cached code")

        # corrupt: a flipped byte in the object, then a truncated file
        for what in ("flipped byte", "truncated"):
            data = bytearray(open(objs[0], "rb").read())
            if what == "truncated":
                data = data[: len(data) // 2]
            else:
                data[len(data) // 2] ^= 0xFF
            with open(objs[0], "wb") as f:
                f.write(data)
            p = run(d, xdg, out(3))
            t.ok(p.returncode == 0 and jit_line(p.stderr) == (1, 0),
                 "a %s file is ignored and compiled anew" % what, p.stderr)
            t.ok(open(out(1), "rb").read() == open(out(3), "rb").read(),
                 "%s: the same result" % what)
            p = run(d, xdg, out(3))
            t.ok(jit_line(p.stderr) == (0, 1), "%s: rewritten whole" % what,
                 p.stderr)

        # a FIFO where the object was: a miss at once (no open() waiting
        # for a writer), then replaced by the object
        os.remove(objs[0])
        os.mkfifo(objs[0])
        p = hangs(run, d, xdg, out(3), timeout=60)
        t.ok(p is not None and p.returncode == 0 and jit_line(p.stderr) == (1, 0),
             "a FIFO in the cache is a miss, not a hang", p and p.stderr)
        p = run(d, xdg, out(3))
        t.ok(jit_line(p.stderr) == (0, 1) and os.path.isfile(objs[0]),
             "a FIFO in the cache: replaced by the object", p.stderr)

        # off: neither read nor written
        xdg2 = os.path.join(d, "xdg2")
        p = run(d, xdg2, out(4), env_extra={"RLX_NO_CACHE": "1"})
        t.ok(p.returncode == 0 and jit_line(p.stderr) == (1, 0) and not objects(xdg2),
             "RLX_NO_CACHE=1 writes nothing", p.stderr)
        p = run(d, xdg, out(4), "--no-cache")
        t.ok(p.returncode == 0 and jit_line(p.stderr) == (1, 0),
             "--no-cache compiles although the cache has the object", p.stderr)

        # concurrent runs on an empty cache
        xdg3 = os.path.join(d, "xdg3")
        env = dict(os.environ, XDG_CACHE_HOME=xdg3)
        env.pop("RLX_NO_CACHE", None)
        procs = [subprocess.Popen([RLX, "run", os.path.join(d, "m.py"), "--input",
                                   "x=" + os.path.join(d, "x.npy"), "--input",
                                   "w=" + os.path.join(d, "w.npy"), "-o", out("c%d" % i)],
                                  env=env, stderr=subprocess.PIPE) for i in range(4)]
        codes = [p.wait(timeout=300) for p in procs]
        for p in procs:
            p.stderr.close()
        t.ok(codes == [0, 0, 0, 0], "four runs at once", codes)
        t.ok(all(open(out("c%d" % i), "rb").read() == open(out(1), "rb").read()
                 for i in range(4)), "four runs at once: the same result")
        t.ok([os.path.basename(o) for o in objects(xdg3)] ==
             [os.path.basename(objs[0])], "four runs at once: one whole file, no temporaries",
             objects(xdg3))
        p = run(d, xdg3, out(5))
        t.ok(jit_line(p.stderr) == (0, 1), "four runs at once: the file loads", p.stderr)
        stamps(t, d)
    t.done()


STAMP_MODEL = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")):
        R.func_attr({"num_input": 1})
        wt = R.permute_dims(w, axes=None)
        y = R.matmul(x, wt, out_dtype="void")
        return y
'''


def stamps(t, d):
    import time
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from rlxtest import write_safetensors
    m = os.path.join(d, "s.py")
    with open(m, "w") as f:
        f.write(STAMP_MODEL)
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    x = rng.standard_normal((2, 16)).astype(np.float32)
    write_safetensors(os.path.join(d, "s.safetensors"), {"w": w})
    np.save(os.path.join(d, "sx.npy"), x)
    xdg = os.path.join(d, "xdg-stamps")
    env = dict(os.environ, XDG_CACHE_HOME=xdg)
    env.pop("RLX_NO_CACHE", None)
    cache = os.path.join(d, "scache")
    p = subprocess.run([RLX, "transform", m, "--weights", os.path.join(d, "s.safetensors"),
                        "--quiet", "-o", cache], env=env, capture_output=True, text=True)
    t.ok(p.returncode == 0, "stamps: transform", p.stderr)
    time.sleep(2.5)  # stamps are only written for files older than 2 s
    run = [RLX, "run", cache, "--input", "x=" + os.path.join(d, "sx.npy"), "-o",
           os.path.join(d, "sy.npy")]
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    vd = os.path.join(xdg, "rlx", "verified")
    st = sorted(os.listdir(vd)) if os.path.isdir(vd) else []
    t.ok(p.returncode == 0 and len(st) >= 1, "stamps: a run leaves a stamp", (p.stderr, st))
    t.ok(np.allclose(np.load(os.path.join(d, "sy.npy")), x @ w.T, rtol=1e-5, atol=1e-5),
         "stamps: values against NumPy")
    before = {f: open(os.path.join(vd, f)).read() for f in st}
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    after = {f: open(os.path.join(vd, f)).read() for f in sorted(os.listdir(vd))}
    t.ok(p.returncode == 0 and before == after, "stamps: a second run keeps them", p.stderr)
    # a FIFO where a stamp was: no stamp (the hash is checked), no hang
    os.remove(os.path.join(vd, st[0]))
    os.mkfifo(os.path.join(vd, st[0]))
    p = hangs(subprocess.run, run, env=env, capture_output=True, text=True, timeout=60)
    t.ok(p is not None and p.returncode == 0, "stamps: a FIFO for a stamp is no stamp, not a hang",
         p and p.stderr)
    shards = [f for f in os.listdir(cache) if f.endswith(".bin")]
    for sh in shards:
        path = os.path.join(cache, sh)
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0x5A
        with open(path, "r+b") as f:
            f.write(data)
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    t.ok(p.returncode == 1 and "does not match the rlxHash" in p.stderr,
         "stamps: a shard changed in place is caught by its hash", p.stderr)


if __name__ == "__main__":
    main()
