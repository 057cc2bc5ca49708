#!/usr/bin/env bash
# test.sh - checks the format of changed lines (scripts/check-format.sh),
# then builds and runs every test suite: in the default build (gcc); the
# compiler suite in a build without the llvm-cpu target; again in a
# clang-22 build with AddressSanitizer, LeakSanitizer,
# UndefinedBehaviorSanitizer and the libFuzzer targets (suite 'fuzz'); the
# unit suite under ThreadSanitizer (gcc); and the runtime cross-built for
# aarch64, its tests under qemu-user. Prints one "N passed, N failed" line
# over all five at the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

status=0
# The C/C++ lines changed since scripts/format-base are formatted by their
# tree's .clang-format.
./scripts/check-format.sh || status=1

./scripts/build.sh
meson test -C build --print-errorlogs || status=1

# Every target is a build option: the compiler configured without llvm-cpu
# (portable only, then the default target) builds, and its lit suite runs
# (tools/strata-compile-portable-only.mlir; the llvm-cpu tests are
# unsupported there). ccache makes this build mostly links.
BUILD_DIR=build-portable-only ./scripts/build.sh -Dtarget_llvm_cpu=false \
  -Dpython=disabled
meson test -C build-portable-only --print-errorlogs --suite compiler ||
  status=1

# The runtime alone is enough here; the compiler is covered by the default
# build. This build also uses the portable switch dispatch, so both
# interpreter loops are tested.
# The MLP sample runs here too, compiled by build/'s strata-compile (when it
# has one): compiled kernels and their host code under the sanitizers.
external_compile=""
if [[ -x build/compiler/tools/strata-compile/strata-compile ]]; then
  external_compile="$root/build/compiler/tools/strata-compile/strata-compile"
fi
# Each fuzz target this build makes (fuzz/meson.build lists them all; the
# ONNX one needs the compiler, so it is not built here) runs 200k executions
# from its seeds (a smoke run: the tensor readers' target manages ~1.2k/s
# under ASan, so 1M took 869 s of its 900 s timeout); scripts/fuzz.sh runs
# real campaigns.
CC=clang-22 CXX=clang++-22 BUILD_DIR=build-sanitize ./scripts/build.sh \
  -Dcompiler=disabled -Dfuzzing=true -Dfuzz_runs=200000 -Dvm_computed_goto=false \
  -Dexternal_strata_compile="$external_compile"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  meson test -C build-sanitize --print-errorlogs || status=1

# ThreadSanitizer over the unit suite: semaphores, fences, the loop, the
# task pool and both devices. tests/tsan.supp silences glibc's dynamic loader.
BUILD_DIR=build-tsan ./scripts/build.sh -Dcompiler=disabled \
  -Db_sanitize=thread -Db_lundef=false
TSAN_OPTIONS="halt_on_error=1 suppressions=$root/tests/tsan.supp" \
  meson test -C build-tsan --print-errorlogs --suite unit || status=1

# The runtime cross-built for aarch64 (g++-aarch64-linux-gnu), its tests
# run under qemu-user: the unit suite, the samples (the MLP compiled by
# build/'s strata-compile for aarch64) and the aarch64 suite (microkernel
# edge cases, the e2e lit tests, the conformance programs and four models
# compiled for aarch64, compared with numpy or torch and with this host's
# results).
# docs/targets.md says what runs and why the other suites do not.
if [[ ! -f build-aarch64/build.ninja ]]; then
  meson setup build-aarch64 \
    --cross-file scripts/cross/aarch64-linux-gnu.ini \
    -Dcompiler=disabled -Dpython=disabled \
    -Dexternal_strata_compile="$external_compile"
fi
BUILD_DIR=build-aarch64 ./scripts/build.sh \
  -Dexternal_strata_compile="$external_compile"
meson test -C build-aarch64 --print-errorlogs \
  --suite unit --suite samples --suite aarch64 || status=1

python3 - build/meson-logs/testlog.json \
  build-portable-only/meson-logs/testlog.json \
  build-sanitize/meson-logs/testlog.json \
  build-tsan/meson-logs/testlog.json \
  build-aarch64/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            result = json.loads(line)["result"]
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
PY
exit "$status"
