#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_io.c: small valid inputs of
every reader, each a mode byte followed by the files cut by "%%FILE%%"
(fuzz_io.c says what the mode byte selects).

Usage: make_io_corpus.py [OUTDIR]   (default: tests/fuzz/corpus_io)
"""
import ctypes
import ctypes.util
import io
import json
import os
import struct
import sys

import numpy as np

SEP = b"%%FILE%%"
XXH = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
XXH.XXH3_64bits.restype = ctypes.c_uint64
XXH.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

ST_DT = {np.float32: "F32", np.float16: "F16", np.int64: "I64",
         np.int32: "I32", np.uint8: "U8", np.int8: "I8", np.bool_: "BOOL",
         np.float64: "F64", np.int16: "I16"}


def safetensors(tensors, meta=None):
    """The bytes of a safetensors file of name -> array."""
    head, data = {}, b""
    if meta:
        head["__metadata__"] = meta
    for name, a in tensors.items():
        b = a.tobytes()
        head[name] = {"dtype": ST_DT[a.dtype.type], "shape": list(a.shape),
                      "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(head, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def npy(a, version=None):
    f = io.BytesIO()
    if version:
        np.lib.format.write_array(f, a, version=version)
    else:
        np.save(f, a)
    return f.getvalue()


def cache(shards):
    """(json bytes, [shard bytes]) of shards: lists of (name, array, kind)."""
    recs, files = [], []
    for k, shard in enumerate(shards):
        data, rr = b"", []
        for name, a, kind in shard:
            data += b"\0" * (-len(data) % 64)
            r = {"name": name, "shape": list(a.shape),
                 "dtype": str(a.dtype), "format": "raw",
                 "nbytes": a.nbytes, "byteOffset": len(data)}
            if kind:
                r["rlxKind"] = kind
            rr.append(r)
            data += a.tobytes()
        recs.append({"dataPath": "params_shard_%d.bin" % k,
                     "format": "raw-shard", "nbytes": len(data),
                     "rlxHash": "%016x" % XXH.XXH3_64bits(data, len(data)),
                     "records": rr})
        files.append(data)
    top = {"metadata": {"ParamSize": 2, "rlxVersion": "0"}, "records": recs}
    return json.dumps(top, indent=1).encode(), files


def hostile(seeds, a):
    """Caches as someone else could write them (docs/security.md): records
    naming files that are not shards, a listed shard of another size and
    hash, rlxFiles entries, a tensor-parallel cache, many extra records."""
    j, files = cache([[("w", a, None)], [("b", np.array([1, 0], np.bool_), None)]])
    top = json.loads(j)
    planted = json.loads(j)
    planted["records"].append(dict(planted["records"][0], dataPath="notes.txt",
                                   records=[]))
    seeds["cache_planted_datapath"] = b"\3" + json.dumps(planted).encode() + \
        SEP + files[0] + SEP + files[1]
    other = json.loads(j)
    other["records"][1]["nbytes"] = len(files[0])
    other["records"][1]["rlxHash"] = top["records"][0]["rlxHash"]
    seeds["cache_listed_not_own"] = b"\3" + json.dumps(other).encode() + \
        SEP + files[0] + SEP + files[1]
    owned = json.loads(j)
    owned["metadata"]["rlxFiles"] = {
        "notes.txt": {"nbytes": 5, "rlxHash": "0123456789abcdef"},
        "../escape": {"nbytes": -1, "rlxHash": 7}, "model.py": []}
    seeds["cache_rlxfiles"] = b"\3" + json.dumps(owned).encode() + \
        SEP + files[0] + SEP + files[1]
    tp, tfiles = cache([[("w_shard-0", a, None), ("w_shard-1", a, None)],
                        [("g", np.ones(2, np.float32), None)]])
    tpj = json.loads(tp)
    tpj["metadata"]["rlxTensorParallel"] = 2
    seeds["cache_tensor_parallel"] = b"\3" + json.dumps(tpj).encode() + \
        SEP + tfiles[0] + SEP + tfiles[1]
    many = json.loads(j)
    extra = bytes(4 * 500)
    many["records"][1] = {
        "dataPath": "params_shard_1.bin", "format": "raw-shard",
        "nbytes": len(extra),
        "rlxHash": "%016x" % XXH.XXH3_64bits(extra, len(extra)),
        "records": [{"name": "extra_%d" % i, "shape": [1], "dtype": "float32",
                     "format": "raw", "nbytes": 4, "byteOffset": 4 * i}
                    for i in range(500)]}
    seeds["cache_many_extra"] = b"\3" + json.dumps(
        many, separators=(",", ":")).encode() + SEP + files[0] + SEP + extra


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus_io")
    os.makedirs(out, exist_ok=True)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    seeds = {
        "st_two": b"\0" + safetensors(
            {"w": a, "b": np.array([1, 2], dtype=np.int64)}),
        "st_meta_bool": b"\0" + safetensors(
            {"m": np.array([True, False, True]),
             "h": np.ones((1, 2), np.float16),
             "e": np.zeros((0, 4), np.int8)}, {"format": "pt"}),
        "npy_v1_f32": b"\1" + npy(a),
        "npy_v2_i64": b"\1" + npy(np.arange(3, dtype=np.int64), (2, 0)),
        "npy_v3_bool": b"\1" + npy(np.array(True), (3, 0)),
        "npy_u8_empty": b"\1" + npy(np.zeros((0, 2), np.uint8)),
    }
    s1 = safetensors({"a": a})
    s2 = safetensors({"b": np.array([7], dtype=np.int32)})
    index = json.dumps({"metadata": {"total_size": 28}, "weight_map": {
        "a": "model-00001.safetensors", "b": "model-00002.safetensors"}})
    seeds["index_two"] = b"\2" + index.encode() + SEP + s1 + SEP + s2
    j, files = cache([[("w", a, None),
                       ("s", np.array([2, 3], dtype=np.int64), "shape")],
                      [("b", np.array([1, 0], dtype=np.bool_), None),
                       ("e", np.zeros((0,), np.float64), None)]])
    seeds["cache_two"] = b"\3" + j + SEP + files[0] + SEP + files[1]
    seeds["cache_two_patched"] = b"\x0b" + j + SEP + files[0] + SEP + files[1]
    j, files = cache([[("x", np.arange(4, dtype=np.int16), None)]])
    seeds["cache_one_old_name"] = b"\7" + j + SEP + files[0]
    hostile(seeds, a)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(seeds), out))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
