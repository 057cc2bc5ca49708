#!/usr/bin/env bash
# band.sh - the f32 convolution microkernel of this host's variant called
# as a batch-8 model's workgroups call it (band_time.c: the kernel reading
# each band's rows of the image and skipping the padding, as the compiler
# calls it, beside the same calls on a padded window filled and copied per
# band, as it did before, and beside them with the output and residual
# kept in cache and without the copy): what the memory around the kernel
# costs, on resnet18's 64- and 128-channel 3x3 convolutions (bands of 7
# rows, as the compiler cuts them at batch 8).
#
#   bench/ukernel/band.sh [REPS [ROUNDS [BATCH]]]
# Exit 77 (skip) without AVX2 + FMA.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
ukernel="$root/compiler/lib/Codegen/LLVMCPU/ukernel"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
reps="${1:-5}"
rounds="${2:-7}"
batch="${3:-8}"
# shellcheck source=bench/ukernel/sconv_build.sh
. "$root/bench/ukernel/sconv_build.sh"
sconv_pick_row "" ""
sconv_build "$ukernel" "$out/sgemm.o" strata_ukernel_sconv_f32
"$clang" -O2 -std=c11 "$root/bench/ukernel/band_time.c" "$out/sgemm.o" -lm \
  -o "$out/band_time"
echo "band.sh: $(lscpu | sed -n 's/^Model name: *//p'), the $isa row," \
  "$(date '+%Y-%m-%d %H:%M')"
status=0
for shape in "56 64 64 7" "28 128 128 7"; do
  # shellcheck disable=SC2086
  "$out/band_time" $shape "$batch" "$reps" "$rounds" || status=1
done
exit $status
