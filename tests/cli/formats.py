#!/usr/bin/python3
"""`rlx dump --format json|dot` and `--print-after-all`: TAP tests.

json: the output is valid JSON whose functions, params, bindings and ops
mirror the module, with its prim_funcs and the calls of them. dot: one cluster per function, and the bindings that
lift-transform-params would move sit in the dashed "transform (lifted)"
cluster while runtime bindings do not. print-after-all: one `# after NAME`
heading per pass, each followed by a module that parses back.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

RLX = os.environ["RLX"]
SRC = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MLP = os.path.join(SRC, "examples", "mlp.py")

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def rlx(*args, stdin=None):
    p = subprocess.run([RLX, *args], input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# --- json -------------------------------------------------------------------
rc, out, err = rlx("dump", MLP, "--format", "json")
check("json: exit 0", rc == 0, err)
try:
    doc = json.loads(out)
except ValueError as e:
    doc = None
    check("json: parses", False, str(e))
else:
    check("json: parses", True)
if doc:
    fns = {f["name"]: f for f in doc["functions"]}
    check("json: one function main", list(fns) == ["main"], list(fns))
    main = fns.get("main", {})
    params = [p["name"] for p in main.get("params", [])]
    check("json: dotted parameter names kept",
          "model.layers.0.mlp.up_proj.weight" in params, params)
    check("json: num_input attribute", main.get("attrs", {}).get("num_input") == 1)
    ops = [b["value"].get("op") for blk in main["body"]["blocks"] for b in blk["bindings"]]
    check("json: ops in binding order", ops[:3] == ["nn.rms_norm", "concat", "permute_dims"], ops)
    binding = main["body"]["blocks"][0]["bindings"][2]
    check("json: attributes", binding["value"]["attrs"] == {"axes": [1, 0]}, binding["value"])
    check("json: struct info as text", binding["var"]["sinfo"] == 'R.Tensor((64, 256), dtype="float32")',
          binding["var"]["sinfo"])
    check("json: locations", binding["loc"][0] > 0 and binding["loc"][1] > 0, binding["loc"])

# --- dot --------------------------------------------------------------------
rc, out, err = rlx("dump", MLP, "--format", "dot")
check("dot: exit 0", rc == 0, err)
check("dot: a digraph", out.startswith("digraph rlx {") and out.rstrip().endswith("}"))
lift_part = out[out.find("transform (lifted)"):out.find("label=\"runtime\"")]
run_part = out[out.find("label=\"runtime\""):]
check("dot: lifted cluster holds the weight transposes",
      "gate_up_t = permute_dims" in lift_part and "down_t = permute_dims" in lift_part, lift_part)
check("dot: runtime cluster holds the matmuls",
      "gu = matmul" in run_part and "gate_up_t" not in run_part.split("->")[0], run_part[:400])
check("dot: edges", re.search(r"f0_v\d+ -> f0_v\d+;", out) is not None)
check("dot: braces balance", out.count("{") == out.count("}"))

# --- prim_funcs in json and dot --------------------------------------------
TIR = os.path.join(SRC, "tests", "golden", "roundtrip", "tir_lowered.py")
rc, out, err = rlx("dump", TIR, "--format", "json")
check("json tir: exit 0", rc == 0, err)
try:
    doc = json.loads(out)
except ValueError as e:
    doc = {}
prims = {p["name"]: p for p in doc.get("prim_funcs", [])}
check("json tir: every prim_func listed",
      sorted(prims) == ["exp2d", "fill", "is_multiple", "noop", "relu_any"], sorted(prims))
fill = prims.get("fill", {})
check("json tir: buffer and scalar parameters",
      [(q["kind"], q["dtype"], q.get("shape")) for q in fill.get("params", [])]
      == [("buffer", "float32", ["n"]), ("scalar", "int64", None)], fill.get("params"))
check("json tir: purity as TVM computes it",
      prims.get("noop", {}).get("pure") is True and fill.get("pure") is False)
check("json tir: the body as TVMScript", "X[i] = T.float32(0.0)" in fill.get("text", ""), fill.get("text"))
edges = [(e["caller"], e["via"], e["prim_func"]) for e in doc.get("prim_calls", [])]
check("json tir: the call edges", edges == [
    ("pure_call", "call", "noop"), ("forced", "call", "exp2d"),
    ("dyn", "vm.call_tir_dyn", "fill"), ("check", "call", "is_multiple"),
    ("via_relax", "call_tir", "relu_any")], edges)
rc, out, err = rlx("dump", TIR, "--format", "dot")
check("dot tir: exit 0", rc == 0, err)
check("dot tir: prim_funcs drawn", "cluster_prims" in out and
      re.search(r'p1 \[shape=component, label="exp2d\(A: float32\[n, m\]', out) is not None, out[:600])
check("dot tir: call_tir edge", re.search(r'f\d+_v\d+ -> p4 \[style=dashed, label="call_tir"\];', out)
      is not None, out)
check("dot tir: braces balance", out.count("{") == out.count("}"))

# --- print-after-all --------------------------------------------------------
passes = "convert-ssa,canonicalize-bindings,lift-transform-params,dead-code-elimination"
rc, out, err = rlx("dump", MLP, "--passes", passes, "--print-after-all")
check("print-after-all: exit 0", rc == 0, err)
heads = re.findall(r"^# after (\S+)$", out, re.M)
check("print-after-all: one heading per pass", heads == passes.split(","), heads)
chunks = re.split(r"^# after \S+\n", out, flags=re.M)[1:]
for name, text in zip(heads, chunks):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
    rc2, _, err2 = rlx("check", f.name)
    os.unlink(f.name)
    check(f"print-after-all: module after {name} parses back", rc2 == 0, err2)

# --- usage errors -----------------------------------------------------------
rc, _, err = rlx("dump", MLP, "--format", "svg")
check("unknown format: exit 2", rc == 2 and "unknown format" in err, err)
rc, _, err = rlx("dump", MLP, "--passes", "no-such-pass")
check("unknown pass: exit 2", rc == 2 and "unknown pass 'no-such-pass'" in err, err)
rc, _, err = rlx("lift", MLP, "--bind", "oops")
check("--bind without '=': exit 2", rc == 2, err)
rc, _, err = rlx("lift", MLP, "--bind", "nosuch=3")
check("--bind of an unknown name: exit 1", rc == 1 and "nosuch" in err, err)
with tempfile.TemporaryDirectory() as d:
    out_path = os.path.join(d, "lifted.py")
    rc, _, err = rlx("lift", MLP, "-o", out_path)
    check("lift -o writes the file", rc == 0 and os.path.exists(out_path), err)
    rc, _, err = rlx("lift", os.path.join(SRC, "tests/golden/errors/unknown_op_call_tir.py"), "-o",
                     os.path.join(d, "bad.py"))
    check("lift -o on bad input writes nothing", rc == 1 and not os.path.exists(os.path.join(d, "bad.py")),
          sorted(os.listdir(d)))

# --- bind-params with an array: config fixed at compile time joins the transform
BIND = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), scale: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            ws = R.multiply(w, scale)
            y = R.add(x, ws)
            R.output(y)
        return y
'''
with tempfile.TemporaryDirectory() as d:
    model = os.path.join(d, "m.py")
    with open(model, "w") as f:
        f.write(BIND)
    import numpy as np
    np.save(os.path.join(d, "s.npy"), np.array([0.5, 2.0], dtype=np.float32))
    np.save(os.path.join(d, "s3.npy"), np.zeros(3, dtype=np.float32))
    np.save(os.path.join(d, "si.npy"), np.zeros(2, dtype=np.int32))
    rc, out, err = rlx("lift", model)
    check("unbound config stays a runtime input", rc == 0 and "ws" not in out.split("def main_transform_params")[1]
          and "R.multiply(w, scale)" in out, out)
    rc, out, err = rlx("lift", model, "--bind", "scale=@" + os.path.join(d, "s.npy"))
    tp = out.split("def main_transform_params")[1] if "def main_transform_params" in out else ""
    check("--bind NAME=@file.npy: the config joins the transform",
          rc == 0 and 'R.multiply(w, R.const([0.5, 2.0], "float32"))' in tp and '"num_input": 1' in out, out + err)
    rc, out, err = rlx("lift", model, "--bind", "scale=@" + os.path.join(d, "s3.npy"))
    check("--bind with a mis-shaped array: located error", rc == 1 and "m.py:4:" in err and "shape (3)" in err, err)
    rc, out, err = rlx("lift", model, "--bind", "scale=@" + os.path.join(d, "si.npy"))
    check("--bind with a mis-typed array: located error", rc == 1 and "int32" in err, err)
    rc, out, err = rlx("lift", model, "--bind", "scale=@" + os.path.join(d, "none.npy"))
    check("--bind with a missing file: exit 1", rc == 1 and "none.npy" in err, err)

# command-line consistency: help, aliases, suggestions
rc, out, err = rlx("help", "dump")
check("rlx help COMMAND is COMMAND --help", rc == 0 and out.startswith("usage: rlx dump"), out + err)
rc, out, err = rlx("help")
check("rlx help lists the commands", rc == 0 and "commands:" in out, out + err)
# every variable rlx reads is listed: the ones its sources read (getenv),
# besides MPI's, so a new one cannot go undocumented
read = set()
for sub in ("runtime", "compiler", "cli"):
    for root, _, files in os.walk(os.path.join(SRC, sub)):
        for f in files:
            if f.endswith(".c"):
                with open(os.path.join(root, f)) as fh:
                    read |= set(re.findall(r'getenv\("(\w+)"\)', fh.read()))
read = {v for v in read if not v.startswith("OMPI_") and v != "HOME"}
env = out.split("environment", 1)[1] if "environment" in out else ""
check("rlx help lists the environment it reads",
      "RLX_NUM_THREADS" in read and all(v in env for v in read),
      "read: %s; listed: %s" % (sorted(read), env))
# an environment that names no instruction set: an error of the run, not
# located at the function (the model's text is not what is wrong), under
# the command's name as every error about no file
p = subprocess.run([RLX, "run", MLP, "--print-plan"], capture_output=True, text=True,
                   env=dict(os.environ, RLX_ISA="sse9"))
check("RLX_ISA=sse9: exit 1, an error of the run, not of a line",
      p.returncode == 1 and p.stderr.startswith(
          "rlx run: error: cannot start the JIT: RLX_ISA is 'sse9': avx512, avx2 or generic")
      and MLP not in p.stderr, p.stderr)
rc, out, err = rlx("dump", "x.py", "--pases", "a")
check("an unknown option suggests the closest", rc == 2 and "did you mean --passes?" in err, err)
rc, out, err = rlx("dump", "x.py", "--zzzzzz")
check("no suggestion when none is close", rc == 2 and "unknown option --zzzzzz\n" in err, err)
rc, out, err = rlx("dump", "x.py", "--passes", "dead-code-elimnation")
check("an unknown pass suggests the closest", rc == 2 and "did you mean 'dead-code-elimination'?" in err, err)
rc, out, err = rlx("chek", "x.py")
check("a misspelt command suggests the closest",
      rc == 2 and "unknown command 'chek'; did you mean 'check'?" in err, err)
rc, out, err = rlx("frobnicate")
check("no command suggestion when none is close; the usage instead",
      rc == 2 and "did you mean" not in err and "commands" in err.lower(), err)
rc, out, err = rlx("verify", "x.py", "--params", "w.safetensors", "--zz")
check("verify takes --params as --weights", rc == 2 and "--params" not in err and "--zz" in err, err)
rc, out, err = rlx("run", "/nonexistent.py", "--weights", "w.safetensors")
check("run takes --weights as --params", rc == 1 and "unknown option" not in err, err)

print(f"1..{len(results)}")
failed = 0
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")
sys.exit(1 if failed else 0)
