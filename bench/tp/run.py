#!/usr/bin/python3
"""bench/tp/run.py RLX [--gib N] [--workdir DIR]

Tensor parallelism on Open MPI: a stack of MLP blocks in TVM's idiom
(w1 column-parallel, w2 row-parallel, one R.ccl.allreduce per block) with N
GiB of float32 weights (default 1), random weights from `rlx init-weights`.

Rows:
  - `rlx transform` of the checkpoint on one process and under
    `mpirun -np 2` (wall, best of 3, alternately; the two caches compared
    file by file), plain and with `--tensor-parallel 2`;
  - the unsharded model run in one process on the checkpoint (peak RSS) against
    `mpirun -np 2 rlx run DIR` on the pre-sharded cache: each rank's peak
    RSS (target: below the single process's, near half the weights plus the
    runtime), and that the two results agree.
Peak RSS is getrusage's ru_maxrss of a child (tp/rss.py wraps each rank).
Skipped (exit 0, one line) without mpirun or an MPI build. Exit 1 when a
run fails. Files go to --workdir (default: a temporary directory) and are
removed at the end.
"""
import argparse
import filecmp
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HEAD = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, {d}), dtype="float32"), {params}) -> R.Tensor((16, {d}), dtype="float32"):
        R.func_attr({{"num_input": 1}})
        with R.dataflow():
{body}
            R.output(y)
        return y
