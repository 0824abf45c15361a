# rlx — set-up, build, test, demo, bench.
#
#   make         install what is missing, configure, build build/rlx
#   make test    the same, then every test under ASan+UBSan (build-test/)
#   make demo    build, then run the example model end to end
#   make bench   run the benchmarks in bench/ (kernels, then transform)
#   make fuzz    both libFuzzer harnesses with ASan+UBSan for FUZZ_SECONDS
#                (default 600); findings go to tests/fuzz/regress;
#                FUZZ_SEEDS=DIR adds DIR/*.py to the seeds;
#                FUZZ_TIMEOUT=S (default 10) wall seconds make a hang
#
# Packages come from Debian. As root, missing ones are installed with
# apt-get; otherwise the exact command is printed and make stops.

PACKAGES := gcc flex bison meson ninja-build pkg-config libcmocka-dev \
            llvm-19-dev libjansson-dev libxxhash-dev python3-numpy \
            openmpi-bin libopenmpi-dev libzstd-dev
# make bench only: NumPy's BLAS (Debian's numpy otherwise runs the reference
# BLAS), threadpoolctl to report which kernel it uses, PyTorch (the forward
# benchmark's peer).
BENCH_PACKAGES := libopenblas0-pthread python3-threadpoolctl python3-torch
# make fuzz only: clang with libFuzzer and the sanitizers' runtimes.
FUZZ_PACKAGES := clang libclang-rt-14-dev
FUZZ_SECONDS := 600
BUILD    := build
TBUILD   := build-test
RLX      := $(BUILD)/rlx
MESON_OPTS :=

.PHONY: all deps bench-deps fuzz-deps build test demo bench fuzz clean

all: build

deps:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "rlx needs these packages; run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --buildtype=release -Db_ndebug=false $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(TBUILD)/build.ninja: | deps
	meson setup $(TBUILD) --buildtype=debug -Doptimization=1 \
	  -Db_sanitize=address,undefined -Db_lundef=false \
	  -Dc_args=-fno-sanitize-recover=all $(MESON_OPTS)

# The last line is `N passed, N failed` (and `, N skipped` when some were).
SHELL := /bin/bash

test: deps $(TBUILD)/build.ninja
	@meson setup --reconfigure $(TBUILD) >/dev/null
	ninja -C $(TBUILD)
	@set -o pipefail; meson test -C $(TBUILD) --print-errorlogs --num-processes 2 \
	  2>&1 | tee $(TBUILD)/test-output.txt; status=$$?; \
	ok=$$(awk '/^Ok:/{print $$2}' $(TBUILD)/test-output.txt); \
	fail=$$(awk '/^(Fail|Timeout|Unexpected Pass):/{s+=$$NF} END{print s+0}' $(TBUILD)/test-output.txt); \
	skip=$$(awk '/^Skipped:/{print $$2}' $(TBUILD)/test-output.txt); \
	if [ $$status != 0 ] || [ "$${fail:-0}" != 0 ]; then \
	  echo "--- what failed (from $(TBUILD)/meson-logs/testlog.txt) ---"; \
	  grep -E -A8 '^(not ok|Traceback)|^==[0-9]+==ERROR|runtime error:|test program exited' \
	    $(TBUILD)/meson-logs/testlog.txt | head -n 80; \
	fi; \
	line="$${ok:-0} passed, $${fail:-0} failed"; \
	[ "$${skip:-0}" != 0 ] && line="$$line, $$skip skipped"; \
	echo "$$line"; \
	[ $$status = 0 ] && [ "$${fail:-0}" = 0 ] && [ -n "$$ok" ]

demo: build
	@sh examples/demo.sh $(RLX)

bench-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(BENCH_PACKAGES)"

bench: build bench-deps
	@/usr/bin/python3 bench/run.py $(RLX)

fuzz-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(FUZZ_PACKAGES)"

# Exit 1 when the fuzzers found something (listed; see tests/fuzz/README.md).
fuzz: deps fuzz-deps
	@sh tests/fuzz/fuzz.sh $(FUZZ_SECONDS) build-fuzz

clean:
	rm -rf $(BUILD) $(TBUILD)
