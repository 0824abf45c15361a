#!/bin/sh
# Builds the libFuzzer harness of the file readers (tests/fuzz/fuzz_io.c)
# with clang, ASan and UBSan, outside meson: the readers are compiled with
# -fsanitize=fuzzer-no-link so that libFuzzer sees their coverage.
#
#   tests/fuzz/build_io.sh [OUTDIR]   (default: build-fuzz)
#
# Produces OUTDIR/fuzz_io. See tests/fuzz/README.md for running it.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$src/build-fuzz}
mkdir -p "$out/io"
cc=${CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c17 -g -O1 -D_GNU_SOURCE -fno-omit-frame-pointer $san \
	-Wall -Wextra -Wno-unused-parameter -I$src/include -I$src/compiler -I$src/runtime/base -I$src/runtime/io"

objs=""
for f in runtime/base/tensor.c runtime/base/bufpool.c runtime/base/atomic_file.c runtime/base/input_file.c runtime/io/safetensors.c runtime/io/npy.c \
	runtime/io/tensor_cache_write.c runtime/io/tensor_cache_read.c compiler/util.c \
	compiler/diag.c; do
	o=$out/io/$(basename "$f" .c).o
	$cc $cflags -fsanitize=fuzzer-no-link -c "$src/$f" -o "$o"
	objs="$objs $o"
done
# The cache writer names the rlx version; the rest of the compiler
# (compiler/api.c) is not needed for reading.
printf '#include "rlx.h"\nconst char *rlx_version(void) { return "fuzz"; }\n' \
	>"$out/io/version.c"
$cc $cflags -c "$out/io/version.c" -o "$out/io/version.o"
$cc $cflags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_io.c" $objs "$out/io/version.o" \
	-ljansson -lxxhash -lm -lpthread -o "$out/fuzz_io"
echo "built $out/fuzz_io"
