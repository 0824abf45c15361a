"""run_tp.py — tensor parallelism end to end, NumPy the oracle (TAP).

Models in TVM's idiom (R.dist.redistribute_replica_to_shard, R.ccl.*) run
  - in one process, as worker K (`rlx run --rank K`): collectives over one
    worker, so a row-parallel block gives worker K's partial sum;
  - under Open MPI (`mpirun -np N rlx run`), the collectives over MPI.
The mpirun cases are skipped when rlx was built without MPI or mpirun is
missing. Every file is generated here, in a temporary directory.
"""
import json
import os
import re
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
# from tvm.script import tir as T

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

# Column-parallel then row-parallel with a shared bias and norm weight:
# pre-sharded by rlx transform --tensor-parallel 2.
MLPB = HEAD + """    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), g: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 16), dtype="float32"), w2: R.Tensor((16, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({{"num_input": 1}})
        with R.dataflow():
            xn = R.nn.rms_norm(x, g, axes=[-1])
            w1s = R.dist.redistribute_replica_to_shard(w1, num_workers={n}, axis=1)
            w2t = R.permute_dims(w2, axes=[1, 0])
            w2ts = R.dist.redistribute_replica_to_shard(w2t, num_workers={n}, axis=1)
            w2s = R.permute_dims(w2ts, axes=[1, 0])
            b2 = R.multiply(b, R.const(2, "float32"))
            h = R.nn.silu(R.matmul(xn, w1s))
            p = R.matmul(h, w2s)
            y = R.add(R.ccl.allreduce(p, op_type="sum"), b2)
            R.output(y)
        return y
"""

# TVM's own idiom (its legalization of redistribute_replica_to_shard): the
# rank from runtime.disco.worker_id, matched to r, slices at r * 8.
IDIOM = HEAD + """    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w1: R.Tensor((8, 16), dtype="float32"), w2: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        r = T.int64()
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            w1t = R.permute_dims(w1, axes=[1, 0])
            w1s = R.strided_slice(w1t, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            w2s = R.strided_slice(w2, axes=[0], begin=[r * 8], end=[r * 8 + 8], assume_inbound=True)
            h = R.nn.relu(R.matmul(x, R.permute_dims(w1s, axes=[1, 0])))
            p = R.matmul(h, w2s)
            y = R.ccl.allreduce(p, op_type="sum", in_group=True)
            R.output(y)
        return y
"""

# One model in the three spellings of a worker's slice (issue 44): the
# R.dist op; TVM's legalization of it (runtime.disco.worker_id matched to r,
# strided_slice from r * 16 // 2 to (r + 1) * 16 // 2, assume_inbound); and
# R.take of the index range R.arange(r * 8, r * 8 + 8). Under
# --tensor-parallel the rank is a known of each worker's transform, so each
# spelling pre-shards the same values into the same bytes.
SPELL_HEAD = HEAD + """    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w1: R.Tensor((16, 8), dtype="float32"), w2: R.Tensor((8, 16), dtype="float32"), g: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"num_input": 1})
        r = T.int64()
        with R.dataflow():
"""
SPELL_TAIL = """            h = R.matmul(x, R.permute_dims(w1s, axes=[1, 0]))
            y = R.matmul(h, R.permute_dims(w2s, axes=[1, 0]))
            z = R.ccl.allreduce(y, op_type="sum", in_group=True)
            o = R.multiply(z, g)
            R.output(o)
        return o
"""
WID = """            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
"""
SPELLINGS = {
    "dist": SPELL_HEAD + """            w1s = R.dist.redistribute_replica_to_shard(w1, num_workers=2, axis=0)
            w2s = R.dist.redistribute_replica_to_shard(w2, num_workers=2, axis=1)
""" + SPELL_TAIL,
    "slice": SPELL_HEAD + WID + """            w1s = R.strided_slice(w1, axes=[0], begin=[r * 16 // 2], end=[(r + 1) * 16 // 2], assume_inbound=True)
            w2s = R.strided_slice(w2, axes=[1], begin=[r * 16 // 2], end=[(r + 1) * 16 // 2], assume_inbound=True)
""" + SPELL_TAIL,
    "take": SPELL_HEAD + WID + """            idx = R.arange(r * 8, r * 8 + 8, 1, dtype="int64")
            w1s = R.take(w1, idx, axis=0)
            w2s = R.take(w2, idx, axis=1)
""" + SPELL_TAIL,
}


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