"""


def model(d, f, layers, tp):
    """The MLP stack; tp: in tensor-parallel form for 2 workers, the
    worker's slices spelt as the R.dist op (tp == "dist") or as TVM
    legalizes it (tp == "legalized": runtime.disco.worker_id matched to r,
    strided_slice at r)."""
    params, body, x = [], [], "x"
    if tp == "legalized":
        body += ['wid = R.call_pure_packed("runtime.disco.worker_id", '
                 'sinfo_args=R.Shape(ndim=1))',
                 "wid1 = R.match_cast(wid, R.Shape([r]))"]
    for i in range(layers):
        params += ['w1_%d: R.Tensor((%d, %d), dtype="float32")' % (i, d, f),
                   'w2_%d: R.Tensor((%d, %d), dtype="float32")' % (i, f, d)]
        sl = ("strided_slice(w%d_%d, axes=[%d], begin=[r * {f} // 2], "
              "end=[(r + 1) * {f} // 2], assume_inbound=True)").replace(
                  "{f}", str(f))
        if tp == "legalized":
            body += ["a%d = R.%s" % (i, sl % (1, i, 1)),
                     "b%d = R.%s" % (i, sl % (2, i, 0))]
        elif tp:
            body += [
                "a%d = R.dist.redistribute_replica_to_shard(w1_%d, num_workers=2, axis=1)" % (i, i),
                "b%d = R.dist.redistribute_replica_to_shard(w2_%d, num_workers=2, axis=0)" % (i, i)]
        if tp:
            body += [
                "h%d = R.nn.silu(R.matmul(%s, a%d))" % (i, x, i),
                "p%d = R.ccl.allreduce(R.matmul(h%d, b%d), op_type=\"sum\")" % (i, i, i)]
        else:
            body += ["h%d = R.nn.silu(R.matmul(%s, w1_%d))" % (i, x, i),
                     "p%d = R.matmul(h%d, w2_%d)" % (i, i, i)]
        body += ["x%d = R.add(%s, p%d)" % (i, x, i)]
        x = "x%d" % i
    body.append("y = R.multiply(%s, R.const(1, \"float32\"))" % x)
    text = HEAD.format(d=d, params=", ".join(params),
                       body="\n".join("            " + s for s in body))
    if tp == "legalized":
        text = text.replace("        with R.dataflow():",
                            "        r = T.int64()\n        with R.dataflow():")
    return text


def timed(cmd, env=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit("failed: %s" % " ".join(cmd))
    return dt, p


def child_rss(cmd, wrap=True):
    """Peak RSS (MB) of cmd run as the child of rss.py (each rank of an
    mpirun command is wrapped by the caller)."""
    p = subprocess.run(([sys.executable, RSS] if wrap else []) + cmd,
                       capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit("failed: %s" % " ".join(cmd))
    return [float(l.split()[-2]) for l in p.stderr.splitlines()
            if "peak RSS" in l]


RSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rss.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx")
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--workdir")
    a = ap.parse_args()
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("tensor parallelism: skipped (no mpirun)")
        return
    rlx = os.path.abspath(a.rlx)
    d, f = 2048, 4096
    layers = max(1, int(round(a.gib * (1 << 30) / (2 * d * f * 4))))
    work = tempfile.mkdtemp(prefix="rlx_tp_bench_", dir=a.workdir)
    try:
        run(rlx, mpirun, work, d, f, layers)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(rlx, mpirun, work, d, f, layers):
    j = lambda n: os.path.join(work, n)  # noqa: E731
    open(j("m.py"), "w").write(model(d, f, layers, False))
    open(j("tp.py"), "w").write(model(d, f, layers, "dist"))
    open(j("tpl.py"), "w").write(model(d, f, layers, "legalized"))
    subprocess.run([rlx, "init-weights", j("m.py"), "-o", j("w.safetensors")],
                   check=True, capture_output=True)
    import numpy as np
    np.save(j("x.npy"), np.random.RandomState(0).randn(16, d).astype(np.float32))
    gb = os.path.getsize(j("w.safetensors")) / 1e9
    mp = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    env = dict(os.environ)

    # the transform on 1 and on 2 processes, alternately, best of 3 (a
    # fresh DIR each time: an up-to-date cache would be found and kept)
    tr = {}
    for rep in range(3):
        for key, pre, src, extra in (
                ("1", [], "m.py", []), ("2", mp, "m.py", []),
                ("tp1", [], "tp.py", ["--tensor-parallel", "2"]),
                ("tp2", mp, "tp.py", ["--tensor-parallel", "2"])):
            out = j("c_" + key)
            shutil.rmtree(out, ignore_errors=True)
            t, _ = timed(pre + [rlx, "transform", j(src), "--weights",
                                j("w.safetensors"), "--quiet", "-o", out]
                         + extra)
            tr[key] = min(tr.get(key, t), t)
    same = same_tree(j("c_1"), j("c_2"))
    same_tp = same_tree(j("c_tp1"), j("c_tp2"))
    t1, t2 = tr["1"], tr["tp1"]
    for key in ("1", "2", "tp2"):
        shutil.rmtree(j("c_" + key))
    os.rename(j("c_tp1"), j("c2"))
    # the legalized spelling pre-shards into the same records and bytes
    subprocess.run([rlx, "transform", j("tpl.py"), "--weights",
                    j("w.safetensors"), "--tensor-parallel", "2", "--quiet",
                    "-o", j("cl")], check=True, capture_output=True)
    same_leg = same_data(j("c2"), j("cl"))
    one = child_rss([rlx, "run", j("m.py"), "--params", j("w.safetensors"),
                     "--input", "x=" + j("x.npy"), "-o", j("y1.npy")])
    ranks = child_rss(mp + [sys.executable, RSS, rlx, "run", j("c2"),
                            "--input", "x=" + j("x.npy"), "-o",
                            j("y2.npy")], wrap=False)
    ranks_leg = child_rss(mp + [sys.executable, RSS, rlx, "run", j("cl"),
                                "--input", "x=" + j("x.npy"), "-o",
                                j("y3.npy")], wrap=False)
    y1, y2 = np.load(j("y1.npy")), np.load(j("y2.npy"))
    diff = float(np.abs(y1 - y2).max() / (np.abs(y1).max() + 1e-30))
    y3 = np.load(j("y3.npy"))
    diff = max(diff, float(np.abs(y1 - y3).max() / (np.abs(y1).max() + 1e-30)))
    print("tensor parallelism (%d MLP blocks %dx%d, %.2f GB float32, "
          "2 workers)" % (layers, d, f, gb))
    print("  %-44s %8s" % ("", "value"))
    print("  %-44s %7.2fs" % ("transform (plain), one process", t1))
    print("  %-44s %7.2fs  (%.2f x one process; %.2f GB/s per process; "
          "cache %s)" % ("mpirun -np 2 transform", tr["2"], tr["2"] / t1,
                         gb / tr["2"] / 2,
                         "identical" if same else "DIFFERS"))
    print("  %-44s %7.2fs" % ("transform --tensor-parallel 2, one process",
                              t2))
    print("  %-44s %7.2fs  (%.2f x one process; cache %s)" % (
        "mpirun -np 2 transform --tensor-parallel 2", tr["tp2"],
        tr["tp2"] / t2, "identical" if same_tp else "DIFFERS"))
    print("  %-44s %6.0fMB" % ("run unsharded, one process: peak RSS",
                               one[0]))
    for k, r in enumerate(ranks):
        print("  %-44s %6.0fMB  (%.2f x one process)" % (
            "mpirun -np 2 run: rank %d peak RSS" % k, r, r / one[0]))
    print("  %-44s %8s  (the worker_id + strided_slice spelling)" % (
        "legalized: cache as the R.dist op's",
        "same" if same_leg else "DIFFERS"))
    for k, r in enumerate(ranks_leg):
        print("  %-44s %6.0fMB  (%.2f x one process)" % (
            "legalized, mpirun -np 2 run: rank %d RSS" % k, r, r / one[0]))
    print("  %-44s %8.1e  %s" % ("max rel diff, 2 ranks vs one process", diff,
                                  "ok" if diff < 1e-4 else "MISMATCH"))
    if diff >= 1e-4 or not same or not same_tp or not same_leg:
        raise SystemExit(1)


def same_data(a, b):
    """Whether caches a and b hold the same records and shard bytes (their
    metadata names the model's text, which may differ)."""
    import json
    ja = json.load(open(os.path.join(a, "tensor-cache.json")))["records"]
    jb = json.load(open(os.path.join(b, "tensor-cache.json")))["records"]
    return ja == jb and all(
        filecmp.cmp(os.path.join(a, s["dataPath"]), os.path.join(b, s["dataPath"]),
                    shallow=False) for s in ja)


def same_tree(a, b):
    """Whether directories a and b hold the same files, byte for byte."""
    if sorted(os.listdir(a)) != sorted(os.listdir(b)):
        return False
    return all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n),
                           shallow=False) for n in os.listdir(a))


if __name__ == "__main__":
    main()
