#!/usr/bin/python3
"""gen_llama_legalized.py — writes examples/llama.py's decoder with every
Relax op replaced by R.call_tir of a prim_func written as TVM's LegalizeOps
writes it (TVM main's spelling: T.sblock, "tirx.noalias", out_ty=).
examples/llama_legalized.py is this script's output at llama.py's size:

    /usr/bin/python3 examples/gen_llama_legalized.py > examples/llama_legalized.py

Other sizes are for the bench (bench/run.py, the legalized forward row):

    gen_llama_legalized.py [--layers L] [--hidden H] [--heads A] [--ffn F] [--vocab V]

With --relax it writes examples/llama.py itself at that size instead (1 or
2 layers, each parameter's shape from its name, the attention scale
1/sqrt(head dim)): the un-legalized model the legalized one is measured
against (bench/run.py, tests/e2e/run_legalized.py).

The model is the same as llama.py's at the same size (parameter names,
order and shapes; num_input 1; the symbolic sequence length n), with the
same bindings where llama.py has one; a nested call in llama.py gets a
binding of its own here. Each prim_func is what LegalizeOps gets from
topi for that op (the te.compute bodies of topi.take in mode "fast",
topi.nn.rms_norm, topi.concatenate, topi.transpose, topi.split,
topi.reshape, TVM's te_matmul, topi.multiply with a scalar constant
inlined, topi.nn.softmax, silu as x * sigmoid(x), topi.add, topi.cast);
as TVM's BlockBuilder does, structurally equal prim_funcs are emitted
once and named NAME, NAME1, NAME2, ... in order of first use.

Written by us for rlx from the topi definitions (nothing copied from TVM).
"""
import argparse
import os
import re
import sys

I64 = "T.int64(%d)"


def dim_tir(d):
    """A dimension in TIR: T.int64(64) or the symbolic n."""
    return I64 % d if isinstance(d, int) else d