def records(cache):
    import json
    j = json.load(open(os.path.join(cache, "tensor-cache.json")))
    return j["metadata"], [r["name"] for sh in j["records"]
                           for r in sh["records"]]


def mlpb_ref(x, w):
    xn = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w["g"]
    h = xn @ w["w1"]
    h = h / (1 + np.exp(-h))
    return h @ w["w2"] + 2 * w["b"]


def presharded(t, p, rng, x):
    """rlx transform --tensor-parallel 2, then rlx run --rank K."""
    w = {"g": rng.rand(8).astype(np.float32) + 0.5,
         "w1": (rng.randn(8, 16) * 0.3).astype(np.float32),
         "w2": (rng.randn(16, 8) * 0.3).astype(np.float32),
         "b": rng.randn(8).astype(np.float32)}
    write_safetensors(p("wb.safetensors"), w)
    open(p("mlpb.py"), "w").write(MLPB.format(n=2))
    st, out, err = rlx("transform", p("mlpb.py"), "--weights",
                       p("wb.safetensors"), "--tensor-parallel", 2,
                       "-o", p("tp2"))
    if not t.ok(st == 0, "transform --tensor-parallel 2", err):
        return
    meta, names = records(p("tp2"))
    t.ok(meta.get("rlxTensorParallel") == 2, "metadata rlxTensorParallel 2",
         meta)
    t.ok(sorted(names) == sorted(["g", "b2", "w1s_shard-0", "w1s_shard-1",
                                  "w2s_shard-0", "w2s_shard-1"]),
         "rank-dependent values once per worker (NAME_shard-K), shared "
         "ones once", names)
    parts = []
    for k in range(2):
        st, _, err = rlx("run", p("tp2"), "--input", "x=" + p("x.npy"),
                         "--rank", k, "-o", p("tp2_%d.npy" % k))
        t.ok(st == 0, "run DIR --rank %d" % k, err)
        parts.append(np.load(p("tp2_%d.npy" % k)) if st == 0 else None)
    if all(q is not None for q in parts):
        ref = mlpb_ref(x, w)
        got = parts[0] + parts[1] - 2 * w["b"]  # each worker adds b2
        d = np.abs(got - ref).max()
        t.ok(d < 1e-4, "pre-sharded workers' partial sums equal NumPy",
             "max diff %g" % d)
    st, _, err = rlx("run", p("tp2"), "--input", "x=" + p("x.npy"),
                     "--rank", 2)
    t.ok(st == 1 and "no worker 2" in err, "run DIR --rank 2 of 2 workers",
         err)
    # the original on the raw weights and the lifted one agree (worker 0)
    st, out, err = rlx("verify", p("mlpb.py"), "--weights",
                       p("wb.safetensors"), "--input", "x=" + p("x.npy"))
    t.ok(st == 0, "verify a tensor-parallel model", out + err)
    # a second transform finds it up to date; another N recomputes
    st, out, err = rlx("transform", p("mlpb.py"), "--weights",
                       p("wb.safetensors"), "--tensor-parallel", 2,
                       "-o", p("tp2"))
    t.ok(st == 0 and "up to date" in out, "--tensor-parallel 2 up to date",
         out + err)
    st, out, err = rlx("transform", p("mlpb.py"), "--weights",
                       p("wb.safetensors"), "--tensor-parallel", 4,
                       "-o", p("tp4"))
    t.ok(st == 1 and "over 2 workers, but --tensor-parallel is 4" in err,
         "--tensor-parallel 4 of a 2-worker model is an error", err)
    t.mlpb = (w, mlpb_ref(x, w))


def cache_bytes(d):
    """A cache's records (name, shape, dtype, place) and shard bytes: what
    must not depend on how the model is spelt (the metadata names the
    model's text, which does)."""
    top = json.load(open(os.path.join(d, "tensor-cache.json")))
    recs = [(sh["dataPath"], r["name"], tuple(r["shape"]), r["dtype"],
             r["byteOffset"], r["nbytes"])
            for sh in top["records"] for r in sh["records"]]
    data = {sh["dataPath"]: open(os.path.join(d, sh["dataPath"]), "rb").read()
            for sh in top["records"]}
    return recs, data


