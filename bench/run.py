#!/usr/bin/python3
"""make bench: rlx's kernels against NumPy and memcpy, JIT compile time, the
GEMM/GEMV and forward tables against OpenBLAS and PyTorch (on a host with
AVX-512 also rlx's AVX2 GEMM/GEMV kernels against OpenBLAS's Haswell ones,
the pair an AVX2-only CPU runs; shown, not a target), whole `rlx run`
processes against the same NumPy script (and, shown, one token of a
Llama-shaped model from its cache against `cat` of the cache's files),
then the transform benchmark
(bench/transform/run.py), then tensor parallelism on two Open MPI ranks
(bench/tp/run.py).

Usage: bench/run.py BUILD/rlx [--rounds N] [--only-gemm] [--gib N] [--rss-gib A,B]

With RLX_ISA=avx2 in the environment (`RLX_ISA=avx2 make bench`) every
table runs as on a host without AVX-512: rlx's JIT and kernels held to
AVX2 (runtime/codegen/jit.c), NumPy's OpenBLAS to its Haswell kernels
(OPENBLAS_CORETYPE) and PyTorch to AVX2 (ATEN_CPU_CAPABILITY), the
AVX-512 peers and the separate AVX2 table left out.

Every row is measured side by side in this one run: the rlx kernel and a
memcpy of the same bytes (the largest buffer of the op) by
BUILD/bench/bench_kernels, then the same op in NumPy, alternating for
ROUNDS rounds; each measurement is the median of REPS calls, and a row
reports the median over the rounds. The peer is NumPy, or PyTorch (CPU, on
as many threads as rlx) for the rows marked "(torch)": pooling, attention,
conv1d and topk, which NumPy has no op for. Ratios are speeds relative to rlx:
"x peer" = peer time / rlx time (above 1: rlx is faster), "of memcpy" =
memcpy time / rlx time (1.0: as fast as copying the bytes; memory-bound
rows only).

The legalized table runs examples/llama.py and examples/llama_legalized.py
(every op a prim_func as TVM's LegalizeOps writes it), both scaled to
hidden 2048, side by side on the same weights: the legalized forward
against the un-legalized one, with the weight pre-processing lifted and
as written (the weights' transposes folded into the matmuls that read
them); target 0.8x for both.

The TIR table times prim_funcs written as TVM's LegalizeOps writes them
(add, a sum with T.init, a matmul) against rlx's own kernel of the same op
on the same buffers (bench_kernels tir); the target is 0.8x.

Two rows measure rlx itself: JIT compile time for 1 and 32 identical
layers with the code cache off (kernels are shared, so 32 layers must cost at most 1.5x one), and
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



def sort_data(r, c):
    """NumPy setup: a, bench_kernels' fill of an f32 buffer (r, c) (its
    buffer())."""
    return ("a = (0.5 + (np.arange(%d, dtype=np.uint64) * 2654435761 %% 997)"
            " * 0.001).astype(np.float32).reshape(%d, %d)" % (r * c, r, c))



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
    # the sorts on bench_kernels' own data (997 distinct values: ties),
    # so that both sort the same keys
    "sort": ("sort 1024x4096 f32 rows",
             sort_data(1024, 4096),
             "np.sort(a, axis=-1)"),
    "sort1m": ("sort 1M f32, one row",
               sort_data(1, 1 << 20),
               "np.sort(a, axis=-1)"),
    "argsort": ("argsort 1024x4096 f32 stable",
                sort_data(1024, 4096),
                "np.argsort(a, axis=-1, kind='stable')"),
    "topk": ("topk 1024x4096 k=8 (torch)",
             TORCH + "import numpy as np\n" + sort_data(1024, 4096) + "\na = torch.from_numpy(a)",
             "torch.topk(a, 8, dim=-1)"),
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
    cap = isa_cap()
    if cap:  # the peers held to the same instruction set as rlx
        env["OPENBLAS_CORETYPE"] = "Haswell" if cap == "avx2" else "Prescott"
        env["ATEN_CPU_CAPABILITY"] = "avx2" if cap == "avx2" else "default"
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


def run_rlx(bk, args, env=None):
    out = subprocess.run([bk] + args, capture_output=True, text=True, env=env)
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


# --------------------------------------------------------------- GEMM / GEMV

# name: (description, M, K, N, layout, dtype). Layout t: x @ w.T with w
# [N, K] (the checkpoint layout; rlx reads it through the fused
# permute_dims), n: x @ w with w [K, N].
GEMM_ROWS = [
    ("gemm256", "GEMM 256^3 f32", 256, 256, 256, "n", "float32"),
    ("gemm1024", "GEMM 1024^3 f32", 1024, 1024, 1024, "n", "float32"),
    ("gemm2048", "GEMM 2048^3 f32", 2048, 2048, 2048, "n", "float32"),
    ("prefill", "prefill 128x4096 . 4096^2 (w.T)", 128, 4096, 4096, "t", "float32"),
    ("gemv32", "GEMV 1x4096 . 4096^2 f32 (w.T)", 1, 4096, 4096, "t", "float32"),
    ("gemv16", "GEMV f16 weights (w.T)", 1, 4096, 4096, "t", "float16"),
    ("gemvb16", "GEMV bf16 weights (w.T)", 1, 4096, 4096, "t", "bfloat16"),
    # int8 weights, a float32 scale per group of 32: examples/llama_q8.py's
    # dequantize fused into the matmul (GB/s counts the scales too)
    ("gemvq8", "GEMV int8 weights, groups of 32", 1, 4096, 4096, "t", "int8"),
]

# rounds of the GEMV rows at least (a few milliseconds each): their ratios
# are the noisiest on a shared machine
GEMV_ROUNDS = 6

# bytes per weight of each dtype (int8: the byte and a 4-byte scale per 32)
WEIGHT_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "int8": 1 + 4 / 32}

PEER_TIMER = r"""
import json, sys, time
lib, M, K, N, lay, reps, threads = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
if lib == "torch":
    import torch
    torch.set_num_threads(threads)
    x = torch.rand(M, K)
    w = torch.rand(N, K) if lay == "t" else torch.rand(K, N)
    f = (lambda: x @ w.T) if lay == "t" else (lambda: x @ w)
