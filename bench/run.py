#!/usr/bin/python3
"""make bench: rlx's kernels against NumPy and memcpy, JIT compile time, then
the transform benchmark (bench/transform/run.py), then tensor parallelism on
two Open MPI ranks (bench/tp/run.py).

Usage: bench/run.py BUILD/rlx [--gib N] [--rss-gib A,B]

Every row is measured side by side in this one run: the rlx kernel and a
memcpy of the same bytes (the largest buffer of the op) by
BUILD/bench/bench_kernels, then the same op in NumPy, alternating for
ROUNDS rounds; each measurement is the median of REPS calls, and a row
reports the median over the rounds. The peer is NumPy, or PyTorch (CPU, on
as many threads as rlx) for the rows marked "(torch)": pooling, attention
and conv1d, which NumPy has no op for. Ratios are speeds relative to rlx:
"x peer" = peer time / rlx time (above 1: rlx is faster), "of memcpy" =
memcpy time / rlx time (1.0: as fast as copying the bytes; memory-bound
rows only).

Two rows measure rlx itself: JIT compile time for 1 and 32 identical
layers (kernels are shared, so 32 layers must cost at most 1.5x one), and
`rlx dump` through convert-ssa, canonicalize-bindings and
dead-code-elimination (verifying after each) on modules of 1000 and 8000
chained functions: the time per function must stay within 1.5x (the
frontend and the passes are linear in the number of functions).

NumPy is the system's (/usr/bin/python3), with the BLAS the system gives
it: `make bench` installs Debian's libopenblas0-pthread (without it Debian's
numpy runs the reference BLAS) and python3-threadpoolctl, and the BLAS
library, version, kernel and threads threadpoolctl reports are printed. It
runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (they slow a current
OpenBLAS down on this machine).

The transform benchmark needs about 2 x the larger RSS checkpoint of free
disk (default 1 GiB rows, 2 and 4 GiB for peak memory); with less free
space in its work directory the sizes shrink to fit, and say so. The load
average is printed before and after: the machine may be shared.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 3
REPS = 15
COMPILE_REPS = 5

# PyTorch for the rows NumPy has no op for, on the threads rlx uses
TORCH = ("import os, torch\nimport torch.nn.functional as F\n"
         "torch.set_num_threads(int(os.environ.get('RLX_NUM_THREADS') or os.cpu_count()))\n"
         "torch.set_grad_enabled(False)\n")

# name: (description, numpy setup, numpy statement)
ROWS = {
    "transpose": ("transpose 4096x4096 f32",
                  "a = np.random.rand(4096, 4096).astype(np.float32)",
                  "np.ascontiguousarray(a.T)"),
    "cast": ("astype f32->f16 4096x4096",
             "a = np.random.rand(4096, 4096).astype(np.float32)",
             "a.astype(np.float16)"),
    "add": ("add 4096x4096 f32",
            "a = np.random.rand(4096, 4096).astype(np.float32)\n"
            "b = np.random.rand(4096, 4096).astype(np.float32)\n"
            "c = np.empty_like(a)",
            "np.add(a, b, out=c)"),
    "rms_norm": ("rms_norm 4096x4096 f32",
                 "x = np.random.rand(4096, 4096).astype(np.float32)\n"
                 "w = np.random.rand(4096).astype(np.float32)",
                 "x * (1 / np.sqrt(np.mean(np.square(x), axis=-1, "
                 "keepdims=True) + np.float32(1e-5))) * w"),
    "matmul": ("matmul 512^3 f32",
               "a = np.random.rand(512, 512).astype(np.float32)\n"
               "b = np.random.rand(512, 512).astype(np.float32)\n"
               "c = np.empty((512, 512), np.float32)",
               "np.matmul(a, b, out=c)"),
    # the heavy ops of issue 11, against PyTorch (CPU, as many threads as
    # rlx) where NumPy has no such op, else NumPy
    "max_pool2d": ("max_pool2d 4x64x112^2 3/2 (torch)",
                   TORCH + "x = torch.rand(4, 64, 112, 112)",
                   "F.max_pool2d(x, 3, 2, 1)"),
    "avg_pool2d": ("avg_pool2d 4x64x112^2 3/2 (torch)",
                   TORCH + "x = torch.rand(4, 64, 112, 112)",
                   "F.avg_pool2d(x, 3, 2, 1, count_include_pad=True)"),
    "attention": ("attention 512x8x64 causal (torch)",
                  TORCH + "q, k, v = (torch.rand(1, 8, 512, 64) for _ in range(3))",
                  "F.scaled_dot_product_attention(q, k, v, is_causal=True)"
                  " if hasattr(F, 'scaled_dot_product_attention') else "
                  "torch.softmax((q @ k.transpose(-1, -2) / 8).masked_fill("
                  "torch.ones(512, 512, dtype=torch.bool).triu(1), float('-inf')), -1) @ v"),
    "conv1d": ("conv1d 8x64x1024 k3 (torch)",
               TORCH + "x = torch.rand(8, 64, 1024)\nw = torch.rand(64, 64, 3)",
               "F.conv1d(x, w, padding=1)"),
    "sort": ("sort 1024x4096 f32 rows",
             "a = np.random.rand(1024, 4096).astype(np.float32)",
             "np.sort(a, axis=-1)"),
}

NUMPY_TIMER = r"""
import json, sys, time
import numpy as np
setup, stmt, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
exec(setup)
for _ in range(2):
    exec(stmt)
