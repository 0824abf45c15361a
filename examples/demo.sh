#!/bin/sh
# The rlx demo (`make demo`): the example Llama-style decoder end to end.
#   random checkpoint -> transform into a tensor cache -> run the original
#   model on the checkpoint and the lifted model on the cache -> compare.
# Usage: examples/demo.sh [path/to/rlx]
set -e
RLX=${1:-build/rlx}
EX=$(dirname "$0")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rlx-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

step() {
	echo
	echo "== $*"
}

for model in llama llama_q8; do
	M="$EX/$model.py"
	CKPT="$WORK/$model.safetensors"
	CACHE="$WORK/$model-cache"

	step "rlx init-weights $M --seed 0 -o $model.safetensors"
	"$RLX" init-weights "$M" --seed 0 -o "$CKPT"
	echo "$(du -k "$CKPT" | cut -f1) KiB of random weights (HF names, e.g. model.layers.0.self_attn.q_proj.weight)"

	step "rlx lift $M   (the weight transform, split out)"
	"$RLX" lift "$M" | sed -n '/def main_transform_params/,/return gv/p' \
		| grep ' = R\.' | sed 's/^ *//; s/: R\.Tensor(.*) = / = /' | cut -c1-120 | head -8
	echo "..."

	step "rlx transform $M --weights $model.safetensors -o $model-cache"
	"$RLX" transform "$M" --weights "$CKPT" -o "$CACHE"
	ls "$CACHE"

	step "rlx transform again: nothing to do"
	"$RLX" transform "$M" --weights "$CKPT" -o "$CACHE"

	/usr/bin/python3 -c "import numpy as np; np.save('$WORK/ids.npy', np.array([1, 17, 42, 7, 99, 3], dtype=np.int64))"
	step "rlx run $M --params $model.safetensors   (the original, on the checkpoint)"
	"$RLX" run "$M" --params "$CKPT" --input "input_ids=$WORK/ids.npy" -o "$WORK/a.npy"
	step "rlx run $model-cache --input ...   (lifted, on the cache: DIR holds model.py)"
	"$RLX" run "$CACHE" --input "input_ids=$WORK/ids.npy" -o "$WORK/b.npy"
	/usr/bin/python3 -c "
import numpy as np
a, b = np.load('$WORK/a.npy'), np.load('$WORK/b.npy')
print('logits', a.shape, a.dtype, '- largest difference between the two runs:', float(np.abs(a - b).max()))
assert np.allclose(a, b, rtol=1e-5, atol=1e-6), 'the runs differ'"

	step "rlx verify $M --weights $model.safetensors"
	"$RLX" verify "$M" --weights "$CKPT"
done

# Tensor parallelism: the same decoder written for 2 workers (llama_tp.py),
# pre-sharded from the same checkpoint, run on 2 Open MPI ranks, compared
# with the single-process original.
M="$EX/llama_tp.py"
CKPT="$WORK/llama.safetensors"
CACHE="$WORK/llama_tp-cache"
step "rlx transform $M --weights llama.safetensors --tensor-parallel 2 -o llama_tp-cache"
"$RLX" transform "$M" --weights "$CKPT" --tensor-parallel 2 -o "$CACHE"
/usr/bin/python3 -c "
import json
j = json.load(open('$CACHE/tensor-cache.json'))
names = [r['name'] for s in j['records'] for r in s['records']]
print(len(names), 'records:', ', '.join(n for n in names if 'layers.0' in n or n.startswith('l0_')), '...')"
"$RLX" run "$EX/llama.py" --params "$CKPT" --input "input_ids=$WORK/ids.npy" -o "$WORK/orig.npy"
if command -v mpirun >/dev/null 2>&1; then
	step "mpirun -np 2 rlx run llama_tp-cache --input ...   (worker K = MPI rank, R.ccl.allreduce over MPI)"
	mpirun --allow-run-as-root --oversubscribe -np 2 \
		"$RLX" run "$CACHE" --input "input_ids=$WORK/ids.npy" -o "$WORK/tp.npy"
	/usr/bin/python3 -c "
import numpy as np
a, b = np.load('$WORK/orig.npy'), np.load('$WORK/tp.npy')
print('logits', b.shape, '- largest difference from the single-process llama.py:', float(np.abs(a - b).max()))
assert np.allclose(a, b, rtol=1e-4, atol=1e-5), 'the runs differ'"
else
	echo "(no mpirun: install openmpi-bin to run the two ranks)"
fi
echo
echo "demo: ok"
