#!/bin/sh
# The rlx demo: what exists today, end to end on the example model.
set -e
RLX=${1:-build/rlx}
EX=$(dirname "$0")
echo "== rlx check $EX/mlp.py"
"$RLX" check "$EX/mlp.py"
echo "ok"
echo
echo "== rlx dump $EX/mlp.py   (normalized: nested calls bound, struct info inferred)"
"$RLX" dump "$EX/mlp.py"
