#!/usr/bin/python3
"""smoke.py — every benchmark of bench_kernels run once (make test), so a
benchmark that no longer parses, compiles or runs is caught before `make
bench` (which make test does not run). Times are not looked at.

    smoke.py BENCH_KERNELS

TAP output: one line per benchmark, ok when it exits 0 and prints its
result line (bench/bench_kernels.c says what each prints).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "e2e"))
from rlxtest import Tap  # noqa: E402

KERNELS = ["transpose", "cast", "add", "rms_norm", "matmul", "max_pool2d",
           "avg_pool2d", "attention", "conv1d", "sort", "sort1m", "argsort", "topk"]


def main():
    exe = sys.argv[1]
    t = Tap()
    runs = [(["kernel", k, "1"], "kernel " + k) for k in KERNELS]
    runs += [(["tir", k, "1"], "tir " + k) for k in ("add", "sum", "matmul")]
    runs += [(["compile", "1", "1"], "compile 1")]
    for args, want in runs:
        p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=600)
        t.ok(p.returncode == 0 and p.stdout.startswith(want),
             "bench_kernels " + " ".join(args),
             "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout, p.stderr))
    t.done()


if __name__ == "__main__":
    main()