else:
    import numpy as np
    from threadpoolctl import threadpool_limits
    threadpool_limits(threads)
    x = np.random.rand(M, K).astype(np.float32)
    w = (np.random.rand(N, K) if lay == "t" else np.random.rand(K, N)).astype(np.float32)
    f = (lambda: x @ w.T) if lay == "t" else (lambda: x @ w)
f()
best = 1e9
for _ in range(reps):
    t0 = time.perf_counter()
    f()
    best = min(best, time.perf_counter() - t0)
print(json.dumps({"best": best}))
"""


def torch_env(env, threads):
    """PyTorch's environment on `threads` threads: torch.set_num_threads
    sets its own pool, not the OpenBLAS pthreads its products run on (which
    would take every core: a "1 thread" forward measured 267 ms this way,
    489 ms with OPENBLAS_NUM_THREADS=1)."""
    return dict(env, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))


def peer_time(lib, env, m, k, n, lay, threads, reps):
    """Best of reps seconds of the same product in NumPy or PyTorch (f32),
    None when the library is missing."""
    out = subprocess.run([sys.executable, "-c", PEER_TIMER, lib, str(m), str(k),
                          str(n), lay, str(reps), str(threads)],
                         env=torch_env(env, threads) if lib == "torch" else env,
                         capture_output=True, text=True)
    if out.returncode:
        return None
    return json.loads(out.stdout)["best"]


def isa_cap():
    """RLX_ISA when it holds rlx below the host (avx2 or generic): the
    whole run then measures as a host without AVX-512 (or AVX) would."""
    cap = os.environ.get("RLX_ISA", "")
    return cap if cap in ("avx2", "generic") else None


def host_has(flag):
    """Whether the CPU has flag, as far as the run may use it (RLX_ISA)."""
    cap = isa_cap()
    if cap and flag.startswith("avx512"):
        return False
    if cap == "generic" and flag in ("avx", "avx2", "fma", "f16c"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return flag in line.split()
    except OSError:
        pass
    return False


TORCH_FORWARD = r"""
import json, sys, time, torch
layers, hid, heads, ffn, n, reps, threads = map(int, sys.argv[1:8])
torch.set_num_threads(threads)
hd = hid // heads
g = torch.Generator().manual_seed(0)
def w(o, i):
    return torch.rand(o, i, generator=g) / i ** 0.5
