#!/usr/bin/python3
"""Property test for the passes: random modules, every pass, twice == once.

A seeded generator (Python stdlib only, deterministic for a seed) writes
valid modules in rlx's language: a few functions with num_input (and one
without, sometimes), symbolic dims from the inputs and the weights, a
dataflow block of random chains (elementwise ops, permute_dims, matmul with
matching shapes, reshape, concat, astype, sum, tuples and tuple indexing,
R.const, trivial aliases `y = x`, shadowed names), then a non-dataflow
block. For each module and each pass (and the whole `lift` pipeline):
  - the output is accepted as `rlx check` accepts it (parsed, inferred,
    verified: the second run of the command does it first);
  - running the same command on the output gives byte-identical text
    (canonicalize-bindings: the second output is a fixed point, see SETTLES).
When a command fails, one `rlx check` of the module and its outputs tells
whether the module itself was refused (then it is counted once, as input).
Modules are checked RLX_TEST_JOBS at a time (default: one per CPU). On
failure the module is kept in a temporary directory and the failing command
of the lowest seed is printed. Run through `run.py property [COUNT]`; run directly
(`property.py SEED`) it prints the module for that seed.
"""
import concurrent.futures
import difflib
import os
import random
import shlex
import sys
import tempfile

PASSES = ["convert-ssa", "canonicalize-bindings", "lift-transform-params",
          "bind-params", "dead-code-elimination"]
# (label, rlx arguments after the file)
COMMANDS = [(p, ["dump", "--passes", p]) for p in PASSES] + [("lift", ["lift"])]
# Passes whose second run, not always the first, is a fixed point: TVM's
# CanonicalizeBindings decides which block outputs become DataflowVars from
# the uses before it rewrites, so an output whose last outside use it removed
# (an inlined constant, a folded trivial binding) becomes one on the next run.
SETTLES = {"canonicalize-bindings"}

FLOAT_DTYPES = ["float32", "float16"]
UNARY = ["R.exp", "R.negative", "R.abs", "R.sigmoid", "R.tanh", "R.nn.relu",
         "R.sqrt", "R.nn.silu"]
BINARY = ["R.add", "R.multiply", "R.subtract", "R.maximum", "R.minimum"]


def dim_text(d, quoted):
    """A dimension: an int, or a symbolic name (quoted in signatures)."""
    if isinstance(d, int):
        return str(d)
    return f'"{d}"' if quoted else d


def tensor_text(shape, dtype, quoted=False):
    dims = ", ".join(dim_text(d, quoted) for d in shape)
    if len(shape) == 1:
        dims += ","
    return f'R.Tensor(({dims}), dtype="{dtype}")'


class Val:
    """A value in scope: a name and its struct info (tensor or tuple)."""

    def __init__(self, name, shape=None, dtype=None, fields=None):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.fields = fields  # list of (shape, dtype) for a tuple

    def sinfo(self, quoted=False):
        if self.fields is not None:
            return "R.Tuple(" + ", ".join(tensor_text(s, d, quoted)
                                          for s, d in self.fields) + ")"
        return tensor_text(self.shape, self.dtype, quoted)

    def is_tensor(self):
        return self.fields is None


