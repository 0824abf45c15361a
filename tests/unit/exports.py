"""The public interface as linked: librlx exports exactly the functions
that include/rlx.h and include/rlx_runtime.h declare, as include/rlx.map
lists them. Usage: exports.py LIBRLX.so (SRCDIR: the source root)."""
import glob
import os
import re
import subprocess
import sys

src = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
declared = set()
for h in sorted(glob.glob(os.path.join(src, "include", "*.h"))):
    text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    declared |= set(re.findall(r"\b(rlx_\w+)\s*\(", text))
mapped = set(re.findall(r"^\s*(rlx_\w+);", open(os.path.join(src, "include", "rlx.map")).read(), re.M))
nm = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]],
                    capture_output=True, text=True, check=True).stdout
exported = {l.split()[-1] for l in nm.splitlines() if l.split() and l.split()[-1].startswith("rlx_")}

failed = 0
print("1..3")
for k, (ok, name, why) in enumerate([
        (declared == mapped, "include/rlx.map lists the functions the public headers declare",
         ["not in rlx.map: %s" % n for n in sorted(declared - mapped)] +
         ["in rlx.map, declared nowhere: %s" % n for n in sorted(mapped - declared)]),
        (declared <= exported, "librlx exports every public function",
         ["not exported: %s" % n for n in sorted(declared - exported)]),
        (exported <= declared, "librlx exports nothing else",
         ["exported, not public: %s" % n for n in sorted(exported - declared)])], 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", k, name))
    for w in ([] if ok else why):
        print("# " + w)
    failed += not ok
sys.exit(1 if failed else 0)