L = [dict(ln1=torch.rand(hid), q=w(hid, hid), k=w(hid, hid), v=w(hid, hid), o=w(hid, hid),
          ln2=torch.rand(hid), gate=w(ffn, hid), up=w(ffn, hid), down=w(hid, ffn))
     for _ in range(layers)]
x = torch.rand(1, n, hid)
def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w
def fwd(h):
    for p in L:
        a = rms(h, p["ln1"])
        q = (a @ p["q"].T).reshape(1, n, heads, hd).permute(0, 2, 1, 3)
        k = (a @ p["k"].T).reshape(1, n, heads, hd).permute(0, 2, 3, 1)
        v = (a @ p["v"].T).reshape(1, n, heads, hd).permute(0, 2, 1, 3)
        s = torch.softmax((q @ k) * (1.0 / hd ** 0.5), dim=-1)
        o = (s @ v).permute(0, 2, 1, 3).reshape(1, n, hid) @ p["o"].T
        h = h + o
        b = rms(h, p["ln2"])
        h = h + (torch.nn.functional.silu(b @ p["gate"].T) * (b @ p["up"].T)) @ p["down"].T
    return h
with torch.no_grad():
    fwd(x)
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        fwd(x)
        best = min(best, time.perf_counter() - t0)
print(json.dumps({"best": best}))
"""


def forward_bench(bk, env, rounds):
    """The Llama-shaped forward (hidden 2048, 16 heads, FFN 5632, 4 layers;
    weights [out, in], random, in memory) at n = 128 and n = 1, rlx's
    executor against PyTorch's eager forward, 1 and 2 threads; and the same
    forward with int8 weights against rlx's f32 one."""
    print()
    print("Llama-shaped forward, hidden 2048, 4 layers (%s; best of %d rounds)"
          % (loadavg(), rounds))
    tenvs = [env]
    if host_has("avx512f"):  # as in gemm_bench: the BLAS's AVX-512 kernels
        tenvs.append(dict(env, OPENBLAS_CORETYPE="SkylakeX"))
    hdr = "%-34s %2s %9s %9s %9s  %s" % ("row", "T", "rlx ms", "torch ms", "x torch",
                                          "target")
    met = True
    print(hdr)
    print("-" * len(hdr))
    for threads in (1, 2):
        tenv = dict(env, RLX_NUM_THREADS=str(threads))
        for n in (128, 1):
            args = ["4", "2048", "16", "5632", str(n), "2" if n > 1 else "5"]
            rl, rq, tt = [], [], [[] for _ in tenvs]  # tt: per torch env, per round
            for _ in range(rounds):
                for q8, times in ((False, rl), (True, rq)):
                    f = run_rlx(bk, ["forward"] + args + (["int8"] if q8 else []), tenv)
                    times.append(float(f[1]))
                for te, tl in zip(tenvs, tt):
                    o2 = subprocess.run([sys.executable, "-c", TORCH_FORWARD] + args[:5] +
                                        [args[5], str(threads)],
                                        env=torch_env(te, threads),
                                        capture_output=True, text=True)
                    tl.append(json.loads(o2.stdout)["best"] if o2.returncode == 0 else None)
            t = min(rl)
            v = [x for tl in tt for x in tl if x]
            tr = min(v) if v else None
            r = tr / t if tr else None
            pm = paired_median(rl, tt)
            met = met and (r is None or r >= 1.0)
            print("%-34s %2d %9s %9s %9s  %s" % (
                "forward n=%d" % n, threads, ms(t), ms(tr) if tr else "-",
                "%.2f" % r if r else "-",
                ">= 1.0x torch: %s%s" % ("-" if r is None else "yes" if r >= 1.0 else "NO",
                                         "" if pm is None else ", paired %.2f" % pm)))
            print("%-34s %2d %9s %9s %9s  %s" % (
                "forward n=%d, int8 weights" % n, threads, ms(min(rq)), "-", "-",
                "%.2fx rlx's f32 forward (no peer)" % (t / min(rq))))
    print("int8 weights: the projections in groups of 32 with f32 scales, dequantized "
          "in the model (examples/llama_q8.py's run-time half, fused into the matmuls)")
    print("torch: %s; paired: the median over rounds of the round's faster torch "
          "time / rlx's" % ("held to %s as rlx is (RLX_ISA)" % isa_cap() if isa_cap() else
                             "the faster of its BLAS as installed and with "
                             "OPENBLAS_CORETYPE=SkylakeX (on AVX-512 hosts)"))
    print(loadavg())
    return met


