#!/usr/bin/env bash
# nchwc.sh - the f32 3x3 convolution in a channel-blocked layout (NCHWc,
# 16 channels a block) beside this repository's NHWC convolution
# microkernel, built for the host's AVX-512 row as the compiler builds it,
# on resnet18's 3x3 shapes (56x56x64, 28x28x128, 14x14x256), one image hot
# in cache, interleaved rounds (nchwc_time.c). It measures the loop each
# layout allows, not a model: what a blocked layout would change between
# layers (its conversions, how the previous layer's rows arrive) is not in
# it.
#
#   bench/ukernel/nchwc.sh [REPS [ROUNDS]]
# Exit 77 (skip) without AVX-512.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
ukernel="$root/compiler/lib/Codegen/LLVMCPU/ukernel"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
reps="${1:-20}"
rounds="${2:-9}"
# shellcheck source=bench/ukernel/sconv_build.sh
. "$root/bench/ukernel/sconv_build.sh"
sconv_pick_row "" avx512
sconv_build "$ukernel" "$out/sgemm.o" strata_ukernel_sconv_f32
"$clang" -O3 -std=c11 "${flags[@]}" "$root/bench/ukernel/nchwc_time.c" \
  "$out/sgemm.o" -lm -o "$out/nchwc_time"
echo "nchwc.sh: $(lscpu | sed -n 's/^Model name: *//p'), NHWC kernel of the" \
  "$isa row, $(date '+%Y-%m-%d %H:%M')"
status=0
for shape in "56 64 64" "28 128 128" "14 256 256"; do
  # shellcheck disable=SC2086
  "$out/nchwc_time" $shape "$reps" "$rounds" || status=1
done
exit $status
