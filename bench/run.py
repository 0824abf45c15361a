#!/usr/bin/python3
"""make bench: rlx's kernels against NumPy and memcpy, and JIT compile time.

Usage: bench/run.py BUILD/rlx

Every row is measured side by side in this one run: the rlx kernel and a
memcpy of the same bytes (the largest buffer of the op) by
BUILD/bench/bench_kernels, then the same op in NumPy, alternating for
ROUNDS rounds; each measurement is the median of REPS calls, and a row
reports the median over the rounds. Ratios are speeds relative to rlx:
"x numpy" = numpy time / rlx time (above 1: rlx is faster), "of memcpy" =
memcpy time / rlx time (1.0: as fast as copying the bytes).

NumPy runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (they slow a
current OpenBLAS down on this machine). When NumPy's own BLAS is not
OpenBLAS (Debian's numpy falls back to the reference BLAS unless an
OpenBLAS package is installed), Debian's libopenblas0-pthread is unpacked
into BUILD/bench-deps with `apt-get download` + `dpkg -x` and put first on
NumPy's library path, without installing anything system-wide; the kernel
threadpoolctl reports is printed.
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

ROUNDS = 3
REPS = 15
COMPILE_REPS = 5

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


def numpy_env(extra_libs, extra_py):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    if extra_libs:
        env["LD_LIBRARY_PATH"] = ":".join(
            [extra_libs] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    if extra_py:
        env["PYTHONPATH"] = ":".join(
            [extra_py] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
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


def fetch_deps(build):
    """Unpacks Debian's OpenBLAS and threadpoolctl into BUILD/bench-deps;
    returns (library dir or None, python dir or None)."""
    root = os.path.join(build, "bench-deps")
    libdir = os.path.join(root, "root/usr/lib/x86_64-linux-gnu/openblas-pthread")
    pydir = os.path.join(root, "root/usr/lib/python3/dist-packages")
    if not os.path.exists(os.path.join(libdir, "libblas.so.3")):
        if not shutil.which("apt-get") or not shutil.which("dpkg"):
            return None, None
        os.makedirs(root, exist_ok=True)
        for pkg in ("libopenblas0-pthread", "python3-threadpoolctl"):
            subprocess.run(["apt-get", "download", "-qq", pkg], cwd=root,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for deb in glob.glob(os.path.join(root, "*.deb")):
            subprocess.run(["dpkg", "-x", deb, os.path.join(root, "root")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (libdir if os.path.exists(os.path.join(libdir, "libblas.so.3")) else None,
            pydir if os.path.exists(os.path.join(pydir, "threadpoolctl.py")) else None)


def choose_numpy(build):
    """The environment NumPy is timed in, and what it reports."""
    env = numpy_env(None, None)
    info = numpy_info(env)
    blas = blas_of(info)
    if blas and blas.get("internal_api") == "openblas":
        return env, info, "numpy's own OpenBLAS"
    libdir, pydir = fetch_deps(build)
    if libdir:
        env2 = numpy_env(libdir, pydir)
        info2 = numpy_info(env2)
        blas2 = blas_of(info2)
        if blas2 is None or blas2.get("internal_api") == "openblas":
            return env2, info2, "Debian's OpenBLAS unpacked in " + libdir
    if pydir:
        env = numpy_env(None, pydir)
        info = numpy_info(env)
    return env, info, "numpy's own BLAS (no OpenBLAS could be had)"


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


def ms(t):
    return "%.2f" % (t * 1e3)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: bench/run.py BUILD/rlx")
    build = os.path.dirname(os.path.abspath(sys.argv[1]))
    bk = os.path.join(build, "bench", "bench_kernels")
    if not os.path.exists(bk):
        raise SystemExit("%s is missing: build first" % bk)
    env, info, how = choose_numpy(build)
    blas = blas_of(info)
    print("numpy %s, BLAS: %s" % (info["numpy"], how))
    if blas:
        print("threadpoolctl: %s %s, kernel %s, %s threads" % (
            blas.get("internal_api"), blas.get("version"),
            blas.get("architecture"), blas.get("num_threads")))
    else:
        print("threadpoolctl: not available, the BLAS kernel is unknown")

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
        "row", "rlx ms", "numpy ms", "x numpy", "memcpy ms", "of memcpy",
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
        memory_bound = name != "matmul"
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
    print()
    print("memcpy copies the op's largest buffer; medians of %d calls, "
          "median of %d rounds" % (REPS, ROUNDS))
    print("all targets met" if met_all else "some targets NOT met")


if __name__ == "__main__":
    main()
