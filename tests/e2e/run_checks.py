#!/usr/bin/python3
"""run_checks.py — what an op's struct-info rule assumes about symbolic
dims and cannot prove at compile time is checked at run time, before the
kernel (ir.h's Assume, recorded by compiler/infer_ops.c, checked by
runtime/exec.c).

Each case is a small model with symbolic dims and two sets of input
shapes: one that satisfies the rule's assumption (the run must succeed)
and one that violates it (exit 1, an error located at the call --
`model.py:LINE:COL: error: MESSAGE` -- and no output file). One case per
assumption of every op rule that has one; the list in the report of
docs/language.md ("Shapes checked at run time") follows this table.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rlxtest import Tap, np, rlx, write_safetensors  # noqa: E402

HEAD = '''\
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(%s):
'''

F = "float32"


def t(*dims, dtype=F):
    """An annotation R.Tensor((dims), dtype)."""
    return 'R.Tensor((%s), "%s")' % ("".join('"%s", ' % d if isinstance(d, str)
                                             else "%d, " % d for d in dims), dtype)


# (name, parameters, body, good inputs, bad inputs, message after "error: ")
# An input is a shape (float32), (shape, dtype) or an array. No good inputs:
# the rule's result has no shape when the dims are not provably equal (as
# TVM's), which rlx run cannot allocate; the violation is still caught first.
CASES = [
    ("matmul: inner dims", "x: %s, w: %s" % (t("m", "k"), t("k2", "n")),
     ["y = R.matmul(x, w)"], {"x": (2, 3), "w": (3, 4)}, {"x": (2, 3), "w": (5, 4)},
     "R.matmul: x's dimension 1 is 3 but w's dimension 0 is 5"),
    ("matmul: inner dims, 1-D right", "x: %s, w: %s" % (t("b", "m", "k"), t("k2")),
     ["y = R.matmul(x, w)"], {"x": (2, 2, 3), "w": (3,)}, {"x": (2, 2, 3), "w": (4,)},
     "R.matmul: x's dimension 2 is 3 but w's dimension 0 is 4"),
    ("matmul: symbolic batch dims broadcast (the result's shape at run time)",
     "x: %s, w: %s" % (t("b1", 2, 3), t("b2", 3, 4)),
     ["y = R.matmul(x, w)"], {"x": (1, 2, 3), "w": (3, 3, 4)}, {"x": (2, 2, 3), "w": (3, 3, 4)},
     "binding 'y': R.matmul: batch dimensions 2 and 3 do not broadcast"),
    ("matmul: inner dims of operands of unknown shape",
     "x: R.Tensor(dtype=\"float32\", ndim=3), w: R.Tensor(dtype=\"float32\", ndim=2)",
     ["y = R.matmul(x, w)"], {"x": (2, 2, 3), "w": (3, 4)}, {"x": (2, 2, 3), "w": (5, 4)},
     "binding 'y': R.matmul: the inner dimensions are 3 and 5"),
    ("reshape: element counts", "x: %s" % t("n", "m"),
     ["y = R.reshape(x, R.shape([6]))"], {"x": (2, 3)}, {"x": (2, 4)},
     "R.reshape: the element count of x is 8 but the new shape's is 6"),
    ("reshape: -1 divides", "x: %s" % t("n", "m"),
     ["y = R.reshape(x, R.shape([-1, 4]))"], {"x": (2, 6)}, {"x": (3, 3)},
     "R.reshape: the element count of x (9) is not a multiple of the product "
     "of the other new dimensions (4)"),
    ("nn.conv2d: channels and groups (TVM's symbolic-group module)",
     "x: %s, w: %s" % (t("n", "c", 6, 6), t("f", "cg", 3, 3)),
     ["y = R.nn.conv2d(x, w, groups=2)"], {"x": (1, 4, 6, 6), "w": (2, 2, 3, 3)},
     {"x": (1, 4, 6, 6), "w": (2, 3, 3, 3)},
     "R.nn.conv2d: x's channels is 4 but w's input channels times groups (2) is 6"),
    ("nn.conv2d: output channels divisible by groups",
     "x: %s, w: %s" % (t("n", "c", 6, 6), t("f", "cg", 3, 3)),
     ["y = R.nn.conv2d(x, w, groups=2)"], {"x": (1, 4, 6, 6), "w": (4, 2, 3, 3)},
     {"x": (1, 4, 6, 6), "w": (1, 2, 3, 3)},
     "R.nn.conv2d: w's output channels (1) is not a multiple of groups (2)"),
    ("nn.conv2d: the kernel fits the input", "x: %s, w: %s" % (t(1, 2, "h", "h"), t(2, 2, 3, 3)),
     ["y = R.nn.conv2d(x, w)"], {"x": (1, 2, 4, 4), "w": (2, 2, 3, 3)},
     {"x": (1, 2, 2, 2), "w": (2, 2, 3, 3)},
     "R.nn.conv2d: the output height would be 0: it must be at least 1"),
    ("nn.conv1d: channels", "x: %s, w: %s" % (t(1, "c", 5), t(2, "c2", 3)),
     ["y = R.nn.conv1d(x, w)"], {"x": (1, 3, 5), "w": (2, 3, 3)}, {"x": (1, 3, 5), "w": (2, 2, 3)},
     "R.nn.conv1d: x's channels is 3 but w's input channels times groups (1) is 2"),
    ("nn.conv2d_transpose: channels", "x: %s, w: %s" % (t(1, "c", 3, 3), t("c2", 2, 3, 3)),
     ["y = R.nn.conv2d_transpose(x, w)"], {"x": (1, 2, 3, 3), "w": (2, 2, 3, 3)},
     {"x": (1, 2, 3, 3), "w": (3, 2, 3, 3)},
     "R.nn.conv2d_transpose: x's channels is 2 but w's input channels is 3"),
    ("nn.max_pool2d: the window fits the input", "x: %s" % t(1, 1, "h", "w"),
     ["y = R.nn.max_pool2d(x, pool_size=[3, 3])"], {"x": (1, 1, 4, 4)}, {"x": (1, 1, 2, 4)},
     "R.nn.max_pool2d: the pool window (3) is more than x's padded height (2)"),
    ("split: every section fits", "x: %s" % t("n"),
     ["y = R.split(x, indices_or_sections=3)"], {"x": (5,)}, {"x": (1,)},
     "R.split: the length of the first 2 sections (2) is more than x's dimension 0 (1)"),
    ("split: the last index within the axis", "x: %s" % t("n"),
     ["y = R.split(x, indices_or_sections=[2, 5])"], {"x": (6,)}, {"x": (4,)},
     "R.split: the last index (5) is more than x's dimension 0 (4)"),
    ("nn.pad edge: a padded axis is not empty", "x: %s" % t(2, "n"),
     ['y = R.nn.pad(x, pad_width=[0, 0, 2, 1], pad_mode="edge")'], {"x": (2, 1)}, {"x": (2, 0)},
     "R.nn.pad: x's dimension 1, padded in mode \"edge\", would be 0: it must be at least 1"),
    ("nn.pad reflect: each side less than the axis", "x: %s" % t(2, "n"),
     ['y = R.nn.pad(x, pad_width=[0, 0, 1, 3], pad_mode="reflect")'], {"x": (2, 4)},
     {"x": (2, 3)},
     "R.nn.pad: the reflected padding after axis 1 (3) must be less than x's dimension 1 (3)"),
    ("concat: dims outside the axis", "a: %s, b: %s" % (t("n", 2), t("m", "k")),
     ["y = R.concat((a, b), axis=0)"], None, {"a": (2, 2), "b": (3, 5)},
     "R.concat: b's dimension 1 is 5 but a's dimension 1 is 2"),
    ("stack: equal shapes", "a: %s, b: %s" % (t("n"), t("m")),
     ["y = R.stack((a, b), axis=0)"], None, {"a": (3,), "b": (4,)},
     "R.stack: b's dimension 0 is 4 but a's dimension 0 is 3"),
    ("broadcast_to: a dim broadcasts", "x: %s, s: R.Shape([\"p\", \"q\"])" % t("n", "m"),
     ["y = R.broadcast_to(x, s)"], {"x": (1, 3), "s": (np.array([2, 3]))},
     {"x": (1, 3), "s": (np.array([2, 4]))},
     "R.broadcast_to: x's dimension 1 is 3, neither 1 nor the new shape's dimension 1 (4)"),
    ("nn.prelu: alpha per channel", "x: %s, a: %s" % (t(2, "c"), t("k")),
     ["y = R.nn.prelu(x, a)"], {"x": (2, 3), "a": (3,)}, {"x": (2, 3), "a": (2,)},
     "R.nn.prelu: a's dimension 0 is 2, neither 1 nor x's dimension 1 (3)"),
    ("nn.rms_norm: weight of the normalized dims", "x: %s, g: %s" % (t(2, "h"), t("h2")),
     ["y = R.nn.rms_norm(x, g, axes=[-1])"], {"x": (2, 4), "g": (4,)}, {"x": (2, 4), "g": (5,)},
     "R.nn.rms_norm: g's dimension 0 is 5 but x's dimension 1 is 4"),
    ("nn.layer_norm: beta of the normalized dims",
     "x: %s, g: %s, b: %s" % (t(2, "h"), t("h"), t("h2")),
     ["y = R.nn.layer_norm(x, g, b, axes=[-1])"], {"x": (2, 4), "g": (4,), "b": (4,)},
     {"x": (2, 4), "g": (4,), "b": (3,)},
     "R.nn.layer_norm: b's dimension 0 is 3 but x's dimension 1 is 4"),
    ("nn.group_norm: channels divisible by num_groups",
     "x: %s, g: %s, b: %s" % (t(1, "c", 4), t("c"), t("c")),
     ["y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2])"],
     {"x": (1, 4, 4), "g": (4,), "b": (4,)}, {"x": (1, 3, 4), "g": (3,), "b": (3,)},
     "R.nn.group_norm: x's dimension 1 (3) is not a multiple of num_groups (2)"),
    ("nn.batch_norm: moving_var of the channels",
     "x: %s, g: %s, b: %s, mm: %s, mv: %s" % (t(2, "c"), t("c"), t("c"), t("c"), t("c2")),
     ["y = R.nn.batch_norm(x, g, b, mm, mv, axis=1)"],
     {"x": (2, 3), "g": (3,), "b": (3,), "mm": (3,), "mv": (3,)},
     {"x": (2, 3), "g": (3,), "b": (3,), "mm": (3,), "mv": (4,)},
     "R.nn.batch_norm: mv's dimension 0 is 4 but x's dimension 1 is 3"),
    ("nn.attention: sequence lengths of key and value",
     "q: %s, k: %s, v: %s" % (t(1, "s", 2, 4), t(1, "s2", 2, 4), t(1, "s3", 2, 4)),
     ["y = R.nn.attention(q, k, v)"],
     {"q": (1, 3, 2, 4), "k": (1, 5, 2, 4), "v": (1, 5, 2, 4)},
     {"q": (1, 3, 2, 4), "k": (1, 5, 2, 4), "v": (1, 6, 2, 4)},
     "R.nn.attention: v's dimension 1 is 6 but k's dimension 1 is 5"),
    ("nn.attention: query heads a multiple of key heads",
     "q: %s, k: %s, v: %s" % (t(1, 3, "h", 4), t(1, 5, "hk", 4), t(1, 5, "hk", 4)),
     ["y = R.nn.attention(q, k, v)"],
     {"q": (1, 3, 4, 4), "k": (1, 5, 2, 4), "v": (1, 5, 2, 4)},
     {"q": (1, 3, 3, 4), "k": (1, 5, 2, 4), "v": (1, 5, 2, 4)},
     "R.nn.attention: q's dimension 2 (3) is not a multiple of k's dimension 2 (2)"),
    ("gather_elements: indices within data off the axis",
     "x: %s, i: %s" % (t("n", "m"), t("p", "q", dtype="int64")),
     ["y = R.gather_elements(x, i, axis=1)"], {"x": (3, 4), "i": ((3, 2), "int64")},
     {"x": (3, 4), "i": ((4, 2), "int64")},
     "R.gather_elements: i's dimension 0 (4) is more than x's dimension 0 (3)"),
    ("scatter_elements: updates like indices",
     "x: %s, i: %s, u: %s" % (t("n", "m"), t("p", "q", dtype="int64"), t("r", "s")),
     ["y = R.scatter_elements(x, i, u, axis=1)"],
     {"x": (3, 4), "i": ((3, 2), "int64"), "u": (3, 2)},
     {"x": (3, 4), "i": ((3, 2), "int64"), "u": (3, 3)},
     "R.scatter_elements: u's dimension 1 is 3 but i's dimension 1 is 2"),
    ("scatter_nd: updates fit indices and data",
     "x: %s, i: %s, u: %s" % (t("n", "m"), t("p", 1, dtype="int64"), t("r", "s")),
     ["y = R.scatter_nd(x, i, u)"],
     {"x": (3, 4), "i": ((2, 1), "int64"), "u": (2, 4)},
     {"x": (3, 4), "i": ((2, 1), "int64"), "u": (2, 5)},
     "R.scatter_nd: u's dimension 1 is 5 but x's dimension 1 is 4"),
    ("gather_nd: batch dims agree",
     "x: %s, i: %s" % (t("n", "m"), t("p", 1, dtype="int64")),
     ["y = R.gather_nd(x, i, batch_dims=1)"],
     {"x": (3, 4), "i": ((3, 1), "int64")}, {"x": (3, 4), "i": ((2, 1), "int64")},
     "R.gather_nd: i's dimension 0 is 2 but x's dimension 0 is 3"),
    ("einsum: a subscript's dims across operands", "a: %s, b: %s" % (t("m", "k"), t("k2", "n")),
     ['y = R.einsum((a, b), subscripts="ij,jk->ik")'], {"a": (2, 3), "b": (1, 4)},
     {"a": (2, 3), "b": (5, 4)},
     "R.einsum: b's dimension 0 is 5, neither 1 nor a's dimension 1 (3)"),
    ("einsum: a subscript repeated in one operand", "a: %s" % t("m", "k"),
     ['y = R.einsum((a,), subscripts="ii->i")'], {"a": (3, 3)}, {"a": (2, 3)},
     "R.einsum: a's dimension 1 is 3, neither 1 nor a's dimension 0 (2)"),
    ("topk: k fits the axis", "x: %s" % t(2, "n"),
     ['y = R.topk(x, k=3, axis=-1, ret_type="values")'], {"x": (2, 4)}, {"x": (2, 2)},
     "R.topk: k (3) is more than x's dimension 1 (2)"),
    ("squeeze: a squeezed axis is 1", "x: %s" % t("n", "m"),
     ["y = R.squeeze(x, axis=[1])"], {"x": (3, 1)}, {"x": (3, 2)},
     "R.squeeze: x's dimension 1 is 2 but the length of a squeezed axis is 1"),
    ("strided_slice assume_inbound: end within the dim", "x: %s" % t("n"),
     ["y = R.strided_slice(x, axes=[0], begin=[1], end=[4], assume_inbound=True)"],
     {"x": (5,)}, {"x": (2,)},
     "R.strided_slice: end (4) is more than x's dimension 0 (2)"),
    ("ccl.scatter_from_worker0: the axis divides among the workers", "x: %s" % t("n", 2),
     ["y = R.ccl.scatter_from_worker0(x, num_workers=2, axis=0)"], {"x": (4, 2)}, {"x": (3, 2)},
     "R.ccl.scatter_from_worker0: x's dimension 0 (3) is not a multiple of num_workers (2)"),
    ("dist.redistribute_replica_to_shard: the axis divides", "x: %s" % t(2, "n"),
     ["y = R.dist.redistribute_replica_to_shard(x, num_workers=2, axis=1)"], {"x": (2, 6)},
     {"x": (2, 5)},
     "R.dist.redistribute_replica_to_shard: x's dimension 1 (5) is not a multiple of "
     "num_workers (2)"),
    # index values (checked unless --no-index-check)
    ("take fast: an index out of range", "e: %s, i: %s" % (t(10, 4), t("t", dtype="int64")),
     ["y = R.take(e, i, axis=0)"], {"e": (10, 4), "i": np.array([0, 9, -10])},
     {"e": (10, 4), "i": np.array([1, 10, 3])},
     "R.take: i[1] is 10, outside [-10, 10), the range of e's dimension 0"),
    ("take fast, no axis: the flattened size", "e: %s, i: %s" % (t(2, 3), t("t", dtype="int32")),
     ["y = R.take(e, i)"], {"e": (2, 3), "i": np.array([5, 0], "int32")},
     {"e": (2, 3), "i": np.array([0, -7], "int32")},
     "R.take: i[1] is -7, outside [-6, 6), the range of the size of e"),
    ("take fast, uint32 indices (MLC's packed dtype)", "e: %s, i: %s" % (t(10, 4), t("t", dtype="uint32")),
     ["y = R.take(e, i, axis=0)"], {"e": (10, 4), "i": np.array([0, 9], "uint32")},
     {"e": (10, 4), "i": np.array([1, 1000], "uint32")},
     "R.take: i[1] is 1000, outside [-10, 10), the range of e's dimension 0"),
    ("take fast, a uint64 index past int64", "e: %s, i: %s" % (t(10, 4), t("t", dtype="uint64")),
     ["y = R.take(e, i, axis=0)"], {"e": (10, 4), "i": np.array([0, 9], "uint64")},
     {"e": (10, 4), "i": np.array([2 ** 64 - 1], "uint64")},
     "R.take: i[0] is 18446744073709551615, outside [-10, 10)"),
    ("gather_elements: an index out of range", "x: %s, i: %s" % (t(2, 3), t(2, 2, dtype="int64")),
     ["y = R.gather_elements(x, i, axis=1)"], {"x": (2, 3), "i": np.array([[0, 2], [-3, 1]])},
     {"x": (2, 3), "i": np.array([[0, 2], [1, 3]])},
     "R.gather_elements: i[1, 1] is 3, outside [-3, 3), the range of x's dimension 1"),
    ("gather_nd: an index out of range", "x: %s, i: %s" % (t(2, 3), t(2, 2, dtype="int64")),
     ["y = R.gather_nd(x, i)"], {"x": (2, 3), "i": np.array([[1, 2], [0, 0]])},
     {"x": (2, 3), "i": np.array([[1, 2], [0, 4]])},
     "R.gather_nd: i[1, 1] is 4, outside [-3, 3), the range of x's dimension 1"),
    ("scatter_elements: an index out of range",
     "x: %s, i: %s, u: %s" % (t(2, 3), t(1, 2, dtype="int64"), t(1, 2)),
     ["y = R.scatter_elements(x, i, u, axis=0)"],
     {"x": (2, 3), "i": np.array([[1, 0]]), "u": (1, 2)},
     {"x": (2, 3), "i": np.array([[-3, 0]]), "u": (1, 2)},
     "R.scatter_elements: i[0, 0] is -3, outside [-2, 2), the range of x's dimension 0"),
    ("scatter_nd: an index out of range",
     "x: %s, i: %s, u: %s" % (t(2, 3), t(2, 1, dtype="int64"), t(2, 3)),
     ["y = R.scatter_nd(x, i, u)"],
     {"x": (2, 3), "i": np.array([[1], [0]]), "u": (2, 3)},
     {"x": (2, 3), "i": np.array([[1], [2]]), "u": (2, 3)},
     "R.scatter_nd: i[1, 0] is 2, outside [-2, 2), the range of x's dimension 0"),
    ("parameters: a symbolic dim bound twice", "x: %s, y: %s" % (t("n"), t("n")),
     ["y1 = R.add(x, y)"], {"x": (3,), "y": (3,)}, {"x": (3,), "y": (4,)},
     "parameter 'y': dimension 0 is 4, but n was bound to 3 by parameter 'x'"),
]


def model_text(params, body):
    src = HEAD % params
    for line in body:
        src += "        %s\n" % line
    last = body[-1].split("=")[0].strip()
    return src + "        return %s\n" % last


def where(src, at, params):
    """1-based line and column of the error: the value of binding `at`, or
    parameter `at` of main."""
    lines = src.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(at + " = "):
            return i + 1, line.index("=") + 3
    for i, line in enumerate(lines):
        if line.strip().startswith("def main("):
            return i + 1, line.index(" " + at + ":") + 2
    raise ValueError(at)


def save(path, spec, rng):
    if isinstance(spec, np.ndarray):
        np.save(path, spec)
        return
    if len(spec) == 2 and isinstance(spec[1], str):
        shape, dtype = spec
    else:
        shape, dtype = spec, F
    if dtype.startswith("int"):
        a = rng.integers(0, 2, size=shape).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    np.save(path, a)


# The property: random well-formed models (a few independent pieces, each
# with symbolic dims its op must assume equal, divisible, in range) on
# inputs where one piece's dims disagree: always a located error at that
# piece, exit 1, no output; the same models on agreeing inputs run.
def piece_matmul(i, r):
    m, k, n = r.integers(1, 5, 3)
    bad = k + r.integers(1, 3)
    return ("x%d: %s, w%d: %s" % (i, t("m%d" % i, "k%d" % i), i, t("k%db" % i, "n%d" % i)),
            "r%d = R.matmul(x%d, w%d)" % (i, i, i), "r%d" % i,
            {"x%d" % i: (m, k), "w%d" % i: (k, n)}, {"x%d" % i: (m, k), "w%d" % i: (bad, n)})


def piece_param(i, r):
    n = r.integers(1, 6)
    return ("a%d: %s, b%d: %s" % (i, t("n%d" % i), i, t("n%d" % i)),
            "r%d = R.multiply(a%d, b%d)" % (i, i, i), "b%d" % i,
            {"a%d" % i: (n,), "b%d" % i: (n,)}, {"a%d" % i: (n,), "b%d" % i: (n + 1,)})


def piece_reshape(i, r):
    good = [(2, 3), (3, 2), (1, 6), (6, 1)][r.integers(0, 4)]
    bad = [(2, 2), (1, 5), (4, 2), (7, 1)][r.integers(0, 4)]
    return ("x%d: %s" % (i, t("p%d" % i, "q%d" % i)),
            "r%d = R.reshape(x%d, R.shape([3, 2]))" % (i, i), "r%d" % i,
            {"x%d" % i: good}, {"x%d" % i: bad})


def piece_conv(i, r):
    g = int(r.integers(1, 3))
    cg, f = int(r.integers(1, 3)), g * int(r.integers(1, 3))
    bad = (cg * g + 1, f) if r.integers(0, 2) or g == 1 else (cg * g, f + 1)
    return ("x%d: %s, w%d: %s" % (i, t(1, "c%d" % i, 5, 5), i, t("f%d" % i, "g%d" % i, 3, 3)),
            "r%d = R.nn.conv2d(x%d, w%d, groups=%d)" % (i, i, i, g), "r%d" % i,
            {"x%d" % i: (1, cg * g, 5, 5), "w%d" % i: (f, cg, 3, 3)},
            {"x%d" % i: (1, bad[0], 5, 5), "w%d" % i: (bad[1], cg, 3, 3)})


def piece_norm(i, r):
    h = int(r.integers(1, 6))
    return ("x%d: %s, g%d: %s" % (i, t(2, "h%d" % i), i, t("h%db" % i)),
            "r%d = R.nn.rms_norm(x%d, g%d, axes=[-1])" % (i, i, i), "r%d" % i,
            {"x%d" % i: (2, h), "g%d" % i: (h,)}, {"x%d" % i: (2, h), "g%d" % i: (h + 1,)})


def piece_take(i, r):
    v = int(r.integers(2, 9))
    ids = r.integers(-v, v, 3)
    bad = ids.copy()
    bad[r.integers(0, 3)] = v + r.integers(0, 4) if r.integers(0, 2) else -v - 1
    return ("e%d: %s, i%d: %s" % (i, t("v%d" % i, 2), i, t("t%d" % i, dtype="int64")),
            "r%d = R.take(e%d, i%d, axis=0)" % (i, i, i), "r%d" % i,
            {"e%d" % i: (v, 2), "i%d" % i: ids}, {"e%d" % i: (v, 2), "i%d" % i: bad})


def piece_einsum(i, r):
    m, k, n = (int(v) for v in r.integers(1, 5, 3))
    bad = k + int(r.integers(1, 3))
    return ("x%d: %s, w%d: %s" % (i, t("m%d" % i, "k%d" % i), i, t("k%db" % i, "n%d" % i)),
            'r%d = R.einsum((x%d, w%d), subscripts="ij,jk->ik")' % (i, i, i), "r%d" % i,
            {"x%d" % i: (m, k), "w%d" % i: (k, n)}, {"x%d" % i: (m, k), "w%d" % i: (bad, n)})


def piece_topk(i, r):
    k = int(r.integers(1, 4))
    return ("x%d: %s" % (i, t(2, "n%d" % i)),
            'r%d = R.topk(x%d, k=%d, axis=-1, ret_type="values")' % (i, i, k), "r%d" % i,
            {"x%d" % i: (2, k + int(r.integers(0, 3)))},
            {"x%d" % i: (2, int(r.integers(0, k)))})


def piece_split(i, r):
    a = int(r.integers(1, 4))
    b = a + int(r.integers(1, 4))
    return ("x%d: %s" % (i, t("n%d" % i, 2)),
            "r%d = R.split(x%d, indices_or_sections=[%d, %d])" % (i, i, a, b), "r%d" % i,
            {"x%d" % i: (b + int(r.integers(0, 3)), 2)},
            {"x%d" % i: (b - int(r.integers(1, b + 1)), 2)})


PIECES = [piece_matmul, piece_param, piece_reshape, piece_conv, piece_norm, piece_take,
          piece_einsum, piece_topk, piece_split]


def property_cases(rng, n):
    """n random models: (params, body, the binding or parameter that fails,
    good inputs, bad inputs)."""
    out = []
    for _ in range(n):
        k = int(rng.integers(1, 4))
        ps = [PIECES[rng.integers(0, len(PIECES))](i, rng) for i in range(k)]
        bad_at = int(rng.integers(0, k))
        good = {}
        bad = {}
        for j, p in enumerate(ps):
            good.update(p[3])
            bad.update(p[4] if j == bad_at else p[3])
        body = [p[1] for p in ps] + ["r = (%s,)" % ", ".join("r%d" % j for j in range(k))]
        out.append((", ".join(p[0] for p in ps), body, ps[bad_at][2], good, bad))
    return out


def run_property(t_, tmp, rng):
    for k, (params, body, at, good, bad) in enumerate(property_cases(rng, 24)):
        d = os.path.join(tmp, "p%d" % k)
        os.mkdir(d)
        src = model_text(params, body)
        model = os.path.join(d, "model.py")
        with open(model, "w") as f:
            f.write(src)
        line, col = where(src, at, params)
        res = {}
        for kind, shapes in (("good", good), ("bad", bad)):
            args = ["run", model]
            for n, spec in shapes.items():
                path = os.path.join(d, "%s_%s.npy" % (kind, n))
                save(path, spec, rng)
                args += ["--input", "%s=%s" % (n, path)]
            out = os.path.join(d, kind + "_out")
            res[kind] = rlx(*args, "-o", out, timeout=120) + (os.path.exists(out),)
        want = "model.py:%d:%d: error: " % (line, col)
        rc, _, se, left = res["bad"]
        t_.ok(res["good"][0] == 0 and rc == 1 and want in se and not left,
              "property %d: %d pieces, disagreeing dims at %s: a located error" %
              (k, len(body) - 1, at),
              "good run: exit %d %s\nbad run: exit %d\n%s\nwanted %s\n%s" %
              (res["good"][0], res["good"][2], rc, se, want, src))


# Results whose shape the rule cannot say (it would need an assumption that
# does not hold for every input) are computed when the call runs, with
# NumPy's semantics: checked against NumPy.
RUNTIME_SHAPES = [
    ("strided_slice: constant bounds on a symbolic dim", "x: %s" % t("n", 2),
     "y = R.strided_slice(x, axes=[0], begin=[1], end=[4])", {"x": (2, 2)},
     lambda x: x[1:4]),
    ("strided_slice: negative bounds and stride", "x: %s" % t("n", 2),
     "y = R.strided_slice(x, axes=[0], begin=[-1], end=[-100], strides=[-2])", {"x": (7, 2)},
     lambda x: x[-1:-100:-2]),
    ("matmul: symbolic batch dims broadcast", "x: %s, w: %s" % (t("b1", 2, 3), t("b2", 3, 4)),
     "y = R.matmul(x, w)", {"x": (1, 2, 3), "w": (3, 3, 4)}, lambda x, w: x @ w),
    ("matmul: operands of unknown shape",
     "x: R.Tensor(dtype=\"float32\", ndim=3), w: R.Tensor(dtype=\"float32\", ndim=1)",
     "y = R.matmul(x, w)", {"x": (2, 2, 3), "w": (3,)}, lambda x, w: x @ w),
]


def run_runtime_shapes(t_, tmp, rng):
    for k, (name, params, line, shapes, ref) in enumerate(RUNTIME_SHAPES):
        d = os.path.join(tmp, "rs%d" % k)
        os.mkdir(d)
        model = os.path.join(d, "model.py")
        with open(model, "w") as f:
            f.write(model_text(params, [line]))
        args, arrays = ["run", model], []
        for n, shape in shapes.items():
            a = rng.standard_normal(shape).astype(F)
            arrays.append(a)
            np.save(os.path.join(d, n + ".npy"), a)
            args += ["--input", "%s=%s" % (n, os.path.join(d, n + ".npy"))]
        out = os.path.join(d, "out.npy")
        rc, _, se = rlx(*args, "-o", out)
        want = ref(*arrays)
        got = np.load(out) if rc == 0 else None
        t_.ok(rc == 0 and got.shape == want.shape and np.allclose(got, want, atol=1e-5),
              "%s: NumPy's result" % name, "exit %d\n%s\ngot %s\nwant %s" % (rc, se, got, want))


# --no-index-check on the other commands that run the executor: a
# weight-only take (lifted into the transform) with an index out of range.
NIC_MODEL = HEAD.replace("def main(%s):", "def main(x: R.Tensor((2,), \"int64\"), "
                         "e: R.Tensor((4, 2), \"float32\"), i: R.Tensor((3,), \"int64\")):") + \
    '''        R.func_attr({"num_input": 1})
        with R.dataflow():
            w = R.take(e, i, axis=0)
            y = R.take(w, x, axis=0)
            R.output(y)
        return y
'''


def run_no_index_check(t_, tmp):
    d = os.path.join(tmp, "nic")
    os.mkdir(d)
    model = os.path.join(d, "model.py")
    with open(model, "w") as f:
        f.write(NIC_MODEL)
    ws = os.path.join(d, "w.safetensors")
    write_safetensors(ws, {"e": np.arange(8, dtype="float32").reshape(4, 2),
                           "i": np.array([0, 3, 4])})
    x = os.path.join(d, "x.npy")
    np.save(x, np.array([0, 2]))
    loc, want = "model.py:11:17: error: ", "R.take: i[2] is 4, outside [-4, 4)"
    for cmd, args in (("transform", ["--quiet", "-o", os.path.join(d, "out")]),
                      ("verify", ["--input", "x=" + x])):
        rc, _, se = rlx(cmd, model, "--weights", ws, *args)
        t_.ok(rc == 1 and loc in se and want in se and
              (cmd == "verify" or not os.path.exists(os.path.join(d, "out"))),
              "%s: an index out of range is a located error" % cmd,
              "exit %d\n%s" % (rc, se))
        rc, _, se = rlx(cmd, model, "--weights", ws, "--no-index-check", *args)
        t_.ok(rc == 0, "%s --no-index-check: not checked" % cmd, "exit %d\n%s" % (rc, se))


def main():
    t_ = Tap()
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory(prefix="rlx_checks_") as tmp:
        for k, (name, params, body, good, bad, msg) in enumerate(CASES):
            d = os.path.join(tmp, "c%d" % k)
            os.mkdir(d)
            src = model_text(params, body)
            model = os.path.join(d, "model.py")
            with open(model, "w") as f:
                f.write(src)
            # the failing binding: the one the message's op names, or a
            # parameter the message names
            if msg.startswith("parameter '") or msg.startswith("binding '"):
                at = msg.split("'")[1]
            else:
                op = msg.split(":")[0]
                at = next(b.split("=")[0].strip() for b in body if op + "(" in b)
            line, col = where(src, at, params)
            for kind, shapes in (("good", good), ("bad", bad)):
                if shapes is None:
                    continue
                args = ["run", model]
                for n, spec in shapes.items():
                    path = os.path.join(d, "%s_%s.npy" % (kind, n))
                    save(path, spec, rng)
                    args += ["--input", "%s=%s" % (n, path)]
                out = os.path.join(d, kind + "_out")
                try:
                    rc, so, se = rlx(*args, "-o", out, timeout=120)
                except subprocess.TimeoutExpired:
                    t_.ok(False, "%s (%s)" % (name, kind), "timed out")
                    continue
                if kind == "good":
                    t_.ok(rc == 0 and os.path.exists(out), "%s: inputs that fit run" % name,
                          "exit %d\n%s" % (rc, se))
                    continue
                want = "model.py:%d:%d: error: %s" % (line, col, msg)
                ok = rc == 1 and want in se and not os.path.exists(out)
                t_.ok(ok, "%s: a located error" % name,
                      "exit %d\nstderr: %s\nwanted: %s" % (rc, se, want))
        run_property(t_, tmp, rng)
        run_no_index_check(t_, tmp)
        run_runtime_shapes(t_, tmp, rng)
    t_.done()


if __name__ == "__main__":
    main()
