#!/usr/bin/python3
"""code_cache.py — the code cache (runtime/codegen/jit.c) trusts only what can be
vouched for (docs/security.md):
- a fresh cache folder is 0700 and its objects 0600;
- an object swapped in from another model (same kernel names, another
  shape), one with another model's kernels, one for another machine, and a
  truncated one — each given a header that passes its checksum, as anyone
  could write — is a miss: the run compiles, gives the right answer, and
  replaces the object, so that the next run hits;
- a group-writable folder, a folder owned by another user and an object
  owned by another user are not read (nor written): the run compiles in
  memory, warns naming the folder, and answers right;
- a verified-shard stamp forged by another user proves nothing.
Runs as root for the foreign owner (chown to another uid); skipped otherwise.
NumPy checks every answer.
"""
import ctypes
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
from rlxtest import RLX, Tap, np, write_safetensors  # noqa: E402
from run_jit_cache import STAMP_MODEL  # noqa: E402

XXH = ctypes.CDLL("libxxhash.so.0")
XXH.XXH3_64bits.restype = ctypes.c_uint64
XXH.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

OTHER_UID = 4242


def model(op, n):
    return '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, %d), dtype="float32"), y: R.Tensor((3, %d), dtype="float32")):
        z = R.%s(x, y)
        return z