def spellings(t, p, rng, x):
    """The three spellings of the rank pre-shard alike: the same records,
    byte for byte; each worker's part and the lifted main run."""
    w = {"w1": (rng.randn(16, 8) * 0.3).astype(np.float32),
         "w2": (rng.randn(8, 16) * 0.3).astype(np.float32),
         "g": rng.rand(8).astype(np.float32) + 0.5}
    write_safetensors(p("ws.safetensors"), w)
    t.spell_ref = (x @ w["w1"].T @ w["w2"].T) * w["g"]
    caches = {}
    for name, text in SPELLINGS.items():
        open(p("sp_%s.py" % name), "w").write(text)
        st, _, err = rlx("transform", p("sp_%s.py" % name), "--weights",
                         p("ws.safetensors"), "--tensor-parallel", 2,
                         "--quiet", "-o", p("sp_%s" % name))
        if not t.ok(st == 0, "spelling %s: transform --tensor-parallel 2"
                    % name, err):
            continue
        _, names = records(p("sp_%s" % name))
        t.ok(sorted(names) == ["g", "lv1_shard-0", "lv1_shard-1",
                               "lv_shard-0", "lv_shard-1"],
             "spelling %s: the slices (and their transposes) pre-sharded "
             "per worker, the raw w1 and w2 not stored" % name, names)
        caches[name] = cache_bytes(p("sp_%s" % name))
        parts = []
        for k in range(2):
            st, _, err = rlx("run", p("sp_%s" % name), "--input",
                             "x=" + p("x.npy"), "--rank", k,
                             "-o", p("sp_%s_%d.npy" % (name, k)))
            if t.ok(st == 0, "spelling %s: run DIR --rank %d" % (name, k),
                    err):
                parts.append(np.load(p("sp_%s_%d.npy" % (name, k))))
        if len(parts) == 2:
            d = np.abs(parts[0] + parts[1] - t.spell_ref).max()
            t.ok(d < 1e-4, "spelling %s: the workers' parts sum to NumPy"
                 % name, "max diff %g" % d)
    if len(caches) == 3:
        t.ok(caches["dist"] == caches["slice"] == caches["take"],
             "the three spellings give the same cache, byte for byte",
             caches["dist"][0])
    # without --tensor-parallel the rank stays a run-time value (TVM's lift)
    st, out, err = rlx("lift", p("sp_slice.py"))
    main = out.split("def main_transform_params")[0]
    t.ok(st == 0 and "runtime.disco.worker_id" in main and
         "R.strided_slice(w1" in main,
         "rlx lift (no --tensor-parallel) leaves the worker's slices in main",
         out + err)


def mpi_spellings(t, p):
    """mpirun -np 2 on each spelling's pre-sharded cache."""
    if not hasattr(t, "spell_ref"):
        return
    for name in SPELLINGS:
        st, _, err = mpirun(2, "run", p("sp_%s" % name), "--input",
                            "x=" + p("x.npy"), "-o", p("sp_%s_mpi.npy" % name))
        if t.ok(st == 0, "spelling %s: mpirun -np 2 run DIR" % name, err):
            d = np.abs(np.load(p("sp_%s_mpi.npy" % name)) - t.spell_ref).max()
            t.ok(d < 1e-4, "spelling %s: mpirun -np 2 equals NumPy" % name,
                 "max diff %g" % d)


