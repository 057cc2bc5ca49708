#!/usr/bin/env bash
# fuzz.sh - a fuzzing campaign over every libFuzzer target (fuzz/): builds
# the clang-22 sanitizer build (build-sanitize/, as scripts/test.sh does,
# or BUILD_DIR) and runs each target from fresh seeds for its share of the
# time. Any crash, leak, timeout or sanitizer report fails the campaign;
# the input is kept in BUILD_DIR/fuzz/TARGET.campaign/artifacts/.
#
#   ./scripts/fuzz.sh --minutes=10          10 minutes in all
#   ./scripts/fuzz.sh --minutes=2 tensor_fuzzer
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build-sanitize}"
minutes=5
targets=()
for arg in "$@"; do
  case "$arg" in
    --minutes=*) minutes="${arg#--minutes=}" ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown flag $arg" >&2; exit 2 ;;
    *) targets+=("$arg") ;;
  esac
done
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || ((minutes == 0)); then
  echo "fuzz.sh: --minutes takes a positive whole number" >&2
  exit 2
fi
if ((${#targets[@]} == 0)); then
  targets=(module_fuzzer library_fuzzer tensor_fuzzer embedding_fuzzer)
fi

cd "$root"
CC=clang-22 CXX=clang++-22 BUILD_DIR="$build" ./scripts/build.sh \
  -Dcompiler=disabled -Dfuzzing=true
seconds=$((minutes * 60 / ${#targets[@]}))
((seconds > 0)) || seconds=1
status=0
for target in "${targets[@]}"; do
  echo "fuzz.sh: $target for $seconds s"
  if ! fuzz/run_fuzzer.sh "$build/fuzz/$target" "$build/fuzz/make_seeds" \
      "$target" "$build/fuzz/$target.campaign" 0 "$seconds"; then
    echo "fuzz.sh: $target FAILED" >&2
    status=1
  fi
done
exit "$status"
