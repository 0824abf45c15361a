"""run_tp.py — tensor parallelism end to end, NumPy the oracle (TAP).

Models in TVM's idiom (R.dist.redistribute_replica_to_shard, R.ccl.*) run
  - in one process, as worker K (`rlx run --rank K`): collectives over one
    worker, so a row-parallel block gives worker K's partial sum;
  - under Open MPI (`mpirun -np N rlx run`), the collectives over MPI.
The mpirun cases are skipped when rlx was built without MPI or mpirun is
missing. Every file is generated here, in a temporary directory.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import RLX, Tap, rlx, write_safetensors  # noqa: E402

MPIRUN = shutil.which("mpirun")


def mpi_env():
    env = dict(os.environ)
    # Open MPI's own allocations are not ours to check for leaks
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    return env


def mpirun(n, *args, timeout=300):
    """Runs `mpirun -np n rlx ARGS`; (status, stdout, stderr)."""
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(n),
           RLX] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=mpi_env())
    return p.returncode, p.stdout, p.stderr


def have_mpi():
    if not MPIRUN:
        return False
    st, _, err = mpirun(1, "run", "--help")
    return st == 0


HEAD = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
"""

# Row-parallel MLP: w1 column-sharded, w2 row-sharded, one allreduce.
MLP = HEAD + """    @R.function
    def main(x: R.Tensor((4, 8), dtype="{dt}"), w1: R.Tensor((8, 16), dtype="{dt}"), w2: R.Tensor((16, 8), dtype="{dt}")) -> R.Tensor((4, 8), dtype="{dt}"):
        R.func_attr({{"num_input": 1}})
        with R.dataflow():
            w1s = R.dist.redistribute_replica_to_shard(w1, num_workers={n}, axis=1)
            w2s = R.dist.redistribute_replica_to_shard(w2, num_workers={n}, axis=0)
            h = R.nn.relu(R.matmul(x, w1s))
            p = R.matmul(h, w2s)
            y = R.ccl.allreduce(p, op_type="sum", in_group=True)
            R.output(y)
        return y
"""

