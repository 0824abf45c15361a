#!/usr/bin/python3
"""bench/transform/run.py RLX [--gib N] [--repeat N] [--rss-gib A,B] [--workdir DIR]

Benchmarks `rlx transform` on a synthetic checkpoint (N GiB of float32
projection weights, 22 layers of q/k/v at 2048x2048 for 1 GiB) against the same
transform written in NumPy and against a plain `cp` of the checkpoint (the
bandwidth bound), one row per transform, each row measured alternately in one
run (cp, rlx, NumPy, three times by default; the best time of each: on this
VM the kernel's page-cache writes alone swing 0.14-0.9 s per GiB from run to
run, for cp and a bare C write() loop as much as for rlx). Then the peak resident
memory of rlx on a checkpoint of A GiB against one of B GiB.

Prints a table with the measured ratios next to the targets:
  end to end >= 0.8 x the speed of cp; >= 1.5x NumPy on every row,
  >= 2.5x on int8 quantization and QKV fusion; peak RSS(B) <= 1.2 x RSS(A).
Exit 0 always when the runs succeed (the table says what is met); 1 when a run
fails. Everything is written under --workdir (default: a temporary
directory next to the build) and removed at the end.
"""
import argparse
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

D = 2048          # projection size: each weight is D x D float32 (16 MiB)
GROUP = 32        # int8 quantization group along the input dimension
MIB = 1 << 20


# ------------------------------------------------------------ checkpoint

