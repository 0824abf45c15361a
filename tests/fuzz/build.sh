#!/bin/sh
# Builds the libFuzzer harness (tests/fuzz/fuzz_rlx.c) with clang, ASan and
# UBSan, outside meson: the frontend, the IR stages and the passes are
# compiled with -fsanitize=fuzzer-no-link so that libFuzzer sees coverage.
#
#   tests/fuzz/build.sh [OUTDIR]      (default: build-fuzz)
#
# Produces OUTDIR/fuzz_rlx. See tests/fuzz/README.md for running it.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$src/build-fuzz}
mkdir -p "$out/gen"
cc=${CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c17 -g -O1 -D_GNU_SOURCE -fno-omit-frame-pointer $san \
	-I$src/include -I$src/compiler -I$src/grammar -I$src/passes -I$out/gen"

flex --outfile="$out/gen/lexer.c" --header-file="$out/gen/lexer.h" \
	"$src/grammar/lexer.l"
bison --defines="$out/gen/parser.h" --output="$out/gen/parser.c" \
	"$src/grammar/parser.y"

# the op table's parameter slots (op_params.h, .c), as meson generates them
$cc -std=c17 -D_GNU_SOURCE -DRLX_OPS_WITHOUT_RULES -I"$src/include" -I"$src/compiler" \
	"$src/compiler/gen_params.c" "$src/compiler/ops.c" "$src/compiler/util.c" \
	-ljansson -lxxhash -lm -lpthread -o "$out/gen/gen_params"
"$out/gen/gen_params" "$out/gen/op_params.h" "$out/gen/op_params.c"

objs=""
for f in compiler/util.c compiler/diag.c compiler/ir.c compiler/ops.c \
	compiler/tir.c compiler/print_tir.c compiler/tir_access.c \
	compiler/verify_tir.c grammar/build_tir.c \
	compiler/op_attr.c "$out/gen/op_params.c" \
	compiler/prim.c compiler/infer.c compiler/infer_ops.c compiler/verify.c \
	compiler/print.c compiler/print_json.c compiler/equal.c compiler/api.c \
	passes/pipeline.c passes/convert_ssa.c passes/canonicalize_bindings.c \
	passes/bind_params.c passes/lift_transform_params.c passes/lift_shared.c \
	passes/dce.c \
	passes/unbundle_params.c passes/graph.c grammar/parse.c grammar/build.c \
	grammar/build_sinfo.c grammar/build_value.c \
	"$out/gen/lexer.c" "$out/gen/parser.c"; do
	case $f in /*) path=$f ;; *) path=$src/$f ;; esac
	o=$out/$(basename "$f" .c).o
	$cc $cflags -fsanitize=fuzzer-no-link -c "$path" -o "$o"
	objs="$objs $o"
done
$cc $cflags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_rlx.c" $objs \
	-ljansson -lxxhash -lm -lpthread -o "$out/fuzz_rlx"
echo "built $out/fuzz_rlx"