LEGAL_SIZE = dict(hid=2048, heads=16, ffn=5632, vocab=4096)


def legalized_bench(bk, rounds):
    """examples/llama.py against examples/llama_legalized.py (every op a
    prim_func as TVM's LegalizeOps writes it), both scaled to LEGAL_SIZE
    (gen_llama_legalized.py writes the legalized one at that size), run by
    the executor on the same random weights in memory (bench_kernels
    model), alternately: the forward after the weight pre-processing is
    lifted and run once (`rlx transform`, then `rlx run DIR`), and as
    written (the concatenations and transposes of the weights in every
    forward; a transpose read only by a matmul is folded into it): target
    >= 0.8x the un-legalized forward for both."""
    print()
    print("Legalized Llama forward, hidden %(hid)d, %(heads)d heads, FFN %(ffn)d, "
          "vocab %(vocab)d, 2 layers" % LEGAL_SIZE + " (%s; best of %d rounds)"
          % (loadavg(), rounds))
    hdr = "%-34s %2s %9s %9s %9s  %s" % ("row", "T", "legal ms", "relax ms", "x relax",
                                          "target")
    print(hdr)
    print("-" * len(hdr))
    met = True
    with tempfile.TemporaryDirectory() as d:
        orig, legal = os.path.join(d, "llama.py"), os.path.join(d, "legal.py")
        gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                           "gen_llama_legalized.py")
        size = ["--hidden", str(LEGAL_SIZE["hid"]), "--heads", str(LEGAL_SIZE["heads"]),
                "--ffn", str(LEGAL_SIZE["ffn"]), "--vocab", str(LEGAL_SIZE["vocab"])]
        for path, how in ((orig, ["--relax"]), (legal, [])):
            with open(path, "w") as f:
                subprocess.run([sys.executable, gen] + how + size, stdout=f, check=True)
        for threads in (1, 2):
            tenv = dict(os.environ, RLX_NUM_THREADS=str(threads))
            for n in (128, 1):
                for lift in (True, False):
                    tl, to = [], []
                    for _ in range(rounds):
                        for path, times in ((legal, tl), (orig, to)):
                            f = run_rlx(bk, ["model", path, str(n), "2" if n > 1 else "5"] +
                                        (["lift"] if lift else []), tenv)
                            times.append(float(f[1]))
                    r = min(to) / min(tl)
                    pm = paired_median(tl, [to])
                    met = met and r >= 0.8
                    print("%-34s %2d %9s %9s %9.2f  %s" % (
                        "forward n=%d, %s" % (n, "lifted" if lift else "as written"),
                        threads, ms(min(tl)), ms(min(to)), r,
                        ">= 0.8x: %s, paired %.2f" % ("yes" if r >= 0.8 else "NO", pm)))
    print("x relax = the un-legalized model's time / the legalized one's (above 1: "
          "the legalized is faster); lifted: main after main_transform_params; as "
          "written: main on the checkpoint's weights; paired: the median over rounds")
    print(loadavg())
    return met


def paired_median(rl, peer_lists):
    """The median over rounds of (the fastest peer's time in that round) /
    (rlx's time in that round): on a shared machine one lucky run can make
    either side's best; runs next to each other see the same machine."""
    r = []
    for i, t in enumerate(rl):
        v = [pl[i] for pl in peer_lists if i < len(pl) and pl[i]]
        if v:
            r.append(min(v) / t)
    return statistics.median(r) if r else None


