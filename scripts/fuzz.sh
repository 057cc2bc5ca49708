#!/usr/bin/env bash
# fuzz.sh - a fuzzing campaign over every libFuzzer target (fuzz/): builds
# the clang-22 sanitizer build (build-sanitize/, as scripts/test.sh does,
# or BUILD_DIR) and runs each target from fresh seeds, one at a time, for
# its share of the time or a number of executions. Any crash, leak,
# timeout or sanitizer report fails the campaign; the input is kept in
# BUILD_DIR/fuzz/TARGET.campaign/artifacts/.
#
#   ./scripts/fuzz.sh --minutes=10          10 minutes in all
#   ./scripts/fuzz.sh --minutes=2 tensor_fuzzer
#   ./scripts/fuzz.sh --runs=10000000       10M executions per target
#   BUILD_DIR=build-fuzz ./scripts/fuzz.sh --onnx --runs=1000000 onnx_fuzzer
#
# --onnx configures a new build directory with the compiler (for
# onnx_fuzzer; it needs LLVM/MLIR 22 and libonnx-dev) and builds only the
# fuzz targets and their seeds, not the whole compiler under ASan.
#
# The --onnx build runs `nice ninja -j$FUZZ_JOBS` (default 2), so that
# building the compiler under ASan does not take every core of a shared
# machine; set FUZZ_JOBS to use more.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build-sanitize}"
minutes=5
runs=0
onnx=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --minutes=*) minutes="${arg#--minutes=}" ;;
    --runs=*) runs="${arg#--runs=}" ;;
    --onnx) onnx=1 ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown flag $arg" >&2; exit 2 ;;
    *) targets+=("$arg") ;;
  esac
done
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || ((minutes == 0)); then
  echo "fuzz.sh: --minutes takes a positive whole number" >&2
  exit 2
fi
if ! [[ "$runs" =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: --runs takes a whole number" >&2
  exit 2
fi

cd "$root"
export PATH="/usr/lib/llvm-22/bin:$PATH"
# As in build.sh: ccache hits across clones.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
if ((onnx)); then
  if [[ ! -f "$build/build.ninja" ]]; then
    CC=clang-22 CXX=clang++-22 meson setup "$build" -Dcompiler=enabled \
      -Dfuzzing=true -Dpython=disabled
  fi
  # The targets, their seeds and the module the runtime targets load.
  nice ninja -j"${FUZZ_JOBS:-2}" -C "$build" fuzz/make_seeds samples/hal_dispatch/hal_sample.vmfb \
    $(cd "$build" && ninja -t targets all | sed -n 's|^\(fuzz/[a-z_]*_fuzzer\):.*|\1|p' | sort -u)
else
  CC=clang-22 CXX=clang++-22 BUILD_DIR="$build" ./scripts/build.sh \
    -Dcompiler=disabled -Dfuzzing=true
fi
if ((${#targets[@]} == 0)); then
  # Every target this build has (onnx_fuzzer needs the compiler,
  # service_fuzzer the service's libraries).
  for target in module_fuzzer library_fuzzer tensor_fuzzer embedding_fuzzer \
      service_fuzzer onnx_fuzzer; do
    if [[ -x "$build/fuzz/$target" ]]; then
      targets+=("$target")
    fi
  done
fi
seconds=$((minutes * 60 / ${#targets[@]}))
((seconds > 0)) || seconds=1
((runs == 0)) || seconds=0
status=0
for target in "${targets[@]}"; do
  if ((runs)); then
    echo "fuzz.sh: $target for $runs executions"
  else
    echo "fuzz.sh: $target for $seconds s"
  fi
  if ! fuzz/run_fuzzer.sh "$build/fuzz/$target" "$build/fuzz/make_seeds" \
      "$target" "$build/fuzz/$target.campaign" "$runs" "$seconds"; then
    echo "fuzz.sh: $target FAILED" >&2
    status=1
  fi
done
exit "$status"
