#!/bin/sh
# run_fuzzer.sh - runs a libFuzzer target from fresh seeds for a fixed number
# of executions; any crash, leak or sanitizer report fails the test.
# usage: run_fuzzer.sh FUZZER SEED_MAKER WORK_DIR RUNS
set -eu
fuzzer=$1 seeds=$2 work=$3 runs=$4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
"$seeds" "$work/corpus"
# Keep ASan's quarantine small so RSS stays far below -rss_limit_mb.
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
# libFuzzer's exit codes are its own (a leak may exit 77, which meson reads
# as "skipped"): any failure is reported as 1.
if ! "$fuzzer" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"; then
  echo "run_fuzzer.sh: the fuzzer failed; the input is in $work/artifacts/" >&2
  exit 1
fi
