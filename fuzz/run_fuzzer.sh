#!/bin/sh
# run_fuzzer.sh - runs a libFuzzer target from fresh seeds for a fixed number
# of executions; any crash, leak or sanitizer report fails the test.
# usage: run_fuzzer.sh FUZZER SEED_MAKER TARGET WORK_DIR RUNS [SECONDS]
# (SECONDS, when given and not 0, bounds the run by time instead).
set -eu
fuzzer=$1 seeds=$2 target=$3 work=$4 runs=$5 seconds=${6:-0}
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
"$seeds" "$target" "$work/corpus"
limit="-runs=$runs"
if [ "$seconds" != 0 ]; then
  limit="-max_total_time=$seconds"
fi
# Keep ASan's quarantine small so RSS stays far below -rss_limit_mb.
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
# libFuzzer's exit codes are its own (a leak may exit 77, which meson reads
# as "skipped"): any failure is reported as 1.
if ! "$fuzzer" "$limit" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"; then
  echo "run_fuzzer.sh: the fuzzer failed; the input is in $work/artifacts/" >&2
  exit 1
fi