def shape_tir(shape):
    return "(" + ", ".join(dim_tir(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def shape_relax(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def rtensor(shape, dtype="float32"):
    return 'R.Tensor(%s, dtype="%s")' % (shape_relax(shape), dtype)


def loads(expr):
    """BUF[index] loads in expr, outermost first in the order met (a load
    inside an index after the load holding it)."""
    out = []
    for m in re.finditer(r"([A-Za-z_][A-Za-z_0-9]*)\[", expr):
        start = m.end()
        depth, j = 1, start
        while depth:
            depth += {"[": 1, "]": -1}.get(expr[j], 0)
            j += 1
        out.append((m.group(1), expr[start:j - 1]))
    return out


class Prim:
    """One prim_func: buffers (inputs, then outputs), root allocations and
    loop nests, each a block."""

    def __init__(self, hint):
        self.hint = hint
        self.params = []  # (name, shape, dtype)
        self.allocs = []
        self.nests = []

    def buf(self, name, shape, dtype="float32"):
        self.params.append((name, shape, dtype))
        return name

    def alloc(self, name, shape, dtype="float32"):
        self.allocs.append((name, shape, dtype))
        return name

    def block(self, name, out, shape, expr, loopvars=None, red=None, init=None,
              attr=None):
        """out[v..] = expr over shape (the spatial axes), or with red =
        (extent, var) a reduction whose T.init stores init; expr names the
        block variables v_X for loop X."""
        lv = loopvars or ["ax%d" % i for i in range(len(shape))]
        self.nests.append((name, out, shape, expr, lv, red, init, attr))

    def text(self, fname):
        lines = []
        sym = any(not isinstance(d, int) for _, s, _ in self.params + self.allocs for d in s)
        ps, matches = [], []
        for name, shape, dt in self.params:
            if all(isinstance(d, int) for d in shape):
                ps.append('%s: T.Buffer(%s, "%s")' % (name, shape_tir(shape), dt))
            else:
                ps.append("var_%s: T.handle" % name)
                matches.append("%s = T.match_buffer(var_%s, %s%s)" % (
                    name, name, shape_tir(shape), "" if dt == "float32" else ', "%s"' % dt))
        lines.append("    @T.prim_func(private=True, s_tir=True)")
        lines.append("    def %s(%s):" % (fname, ", ".join(ps)))
        body = ['T.func_attr({"tirx.noalias": True})']
        if sym:
            body.append("n = T.int64()")
        body += matches
        body.append('# with T.sblock("root"):')
        for name, shape, dt in self.allocs:
            body.append("%s = T.sblock_alloc_buffer(%s%s)" % (
                name, shape_tir(shape), "" if dt == "float32" else ', "%s"' % dt))
        for name, out, shape, expr, lv, red, init, attr in self.nests:
            loops = list(lv) + ([red[1]] if red else [])
            ext = list(shape) + ([red[0]] if red else [])
            vs = ["v_" + x for x in loops]
            if len(loops) == 1:
                body.append("for %s in range(%s):" % (loops[0], dim_tir(ext[0])))
            else:
                body.append("for %s in T.grid(%s):" % (
                    ", ".join(loops), ", ".join(dim_tir(e) for e in ext)))
            inner = []
            kinds = "S" * len(lv) + ("R" if red else "")
            if len(loops) == 1:
                inner.append("%s = T.axis.%s(%s, %s)" % (
                    vs[0], "spatial" if kinds == "S" else "reduce", dim_tir(ext[0]), loops[0]))
            else:
                inner.append('%s = T.axis.remap("%s", [%s])' % (
                    ", ".join(vs), kinds, ", ".join(loops)))
            idx = ", ".join(vs[:len(lv)])
            target = "%s[%s]" % (out, idx)
            reads = []
            for b, i in loads(expr):
                r = "%s[%s]" % (b, i)
                if (b != out or not red) and r not in reads:
                    reads.append(r)
            inner.append("T.reads(%s)" % ", ".join(reads))
            inner.append("T.writes(%s)" % target)
            if attr:
                inner.append("T.sblock_attr(%s)" % attr)
            if red:
                inner.append("with T.init():")
                inner.append("    %s = %s" % (target, init))
            inner.append("%s = %s" % (target, expr))
            body.append('    with T.sblock("%s"):' % name)
            body += ["        " + x for x in inner]
        lines += ["        " + x for x in body]
        return "\n".join(lines) + "\n"


def v(*names):
    return ", ".join("v_" + x for x in names)


# ---------------------------------------------------------------- the ops

def p_take(vocab, hid):
    p = Prim("take")
    A = p.buf("A", (vocab, hid))
    B = p.buf("B", ("n",), "int64")
    p.buf("T_take", ("n", hid))
    p.block("T_take", "T_take", ("n", hid), "%s[%s[v_ax0], v_ax1]" % (A, B))
    return p


def p_rms_norm(hid):
    p = Prim("rms_norm")
    p.buf("A", ("n", hid))
    p.buf("B", (hid,))
    p.buf("T_rms_norm", ("n", hid))
    p.alloc("T_multiply", ("n", hid))
    p.alloc("T_multiply_red", ("n",))
    p.alloc("rsqrt", ("n",))
    p.block("T_multiply", "T_multiply", ("n", hid), "A[%s] * A[%s]" % (v("ax0", "ax1"), v("ax0", "ax1")))
    p.block("T_multiply_red", "T_multiply_red", ("n",),
            "T_multiply_red[v_ax0] + T_multiply[v_ax0, v_k1]", red=(hid, "k1"),
            init="T.float32(0.0)")
    p.block("rsqrt", "rsqrt", ("n",),
            "T.rsqrt(T_multiply_red[v_ax0] / T.float32(%d.0) + T.float32(1e-05))" % hid)
    p.block("T_rms_norm", "T_rms_norm", ("n", hid),
            "rsqrt[v_ax0] * A[v_ax0, v_ax1] * B[v_ax1]")
    return p


def p_concat(parts, cols):
    """concatenate along axis 0 of len(parts) [rows, cols] weights."""
    p = Prim("concatenate")
    names = ["A", "B", "C", "D"][:len(parts)]
    for nm, r in zip(names, parts):
        p.buf(nm, (r, cols))
    total = sum(parts)
    p.buf("T_concat", (total, cols))
    offs = [sum(parts[:i]) for i in range(len(parts))]
    e = "%s[v_ax0, v_ax1]" % names[0]
    for nm, o in zip(names[1:], offs[1:]):
        e = "T.if_then_else(%s <= v_ax0, %s[v_ax0 - %s, v_ax1], %s)" % (I64 % o, nm, I64 % o, e)
    # topi nests the last part outermost
    p.block("T_concat", "T_concat", (total, cols), e)
    return p


def p_transpose(shape, axes, dtype="float32"):
    p = Prim("transpose")
    p.buf("A", shape, dtype)
    out = tuple(shape[a] for a in axes)
    p.buf("T_transpose", out, dtype)
    src = [None] * len(shape)
    for i, a in enumerate(axes):
        src[a] = "v_ax%d" % i
    p.block("T_transpose", "T_transpose", out, "A[%s]" % ", ".join(src))
    return p


def p_matmul(a, b, out, dtype="float32"):
    """te_matmul of a [.., M, K] and b [.., K, N] (same batch dims)."""
    p = Prim("matmul")
    p.buf("A", a, dtype)
    p.buf("B", b, dtype)
    p.buf("matmul", out, dtype)
    nb = len(out) - 2
    iv = ["v_i%d" % i for i in range(len(out))]
    ai = iv[:nb] + [iv[nb], "v_k"]
    bi = iv[:nb] + ["v_k", iv[nb + 1]]
    zero = "T.%s(0.0)" % dtype
    p.block("matmul", "matmul", out,
            "matmul[%s] + A[%s] * B[%s]" % (", ".join(iv), ", ".join(ai), ", ".join(bi)),
            loopvars=["i%d" % i for i in range(len(out))], red=(a[-1], "k"), init=zero)
    return p


def p_split(rows, cols, sections):
    p = Prim("split")
    p.buf("A", (rows, cols * sections))
    outs = ["T_split_sections" + ("_%d" % i if i else "") for i in range(sections)]
    for o in outs:
        p.buf(o, (rows, cols))
    for i, o in enumerate(outs):
        off = " + %s" % (I64 % (i * cols)) if i else ""
        p.block(o, o, (rows, cols), "A[v_ax0, v_ax1%s]" % off)
    return p


def p_reshape_split_heads(hid, heads):
    """(n, hid) -> (n, heads, hid // heads): topi.reshape's ravel/unravel."""
    hd = hid // heads
    p = Prim("reshape")
    p.buf("A", ("n", hid))
    p.buf("T_reshape", ("n", heads, hd))
    flat = "v_ax1 * %s + v_ax2" % (I64 % hd)
    p.block("T_reshape", "T_reshape", ("n", heads, hd),
            "A[((%s) // %s + v_ax0) %% n, (%s) %% %s]" % (flat, I64 % hid, flat, I64 % hid))
    return p


def p_reshape_merge_heads(hid, heads):
    """(n, heads, hid // heads) -> (n, hid)."""
    hd = hid // heads
    p = Prim("reshape")
    p.buf("A", ("n", heads, hd))
    p.buf("T_reshape", ("n", hid))
    p.block("T_reshape", "T_reshape", ("n", hid),
            "A[(v_ax1 // %s + v_ax0) %% n, v_ax1 %% %s // %s, v_ax1 %% %s]"
            % (I64 % hid, I64 % hid, I64 % hd, I64 % hd))
    return p


def p_multiply_const(shape, c):
    p = Prim("multiply")
    p.buf("A", shape)
    p.buf("T_multiply", shape)
    iv = ", ".join("v_ax%d" % i for i in range(len(shape)))
    p.block("T_multiply", "T_multiply", shape, "A[%s] * T.float32(%r)" % (iv, c))
    return p


def p_softmax(shape):
    p = Prim("softmax")
    p.buf("A", shape)
    p.buf("T_softmax_norm", shape)
    red = shape[:-1]
    p.alloc("T_softmax_maxelem", red)
    p.alloc("T_softmax_exp", shape)
    p.alloc("T_softmax_expsum", red)
    lv = ["i%d" % i for i in range(len(shape))]
    rv = ", ".join("v_i%d" % i for i in range(len(red)))
    iv = ", ".join("v_i%d" % i for i in range(len(shape)))
    p.block("T_softmax_maxelem", "T_softmax_maxelem", red,
            "T.max(T_softmax_maxelem[%s], A[%s, v_k])" % (rv, rv), loopvars=lv[:-1],
            red=(shape[-1], "k"), init="T.float32(-3.4028234663852886e+38)")
    p.block("T_softmax_exp", "T_softmax_exp", shape,
            "T.exp(A[%s] - T_softmax_maxelem[%s])" % (iv, rv), loopvars=lv)
    p.block("T_softmax_expsum", "T_softmax_expsum", red,
            "T_softmax_expsum[%s] + T_softmax_exp[%s, v_k]" % (rv, rv), loopvars=lv[:-1],
            red=(shape[-1], "k"), init="T.float32(0.0)")
    p.block("T_softmax_norm", "T_softmax_norm", shape,
            "T_softmax_exp[%s] / T_softmax_expsum[%s]" % (iv, rv), loopvars=lv,
            attr='{"axis": %d}' % (len(shape) - 1))
    return p


def p_binary(op, shape):
    name = {"add": "T_add", "multiply": "T_multiply"}[op]
    sym = {"add": "+", "multiply": "*"}[op]
    p = Prim(op)
    p.buf("A", shape)
    p.buf("B", shape)
    p.buf(name, shape)
    iv = ", ".join("v_ax%d" % i for i in range(len(shape)))
    p.block(name, name, shape, "A[%s] %s B[%s]" % (iv, sym, iv))
    return p


def p_silu(shape):
    p = Prim("silu")
    p.buf("A", shape)
    p.buf("T_multiply", shape)
    p.alloc("compute", shape)
    iv = ", ".join("v_i%d" % i for i in range(len(shape)))
    av = ", ".join("v_ax%d" % i for i in range(len(shape)))
    p.block("compute", "compute", shape, "T.sigmoid(A[%s])" % iv,
            loopvars=["i%d" % i for i in range(len(shape))])
    p.block("T_multiply", "T_multiply", shape, "A[%s] * compute[%s]" % (av, av))
    return p


def p_cast(shape, src, dst):
    p = Prim("cast")
    p.buf("A", shape, src)
    p.buf("compute", shape, dst)
    iv = ", ".join("v_i%d" % i for i in range(len(shape)))
    p.block("compute", "compute", shape, 'T.Cast("%s", A[%s])' % (dst, iv),
            loopvars=["i%d" % i for i in range(len(shape))])
    return p


# ---------------------------------------------------------------- the model

class Module:
    def __init__(self):
        self.funcs = {}   # text with NAME -> name
        self.order = []
        self.names = set()
        self.body = []

    def prim(self, p):
        key = p.text("NAME")
        if key not in self.funcs:
            name, k = p.hint, 0
            while name in self.names:
                k += 1
                name = "%s%d" % (p.hint, k)
            self.names.add(name)
            self.funcs[key] = name
            self.order.append(p.text(name))
        return self.funcs[key]

    def call(self, var, p, args, outs):
        """var = R.call_tir(cls.<p>, args, out_ty=outs)."""
        f = self.prim(p)
        ot = outs[0] if len(outs) == 1 else "[" + ", ".join(outs) + "]"
        self.body.append("%s = R.call_tir(cls.%s, (%s,), out_ty=%s)" % (
            var, f, ", ".join(args), ot))
        return var

    def bind(self, line):
        self.body.append(line)


def gen(layers, hid, heads, ffn, vocab):
    hd = hid // heads
    m = Module()
    params = ["input_ids: " + rtensor(("n",), "int64"),
              "`model.embed_tokens.weight`: " + rtensor((vocab, hid))]
    for i in range(layers):
        P = "`model.layers.%d." % i
        params += [P + "input_layernorm.weight`: " + rtensor((hid,))]
        params += [P + "self_attn.%s_proj.weight`: " % x + rtensor((hid, hid)) for x in "qkvo"]
        params += [P + "post_attention_layernorm.weight`: " + rtensor((hid,)),
                   P + "mlp.gate_proj.weight`: " + rtensor((ffn, hid)),
                   P + "mlp.up_proj.weight`: " + rtensor((ffn, hid)),
                   P + "mlp.down_proj.weight`: " + rtensor((hid, ffn))]
    params += ["`model.norm.weight`: " + rtensor((hid,)),
               "`lm_head.weight`: " + rtensor((vocab, hid))]

    T = rtensor
    nh = ("n", hid)
    x = m.call("x0", p_take(vocab, hid), ["`model.embed_tokens.weight`", "input_ids"], [T(nh)])
    for i in range(layers):
        W = "`model.layers.%d.%%s.weight`" % i
        L = "l%d_" % i
        h = m.call(L + "h", p_rms_norm(hid), [x, W % "input_layernorm"], [T(nh)])
        m.call(L + "qkv_w", p_concat([hid] * 3, hid),
               [W % ("self_attn.%s_proj" % c) for c in "qkv"], [T((3 * hid, hid))])
        m.call(L + "qkv_wt", p_transpose((3 * hid, hid), (1, 0)), [L + "qkv_w"],
               [T((hid, 3 * hid))])
        m.call(L + "qkv", p_matmul(("n", hid), (hid, 3 * hid), ("n", 3 * hid)),
               [h, L + "qkv_wt"], [T(("n", 3 * hid))])
        m.call(L + "parts", p_split("n", hid, 3), [L + "qkv"], [T(nh)] * 3)
        for j, c in enumerate("qkv"):
            m.bind("%s%s0 = %sparts[%d]" % (L, c, L, j))
            m.call(L + c, p_reshape_split_heads(hid, heads), [L + c + "0"],
                   [T(("n", heads, hd))])
        m.call(L + "qh", p_transpose(("n", heads, hd), (1, 0, 2)), [L + "q"], [T((heads, "n", hd))])
        m.call(L + "kh", p_transpose(("n", heads, hd), (1, 2, 0)), [L + "k"], [T((heads, hd, "n"))])
        m.call(L + "vh", p_transpose(("n", heads, hd), (1, 0, 2)), [L + "v"], [T((heads, "n", hd))])
        m.call(L + "s0", p_matmul((heads, "n", hd), (heads, hd, "n"), (heads, "n", "n")),
               [L + "qh", L + "kh"], [T((heads, "n", "n"))])
        m.call(L + "s", p_multiply_const((heads, "n", "n"), 1.0 / hd ** 0.5), [L + "s0"],
               [T((heads, "n", "n"))])
        m.call(L + "p", p_softmax((heads, "n", "n")), [L + "s"], [T((heads, "n", "n"))])
        m.call(L + "o0", p_matmul((heads, "n", "n"), (heads, "n", hd), (heads, "n", hd)),
               [L + "p", L + "vh"], [T((heads, "n", hd))])
        m.call(L + "o", p_transpose((heads, "n", hd), (1, 0, 2)), [L + "o0"], [T(("n", heads, hd))])
        m.call(L + "o2", p_reshape_merge_heads(hid, heads), [L + "o"], [T(nh)])
        m.call(L + "attn_wt", p_transpose((hid, hid), (1, 0)), [W % "self_attn.o_proj"],
               [T((hid, hid))])
        m.call(L + "attn", p_matmul(nh, (hid, hid), nh), [L + "o2", L + "attn_wt"], [T(nh)])
        x1 = m.call(L + "x1", p_binary("add", nh), [x, L + "attn"], [T(nh)])
        m.call(L + "h2", p_rms_norm(hid), [x1, W % "post_attention_layernorm"], [T(nh)])
        m.call(L + "gu_w", p_concat([ffn] * 2, hid), [W % "mlp.gate_proj", W % "mlp.up_proj"],
               [T((2 * ffn, hid))])
        m.call(L + "gu_wt", p_transpose((2 * ffn, hid), (1, 0)), [L + "gu_w"],
               [T((hid, 2 * ffn))])
        m.call(L + "gu", p_matmul(nh, (hid, 2 * ffn), ("n", 2 * ffn)), [L + "h2", L + "gu_wt"],
               [T(("n", 2 * ffn))])
        m.call(L + "gu_parts", p_split("n", ffn, 2), [L + "gu"], [T(("n", ffn))] * 2)
        m.bind("%sgate = %sgu_parts[0]" % (L, L))
        m.bind("%sup = %sgu_parts[1]" % (L, L))
        m.call(L + "silu", p_silu(("n", ffn)), [L + "gate"], [T(("n", ffn))])
        m.call(L + "act", p_binary("multiply", ("n", ffn)), [L + "silu", L + "up"],
               [T(("n", ffn))])
        m.call(L + "down_wt", p_transpose((hid, ffn), (1, 0)), [W % "mlp.down_proj"],
               [T((ffn, hid))])
        m.call(L + "down", p_matmul(("n", ffn), (ffn, hid), nh), [L + "act", L + "down_wt"],
               [T(nh)])
        x = m.call(L + "x2", p_binary("add", nh), [x1, L + "down"], [T(nh)])
    m.call("hn", p_rms_norm(hid), [x, "`model.norm.weight`"], [T(nh)])
    m.call("lm_head_t", p_transpose((vocab, hid), (1, 0)), ["`lm_head.weight`"],
           [T((hid, vocab))])
    m.call("lm_head_t16", p_cast((hid, vocab), "float32", "float16"), ["lm_head_t"],
           [T((hid, vocab), "float16")])
    m.call("hn16", p_cast(nh, "float32", "float16"), ["hn"], [T(nh, "float16")])
    m.call("logits16", p_matmul(nh, (hid, vocab), ("n", vocab), "float16"),
           ["hn16", "lm_head_t16"], [T(("n", vocab), "float16")])
    m.call("logits", p_cast(("n", vocab), "float16", "float32"), ["logits16"],
           [T(("n", vocab))])

    out = [HEADER % dict(layers=layers, hid=hid, heads=heads, ffn=ffn, vocab=vocab),
           "@I.ir_module(s_tir=True)", "class Module:"]
    for f in m.order:
        out.append(f)
    out.append("    @R.function")
    out.append("    def main(%s) -> %s:" % (", ".join(params), rtensor(("n", vocab))))
    out.append("        n = T.int64()")
    out.append('        R.func_attr({"num_input": 1})')
    out.append("        cls = Module")
    out.append("        with R.dataflow():")
    out += ["            " + b for b in m.body]
    out.append("            R.output(logits)")
    out.append("        return logits")
    return "\n".join(out) + "\n"


HEADER = """\
# examples/llama.py (a Llama-style decoder: %(layers)d layers, hidden %(hid)d,
# %(heads)d heads, FFN %(ffn)d, vocab %(vocab)d) with every Relax op legalized:
# each is R.call_tir of the prim_func TVM's LegalizeOps writes for it (topi's
# te.compute definitions, TVM main's spelling), structurally equal ones
# shared. Same parameters, shapes and names as llama.py, so one checkpoint
# serves both; the sequence length n stays symbolic. Reshapes are
# legalized as LegalizeOps legalizes them, to copies (T_reshape with
# topi's ravel/unravel indices), not kept as R.reshape views; permute_dims
# are copies (T_transpose) too. The weight pre-processing (concatenations,
# transposes, lm_head's cast) is call_tir on parameters only, so `rlx lift`
# and `rlx transform` move it into main_transform_params as they do for
# llama.py.
#
# Generated by examples/gen_llama_legalized.py (do not edit by hand;
# tests/e2e/run_legalized.py checks that it is that script's output).
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T
"""


def relax_llama(layers, hid, heads, ffn, vocab):
    """examples/llama.py's text at another size: its 2 layers, or layer 0
    alone (layer 1's bindings and parameters dropped)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "llama.py")) as f:
        src = f.read()
    if layers == 1:
        src = "\n".join(ln for ln in src.splitlines()
                        if not ln.lstrip().startswith("l1_")) + "\n"
        src = src.replace("l1_x2", "l0_x2")
        src = re.sub(r", `model\.layers\.1\.[^`]*`: R\.Tensor\([^)]*\), dtype=\"float32\"\)",
                     "", src)
    dims = [("embed_tokens", (vocab, hid)), ("lm_head", (vocab, hid)),
            ("gate_proj", (ffn, hid)), ("up_proj", (ffn, hid)), ("down_proj", (hid, ffn)),
            ("_proj", (hid, hid)), ("norm", (hid,))]

    def shape(m):
        sh = next(v for k, v in dims if k in m.group(1))
        return "`%s`: R.Tensor(%s, " % (m.group(1), "(%d,)" % sh if len(sh) == 1 else str(sh))
    src = re.sub(r"`([^`]*)`: R\.Tensor\(\([^)]*\), ", shape, src)
    for a, b in (('("n", 128)', '("n", %d)' % vocab),
                 ("[n, 4, 16]", "[n, %d, %d]" % (heads, hid // heads)),
                 ("[n, 64]", "[n, %d]" % hid), ("0.25", repr(1 / (hid // heads) ** 0.5))):
        src = src.replace(a, b)
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=128)
    ap.add_argument("--relax", action="store_true",
                    help="write examples/llama.py at that size (1 or 2 layers)")
    a = ap.parse_args()
    if a.hidden % a.heads:
        ap.error("--hidden must be a multiple of --heads")
    if a.relax and a.layers not in (1, 2):
        ap.error("--relax: llama.py has 2 layers; --layers must be 1 or 2")
    make = relax_llama if a.relax else gen
    sys.stdout.write(make(a.layers, a.hidden, a.heads, a.ffn, a.vocab))


if __name__ == "__main__":
    main()