def gemm_bench(bk, env, rounds):
    """The GEMM/GEMV table: rlx against OpenBLAS (through NumPy: as
    installed, and with the AVX-512 kernel forced where the host has it,
    since OpenBLAS 0.3.21 does not know every CPU and then runs its
    Prescott kernels) and PyTorch, 1 and 2 threads, best of rounds
    alternating runs, and the paired median (paired_median) beside the
    target; GEMV in GB/s of weights against a read loop."""
    peers = [("numpy", "numpy", env)]
    if host_has("avx512f"):
        e2 = dict(env, OPENBLAS_CORETYPE="SkylakeX")
        peers.append(("openblas-skx", "numpy", e2))
    peers.append(("torch", "torch", env))
    print()
    print("GEMM and GEMV (%s; best of %d rounds, GEMV rows of %d, each the best of "
          "several calls)" % (loadavg(), rounds, max(rounds, GEMV_ROUNDS)))
    cols = {"numpy": "x numpy", "openblas-skx": "x obl-skx", "torch": "x torch"}
    hdr = "%-34s %2s %9s %10s %s  %s" % (
        "row", "T", "rlx ms", "rlx", " ".join("%9s" % cols[p[0]] for p in peers), "target")
    met = True
    print(hdr)
    print("-" * len(hdr))
    for threads in (1, 2):
        tenv = dict(env, RLX_NUM_THREADS=str(threads))
        # the read loop reads as many bytes as the f32 GEMV's weights (64 MiB)
        rr = subprocess.run([bk, "read", "64", "10"], env=tenv, capture_output=True,
                            text=True)
        read_gbs = (int(rr.stdout.split()[2]) / float(rr.stdout.split()[1]) / 1e9
                    if rr.returncode == 0 else None)
        for key, desc, m, k, n, lay, dt in GEMM_ROWS:
            reps = "20" if m == 1 else "5" if m * n * k <= 1 << 30 else "3"
            rl, pt, f32_next = [], {p[0]: [] for p in peers}, []

            def gemm(dtype):
                return float(run_rlx(bk, ["gemm", str(m), str(k), str(n), lay, dtype, reps],
                                     tenv)[1])
            for _ in range(max(rounds, GEMV_ROUNDS) if m == 1 else rounds):
                rl.append(gemm(dt))
                if dt != "float32":  # the f32 GEMV next to it, the reference
                    f32_next.append(gemm("float32"))
                if dt == "float32":
                    for name, lib, penv in peers:
                        pt[name].append(peer_time(lib, dict(penv), m, k, n, lay, threads,
                                                  int(reps)))
            t = min(rl)
            es = WEIGHT_BYTES[dt]
            if m == 1:
                speed = "%6.1f GB/s" % (k * n * es / t / 1e9)
            else:
                speed = "%5.0f GF/s" % (2.0 * m * n * k / t / 1e9)
            ratios = []
            for name, _, _ in peers:
                v = [x for x in pt[name] if x]
                ratios.append("%9.2f" % (min(v) / t) if v else "%9s" % "-")
            if dt == "float32":
                obl = [pt["numpy"]] + ([pt["openblas-skx"]] if "openblas-skx" in pt else [])
                v = [x for pl in obl for x in pl if x]
                r = min(v) / t if v else None
                pm = paired_median(rl, obl)
                ok = r is None or r >= 0.9
                tgt = ">= 0.9x OpenBLAS: %s%s" % (
                    "-" if r is None else "yes" if ok else "NO (%.2f)" % r,
                    "" if pm is None else ", paired %.2f" % pm)
                if m == 1:
                    tgt += "; %.0f%% of read" % (
                        100 * k * n * es / t / 1e9 / read_gbs if read_gbs else 0)
            else:
                # against the f32 GEMV timed in the same rounds, alternating
                # with this row: the f32 row's own best came minutes
                # earlier, in another state of the shared machine
                want = 3.0 if dt == "int8" else 1.6
                r = min(f32_next) / t if f32_next else None
                pm = paired_median(rl, [f32_next])
                ok = r is None or r >= want
                tgt = ">= %.1fx f32 GEMV: %s%s" % (
                    want, "-" if r is None else "yes (%.2fx)" % r if ok else
                    "NO (%.2fx)" % r, "" if pm is None else ", paired %.2fx" % pm)
            met = met and ok
            print("%-34s %2d %9s %10s %s  %s" % (desc, threads, ms(t), speed,
                                                 " ".join(ratios), tgt))
        if read_gbs:
            print("%-34s %2d %9s %6.1f GB/s" % ("read loop (64 MiB, the bound)", threads,
                                                "-", read_gbs))
    print("x PEER = peer time / rlx time (above 1: rlx is faster)" +
          ("; obl-skx: NumPy's OpenBLAS with OPENBLAS_CORETYPE=SkylakeX"
           if "openblas-skx" in pt else ""))
    print("16-bit and int8 rows: the best of rlx's f32 GEMV timed alternately with the row / "
          "the row's best")
    print("paired: the median over rounds of the round's faster OpenBLAS time (on the "
          "16-bit and int8 rows: rlx's f32 GEMV's) / rlx's time in the same round")
    print(loadavg())
    return met