''' % (n, n, op)


def jit_line(stderr):
    m = re.search(r"jit .*\((\d+) modules? compiled, (\d+) from the code cache\)",
                  stderr)
    return (int(m.group(1)), int(m.group(2))) if m else None


def header(data):
    """(meta text, object) of a cache file."""
    nobj, _, nmeta = struct.unpack("<QQQ", data[8:32])
    return data[32:32 + nmeta], data[32 + nmeta:32 + nmeta + nobj]


def forge(meta, obj):
    """A cache file for meta and obj whose checksum passes."""
    h = XXH.XXH3_64bits(meta + obj, len(meta + obj))
    return b"RLXJITO2" + struct.pack("<QQQ", len(obj), h, len(meta)) + meta + obj


class Case:
    def __init__(self, d, name, op, n):
        self.d, self.op, self.n = d, op, n
        self.m = os.path.join(d, name + ".py")
        with open(self.m, "w") as f:
            f.write(model(op, n))
        rng = np.random.default_rng(n)
        self.x = rng.standard_normal((3, n)).astype(np.float32)
        self.y = rng.standard_normal((3, n)).astype(np.float32)
        self.xp, self.yp = self.m + ".x.npy", self.m + ".y.npy"
        np.save(self.xp, self.x)
        np.save(self.yp, self.y)
        self.out = self.m + ".out.npy"

    def run(self, xdg):
        env = dict(os.environ, XDG_CACHE_HOME=xdg)
        env.pop("RLX_NO_CACHE", None)
        if os.path.exists(self.out):
            os.remove(self.out)
        p = subprocess.run([RLX, "run", self.m, "--input", "x=" + self.xp,
                            "--input", "y=" + self.yp, "-o", self.out, "--time"],
                           env=env, capture_output=True, text=True, timeout=300)
        want = self.x + self.y if self.op == "add" else self.x - self.y
        right = p.returncode == 0 and os.path.exists(self.out) and \
            np.array_equal(np.load(self.out), want)
        return p, right


def objects(xdg):
    d = os.path.join(xdg, "rlx")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".o"))


def main():
    t = Tap()
    with tempfile.TemporaryDirectory() as d:
        a = Case(d, "a", "add", 32)
        b = Case(d, "b", "add", 256)
        s = Case(d, "s", "subtract", 256)
        xa, xb, xs = (os.path.join(d, "xdg-" + n) for n in "abs")
        p, ok = a.run(xa)
        t.ok(ok and jit_line(p.stderr) == (1, 0), "model a compiles", p.stderr)
        p, ok = s.run(xs)
        t.ok(ok, "model s compiles", p.stderr)
        p, ok = b.run(xb)
        t.ok(ok, "model b compiles", p.stderr)
        cdir = os.path.join(xb, "rlx")
        t.ok(os.stat(cdir).st_mode & 0o777 == 0o700, "the cache folder is 0700",
             oct(os.stat(cdir).st_mode))
        [ob] = objects(xb)
        t.ok(os.stat(ob).st_mode & 0o777 == 0o600, "an object is 0600",
             oct(os.stat(ob).st_mode))
        good = open(ob, "rb").read()
        meta_b, obj_b = header(good)
        [oa] = objects(xa)
        [os_] = objects(xs)
        _, obj_s = header(open(os_, "rb").read())

        foreign = bytearray(obj_b)
        foreign[18:20] = struct.pack("<H", 183)  # EM_AARCH64
        bad = [
            # a's object file as it is, under b's name: its key is a's
            ("another model's object under this key", open(oa, "rb").read()),
            ("another model's kernels (none of b's names)", forge(meta_b, obj_s)),
            ("an object for another machine", forge(meta_b, bytes(foreign))),
            ("a truncated object with a header that passes",
             forge(meta_b, obj_b[:len(obj_b) // 2])),
        ]
        for what, data in bad:
            with open(ob, "wb") as f:
                f.write(data)
            p, ok = b.run(xb)
            t.ok(ok and jit_line(p.stderr) == (1, 0),
                 "%s: a miss, compiled, the right answer" % what, p.stderr)
            p, ok = b.run(xb)
            t.ok(ok and jit_line(p.stderr) == (0, 1) and open(ob, "rb").read() == good,
                 "%s: replaced, the next run hits" % what, p.stderr)

        # folders and objects others can write are not used
        xdg = os.path.join(d, "xdg-trust")
        shutil.copytree(xb, xdg)
        cdir = os.path.join(xdg, "rlx")
        [obj] = objects(xdg)
        p, ok = b.run(xdg)
        t.ok(ok and jit_line(p.stderr) == (0, 1), "a copied cache of one's own hits",
             p.stderr)
        os.chmod(cdir, 0o775)
        p, ok = b.run(xdg)
        t.ok(ok and jit_line(p.stderr) == (1, 0) and "warning" in p.stderr and
             cdir in p.stderr and "chmod go-w" in p.stderr,
             "a group-writable cache folder: not read, a warning naming it and the fix",
             p.stderr)
        t.ok(p.stderr.count("code cache is not used") == 1, "warned once", p.stderr)
        os.chmod(cdir, 0o700)
        if os.geteuid() != 0:
            t.skip("a cache folder owned by another user", "not root")
            t.skip("an object owned by another user", "not root")
            t.skip("a stamp forged by another user", "not root")
        else:
            os.chown(cdir, OTHER_UID, OTHER_UID)
            os.remove(obj)
            p, ok = b.run(xdg)
            t.ok(ok and jit_line(p.stderr) == (1, 0) and cdir in p.stderr and
                 "uid %d" % OTHER_UID in p.stderr and not os.path.exists(obj),
                 "a cache folder owned by another user: neither read nor written",
                 p.stderr)
            os.chown(cdir, 0, 0)
            p, ok = b.run(xdg)
            t.ok(ok and jit_line(p.stderr) == (1, 0) and os.path.exists(obj),
                 "one's own folder again: written", p.stderr)
            os.chown(obj, OTHER_UID, OTHER_UID)
            p, ok = b.run(xdg)
            t.ok(ok and jit_line(p.stderr) == (1, 0),
                 "an object owned by another user is a miss", p.stderr)
            t.ok(os.stat(obj).st_uid == 0, "and is replaced by one's own",
                 os.stat(obj).st_uid)
            stamps(t, d)
    t.done()




def stamps(t, d):
    """A shard changed in place with a stamp for its new state written by
    another user, or in a folder others can write: caught by its hash."""
    m = os.path.join(d, "st.py")
    with open(m, "w") as f:
        f.write(STAMP_MODEL)
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    x = rng.standard_normal((2, 16)).astype(np.float32)
    write_safetensors(os.path.join(d, "st.safetensors"), {"w": w})
    np.save(os.path.join(d, "stx.npy"), x)
    xdg = os.path.join(d, "xdg-stamps")
    env = dict(os.environ, XDG_CACHE_HOME=xdg)
    env.pop("RLX_NO_CACHE", None)
    cache = os.path.join(d, "stcache")
    p = subprocess.run([RLX, "transform", m, "--weights",
                        os.path.join(d, "st.safetensors"), "--quiet", "-o", cache],
                       env=env, capture_output=True, text=True)
    t.ok(p.returncode == 0, "stamps: transform", p.stderr)
    time.sleep(2.5)  # stamps are only written for files older than 2 s
    run = [RLX, "run", cache, "--input", "x=" + os.path.join(d, "stx.npy"), "-o",
           os.path.join(d, "sty.npy")]
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    vd = os.path.join(xdg, "rlx", "verified")
    st = sorted(os.listdir(vd)) if os.path.isdir(vd) else []
    t.ok(p.returncode == 0 and len(st) == 1, "stamps: a run leaves a stamp",
         (p.stderr, st))
    t.ok(os.stat(vd).st_mode & 0o777 == 0o700 and
         os.stat(os.path.join(vd, st[0])).st_mode & 0o777 == 0o600,
         "stamps: folder 0700, stamp 0600")
    stamp = os.path.join(vd, st[0])
    old = open(stamp).read().split()
    shard = [os.path.join(cache, f) for f in os.listdir(cache) if f.endswith(".bin")][0]
    data = bytearray(open(shard, "rb").read())
    data[len(data) // 2] ^= 0x5A
    with open(shard, "r+b") as f:
        f.write(data)
    s = os.stat(shard)
    forged = "rlx verified 1 %x %x %d %d.%09d %d.%09d %s\n" % (
        s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns // 10**9, s.st_mtime_ns % 10**9,
        s.st_ctime_ns // 10**9, s.st_ctime_ns % 10**9, old[-1])
    with open(stamp, "w") as f:
        f.write(forged)
    os.chmod(stamp, 0o600)
    os.chown(stamp, OTHER_UID, OTHER_UID)
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    t.ok(p.returncode == 1 and "does not match the rlxHash" in p.stderr,
         "stamps: a stamp written by another user proves nothing", p.stderr)
    os.chown(stamp, 0, 0)
    os.chmod(vd, 0o777)
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    t.ok(p.returncode == 1 and "does not match the rlxHash" in p.stderr,
         "stamps: a stamp in a folder everyone can write proves nothing", p.stderr)
    os.chmod(vd, 0o700)
    p = subprocess.run(run, env=env, capture_output=True, text=True)
    t.ok(p.returncode == 0, "stamps: (the forged stamp, trusted, is believed: "
         "the owner check is what defends it)", p.stderr)


if __name__ == "__main__":
    main()