EXAMPLES = os.path.join(os.environ.get("SRCDIR", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..")), "examples")


def legalized_llama(t, p):
    """examples/llama_tp_legalized.py (the worker_id spelling) pre-shards
    into the cache examples/llama_tp.py gives, byte for byte, and runs on 2
    ranks as the single-process examples/llama.py."""
    ex = lambda n: os.path.join(EXAMPLES, n)  # noqa: E731
    st, _, err = rlx("init-weights", ex("llama.py"), "--seed", 5,
                     "-o", p("llama.safetensors"))
    if not t.ok(st == 0, "init-weights llama.py", err):
        return None
    for name in ("llama_tp", "llama_tp_legalized"):
        st, _, err = rlx("transform", ex(name + ".py"), "--weights",
                         p("llama.safetensors"), "--tensor-parallel", 2,
                         "--quiet", "-o", p(name))
        if not t.ok(st == 0, "%s.py: transform --tensor-parallel 2" % name,
                    err):
            return None
    a, b = cache_bytes(p("llama_tp")), cache_bytes(p("llama_tp_legalized"))
    names = [r[1] for r in b[0]]
    t.ok(a == b and "l0_qkv_wt_shard-1" in names,
         "llama_tp_legalized.py pre-shards as llama_tp.py, byte for byte",
         names)
    np.save(p("ids.npy"), np.array([3, 1, 4, 1, 5, 9], dtype=np.int64))
    st, _, err = rlx("run", ex("llama.py"), "--params", p("llama.safetensors"),
                     "--input", "input_ids=" + p("ids.npy"),
                     "-o", p("llama1.npy"))
    t.ok(st == 0, "llama.py on one process", err)
    return st == 0


def mpi_legalized_llama(t, p):
    st, _, err = mpirun(2, "run", p("llama_tp_legalized"), "--input",
                        "input_ids=" + p("ids.npy"), "-o", p("llama2.npy"))
    if t.ok(st == 0, "mpirun -np 2 run the legalized llama's cache", err):
        a, b = np.load(p("llama1.npy")), np.load(p("llama2.npy"))
        d = np.abs(a - b).max() / (np.abs(a).max() + 1e-30)
        t.ok(d < 1e-5, "the legalized llama on 2 ranks equals llama.py on "
             "one", "max rel diff %g" % d)


def mpi_presharded(t, p):
    """mpirun -np 2 rlx run on the pre-sharded cache."""
    if not hasattr(t, "mlpb"):
        return
    w, ref = t.mlpb
    st, _, err = mpirun(2, "run", p("tp2"), "--input", "x=" + p("x.npy"),
                        "-o", p("tp2_mpi.npy"))
    if t.ok(st == 0, "mpirun -np 2 run DIR (pre-sharded)", err):
        d = np.abs(np.load(p("tp2_mpi.npy")) - ref).max()
        t.ok(d < 1e-4, "mpirun -np 2 pre-sharded model equals NumPy on the "
             "unsharded model", "max diff %g" % d)
    st, _, err = mpirun(3, "run", p("tp2"), "--input", "x=" + p("x.npy"))
    t.ok(st != 0 and "holds the weights of 2 workers" in err,
         "mpirun -np 3 on a 2-worker cache is an error", err)
    # rank 0 reads the inputs for all: a FIFO is refused, not waited on
    os.mkfifo(p("fifo.npy"))
    try:
        st, _, err = mpirun(2, "run", p("tp2"), "--input", "x=" + p("fifo.npy"),
                            timeout=120)
    except subprocess.TimeoutExpired:
        st, err = None, "timed out"
    t.ok(st == 1 and "fifo.npy: not a regular file (a FIFO)" in err,
         "mpirun -np 2 with a FIFO for an input: an error, not a hang", err)


RSS_PY = """import os, resource, subprocess, sys
st = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write("peak RSS %d KiB\\n" % r)
sys.exit(st)
"""


def stack(d, f, layers, tp):
    """MLP blocks, in tensor-parallel form for 2 workers when tp."""
    params, body, x = [], [], "x"
    for i in range(layers):
        params += ['w1_%d: R.Tensor((%d, %d), dtype="float32")' % (i, d, f),
                   'w2_%d: R.Tensor((%d, %d), dtype="float32")' % (i, f, d)]
        a, b = "w1_%d" % i, "w2_%d" % i
        if tp:
            body += ["a%d = R.dist.redistribute_replica_to_shard(%s, num_workers=2, axis=1)" % (i, a),
                     "b%d = R.dist.redistribute_replica_to_shard(%s, num_workers=2, axis=0)" % (i, b)]
            a, b = "a%d" % i, "b%d" % i
        body += ["h%d = R.nn.relu(R.matmul(%s, %s))" % (i, x, a),
                 "p%d = R.matmul(h%d, %s)" % (i, i, b)]
        if tp:
            body += ["p%d = R.ccl.allreduce(p%d)" % (i, i)]
        body += ["x%d = R.add(%s, p%d)" % (i, x, i)]
        x = "x%d" % i
    return HEAD + """    @R.function
    def main(x: R.Tensor((4, %d), dtype="float32"), %s) -> R.Tensor((4, %d), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
%s
            R.output(%s)
        return %s
""" % (d, ", ".join(params), d, "\n".join("            " + l for l in body),
       x, x)


def rss_per_rank(t, p):
    """Each rank of the pre-sharded model maps only its own records: its
    peak RSS is below the whole cache, and well below one process running
    the unsharded model."""
    d, f, layers = 1024, 4096, 12       # 384 MiB of float32 weights
    # the checkpoint and its cache: 0.8 GB in the temporary folder; a
    # machine without the room skips the case rather than failing on it
    free = shutil.disk_usage(p(".")).free
    if free < (3 << 30) // 2:
        t.skip("per-rank peak RSS", "%.2f GiB free in %s, 1.5 GiB needed"
               % (free / (1 << 30), p(".")))
        return
    open(p("big.py"), "w").write(stack(d, f, layers, False))
    open(p("big_tp.py"), "w").write(stack(d, f, layers, True))
    open(p("rss.py"), "w").write(RSS_PY)
    st, _, err = rlx("init-weights", p("big.py"), "-o", p("big.safetensors"))
    if not t.ok(st == 0, "init-weights 384 MiB", err):
        return
    np.save(p("bx.npy"), np.random.RandomState(1).randn(4, d).astype(np.float32))
    st, _, err = rlx("transform", p("big_tp.py"), "--weights",
                     p("big.safetensors"), "--tensor-parallel", 2, "--quiet",
                     "-o", p("bigtp"))
    if not t.ok(st == 0, "transform --tensor-parallel 2 of 384 MiB", err):
        return
    cache = sum(os.path.getsize(os.path.join(p("bigtp"), n))
                for n in os.listdir(p("bigtp")))
    env = mpi_env()
    one = subprocess.run([sys.executable, p("rss.py"), RLX, "run", p("big.py"),
                          "--params", p("big.safetensors"), "--input",
                          "x=" + p("bx.npy"), "-o", p("by1.npy")],
                         capture_output=True, text=True, env=env)
    two = subprocess.run([MPIRUN, "--allow-run-as-root", "--oversubscribe",
                          "-np", "2", sys.executable, p("rss.py"), RLX, "run",
                          p("bigtp"), "--input", "x=" + p("bx.npy"), "-o",
                          p("by2.npy")], capture_output=True, text=True,
                         env=env)
    if not t.ok(one.returncode == 0 and two.returncode == 0,
                "runs for peak RSS", one.stderr + two.stderr):
        return
    kib = lambda out: [int(l.split()[2]) * 1024 for l in out.splitlines()  # noqa
                       if l.startswith("peak RSS")]
    r1, r2 = kib(one.stderr), kib(two.stderr)
    y1, y2 = np.load(p("by1.npy")), np.load(p("by2.npy"))
    dd = np.abs(y1 - y2).max() / (np.abs(y1).max() + 1e-30)
    t.ok(dd < 1e-5, "the 2-rank model equals the unsharded one",
         "max rel diff %g" % dd)
    msg = "cache %.0f MB, one process %.0f MB, ranks %s MB" % (
        cache / 1e6, r1[0] / 1e6, [round(r / 1e6) for r in r2])
    t.ok(len(r2) == 2 and max(r2) < cache and max(r2) < 0.8 * r1[0],
         "per-rank peak RSS below the whole cache (%s)" % msg, msg)


def tree(d):
    """{file name: bytes} of a directory."""
    return {n: open(os.path.join(d, n), "rb").read()
            for n in sorted(os.listdir(d))}


def mpi_transform(t, p):
    """mpirun -np 1/2/3 rlx transform: the cache of one process, byte for
    byte; a missing tensor fails the run and leaves nothing."""
    if not os.path.isdir(p("tp2")):
        return
    want = tree(p("tp2"))
    for n in (1, 2, 3):
        out = p("mt%d" % n)
        st, _, err = mpirun(n, "transform", p("mlpb.py"), "--weights",
                            p("wb.safetensors"), "--tensor-parallel", 2,
                            "--quiet", "-o", out)
        t.ok(st == 0 and os.path.isdir(out) and tree(out) == want,
             "mpirun -np %d transform: the cache byte for byte" % n, err)
    write_safetensors(p("wbad.safetensors"), {"g": np.ones(8, np.float32)})
    st, _, err = mpirun(2, "transform", p("mlpb.py"), "--weights",
                        p("wbad.safetensors"), "--tensor-parallel", 2,
                        "-o", p("mtbad"))
    left = [n for n in os.listdir(os.path.dirname(p("mtbad")))
            if n.startswith("mtbad")]
    t.ok(st != 0 and "w1" in err and not left,
         "mpirun transform with a missing tensor fails, leaving nothing",
         "status %d, left %s\n%s" % (st, left, err))


# A lifted transform of many outputs for a shard cap of 1 MiB: records of
# their own shard (>= 512 KiB), small ones packed together, a pass-through
# weight, an empty tensor and a shape tuple; the weights each output needs
# differ, so the processes read different parts of the checkpoint.
SPLIT = HEAD + """    @R.function
    def main(x: R.Tensor((1,), dtype="float32"), ab: R.Tensor((512, 1024), dtype="float32"), at: R.Tensor((1024, 256), dtype="float32"), c2: R.Tensor((1024,), dtype="float32"), d: R.Tensor((7, 3), dtype="float32"), e2: R.Tensor((0, 4), dtype="float32"), gs: R.Tensor((300, 1024), dtype="float32"), sh: R.Shape([300, 1024]), h16: R.Tensor((200, 1024), dtype="float16"), cc: R.Tensor((2048,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x

    @R.function
    def main_transform_params(a: R.Tensor((256, 1024), dtype="float32"), b: R.Tensor((256, 1024), dtype="float32"), c: R.Tensor((1024,), dtype="float32"), d: R.Tensor((7, 3), dtype="float32"), e: R.Tensor((0, 4), dtype="float32"), g: R.Tensor((300, 1024), dtype="float32"), h: R.Tensor((200, 1024), dtype="float32")) -> R.Tuple(R.Tensor((512, 1024), dtype="float32"), R.Tensor((1024, 256), dtype="float32"), R.Tensor((1024,), dtype="float32"), R.Tensor((7, 3), dtype="float32"), R.Tensor((0, 4), dtype="float32"), R.Tensor((300, 1024), dtype="float32"), R.Shape([300, 1024]), R.Tensor((200, 1024), dtype="float16"), R.Tensor((2048,), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            ab = R.concat((a, b), axis=0)
            at = R.permute_dims(a, axes=[1, 0])
            c2 = R.multiply(c, c)
            e2 = R.add(e, e)
            gs = R.add(g, g)
            sh = R.shape_of(gs)
            h16 = R.astype(h, dtype="float16")
            cc = R.concat((c, c2), axis=0)
            gv = (ab, at, c2, d, e2, gs, sh, h16, cc)
            R.output(gv)
        return gv
"""

# Worker K keeps rows 16K..16K+16 of w (24 rows): worker 1's slice is out
# of bounds, so only the process that computes worker 1 fails.
BADRANK = HEAD + """    @R.function
    def main(x: R.Tensor((1,), dtype="float32"), ws: R.Tensor((16, 16384), dtype="float32"), b2: R.Tensor((16384,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x

    @R.function
    def main_transform_params(w: R.Tensor((24, 16384), dtype="float32"), b: R.Tensor((16384,), dtype="float32")) -> R.Tuple(R.Tensor((16, 16384), dtype="float32"), R.Tensor((16384,), dtype="float32")):
        R.func_attr({"num_input": 0})
        r = T.int64()
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            ws = R.strided_slice(w, axes=[0], begin=[r * 16], end=[r * 16 + 16], assume_inbound=True)
            b2 = R.add(b, b)
            gv = (ws, b2)
            R.output(gv)
        return gv
"""

# Worker 1's slice is out of bounds while worker 0 waits for it in the
# allreduce: rlx_run returns RLX_EABORT on rank 1 and the command ends the
# whole run (MPI_Abort), instead of the library exiting.
RUNBAD = HEAD + """    @R.function
    def main(x: R.Tensor((24, 4), dtype="float32")) -> R.Tensor((16, 4), dtype="float32"):
        r = T.int64()
        with R.dataflow():
            wid = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=R.Shape(ndim=1))
            wid1 = R.match_cast(wid, R.Shape([r]))
            s = R.strided_slice(x, axes=[0], begin=[r * 16], end=[r * 16 + 16], assume_inbound=True)
            y = R.ccl.allreduce(s, op_type="sum")
            R.output(y)
        return y
"""


# Output shapes the annotations leave to the run: no plan, the cache laid
# out as the outputs come, by process 0 alone under mpirun.
UNPLANNED = HEAD + """    @R.function
    def main(x: R.Tensor((1,), dtype="float32"), at: R.Tensor(dtype="float32", ndim=2), c2: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor((1,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x

    @R.function
    def main_transform_params(a: R.Tensor((256, 1024), dtype="float32"), c: R.Tensor((1024,), dtype="float32")) -> R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor(dtype="float32", ndim=1)):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            at: R.Tensor(dtype="float32", ndim=2) = R.permute_dims(a, axes=[1, 0])
            c2: R.Tensor(dtype="float32", ndim=1) = R.multiply(c, c)
            gv = (at, c2)
            R.output(gv)
        return gv
"""


def cache_tree_same(a, b):
    """Whether two directories hold the same files, byte for byte."""
    return os.path.isdir(b) and tree(a) == tree(b)


def mpi_transform_split(t, p):
    """A cache of many shards: mpirun -np 1/2/3 write it byte for byte as
    one process does, each process reading less than the whole."""
    rng = np.random.default_rng(3)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    write_safetensors(p("wsplit.safetensors"), {
        "a": f32(256, 1024), "b": f32(256, 1024), "c": f32(1024),
        "d": f32(7, 3), "e": np.zeros((0, 4), np.float32),
        "g": f32(300, 1024), "h": f32(200, 1024)})
    with open(p("split.py"), "w") as f:
        f.write(SPLIT)
    st, out, err = rlx("transform", p("split.py"), "--weights",
                       p("wsplit.safetensors"), "--shard-size", 1, "-o",
                       p("split1"))
    if not t.ok(st == 0, "transform of many shards (one process)", err):
        return
    top = json.load(open(p("split1/tensor-cache.json")))
    names = [r["name"] for s in top["records"] for r in s["records"]]
    t.ok(names == ["ab", "at", "c2", "d", "e2", "gs", "sh", "h16", "cc"] and
         len(top["records"]) >= 5,
         "the planned cache: records in parameter order, in %d shards"
         % len(top["records"]), str(names))
    total = os.path.getsize(p("wsplit.safetensors")) / (1 << 20)
    for n in (1, 2, 3):
        out_dir = p("split_mp%d" % n)
        st, out, err = mpirun(n, "transform", p("split.py"), "--weights",
                              p("wsplit.safetensors"), "--shard-size", 1,
                              "-o", out_dir)
        t.ok(st == 0 and cache_tree_same(p("split1"), out_dir),
             "mpirun -np %d transform of many shards: the cache byte for "
             "byte" % n, err + out)
        m = re.search(r"at most ([0-9.]+) MiB of the checkpoint read by one",
                      out)
        if n > 1:
            t.ok(m and float(m.group(1)) < 0.9 * total,
                 "mpirun -np %d: no process reads the whole checkpoint" % n,
                 "%s (checkpoint %.1f MiB)" % (out, total))
    # without a plan: process 0 does it all, the same cache
    with open(p("unplanned.py"), "w") as f:
        f.write(UNPLANNED)
    st1, _, err1 = rlx("transform", p("unplanned.py"), "--weights",
                       p("wsplit.safetensors"), "--quiet", "-o", p("unp1"))
    st2, out, err2 = mpirun(2, "transform", p("unplanned.py"), "--weights",
                            p("wsplit.safetensors"), "--quiet", "-o",
                            p("unp2"))
    t.ok(st1 == 0 and st2 == 0 and cache_tree_same(p("unp1"), p("unp2")),
         "mpirun -np 2 transform of shapes only the run tells: the cache of "
         "one process", err1 + err2)
    # what was written is what NumPy says
    w = {k: v for k, v in zip("abcdegh", (None,) * 7)}
    rng = np.random.default_rng(3)
    for k, shape in (("a", (256, 1024)), ("b", (256, 1024)), ("c", (1024,)),
                     ("d", (7, 3)), ("g", (300, 1024)), ("h", (200, 1024))):
        w[k] = rng.standard_normal(shape).astype(np.float32)
    want = {"ab": np.concatenate([w["a"], w["b"]]), "at": w["a"].T,
            "c2": w["c"] * w["c"], "d": w["d"],
            "e2": np.zeros((0, 4), np.float32), "gs": w["g"] + w["g"],
            "sh": np.array([300, 1024], np.int64),
            "h16": w["h"].astype(np.float16),
            "cc": np.concatenate([w["c"], w["c"] * w["c"]])}
    got = read_cache(p("split_mp2"))
    bad = [k for k in want if k not in got or got[k].shape != want[k].shape
           or not np.array_equal(got[k], want[k])]
    t.ok(not bad, "the cache of 2 processes holds what NumPy computes",
         "differ: %s" % bad)


def read_cache(d):
    """{name: array} of a tensor cache."""
    top = json.load(open(os.path.join(d, "tensor-cache.json")))
    out = {}
    for sh in top["records"]:
        raw = open(os.path.join(d, sh["dataPath"]), "rb").read()
        for r in sh["records"]:
            b = raw[r["byteOffset"]:r["byteOffset"] + r["nbytes"]]
            out[r["name"]] = np.frombuffer(b, np.dtype(r["dtype"])).reshape(
                r["shape"])
    return out


def mpi_transform_bad_rank(t, p):
    """A failure on one process only fails the whole run: nothing written,
    the old cache untouched."""
    rng = np.random.default_rng(4)
    write_safetensors(p("wbr.safetensors"), {
        "w": rng.standard_normal((24, 16384)).astype(np.float32),
        "b": rng.standard_normal(16384).astype(np.float32)})
    with open(p("badrank.py"), "w") as f:
        f.write(BADRANK)
    old = p("split_mp3")  # a cache already there: must stay as it is
    before = tree(old)
    st, out, err = mpirun(2, "transform", p("badrank.py"), "--weights",
                          p("wbr.safetensors"), "--tensor-parallel", 2,
                          "--shard-size", 1, "-o", old)
    left = [n for n in os.listdir(os.path.dirname(old))
            if n.startswith("split_mp3") and n != "split_mp3"]
    t.ok(st != 0 and "out of bounds" in err and "process 1 of the 2" in err
         and tree(old) == before and not left,
         "mpirun transform failing on process 1 only: the run fails, the "
         "old cache untouched, no temporary left",
         "status %d, left %s\n%s" % (st, left, err))


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="rlx_tp_")
    try:
        t.guard(run_cases, t, tmp)
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

    open(p("idiom.py"), "w").write(IDIOM)
    parts = []
    for k in range(2):
        st, _, err = rlx("run", p("idiom.py"), "--params", p("w.safetensors"),
                         "--input", "x=" + p("x.npy"), "--rank", k,
                         "-o", p("idiom%d.npy" % k))
        t.ok(st == 0, "TVM's idiom (runtime.disco.worker_id, strided_slice "
             "at r * 8): run --rank %d" % k, err)
        if st == 0:
            parts.append(np.load(p("idiom%d.npy" % k)))
    if len(parts) == 2:
        d = np.abs(parts[0] + parts[1] - ref).max()
        t.ok(d < 1e-5, "TVM's idiom: the workers' partial sums equal NumPy",
             "max diff %g" % d)
    t.guard(presharded, t, p, rng, x)
    t.guard(spellings, t, p, rng, x)
    llama_ok = t.guard(legalized_llama, t, p)

    if not have_mpi():
        t.skip("mpirun cases", "no mpirun, or rlx built without MPI")
        return
    t.guard(mpi_presharded, t, p)
    t.guard(mpi_spellings, t, p)
    if llama_ok:
        t.guard(mpi_legalized_llama, t, p)
    st, _, err = mpirun(2, "run", p("idiom.py"), "--params",
                        p("w.safetensors"), "--input", "x=" + p("x.npy"),
                        "-o", p("idiom_mpi.npy"))
    if t.ok(st == 0, "mpirun -np 2 TVM's idiom", err):
        d = np.abs(np.load(p("idiom_mpi.npy")) - ref).max()
        t.ok(d < 1e-5, "mpirun -np 2 TVM's idiom equals NumPy",
             "max diff %g" % d)
    t.guard(rss_per_rank, t, p)
    t.guard(mpi_transform, t, p)
    t.guard(mpi_transform_split, t, p)
    t.guard(mpi_transform_bad_rank, t, p)

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
    t.ok(st != 0 and "missing from the checkpoint: 'w2'" in err and
         not os.path.exists(p("ybad.npy")),
         "mpirun: a missing weight fails every rank, no output",
         "status %d\n%s" % (st, err))

    # a rank failing while the other waits for it in a collective: the
    # whole run ends with status 1 and the error, nothing is written
    open(p("runbad.py"), "w").write(RUNBAD)
    np.save(p("x24.npy"), np.ones((24, 4), np.float32))
    st, out, err = mpirun(2, "run", p("runbad.py"), "--input",
                          "x=" + p("x24.npy"), "-o", p("yrunbad.npy"),
                          timeout=120)
    # (the run ends through MPI_Abort; Open MPI 4.1's mpirun then prints
    # its MPI_ABORT notice, or, losing a race in its own show_help, an
    # ORTE_ERROR_LOG line in its place)
    t.ok(st == 1 and "binding 's': strided_slice" in err and
         ("MPI_ABORT" in err or "show_help.c" in err) and
         not os.path.exists(p("yrunbad.npy")),
         "mpirun: a rank failing while another waits ends the run (status 1)",
         "status %d\n%s" % (st, err))

    # the number of ranks must match a model's num_workers
    st, out, err = mpirun(3, "run", p("coll2.py"), "--input",
                          "x=" + p("xc.npy"), "-o", p("coll3x"))
    t.ok(st != 0 and "over 2 workers, but the run has 3" in err,
         "mpirun -np 3 on a 2-worker model is an error", err)


if __name__ == "__main__":
    main()
