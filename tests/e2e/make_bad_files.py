#!/usr/bin/python3
"""make_bad_files.py OUTDIR — writes malformed safetensors and .npy files.

Each file must be refused by rlx with a clear error (exit 1 from the CLI, no
crash). OUTDIR/expected.tsv lists `FILE<TAB>SUBSTRING` per line: the error
message for FILE must contain SUBSTRING (and name the file). Used by
tests/unit/test_safetensors.c (the reader) and by end-to-end CLI tests.
"""
import json
import os
import struct
import sys

import numpy as np


def st_bytes(header, data=b"", hlen=None):
    h = header if isinstance(header, bytes) else header.encode()
    n = len(h) if hlen is None else hlen
    return struct.pack("<Q", n) + h + data


def rec(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def st_json(d, data=b""):
    return st_bytes(json.dumps(d), data)


def npy_bytes(header, data=b"", version=1):
    h = header.encode("latin1")
    if version == 1:
        pre = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h))
    else:
        pre = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h))
    return pre + h + data


def npy_hdr(descr="<f4", fortran="False", shape="(2,)"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }\n" % (
        descr, fortran, shape)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    z = bytes(64)
    good = st_json({"a": rec("F32", [4], 0, 16)}, z[:16])
    cases = {
        # safetensors
        "truncated.safetensors": (good[:-3], "past the end of the data area"),
        "short.safetensors": (b"\x10\x00", "too short"),
        "hlen_past_eof.safetensors":
            (st_bytes("{}", hlen=1000), "runs past the end of the file"),
        "hlen_huge.safetensors":
            (st_bytes("{}", hlen=1 << 62), "exceeds the limit"),
        "bad_json.safetensors": (st_bytes('{"a": {'), "bad JSON header"),
        "not_object.safetensors": (st_bytes("[]"), "not a JSON object"),
        "dup_keys.safetensors": (st_bytes(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            '"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', z[:2]),
            "duplicate"),
        "out_of_range.safetensors": (st_json(
            {"a": rec("F32", [4], 0, 400)}, z[:16]),
            "past the end of the data area"),
        "overlap.safetensors": (st_json(
            {"a": rec("F32", [2], 0, 8), "b": rec("F32", [2], 4, 12)},
            z[:12]), "overlaps"),
        "size_mismatch.safetensors": (st_json(
            {"model.embed.weight": rec("F32", [4, 8], 0, 100)}, z + z[:36]),
            "tensor 'model.embed.weight': data_offsets [0, 100] do not "
            "match shape [4, 8] of F32 (128 bytes)"),
        "unknown_dtype.safetensors": (st_json(
            {"a": rec("Q8", [1], 0, 1)}, z[:1]), "unknown dtype 'Q8'"),
        "f8_dtype.safetensors": (st_json(
            {"a": rec("F8_E8M0", [1], 0, 1)}, z[:1]),
            "dtype F8_E8M0 is not supported"),
        "negative_dim.safetensors": (st_json(
            {"a": rec("F32", [-1], 0, 0)}), "negative"),
        "float_dim.safetensors": (st_json(
            {"a": rec("F32", [1.0], 0, 4)}, z[:4]), "not an integer"),
        "trailing.safetensors": (st_json(
            {"a": rec("F32", [1], 0, 4)}, z[:8]), "trailing bytes"),
        "gap.safetensors": (st_json(
            {"a": rec("F32", [1], 0, 4), "b": rec("F32", [1], 8, 12)},
            z[:12]), "belong to no tensor"),
        # npy
        "bad_magic.npy": (b"\x93NUMPX\x01\x00\x00\x00", "bad magic"),
        "truncated.npy": (npy_bytes(npy_hdr(), z[:5]), "truncated data"),
        "hlen_past_eof.npy": (b"\x93NUMPY\x01\x00\xff\x00{}",
                              "runs past the end of the file"),
        "big_endian.npy": (npy_bytes(npy_hdr(">f4"), z[:8]), "big-endian"),
        "fortran.npy": (npy_bytes(npy_hdr(fortran="True"), z[:8]),
                        "Fortran-order"),
        "bad_dict.npy": (npy_bytes("{'descr': '<f4', 'shape': (2,), }\n",
                                   z[:8]), "no 'fortran_order'"),
        "bad_shape.npy": (npy_bytes(npy_hdr(shape="(2)"), z[:8]),
                          "expected a tuple"),
        "unsupported.npy": (npy_bytes(npy_hdr("<c8"), z[:8]),
                            "unsupported dtype '<c8'"),
        "version.npy": (npy_bytes(npy_hdr(), z[:8], version=9),
                        "unsupported .npy format version 9.0"),
        "trailing.npy": (npy_bytes(npy_hdr(), z[:9]), "1 trailing bytes"),
    }
    with open(os.path.join(out, "expected.tsv"), "w") as tsv:
        for name, (data, want) in cases.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            tsv.write("%s\t%s\n" % (name, want))


if __name__ == "__main__":
    main()