def layers_for(gib):
    per_layer = 3 * D * D * 4
    return max(1, -(-int(gib * (1 << 30)) // per_layer))


def names(layers):
    return ["model.layers.%d.self_attn.%s_proj.weight" % (l, p)
            for l in range(layers) for p in "qkv"]


def write_checkpoint(path, layers):
    """A safetensors file of 3 * layers random D x D float32 tensors."""
    ns = names(layers)
    nb = D * D * 4
    hdr = {n: {"dtype": "F32", "shape": [D, D], "data_offsets": [i * nb, (i + 1) * nb]}
           for i, n in enumerate(ns)}
    h = json.dumps(hdr).encode()
    h += b" " * (-(8 + len(h)) % 64)      # data aligned to 64 bytes
    rng = np.random.default_rng(0)
    base = rng.standard_normal(D * D, dtype=np.float32) * np.float32(0.02)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for i in range(len(ns)):
            # distinct tensors, cheaply: a scaled, rolled copy of one block
            np.roll(base, i * 977).__imul__(np.float32(1 + i / 1000)).tofile(f)


# ------------------------------------------------------------------ models

def tensor(shape, dt="float32"):
    return 'R.Tensor((%s), dtype="%s")' % (", ".join(map(str, shape)), dt)


def model(kind, layers):
    """One benchmark transform over the checkpoint, already lifted:
    main_transform_params computes the outputs, main takes them."""
    ps, body, outs = [], [], []
    for l in range(layers):
        q, k, v = ["model.layers.%d.self_attn.%s_proj.weight" % (l, p) for p in "qkv"]
        for n in (q, k, v):
            ps.append("`%s`: %s" % (n, tensor((D, D))))
        if kind == "qkv":
            body.append("l%d_qkv = R.concat((`%s`, `%s`, `%s`), axis=0)" % (l, q, k, v))
            outs.append(("l%d_qkv" % l, tensor((3 * D, D))))
            continue
        for j, n in enumerate((q, k, v)):
            o = "w%d_%d" % (l, j)
            if kind == "transpose":
                body.append("%s = R.permute_dims(`%s`, axes=[1, 0])" % (o, n))
                outs.append((o, tensor((D, D))))
            elif kind in ("f16", "bf16"):
                dt = "float16" if kind == "f16" else "bfloat16"
                body.append('%s = R.astype(`%s`, dtype="%s")' % (o, n, dt))
                outs.append((o, tensor((D, D), dt)))
            elif kind == "int8":
                g = "%s_g" % o
                body += ["%s = R.reshape(`%s`, R.shape([%d, %d, %d]))" % (g, n, D, D // GROUP, GROUP),
                         "%s_s = R.maximum(R.divide(R.max(R.abs(%s), axis=[2], keepdims=True), "
                         'R.const(127.0, "float32")), R.const(1e-08, "float32"))' % (o, g),
                         '%s_q = R.astype(R.clip(R.round(R.divide(%s, %s_s)), R.prim_value(-127), '
                         'R.prim_value(127)), dtype="int8")' % (o, g, o)]
                outs += [("%s_q" % o, tensor((D, D // GROUP, GROUP), "int8")),
                         ("%s_s" % o, tensor((D, D // GROUP, 1)))]
    tup = "R.Tuple(%s)" % ", ".join(t for _, t in outs)
    lines = "\n".join("            " + b for b in body)
    return '''# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1,), dtype="float32"), %s) -> R.Tensor((1,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x

    @R.function
    def main_transform_params(%s) -> %s:
        R.func_attr({"num_input": 0})
        with R.dataflow():
%s
            gv = (%s,)
            R.output(gv)
        return gv
''' % (", ".join("%s: %s" % o for o in outs), ", ".join(ps), tup, lines,
       ", ".join(n for n, _ in outs))


# ------------------------------------------------------------ NumPy version

def read_st(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
    mm = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    return {k: mm[r["data_offsets"][0]:r["data_offsets"][1]].view(np.float32).reshape(r["shape"])
            for k, r in hdr.items() if k != "__metadata__"}


def to_bf16(a):
    u = a.view(np.uint32)
    return ((u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) >> 16).astype(np.uint16)


def numpy_transform(kind, ckpt, out_dir, layers):
    """The same transform in NumPy, written to raw shard files."""
    os.makedirs(out_dir)
    w = read_st(ckpt)
    with open(os.path.join(out_dir, "params.bin"), "wb") as f:
        for l in range(layers):
            q, k, v = [w["model.layers.%d.self_attn.%s_proj.weight" % (l, p)] for p in "qkv"]
            if kind == "qkv":
                np.concatenate([q, k, v]).tofile(f)
                continue
            for a in (q, k, v):
                if kind == "transpose":
                    np.ascontiguousarray(a.T).tofile(f)
                elif kind == "f16":
                    a.astype(np.float16).tofile(f)
                elif kind == "bf16":
                    to_bf16(a).tofile(f)
                elif kind == "int8":
                    g = a.reshape(D, D // GROUP, GROUP)
                    s = np.maximum(np.abs(g).max(axis=2, keepdims=True) / np.float32(127),
                                   np.float32(1e-8))
                    np.clip(np.round(g / s), -127, 127).astype(np.int8).tofile(f)
                    s.tofile(f)


# ------------------------------------------------------------------ timing

def run_timed(cmd, **kw):
    """(wall seconds, peak RSS bytes, CPU seconds) of a child process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    out, err = p.communicate()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.stderr.write("bench: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                          out.decode(), err.decode()))
        sys.exit(1)
    return dt, ru.ru_maxrss * 1024, ru.ru_utime + ru.ru_stime


def loadavg():
    return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def drop(path):
    """Removes an output and flushes dirty pages (untimed), so that the
    writeback of one run does not throttle the next."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        os.remove(path)
    os.sync()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx")
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rss-gib", default="2,4")
    ap.add_argument("--rows", default="transpose,f16,bf16,qkv,int8")
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    rlx = os.path.abspath(a.rlx)
    work = tempfile.mkdtemp(prefix="rlx-bench-", dir=a.workdir)
    try:
        bench(a, rlx, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench(a, rlx, work):
    layers = layers_for(a.gib)
    ckpt = os.path.join(work, "ckpt.safetensors")
    write_checkpoint(ckpt, layers)
    size = os.path.getsize(ckpt)
    print("transform benchmark: %d tensors, %.2f GiB float32 checkpoint, best of %d, "
          "%d cores, %s" % (3 * layers, size / (1 << 30), a.repeat, os.cpu_count(),
                            loadavg()))
    os.sync()
    subprocess.run(["cat", ckpt], stdout=subprocess.DEVNULL)   # warm the page cache
    rows = []
    for kind in a.rows.split(","):
        mp = os.path.join(work, kind + ".py")
        with open(mp, "w") as f:
            f.write(model(kind, layers))
        best = {"cp": 1e9, "rlx": 1e9, "numpy": 1e9, "rlx_cpu": 1e9, "numpy_cpu": 1e9}
        for _ in range(a.repeat):
            out = os.path.join(work, "out")
            dt, _, _ = run_timed(["cp", ckpt, out])
            best["cp"] = min(best["cp"], dt)
            drop(out)
            dt, _, cpu = run_timed([rlx, "transform", mp, "--weights", ckpt, "-o", out, "--quiet"])
            best["rlx"] = min(best["rlx"], dt)
            best["rlx_cpu"] = min(best["rlx_cpu"], cpu)
            drop(out)
            dt, _, cpu = run_timed([sys.executable, __file__, "--numpy", kind, ckpt, out, str(layers)])
            best["numpy"] = min(best["numpy"], dt)
            best["numpy_cpu"] = min(best["numpy_cpu"], cpu)
            drop(out)
        rows.append((kind, best))
    print()
    print("wall seconds (best of %d); cpu: user+sys seconds of the process, which the"
          % a.repeat)
    print("other users of a shared machine do not inflate. rlx/cp = cp time / rlx time,")
    print("target >= 0.8; x numpy = numpy time / rlx time, target >= 1.5 (2.5 for qkv, int8)")
    hdr = "%-10s %6s %6s %6s %8s %8s %7s %-4s %8s %-4s %9s" % (
        "row", "cp", "rlx", "numpy", "rlx cpu", "np cpu", "rlx/cp", "met", "x numpy",
        "met", "x np cpu")
    print(hdr)
    print("-" * len(hdr))
    met_all = True
    for kind, b in rows:
        speed_cp = b["cp"] / b["rlx"]           # >= 0.8: rlx at 80% of cp's speed
        vs_np = b["numpy"] / b["rlx"]
        cpu_np = b["numpy_cpu"] / b["rlx_cpu"]
        target = 2.5 if kind in ("qkv", "int8") else 1.5
        met_all = met_all and speed_cp >= 0.8 and vs_np >= target
        print("%-10s %6.2f %6.2f %6.2f %8.2f %8.2f %7.2f %-4s %7.2fx %-4s %8.2fx" % (
            kind, b["cp"], b["rlx"], b["numpy"], b["rlx_cpu"], b["numpy_cpu"], speed_cp,
            "yes" if speed_cp >= 0.8 else "NO", vs_np, "yes" if vs_np >= target else "NO",
            cpu_np))
    print(loadavg())

    # peak RSS: A GiB vs B GiB
    ga, gb = (float(x) for x in a.rss_gib.split(","))
    rss = []
    for g in (ga, gb):
        drop(ckpt)
        n = layers_for(g)
        write_checkpoint(ckpt, n)
        os.sync()
        mp = os.path.join(work, "rss.py")
        with open(mp, "w") as f:
            f.write(model("transpose", n))
        out = os.path.join(work, "out")
        dt, r, _ = run_timed([rlx, "transform", mp, "--weights", ckpt, "-o", out, "--quiet"])
        drop(out)
        rss.append((g, os.path.getsize(ckpt), r, dt))
    print()
    print("peak resident memory of rlx transform (transpose):")
    for g, sz, r, dt in rss:
        print("  %.2f GiB checkpoint: peak RSS %7.1f MiB  (%.2f s)" % (sz / (1 << 30), r / MIB, dt))
    ratio = rss[1][2] / rss[0][2]
    met_all = met_all and ratio <= 1.2
    print("  ratio %.2f (target <= 1.2): %s" % (ratio, "yes" if ratio <= 1.2 else "NO"))
    print("all transform targets met" if met_all else "some transform targets NOT met")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--numpy":
        kind, ckpt, out, layers = sys.argv[2:6]
        numpy_transform(kind, ckpt, out, int(layers))
    else:
        main()