def avx2_bench(bk, env, rounds):
    """On a host with AVX-512, the GEMM/GEMV rows once more with rlx's AVX2
    kernels (bench_kernels gemmisa) against OpenBLAS's Haswell kernels (the
    16-bit and int8 GEMVs against the AVX2 f32 GEMV): the pair an AVX2-only
    CPU (the brief's Zen 3) runs, on this host's caches. Shown, not a
    target: the table above is the host's own. Returns nothing."""
    if not host_has("avx512f"):
        return
    penv = dict(env, OPENBLAS_CORETYPE="Haswell")
    print()
    print("GEMM and GEMV with AVX2 kernels on both sides (%s; best of %d rounds; not a target "
          "on this host)" % (loadavg(), rounds))
    hdr = "%-34s %2s %9s %10s %9s  %s" % ("row", "T", "rlx ms", "rlx", "x obl-hsw",
                                         "paired")
    print(hdr)
    print("-" * len(hdr))
    for threads in (1, 2):
        tenv = dict(env, RLX_NUM_THREADS=str(threads))
        for _, desc, m, k, n, lay, dt in GEMM_ROWS:
            reps = "20" if m == 1 else "5" if m * n * k <= 1 << 30 else "3"

            def isa_time(dtype):
                return float(run_rlx(bk, ["gemmisa", "avx2", str(m), str(k), str(n), lay,
                                          reps, dtype], tenv)[1])
            rl, pt = [], []  # pt: OpenBLAS's times, or (16-bit, int8) rlx's f32 GEMV's
            for _ in range(max(rounds, GEMV_ROUNDS) if m == 1 else rounds):
                rl.append(isa_time(dt))
                pt.append(peer_time("numpy", dict(penv), m, k, n, lay, threads, int(reps))
                          if dt == "float32" else isa_time("float32"))
            t = min(rl)
            v = [x for x in pt if x]
            pm = paired_median(rl, [pt])
            if m == 1:
                speed = "%6.1f GB/s" % (k * n * WEIGHT_BYTES[dt] / t / 1e9)
            else:
                speed = "%5.0f GF/s" % (2.0 * m * n * k / t / 1e9)
            ratio = "%.2f" % (min(v) / t) if v else "-"
            print("%-34s %2d %9s %10s %9s  %s" % (
                desc, threads, ms(t), speed, ratio if dt == "float32" else "-",
                ("-" if pm is None else "%.2f" % pm) if dt == "float32" else
                "%sx f32 GEMV, paired %s" % (ratio, "-" if pm is None else "%.2f" % pm)))
    print("x obl-hsw = the time of NumPy's OpenBLAS with OPENBLAS_CORETYPE=Haswell / "
          "rlx's AVX2 kernels' time (rlx_gemm called directly); 16-bit and int8 GEMVs: "
          "the AVX2 f32 GEMV's time / theirs")
    print(loadavg())


PROCESS_MODEL = """# from tvm.script import ir as I
# from tvm.script import relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2048, 2048), dtype="float32"), w: R.Tensor((2048, 2048), dtype="float32")):
        y = R.matmul(x, w)
        return y
"""

PROCESS_NUMPY = ("import numpy as np, sys\n"
                 "x = np.load(sys.argv[1]); w = np.load(sys.argv[2])\n"
                 "np.save(sys.argv[3], x @ w)\n")


def rlx_time_report(stderr):
    """{phase: seconds} from `rlx run --time`'s report."""
    out = {}
    for line in stderr.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == "s":
            out[f[0]] = float(f[1])
    return out


