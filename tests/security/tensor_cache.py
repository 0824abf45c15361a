#!/usr/bin/python3
"""tensor_cache.py — a tensor cache is data from anyone (docs/security.md),
never a list of files to delete nor a partial answer:
- a planted record (a shard "dataPath" naming the user's notes.txt, an
  "rlxFiles" entry naming it) does not make `transform -o DIR` delete it:
  the transform is refused and the file kept; rlx's own cache is replaced;
- a cache pre-sharded with --tensor-parallel 2, run by one process without
  mpirun nor --rank: refused, naming `mpirun -np 2` and `--rank K`;
- readers during replacements see the old cache or the new one, whole:
  every run succeeds and answers one of the two caches' answers;
- 20,000 extra records: one warning, a count and a few names.
NumPy is the oracle. Every file is generated here.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from rlxtest import RLX, Tap, np, write_safetensors  # noqa: E402
from run_tp import MLPB  # noqa: E402

MODEL = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")):
        R.func_attr({"num_input": 1})
        wt = R.permute_dims(w, axes=None)
        y = R.matmul(x, wt, out_dtype="void")
        return y
'''


def rlx(*args, timeout=300):
    p = subprocess.run([RLX] + [str(a) for a in args], capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stderr


def main():
    t = Tap()
    with tempfile.TemporaryDirectory() as d:
        def p(*a):
            return os.path.join(d, *a)
        with open(p("m.py"), "w") as f:
            f.write(MODEL)
        rng = np.random.default_rng(5)
        ws = [rng.standard_normal((8, 16)).astype(np.float32) for _ in range(2)]
        x = rng.standard_normal((2, 16)).astype(np.float32)
        np.save(p("x.npy"), x)
        for i, w in enumerate(ws):
            write_safetensors(p("w%d.safetensors" % i), {"w": w})
        cache = p("cache")

        def transform(i, out=cache, model="m.py"):
            return rlx("transform", p(model), "--weights",
                       p("w%d.safetensors" % i), "--quiet", "-o", out)

        # another model of the same answer: its cache holds w as given
        # (x @ w with w = ws[1].T), where the first one's holds a lifted
        # transpose; a reader mixing one's model.py with the other's
        # records would fail
        with open(p("m2.py"), "w") as f:
            f.write(MODEL.replace("w: R.Tensor((8, 16)", "w: R.Tensor((16, 8)")
                    .replace("wt = R.permute_dims(w, axes=None)", "wt = w"))
        write_safetensors(p("w2.safetensors"), {"w": np.ascontiguousarray(ws[1].T)})

        st, err = transform(0)
        t.ok(st == 0, "transform", err)
        st, err = transform(1)
        t.ok(st == 0, "transform over rlx's own cache replaces it", err)

        # planted records naming the user's file
        js = p("cache", "tensor-cache.json")
        good = json.load(open(js))
        notes = p("cache", "notes.txt")
        for what in ("a shard's dataPath", "an rlxFiles entry",
                     "a shard's dataPath with the file's own size"):
            with open(notes, "w") as f:
                f.write("the user's notes\n")
            planted = json.loads(json.dumps(good))
            if what.startswith("a shard"):
                shard = dict(planted["records"][0], dataPath="notes.txt",
                             records=[])
                if "own size" in what:
                    shard["nbytes"] = os.path.getsize(notes)
                planted["records"].append(shard)
            else:
                planted["metadata"].setdefault("rlxFiles", {})["notes.txt"] = {
                    "nbytes": 1, "rlxHash": "0000000000000000"}
            with open(js, "w") as f:
                json.dump(planted, f)
            st, err = transform(0)
            t.ok(st == 1 and "notes.txt" in err and os.path.exists(notes),
                 "a planted record (%s) naming a user file: refused, the file "
                 "kept" % what, err)
        os.remove(notes)
        with open(js, "w") as f:
            json.dump(good, f)
        st, err = transform(0)
        t.ok(st == 0 and sorted(os.listdir(cache)) ==
             sorted(["tensor-cache.json", "model.py", "params_shard_0.bin"]),
             "the user's file gone (by the user): replaced again",
             (err, os.listdir(cache)))
        # a shard listed by name but changed: not provably the cache's own
        with open(p("cache", "params_shard_0.bin"), "r+b") as f:
            f.seek(3)
            f.write(b"\x55")
        st, err = transform(1)
        t.ok(st == 1 and "params_shard_0.bin" in err,
             "a listed shard whose hash differs is not deleted", err)

        # readers during replacements
        caches = []
        for i in range(2):
            st, err = transform(i, p("c%d" % i))
            caches.append(p("c%d" % i))
        answers = [x @ w.T for w in ws]
        live = p("live")
        st, err = transform(0, live)
        t.ok(st == 0, "readers: the first cache", err)
        wfail = []

        def replace():
            i = 1
            while time.time() < end:
                # the two models in turn (the second of w1's answer)
                st, err = (transform(2, live, "m2.py") if i else
                           transform(0, live))
                if st:
                    wfail.append(err)
                i = 1 - i
        end = time.time() + READ_SECONDS
        writer = threading.Thread(target=replace)
        writer.start()
        runs, bad, wrong = 0, [], 0
        while time.time() < end or runs < 4:
            out = p("r%d.npy" % (runs % 4))
            q = subprocess.run([RLX, "run", live, "--input", "x=" + p("x.npy"),
                                "-o", out], capture_output=True, text=True)
            runs += 1
            if q.returncode != 0:
                bad.append(q.stderr)
                continue
            got = np.load(out)
            if not any(np.allclose(got, a, rtol=1e-5, atol=1e-5) for a in answers):
                wrong += 1
        writer.join()
        t.ok(not wfail, "readers: the replacements succeed", "\n".join(wfail[:3]))
        t.ok(not bad and not wrong,
             "readers: %d runs during replacements of one model's cache by "
             "another's, %d failed, %d wrong" % (
                 runs, len(bad), wrong), "\n".join(bad[:3]))

        # 20,000 extra records: one warning, a count, a few names
        big = json.load(open(p("c0", "tensor-cache.json")))
        extra = [{"name": "extra_%d" % i, "shape": [1], "dtype": "float32",
                  "format": "raw", "nbytes": 4, "byteOffset": 4 * i}
                 for i in range(20000)]
        with open(p("c0", "extra.bin"), "wb") as f:
            f.write(bytes(4 * 20000))
        big["records"].append({"dataPath": "extra.bin", "format": "raw-shard",
                               "nbytes": 4 * 20000, "records": extra})
        with open(p("c0", "tensor-cache.json"), "w") as f:
            json.dump(big, f)
        t0 = time.time()
        q = subprocess.run([RLX, "run", p("c0"), "--input", "x=" + p("x.npy"),
                            "-o", p("e.npy")], capture_output=True, text=True)
        secs = time.time() - t0
        t.ok(q.returncode == 0 and q.stderr.count("warning") == 1 and
             "20000 tensors are not a weight" in q.stderr and len(q.stderr) < 2000,
             "20,000 extra records: one warning with the count and a few names "
             "(%.2f s)" % secs, q.stderr[:1000])

        # tensor parallel without a launcher
        rng2 = np.random.RandomState(1)
        w = {"g": rng2.rand(8).astype(np.float32) + 0.5,
             "w1": (rng2.randn(8, 16) * 0.3).astype(np.float32),
             "w2": (rng2.randn(16, 8) * 0.3).astype(np.float32),
             "b": rng2.randn(8).astype(np.float32)}
        write_safetensors(p("wb.safetensors"), w)
        with open(p("mlpb.py"), "w") as f:
            f.write(MLPB.format(n=2))
        np.save(p("x4.npy"), rng2.randn(4, 8).astype(np.float32))
        st, err = rlx("transform", p("mlpb.py"), "--weights", p("wb.safetensors"),
                      "--tensor-parallel", 2, "--quiet", "-o", p("tp2"))
        t.ok(st == 0, "transform --tensor-parallel 2", err)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_")}
        q = subprocess.run([RLX, "run", p("tp2"), "--input", "x=" + p("x4.npy"),
                            "-o", p("tp.npy")], capture_output=True, text=True,
                           env=env)
        t.ok(q.returncode == 1 and "mpirun -np 2" in q.stderr and "--rank K" in
             q.stderr and not os.path.exists(p("tp.npy")),
             "a tensor-parallel cache without mpirun nor --rank: refused", q.stderr)
        st, err = rlx("run", p("tp2"), "--input", "x=" + p("x4.npy"), "--rank", 1,
                      "-o", p("tp.npy"))
        t.ok(st == 0, "--rank K keeps its meaning (one worker)", err)
    t.done()


READ_SECONDS = int(os.environ.get("RLX_SECURITY_SECONDS", "6"))

if __name__ == "__main__":
    main()