# Every collective once: the result is a tuple.
COLL = HEAD + """    @R.function
    def main(x: R.Tensor((6, 6), dtype="float32")):
        with R.dataflow():
            mine = R.dist.redistribute_replica_to_shard(x, num_workers={n}, axis=0)
            g = R.ccl.allgather(mine, num_workers={n})
            b = R.ccl.broadcast_from_worker0(mine)
            s = R.ccl.scatter_from_worker0(x, num_workers={n}, axis=1)
            mx = R.ccl.allreduce(mine, op_type="max")
            R.output(g, b, s, mx)
        return (g, b, s, mx)
"""


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="rlx_tp_")
    try:
        run_cases(t, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()


def run_cases(t, tmp):
    rng = np.random.RandomState(0)
    x = rng.randn(4, 8).astype(np.float32)
    w1 = (rng.randn(8, 16) * 0.3).astype(np.float32)
    w2 = (rng.randn(16, 8) * 0.3).astype(np.float32)
    ref = np.maximum(x @ w1, 0) @ w2
    p = lambda name: os.path.join(tmp, name)  # noqa: E731
    np.save(p("x.npy"), x)
    write_safetensors(p("w.safetensors"), {"w1": w1, "w2": w2})
    open(p("mlp2.py"), "w").write(MLP.format(dt="float32", n=2))

    # one process: worker K's partial sums add up to the model
    parts = []
    for k in range(2):
        st, out, err = rlx("run", p("mlp2.py"), "--params", p("w.safetensors"),
                           "--input", "x=" + p("x.npy"), "--rank", k,
                           "-o", p("y%d.npy" % k))
        t.ok(st == 0, "run --rank %d" % k, err)
        if st == 0:
            parts.append(np.load(p("y%d.npy" % k)))
    if len(parts) == 2:
        d = np.abs(parts[0] + parts[1] - ref).max()
        t.ok(d < 1e-5, "--rank 0 + --rank 1 partial sums equal NumPy",
             "max diff %g" % d)
    st, _, err = rlx("run", p("mlp2.py"), "--params", p("w.safetensors"),
                     "--input", "x=" + p("x.npy"), "--rank", 2)
    t.ok(st == 1 and "on worker 2" in err,
         "--rank 2 of a 2-worker model is an error", err)

    if not have_mpi():
        t.skip("mpirun cases", "no mpirun, or rlx built without MPI")
        return

    # two ranks: the allreduce is over MPI
    st, out, err = mpirun(2, "run", p("mlp2.py"), "--params",
                          p("w.safetensors"), "--input", "x=" + p("x.npy"),
                          "-o", p("ympi.npy"))
    ok = t.ok(st == 0, "mpirun -np 2 run", err)
    if ok:
        d = np.abs(np.load(p("ympi.npy")) - ref).max()
        t.ok(d < 1e-5, "mpirun -np 2: row-parallel MLP equals NumPy",
             "max diff %g" % d)

    # float16: reduced in float32, rounded once
    open(p("mlp_float16.py"), "w").write(MLP.format(dt="float16", n=2))
    h = {k: v.astype(np.float16) for k, v in (("w1", w1), ("w2", w2))}
    write_safetensors(p("w16.safetensors"), h)
    np.save(p("x16.npy"), x.astype(np.float16))
    st, _, err = mpirun(2, "run", p("mlp_float16.py"), "--params",
                        p("w16.safetensors"), "--input", "x=" + p("x16.npy"),
                        "-o", p("y16.npy"))
    if t.ok(st == 0, "mpirun -np 2 run float16", err):
        x16, a, b = (v.astype(np.float32) for v in (x.astype(np.float16),
                                                    h["w1"], h["w2"]))
        r16 = np.maximum(x16 @ a, 0) @ b
        d = np.abs(np.load(p("y16.npy")).astype(np.float32) - r16).max()
        t.ok(d < 2e-2 * (np.abs(r16).max() + 1), "float16 allreduce",
             "max diff %g" % d)

    # every collective on 2 and 3 ranks
    xc = rng.randn(6, 6).astype(np.float32)
    np.save(p("xc.npy"), xc)
    for n in (2, 3):
        open(p("coll%d.py" % n), "w").write(COLL.format(n=n))
        st, _, err = mpirun(n, "run", p("coll%d.py" % n), "--input",
                            "x=" + p("xc.npy"), "-o", p("coll%d" % n))
        if not t.ok(st == 0, "mpirun -np %d collectives" % n, err):
            continue
        got = [np.load(os.path.join(p("coll%d" % n), "%d.npy" % i))
               for i in range(4)]
        rows = np.split(xc, n, axis=0)
        cols = np.split(xc, n, axis=1)
        want = [xc, rows[0], cols[0], np.maximum.reduce(rows)]
        names = ["allgather", "broadcast_from_worker0",
                 "scatter_from_worker0 (rank 0's part)", "allreduce max"]
        for g, w, nm in zip(got, want, names):
            t.ok(g.shape == w.shape and np.array_equal(g, w),
                 "mpirun -np %d %s" % (n, nm), "got %s want %s" % (g, w))

    # a rank that fails (its weights do not fit) fails the whole run, and
    # nothing is written
    write_safetensors(p("bad.safetensors"), {"w1": w1})
    st, out, err = mpirun(2, "run", p("mlp2.py"), "--params",
                          p("bad.safetensors"), "--input", "x=" + p("x.npy"),
                          "-o", p("ybad.npy"))
    t.ok(st != 0 and "missing weight 'w2'" in err and
         not os.path.exists(p("ybad.npy")),
         "mpirun: a missing weight fails every rank, no output",
         "status %d\n%s" % (st, err))

    # the number of ranks must match a model's num_workers
    st, out, err = mpirun(3, "run", p("coll2.py"), "--input",
                          "x=" + p("xc.npy"), "-o", p("coll3x"))
    t.ok(st != 0 and "over 2 workers, but the run has 3" in err,
         "mpirun -np 3 on a 2-worker model is an error", err)


if __name__ == "__main__":
    main()