def process_bench(rlx, env, rounds):
    """Whole processes: the JIT time of a second `rlx run` of
    examples/llama.py (the code cache warm) against the first (cold); and
    `rlx run` of one GEMM 2048^3 with its inputs from .npy and its result
    to .npy against the same NumPy script (python start-up, np.load,
    x @ w, np.save), 1 and 2 threads; then cache_run_row."""
    print()
    print("Whole process (%s; best of %d)" % (loadavg(), rounds))
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "gemm.py")
        with open(model, "w") as f:
            f.write(PROCESS_MODEL)
        x, w = os.path.join(d, "x.npy"), os.path.join(d, "w.npy")
        subprocess.run([sys.executable, "-c",
                        "import numpy as np, sys\n"
                        "r = np.random.default_rng(0)\n"
                        "for p in sys.argv[1:]: np.save(p, r.random((2048, 2048), np.float32))",
                        x, w], env=env, check=True)
        cache = os.path.join(d, "cache")
        args = [rlx, "run", model, "--input", "x=" + x, "--input", "w=" + w,
                "-o", os.path.join(d, "y.npy")]
        renv = dict(os.environ, XDG_CACHE_HOME=cache)
        # the JIT: examples/llama.py (19 kernels) cold, then warm
        ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
        llama, ck = os.path.join(ex, "llama.py"), os.path.join(d, "llama.safetensors")
        ids = os.path.join(d, "ids.npy")
        subprocess.run([rlx, "init-weights", llama, "--seed", "0", "-o", ck], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-c", "import numpy as np, sys\n"
                        "np.save(sys.argv[1], np.array([1, 17, 42, 7], dtype=np.int64))",
                        ids], env=env, check=True)
        jit = []
        for _ in range(2):
            o = subprocess.run([rlx, "run", llama, "--params", ck, "--input",
                                "input_ids=" + ids, "-o", os.path.join(d, "l.npy"), "--time"],
                               env=renv, capture_output=True, text=True, check=True)
            jit.append(rlx_time_report(o.stderr).get("jit"))
        jc, jw = jit
        met = True
        if jc and jw is not None:
            met = jw <= 0.1 * jc
            print("%-34s    %9s %9s %9.3f  %s" % (
                "JIT of llama.py, second run / first", ms(jw), ms(jc), jw / jc,
                "<= 0.10: %s" % ("yes" if met else "NO")))
        peers = [("numpy", env)]
        if host_has("avx512f"):
            peers.append(("obl-skx", dict(env, OPENBLAS_CORETYPE="SkylakeX")))
        for threads in (1, 2):
            rt, pt = [], []
            for _ in range(rounds):
                t0 = time.perf_counter()
                subprocess.run(args, env=dict(renv, RLX_NUM_THREADS=str(threads)),
                               check=True, stdout=subprocess.DEVNULL)
                rt.append(time.perf_counter() - t0)
                for _, penv in peers:
                    t0 = time.perf_counter()
                    subprocess.run([sys.executable, "-c", PROCESS_NUMPY, x, w,
                                    os.path.join(d, "y2.npy")],
                                   env=dict(penv, OPENBLAS_NUM_THREADS=str(threads)),
                                   check=True)
                    pt.append(time.perf_counter() - t0)
            r = min(pt) / min(rt)
            met = met and r >= 1.0
            print("%-34s %2d %9s %9s %9.2f  %s" % (
                "rlx run GEMM 2048^3 from .npy", threads, ms(min(rt)), ms(min(pt)), r,
                ">= 1.0x the NumPy script: %s" % ("yes" if r >= 1.0 else "NO")))
        cache_run_row(rlx, d, renv, rounds)
    print("columns: rlx ms, peer ms, x peer (%s; on the cache row, cat)" % (
        "NumPy held to %s as rlx is (RLX_ISA)" % isa_cap() if isa_cap() else
        "the faster NumPy: as installed or SkylakeX"))
    return met


def cache_run_row(rlx, d, env, rounds):
    """`rlx run DIR` of one token of examples/llama.py scaled to hidden 2048
    and vocab 4096 (368 MiB of weights) from the cache `rlx transform`
    wrote, against `cat` reading the cache's files once (what any reader
    that loads the weights into memory pays at least), alternating, 2
    threads, the cache's pages in the page cache. Shown, not a target."""
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                       "gen_llama_legalized.py")
    model, ck = os.path.join(d, "big.py"), os.path.join(d, "big.safetensors")
    cache, ids = os.path.join(d, "big-cache"), os.path.join(d, "id1.npy")
    with open(model, "w") as f:
        subprocess.run([sys.executable, gen, "--relax", "--hidden", "2048", "--heads", "16",
                        "--ffn", "4096", "--vocab", "4096"], stdout=f, check=True)
    q = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([rlx, "init-weights", model, "--seed", "0", "-o", ck], **q)
    subprocess.run([rlx, "transform", model, "--weights", ck, "-o", cache], **q)
    os.remove(ck)
    subprocess.run([sys.executable, "-c", "import numpy as np, sys\n"
                    "np.save(sys.argv[1], np.array([5], dtype=np.int64))", ids], check=True)
    args = [rlx, "run", cache, "--input", "input_ids=" + ids, "-o", os.path.join(d, "t.npy")]
    renv = dict(env, RLX_NUM_THREADS="2")
    subprocess.run(args, env=renv, **q)  # checks the shards' hashes once
    files = sorted(os.path.join(cache, f) for f in os.listdir(cache))
    nbytes = sum(os.path.getsize(f) for f in files)
    rt, ct = [], []
    for _ in range(max(rounds, 5)):
        t0 = time.perf_counter()
        subprocess.run(args, env=renv, **q)
        rt.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run(["cat"] + files, **q)
        ct.append(time.perf_counter() - t0)
    print("%-34s %2d %9s %9s %9.2f  %s" % (
        "rlx run DIR, 1 token, %d MiB" % (nbytes >> 20), 2, ms(min(rt)), ms(min(ct)),
        min(ct) / min(rt), "shown: x cat of the cache's files"))


