#!/bin/sh
# `make fuzz`: both libFuzzer harnesses (fuzz_rlx.c: the frontend, IR and
# passes; fuzz_io.c: the file readers) built with ASan and UBSan and run
# for a time budget, one after the other under `nice`. What they find is
# minimized and copied into the tree, where `meson test` replays it:
# tests/fuzz/regress/finding-* (fuzz_rlx) and tests/fuzz/regress/io/finding-*
# (fuzz_io). Then: fix the bug, rename the file to say what broke (a first
# comment line for regress/, a row in regress/io/README.md).
#
#   tests/fuzz/fuzz.sh [SECONDS] [OUTDIR]
#
# SECONDS (default 600) is split evenly between the two harnesses; OUTDIR
# (default build-fuzz) keeps the builds and the corpora, which later runs
# reuse. FUZZ_SEEDS=DIR adds DIR/*.py to fuzz_rlx's seeds. FUZZ_TIMEOUT
# (default 10) is the seconds of wall time after which an input counts as
# a hang (and a slow unit): raise it on a loaded machine, where a fast
# input can wait that long for a core. Exit 0 when nothing was found, 1 when something was (the findings
# are listed), 2 when the harnesses cannot be built.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
out=${2:-$src/build-fuzz}
mkdir -p "$out"
out=$(cd "$out" && pwd)
half=$((secs / 2))
tmo=${FUZZ_TIMEOUT:-10}
[ "$half" -gt 0 ] || half=1

sh "$src/tests/fuzz/build.sh" "$out" >/dev/null || exit 2
sh "$src/tests/fuzz/build_io.sh" "$out" >/dev/null || exit 2
mkdir -p "$out/corpus" "$out/seeds" "$out/crash" "$out/io-corpus" "$out/io-crash"
cp "$src"/tests/golden/roundtrip/*.py "$src"/tests/golden/errors/*.py \
	"$src"/tests/passes/golden/*.py "$src"/tests/fuzz/regress/*.py \
	"$src"/tests/fuzz/corpus_tir/*.py \
	"$out/seeds/" 2>/dev/null || true
# FUZZ_SEEDS=DIR: more seeds, e.g. TVM's own modules (tvm_modules.py)
if [ -n "${FUZZ_SEEDS:-}" ]; then
	cp "$FUZZ_SEEDS"/*.py "$out/seeds/" 2>/dev/null ||
		echo "fuzz: no *.py in FUZZ_SEEDS=$FUZZ_SEEDS"
fi

# One harness for `half` seconds; libFuzzer stops at its first finding.
run() { # NAME DICT MAXLEN RSS ARTIFACTS CORPUS SEEDS
	echo "fuzz: $1 for $half s"
	(cd "$out" && nice "./$1" -dict="$2" -max_len="$3" -timeout="$tmo" \
		-report_slow_units="$tmo" \
		-rss_limit_mb="$4" -max_total_time="$half" -print_final_stats=1 \
		-artifact_prefix="$5/" "$6" "$7" >"$out/$1.log" 2>&1) || true
	if ! grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" \
		"$out/$1.log" | sed "s/^/fuzz: $1 /"; then
		echo "fuzz: $1 did not run; see $out/$1.log"
		exit 2
	fi
}
run fuzz_rlx "$src/tests/fuzz/rlx.dict" 8192 4096 crash corpus seeds
run fuzz_io "$src/tests/fuzz/io.dict" 8192 2048 io-crash io-corpus \
	"$src/tests/fuzz/corpus_io"

# Findings: minimized, then copied where the replay tests find them.
found=0
keep() { # HARNESS ARTIFACT-DIR DEST SUFFIX
	for c in "$out/$2"/crash-* "$out/$2"/leak-* "$out/$2"/timeout-* \
		"$out/$2"/oom-* "$out/$2"/slow-unit-*; do
		[ -e "$c" ] || continue
		n=$(basename "$c")
		min="$out/$2/min-$n"
		(cd "$out" && "./$1" -minimize_crash=1 -runs=5000 \
			-exact_artifact_path="$min" "$c" >/dev/null 2>&1) || true
		[ -s "$min" ] || min=$c
		dest="$3/finding-$n$4"
		cp "$min" "$dest"
		mv "$c" "$out/$2/seen-$n"
		echo "fuzz: $1 found $n -> ${dest#$src/}"
		found=$((found + 1))
	done
}
keep fuzz_rlx crash "$src/tests/fuzz/regress" .py
keep fuzz_io io-crash "$src/tests/fuzz/regress/io" ""
if [ "$found" -gt 0 ]; then
	echo "fuzz: $found finding(s); logs in ${out#$src/}/*.log"
	exit 1
fi
echo "fuzz: nothing found in $secs s"