ts = []
for _ in range(reps):
    t0 = time.perf_counter()
    exec(stmt)
    ts.append(time.perf_counter() - t0)
ts.sort()
print(json.dumps({"median": ts[len(ts) // 2]}))
"""

NUMPY_INFO = r"""
import json
import numpy as np
info = {"numpy": np.__version__}
try:
    import threadpoolctl
    info["pools"] = threadpoolctl.threadpool_info()
except ImportError:
    info["pools"] = None
print(json.dumps(info))
"""


def numpy_env():
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    return env


def numpy_info(env):
    out = subprocess.run([sys.executable, "-c", NUMPY_INFO], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def blas_of(info):
    for p in info.get("pools") or []:
        if p.get("user_api") == "blas":
            return p
    return None


def loadavg():
    return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def transform_sizes(workdir, gib, rss):
    """The checkpoint sizes the transform benchmark can afford on the free
    space of workdir: (gib, "A,B", note or None)."""
    a, b = (float(x) for x in rss.split(","))
    free = shutil.disk_usage(workdir).free / (1 << 30)
    # the checkpoint and one output at a time, plus a margin
    need = 2.2 * max(gib, b) + 1
    if free >= need:
        return gib, rss, None
    scale = max(0.05, (free - 1) / need)
    g2, a2, b2 = max(0.05, gib * scale), max(0.05, a * scale), max(0.1, b * scale)
    return g2, "%.2f,%.2f" % (a2, b2), (
        "only %.1f GiB free in %s: the transform benchmark runs on %.2f GiB "
        "(RSS %.2f and %.2f GiB) instead of %.2f GiB (RSS %s)" % (
            free, workdir, g2, a2, b2, gib, rss))


def run_rlx(bk, args):
    out = subprocess.run([bk] + args, capture_output=True, text=True)
    if out.returncode:
        sys.stderr.write(out.stderr)
        raise SystemExit("bench_kernels %s failed" % " ".join(args))
    return out.stdout.split()


def run_numpy(env, setup, stmt):
    out = subprocess.run([sys.executable, "-c", NUMPY_TIMER, setup, stmt, str(REPS)],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        sys.stderr.write(out.stderr)
        raise SystemExit("numpy timing failed")
    return json.loads(out.stdout)["median"]


def chain_module(n):
    """A module of n functions, each calling the one before."""
    lines = ["# from tvm.script import ir as I", "# from tvm.script import relax as R",
             "", "@I.ir_module", "class Module:"]
    sig = 'x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):'
    for i in range(n):
        lines += ["    @R.function", "    def f%d(%s" % (i, sig)]
        if i:
            lines += ["        y = R.add(x, x)", "        z = cls.f%d(y)" % (i - 1),
                      "        return z"]
        else:
            lines += ["        return x"]
    return "\n".join(lines) + "\n"


def frontend_time(rlx, n):
    """Best of 3 wall seconds of `rlx dump` through three passes (the
    verifier runs after each) on a module of n functions."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "chain.py")
        with open(path, "w") as f:
            f.write(chain_module(n))
        best = 1e9
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([rlx, "dump", path, "--passes",
                            "convert-ssa,canonicalize-bindings,dead-code-elimination"],
                           stdout=subprocess.DEVNULL, check=True)
            best = min(best, time.perf_counter() - t0)
        return best


def ms(t):
    return "%.2f" % (t * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx")
    ap.add_argument("--gib", type=float, default=1.0,
                    help="transform benchmark checkpoint (GiB)")
    ap.add_argument("--rss-gib", default="2,4",
                    help="transform peak-memory checkpoints (GiB)")
    a = ap.parse_args()
    build = os.path.dirname(os.path.abspath(a.rlx))
    bk = os.path.join(build, "bench", "bench_kernels")
    if not os.path.exists(bk):
        raise SystemExit("%s is missing: build first" % bk)
    env = numpy_env()
    info = numpy_info(env)
    blas = blas_of(info)
    print("kernel benchmark, %s" % loadavg())
    if info.get("pools") is None:
        print("numpy %s; threadpoolctl is missing (make bench installs "
              "python3-threadpoolctl): the BLAS is unknown" % info["numpy"])
    elif blas:
        print("numpy %s, BLAS %s %s (%s), kernel %s, %s threads" % (
            info["numpy"], blas.get("internal_api"), blas.get("version"),
            blas.get("filepath"), blas.get("architecture"),
            blas.get("num_threads")))
        if blas.get("internal_api") != "openblas":
            print("  (not OpenBLAS: make bench installs libopenblas0-pthread)")
    else:
        print("numpy %s, no BLAS found by threadpoolctl" % info["numpy"])

    results = {}
    threads = None
    for name, (desc, setup, stmt) in ROWS.items():
        rl, mc, npy = [], [], []
        for _ in range(ROUNDS):
            f = run_rlx(bk, ["kernel", name, str(REPS)])
            rl.append(float(f[2]))
            mc.append(float(f[3]))
            threads = f[5]
            npy.append(run_numpy(env, setup, stmt))
        results[name] = (statistics.median(rl), statistics.median(mc),
                         statistics.median(npy), int(f[4]))
    comp = {}
    for layers in (1, 32):
        f = run_rlx(bk, ["compile", str(layers), str(COMPILE_REPS)])
        comp[layers] = (float(f[2]), int(f[3]), int(f[4]))

    print("rlx threads: %s (RLX_NUM_THREADS overrides)" % threads)
    print()
    hdr = "%-28s %9s %9s %9s %9s %9s  %-26s %s" % (
        "row", "rlx ms", "peer ms", "x peer", "memcpy ms", "of memcpy",
        "target", "met")
    print(hdr)
    print("-" * len(hdr))
    met_all = True
    targets = {
        "transpose": ("x numpy >= 5, memcpy >= 0.5",
                      lambda s, m: s >= 5 and m >= 0.5),
        "cast": ("of memcpy >= 0.5", lambda s, m: m >= 0.5),
        "matmul": ("x numpy >= 0.3", lambda s, m: s >= 0.3),
    }
    for name, (desc, _, _) in ROWS.items():
        t, m, n, nbytes = results[name]
        speed, frac = n / t, m / t
        memory_bound = name in ("transpose", "cast", "add", "rms_norm")
        tgt, ok = targets.get(name, ("-", None))
        okv = ok(speed, frac) if ok else None
        if okv is False:
            met_all = False
        print("%-28s %9s %9s %9.2f %9s %9s  %-26s %s" % (
            desc, ms(t), ms(n), speed,
            ms(m) if memory_bound else "-",
            "%.2f" % frac if memory_bound else "-",
            tgt, "-" if okv is None else ("yes" if okv else "NO")))
    c1, c32 = comp[1], comp[32]
    ratio = c32[0] / c1[0]
    ok = ratio <= 1.5
    met_all = met_all and ok
    print("%-28s %9s %9s %9s %9s %9s  %-26s %s" % (
        "compile 1 layer", ms(c1[0]), "-", "-", "-", "-",
        "%d calls, %d kernels" % (c1[1], c1[2]), "-"))
    print("%-28s %9s %9s %9s %9s %9s  %-26s %s" % (
        "compile 32 layers", ms(c32[0]), "-", "-", "-", "-",
        "<= 1.5x 1 layer: %.2fx" % ratio, "yes" if ok else "NO"))
    print("(%d calls, %d kernels for 32 layers)" % (c32[1], c32[2]))
    scale = {n: frontend_time(a.rlx, n) for n in (1000, 8000)}
    per = {n: scale[n] / n for n in scale}
    ratio = per[8000] / per[1000]
    ok = ratio <= 1.5
    met_all = met_all and ok
    print("%-28s %9s %9s %9s %9s %9s  %-26s %s" % (
        "passes, 1000 functions", ms(scale[1000]), "-", "-", "-", "-",
        "(parse, 3 passes, verify)", "-"))
    print("%-28s %9s %9s %9s %9s %9s  %-26s %s" % (
        "passes, 8000 functions", ms(scale[8000]), "-", "-", "-", "-",
        "per function <= 1.5x: %.2fx" % ratio, "yes" if ok else "NO"))
    print()
    print("memcpy copies the op's largest buffer; medians of %d calls, "
          "median of %d rounds" % (REPS, ROUNDS))
    print("all targets met" if met_all else "some targets NOT met")
    print(loadavg())

    # the transform benchmark, in a work directory next to the build
    print()
    gib, rss, note = transform_sizes(tempfile.gettempdir(), a.gib, a.rss_gib)
    if note:
        print(note)
    sys.stdout.flush()
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "transform", "run.py"), a.rlx,
        "--gib", str(gib), "--rss-gib", rss], env=env)
    if r.returncode:
        raise SystemExit("bench/transform/run.py failed")

    # tensor parallelism on Open MPI: per-rank memory (bench/tp/run.py)
    print()
    sys.stdout.flush()
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "tp", "run.py"), a.rlx,
        "--gib", str(min(gib, 1))], env=env)
    if r.returncode:
        raise SystemExit("bench/tp/run.py failed")


if __name__ == "__main__":
    main()
