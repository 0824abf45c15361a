#!/usr/bin/python3
"""smoke.py — every benchmark of bench_kernels run once (make test), so a
benchmark that no longer parses, compiles or runs is caught before `make
bench` (which make test does not run). Times are not looked at.

    smoke.py BENCH_KERNELS

TAP output: one line per benchmark, ok when it exits 0 and prints its
result line (bench/bench_kernels.c says what each prints). The GEMM
benchmarks check a few entries of their result against the layout they
are named for, so a benchmark that times another product fails here.
"""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from rlxtest import Tap  # noqa: E402

KERNELS = ["transpose", "cast", "add", "rms_norm", "matmul", "max_pool2d",
           "avg_pool2d", "attention", "conv1d", "sort", "sort1m", "argsort", "topk"]


def main():
    exe = sys.argv[1]
    t = Tap()
    runs = [(["kernel", k, "1"], "kernel " + k) for k in KERNELS]
    runs += [(["tir", k, "1"], "tir " + k) for k in ("add", "sum", "matmul")]
    runs += [(["compile", "1", "1"], "compile 1")]
    # the matmuls checked against their layout by bench_kernels itself
    runs += [(["gemm", "33", "70", "45", lay, dt, "1"], "gemm ")
             for lay in ("t", "n") for dt in ("float32", "float16", "bfloat16")]
    runs += [(["gemm", "3", "64", "48", "t", "int8", "1"], "gemm "),
             (["gemmisa", "generic", "5", "64", "24", "t", "1"], "gemm "),
             (["read", "1", "1"], "read "),
             (["forward", "1", "64", "2", "128", "4", "1"], "forward "),
             (["forward", "1", "64", "2", "128", "4", "1", "int8"], "forward "),
             (["model", os.path.join(ROOT, "examples", "llama.py"), "4", "1", "lift"],
              "model ")]
    for args, want in runs:
        p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=600)
        t.ok(p.returncode == 0 and p.stdout.startswith(want),
             "bench_kernels " + " ".join(args),
             "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout, p.stderr))
    t.done()


if __name__ == "__main__":
    main()