class FuncGen:
    """Generates one function."""

    def __init__(self, rng, name, with_num_input):
        self.rng = rng
        self.name = name
        self.with_num_input = with_num_input
        self.lines = []
        self.counter = 0
        self.symbolic = []  # symbolic names in definition order

    def fresh(self, base="v"):
        self.counter += 1
        return f"{base}{self.counter}"

    def const_text(self, dtype):
        v = self.rng.choice(["0.5", "1.0", "2.0", "0.25", "3.0"])
        return f'R.const({v}, "{dtype}")'

    def op(self, pool, out_name):
        """One random binding over pool; returns (text, Val) or None."""
        rng = self.rng
        tensors = [v for v in pool if v.is_tensor()]
        tuples = [v for v in pool if not v.is_tensor()]
        kind = rng.choice(["unary", "binary", "binary", "const", "permute",
                           "matmul", "matmul", "reshape", "concat", "astype",
                           "sum", "tuple", "getitem", "alias"])
        if kind == "getitem" and tuples:
            t = rng.choice(tuples)
            i = rng.randrange(len(t.fields))
            s, d = t.fields[i]
            return f"{t.name}[{i}]", Val(out_name, s, d)
        if kind == "tuple" and len(tensors) >= 1:
            items = [rng.choice(tensors) for _ in range(rng.choice([1, 2, 2, 3]))]
            text = "(" + ", ".join(v.name for v in items) + ("," if len(items) == 1 else "") + ")"
            return text, Val(out_name, fields=[(v.shape, v.dtype) for v in items])
        if not tensors:
            return None
        x = rng.choice(tensors)
        if kind == "alias":
            return x.name, Val(out_name, x.shape, x.dtype)
        if kind == "unary":
            return f"{rng.choice(UNARY)}({x.name})", Val(out_name, x.shape, x.dtype)
        if kind == "binary":
            same = [v for v in tensors if v.shape == x.shape and v.dtype == x.dtype]
            y = rng.choice(same)
            return f"{rng.choice(BINARY)}({x.name}, {y.name})", Val(out_name, x.shape, x.dtype)
        if kind == "const":
            return f"{rng.choice(BINARY)}({x.name}, {self.const_text(x.dtype)})", \
                Val(out_name, x.shape, x.dtype)
        if kind == "permute" and len(x.shape) >= 2:
            if rng.random() < 0.5:
                return f"R.permute_dims({x.name})", Val(out_name, x.shape[::-1], x.dtype)
            axes = list(range(len(x.shape)))
            rng.shuffle(axes)
            return f"R.permute_dims({x.name}, axes={axes})", \
                Val(out_name, [x.shape[a] for a in axes], x.dtype)
        if kind == "matmul":
            if len(x.shape) != 2:
                return None
            cands = [v for v in tensors if len(v.shape) == 2 and v.dtype == x.dtype
                     and v.shape[0] == x.shape[1]]
            if cands:
                y = rng.choice(cands)
                return f"R.matmul({x.name}, {y.name})", \
                    Val(out_name, [x.shape[0], y.shape[1]], x.dtype)
            cands = [v for v in tensors if len(v.shape) == 2 and v.dtype == x.dtype
                     and v.shape[1] == x.shape[1]]
            if cands:  # x @ y^T, the transpose bound first
                y = rng.choice(cands)
                t = self.fresh("t")
                self.pending.append(f"{t} = R.permute_dims({y.name})")
                return f"R.matmul({x.name}, {t})", \
                    Val(out_name, [x.shape[0], y.shape[0]], x.dtype)
            return None
        if kind == "reshape" and all(isinstance(d, int) for d in x.shape):
            total = 1
            for d in x.shape:
                total *= d
            options = [[total]]
            for a in range(1, total + 1):
                if total % a == 0 and 1 < a < total:
                    options.append([a, total // a])
            shape = rng.choice(options)
            return f"R.reshape({x.name}, R.shape({shape}))", Val(out_name, shape, x.dtype)
        if kind == "concat" and x.shape:
            static = [i for i, d in enumerate(x.shape) if isinstance(d, int)]
            if not static:
                return None
            ax = rng.choice(static)
            same = [v for v in tensors if v.shape == x.shape and v.dtype == x.dtype]
            y = rng.choice(same)
            shape = list(x.shape)
            shape[ax] = shape[ax] * 2
            return f"R.concat(({x.name}, {y.name}), axis={ax})", Val(out_name, shape, x.dtype)
        if kind == "astype":
            other = [d for d in FLOAT_DTYPES if d != x.dtype]
            d = rng.choice(other)
            return f'R.astype({x.name}, dtype="{d}")', Val(out_name, x.shape, d)
        if kind == "sum" and x.shape:
            ax = rng.randrange(len(x.shape))
            keep = rng.random() < 0.3
            shape = list(x.shape)
            if keep:
                shape[ax] = 1
            else:
                del shape[ax]
            return f"R.sum({x.name}, axis=[{ax}], keepdims={keep})", Val(out_name, shape, x.dtype)
        return None

    def chain(self, pool, n, indent, shadow_names):
        """n random bindings added to pool; returns the new Vals."""
        made = []
        tries = 0
        while len(made) < n and tries < n * 20:
            tries += 1
            self.pending = []
            # Shadowing: reuse an earlier intermediate name now and then.
            if shadow_names and self.rng.random() < 0.15:
                name = self.rng.choice(shadow_names)
            else:
                name = self.fresh()
            r = self.op(pool, name)
            if r is None:
                continue
            text, val = r
            for p in self.pending:
                tname = p.split(" ")[0]
                self.lines.append(indent + p)
                # the transpose's value is not tracked in pool: never reused
                del tname
            if self.rng.random() < 0.3:
                self.lines.append(f"{indent}{name}: {val.sinfo()} = {text}")
            else:
                self.lines.append(f"{indent}{name} = {text}")
            # A shadowed name hides the earlier value of that name.
            pool[:] = [v for v in pool if v.name != name]
            pool.append(val)
            made.append(val)
        return made

    def generate(self):
        rng = self.rng
        K = rng.choice([4, 8])
        M = rng.choice([4, 8, 16])
        n = rng.choice(["n", 2, 3])
        m = rng.choice(["m", M])
        dt = "float32"
        params = [Val("x", [n, K], dt)]
        if rng.random() < 0.4:
            params.append(Val("x2", [n, K], dt))
        ninput = len(params)
        weights = [Val("w0", [K, m], dt), Val("w1", [m, K], dt)]
        if rng.random() < 0.5:
            weights.append(Val("bias", [m], dt))
        if rng.random() < 0.3:
            weights.append(Val("w3", [K, K], dt))
        params += weights
        for p in params:
            for d in p.shape:
                if isinstance(d, str) and d not in self.symbolic:
                    self.symbolic.append(d)
        pool = list(params)

        body = []
        for s in self.symbolic:
            body.append(f"        {s} = T.int64()")
        if self.with_num_input:
            body.append(f'        R.func_attr({{"num_input": {ninput}}})')
        self.lines = body
        # the dataflow block
        self.lines.append("        with R.dataflow():")
        made = self.chain(pool, rng.randint(3, 12), " " * 12, [])
        shadow = list({v.name for v in made})
        made += self.chain(pool, rng.randint(0, 6), " " * 12, shadow)
        # Outputs: the last tensor value and maybe a few more, by current name.
        live = [v for v in pool if v not in params]
        outs = []
        tens = [v for v in live if v.is_tensor()]
        if tens:
            outs.append(tens[-1])
        for v in live:
            if v not in outs and rng.random() < 0.25:
                outs.append(v)
        if not outs:
            # nothing new: copy an input so the block has an output
            v = Val(self.fresh(), params[0].shape, params[0].dtype)
            self.lines.append(f"            {v.name} = R.add({params[0].name}, {params[0].name})")
            outs.append(v)
        if len(self.lines) and self.lines[-1].endswith("with R.dataflow():"):
            self.lines.append(f"            {outs[0].name} = R.add(x, x)")
        self.lines.append("            R.output(" + ", ".join(v.name for v in outs) + ")")
        # the non-dataflow block, over params and the block's outputs
        pool2 = list(params) + outs
        after = self.chain(pool2, rng.randint(0, 3), " " * 8, [])
        final = (after or outs)
        results = [final[-1]]
        if rng.random() < 0.3 and len(pool2) > 1:
            results.append(rng.choice(pool2))
        if len(results) == 1:
            ret = results[0]
            ret_sinfo = ret.sinfo(quoted=True)
            self.lines.append(f"        return {ret.name}")
        else:
            ret_sinfo = "R.Tuple(" + ", ".join(v.sinfo(quoted=True) for v in results) + ")"
            self.lines.append("        return (" + ", ".join(v.name for v in results) + ")")
        sig = ", ".join(f"{p.name}: {p.sinfo(quoted=True)}" for p in params)
        head = ["    @R.function", f"    def {self.name}({sig}) -> {ret_sinfo}:"]
        return head + self.lines


def generate(seed):
    """The text of the module for seed."""
    rng = random.Random(seed)
    out = ["# from tvm.script import ir as I", "# from tvm.script import relax as R",
           "# from tvm.script import tir as T", "", "@I.ir_module", "class Module:"]
    nf = rng.randint(1, 3)
    funcs = []
    for i in range(nf):
        with_num_input = not (i == nf - 1 and nf > 1 and rng.random() < 0.3)
        funcs.append(FuncGen(rng, f"f{i}" if i else "main", with_num_input).generate())
    out.append("\n\n".join("\n".join(f) for f in funcs))
    return "\n".join(out) + "\n"


def jobs():
    """How many modules are checked at once: RLX_TEST_JOBS, else one per
    CPU (each is a chain of rlx processes, so threads suffice)."""
    n = os.environ.get("RLX_TEST_JOBS")
    return max(1, int(n) if n else (os.cpu_count() or 1))


def check_module(rlx, seed, tmp, run):
    """Runs every command on the module of seed (twice), then one `rlx
    check` of the module and every output. Returns {label: (file, command,
    exit status, why)} for the labels that failed ("input" when the module
    itself is refused: then nothing else is counted) and deletes the files
    of a module that passed."""
    text = generate(seed)
    src = os.path.join(tmp, f"m{seed}.py")
    with open(src, "w") as f:
        f.write(text)
    failed = {}
    outs = []
    for label, args in COMMANDS:
        cmd1 = [rlx, args[0], src] + args[1:]
        rc1, out1, err1 = run(cmd1)
        if rc1 != 0:
            failed.setdefault(label, (src, shlex.join(cmd1), rc1, err1))
            continue
        o1 = os.path.join(tmp, f"m{seed}.{label}.py")
        with open(o1, "w") as f:
            f.write(out1)
        outs.append((label, o1))
        cmd2 = [rlx, args[0], o1] + args[1:]
        rc2, out2, err2 = run(cmd2)
        if rc2 == 0 and out2 != out1 and label in SETTLES:
            # TVM's one-pass rule: the second run is the fixed point
            o2 = os.path.join(tmp, f"m{seed}.{label}.2.py")
            with open(o2, "w") as f:
                f.write(out2)
            out1 = out2
            cmd2 = [rlx, args[0], o2] + args[1:]
            rc2, out2, err2 = run(cmd2)
        if rc2 != 0 or out2 != out1:
            if rc2 != 0:
                why = err2
            else:
                diff = difflib.unified_diff(out1.split("\n"), out2.split("\n"),
                                            "once", "twice", lineterm="")
                why = "the second run changed the text:\n" + "\n".join(list(diff)[:40])
            failed.setdefault(label, (src, shlex.join(cmd2), rc2, why))
    # `rlx check F` is the parse (infer, verify) every command does first:
    # the second run of each command has checked its output, and a command
    # that ran has checked the module. Only when one failed, one `rlx check`
    # of the module and the outputs tells whether the module was refused.
    if failed:
        files = [("input", src)] + outs
        crc, _, cerr = run([rlx, "check"] + [f for _, f in files])
        if crc != 0:
            bad = [(label, f, crc, cerr) for label, f in files if f + ":" in cerr]
            if not bad:  # no located error names a file (a crash?): one by one
                bad = [(label, f) + run([rlx, "check", f])[0::2] for label, f in files]
                bad = [b for b in bad if b[2] != 0] or [("input", src, crc, cerr)]
            if bad[0][0] == "input":
                # a refused module fails every command: count it once, as input
                return {"input": (src, f"rlx check {src}", bad[0][2], bad[0][3])}
            for label, f, rc, err in bad:
                failed.setdefault(label, (f, f"rlx check {f}", rc, err))
    if not failed:
        for f in os.listdir(tmp):
            if f.startswith(f"m{seed}."):
                os.unlink(os.path.join(tmp, f))
    return failed


def run_all(rlx, count, tap, run):
    """Runs every command on count generated modules; reports to tap."""
    tmp = tempfile.mkdtemp(prefix="rlx-property-")
    base = int(os.environ.get("PROPERTY_SEED", "1"))
    seeds = range(base, base + count)
    with concurrent.futures.ThreadPoolExecutor(jobs()) as pool:
        results = list(pool.map(lambda seed: check_module(rlx, seed, tmp, run), seeds))
    fails = {label: 0 for label, _ in COMMANDS}
    fails["input"] = 0
    first = {}
    for failed in results:  # in seed order: the first failure is the lowest seed
        for label, why in failed.items():
            fails[label] += 1
            first.setdefault(label, why)
    for label in ["input"] + [lbl for lbl, _ in COMMANDS]:
        what = ("generated modules are accepted" if label == "input"
                else f"{label}: output checks, twice == once")
        if fails[label] == 0:
            tap.ok(f"{what} ({count} modules)")
        else:
            src, cmd, rc, err = first[label]
            tap.not_ok(f"{what} ({fails[label]} of {count} modules fail)",
                       f"first failure: {cmd}\nexit status {rc}\n{err.strip()}\n"
                       f"module: {src}\n(all failing modules are kept in {tmp})")
    if not any(results):
        os.rmdir(tmp)


if __name__ == "__main__":
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