TIR_ROWS = [("add", "add 4096x4096 f32 (T_add)"),
            ("sum", "sum 4096x4096 axis 1 (T.init)"),
            ("matmul", "matmul 512^3 f32 (T.init)")]


def tir_bench(bk, rounds):
    """prim_funcs as LegalizeOps writes them (runtime/codegen/codegen_tir.c)
    against rlx's own kernel of the same op on the same buffers, timed
    alternately by bench_kernels tir; target: >= 0.8x rlx's kernel."""
    print()
    print("TIR prim_funcs against rlx's own kernels (%s; median of %d rounds)"
          % (loadavg(), rounds))
    hdr = "%-34s %9s %9s %9s  %-12s %s" % ("row", "tir ms", "op ms", "x op",
                                          "target", "met")
    print(hdr)
    print("-" * len(hdr))
    met = True
    for name, desc in TIR_ROWS:
        tt, to = [], []
        for _ in range(rounds):
            f = run_rlx(bk, ["tir", name, str(REPS)])
            tt.append(float(f[2]))
            to.append(float(f[3]))
        t, o = statistics.median(tt), statistics.median(to)
        ok = o / t >= 0.8
        met = met and ok
        print("%-34s %9s %9s %9.2f  %-12s %s" % (desc, ms(t), ms(o), o / t,
                                                 ">= 0.8", "yes" if ok else "NO"))
    print("x op = rlx's kernel time / the prim_func's (matmul: the block is "
          "dispatched to rlx_gemm)")
    return met


def speed_tables(bk, a, env):
    """The GEMM/GEMV, forward, TIR and whole-process tables: {table: met}."""
    met = {"GEMM/GEMV": gemm_bench(bk, env, a.rounds),
           "TIR": tir_bench(bk, a.rounds)}
    avx2_bench(bk, env, a.rounds)
    return {**met, "forward": forward_bench(bk, env, a.rounds),
            "legalized": legalized_bench(bk, a.rounds),
            "whole process": process_bench(a.rlx, env, a.rounds)}


def report_met(met):
    """The closing line over every table's targets (best-of verdicts)."""
    missed = [k for k, ok in met.items() if not ok]
    print()
    print("all targets met" if not missed else
          "targets NOT met in: " + ", ".join(missed))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of the GEMM/GEMV table (best of)")
    ap.add_argument("--only-gemm", action="store_true",
                    help="only the speed tables (GEMM/GEMV, TIR, forward, "
                    "legalized, whole process): not the kernel rows, the "
                    "transform nor the tensor-parallel benchmarks")
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
    if isa_cap():
        print("RLX_ISA=%s: rlx's JIT and kernels held to %s, NumPy's and PyTorch's "
              "OpenBLAS to its %s kernels, PyTorch to ATEN_CPU_CAPABILITY=%s: every "
              "table as a host of this kind without AVX-512 would run it" % (
                  isa_cap(), isa_cap(), env["OPENBLAS_CORETYPE"],
                  env["ATEN_CPU_CAPABILITY"]))
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

    if a.only_gemm:
        report_met(speed_tables(bk, a, env))
        return
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
        # the compiler itself, not the code cache (the whole-process rows
        # time the cache)
        f = run_rlx(bk, ["compile", str(layers), str(COMPILE_REPS)],
                    dict(os.environ, RLX_NO_CACHE="1"))
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
    print("memcpy copies the op's largest buffer; medians of %d calls, "
          "median of %d rounds" % (REPS, ROUNDS))
    report_met(dict(kernels=met_all, **speed_tables(bk, a, env)))
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
