"""rlxtest.py — helpers for the end-to-end tests: safetensors writing,
running `rlx`, and TAP output. NumPy is the oracle; nothing binary is
stored: every file is generated at test time."""
import json
import os
import struct
import subprocess
import sys

import numpy as np

RLX = os.environ.get("RLX", "build/rlx")

ST_DTYPES = {
    "bool": "BOOL", "int8": "I8", "int16": "I16", "int32": "I32",
    "int64": "I64", "uint8": "U8", "float16": "F16", "bfloat16": "BF16",
    "float32": "F32", "float64": "F64",
}


def f32_to_bf16(a):
    """float32 array → uint16 bfloat16 bits, round to nearest even."""
    a = np.asarray(a, dtype=np.float32)
    u = np.ascontiguousarray(a).reshape(-1).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return r.astype(np.uint16).reshape(a.shape)


def bf16_to_f32(b):
    """uint16 bfloat16 bits → float32."""
    b = np.asarray(b)
    return (b.reshape(-1).astype(np.uint32) << 16).view(np.float32).reshape(b.shape)


def write_safetensors(path, tensors):
    """tensors: {name: array} or {name: (rlx dtype name, array of bits)}."""
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        if isinstance(t, tuple):
            dt, arr = t
        else:
            arr = t
            dt = "bool" if arr.dtype == np.bool_ else str(arr.dtype)
        data = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": ST_DTYPES[dt], "shape": list(arr.shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def rlx(*args, timeout=300):
    """Runs rlx; returns (exit status, stdout, stderr)."""
    p = subprocess.run([RLX] + [str(a) for a in args], capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


class Tap:
    """Minimal TAP producer: ok/not ok lines, skips, a plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, name))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for line in str(diag).splitlines()[:40]:
                print("#   " + line)
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def guard(self, fn, *args):
        """Runs fn(*args); an exception is a failed case with its
        traceback (so the log says what broke), not a lost TAP stream."""
        import traceback
        try:
            return fn(*args)
        except Exception:  # noqa: BLE001 -- reported, then the next case
            self.ok(False, "%s ran to its end" % fn.__name__,
                    traceback.format_exc())
            return None

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)
